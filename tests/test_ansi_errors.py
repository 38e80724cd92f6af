"""ANSI errors are never hidden or introduced by a rewrite.

Spark 4 raises under ANSI for 1/0, integral overflow, malformed casts, out-of-range
element_at...  The error is the query's result: a query that raises must keep raising
the same error class after optimization, a query that does not raise must not start to,
unless the rows that would raise are provably never evaluated (an empty input, an
untaken branch, the right side of `FALSE AND`).  Spark is the oracle for both sides; each
list also checks that the original really does (or does not) raise, so no case is vacuous.
"""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from sparkfold.optimizer import optimize
from sparkfold.optimizer.verify import excluded_rules
from sparkfold.plans.ir import logical as L
from sparkfold.plans.sql_in.catalog import Catalog

from tests.data import STANDARD_SCHEMA as S
from tests.spark_check import assert_same_result, is_ordered, run_or_error

# Catalyst's own folding rules, switched off for the "literal" Spark oracle: with them on,
# Spark itself drops some raising expressions (`(1/0) = NULL` is NULL, `e AND FALSE` is
# FALSE), so the default session would not notice a rule of ours hiding the error.  With
# them off, Spark evaluates what the SQL says.
CATALYST_FOLDING = ",".join("org.apache.spark.sql.catalyst.optimizer." + n for n in """
ConstantFolding NullPropagation BooleanSimplification SimplifyConditionals PruneFilters
PropagateEmptyRelation ConvertToLocalRelation FoldablePropagation ReplaceNullWithFalseInPredicate
SimplifyBinaryComparison OptimizeIn InferFiltersFromConstraints EliminateOuterJoin
ConstantPropagation NullDownPropagation""".split())


@contextmanager
def literal_spark(spark):
    with excluded_rules(spark, CATALYST_FOLDING.split(",")):
        yield spark


def outcomes(spark, r):
    """(original, optimized) outcomes on Spark: rows with schema, or ("error", class)."""
    a = run_or_error(spark, r.original_sql)
    return a, (a if r.sql == r.original_sql else run_or_error(spark, r.sql))


def same_outcome(spark, r) -> None:
    if r.sql != r.original_sql:
        assert_same_result(spark, r.original_sql, r.sql, ordered=is_ordered(r.analyzed), context=r.sql)


