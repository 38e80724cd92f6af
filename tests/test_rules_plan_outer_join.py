"""EliminateOuterJoin and its structural null-rejection test."""

from __future__ import annotations

import pytest
from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import logical as L
from sparkfold.plans.ir import types as T
from sparkfold.rules.outer_join import rejects_nulls

from tests.rule_helpers import fired, join_types, run, spark_agrees

ELIM = "EliminateOuterJoin"

# ---------------------------------------------------------------------------
# Null rejection (three-valued abstract evaluation)
# ---------------------------------------------------------------------------

A = E.Attribute("a", T.INT, True, 9001)  # the padded side
B = E.Attribute("b", T.INT, True, 9002)  # the other side
P = E.Attribute("p", T.BOOLEAN, True, 9003)  # padded boolean
SIDE = frozenset({9001, 9003})


@pytest.mark.parametrize("pred", [
    E.GreaterThan(A, E.lit(1)),
    E.EqualTo(E.Add(A, E.lit(3)), B),
    E.IsNotNull(A),
    E.Not(E.IsNull(A)),
    E.EqualNullSafe(A, E.lit(2)),
    E.In(A, (E.lit(1), E.lit(2))),
    E.Or(E.IsNotNull(A), E.And(E.GreaterThan(B, E.lit(0)), E.LessThan(A, B))),
    E.And(E.GreaterThan(B, E.lit(1)), E.GreaterThan(A, E.lit(1))),
    E.Or(E.GreaterThan(A, E.lit(1)), E.LessThan(A, E.lit(0))),
    E.Not(P),
    P,
    E.If(E.IsNull(A), E.FALSE, E.GreaterThan(B, E.lit(1))),
    E.CaseWhen(((E.IsNull(A), E.FALSE),), E.TRUE),
    E.CaseWhen(((E.GreaterThan(A, E.lit(1)), E.TRUE),)),
    E.Func("between", (A, E.lit(1), B)),
    E.Func("isnan", (E.Cast(A, T.DOUBLE),)),
    E.EqualTo(E.Coalesce((A, E.Attribute("c", T.INT, True, 9004)), "coalesce"), E.lit(0)),
], ids=["gt", "arith_eq", "isnotnull", "not_isnull", "nullsafe_literal", "in", "or_mixed", "and_other",
        "or_both", "not_bool", "bool", "if_isnull_false", "case_isnull_false", "case_no_else", "between",
        "isnan", "coalesce_all_padded_different_attr"])
def test_null_rejecting_predicates(pred):
    side = SIDE | {9004}
    assert rejects_nulls(pred, side)


@pytest.mark.parametrize("pred", [
    E.IsNull(A),
    E.EqualNullSafe(A, B),
    E.EqualTo(E.Coalesce((A, B), "coalesce"), E.lit(0)),
    E.IsNotNull(E.Coalesce((A, B), "coalesce")),
    E.Or(E.GreaterThan(A, E.lit(1)), E.GreaterThan(B, E.lit(1))),
    E.Or(E.IsNull(A), E.FALSE),
    E.Not(E.GreaterThan(B, E.lit(1))),
    E.If(E.IsNull(A), E.TRUE, E.FALSE),
    E.CaseWhen(((E.GreaterThan(A, E.lit(1)), E.TRUE),), E.TRUE),
    E.In(E.Coalesce((A, B), "coalesce"), (E.lit(1),)),
    E.Func("isnan", (E.Cast(B, T.DOUBLE),)),
    E.IsNull(E.Add(A, B)),
], ids=["isnull", "nullsafe_other", "coalesce_eq", "isnotnull_coalesce", "or_other", "or_isnull",
        "other_side_only", "if_isnull_true", "case_else_true", "in_coalesce", "isnan_other", "isnull_add"])
def test_predicates_that_do_not_reject_nulls(pred):
    assert not rejects_nulls(pred, SIDE)


