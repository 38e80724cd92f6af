"""SimplifyConditionals: IF / CASE WHEN with constant conditions, equal branches, and the
SPARK-33845 nullability guards; on Spark."""

from __future__ import annotations

from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import types as T

from tests.rule_helpers import (
    assert_rewrites,
    assert_sql_rewrite,
    assert_unchanged,
    col,
    lit,
    null,
    rule,
)

SC = rule("SimplifyConditionals")
RAND_GT = E.GreaterThan(E.Opaque(None, (), T.DOUBLE, "scalar", "rand()"), lit(0.5))


def div0():
    return E.Divide(lit(1), lit(0))


def cond(nullable=True):
    return E.GreaterThan(col("a", nullable=nullable), lit(42))


# -- IF ----------------------------------------------------------------------------------------


def test_if_true_is_then():
    assert_rewrites(SC, E.If(E.TRUE, lit(10), lit(20)), lit(10))


def test_if_false_is_else():
    assert_rewrites(SC, E.If(E.FALSE, lit(10), lit(20)), lit(20))


def test_if_null_is_else():
    assert_rewrites(SC, E.If(E.NULL_BOOL, lit(10), lit(20)), lit(20))


def test_if_drops_a_raising_branch_not_taken():
    assert_rewrites(SC, E.If(E.TRUE, lit(1.0), div0()), lit(1.0))


def test_if_result_keeps_the_common_type():
    out = assert_rewrites(SC, E.If(E.TRUE, lit(1), E.Literal(2, T.LONG)),
                          E.Cast(lit(1), T.LONG, user=False))
    assert out.data_type == T.LONG


def test_if_with_equal_branches_is_the_branch():
    assert_rewrites(SC, E.If(cond(), lit(9), lit(9)), lit(9))


def test_if_with_equal_branches_keeps_non_deterministic_condition():
    assert_unchanged(SC, E.If(RAND_GT, lit(9), lit(9)))


def test_if_with_equal_branches_keeps_raising_condition():
    assert_unchanged(SC, E.If(E.GreaterThan(div0(), lit(1.0)), lit(9), lit(9)))


def test_if_true_false_of_non_nullable_is_condition():
    c = cond(nullable=False)
    assert_rewrites(SC, E.If(c, E.TRUE, E.FALSE), c)


def test_if_true_false_of_nullable_is_null_safe_true():
    c = cond()
    assert_rewrites(SC, E.If(c, E.TRUE, E.FALSE), E.EqualNullSafe(c, E.TRUE))


def test_if_false_true_of_nullable_is_not_null_safe_true():
    c = cond()
    assert_rewrites(SC, E.If(c, E.FALSE, E.TRUE), E.Not(E.EqualNullSafe(c, E.TRUE)))


def test_if_false_true_of_non_nullable_is_not():
    c = cond(nullable=False)
    assert_rewrites(SC, E.If(c, E.FALSE, E.TRUE), E.Not(c))


def test_if_null_branches_of_non_nullable_condition():
    p = E.IsNull(col("a"))
    assert_rewrites(SC, E.If(p, null(), E.FALSE), E.And(p, E.NULL_BOOL))
    assert_rewrites(SC, E.If(p, null(), E.TRUE), E.Or(E.Not(p), E.NULL_BOOL))
    assert_rewrites(SC, E.If(p, E.FALSE, null()), E.And(E.Not(p), E.NULL_BOOL))
    assert_rewrites(SC, E.If(p, E.TRUE, null()), E.Or(p, E.NULL_BOOL))


def test_if_null_branches_of_nullable_condition_are_kept():
    c = cond()
    for then, otherwise in [(null(), E.FALSE), (null(), E.TRUE), (E.FALSE, null()), (E.TRUE, null())]:
        assert_unchanged(SC, E.If(c, then, otherwise))


# -- CASE WHEN -------------------------------------------------------------------------------


def test_case_drops_false_and_null_branches():
    x = col("x", T.BOOLEAN)
    before = E.CaseWhen(((E.FALSE, lit(20)), (x, lit(10)), (E.FALSE, lit(20)), (E.NULL_BOOL, lit(30))))
    assert_rewrites(SC, before, E.CaseWhen(((x, lit(10)),)))


def test_case_with_only_else_reachable_is_else():
    before = E.CaseWhen(((E.FALSE, lit(20)), (E.NULL_BOOL, lit(30))), lit(40))
    assert_rewrites(SC, before, lit(40))


def test_case_without_reachable_branch_is_typed_null():
    assert_rewrites(SC, E.CaseWhen(((E.FALSE, lit(20)),)), null(T.INT))


def test_case_first_true_is_its_value():
    x = col("x", T.BOOLEAN)
    assert_rewrites(SC, E.CaseWhen(((E.TRUE, lit(5)), (x, lit(10)))), lit(5))


def test_case_later_true_becomes_else():
    x = col("x", T.BOOLEAN)
    before = E.CaseWhen(((x, lit(10)), (E.TRUE, lit(5)), (x, lit(10))))
    assert_rewrites(SC, before, E.CaseWhen(((x, lit(10)),), lit(5)))


