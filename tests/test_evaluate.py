"""The constant evaluator: Spark's semantics, checked by hand and against Spark itself.

The differential test parses each constant expression with our frontend, evaluates it,
and compares with `SELECT <expr>` on Spark: the same value of the same type, or an
error on both sides.  "Cannot evaluate" is allowed (the folder then leaves the
expression alone), but most of the corpus must be evaluated.
"""

from __future__ import annotations

import math
from decimal import Decimal

import pytest
from sparkfold.optimizer import optimize
from sparkfold.plans.sql_in.catalog import Catalog
from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import types as T
from sparkfold.plans.ir.evaluate import (
    CannotEvaluate,
    EvaluationError,
    cast_value,
    evaluate,
    spark_compare,
)

L = E.Literal
NAN, INF = float("nan"), float("inf")


def d(x: float) -> E.Literal:
    return L(x, T.DOUBLE)


def i(x: int) -> E.Literal:
    return L(x, T.INT)


def s(x: str) -> E.Literal:
    return L(x, T.STRING)


def div0() -> E.Expr:
    return E.Divide(i(1), i(0))


# -- comparisons: NaN, -0.0, NULL -------------------------------------------------------


def test_nan_equals_nan():
    assert evaluate(E.EqualTo(d(NAN), d(NAN))) is True


def test_nan_is_larger_than_infinity():
    assert evaluate(E.GreaterThan(d(NAN), d(INF))) is True
    assert evaluate(E.LessThan(d(INF), d(NAN))) is True


def test_minus_zero_equals_zero():
    assert evaluate(E.EqualTo(d(-0.0), d(0.0))) is True
    assert evaluate(E.GreaterThan(d(0.0), d(-0.0))) is False


def test_comparison_with_null_is_null():
    assert evaluate(E.EqualTo(i(1), L(None, T.NULL))) is None


def test_null_safe_equality_never_null():
    assert evaluate(E.EqualNullSafe(L(None, T.INT), L(None, T.NULL))) is True
    assert evaluate(E.EqualNullSafe(i(1), L(None, T.NULL))) is False
    assert evaluate(E.EqualNullSafe(d(NAN), d(NAN))) is True


@pytest.mark.parametrize("text,expected", [("NaN", NAN), ("nan", NAN), (" INF ", INF), ("inf", INF),
                                           ("-Infinity", -INF), ("+infinity", INF), ("-inf", -INF)])
def test_string_literal_compared_with_double(text, expected):
    assert evaluate(E.EqualTo(d(expected), s(text))) is True


def test_spark_compare_orders_nan_last():
    values = [NAN, INF, 1.0, -INF, -0.0]
    import functools
    ordered = sorted(values, key=functools.cmp_to_key(lambda a, b: spark_compare(a, b, T.DOUBLE)))
    assert ordered[0] == -INF and math.isnan(ordered[-1]) and ordered[-2] == INF


# -- three-valued logic and laziness ------------------------------------------------------


@pytest.mark.parametrize("a,b,and_,or_", [(None, True, None, True), (None, False, False, None),
                                          (None, None, None, None), (True, False, False, True)])
def test_three_valued_and_or(a, b, and_, or_):
    la, lb = L(a, T.BOOLEAN), L(b, T.BOOLEAN)
    assert evaluate(E.And(la, lb)) is and_
    assert evaluate(E.Or(la, lb)) is or_


def test_not_null_is_null():
    assert evaluate(E.Not(E.NULL_BOOL)) is None


def test_false_and_error_short_circuits():
    assert evaluate(E.And(E.FALSE, E.EqualTo(div0(), d(1.0)))) is False


def test_error_and_false_raises():
    with pytest.raises(EvaluationError):
        evaluate(E.And(E.EqualTo(div0(), d(1.0)), E.FALSE))


def test_branch_not_taken_is_not_evaluated():
    assert evaluate(E.If(E.TRUE, d(1.0), div0())) == 1.0
    assert evaluate(E.CaseWhen(((E.FALSE, div0()),), d(2.0))) == 2.0
    assert evaluate(E.Coalesce((i(1), E.Cast(s("x"), T.INT)))) == 1


def test_taken_branch_raises():
    with pytest.raises(EvaluationError):
        evaluate(E.If(E.FALSE, d(1.0), div0()))


