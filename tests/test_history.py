"""Regression tests for the historical NULL/NaN/ANSI bugs of Spark and its peers.

The bugs are those of section 4 of research/catalyst-null-rules.md (Spark's own) and of
research/peers.md (sqlglot, Calcite, DataFusion, DuckDB's bug classes), adapted to the
standard tables (tests/data.py: t.num and u.y and n.* are NOT NULL, the rest nullable,
with NULL, NaN, +-Infinity, -0.0 and an always-empty table e).  Each test asserts

(a) on Spark, the optimized SQL gives the rows, names and types of the original (or the
    same error); and
(b) where meaningful, the plan property the bug was about (the rule fired or did not).

Constructs sparkfold does not model (windows, explode_outer, HyperLogLog, array set
operations) are shown to pass through with Spark's answer unchanged.
"""

from __future__ import annotations

import pytest
from sparkfold.optimizer import optimize
from sparkfold.optimizer.output_nullability import NAME as KEEP_NULLABILITY
from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import logical as L

from tests.data import STANDARD_SCHEMA as S
from tests.rule_helpers import join_types, nodes, reads_no_table
from tests.spark_check import assert_same_result, is_ordered, run_or_error


def check(spark, sql: str, *, fired=(), not_fired=(), error: str | None = None):
    """Optimize, compare with the original on Spark, check which rules fired."""
    r = optimize(sql, S)
    rules = {w.rule for w in r.trace}
    for name in fired:
        assert name in rules, f"{name} did not fire: {sorted(rules)}\n{r.sql}"
    for name in not_fired:
        assert name not in rules, f"{name} fired: {r.sql}"
    if r.sql != sql:  # (the same text gives the same answer)
        assert_same_result(spark, sql, r.sql, ordered=is_ordered(r.analyzed), context=sql)
    if error is not None:
        assert run_or_error(spark, sql) == ("error", error)
    return r


def exprs(plan: L.Plan, cls) -> list:
    return [n for op in nodes(plan, L.Plan) for e in op.expressions for n in e.walk() if isinstance(n, cls)]


def project_values(r) -> list:
    """The top projection's expressions as the rules left them (before the optimizer's
    last step gives the output the original's nullability: optimizer/output_nullability.py),
    aliases peeled."""
    p = r.optimized
    last = r.trace.rewrites[-1] if r.trace.rewrites else None
    if last is not None and last.rule == KEEP_NULLABILITY:
        p = last.before
    while not isinstance(p, L.Project):
        p = p.children[0]
    return [e.child if isinstance(e, E.Alias) else e for e in p.projections]


# ---------------------------------------------------------------------------------------
# Spark (catalyst-null-rules.md section 4)
# ---------------------------------------------------------------------------------------

def test_spark_20686_empty_global_aggregate_under_filter_keeps_one_row(spark, tables):
    r = check(spark, "SELECT 1 FROM (SELECT count(*) FROM t WHERE FALSE)", fired=["FoldEmptyAggregate"])
    assert not L.is_empty_relation(r.optimized) and reads_no_table(r.optimized)
    assert len(spark.sql(r.sql).collect()) == 1
    check(spark, "SELECT 1 AS one FROM (SELECT count(*) AS c FROM t WHERE num IS NULL) WHERE c = 0")
    # a grouped aggregate over empty input is empty, though
    r = check(spark, "SELECT 1 FROM (SELECT count(*) FROM t WHERE FALSE GROUP BY num)")
    assert L.is_empty_relation(r.optimized)


@pytest.mark.parametrize("sql", [
    "SELECT * FROM t LEFT JOIN (SELECT * FROM u WHERE FALSE) v ON t.num = v.num",
    "SELECT * FROM (SELECT * FROM u WHERE FALSE) v FULL JOIN t ON t.num = v.num",
    "SELECT * FROM (SELECT * FROM u WHERE FALSE) v RIGHT JOIN t ON t.num = v.num",
    "SELECT v.y IS NULL, count(v.y) FROM t LEFT JOIN (SELECT * FROM u WHERE FALSE) v ON t.num = v.num "
    "GROUP BY v.y IS NULL",
])
def test_spark_22615_empty_side_of_outer_join_is_null_padded(spark, tables, sql):
    r = check(spark, sql, fired=["PropagateEmptyRelation"])
    assert not join_types(r.optimized)  # the join is gone, the padding is NULL columns