def test_nondeterministic_predicate_is_not_rejecting():
    rand = E.Opaque(None, (), T.DOUBLE, "scalar", "rand()")
    assert not rejects_nulls(E.And(E.GreaterThan(A, E.lit(1)), E.GreaterThan(rand, E.lit(0.5))), SIDE)


def test_predicate_that_may_raise_on_the_padded_row_is_not_rejecting():
    # (a > 0 AND CAST('x' AS INT) > 0) OR a > 5: NULL AND <raises> evaluates the cast
    bad = E.GreaterThan(E.Cast(E.lit("x"), T.INT), E.lit(0))
    pred = E.Or(E.And(E.GreaterThan(A, E.lit(0)), bad), E.GreaterThan(A, E.lit(5)))
    assert not rejects_nulls(pred, SIDE)


def test_null_intolerant_expression_short_circuits_raising_operand_check():
    # a + (b div 0) is NULL for a NULL a whatever b: the division is never computed
    pred = E.GreaterThan(E.Add(A, E.IntegralDivide(B, E.lit(0))), E.lit(1))
    assert rejects_nulls(pred, SIDE) is False  # conservative: a raising operand below blocks it


# ---------------------------------------------------------------------------
# The rule on SQL (OuterJoinEliminationSuite)
# ---------------------------------------------------------------------------


def test_full_join_with_both_sides_rejected_is_inner():
    r = run("SELECT * FROM t FULL JOIN u ON t.num = u.num WHERE t.b >= 1 AND u.y >= 2", ELIM)
    assert join_types(r.optimized) == [L.INNER]


def test_full_join_with_right_rejected_is_right_join():
    r = run("SELECT * FROM t FULL JOIN u ON t.num = u.num WHERE u.y > 2", ELIM)
    assert join_types(r.optimized) == [L.RIGHT_OUTER]


def test_full_join_with_left_null_safe_literal_is_left_join():
    r = run("SELECT * FROM t FULL JOIN u ON t.num = u.num WHERE t.num <=> 2", ELIM)
    assert join_types(r.optimized) == [L.LEFT_OUTER]


def test_left_join_with_is_not_null_on_right_is_inner():
    r = run("SELECT * FROM t LEFT JOIN u ON t.num = u.num WHERE u.s IS NOT NULL", ELIM)
    assert join_types(r.optimized) == [L.INNER]


def test_right_join_with_left_rejected_is_inner():
    r = run("SELECT * FROM t RIGHT JOIN u ON t.num = u.num WHERE t.x > 0", ELIM)
    assert join_types(r.optimized) == [L.INNER]


def test_left_join_with_left_only_predicate_is_unchanged():
    r = run("SELECT * FROM t LEFT JOIN u ON t.num = u.num WHERE t.x > 0", ELIM)
    assert not fired(r, ELIM)


def test_left_join_or_of_is_not_null_and_is_null_is_inner():
    r = run("SELECT * FROM t LEFT JOIN u ON t.num = u.num "
            "WHERE NOT (u.s IS NULL) OR (u.y IS NOT NULL AND u.z IS NULL)", ELIM)
    assert join_types(r.optimized) == [L.INNER]


def test_left_join_in_list_is_inner():
    r = run("SELECT * FROM t LEFT JOIN u ON t.num = u.num WHERE u.s IN ('a', 'b')", ELIM)
    assert join_types(r.optimized) == [L.INNER]


def test_full_join_with_predicate_over_both_sides_is_inner():
    r = run("SELECT * FROM t FULL JOIN u ON t.num = u.num WHERE t.b + 3 = u.y", ELIM)
    assert join_types(r.optimized) == [L.INNER]


def test_full_join_with_coalesce_equality_stays_full():  # SPARK-16991
    r = run("SELECT * FROM t FULL JOIN u ON t.num = u.num WHERE coalesce(u.num, t.num) = 0", ELIM)
    assert join_types(r.optimized) == [L.FULL_OUTER]


