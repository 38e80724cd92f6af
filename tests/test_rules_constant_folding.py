"""ConstantFolding: Spark's values and types, never an expression that raises, never a
non-deterministic one; checked on Spark."""

from __future__ import annotations

import math
from decimal import Decimal

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

CF = rule("ConstantFolding")
RAND = E.Opaque(None, (), T.DOUBLE, "scalar", "rand()")


def div0():
    return E.Divide(lit(1), lit(0))


def test_arithmetic_is_folded():
    assert_rewrites(CF, E.Add(E.Add(lit(2), lit(3)), lit(4)), lit(9))
    assert_rewrites(CF, E.Multiply(lit(2), E.Add(lit(3), lit(4))), lit(14))


def test_folded_bigint_stays_bigint():
    out = assert_rewrites(CF, E.Add(lit(1), E.Literal(2, T.LONG)), E.Literal(3, T.LONG))
    assert out.data_type == T.LONG


def test_integer_division_folds_to_double():
    assert_rewrites(CF, E.Subtract(E.Multiply(lit(2), lit(3)), E.Divide(lit(6), E.Subtract(lit(4), lit(2)))),
                    E.Literal(3.0, T.DOUBLE))


def test_decimal_keeps_spark_result_type():
    e = E.Divide(E.Literal(Decimal("1.0"), T.DecimalType(2, 1)), lit(3))
    assert_rewrites(CF, e, E.Literal(Decimal("0.333333"), T.DecimalType(7, 6)))


def test_nan_equals_nan_folds_to_true():
    nan = E.Literal(math.nan, T.DOUBLE)
    assert_rewrites(CF, E.EqualTo(nan, nan), E.TRUE)


def test_nan_string_literal_comparison_folds():
    # seeds/000: 'NaN' / 'INF' strings compare with doubles after a cast
    assert_rewrites(CF, E.EqualTo(E.Literal(math.nan, T.DOUBLE), lit("NaN")), E.TRUE)
    assert_rewrites(CF, E.EqualTo(E.Literal(math.inf, T.DOUBLE), lit("INF")), E.TRUE)
    assert_rewrites(CF, E.GreaterThan(E.Literal(math.inf, T.DOUBLE), lit("NaN")), E.FALSE)


def test_string_literal_compared_with_double_column_is_cast_once():
    x = col("x", T.DOUBLE)
    out = assert_rewrites(CF, E.EqualTo(x, lit("NaN")), E.EqualTo(x, E.Literal(math.nan, T.DOUBLE)))
    assert out.compare_type == T.DOUBLE


def test_string_literal_in_list_is_cast_once():
    x = col("x", T.DOUBLE)
    assert_rewrites(CF, E.In(x, (lit("-Infinity"), lit(1.5))),
                    E.In(x, (E.Literal(-math.inf, T.DOUBLE), lit(1.5))))


def test_malformed_string_literal_comparison_is_kept():
    assert_unchanged(CF, E.EqualTo(col("x", T.DOUBLE), lit("abc")))
    assert_unchanged(CF, E.EqualTo(col("num"), lit("1.5")))


def test_minus_zero_cast_to_string_keeps_sign():
    assert_rewrites(CF, E.Cast(E.Literal(-0.0, T.DOUBLE), T.STRING), lit("-0.0"))


def test_cast_of_null_folds_to_typed_null():
    assert_rewrites(CF, E.Cast(null(), T.INT), null(T.INT))


def test_is_null_of_null_folds():
    assert_rewrites(CF, E.IsNull(null()), E.TRUE)
    assert_rewrites(CF, E.IsNotNull(null()), E.FALSE)


def test_division_by_zero_is_not_folded():
    assert_unchanged(CF, div0())


def test_overflow_is_not_folded():
    assert_unchanged(CF, E.Add(lit(2 ** 31 - 1), lit(1)))


def test_malformed_cast_is_not_folded():
    assert_unchanged(CF, E.Cast(lit("abc"), T.INT))


def test_try_cast_of_malformed_string_folds_to_null():
    assert_rewrites(CF, E.Cast(lit("abc"), T.INT, try_=True), null(T.INT))


def test_division_by_zero_folds_to_null_without_ansi():
    assert_rewrites(CF, div0(), null(T.DOUBLE), ctx=RuleContext(ansi=False))


def test_raising_branch_is_kept_but_the_rest_folds():
    c = E.GreaterThan(col("a"), lit(1))
    before = E.If(c, div0(), E.Add(lit(2.0), lit(3.0)))
    assert_rewrites(CF, before, E.If(c, div0(), lit(5.0)))


def test_untaken_raising_branch_folds_away():
    assert_rewrites(CF, E.If(E.TRUE, lit(1.0), div0()), lit(1.0))


def test_false_and_raising_folds_to_false():
    assert_rewrites(CF, E.And(E.FALSE, E.EqualTo(div0(), lit(1.0))), E.FALSE)


def test_raising_and_false_is_not_folded():
    assert_unchanged(CF, E.And(E.EqualTo(div0(), lit(1.0)), E.FALSE))