@pytest.mark.parametrize("sql", [
    "SELECT num FROM t WHERE FALSE UNION ALL SELECT num FROM u",
    "SELECT k FROM n WHERE FALSE UNION ALL SELECT num FROM u",   # the name comes from the first child
    "SELECT num FROM u UNION ALL SELECT k FROM n WHERE FALSE",   # nullability from the kept child
    "SELECT k FROM n UNION ALL SELECT num FROM u WHERE FALSE",
])
def test_spark_32241_removing_empty_union_children_keeps_names_types_nullability(spark, tables, sql):
    r = check(spark, sql, fired=["PropagateEmptyRelation"])
    assert [(a.name, a.data_type) for a in r.optimized.output] == \
        [(a.name, a.data_type) for a in r.analyzed.output]
    # nullability may only narrow (a kept non-null child), never widen past the original's
    for before, after in zip(r.analyzed.output, r.optimized.output):
        assert before.nullable or not after.nullable


@pytest.mark.parametrize("sql", [
    "SELECT * FROM t FULL JOIN u USING (num) WHERE num IS NOT NULL",
    "SELECT * FROM t FULL JOIN u ON t.num = u.num WHERE coalesce(t.num, u.num) IS NOT NULL",
    "SELECT * FROM t FULL JOIN u ON t.num = u.num WHERE coalesce(t.b, u.y) > 0",
])
def test_spark_16991_using_key_of_full_join_does_not_make_it_inner(spark, tables, sql):
    r = check(spark, sql)
    assert join_types(r.optimized) == [L.FULL_OUTER]


@pytest.mark.parametrize("sql", [
    # the filter raises on the NULL-padded row: the trial evaluation must say "unknown"
    "SELECT * FROM t LEFT JOIN u ON t.num = u.num WHERE element_at(array(1), coalesce(u.num, 5)) > 0",
    "SELECT * FROM t LEFT JOIN u ON t.num = u.num WHERE coalesce(u.y / 0, 1) > 0",
    "SELECT * FROM t LEFT JOIN u ON t.num = u.num WHERE assert_true(u.num IS NULL) IS NULL",
])
def test_spark_38868_outer_join_filter_that_raises_keeps_the_outer_join(spark, tables, sql):
    r = check(spark, sql)
    assert join_types(r.optimized) == [L.LEFT_OUTER]


@pytest.mark.parametrize("sql", [
    "SELECT t.num, u.y IS NULL, u.y IS NOT NULL, coalesce(u.y, -1) FROM t LEFT JOIN u ON t.num = u.num",
    "SELECT count(u.y), count(*), count(u.y + 1) FROM t LEFT JOIN u ON t.num = u.num",
    "SELECT t.num IS NULL, count(t.num) FROM u LEFT JOIN t ON t.num = u.num GROUP BY t.num IS NULL",
    "SELECT n.k IS NULL, v.k IS NULL FROM n FULL JOIN (SELECT k FROM n WHERE k > 1) v ON n.k = v.k",
])
def test_spark_13484_outer_join_makes_the_other_side_nullable(spark, tables, sql):
    r = check(spark, sql)
    # no IS [NOT] NULL over a padded column was folded to a constant
    assert len(exprs(r.optimized, (E.IsNull, E.IsNotNull, E.Coalesce, E.Agg))) >= \
        len([x for x in exprs(r.analyzed, (E.IsNull, E.IsNotNull, E.Coalesce, E.Agg))])


@pytest.mark.parametrize("sql", [
    "SELECT k, k IS NULL FROM n FULL JOIN (SELECT num AS k FROM u) v USING (k)",
    "SELECT k IS NULL, count(*) FROM n RIGHT JOIN (SELECT num AS k FROM u) v USING (k) GROUP BY k IS NULL",
    "SELECT k IS NULL FROM (SELECT num AS k FROM u) v LEFT JOIN n USING (k)",
])
def test_spark_43718_using_join_key_nullability(spark, tables, sql):
    check(spark, sql)


def test_spark_16181_foldable_column_of_outer_join_side_is_null_when_padded(spark, tables):
    # a constant column of the right side is NULL on padded rows, not the constant
    check(spark, "SELECT t.num, v.one, v.one IS NULL FROM t LEFT JOIN (SELECT num, 1 AS one FROM u) v "
                 "ON t.num = v.num")


def test_spark_40963_explode_outer_output_passes_through(spark, tables):
    r = check(spark, "SELECT c, c IS NULL FROM t LATERAL VIEW explode_outer(CAST(array() AS array<int>)) x AS c")
    assert "explode_outer" in r.sql.lower()
    assert len(spark.sql(r.sql).collect()) == 10  # one NULL row per input row