def test_full_join_with_is_not_null_of_coalesce_stays_full():
    r = run("SELECT * FROM t FULL JOIN u ON t.num = u.num WHERE isnotnull(coalesce(u.num, t.num))", ELIM)
    assert join_types(r.optimized) == [L.FULL_OUTER]


def test_full_join_using_key_filter_stays_full():
    r = run("SELECT * FROM t FULL JOIN u USING (num) WHERE num IS NOT NULL", ELIM)
    assert join_types(r.optimized) == [L.FULL_OUTER]


def test_left_join_with_is_null_on_right_stays_outer():
    r = run("SELECT * FROM t LEFT JOIN u ON t.num = u.num WHERE u.num IS NULL", ELIM)
    assert join_types(r.optimized) == [L.LEFT_OUTER]


def test_left_join_with_unmodelled_function_stays_outer():  # SPARK-38868
    r = run("SELECT * FROM t LEFT JOIN u ON t.num = u.num "
            "WHERE isnull(if(u.num > 0, true, raise_error('bad')))", ELIM)
    assert join_types(r.optimized) == [L.LEFT_OUTER]


def test_filter_above_a_project_over_the_join_is_not_seen():
    r = run("SELECT * FROM (SELECT t.num AS tn, u.y FROM t LEFT JOIN u ON t.num = u.num) j WHERE j.y > 1",
            ELIM)
    assert join_types(r.optimized) == [L.LEFT_OUTER]  # a Project sits between: left alone


def test_filter_over_aliased_join_is_seen():
    from sparkfold.optimizer.batches import RULES

    left, right = L.Relation("l", (A,)), L.Relation("r", (B,))
    p = L.Filter(E.GreaterThan(B, E.lit(1)), L.SubqueryAlias("j", L.Join(left, right, L.LEFT_OUTER, None)))
    assert join_types(RULES[ELIM](p)) == [L.INNER]


def test_outer_join_conversion_narrows_nullability_above():
    r = run("SELECT u.y FROM t LEFT JOIN u ON t.num = u.num WHERE u.s = 'a'", ELIM,
            "UpdateAttributeNullability", exclude=("KeepOutputNullability",))  # (the rules' own output)
    assert join_types(r.optimized) == [L.INNER]
    assert not r.optimized.output[0].nullable


SPARK_CASES = [
    "SELECT * FROM t FULL JOIN u ON t.num = u.num WHERE t.b >= 1 AND u.y >= 2",
    "SELECT * FROM t FULL JOIN u ON t.num = u.num WHERE u.y > 2",
    "SELECT * FROM t FULL JOIN u ON t.num = u.num WHERE t.num <=> 2",
    "SELECT * FROM t LEFT JOIN u ON t.num = u.num WHERE u.s IS NOT NULL",
    "SELECT * FROM t RIGHT JOIN u ON t.num = u.num WHERE t.x > 0",
    "SELECT * FROM t RIGHT JOIN u ON t.num = u.num WHERE t.x = 'NaN'",
    "SELECT * FROM t LEFT JOIN u ON t.num = u.num WHERE NOT (u.s IS NULL) OR (u.y IS NOT NULL AND u.z IS NULL)",
    "SELECT * FROM t LEFT JOIN u ON t.num = u.num WHERE u.s IN ('a', 'b')",
    "SELECT * FROM t FULL JOIN u ON t.num = u.num WHERE t.b + 3 = u.y",
    "SELECT * FROM t FULL JOIN u ON t.x = u.z WHERE u.z > -1.0 AND t.x < 'Infinity'",
    "SELECT t.num, u.z FROM t LEFT JOIN u ON t.x = u.z WHERE CASE WHEN u.z IS NULL THEN false ELSE true END",
    "SELECT t.num, u.y FROM t LEFT JOIN u ON t.num = u.num WHERE u.y BETWEEN 100 AND 500",
    "SELECT * FROM (SELECT * FROM t) a LEFT JOIN u ON a.num = u.num WHERE u.y * 2 > 1",
    # through the joins below the filter whose rows reach it unchanged
    "SELECT t.num, a.s, b.s FROM t LEFT JOIN u a ON t.num = a.num LEFT JOIN u b ON t.num = b.num WHERE a.s <> b.s",
    "SELECT * FROM t LEFT JOIN u a ON t.num = a.num JOIN u b ON t.num = b.num LEFT JOIN u c ON c.num = t.num "
    "WHERE a.z < c.z",
    "SELECT * FROM t JOIN (u a LEFT JOIN u b ON a.num = b.num) ON t.num = a.num WHERE b.s > 'a'",
]