# (query, Spark's error class): every one raises on the standard tables, before and after
RAISES = [
    ("SELECT 1/0", "DIVIDE_BY_ZERO"),
    ("SELECT num / 0 FROM t", "DIVIDE_BY_ZERO"),
    ("SELECT num % 0 FROM t", "REMAINDER_BY_ZERO"),
    ("SELECT num div 0 FROM t", "DIVIDE_BY_ZERO"),
    # a NULL test over an expression that raises: not FALSE / TRUE, the error stays
    ("SELECT 1/0 IS NULL", "DIVIDE_BY_ZERO"),
    ("SELECT 1/0 IS NOT NULL", "DIVIDE_BY_ZERO"),
    ("SELECT num / 0 IS NULL FROM t", "DIVIDE_BY_ZERO"),
    ("SELECT num FROM t WHERE (num / 0) IS NULL", "DIVIDE_BY_ZERO"),
    ("SELECT 1/0 <=> NULL", "DIVIDE_BY_ZERO"),
    ("SELECT num FROM t WHERE num / 0 <=> NULL", "DIVIDE_BY_ZERO"),
    # x = NULL is NULL, but only after x was evaluated... and x raises
    ("SELECT (1/0) = NULL", "DIVIDE_BY_ZERO"),
    ("SELECT num FROM t WHERE num / 0 = NULL", "DIVIDE_BY_ZERO"),
    ("SELECT num FROM t WHERE CAST(s AS INT) = NULL", "CAST_INVALID_INPUT"),
    # e AND FALSE / e OR TRUE: e is evaluated first
    ("SELECT num FROM t WHERE 1/0 = 1 AND FALSE", "DIVIDE_BY_ZERO"),
    ("SELECT num FROM t WHERE num / 0 = 1 AND FALSE", "DIVIDE_BY_ZERO"),
    ("SELECT num FROM t WHERE num / 0 = 1 OR TRUE", "DIVIDE_BY_ZERO"),
    ("SELECT num FROM t WHERE NOT (num / 0 > 1 OR TRUE)", "DIVIDE_BY_ZERO"),
    ("SELECT num FROM t WHERE num / 0 = 1 AND num IS NULL", "DIVIDE_BY_ZERO"),  # num NOT NULL
    ("SELECT num FROM t WHERE num / 0 > 1 AND num / 0 > 1", "DIVIDE_BY_ZERO"),
    ("SELECT num FROM t WHERE (num / 0 > 1) AND NOT (num / 0 > 1)", "DIVIDE_BY_ZERO"),
    ("SELECT num FROM t WHERE x = 'abc' AND FALSE", "CAST_INVALID_INPUT"),
    # conditions of IF / CASE are evaluated even when every branch is the same
    ("SELECT IF(1/0 > 1, 1, 1)", "DIVIDE_BY_ZERO"),
    ("SELECT CASE WHEN 1/0 > 1 THEN 1 ELSE 1 END", "DIVIDE_BY_ZERO"),
    ("SELECT CASE WHEN num > 5 THEN 1 WHEN num / 0 > 1 THEN 2 ELSE 2 END FROM t", "DIVIDE_BY_ZERO"),
    ("SELECT IF(num > 100, 1/0, num) FROM t WHERE num > 5 OR num / 0 > 1", "DIVIDE_BY_ZERO"),
    # overflow
    ("SELECT 2147483647 + 1", "ARITHMETIC_OVERFLOW"),
    ("SELECT num + 2147483647 FROM t", "ARITHMETIC_OVERFLOW"),
    ("SELECT b * 9223372036854775807 FROM t", "ARITHMETIC_OVERFLOW"),
    ("SELECT abs(-2147483648)", "ARITHMETIC_OVERFLOW"),
    ("SELECT -(-2147483648)", "ARITHMETIC_OVERFLOW"),
    ("SELECT CAST(2147483648 AS INT)", "CAST_OVERFLOW"),
    ("SELECT CAST(x AS INT) FROM t", "CAST_OVERFLOW"),
    ("SELECT (num + 2147483647) IS NULL FROM t", "ARITHMETIC_OVERFLOW"),
    # malformed casts (explicit and Spark's implicit string casts)
    ("SELECT CAST('a' AS INT)", "CAST_INVALID_INPUT"),
    ("SELECT CAST(s AS INT) FROM t", "CAST_INVALID_INPUT"),
    ("SELECT num FROM t WHERE CAST(s AS INT) IS NULL", "CAST_INVALID_INPUT"),
    ("SELECT num FROM t WHERE s = 1", "CAST_INVALID_INPUT"),
    ("SELECT x = 'abc' FROM t", "CAST_INVALID_INPUT"),
    ("SELECT num FROM t WHERE num = 'abc' IS NULL", "CAST_INVALID_INPUT"),
    ("SELECT count(CAST(s AS INT)) FROM t", "CAST_INVALID_INPUT"),
    # array access
    ("SELECT element_at(array(1, 2), 5)", "INVALID_ARRAY_INDEX_IN_ELEMENT_AT"),
    ("SELECT element_at(array(1, 2), num) FROM t", "INVALID_ARRAY_INDEX_IN_ELEMENT_AT"),
    ("SELECT element_at(array(1, 2), num) IS NULL FROM t", "INVALID_ARRAY_INDEX_IN_ELEMENT_AT"),
    ("SELECT array(1, 2)[5]", "INVALID_ARRAY_INDEX"),
    # count of a never-NULL argument is count(1) only when the argument cannot raise
    ("SELECT count(num / 0) FROM t", "DIVIDE_BY_ZERO"),
    ("SELECT count(DISTINCT num / 0) FROM t", "DIVIDE_BY_ZERO"),
    # coalesce evaluates its arguments up to the first non-NULL one
    ("SELECT coalesce(NULL, 1/0)", "DIVIDE_BY_ZERO"),
    ("SELECT coalesce(b, num / 0) FROM t", "DIVIDE_BY_ZERO"),
    ("SELECT nullif(1/0, 1)", "DIVIDE_BY_ZERO"),
    # IN evaluates its list when the value is not NULL
    ("SELECT num FROM t WHERE num IN (1/0, 2) AND num IS NULL", "DIVIDE_BY_ZERO"),
    ("SELECT num IN (NULL, num / 0) FROM t", "DIVIDE_BY_ZERO"),
    # a raising expression over a non-empty input, next to prunable things
    ("SELECT num, 1/0 FROM t WHERE num IS NOT NULL", "DIVIDE_BY_ZERO"),
    ("SELECT t.num / 0 FROM t LEFT JOIN e ON t.num = e.num AND e.x IS NULL", "DIVIDE_BY_ZERO"),
    ("SELECT t.num FROM t LEFT JOIN u ON t.num = u.num WHERE u.y / 0 > 1 OR u.y IS NULL", "DIVIDE_BY_ZERO"),
    ("SELECT max(num / 0) FROM t GROUP BY p HAVING max(num) IS NOT NULL", "DIVIDE_BY_ZERO"),
    # (an error inside a subquery reaches Python without its class: any error, the same)
    ("SELECT (SELECT max(num) / 0 FROM u) FROM t", None),
    ("SELECT num FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.y / 0 > 1)", None),
]