# -- arithmetic ----------------------------------------------------------------------------


def test_int_overflow_raises_under_ansi():
    with pytest.raises(EvaluationError):
        evaluate(E.Add(i(2 ** 31 - 1), i(1)))


def test_int_overflow_wraps_without_ansi():
    assert evaluate(E.Add(i(2 ** 31 - 1), i(1)), ansi=False) == -(2 ** 31)


def test_tinyint_overflow_raises():
    with pytest.raises(EvaluationError):
        evaluate(E.Add(L(127, T.BYTE), L(1, T.BYTE)))


def test_int_plus_bigint_is_bigint():
    e = E.Add(i(2 ** 31 - 1), L(1, T.LONG))
    assert e.data_type == T.LONG and evaluate(e) == 2 ** 31


def test_integer_division_is_double():
    assert evaluate(E.Divide(i(1), i(2))) == 0.5


def test_division_by_zero_raises_under_ansi_and_is_null_otherwise():
    with pytest.raises(EvaluationError):
        evaluate(div0())
    assert evaluate(div0(), ansi=False) is None
    with pytest.raises(EvaluationError):
        evaluate(E.Divide(d(1.0), d(-0.0)))
    with pytest.raises(EvaluationError):
        evaluate(E.Remainder(i(5), i(0)))


def test_remainder_takes_the_dividend_sign():
    assert evaluate(E.Remainder(i(-5), i(3))) == -2
    assert evaluate(E.Remainder(d(-5.5), i(2))) == -1.5


def test_infinity_minus_infinity_is_nan():
    assert math.isnan(evaluate(E.Subtract(d(INF), d(INF))))


def test_negate_min_int_overflows():
    with pytest.raises(EvaluationError):
        evaluate(E.Negate(i(-(2 ** 31))))


def test_decimal_result_type_and_rounding():
    e = E.Divide(L(Decimal("1"), T.DecimalType(38, 0)), i(3))
    assert e.data_type == T.DecimalType(38, 6)
    assert evaluate(e) == Decimal("0.333333") and str(evaluate(e)) == "0.333333"
    two_thirds = E.Divide(L(Decimal("2"), T.DecimalType(38, 18)), i(3))
    assert str(evaluate(two_thirds)) == "0.666666666666666667"  # HALF_UP


def test_decimal_overflow_raises_under_ansi_and_is_null_otherwise():
    big = E.Add(L(Decimal("9" * 38), T.DecimalType(38, 0)), i(1))
    with pytest.raises(EvaluationError):
        evaluate(big)
    assert evaluate(big, ansi=False) is None


def test_decimal_value_is_quantized_to_the_type_scale():
    e = E.Multiply(L(Decimal("1"), T.DecimalType(38, 10)), L(Decimal("1"), T.DecimalType(38, 10)))
    assert e.data_type == T.DecimalType(38, 6) and str(evaluate(e)) == "1.000000"


# -- casts ---------------------------------------------------------------------------------


def test_cast_minus_zero_to_string_keeps_the_sign():
    assert evaluate(E.Cast(d(-0.0), T.STRING)) == "-0.0"


def test_cast_double_to_string_like_java():
    assert evaluate(E.Cast(d(1e7), T.STRING)) == "1.0E7"
    assert evaluate(E.Cast(d(1e-4), T.STRING)) == "1.0E-4"
    assert evaluate(E.Cast(d(0.001), T.STRING)) == "0.001"


def test_cast_double_to_string_where_java_17_differs_is_not_guessed():
    with pytest.raises(CannotEvaluate):
        evaluate(E.Cast(d(6.983016521509962e16), T.STRING))  # Java 17: -6.9830165215099616E16
    with pytest.raises(CannotEvaluate):
        evaluate(E.Cast(d(5e-324), T.STRING))  # Java 17: 4.9E-324


def test_cast_malformed_string_to_int_raises_and_try_cast_is_null():
    with pytest.raises(EvaluationError):
        evaluate(E.Cast(s("abc"), T.INT))
    assert evaluate(E.Cast(s("abc"), T.INT, try_=True)) is None
    assert evaluate(E.Cast(s("abc"), T.INT), ansi=False) is None