@pytest.mark.parametrize("sql", [
    "SELECT p AND (NOT p OR num > 3) FROM t",
    "SELECT p OR (NOT p AND num > 3) FROM t",
    "SELECT (NOT p OR num > 3) AND p FROM t",
    "SELECT (p AND (NOT p OR num > 3)) <=> FALSE FROM t",   # sqlglot #7962: ... IS FALSE
])
def test_spark_25402_absorption_needs_a_never_null_operand(spark, tables, sql):
    r = check(spark, sql, not_fired=["BooleanSimplification"])
    assert r.optimized == r.analyzed


def test_spark_25402_absorption_fires_for_never_null_operand(spark, tables):
    r = check(spark, "SELECT (num > 3) AND (NOT (num > 3) OR p) FROM t", fired=["BooleanSimplification"])
    assert not exprs(r.optimized, E.Or)


def test_spark_33845_if_true_false_is_null_safe(spark, tables):
    r = check(spark, "SELECT IF(p, TRUE, FALSE), IF(p, FALSE, TRUE), IF(num > 3, TRUE, FALSE) FROM t",
              fired=["SimplifyConditionals"])
    values = project_values(r)
    assert isinstance(values[0], E.EqualNullSafe)  # p <=> TRUE: NULL becomes FALSE
    assert isinstance(values[2], E.GreaterThan)     # never NULL: just the condition


@pytest.mark.parametrize("sql", [
    "SELECT num FROM t WHERE IF(p, FALSE, num > 3)",
    "SELECT num FROM t WHERE CASE WHEN p THEN FALSE ELSE num > 3 END",
    "SELECT num FROM t WHERE NOT IF(p, FALSE, num > 3)",
    "SELECT num FROM t WHERE IF(p, NULL, num > 3) OR num = 1",
])
def test_spark_36686_if_with_null_condition_in_filter_keeps_rows(spark, tables, sql):
    check(spark, sql)


@pytest.mark.parametrize("sql", [
    "SELECT num FROM t WHERE NOT (b = 10 AND b + 1 = 10)",
    "SELECT num FROM t WHERE NOT (b = 10 AND b + 1 = 11)",
    "SELECT num, NOT (b = 10 AND b + 1 = 10) FROM t",
    "SELECT num FROM t WHERE b = 10 AND b + 1 <> 11",        # sqlglot PR #8326
])
def test_spark_30447_constant_propagation_under_not_with_null(spark, tables, sql):
    check(spark, sql)


@pytest.mark.parametrize("sql", [
    "SELECT num FROM t WHERE NOT (b IS NOT NULL)",
    "SELECT t.num FROM t JOIN u ON t.num = u.num WHERE NOT (t.b IS NOT NULL)",
    "SELECT t.num FROM t JOIN u ON t.num = u.num WHERE (u.s IS NULL) IS NOT NULL AND t.b IS NULL",
])
def test_spark_17897_is_not_null_not_inferred_through_not_or_is_null(spark, tables, sql):
    r = check(spark, sql)
    assert not L.is_empty_relation(r.optimized)


def test_spark_44431_in_empty_list_is_rejected_like_spark():
    from sparkfold.plans.ir.errors import SparkfoldError

    with pytest.raises(SparkfoldError):
        optimize("SELECT 1 IN ()", S)


def test_spark_44431_in_spark_rejects_empty_list(spark):
    assert run_or_error(spark, "SELECT 1 IN ()")[0] == "error"


@pytest.mark.parametrize("sql", [
    "SELECT b IN (SELECT y FROM u WHERE FALSE), NOT (b IN (SELECT y FROM u WHERE FALSE)) FROM t",
    "SELECT CAST(NULL AS INT) IN (SELECT num FROM e), b NOT IN (SELECT y FROM u WHERE num IS NULL AND FALSE) "
    "FROM t",
])
def test_spark_44551_null_in_empty_subquery_is_false(spark, tables, sql):
    r = check(spark, sql)
    assert r.passthrough is None
    if "WHERE FALSE" in sql:
        assert any(w.rule == "OptimizeSubqueries" for w in r.trace)


