"""Non-deterministic expressions (rand, randn, uuid, shuffle, monotonically_increasing_id)
are never folded, duplicated or dropped by a rule.

Each case counts the non-deterministic calls in the analyzed and the optimized plan (in
subquery plans too): every call Spark evaluates must still be there, exactly as often.
A call may go only where Spark would never evaluate it (an untaken branch, the right
side of `FALSE AND`, an operator over provably empty input); those cases say so.
Spark checks the answer wherever it is reproducible: seeded `rand(7)` / `randn(3)` and
`monotonically_increasing_id()` give the same values for the same scan of a table.
"""

from __future__ import annotations

from collections import Counter

import pytest
from sparkfold.optimizer import optimize
from sparkfold.optimizer.output_nullability import NAME as KEEP_NULLABILITY
from sparkfold.optimizer.verify import excluded_rules
from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import logical as L
from sparkfold.plans.ir.functions import NONDETERMINISTIC_NAMES

from tests.data import STANDARD_SCHEMA as S
from tests.rule_helpers import nodes
from tests.spark_check import assert_same_result, is_ordered, run, run_or_error


def calls(plan: L.Plan | None) -> Counter:
    """Non-deterministic calls in a plan, by their SQL text (`rand(7)`, `uuid()`)."""
    out: Counter = Counter()
    if plan is None:
        return out
    for op in nodes(plan, L.Plan):
        for e in op.expressions:
            for n in e.walk():
                if isinstance(n, E.Opaque) and n.sql_text.split("(")[0].strip().lower() in NONDETERMINISTIC_NAMES:
                    out[n.sql_text.lower()] += 1
    return out


def spark_same(spark, r) -> None:
    if r.sql == r.original_sql:
        return  # nothing was rewritten: the same text gives the same answer
    assert_same_result(spark, r.original_sql, r.sql, ordered=is_ordered(r.analyzed), context=r.sql)