def test_cast_string_to_int_trims():
    assert evaluate(E.Cast(s(" 12 "), T.INT)) == 12
    assert evaluate(E.Cast(s("+7"), T.INT)) == 7


def test_cast_decimal_string_to_int_is_not_guessed():
    with pytest.raises(CannotEvaluate):
        evaluate(E.Cast(s("1.5"), T.INT))


def test_cast_double_to_decimal_rounds_half_up_on_the_java_text():
    assert evaluate(E.Cast(d(1.005), T.DecimalType(10, 2))) == Decimal("1.01")
    assert evaluate(E.Cast(d(-0.125), T.DecimalType(10, 2))) == Decimal("-0.13")


def test_cast_overflow_to_int_raises():
    with pytest.raises(EvaluationError):
        evaluate(E.Cast(L(2 ** 31, T.LONG), T.INT))
    with pytest.raises(EvaluationError):
        evaluate(E.Cast(d(NAN), T.INT))


def test_cast_string_to_boolean():
    assert cast_value(" T ", T.STRING, T.BOOLEAN) is True
    assert cast_value("no", T.STRING, T.BOOLEAN) is False
    with pytest.raises(EvaluationError):
        cast_value("maybe", T.STRING, T.BOOLEAN)


# -- IN, coalesce, functions ------------------------------------------------------------


def test_in_with_null_semantics():
    assert evaluate(E.In(i(1), (i(1), L(None, T.NULL)))) is True
    assert evaluate(E.In(i(2), (i(1), L(None, T.NULL)))) is None
    assert evaluate(E.In(L(None, T.INT), (i(1),))) is None
    assert evaluate(E.In(d(NAN), (d(NAN),))) is True


def test_in_empty_list_is_false_with_ansi():
    assert evaluate(E.In(L(None, T.INT), ())) is False
    assert evaluate(E.In(L(None, T.INT), ()), ansi=False) is None


def test_coalesce_result_has_the_common_type():
    e = E.Coalesce((L(None, T.NULL), i(1), L(2, T.LONG)))
    assert e.data_type == T.LONG and evaluate(e) == 1


def test_nullif_nanvl_isnan():
    assert evaluate(E.Func("nullif", (i(1), L(1, T.LONG)))) is None
    assert evaluate(E.Func("nullif", (i(1), i(2)))) == 1
    assert evaluate(E.Func("nanvl", (d(NAN), d(1.0)))) == 1.0
    assert evaluate(E.Func("nanvl", (L(None, T.DOUBLE), d(1.0)))) is None
    assert evaluate(E.Func("isnan", (L(None, T.DOUBLE),))) is False


def test_greatest_least_skip_nulls_and_nan_is_largest():
    assert math.isnan(evaluate(E.Func("greatest", (i(1), d(NAN)))))
    assert evaluate(E.Func("least", (d(NAN), d(1.0)))) == 1.0
    assert evaluate(E.Func("greatest", (L(None, T.INT), i(2)))) == 2
    minus_zero_first = evaluate(E.Func("greatest", (d(-0.0), d(0.0))))
    assert math.copysign(1.0, minus_zero_first) == -1.0  # ties keep the first argument


def test_string_functions():
    assert evaluate(E.Func("substr", (s("hello"), i(-3), i(2)))) == "ll"
    assert evaluate(E.Func("substr", (s("hello"), i(0), i(2)))) == "he"
    assert evaluate(E.Func("trim", (s("\ta "),))) == "\ta"
    assert evaluate(E.Func("like", (s("a\nc"), s("a_c")))) is True
    with pytest.raises(EvaluationError):
        evaluate(E.Func("like", (s("abc"), s("a\\bc"))))


def test_unmodelled_is_cannot_evaluate():
    with pytest.raises(CannotEvaluate):
        evaluate(E.Func("upper", (s("ß"),)))


# -- differential: our value vs Spark's ---------------------------------------------------

