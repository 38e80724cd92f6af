"""NullDownPropagation: IS [NOT] NULL through NOT and ordering comparisons only."""

from __future__ import annotations

from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import types as T

from tests.rule_helpers import (
    assert_rewrites,
    assert_sql_rewrite,
    assert_unchanged,
    col,
    lit,
    rule,
)

NDP = rule("NullDownPropagation")
RAND = E.Opaque(None, (), T.DOUBLE, "scalar", "rand()")


def test_is_null_of_not_is_is_null():
    e = col("e", T.BOOLEAN)
    assert_rewrites(NDP, E.IsNull(E.Not(e)), E.IsNull(e))


def test_is_not_null_of_not_is_is_not_null():
    e = col("e", T.BOOLEAN)
    assert_rewrites(NDP, E.IsNotNull(E.Not(e)), E.IsNotNull(e))


def test_is_null_of_comparison_is_either_operand_null():
    a, b = col("a"), col("b")
    assert_rewrites(NDP, E.IsNull(E.GreaterThan(a, b)), E.Or(E.IsNull(a), E.IsNull(b)))


def test_is_not_null_of_comparison_is_both_operands_not_null():
    a, b = col("a"), col("b")
    assert_rewrites(NDP, E.IsNotNull(E.LessThanOrEqual(a, b)), E.And(E.IsNotNull(a), E.IsNotNull(b)))


def test_nested_not_and_comparison_in_one_pass():
    a, b = col("a"), col("b")
    assert_rewrites(NDP, E.IsNull(E.Not(E.Not(E.LessThan(a, b)))), E.Or(E.IsNull(a), E.IsNull(b)))


def test_not_through_cast():
    assert_unchanged(NDP, E.IsNull(E.Cast(col("s", T.STRING), T.INT)))


def test_not_through_equality():
    assert_unchanged(NDP, E.IsNull(E.EqualTo(col("a"), col("b"))))


def test_not_through_non_deterministic_comparison():
    assert_unchanged(NDP, E.IsNull(E.GreaterThan(RAND, lit(0.5))))


def test_not_through_comparison_casting_a_string():
    # 'abc' > 1 raises under ANSI (NULL in legacy) while 'abc' IS NULL is FALSE
    assert_unchanged(NDP, E.IsNull(E.GreaterThan(col("s", T.STRING), lit(1))))


def test_null_down_propagation_on_spark(spark, tables):
    assert_sql_rewrite(spark, tables, "SELECT (x > 1) IS NULL, (num < b) IS NOT NULL, (NOT p) IS NULL FROM t",
                       "NullDownPropagation")
    assert_sql_rewrite(spark, tables, "SELECT num FROM t WHERE (x >= num) IS NOT NULL OR (s < 'b') IS NULL",
                       "NullDownPropagation")