@pytest.mark.parametrize("sql", [
    "SELECT (b IN (SELECT num FROM u)) <=> FALSE FROM t",
    "SELECT (num IN (SELECT num FROM u)) <=> FALSE, (num IN (SELECT k FROM n)) IS NULL FROM t",
    "SELECT num FROM t WHERE (b IN (SELECT num FROM u)) <=> FALSE",
])
def test_spark_43413_in_subquery_nullability_follows_the_subquery(spark, tables, sql):
    r = check(spark, sql)
    assert exprs(r.optimized, E.EqualNullSafe) or exprs(r.optimized, E.IsNull)


@pytest.mark.parametrize("sql", [
    "SELECT NOT ((b NOT IN (SELECT num FROM u)) <=> FALSE) FROM t",
    "SELECT num FROM t WHERE NOT ((b NOT IN (SELECT num FROM u)) <=> FALSE)",
    "SELECT num FROM t WHERE (b NOT IN (SELECT num FROM u)) IS NULL",
])
def test_spark_58442_not_in_subquery_null_stays_observable(spark, tables, sql):
    check(spark, sql)


def test_spark_34692_not_in_list_with_null_folds_only_in_a_filter(spark, tables):
    r = check(spark, "SELECT num, NOT (num IN (1, NULL)) FROM t")
    assert exprs(r.optimized, E.In)  # a value: FALSE for num = 1, NULL otherwise
    r = check(spark, "SELECT num FROM t WHERE NOT (num IN (1, NULL))")
    assert L.is_empty_relation(r.optimized)  # a filter: never TRUE


def test_spark_17098_count_null_over_window_passes_through(spark, tables):
    r = check(spark, "SELECT num, count(NULL) OVER () FROM t")
    assert len(spark.sql(r.sql).collect()) == 10


def test_spark_49000_count_distinct_constant_over_empty_is_zero(spark, tables):
    check(spark, "SELECT count(DISTINCT 1) FROM e")
    r = check(spark, "SELECT count(DISTINCT 1) FROM t WHERE FALSE", fired=["FoldEmptyAggregate"])
    assert spark.sql(r.sql).collect()[0][0] == 0


def test_spark_39106_never_taken_raising_branch_is_not_folded(spark, tables):
    r = check(spark, "SELECT CASE WHEN num = 1 THEN 1/0 ELSE 0 END FROM t WHERE num > 1")
    assert exprs(r.optimized, E.Divide)


def test_spark_33544_side_effect_inside_size_is_kept(spark, tables):
    r = check(spark, "SELECT size(array(assert_true(num < 0))) FROM t", error="USER_RAISED_EXCEPTION")
    assert run_or_error(spark, r.sql) == ("error", "USER_RAISED_EXCEPTION")


@pytest.mark.parametrize("sql", [
    "SELECT x, count(*) FROM t WHERE x = x OR NULL GROUP BY x",
    "SELECT DISTINCT x FROM t WHERE x IS NOT NULL AND NULL IS NULL",
    "SELECT t.num, u.num FROM t JOIN u ON t.x = u.z AND NULL IS NULL",
    "SELECT x, count(*) OVER (PARTITION BY x) FROM t WHERE TRUE",
    "SELECT approx_count_distinct(x), count(DISTINCT x) FROM t WHERE x IS NOT NULL OR NULL",
    "SELECT array_distinct(array(0.0D, -0.0D, CAST('NaN' AS DOUBLE), CAST('NaN' AS DOUBLE))), "
    "array_union(array(0.0D), array(-0.0D))",
    "SELECT x FROM t WHERE x = 0.0 OR x = CAST('NaN' AS DOUBLE) OR NULL",
    "SELECT x FROM t INTERSECT SELECT z FROM u WHERE z IS NOT NULL OR NULL",
])
def test_spark_26021_nan_and_negative_zero_keys(spark, tables, sql):
    check(spark, sql)


@pytest.mark.parametrize("sql", [
    "SELECT num FROM t WHERE x IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, CAST('NaN' AS DOUBLE))",
    "SELECT num FROM t WHERE x NOT IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, CAST('NaN' AS DOUBLE))",
    "SELECT num, x IN (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 'NaN', NULL) FROM t",
    "SELECT num FROM t WHERE x IN ('NaN', 'Infinity', '-0.0')",
])
def test_spark_36792_inset_matches_nan(spark, tables, sql):
    check(spark, sql)


@pytest.mark.parametrize("sql", [
    "SELECT num, p FROM t EXCEPT SELECT num, p FROM t WHERE p",
    "SELECT num, p FROM t EXCEPT ALL SELECT num, p FROM t WHERE p OR NULL",
    "SELECT s FROM t EXCEPT SELECT s FROM t WHERE s = 'a' OR NULL",
])
def test_spark_26366_except_with_null_condition_keeps_rows(spark, tables, sql):
    check(spark, sql)