def test_a_filter_makes_the_outer_joins_below_an_inner_join_inner():
    """Catalyst's result for a generated connected-components query: the WHERE makes the
    second join inner, then `l.s IS NOT NULL`, which it infers below that join, the first."""
    r = run("SELECT t.num FROM t LEFT JOIN u l ON t.num = l.num LEFT JOIN u r ON t.num = r.num "
            "WHERE l.s <> r.s", ELIM)
    assert join_types(r.optimized) == [L.INNER, L.INNER]
    assert r.sql == "SELECT t.num FROM t JOIN u l ON t.num = l.num JOIN u r ON t.num = r.num WHERE l.s <> r.s"


def test_a_filter_that_may_raise_reaches_only_the_join_below_it():
    """Removing padded rows further down would keep the filter from evaluating them (an
    overflow of `l.y + r.y` on such a row would not be raised): only the top join."""
    r = run("SELECT t.num FROM t LEFT JOIN u l ON t.num = l.num LEFT JOIN u r ON t.num = r.num "
            "WHERE l.y + r.y > 0", ELIM)
    assert join_types(r.optimized) == [L.INNER, L.LEFT_OUTER]  # (the top join first)


@pytest.mark.parametrize("sql", SPARK_CASES)
def test_eliminate_outer_join_agrees_with_spark(spark, tables, sql):
    r = run(sql, ELIM)
    assert fired(r, ELIM)
    spark_agrees(spark, r)


@pytest.mark.parametrize("sql", [
    "SELECT * FROM t FULL JOIN u ON t.num = u.num WHERE coalesce(u.num, t.num) = 1",
    "SELECT * FROM t FULL JOIN u ON t.num = u.num WHERE isnotnull(coalesce(u.num, t.num))",
    "SELECT * FROM t LEFT JOIN u ON t.num = u.num WHERE u.num IS NULL",
    "SELECT * FROM t LEFT JOIN u ON t.num = u.num WHERE u.s <=> NULL",
    "SELECT * FROM t LEFT JOIN u ON t.num = u.num WHERE (u.num > 0 AND t.s > 'a') OR t.num > 5",
])
def test_non_rejecting_filters_keep_outer_join_on_spark(spark, tables, sql):
    r = run(sql, ELIM, "UpdateAttributeNullability")
    assert not fired(r, ELIM)
    spark_agrees(spark, r)


@pytest.mark.parametrize("sql", [
    # the dropped side computes a sum that nothing reads: Spark prunes it before running
    # (ColumnPruning), so it cannot overflow there either (eliminate_joins:5)
    "SELECT t.num FROM t LEFT JOIN (SELECT num, sum(y) AS total FROM u GROUP BY num) q ON t.num = q.num",
    "SELECT t.s FROM t LEFT JOIN (SELECT num, sum(y) * 2 AS total, count(*) AS c FROM u GROUP BY num) q "
    "ON t.num = q.num",
    # even a division by zero: Spark does not raise for the original either
    "SELECT t.s FROM t LEFT JOIN (SELECT num, 1 / 0 AS z FROM u GROUP BY num) v ON t.num = v.num",
])
def test_an_unread_aggregate_of_the_dropped_side_does_not_keep_the_join(spark, tables, sql):
    r = run(sql, ELIM)
    assert fired(r, ELIM)
    assert "JOIN" not in r.sql
    spark_agrees(spark, r)


