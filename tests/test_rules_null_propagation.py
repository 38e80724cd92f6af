"""NullPropagation: every case, every must-not guard, and the rewrites checked on Spark."""

from __future__ import annotations

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

NP = rule("NullPropagation")
ONE = E.Literal(1, T.INT)


def count(*args, distinct=False, flt=None):
    return E.Agg("count", tuple(args), distinct, flt)


# -- count ---------------------------------------------------------------------------------


def test_count_of_null_is_zero_bigint():
    assert_rewrites(NP, count(null()), E.Literal(0, T.LONG))


def test_count_distinct_of_null_is_zero_bigint():
    assert_rewrites(NP, count(null(T.BOOLEAN), distinct=True), E.Literal(0, T.LONG))


def test_count_of_null_with_filter_is_zero():
    assert_rewrites(NP, count(null(), flt=E.GreaterThan(col("a"), lit(1))), E.Literal(0, T.LONG))


def test_count_of_null_with_raising_filter_is_kept():
    flt = E.GreaterThan(E.Divide(lit(1), col("a")), lit(1.0))
    assert_unchanged(NP, count(null(), flt=flt))


def test_count_distinct_of_num_equals_null_is_zero():
    # seeds/002: count(DISTINCT (num = NULL)) -> 0, one bottom-up pass
    num = col("num", T.INT, nullable=False)
    assert_rewrites(NP, count(E.EqualTo(num, null()), distinct=True), E.Literal(0, T.LONG))


def test_count_of_non_nullable_is_count_1():
    num = col("num", T.INT, nullable=False)
    assert_rewrites(NP, count(num), count(ONE))


def test_count_of_non_nullable_keeps_filter():
    num = col("num", T.INT, nullable=False)
    flt = E.GreaterThan(num, lit(2))
    assert_rewrites(NP, count(num, flt=flt), count(ONE, flt=flt))


def test_count_distinct_of_non_nullable_is_not_count_1():
    assert_unchanged(NP, count(col("num", nullable=False), distinct=True))


def test_count_of_nullable_is_kept():
    assert_unchanged(NP, count(col("a")))


def test_count_of_raising_non_nullable_is_kept():
    # num + 1 is never NULL but can overflow: count(1) would drop the error
    assert_unchanged(NP, count(E.Add(col("num", nullable=False), lit(1))))


def test_count_1_is_at_fixed_point():
    assert_unchanged(NP, count(ONE))


# -- IS [NOT] NULL, <=> NULL ---------------------------------------------------------------


def test_is_null_of_non_nullable_is_false():
    assert_rewrites(NP, E.IsNull(col("num", nullable=False)), E.FALSE)


def test_is_not_null_of_non_nullable_is_true():
    assert_rewrites(NP, E.IsNotNull(col("num", nullable=False)), E.TRUE)


def test_is_null_of_nullable_is_kept():
    assert_unchanged(NP, E.IsNull(col("a")))


def test_is_null_of_raising_non_nullable_is_kept():
    assert_unchanged(NP, E.IsNull(E.Add(col("num", nullable=False), lit(1))))


def test_is_null_of_non_deterministic_is_kept():
    rand = E.Opaque(None, (), T.DOUBLE, "scalar", "rand()")
    assert_unchanged(NP, E.IsNotNull(rand))


def test_null_safe_equal_null_is_is_null():
    a = col("a")
    assert_rewrites(NP, E.EqualNullSafe(a, null()), E.IsNull(a))
    assert_rewrites(NP, E.EqualNullSafe(null(), a), E.IsNull(a))


def test_null_safe_equal_typed_null_on_string_is_kept():
    # s <=> CAST(NULL AS INT) casts s to bigint first: 'abc' raises under ANSI
    assert_unchanged(NP, E.EqualNullSafe(col("s", T.STRING), null(T.INT)))


# -- null-intolerant expressions -----------------------------------------------------------


def test_comparison_with_null_is_typed_null():
    assert_rewrites(NP, E.EqualTo(col("a"), null()), E.NULL_BOOL)


def test_arithmetic_with_null_is_null_of_its_type():
    assert_rewrites(NP, E.Add(col("b", T.LONG), null()), null(T.LONG))
    assert_rewrites(NP, E.Divide(col("a"), null()), null(T.DOUBLE))


def test_cast_of_null_is_typed_null():
    assert_rewrites(NP, E.Cast(null(), T.INT), null(T.INT))


def test_not_null_is_null():
    assert_rewrites(NP, E.Not(null()), E.NULL_BOOL)


def test_function_with_null_argument_is_null():
    assert_rewrites(NP, E.Func("upper", (null(),)), null(T.STRING))
    assert_rewrites(NP, E.Func("concat", (col("s", T.STRING), null())), null(T.STRING))


def test_null_intolerant_with_raising_other_operand_is_kept():
    assert_unchanged(NP, E.Add(E.Divide(lit(1), col("a")), null()))


def test_null_intolerant_with_non_deterministic_operand_is_kept():
    rand = E.Opaque(None, (), T.DOUBLE, "scalar", "rand()")
    assert_unchanged(NP, E.Add(rand, null()))


def test_typed_null_compared_with_string_is_kept():
    assert_unchanged(NP, E.EqualTo(col("s", T.STRING), null(T.INT)))