# ---------------------------------------------------------------------------------------
# Peers (peers.md sections 1 and 4)
# ---------------------------------------------------------------------------------------

def test_sqlglot_539_null_and_false_is_false_not_null_is_null(spark, tables):
    r = check(spark, "SELECT NULL AND FALSE, NOT NULL, NULL OR TRUE, NULL AND p, FALSE AND NULL FROM t")
    values = project_values(r)
    assert values[0] == E.FALSE and values[2] == E.TRUE and values[4] == E.FALSE
    assert isinstance(values[1], E.Literal) and values[1].value is None
    assert values[1].data_type == E.NULL_BOOL.data_type  # typed boolean NULL, not void


@pytest.mark.parametrize("sql", [
    "SELECT p <> p, p = p, NOT (p <=> p), b ^ b, x = x, x <> x FROM t",   # x is NaN on some rows
    "SELECT num FROM t WHERE p <> p OR b ^ b <> 0",
])
def test_sqlglot_6104_xor_self_is_not_false_for_null(spark, tables, sql):
    r = check(spark, sql)
    if sql.startswith("SELECT p <> p"):
        # NULL for a NULL p / b / x, and x = x is TRUE for NaN: none of them is a constant
        values = project_values(r)
        assert not any(isinstance(values[i], E.Literal) for i in (0, 1, 3, 4, 5)), values
    else:
        assert not L.is_empty_relation(r.optimized)


def test_sqlglot_6104_self_comparison_of_never_null_folds(spark, tables):
    r = check(spark, "SELECT k <> k, k = k, v = v FROM n", fired=["SimplifyBinaryComparison"])
    assert all(isinstance(v, E.Literal) for v in project_values(r)[:2])


@pytest.mark.parametrize("sql", [
    "SELECT NULL AND (SELECT FALSE), NULL AND EXISTS (SELECT 1 FROM e)",
    "SELECT NULL OR (SELECT TRUE), NULL OR NOT EXISTS (SELECT 1 FROM e)",
    "SELECT num FROM t WHERE NOT (NULL AND EXISTS (SELECT 1 FROM e))",
])
def test_sqlglot_6136_null_and_false_subquery_is_false(spark, tables, sql):
    check(spark, sql)


@pytest.mark.parametrize("sql", [
    "SELECT p AND NOT p, p OR NOT p FROM t",                              # sqlglot #6213
    "SELECT (x > 1) AND NOT (x > 1), (x > 1) OR (x <= 1) FROM t",         # CALCITE-2327
    "SELECT num FROM t WHERE NOT (p AND NOT p)",                           # DataFusion #4200
    "SELECT num FROM t WHERE p OR NOT p",
])
def test_sqlglot_6213_calcite_2327_datafusion_4200_complement_of_nullable(spark, tables, sql):
    r = check(spark, sql)
    assert exprs(r.optimized, E.Not) or exprs(r.optimized, E.Comparison) or exprs(r.optimized, E.Attribute)
    assert not L.is_empty_relation(r.optimized)


def test_complement_of_never_null_folds(spark, tables):
    r = check(spark, "SELECT (num > 3) AND NOT (num > 3), (num > 3) OR NOT (num > 3) FROM t",
              fired=["BooleanSimplification"])
    assert project_values(r)[:2] == [E.FALSE, E.TRUE]


def test_sqlglot_6327_folded_null_keeps_boolean_type(spark, tables):
    r = check(spark, "SELECT FALSE OR NULL, NULL AND TRUE, NOT NULL, NULL OR NULL")
    assert [a.data_type for a in r.optimized.output] == [a.data_type for a in r.analyzed.output]
    check(spark, "SELECT num FROM t UNION ALL SELECT NULL")
    check(spark, "SELECT p FROM t UNION ALL SELECT FALSE OR NULL")


@pytest.mark.parametrize("sql", [
    "SELECT num FROM t WHERE NOT (b < 1 AND b > 3)",      # sqlglot PR #8338
    "SELECT num, NOT (b < 1 AND b > 3), b < 1 AND b > 3 FROM t",
    "SELECT num FROM t WHERE NOT (x < 1 AND x > 3)",      # NaN is above every value
])
def test_sqlglot_8338_contradiction_under_not_keeps_null_rows_out(spark, tables, sql):
    r = check(spark, sql)
    assert not L.is_empty_relation(r.optimized)