@pytest.mark.parametrize("sql", [
    # a filter of the dropped side runs whatever is read (and Spark may run it while
    # optimizing, over an inline table)
    "SELECT t.num FROM t LEFT JOIN (SELECT num FROM u WHERE 10 / y > 1 GROUP BY num) q ON t.num = q.num",
    # an IN / EXISTS subquery that may raise: its query may, or the IN casts (a string
    # compared with numbers, under ANSI); a scalar subquery raises on more than one row
    "SELECT DISTINCT t.s FROM t LEFT JOIN (SELECT * FROM u WHERE num IN (SELECT k FROM n WHERE k div 0 > 1)) w "
    "ON t.s = w.s",
    "SELECT DISTINCT t.s FROM t LEFT JOIN (SELECT * FROM u WHERE s IN (SELECT k FROM n)) w ON t.s = w.s",
    "SELECT DISTINCT t.s FROM t LEFT JOIN (SELECT * FROM u WHERE num = (SELECT k FROM n)) w ON t.s = w.s",
])
def test_what_the_dropped_side_evaluates_may_still_keep_the_join(tables, sql):
    r = run(sql, ELIM, "UpdateAttributeNullability")
    assert not fired(r, ELIM)


# The side of a LEFT JOIN under a Project that reads only the kept side, unique on keys
# equated with `=`: Catalyst's own EliminateOuterJoin drops it before the query runs,
# whatever it would compute, so what it computes cannot raise on Spark either.  Each
# case's side raises when run on its own (an overflowing sum, a division by zero in a
# HAVING), and the original query does not on Spark; the rewrite agrees with it.
OVERFLOWING = "SELECT sum(v) AS total FROM VALUES (9223372036854775807L), (1L) AS w(v)"
RAISING_HAVING = ("SELECT num, row_number() OVER (PARTITION BY num ORDER BY num) AS rn "
                  "FROM u GROUP BY num HAVING max(y) div 0 > 0")


@pytest.mark.parametrize("sql, side", [
    (f"SELECT t.num FROM t LEFT JOIN ({OVERFLOWING}) q ON t.b = q.total", OVERFLOWING),
    (f"SELECT t.s FROM ({OVERFLOWING}) q RIGHT JOIN t ON q.total = t.b", OVERFLOWING),
    (f"SELECT t.s FROM t LEFT JOIN (SELECT num FROM ({RAISING_HAVING}) w WHERE rn = 1) q ON t.num = q.num",
     RAISING_HAVING),
    ("SELECT t.s FROM t LEFT JOIN (SELECT num, 1 div 0 AS z FROM u GROUP BY num) v "
     "ON t.num = v.num AND v.z > 0", "SELECT num, 1 div 0 AS z FROM u GROUP BY num"),
    # a row number over a grouped or limited side (sqlglot's eliminate_joins:3 and :4),
    # a sum: nothing raises on these rows, Catalyst drops them all the same
    ("SELECT t.s FROM t LEFT JOIN (SELECT num FROM (SELECT num, ROW_NUMBER() OVER (PARTITION BY num "
     "ORDER BY num) AS rn FROM u GROUP BY num) AS w WHERE rn = 1) AS q ON t.num = q.num", None),
    ("SELECT t.s FROM t LEFT JOIN (SELECT num FROM (SELECT num, ROW_NUMBER() OVER (PARTITION BY num "
     "ORDER BY y) AS rn FROM u LIMIT 1) AS w WHERE rn = 1) AS q ON t.num = q.num", None),
    ("SELECT t.s FROM t LEFT JOIN (SELECT sum(y) AS total FROM u) q ON t.b = q.total", None),
])
def test_a_side_catalyst_drops_itself_is_dropped_whatever_it_computes(spark, tables, sql, side):
    from tests.spark_check import run_or_error

    if side is not None:
        assert run_or_error(spark, side)[0] == "error"  # the side on its own raises
    r = run(sql, ELIM, "UpdateAttributeNullability")
    assert fired(r, ELIM) and " JOIN " not in r.sql
    spark_agrees(spark, r)


