"""OptimizeIn: duplicate literals, one-element lists, empty lists (Spark 4 / legacy)."""

from __future__ import annotations

import math

from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import types as T
from sparkfold.rules.base import RuleContext

from tests.rule_helpers import (
    assert_rewrites,
    assert_sql_rewrite,
    assert_unchanged,
    col,
    lit,
    null,
    rule,
)

OI = rule("OptimizeIn")
RAND = E.Opaque(None, (), T.DOUBLE, "scalar", "rand()")


def test_duplicate_literals_are_dropped():
    a = col("a")
    before = E.In(a, tuple(lit(v) for v in (1, 1, 2, 2, 1, 2)))
    assert_rewrites(OI, before, E.In(a, (lit(1), lit(2))))


def test_duplicate_nan_literals_are_dropped():
    x = col("x", T.DOUBLE)
    nan = E.Literal(math.nan, T.DOUBLE)
    assert_rewrites(OI, E.In(x, (nan, nan, lit(1.0))), E.In(x, (nan, lit(1.0))))


def test_minus_zero_and_zero_are_both_kept():
    # equal in Spark, but different literals: keeping both changes nothing
    x = col("x", T.DOUBLE)
    assert_unchanged(OI, E.In(x, (lit(-0.0), lit(0.0))))


def test_duplicates_down_to_one_is_equality():
    a = col("a")
    assert_rewrites(OI, E.In(a, (lit(1), lit(1))), E.EqualTo(a, lit(1)))


def test_single_element_is_equality():
    a = col("a")
    assert_rewrites(OI, E.In(a, (lit(1),)), E.EqualTo(a, lit(1)))
    assert_rewrites(OI, E.In(a, (null(),)), E.EqualTo(a, null()))


def test_single_element_of_other_numeric_type_is_equality():
    a = col("a")
    assert_rewrites(OI, E.In(a, (lit(1.5),)), E.EqualTo(a, lit(1.5)))


def test_single_string_element_against_number_is_kept():
    # IN casts to the wider type, = to the comparison type: not proven equal for strings
    assert_unchanged(OI, E.In(col("d", T.DecimalType(10, 2)), (lit("1"),)))


def test_non_literal_duplicates_are_kept():
    a, b = col("a"), col("b")
    assert_unchanged(OI, E.In(b, (a, a, lit(1))))
    assert_unchanged(OI, E.In(col("x", T.DOUBLE), (RAND, RAND)))


def test_distinct_list_is_kept():
    assert_unchanged(OI, E.In(col("a"), (lit(1), lit(2))))


def test_empty_list_is_false_with_ansi():
    assert_rewrites(OI, E.In(col("a"), ()), E.FALSE)


def test_empty_list_with_raising_value_is_kept_with_ansi():
    assert_unchanged(OI, E.In(E.Divide(lit(1), col("a")), ()))


def test_empty_list_in_legacy_is_false_or_null():
    a = col("a")
    assert_rewrites(OI, E.In(a, ()), E.If(E.IsNotNull(a), E.FALSE, E.NULL_BOOL),
                    ctx=RuleContext(ansi=False))


SQL_CASES = [
    "SELECT num FROM t WHERE num IN (1, 1, 2, 2, 3)",
    "SELECT num FROM t WHERE s IN ('a')",
    "SELECT num IN (NULL), x IN (1.5), x IN (CAST('NaN' AS DOUBLE), CAST('NaN' AS DOUBLE)) FROM t",
    "SELECT num FROM t WHERE NOT (num IN (3, 3))",
]


def test_optimize_in_on_spark(spark, tables):
    for sql in SQL_CASES:
        assert_sql_rewrite(spark, tables, sql, "OptimizeIn")