# Every call is evaluated by Spark (on some row of some table): all must survive, as often.
PRESERVED = [
    # the equal-branch identity IF(c, x, x) -> x is for deterministic x only: two rand(7)
    # are two generators, each advancing only on the rows its branch is taken for
    "SELECT num, IF(p, rand(7) > 0.5, rand(7) > 0.5) FROM t",
    "SELECT num, IF(num > 4, rand(7), rand(7)) FROM t",
    "SELECT num, CASE WHEN p THEN rand(7) > 0.5 ELSE rand(7) > 0.5 END FROM t",
    "SELECT num, CASE WHEN p THEN rand(7) > 0.5 WHEN num > 3 THEN rand(7) > 0.5 "
    "ELSE rand(7) > 0.5 END FROM t",
    "SELECT num, CASE WHEN num > 3 THEN rand(7) > 0.5 WHEN num > 5 THEN rand(7) > 0.5 END FROM t",
    # e AND FALSE / e OR TRUE: e is evaluated first, so it stays
    "SELECT num FROM t WHERE rand(7) > 2 AND FALSE",
    "SELECT num FROM t WHERE rand(7) > 0.5 OR TRUE",
    "SELECT num, (rand(7) > 0.5) AND FALSE, (randn(3) > 0) OR TRUE FROM t",
    "SELECT num FROM t WHERE NOT (rand(7) > 0.5 OR TRUE)",
    "SELECT num FROM t WHERE rand(7) > 0.5 AND num IS NULL",  # num is NOT NULL
    # a AND a, a OR a, a AND NOT a, a = a, a <=> a: two evaluations, two values
    "SELECT num, (rand(7) > 0.5) AND (rand(7) > 0.5), (rand(7) > 0.5) OR (rand(7) > 0.5) FROM t",
    "SELECT num, (rand(7) > 0.5) AND NOT (rand(7) > 0.5), (rand(7) > 0.5) OR NOT (rand(7) > 0.5) FROM t",
    "SELECT num, rand(7) = rand(7), rand(7) <=> rand(7), rand(7) - rand(7) FROM t",
    "SELECT num FROM t WHERE rand(7) > 0.5 AND num > 3 AND rand(7) > 0.5",
    "SELECT num FROM t WHERE (num > 5 AND rand(7) > 0.5) OR (num > 5 AND rand(7) > 0.5)",
    "SELECT num FROM t WHERE (num > 5 OR rand(7) > 0.5) AND (num > 5 OR rand(7) > 0.5)",
    "SELECT num FROM t WHERE (rand(7) > 0.3 OR num > 5) AND (rand(7) > 0.3 OR num < 2)",
    "SELECT num FROM t WHERE num > 0 AND (rand(7) > 0.5 OR num > 0)",
    # never-NULL but not droppable: no IS NULL -> FALSE, no coalesce pruning past it
    "SELECT num, rand(7) IS NULL, isnotnull(randn(3)), coalesce(rand(7), 1), coalesce(NULL, rand(7), 1) FROM t",
    "SELECT num, coalesce(rand(7) > 0.5, rand(7) > 0.5) FROM t",
    # a NULL beside a non-deterministic operand: the operand is still evaluated by Spark
    "SELECT num, NULL + rand(7), rand(7) > NULL, rand(7) <=> NULL FROM t",
    "SELECT num, nanvl(rand(7), NULL), greatest(rand(7), NULL) FROM t",
    # IN lists with repeated non-deterministic items are not deduplicated
    "SELECT num FROM t WHERE num IN (CAST(rand(7) * 10 AS INT), CAST(rand(7) * 10 AS INT))",
    "SELECT num FROM t WHERE CAST(rand(7) * 10 AS INT) IN (1, 2, 2, NULL)",
    # plan rules: filters are not inferred from, copied or pushed through non-deterministic ones
    "SELECT * FROM t LEFT JOIN u ON t.num = u.num WHERE rand(7) < 2 AND u.y > 0",
    "SELECT * FROM t FULL JOIN u ON t.num = u.num WHERE u.num = t.num + rand(7) * 0",
    "SELECT a.num, a.r FROM (SELECT num, rand(7) r FROM t) a JOIN u ON a.num = u.num WHERE a.r > 0.2",
    "SELECT num FROM (SELECT num, rand(7) r FROM t) WHERE r > 0.5 AND r > 0.5",
    "SELECT r, count(*) FROM (SELECT rand(7) > 0.5 r FROM t) GROUP BY r HAVING count(*) > 0 OR NULL",
    "SELECT DISTINCT rand(7) > 2 FROM t",
    "SELECT num FROM t WHERE num IN (SELECT num FROM u WHERE rand(7) > 0.5)",
    "SELECT num, (SELECT max(z) + rand(7) FROM u) FROM t WHERE EXISTS (SELECT 1 FROM u WHERE rand(7) > 0.5)",
    "SELECT rand(7) FROM t UNION ALL SELECT rand(7) FROM t",
    "SELECT rand(7) FROM t UNION SELECT rand(7) FROM t",
    "SELECT num, monotonically_increasing_id() FROM t WHERE num > 3",
    "SELECT num, monotonically_increasing_id() = monotonically_increasing_id() FROM t",
    "SELECT rand(7) r FROM t ORDER BY r",
    # a global aggregate over empty input still has its one row: rand(7) is evaluated once
    "SELECT max(num) + rand(7), count(*) FROM t WHERE FALSE",
    "SELECT rand(7) > 0.5 FROM (SELECT count(*) c FROM t WHERE num IS NULL)",
    "SELECT num FROM t WHERE rand(7) > 0.5 LIMIT 3",
]

# Not reproducible across runs (unseeded): counts only, plus the schema on Spark.
UNSEEDED = [
    "SELECT num, uuid() = uuid(), uuid() IS NULL FROM t",
    "SELECT num FROM t WHERE uuid() = uuid() OR uuid() IS NOT NULL",
    "SELECT IF(p, uuid(), uuid()), IF(p, rand(), rand()) FROM t",
    "SELECT shuffle(array(1, 2, 3)) = shuffle(array(1, 2, 3)), coalesce(shuffle(array(1)), array(2)) FROM t",
    "SELECT num, (rand() > 2) AND FALSE FROM t",
]