@pytest.mark.parametrize("sql", [
    # Spark evaluates a Filter over an inline table while optimizing, before it drops
    # the join: the division raises there
    "SELECT t.s FROM t LEFT JOIN (SELECT num FROM VALUES (1, 0), (2, 1) AS w(num, z) WHERE 1 div z > 0 "
    "GROUP BY num) q ON t.num = q.num",
    # `<=>` keys are not distinct keys for Catalyst (coalesce and isnull): it keeps the join
    f"SELECT t.s FROM t LEFT JOIN (SELECT num FROM ({RAISING_HAVING}) w WHERE rn = 1) q ON t.num <=> q.num",
    # nor is a key Spark casts to the other side's type (int against bigint)
    f"SELECT t.s FROM t LEFT JOIN (SELECT num FROM ({RAISING_HAVING}) w WHERE rn = 1) q ON t.b = q.num",
])
def test_a_side_spark_runs_before_it_could_drop_it_stays(spark, tables, sql):
    r = run(sql, ELIM, "UpdateAttributeNullability")
    assert not fired(r, ELIM)
    spark_agrees(spark, r)


@pytest.mark.parametrize("sql", [
    # a join's condition rejects the padded rows of an outer join below it
    # (unnest_subqueries:94, pushdown_predicates:37)
    "SELECT t.num, n.v FROM t LEFT JOIN u ON t.num = u.num JOIN n ON n.k = u.num",
    "SELECT t.num, n.v FROM n JOIN (t LEFT JOIN u ON t.num = u.num) ON u.y = n.k",
    "SELECT t.s, u.z FROM t RIGHT JOIN u ON t.num = u.num RIGHT JOIN n ON t.num = n.k",
    "SELECT * FROM n LEFT SEMI JOIN (t LEFT JOIN u ON t.num = u.num) ON u.y = n.k",
    "SELECT * FROM n LEFT ANTI JOIN (t FULL JOIN u ON t.num = u.num) ON u.y = n.k AND t.x > 0",
    "SELECT * FROM t WHERE NOT EXISTS (SELECT 1 FROM u LEFT JOIN n ON u.num = n.k WHERE n.k = t.num)",
])
def test_a_join_condition_makes_an_outer_join_below_inner(spark, tables, sql):
    r = run(sql, ELIM)
    assert fired(r, ELIM)
    spark_agrees(spark, r)


@pytest.mark.parametrize("sql", [
    # the preserved side of an outer join keeps every row: its child stays outer
    "SELECT * FROM t LEFT JOIN u ON t.num = u.num LEFT JOIN n ON u.y = n.k",
    # <=> matches NULL with NULL: the padded rows may join
    "SELECT * FROM t LEFT JOIN u ON t.num = u.num JOIN u AS u2 ON u.num <=> u2.num",
    # a condition that may raise (n.k + 1 may overflow) is evaluated on the padded rows too
    "SELECT t.num, n.v FROM n JOIN (t LEFT JOIN u ON t.num = u.num) ON u.y = n.k + 1",
])
def test_a_join_condition_that_keeps_padded_rows(spark, tables, sql):
    r = run(sql, ELIM, "UpdateAttributeNullability")
    assert not fired(r, ELIM)
    spark_agrees(spark, r)