CORPUS = """
CAST('NaN' AS DOUBLE) = CAST('NaN' AS DOUBLE)
CAST('NaN' AS DOUBLE) > CAST('Infinity' AS DOUBLE)
CAST('NaN' AS DOUBLE) = 'nan'
CAST('Infinity' AS DOUBLE) = 'INF'
CAST('-Infinity' AS DOUBLE) = '-inf'
-0.0D = 0.0D
-0.0D < 0.0D
CAST(-0.0D AS STRING)
CAST(1e7D AS STRING)
CAST(123456789.123D AS STRING)
CAST(0.1D AS STRING)
CAST(1.0E-4D AS STRING)
CAST(1.5BD AS STRING)
CAST(CAST(0 AS DECIMAL(10,2)) AS STRING)
CAST(TRUE AS STRING)
CAST(DATE'2020-01-02' AS STRING)
CAST(' 12 ' AS INT)
CAST('abc' AS INT)
CAST('1.5' AS INT)
TRY_CAST('abc' AS INT)
CAST(' inf ' AS DOUBLE)
CAST('1e3' AS DOUBLE)
CAST('.5' AS DOUBLE)
CAST('abc' AS DOUBLE)
CAST('2.5' AS DECIMAL(10,0))
CAST('yes' AS BOOLEAN)
CAST('maybe' AS BOOLEAN)
CAST(2147483648L AS INT)
CAST(2.7D AS INT)
CAST(-2.7D AS INT)
CAST(CAST('NaN' AS DOUBLE) AS INT)
CAST(1.005D AS DECIMAL(10,2))
CAST(0.125D AS DECIMAL(10,2))
CAST(123.456 AS DECIMAL(4,1))
CAST(12345.6 AS DECIMAL(4,1))
CAST(7.9BD AS INT)
CAST(128 AS TINYINT)
CAST(TRUE AS INT)
CAST(0.0D AS BOOLEAN)
2147483647 + 1
2147483647 + 1L
-2147483648 - 1
100Y + 27Y
100Y + 28Y
3000000000L * 4000000000L
-(-2147483648)
abs(-2147483648)
1 / 2
1 / 0
1.0D / 0
5 % 0
5 % -3
-5 % 3
-5.5D % 2
7 div 2
-7 div 2
7.5BD div 2
5 div 0
CAST('Infinity' AS DOUBLE) - CAST('Infinity' AS DOUBLE)
1e308D * 10
CAST(1 AS DECIMAL(38,0)) / 3
CAST(2 AS DECIMAL(38,18)) / 3
1.0 / 3
2.5BD * 3
1.1BD + 1
CAST(10 AS DECIMAL(2,0)) * CAST(10 AS DECIMAL(2,0))
CAST('99999999999999999999999999999999999999' AS DECIMAL(38,0)) + 1
CAST(1.5 AS DECIMAL(2,1)) / 0
10.5BD % 3
1.5BD + 1.5D
'1' + 1
1 + '1.5'
1 = '1.5'
1 = ' 1 '
NULL + 1
1 + NULL
NULL = NULL
NULL <=> NULL
1 <=> NULL
NOT NULL
NULL AND FALSE
NULL OR TRUE
NULL AND TRUE
FALSE AND 1/0 = 1
1/0 = 1 AND FALSE
TRUE OR 1/0 = 1
1 IN (1L, NULL)
2 IN (1, NULL)
NULL IN (1)
CAST('NaN' AS DOUBLE) IN (CAST('NaN' AS DOUBLE), 1.0D)
1 IN ('1', 2)
coalesce(NULL, 1, 2L)
coalesce(NULL, NULL)
coalesce(1, 1/0)
nvl(NULL, 'a')
IF(TRUE, 1, 1/0)
IF(FALSE, 1, 1/0)
IF(NULL, 1, 2)
IF(TRUE, 1, 2L)
CASE WHEN FALSE THEN 1/0 WHEN TRUE THEN 2 END
CASE WHEN CAST(NULL AS BOOLEAN) THEN 1 END
CASE WHEN 1 = 1 THEN 'a' ELSE 'b' END
nullif(1, 1L)
nullif(1, 2)
nullif(NULL, 1)
nanvl(CAST('NaN' AS DOUBLE), 1.0D)
nanvl(CAST('NaN' AS DOUBLE), NULL)
nanvl(2.0D, 1.0D)
isnan(NULL)
isnan(CAST('NaN' AS DOUBLE))
isnan(1)
greatest(-0.0D, 0.0D)
greatest(0.0D, -0.0D)
least(CAST('NaN' AS DOUBLE), 1.0D)
greatest(1, CAST('NaN' AS DOUBLE))
greatest(1, NULL, 2L)
least(NULL, NULL)
upper('abc')
lower('ABC')
length('héllo')
substr('hello', -3, 2)
substr('hello', 0, 2)
substr('hello', 2)
substr('hello', -10, 3)
substr('hello', 3, -1)
trim('  a  ')
ltrim('  a  ')
rtrim('  a  ')
concat('a', 'b', 'c')
concat('a', NULL)
'a_c' LIKE 'a\\_c'
'abc' LIKE 'a%'
'abc' LIKE 'a\\bc'
'ABC' LIKE 'abc'
2 BETWEEN 1 AND 3
1 BETWEEN NULL AND 0
5 BETWEEN NULL AND 10
round(2.5D)
round(-2.5D)
round(1.005D, 2)
year(DATE'2020-02-29')
month(DATE'2020-02-29')
dayofmonth(DATE'2020-02-29')
date_add(DATE'2020-02-28', 1)
date_sub(DATE'2020-03-01', 1)
datediff(DATE'2020-03-01', DATE'2020-02-01')
CAST(NULL AS INT) + 1
-CAST(NULL AS DOUBLE)
CAST(1.5 AS FLOAT) + CAST(0.1 AS FLOAT)
CAST(16777217 AS FLOAT)
"""