@pytest.mark.parametrize("sql,error", RAISES)
def test_query_that_raises_keeps_raising(spark, tables, sql, error):
    r = optimize(sql, S)
    with literal_spark(spark):
        a, b = outcomes(spark, r)
    assert a[0] == "error" and (error is None or a[1] == error), f"the original must raise {error}: {a}"
    assert b == a, f"optimized: {r.sql}\n{b}"
    same_outcome(spark, r)  # and the default session agrees too


# Spark does not raise: the raising part is never evaluated; the optimizer must not make
# it evaluated (nor fold it and raise at optimization time).
NO_RAISE = [
    "SELECT CASE WHEN TRUE THEN 1 ELSE 1/0 END",
    "SELECT CASE WHEN FALSE THEN 1/0 ELSE 1 END",
    "SELECT IF(TRUE, 1, 1/0), IF(FALSE, 1/0, 2), IF(NULL, 1/0, 3)",
    "SELECT IF(num > 100, 1/0, num) FROM t",
    "SELECT CASE WHEN num > 100 THEN CAST(s AS INT) ELSE num END FROM t",
    "SELECT CASE WHEN num = 1 THEN 1/0 ELSE 0 END FROM t WHERE num > 1",  # SPARK-39106
    "SELECT num FROM t WHERE FALSE AND 1/0 = 1",
    "SELECT num FROM t WHERE TRUE OR num / 0 = 1",
    "SELECT num FROM t WHERE FALSE AND x = 'abc'",
    "SELECT num FROM t WHERE num IS NULL AND num / 0 = 1",
    "SELECT num FROM t WHERE num > 100 AND CAST(s AS INT) = 1",
    "SELECT coalesce(num, 1/0) FROM t",
    "SELECT coalesce(1, 1/0), coalesce(1, CAST('a' AS INT))",
    "SELECT NULL IN (1/0)",
    "SELECT NULL + 1/0",
    "SELECT try_divide(1, 0), try_divide(num, 0) IS NULL, try_cast('a' AS INT) FROM t",
    # provably empty inputs: the raising rows are never evaluated
    "SELECT num / 0 FROM t WHERE FALSE",
    "SELECT num, 1/0 FROM t WHERE num IS NULL",
    "SELECT num / 0 FROM e",
    "SELECT count(num / 0) FROM e",
    "SELECT count(1/0) FROM t WHERE FALSE",
    "SELECT sum(num / 0) FROM t WHERE FALSE",
    "SELECT max(num) + 1/0 FROM t WHERE FALSE",
    "SELECT num FROM t INTERSECT SELECT num / 0 FROM e",
    "SELECT num FROM e UNION ALL SELECT 1/0 FROM e",
    "SELECT num FROM t WHERE EXISTS (SELECT 1/0 FROM u WHERE FALSE)",
    "SELECT num FROM t WHERE num IN (SELECT num / 0 FROM u WHERE FALSE)",
    "SELECT (SELECT 1/0 FROM u WHERE FALSE) FROM t",
    "SELECT (SELECT max(num) / 0 FROM u WHERE FALSE) FROM t",
    "SELECT t.num FROM t JOIN (SELECT num / 0 AS q FROM u WHERE FALSE) v ON t.num = v.q",
    "SELECT t.num, v.q FROM t LEFT JOIN (SELECT num, num / 0 AS q FROM u WHERE num IS NULL AND FALSE) v "
    "ON t.num = v.num",
]