def test_sqlglot_8338_contradiction_of_never_null_column(spark, tables):
    check(spark, "SELECT k FROM n WHERE NOT (k < 1 AND k > 3)")


def test_sqlglot_7412_comparison_with_null_keeps_type(spark, tables):
    r = check(spark, "SELECT s = NULL, num = NULL, NULL = x FROM t", fired=["NullPropagation"])
    assert all(a.data_type == E.NULL_BOOL.data_type for a in r.optimized.output)
    r = check(spark, "SELECT num FROM t WHERE s = NULL")
    assert L.is_empty_relation(r.optimized)


@pytest.mark.parametrize("sql", [
    "SELECT num FROM t WHERE 3 < num AND 1.5 >= x",
    "SELECT num FROM t WHERE NULL = num OR NULL < b",
    "SELECT 3 < num, 1.5 >= x, NULL <=> b, 'a' < s FROM t",
])
def test_calcite_2007_literal_first_comparisons(spark, tables, sql):
    check(spark, sql)


@pytest.mark.parametrize("sql", [
    "SELECT num FROM t WHERE (x > 1 AND x < 5) OR (x > 3 AND x < 10) OR x IS NULL",
    "SELECT num FROM t WHERE num IN (1, 2) AND num NOT IN (2, NULL)",
    "SELECT num FROM t WHERE b IN (10, 5) AND b NOT IN (10)",
    "SELECT num FROM t WHERE b IN (1) AND b IN (2)",                       # DataFusion #24246
    "SELECT num, b IN (1) AND b IN (2), NOT (b IN (1)) OR b IN (1) FROM t",
    "SELECT num FROM t WHERE b NOT IN (1, 2) OR b IN (1, NULL)",
])
def test_calcite_sarg_range_and_in_set_algebra_with_null(spark, tables, sql):
    check(spark, sql)


@pytest.mark.parametrize("sql", [
    "SELECT num FROM t WHERE s > 'a' AND s < 'b' OR s = 'NaN'",
    "SELECT num FROM t WHERE s = 'a' AND s = 'a '",
    "SELECT num FROM t WHERE s = '' OR s IS NULL",
])
def test_calcite_6448_string_literal_filters_are_not_emptied(spark, tables, sql):
    r = check(spark, sql)
    assert not L.is_empty_relation(r.optimized)


@pytest.mark.parametrize("sql", [
    "SELECT num FROM t WHERE upper(s) = 'A' AND s IS NULL",
    "SELECT num FROM t WHERE length(s) > 0 AND p",
    "SELECT num FROM t WHERE CAST(dt AS STRING) > '2000' AND NOT (d IS NULL)",
])
def test_calcite_7450_unreducible_conditions_are_not_emptied(spark, tables, sql):
    r = check(spark, sql)
    assert not L.is_empty_relation(r.optimized)


@pytest.mark.parametrize("sql", [
    "SELECT (num > 3) OR ((num > 3) AND p), p OR (p AND num > 3), p AND (p OR num > 3) FROM t",
    "SELECT num FROM t WHERE p OR (p AND x > 1)",
])
def test_datafusion_12746_absorption_with_nullable_operand(spark, tables, sql):
    check(spark, sql)


@pytest.mark.parametrize("sql", [
    "SELECT log(x, 1), power(x, 0), power(b, 0), ln(x) * 0, x - x, x * 0 FROM t",
    "SELECT array_contains(array(1, NULL), num), array_contains(array(1, 2), num) FROM t",
    "SELECT num FROM t WHERE power(b, 0) = 1 OR x * 0 = 0",
])
def test_datafusion_24246_math_identities_with_null_nan(spark, tables, sql):
    r = check(spark, sql)
    assert not L.is_empty_relation(r.optimized)


def test_duckdb_bindings_checked_after_every_rule():
    # DuckDB PR #22553: the output schema is checked after every pass; a rule that breaks
    # it is an internal error, not a silently wrong plan
    from sparkfold.optimizer.engine import Batch, FixedPoint
    from sparkfold.plans.ir.errors import InternalError
    from sparkfold.rules.base import Rule

    def rename(plan, ctx):
        if isinstance(plan, L.Project):
            first = plan.projections[0]
            return L.Project((E.Alias(first, "other", E.new_id()),) + plan.projections[1:], plan.child)
        return plan

    with pytest.raises(InternalError, match="changed the output schema"):
        optimize("SELECT num FROM t", S, batches=[Batch("Bad", FixedPoint(2), (Rule("Rename", rename),))])