def test_null_tolerant_expressions_are_kept():
    a = col("p", T.BOOLEAN)
    assert_unchanged(NP, E.And(a, null()))        # NULL AND FALSE is FALSE
    assert_unchanged(NP, E.Or(a, null()))         # NULL OR TRUE is TRUE
    assert_unchanged(NP, E.If(a, null(), lit(1)))
    assert_unchanged(NP, E.Func("isnan", (null(T.DOUBLE),)))  # isnan(NULL) is FALSE


def test_unknown_type_is_never_a_literal():
    opaque = E.Opaque(None, (null(),), T.UNKNOWN, "scalar", "f(NULL)")
    assert_unchanged(NP, E.Add(opaque, null()))


# -- coalesce ------------------------------------------------------------------------------


def test_coalesce_drops_null_arguments():
    a, b = col("a"), col("b")
    assert_rewrites(NP, E.Coalesce((null(), a, null(), b)), E.Coalesce((a, b)))


def test_coalesce_stops_at_first_non_nullable():
    a, n, b = col("a"), col("n", nullable=False), col("b")
    assert_rewrites(NP, E.Coalesce((a, n, b)), E.Coalesce((a, n)))


def test_coalesce_of_one_argument_is_the_argument():
    a = col("a")
    assert_rewrites(NP, E.Coalesce((null(), a)), a)


def test_coalesce_of_nulls_is_typed_null():
    assert_rewrites(NP, E.Coalesce((null(T.LONG), null())), null(T.LONG))


def test_coalesce_pruning_keeps_the_type_with_a_cast():
    num = col("num")
    out = assert_rewrites(NP, E.Coalesce((null(T.DOUBLE), num)), E.Cast(num, T.DOUBLE, user=False))
    assert out.data_type == T.DOUBLE


def test_coalesce_without_nulls_is_kept():
    assert_unchanged(NP, E.Coalesce((col("a"), col("b"))))


# -- IN ------------------------------------------------------------------------------------


def test_null_in_list_is_null():
    assert_rewrites(NP, E.In(null(), (lit(1), lit(2))), E.NULL_BOOL)


def test_in_empty_list_is_false_with_ansi():
    assert_rewrites(NP, E.In(col("a"), ()), E.FALSE)


def test_null_in_empty_list_is_null_in_legacy():
    assert_rewrites(NP, E.In(null(), ()), E.NULL_BOOL, ctx=RuleContext(ansi=False))


def test_value_in_list_with_null_is_kept():
    assert_unchanged(NP, E.In(col("a"), (lit(1), null())))


# -- on Spark --------------------------------------------------------------------------------

SQL_CASES = [
    "SELECT count(DISTINCT (num = NULL)) FROM t",
    "SELECT count(DISTINCT (num = NULL)) FROM e",
    "SELECT count(NULL), count(num) FROM e",
    "SELECT count(DISTINCT (num = NULL)) FROM t GROUP BY s",
    "SELECT s, count(num), count(x) FROM t GROUP BY s",
    "SELECT num = NULL, x + NULL, NOT NULL, CAST(NULL AS INT), upper(NULL) FROM t",
    "SELECT num FROM t WHERE num = NULL",
    "SELECT num FROM t WHERE NOT (x = NULL) OR num > 5",
    "SELECT num IS NULL, num IS NOT NULL, x IS NULL FROM t",
    "SELECT x <=> NULL, NULL <=> s FROM t",
    "SELECT coalesce(NULL, x, num, 1), coalesce(NULL, NULL, s), nvl(NULL, s) FROM t",
    "SELECT NULL IN (1, 2), num FROM t",
    "SELECT k, count(v), count(DISTINCT v) FROM n GROUP BY k",
]


def test_null_propagation_on_spark(spark, tables):
    for sql in SQL_CASES:
        assert_sql_rewrite(spark, tables, sql, "NullPropagation")


def test_count_of_non_nullable_is_count_1_on_spark(spark, tables):
    result = assert_sql_rewrite(spark, tables, "SELECT count(num) FROM t GROUP BY s", "NullPropagation")
    assert "count(1)" in result.sql.replace(" ", "").lower()


def test_count_distinct_of_null_is_one_zero_row_on_an_empty_table(spark, tables):
    # seeds/002: the constant 0 still comes as exactly one row, even with no input rows
    result = assert_sql_rewrite(spark, tables, "SELECT count(DISTINCT (num = NULL)) FROM e",
                                "NullPropagation")
    rows = spark.sql(result.sql).collect()
    assert [tuple(r) for r in rows] == [(0,)]
    assert spark.sql(result.sql).schema.fields[0].dataType.simpleString() == "bigint"


def test_where_num_equals_null_becomes_false():
    # seeds/002, third example, at the expression level: num = NULL is NULL, and NULL in a
    # WHERE is FALSE (PruneFilters then makes the filter an empty relation)
    from sparkfold.plans.ir import logical as L

    from tests.rule_helpers import rule as get

    num = col("num", T.INT, nullable=False)
    plan = L.Filter(E.EqualTo(num, null()), L.Relation("t", (num,)))
    plan = NP(plan)
    assert plan.condition == E.NULL_BOOL
    plan = get("ReplaceNullWithFalseInPredicate")(plan)
    assert plan.condition == E.FALSE


def test_negate_of_null_is_a_double_null():
    # Spark types -(NULL) and NULL / decimal as double: the folded NULL has that type
    assert_rewrites(NP, E.Negate(null()), null(T.DOUBLE))
    assert_rewrites(NP, E.Divide(null(), col("d", T.DecimalType(10, 2))), null(T.DOUBLE))