def test_non_deterministic_is_not_folded():
    assert_unchanged(CF, E.Add(RAND, E.Literal(1.0, T.DOUBLE)))


def test_column_reference_is_not_folded():
    assert_unchanged(CF, E.Add(col("a"), lit(1)))


def test_in_list_folds():
    assert_rewrites(CF, E.In(lit(1), (lit(1), lit(2))), E.TRUE)
    assert_rewrites(CF, E.In(lit(3), (lit(1), null())), E.NULL_BOOL)


def test_coalesce_of_try_cast_folds():
    assert_rewrites(CF, E.Coalesce((E.Cast(lit("abc"), T.INT, try_=True), lit(3))), lit(3))


def test_alias_is_kept():
    plan_alias = E.Alias(E.Add(lit(1), lit(1)), "x", E.new_id())
    assert_rewrites(CF, plan_alias, E.Alias(lit(2), "x", plan_alias.expr_id))


# -- on Spark --------------------------------------------------------------------------------

SQL_CASES = [
    "SELECT 2 + 3 + 4, 2 * 3 + 4, 2 * (3 + 4), 1 / 2, 7 div 2, -5 % 3, num FROM t",
    "SELECT num FROM t WHERE 1 = 1 AND 2 > 3 OR 3 > 2",
    "SELECT CAST('NaN' AS DOUBLE) = 'nan', CAST('Infinity' AS DOUBLE) > 1e308, -0.0D = 0.0D FROM t",
    "SELECT CAST(-0.0D AS STRING), CAST(1e7D AS STRING), CAST(1.5BD AS STRING) FROM t",
    "SELECT num, x FROM t WHERE x = 'NaN' OR x = 'INF' OR x = '-Infinity'",
    "SELECT num FROM t WHERE x > 'inf' OR x < '-inf'",
    "SELECT num FROM t WHERE x IN ('NaN', '-0.0', 2.5)",
    "SELECT CAST(1 AS DECIMAL(38,0)) / 3, 1.0 / 3, 2.5BD * 3, d + 1.005 FROM t",
    "SELECT IF(num > 5, 1 / 0, 1 + 1) FROM t",
    "SELECT CASE WHEN num = 100 THEN 5 % 0 ELSE 2 * 2 END, IF(x > 1e300, 1 / 0, 1 + 1) FROM t",
    "SELECT coalesce(x, 1 + 1), nanvl(x, CAST('NaN' AS DOUBLE) + 1), greatest(1, 2L, NULL) FROM t",
    "SELECT CAST('  12 ' AS INT) + num, CAST('yes' AS BOOLEAN) OR p FROM t",
    "SELECT num FROM t ORDER BY 1 + 1, num",
    "SELECT count(*) FROM t GROUP BY 1 + 1",
]


def test_constant_folding_on_spark(spark, tables):
    for sql in SQL_CASES:
        assert_sql_rewrite(spark, tables, sql, "ConstantFolding")


def test_raising_constant_still_raises_on_spark(spark, tables):
    # not folded: the optimized SQL raises exactly as the original does
    from sparkfold.optimizer import optimize

    from tests.spark_check import assert_same_result

    for sql in ["SELECT 1 / 0 + num FROM t", "SELECT CAST('abc' AS INT) FROM t",
                "SELECT 2147483647 + 1 + num FROM t",
                # no reassociation: (num + 2147483647) - 1 overflows for num > 0
                "SELECT num + 2147483647 - 1 FROM t"]:
        result = optimize(sql, tables, rules=[CF])
        assert not result.trace.rewrites, f"{sql} was rewritten: {result.sql}"
        assert_same_result(spark, sql, result.sql)


def test_folding_an_operand_never_changes_the_operator_type():
    # Spark types d + -(0) with int's decimal(10,0) (decimal(13,2)); a literal 0 would give
    # decimal(11,2): the operand stays unfolded there
    d = col("d", T.DecimalType(10, 2))
    e = E.Add(d, E.Negate(lit(0)))
    assert e.data_type == T.DecimalType(13, 2)
    assert_unchanged(CF, e)


def test_decimal_division_by_folded_int_keeps_its_scale_on_spark(spark, tables):
    from sparkfold.optimizer import optimize

    from tests.spark_check import assert_same_result

    for sql in ["SELECT d / (0 + 3), d + -(0), d * (1 + 1) FROM t",
                "SELECT d / IF(TRUE, 3, 4), d - CASE WHEN FALSE THEN 1 ELSE 2 END FROM t"]:
        result = optimize(sql, tables, rules=[CF, rule("SimplifyConditionals")])
        assert_same_result(spark, sql, result.sql)


def test_expression_over_negated_null_folds_to_a_double_null(spark, tables):
    # -(NULL) + 1 is a double in Spark (the NULL is cast to double first)
    assert_rewrites(CF, E.Add(E.Negate(null()), lit(1)), null(T.DOUBLE))
    from sparkfold.optimizer import optimize

    from tests.spark_check import assert_same_result

    sql = "SELECT -(NULL) + 1 AS v, -(NULL + 1) AS w FROM t"
    assert_same_result(spark, sql, optimize(sql, tables).sql)