@pytest.mark.parametrize("sql", [
    # comparing with an uncorrelated scalar subquery rejects the padded rows' NULL: the
    # subquery runs once for the query, whatever rows reach the filter
    "SELECT count(t.x) FROM t RIGHT JOIN u ON t.num = u.num WHERE t.x < (SELECT max(v) FROM n)",
    "SELECT u.s FROM t RIGHT JOIN u ON t.num = u.num WHERE t.num <= (SELECT max(k) / 0 FROM n)",  # raises
    # and with a correlated one: TRUE only for a non-NULL t.x, whatever the subquery gives
    # (Catalyst makes these joins inner too; scalar-subquery-predicate.sql:20)
    "SELECT u.s FROM t RIGHT JOIN u ON t.num = u.num WHERE t.x < (SELECT max(v) FROM n WHERE n.k = u.num)",
    "SELECT u.s FROM t RIGHT JOIN u ON t.num = u.num WHERE t.x < (SELECT max(v) FROM n WHERE n.k = t.num)",
    "SELECT count(t.x) FROM t RIGHT JOIN u ON t.num = u.num "
    "WHERE t.x < (SELECT max(v) FROM n WHERE n.k = t.num GROUP BY n.k)",
    # raising in the subquery for the padded rows' NULL key only
    "SELECT u.s FROM t RIGHT JOIN u ON t.num = u.num WHERE t.b < (SELECT 1 div max(k - 1) FROM n WHERE n.k <=> t.num)",
])
def test_a_comparison_with_a_scalar_subquery_rejects_nulls(spark, tables, sql):
    r = run(sql, ELIM)
    assert fired(r, ELIM)
    spark_agrees(spark, r)


@pytest.mark.parametrize("sql", [
    "SELECT u.s FROM t RIGHT JOIN u ON t.num = u.num WHERE coalesce(t.x, (SELECT max(v) FROM n)) > 0",
    "SELECT u.s FROM t RIGHT JOIN u ON t.num = u.num "
    "WHERE coalesce(t.x, (SELECT max(v) FROM n WHERE n.k = u.num)) > 0",
])
def test_a_scalar_subquery_that_may_keep_padded_rows(spark, tables, sql):
    r = run(sql, ELIM, "UpdateAttributeNullability")
    assert not fired(r, ELIM)
    spark_agrees(spark, r)


# Filters pushed into and through inner joins (Catalyst's PushPredicateThroughJoin, then
# EliminateOuterJoin and InferFiltersFromConstraints below): the outer joins below a
# filter made inner where the filter's conjuncts reject their padded rows, through
# subqueries' select lists and the inner joins the filter made.
@pytest.mark.parametrize("sql, joins", [
    # postgreSQL/join.sql:140: the WHERE reads a column the subquery computes from the
    # padded side of its own LEFT JOIN (`b AND NULL` is never TRUE)
    ("SELECT t.num FROM t LEFT JOIN (SELECT u.num, u.num > 0 AND l.p AS b FROM u LEFT JOIN "
     "(SELECT t.num, t.p AS p FROM t) l ON l.num = u.num) q ON q.num = t.num WHERE t.num = 1 AND q.b",
     [L.INNER, L.INNER]),
    ("SELECT t.num FROM t LEFT JOIN (SELECT u.num, l.b AS b FROM u LEFT JOIN t l ON l.num = u.num "
     "WHERE u.y > 0) q ON q.num = t.num WHERE q.b > 0", [L.INNER, L.INNER]),
    # in-joins.sql:16, not-in-joins.sql:4: a conjunct with an uncorrelated IN subquery
    # beside the rejecting one (it cannot raise on some rows and not others)
    ("SELECT t.num FROM t FULL JOIN u l ON t.num = l.num RIGHT JOIN n ON t.num = n.k "
     "WHERE t.num IN (SELECT k FROM n) AND t.num = l.num", [L.INNER, L.INNER]),
    ("SELECT t.num FROM t FULL JOIN u l ON t.num <> l.num RIGHT JOIN n ON t.num = n.k "
     "WHERE t.num NOT IN (SELECT k FROM n WHERE v > 1) AND t.num <> l.num", [L.INNER, L.INNER]),
    # the subquery's select list may raise (`u.y + l.b` overflows): only the top join
    ("SELECT t.num FROM t LEFT JOIN (SELECT u.num, u.y + l.b AS b FROM u LEFT JOIN t l ON l.num = u.num) q "
     "ON q.num = t.num WHERE q.b > 0", [L.INNER, L.LEFT_OUTER]),
    # another conjunct may raise on some rows (`10 div t.b`): only the top join
    ("SELECT t.num FROM t LEFT JOIN u l ON t.num = l.num LEFT JOIN u r ON t.num = r.num "
     "WHERE l.s <> r.s AND 10 div t.b > 0", [L.INNER, L.LEFT_OUTER]),
])
def test_a_filter_reaches_the_outer_joins_through_select_lists_and_inner_joins(spark, tables, sql, joins):
    r = run(sql, ELIM, "UpdateAttributeNullability")
    assert join_types(r.optimized) == joins
    spark_agrees(spark, r)


