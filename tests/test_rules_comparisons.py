"""SimplifyBinaryComparison: reflexive comparisons and comparisons with boolean literals."""

from __future__ import annotations

from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import logical as L
from sparkfold.plans.ir import types as T

from tests.rule_helpers import (
    assert_rewrites,
    assert_sql_rewrite,
    assert_unchanged,
    col,
    lit,
    rule,
)

SBC = rule("SimplifyBinaryComparison")
RAND = E.Opaque(None, (), T.DOUBLE, "scalar", "rand()")


def test_reflexive_comparisons_of_non_nullable():
    a = col("a", nullable=False)
    for cls in (E.EqualTo, E.GreaterThanOrEqual, E.LessThanOrEqual):
        assert_rewrites(SBC, cls(a, a), E.TRUE)
    for cls in (E.GreaterThan, E.LessThan):
        assert_rewrites(SBC, cls(a, a), E.FALSE)


def test_reflexive_double_is_true_even_for_nan():
    # NaN = NaN is TRUE in Spark
    x = col("x", T.DOUBLE, nullable=False)
    assert_rewrites(SBC, E.EqualTo(x, x), E.TRUE)


def test_null_safe_reflexive_is_true_for_nullable():
    a = col("a")
    assert_rewrites(SBC, E.EqualNullSafe(a, a), E.TRUE)


def test_reflexive_comparison_of_nullable_is_kept():
    a = col("a")
    assert_unchanged(SBC, E.EqualTo(a, a))
    assert_unchanged(SBC, E.LessThan(a, a))


def test_reflexive_comparison_of_non_deterministic_is_kept():
    assert_unchanged(SBC, E.EqualNullSafe(RAND, RAND))


def test_reflexive_comparison_of_raising_is_kept():
    d = E.Divide(lit(1), col("a", nullable=False))
    assert_unchanged(SBC, E.EqualNullSafe(d, d))


def test_reflexive_comparison_under_is_not_null_conjunct_in_filter():
    a = col("a")
    rel = L.Relation("r", (a,))
    before = L.Filter(E.And(E.IsNotNull(a), E.EqualTo(a, a)), rel)
    assert_rewrites(SBC, before, L.Filter(E.And(E.IsNotNull(a), E.TRUE), rel))


def test_reflexive_comparison_under_nested_is_not_null_is_kept():
    # only a top-level conjunct may turn NULL into TRUE without changing short-circuits
    a = col("a")
    rel = L.Relation("r", (a,))
    cond = E.And(E.IsNotNull(a), E.Or(E.EqualTo(a, a), E.GreaterThan(E.Divide(lit(1), a), lit(1.0))))
    assert_unchanged(SBC, L.Filter(cond, rel))


def test_equal_true_is_the_operand():
    p = col("p", T.BOOLEAN)
    assert_rewrites(SBC, E.EqualTo(p, E.TRUE), p)
    assert_rewrites(SBC, E.EqualTo(E.TRUE, p), p)


def test_equal_false_is_not():
    p = col("p", T.BOOLEAN)
    assert_rewrites(SBC, E.EqualTo(p, E.FALSE), E.Not(p))


def test_null_safe_true_of_non_nullable_is_the_operand():
    p = E.IsNull(col("a"))
    assert_rewrites(SBC, E.EqualNullSafe(p, E.TRUE), p)
    assert_rewrites(SBC, E.EqualNullSafe(p, E.FALSE), E.Not(p))


def test_null_safe_true_of_nullable_is_kept():
    p = col("p", T.BOOLEAN)
    assert_unchanged(SBC, E.EqualNullSafe(p, E.TRUE))
    assert_unchanged(SBC, E.EqualNullSafe(p, E.FALSE))


def test_non_boolean_equal_true_is_kept():
    assert_unchanged(SBC, E.EqualTo(col("s", T.STRING), E.TRUE))


SQL_CASES = [
    "SELECT num = num, num <= num, num < num, x <=> x FROM t",
    "SELECT num FROM t WHERE num > num",
    "SELECT num FROM t WHERE x IS NOT NULL AND x = x",
    "SELECT k FROM n WHERE v = v",
    "SELECT num FROM t WHERE p = TRUE",
    "SELECT num FROM t WHERE p = FALSE",
    "SELECT (x > 1) = TRUE, (x IS NULL) <=> FALSE FROM t",
]


def test_simplify_binary_comparison_on_spark(spark, tables):
    for sql in SQL_CASES:
        assert_sql_rewrite(spark, tables, sql, "SimplifyBinaryComparison")


def test_nullable_reflexive_equality_is_kept_on_spark(spark, tables):
    from sparkfold.optimizer import optimize

    result = optimize("SELECT x = x FROM t", tables, rules=[SBC])
    assert not result.trace.rewrites