# The default session raises for these at planning time: Catalyst's ConstantFolding
# evaluates `1/0` / `CAST('abc' AS DOUBLE)` although no row ever reaches it (an empty
# input, `FALSE AND ...`).  The contract allows the optimized query not to raise
# ("unless the rows that would raise are provably never evaluated"), so these compare
# with the literal oracle only.
PLANNING_TIME_ERRORS = {
    "SELECT num FROM t WHERE FALSE AND x = 'abc'",
    "SELECT num, 1/0 FROM t WHERE num IS NULL",
    "SELECT count(1/0) FROM t WHERE FALSE",
    "SELECT max(num) + 1/0 FROM t WHERE FALSE",
    "SELECT num FROM e UNION ALL SELECT 1/0 FROM e",
    "SELECT (SELECT 1/0 FROM u WHERE FALSE) FROM t",
}


@pytest.mark.parametrize("sql", NO_RAISE)
def test_query_that_does_not_raise_does_not_start_raising(spark, tables, sql):
    r = optimize(sql, S)
    with literal_spark(spark):
        a, _ = outcomes(spark, r)
        assert a[0] != "error", f"the original must not raise: {a}"
        same_outcome(spark, r)
    if sql not in PLANNING_TIME_ERRORS:
        same_outcome(spark, r)


def test_untaken_raising_branch_is_pruned_not_folded():
    # CASE WHEN TRUE THEN 1 ELSE 1/0 END -> 1 (typed double, as Spark's CASE is)
    r = optimize("SELECT CASE WHEN TRUE THEN 1 ELSE 1/0 END AS v", S)
    assert r.changed and "1 / 0" not in r.sql and "1/0" not in r.sql.split(" AS ")[0]
    assert r.optimized.output[0].data_type.simple_string() == "double"
    # IF(c, 1/0, ...) with an unknown c keeps the division where it was
    r = optimize("SELECT IF(num > 100, 1/0, num) FROM t", S)
    assert r.sql == r.original_sql


def test_false_and_raising_is_empty_but_raising_and_false_is_not():
    r = optimize("SELECT num FROM t WHERE FALSE AND 1/0 = 1", S)
    assert L.is_empty_relation(r.optimized) or not any(isinstance(n, L.Relation) for n in r.optimized.walk())
    r = optimize("SELECT num FROM t WHERE 1/0 = 1 AND FALSE", S)
    assert any(isinstance(n, L.Relation) for n in r.optimized.walk())


def test_raising_constants_are_not_folded():
    for sql in ("SELECT 1/0", "SELECT 2147483647 + 1", "SELECT CAST('a' AS INT)", "SELECT abs(-2147483648)",
                "SELECT 1/0 IS NULL", "SELECT (1/0) = NULL", "SELECT element_at(array(1, 2), 5)"):
        r = optimize(sql, S)
        assert r.sql == sql, r.sql


# Legacy (non-ANSI) mode: 1/0 and bad casts are NULL, which IS NULL tests see.
LEGACY = [
    "SELECT 1/0 IS NULL, CAST('a' AS INT) IS NULL, coalesce(1/0, 5)",
    "SELECT num FROM t WHERE num / 0 IS NULL",
    "SELECT count(num / 0), count(CAST(s AS INT)) FROM t",
    "SELECT num FROM t WHERE CAST(s AS INT) IS NOT NULL OR num / 0 > 1",
    "SELECT 2147483647 + 1, CAST(2147483648 AS INT)",
    "SELECT num FROM t WHERE s = 1 OR x = 'abc'",
]