def test_case_all_values_equal_is_the_value():
    a, b_ = col("a"), col("b")
    before = E.CaseWhen(((E.IsNotNull(a), lit(1)), (E.IsNull(b_), lit(1))), lit(1))
    assert_rewrites(SC, before, lit(1))


def test_case_equal_values_keep_non_deterministic_conditions():
    a = col("a")
    before = E.CaseWhen(((RAND_GT, lit(1)), (E.IsNull(a), lit(1))), lit(1))
    assert_rewrites(SC, before, E.CaseWhen(((RAND_GT, lit(1)),), lit(1)))


def test_case_equal_values_keep_raising_conditions():
    before = E.CaseWhen(((E.GreaterThan(div0(), lit(1.0)), lit(1)),), lit(1))
    assert_unchanged(SC, before)


def test_case_null_values_without_else_is_null():
    before = E.CaseWhen(((cond(), null(T.INT)),))
    assert_rewrites(SC, before, null(T.INT))


def test_case_else_null_is_dropped():
    c = cond()
    assert_rewrites(SC, E.CaseWhen(((c, lit(1)),), null()), E.CaseWhen(((c, lit(1)),)))


def test_case_true_else_false_of_nullable_is_null_safe_true():
    c = cond()
    assert_rewrites(SC, E.CaseWhen(((c, E.TRUE),), E.FALSE), E.EqualNullSafe(c, E.TRUE))


def test_case_keeps_raising_branch_not_taken_unfolded():
    c = cond()
    assert_unchanged(SC, E.CaseWhen(((c, div0()),), lit(1.0)))


def test_case_with_nothing_to_do_is_kept():
    assert_unchanged(SC, E.CaseWhen(((cond(), lit(1)), (E.IsNull(col("b")), lit(2))), lit(3)))


# -- on Spark --------------------------------------------------------------------------------

SQL_CASES = [
    "SELECT IF(TRUE, num, 0), IF(FALSE, x, 1.5D), IF(CAST(NULL AS BOOLEAN), s, 'z') FROM t",
    "SELECT IF(num > 5, 7, 7), IF(x > 1, 1, 1L) FROM t",
    "SELECT IF(x > 1, TRUE, FALSE), IF(x > 1, FALSE, TRUE), IF(num > 3, TRUE, FALSE) FROM t",
    "SELECT IF(x IS NULL, NULL, FALSE), IF(x IS NULL, TRUE, NULL) FROM t",
    "SELECT CASE WHEN FALSE THEN 1 WHEN x > 1 THEN 2 ELSE NULL END FROM t",
    "SELECT CASE WHEN num = 1 THEN 'a' WHEN TRUE THEN 'b' WHEN num = 2 THEN 'c' END FROM t",
    "SELECT CASE WHEN x > 1 THEN 5 WHEN s IS NULL THEN 5 ELSE 5 END FROM t",
    "SELECT CASE WHEN x > 1 THEN TRUE ELSE FALSE END, CASE WHEN p THEN FALSE ELSE TRUE END FROM t",
    "SELECT num FROM t WHERE IF(x > 1, TRUE, FALSE)",
    "SELECT num FROM t WHERE NOT IF(x > 1, TRUE, FALSE)",
    "SELECT IF(TRUE, 1, 1 / 0), CASE WHEN FALSE THEN 1 / 0 ELSE 2 END FROM t",
]


def test_simplify_conditionals_on_spark(spark, tables):
    for sql in SQL_CASES:
        assert_sql_rewrite(spark, tables, sql, "SimplifyConditionals")


def test_if_true_false_keeps_null_as_false_on_spark(spark, tables):
    # SPARK-33845: NOT IF(c, TRUE, FALSE) must keep rows where c is NULL
    result = assert_sql_rewrite(spark, tables, "SELECT num FROM t WHERE NOT IF(x > 1, TRUE, FALSE)",
                                "SimplifyConditionals")
    assert "<=>" in result.sql


def test_case_typed_else_null_widening_the_type_is_kept():
    # dropping ELSE CAST(NULL AS BIGINT) would make the CASE an int (and need a CAST)
    assert_unchanged(SC, E.CaseWhen(((cond(), lit(1)),), null(T.LONG)))


def test_case_with_a_branch_spark_types_as_double_keeps_double(spark, tables):
    # -(NULL) is double in Spark: pruning the dead branch must keep the CASE a double
    num_plus_2 = E.Add(col("num"), lit(2))
    before = E.CaseWhen(((E.FALSE, E.Negate(null())),), num_plus_2)
    assert before.data_type == T.DOUBLE
    assert_rewrites(SC, before, E.Cast(num_plus_2, T.DOUBLE, user=False))
    assert_sql_rewrite(spark, tables, "SELECT CASE WHEN FALSE THEN -(NULL) ELSE num + 2 END FROM t",
                       "SimplifyConditionals")