def _corpus():
    return [line.strip() for line in CORPUS.strip().splitlines() if line.strip()]


def _same_value(ours, theirs) -> bool:
    if ours is None or theirs is None:
        return ours is None and theirs is None
    if isinstance(ours, float) and isinstance(theirs, float):
        if math.isnan(ours) or math.isnan(theirs):
            return math.isnan(ours) and math.isnan(theirs)
        return ours == theirs and math.copysign(1, ours) == math.copysign(1, theirs)
    if isinstance(ours, Decimal):
        return isinstance(theirs, Decimal) and ours == theirs and str(ours) == str(theirs)
    return type(ours) is type(theirs) and ours == theirs


def _ours(expr: str, ansi: bool):
    # (analyzed in the mode too: its coercion casts, `'1' + 1` is a bigint under ANSI, a double without)
    plan = optimize(f"SELECT {expr} AS c", Catalog({}, ansi=ansi), rules=[]).analyzed
    e = plan.projections[0].child
    try:
        return "value", evaluate(e, ansi), e.data_type.simple_string()
    except EvaluationError:
        return "error", None, None
    except CannotEvaluate:
        return "unknown", None, None


def _spark(spark, expr: str):
    try:
        df = spark.sql(f"SELECT {expr} AS c")
        return "value", df.collect()[0][0], df.schema.fields[0].dataType.simpleString()
    except Exception:
        return "error", None, None


def _differential(spark, ansi: bool, exprs):
    evaluated = 0
    mismatches = []
    for expr in exprs:
        kind, value, type_name = _ours(expr, ansi)
        if kind == "unknown":
            continue
        evaluated += 1
        s_kind, s_value, s_type = _spark(spark, expr)
        if kind != s_kind or (kind == "value" and (type_name != s_type or not _same_value(value, s_value))):
            mismatches.append((expr, (kind, value, type_name), (s_kind, s_value, s_type)))
    return evaluated, mismatches


def test_evaluator_agrees_with_spark(spark):
    exprs = _corpus()
    evaluated, mismatches = _differential(spark, True, exprs)
    assert not mismatches, "\n".join(f"{e}: ours {o}, Spark {s}" for e, o, s in mismatches)
    assert evaluated >= 0.9 * len(exprs), f"only {evaluated} of {len(exprs)} evaluated"


def test_evaluator_agrees_with_spark_without_ansi(spark):
    exprs = [e for e in _corpus() if not e.startswith("TRY_CAST")]
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        evaluated, mismatches = _differential(spark, False, exprs)
    finally:
        spark.conf.set("spark.sql.ansi.enabled", "true")
    assert not mismatches, "\n".join(f"{e}: ours {o}, Spark {s}" for e, o, s in mismatches)
    assert evaluated >= 0.75 * len(exprs), f"only {evaluated} of {len(exprs)} evaluated"