@pytest.fixture
def legacy(spark, tables):
    old = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        yield Catalog.from_mapping(S, ansi=False)
    finally:
        spark.conf.set("spark.sql.ansi.enabled", old)


@pytest.mark.parametrize("sql", LEGACY)
def test_legacy_mode_answers_are_kept(spark, legacy, sql):
    r = optimize(sql, legacy)
    assert run_or_error(spark, sql)[0] != "error"
    same_outcome(spark, r)
    with literal_spark(spark):
        assert run_or_error(spark, sql)[0] != "error"
        same_outcome(spark, r)


# A guard `b IS NOT NULL` that a later predicate implies is still a guard: AND
# short-circuits, so the predicate is never evaluated on the rows with a NULL b.
# Dropping it (RemoveRedundantIsNotNull) made these raise on the NULL-b row under the
# literal oracle; the default session hides that only because Catalyst's
# InferFiltersFromConstraints puts an isnotnull(b) back in front.
GUARDED = [
    "SELECT b FROM g WHERE b IS NOT NULL AND CAST(s AS INT) + b > 0",
    "SELECT b FROM g WHERE b IS NOT NULL AND s IS NOT NULL AND CAST(s AS INT) + b > 0",
    "SELECT b FROM g WHERE b IS NOT NULL AND (CAST(s AS INT) + 1) * b > 0",
    "SELECT b FROM g WHERE b IS NOT NULL AND b + CAST(s AS INT) > 0",
]


@pytest.fixture(scope="module")
def guarded(spark, tables):
    from tests.data import register

    cols = {"b": "bigint", "s": "string"}
    register(spark, "g", cols, [(None, "a"), (1, "2"), (None, "2147483647"), (3, "4")])
    return {**S, "g": cols}


@pytest.mark.parametrize("sql", GUARDED)
def test_is_not_null_guard_before_a_raising_predicate_is_kept(spark, guarded, sql):
    r = optimize(sql, guarded)
    assert "IS NOT NULL" in r.sql
    for mode in (literal_spark(spark), _default(spark)):
        with mode:
            a, b = outcomes(spark, r)
            assert a[0] != "error", a
            same_outcome(spark, r)


def test_is_not_null_after_the_predicate_still_goes(spark, guarded):
    # nothing is evaluated after a trailing guard: dropping it is sound
    r = optimize("SELECT b FROM g WHERE b > 0 AND b IS NOT NULL", guarded)
    assert "IS NOT NULL" not in r.sql
    same_outcome(spark, r)


@contextmanager
def _default(spark):
    yield spark


# Where Catalyst itself prunes, the rows that would raise count as never evaluated:
# an operator over a provably empty input (PropagateEmptyRelation, PruneFilters) and an
# outer join a null-rejecting filter makes inner (EliminateOuterJoin evaluates the filter
# with every reference NULL).  Spark's physical plan would still compute the pruned
# projection / aggregate / padded rows when its own rules are switched off, so only the
# default session is the oracle here; it agrees with the optimized query.
CATALYST_PRUNES = [
    "SELECT * FROM (SELECT b, CAST(s AS INT) AS v FROM g) a JOIN (SELECT * FROM g WHERE FALSE) z ON a.b = z.b",
    "SELECT max(CAST(s AS INT)) FROM g GROUP BY b HAVING FALSE",
    "SELECT CAST(s AS INT) FROM g INTERSECT SELECT b FROM g WHERE FALSE",
    "SELECT * FROM g LEFT JOIN n ON g.b = n.k WHERE CAST(g.s AS INT) + n.k > 0",
]


@pytest.mark.parametrize("sql", CATALYST_PRUNES)
def test_rows_catalyst_prunes_count_as_never_evaluated(spark, guarded, sql):
    r = optimize(sql, guarded)
    assert r.changed
    a, b = outcomes(spark, r)
    assert a[0] != "error" and b[0] != "error"
    same_outcome(spark, r)
    with literal_spark(spark):
        assert run_or_error(spark, sql) == ("error", "CAST_INVALID_INPUT")  # the documented difference