@pytest.mark.parametrize("sql", PRESERVED)
def test_non_deterministic_calls_are_kept_and_spark_agrees(spark, tables, sql):
    r = optimize(sql, S)
    assert r.passthrough is None, r.passthrough
    assert calls(r.analyzed), "the query must hold a non-deterministic call"
    assert calls(r.optimized) == calls(r.analyzed), r.sql
    spark_same(spark, r)


@pytest.mark.parametrize("sql", UNSEEDED)
def test_unseeded_calls_are_kept(spark, tables, sql):
    r = optimize(sql, S)
    assert r.passthrough is None, r.passthrough
    assert calls(r.optimized) == calls(r.analyzed), r.sql
    a, b = run_or_error(spark, r.original_sql), run_or_error(spark, r.sql)
    assert a[0] == b[0] and (len(a[1]) == len(b[1]) if a[0] != "error" else a == b)


def test_folding_equal_random_branches_would_change_spark_answer(spark, tables):
    # the test above is not vacuous: IF(p, rand(7), rand(7)) is not rand(7) on Spark
    a = run(spark, "SELECT num, IF(num % 2 = 0, rand(7), rand(7)) AS r FROM t")[1]
    b = run(spark, "SELECT num, rand(7) AS r FROM t")[1]
    assert sorted(a) != sorted(b)
    r = optimize("SELECT num, IF(num % 2 = 0, rand(7), rand(7)) AS r FROM t", S)
    assert calls(r.optimized)["rand(7)"] == 2


def test_equal_deterministic_branches_still_merge():
    # the guard is on determinism, not on equality: IF(p, x + 1, x + 1) -> x + 1
    r = optimize("SELECT IF(p, num + 1, num + 1) AS v FROM t", S)
    assert any(w.rule == "SimplifyConditionals" for w in r.trace)
    assert not nodes(r.optimized, L.Project)[0].projections[0].find(E.If)


# A call Spark never evaluates may go (it has no effect); the answer must not change.
NEVER_EVALUATED = [
    # (sql, call, count left in the optimized plan)
    ("SELECT num, IF(TRUE, rand(7) > 0.5, rand(8) > 0.5) FROM t", "rand(8)", 0),
    ("SELECT num, IF(FALSE, rand(7) > 0.5, rand(8) > 0.5) FROM t", "rand(7)", 0),
    ("SELECT num, CASE WHEN CAST(NULL AS BOOLEAN) THEN rand(7) > 0.5 ELSE rand(8) > 0.5 END FROM t", "rand(7)", 0),
    ("SELECT num, CASE WHEN TRUE THEN rand(8) > 0.5 ELSE rand(7) > 0.5 END FROM t", "rand(7)", 0),
    ("SELECT num, CASE WHEN p THEN rand(8) > 0.5 WHEN TRUE THEN rand(9) > 0.5 "
     "ELSE rand(7) > 0.5 END FROM t", "rand(7)", 0),
    ("SELECT num FROM t WHERE FALSE AND rand(7) > 2", "rand(7)", 0),
    ("SELECT num FROM t WHERE TRUE OR rand(7) > 2", "rand(7)", 0),
    ("SELECT num, NULL IN (rand(7), 1.0) FROM t", "rand(7)", 0),
]


@pytest.mark.parametrize("sql,call,left", NEVER_EVALUATED)
def test_never_evaluated_calls_may_go(spark, tables, sql, call, left):
    r = optimize(sql, S)
    before, after = calls(r.analyzed), calls(r.optimized)
    assert after[call] == left
    # every other call is kept, as often
    assert {k: v for k, v in before.items() if k != call} == {k: v for k, v in after.items() if k != call}
    spark_same(spark, r)


# A whole operator over provably empty input never evaluates its expressions.
EMPTY_INPUT = [
    "SELECT num FROM (SELECT * FROM t WHERE FALSE) WHERE rand(7) > 0.5",
    "SELECT num, rand(7) FROM t WHERE num IS NULL",
    "SELECT monotonically_increasing_id(), uuid() FROM t WHERE NULL AND p",
    "SELECT rand(7) > 0.5, count(*) FROM t WHERE FALSE GROUP BY rand(7) > 0.5",
    "SELECT t.num, rand(7) FROM t JOIN (SELECT * FROM u WHERE FALSE) v ON t.num = v.num",
]