# An aggregate of duplicate-agnostic functions (or a DISTINCT) of the kept side's columns
# over an outer join drops the join also through a WHERE, a subquery's alias and select
# list between them (Catalyst pushes the WHERE into the kept side first)
@pytest.mark.parametrize("sql", [
    # in-joins.sql:11 (a correlated IN subquery in the WHERE)
    "SELECT count(DISTINCT t.num) FROM t LEFT JOIN u ON t.num = u.num "
    "WHERE t.num IN (SELECT k FROM n WHERE n.v < t.x) GROUP BY t.num",
    # scalar-subquery-select.sql:10 (a global aggregate)
    "SELECT max(t.x) FROM t LEFT JOIN u ON t.num = u.num WHERE t.s = 'a'",
    "SELECT max(t.x) FROM t LEFT JOIN u ON t.num = u.num WHERE t.num > 100",  # (no row: NULL)
    "SELECT t2.s, (SELECT max(u.y) FROM u LEFT JOIN t ON u.num = t.num WHERE u.s = t2.s) FROM t t2",
    # in-with-cte.sql:10
    "SELECT DISTINCT q.s FROM (SELECT t.s FROM t LEFT JOIN u ON t.s = u.s) q WHERE q.s IN (SELECT s FROM u)",
    "SELECT DISTINCT q.n FROM (SELECT u.num + 1 AS n FROM t RIGHT JOIN u ON t.s = u.s) q WHERE q.n > 1",
    # the dropped side filters through an IN / EXISTS subquery that cannot raise (its query
    # cannot, and it compares values of one type): in-with-cte.sql:10, a CTE read twice
    "SELECT DISTINCT q.s FROM (SELECT t.s FROM t LEFT JOIN (SELECT * FROM u WHERE u.num IN "
    "(SELECT k FROM n WHERE n.v > u.z)) w ON t.s = w.s) q",
    "SELECT max(t.x) FROM t LEFT JOIN (SELECT * FROM u WHERE EXISTS (SELECT 1 FROM n WHERE n.k = u.num)) w "
    "ON t.num = w.num",
])
def test_an_unread_side_is_dropped_through_row_by_row_operators(spark, tables, sql):
    r = run(sql, ELIM, "UpdateAttributeNullability")
    assert fired(r, ELIM) and " JOIN " not in r.sql.split("(SELECT")[0] + r.sql.split("FROM")[-1]
    spark_agrees(spark, r)


@pytest.mark.parametrize("sql", [
    # the DISTINCT reads the padded side's columns (through the WHERE)
    "SELECT DISTINCT * FROM (SELECT t.s, u.num FROM t LEFT JOIN u ON t.s = u.s) q WHERE q.s > 'a'",
    "SELECT DISTINCT q.s FROM (SELECT t.s, u.num FROM t LEFT JOIN u ON t.s = u.s) q WHERE q.num IS NULL",
    # a count sees every copy
    "SELECT count(t.x) FROM t LEFT JOIN u ON t.num = u.num WHERE t.s = 'a'",
    # a random call is evaluated once per copy
    "SELECT max(t.x) FROM t LEFT JOIN u ON t.num = u.num WHERE rand() > 0.5",
])
def test_an_outer_join_whose_copies_are_seen_stays(tables, sql):
    r = run(sql, ELIM, "UpdateAttributeNullability")
    assert " JOIN " in r.sql