@pytest.mark.parametrize("sql", EMPTY_INPUT)
def test_operator_over_empty_input_may_drop_its_calls(spark, tables, sql):
    # the rules' own output (the optimizer's last step may keep the query as written, when
    # the original's nullability rests on a call sparkfold does not model: `rand(7) > 0.5`)
    rules = optimize(sql, S, exclude=[KEEP_NULLABILITY])
    assert rules.changed
    # nothing is duplicated, and nothing new appears
    after, before = calls(rules.optimized), calls(rules.analyzed)
    assert all(after[k] <= before[k] for k in after) and set(after) <= set(before)
    r = optimize(sql, S)
    a, b = run_or_error(spark, r.original_sql), run_or_error(spark, r.sql)
    assert a[0] == b[0]
    if "uuid" not in sql:
        spark_same(spark, r)


def test_filter_on_random_over_empty_relation_is_empty(spark, tables):
    r = optimize("SELECT num FROM (SELECT * FROM t WHERE FALSE) WHERE rand(7) > 0.5", S)
    assert L.is_empty_relation(r.optimized) or not nodes(r.optimized, L.Relation)
    assert run(spark, r.sql)[1] == []


# Spark rejects a non-deterministic aggregate argument, aggregate FILTER or JOIN condition.
# A rule folding the aggregate (count(rand()) -> count(1), an empty input) or pruning the
# join would hide that error: such queries pass through unchanged.
SPARK_REJECTS = [
    ("SELECT count(rand(7)), count(DISTINCT rand(7) > 0.5) FROM t",
     "AGGREGATE_FUNCTION_WITH_NONDETERMINISTIC_EXPRESSION"),
    ("SELECT count(uuid()), count(rand()) FROM t", "AGGREGATE_FUNCTION_WITH_NONDETERMINISTIC_EXPRESSION"),
    ("SELECT max(num), count(rand(7)) FROM t WHERE FALSE",
     "AGGREGATE_FUNCTION_WITH_NONDETERMINISTIC_EXPRESSION"),
    ("SELECT count(*) FILTER (WHERE rand(7) > 0.5) FROM t WHERE FALSE",
     "INVALID_AGGREGATE_FILTER.NON_DETERMINISTIC"),
    ("SELECT * FROM t JOIN (SELECT * FROM u WHERE FALSE) v ON t.num = v.num AND rand(7) > 0.3",
     "INVALID_NON_DETERMINISTIC_EXPRESSIONS"),
    ("SELECT * FROM t LEFT JOIN u ON t.num = u.num AND rand(7) > 0.3 WHERE FALSE",
     "INVALID_NON_DETERMINISTIC_EXPRESSIONS"),
]


@pytest.mark.parametrize("sql,error", SPARK_REJECTS)
def test_query_spark_rejects_for_non_determinism_keeps_its_error(spark, tables, sql, error):
    r = optimize(sql, S)
    assert r.passthrough and r.sql == sql
    assert run_or_error(spark, r.sql) == ("error", error)


def test_is_not_null_guard_before_a_random_predicate_is_kept(spark, tables):
    # without the guard, rand(7) would also draw on the rows with a NULL b, shifting the
    # values every later row sees (RemoveRedundantIsNotNull dropped it)
    sql = "SELECT num FROM t WHERE b IS NOT NULL AND rand(7) < 0.5 + b * 0"
    r = optimize(sql, S)
    assert "IS NOT NULL" in r.sql and calls(r.optimized) == calls(r.analyzed)
    spark_same(spark, r)
    # the guard matters on Spark once Catalyst does not put it back itself (its
    # InferFiltersFromConstraints prepends isnotnull(b), even to a non-deterministic filter)
    rule = "org.apache.spark.sql.catalyst.optimizer.InferFiltersFromConstraints"
    with excluded_rules(spark, [rule]):
        a = run(spark, sql)[1]
        b = run(spark, "SELECT num FROM t WHERE rand(7) < 0.5 + b * 0")[1]
        assert sorted(a) != sorted(b)
        assert_same_result(spark, sql, r.sql)
