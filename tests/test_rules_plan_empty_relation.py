"""PropagateEmptyRelation, FoldEmptyAggregate, FoldConstantAggregate."""

from __future__ import annotations

import pytest
from sparkfold.optimizer.batches import RULES
from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import logical as L
from sparkfold.plans.ir import types as T

from tests.rule_helpers import (
    fired,
    join_types,
    nodes,
    reads_no_table,
    run,
    same_schema,
    spark_agrees,
    text,
)

PROP = "PropagateEmptyRelation"
EMPTY_RULES = ("PruneFilters", PROP, "FoldEmptyAggregate")
T_EMPTY = "(SELECT * FROM t WHERE false)"
U_EMPTY = "(SELECT * FROM u WHERE false)"


def rule(name=PROP):
    return RULES[name]


def attr(name, t=T.INT, nullable=True, i=None):
    return E.Attribute(name, t, nullable, i or E.new_id())


def empty(*attrs):
    return L.LocalRelation(tuple(attrs))


def scan(*attrs):
    return L.Relation("r", tuple(attrs))


# ---------------------------------------------------------------------------
# Unary operators
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("make", [
    lambda c: L.Project((c.output[0],), c),
    lambda c: L.Filter(E.GreaterThan(c.output[0], E.lit(1)), c),
    lambda c: L.Sort((E.SortOrder(c.output[0]),), c),
    lambda c: L.Limit(5, c),
    lambda c: L.Offset(5, c),
    lambda c: L.Distinct(c),
    lambda c: L.SubqueryAlias("q", c),
], ids=["project", "filter", "sort", "limit", "offset", "distinct", "alias"])
def test_unary_operator_over_empty_is_empty(make):
    p = make(empty(attr("a"), attr("b", T.STRING)))
    out = rule()(p)
    assert L.is_empty_relation(out) and same_schema(out, p)


def test_limit_zero_is_empty():
    p = L.Limit(0, scan(attr("a")))
    assert L.is_empty_relation(rule()(p))


def test_project_over_non_empty_is_unchanged():
    c = scan(attr("a"))
    p = L.Project((c.output[0],), c)
    assert rule()(p) is p


def test_empty_relation_not_built_for_unknown_type():
    a = attr("a", T.UNKNOWN)
    p = L.Project((E.Alias(E.Opaque(None, (), T.UNKNOWN), "o", E.new_id()),), empty(a))
    assert rule()(p) is p


def test_grouped_aggregate_over_empty_is_empty():
    r = run("SELECT num, count(*) AS c, num + 1 AS n1 FROM t WHERE false GROUP BY num", *EMPTY_RULES)
    assert L.is_empty_relation(r.optimized)
    assert same_schema(r.optimized, r.analyzed)


def test_global_aggregate_over_empty_is_not_emptied():  # SPARK-20686
    r = run("SELECT 1 FROM (SELECT count(*) FROM t WHERE false)", "PruneFilters", PROP)
    assert nodes(r.optimized, L.Aggregate)
    assert not L.is_empty_relation(r.optimized)


# ---------------------------------------------------------------------------
# Joins
# ---------------------------------------------------------------------------


def test_inner_join_with_empty_right_is_empty():
    r = run(f"SELECT * FROM t JOIN {U_EMPTY} v ON t.num = v.num", *EMPTY_RULES)
    assert L.is_empty_relation(r.optimized) and same_schema(r.optimized, r.analyzed)


def test_inner_join_on_false_is_empty():
    r = run("SELECT * FROM t JOIN u ON false", *EMPTY_RULES)
    assert L.is_empty_relation(r.optimized)


def test_left_join_with_empty_right_pads_nulls():
    r = run(f"SELECT * FROM t LEFT JOIN {U_EMPTY} v ON t.num = v.num", *EMPTY_RULES)
    assert not join_types(r.optimized)
    pad = r.optimized.child
    assert isinstance(pad, L.Project)
    assert same_schema(pad, r.analyzed.child)
    assert [text(p) for p in pad.projections[7:]] == ["null AS num", "null AS y", "null AS s", "null AS z"]
    assert [p.child.data_type for p in pad.projections[7:]] == [T.INT, T.LONG, T.STRING, T.DOUBLE]


def test_left_join_with_empty_left_is_empty():
    r = run(f"SELECT * FROM {T_EMPTY} a LEFT JOIN u ON a.num = u.num", *EMPTY_RULES)
    assert L.is_empty_relation(r.optimized)


def test_right_join_with_empty_left_pads_nulls_in_front():
    r = run(f"SELECT * FROM {T_EMPTY} a RIGHT JOIN u ON a.num = u.num", *EMPTY_RULES)
    pad = r.optimized.child
    assert isinstance(pad, L.Project) and not join_types(r.optimized)
    assert all(isinstance(p, E.Alias) and p.child.value is None for p in pad.projections[:7])
    assert same_schema(pad, r.analyzed.child)


def test_right_join_with_empty_right_is_empty():
    r = run(f"SELECT * FROM t RIGHT JOIN {U_EMPTY} v ON t.num = v.num", *EMPTY_RULES)
    assert L.is_empty_relation(r.optimized)


def test_full_join_with_one_empty_side_pads_the_other():
    r = run(f"SELECT * FROM t FULL JOIN {U_EMPTY} v ON t.num = v.num", *EMPTY_RULES)
    assert not join_types(r.optimized) and not reads_no_table(r.optimized)


def test_full_join_on_false_is_unchanged():
    r = run("SELECT * FROM t FULL JOIN u ON false", *EMPTY_RULES)
    assert join_types(r.optimized) == [L.FULL_OUTER]


def test_left_join_on_false_pads_right():
    r = run("SELECT * FROM t LEFT JOIN u ON false", *EMPTY_RULES)
    assert not join_types(r.optimized)


def test_semi_join_with_empty_right_is_empty_and_anti_is_left():
    semi = run(f"SELECT * FROM t LEFT SEMI JOIN {U_EMPTY} v ON t.num = v.num", *EMPTY_RULES)
    anti = run(f"SELECT * FROM t LEFT ANTI JOIN {U_EMPTY} v ON t.num = v.num", *EMPTY_RULES)
    assert L.is_empty_relation(semi.optimized)
    assert not join_types(anti.optimized) and not reads_no_table(anti.optimized)


def test_semi_join_without_condition_on_non_empty_values_is_left():
    left = scan(attr("a"))
    right = L.LocalRelation((attr("b"),), ((1,),))
    assert rule()(L.Join(left, right, L.LEFT_SEMI)) is left
    assert L.is_empty_relation(rule()(L.Join(left, right, L.LEFT_ANTI)))


def test_join_padding_not_built_for_unknown_type():
    left = scan(attr("a"))
    p = L.Join(left, empty(attr("o", T.UNKNOWN)), L.LEFT_OUTER, None)
    assert rule()(p) is p


def test_join_of_non_empty_sides_is_unchanged():
    p = L.Join(scan(attr("a")), scan(attr("b")), L.LEFT_OUTER, None)
    assert rule()(p) is p


# ---------------------------------------------------------------------------
# Set operations
# ---------------------------------------------------------------------------


def test_union_drops_empty_inputs():
    r = run(f"SELECT num FROM t UNION ALL SELECT num FROM {U_EMPTY} UNION ALL SELECT num FROM u", *EMPTY_RULES)
    assert len(nodes(r.optimized, L.Union)[0].inputs) == 2


def test_union_of_empty_inputs_is_empty():
    r = run(f"SELECT num FROM {T_EMPTY} UNION ALL SELECT num FROM {U_EMPTY}", *EMPTY_RULES)
    assert L.is_empty_relation(r.optimized)


def test_union_without_first_input_keeps_output_ids_and_names():
    r = run(f"SELECT num AS a FROM {T_EMPTY} UNION ALL SELECT num FROM u", *EMPTY_RULES)
    assert not nodes(r.optimized, L.Union)
    assert same_schema(r.optimized, r.analyzed)
    assert [a.name for a in r.optimized.output] == ["a"]


def test_union_distinct_with_empty_input_stays_distinct():
    r = run(f"SELECT num FROM t UNION SELECT num FROM {U_EMPTY}", *EMPTY_RULES)
    assert isinstance(r.optimized, L.Distinct) and not nodes(r.optimized, L.Union)


def test_union_dropping_inputs_may_narrow_nullability():
    a, b = attr("a", nullable=False), attr("b", nullable=True)
    p = L.Union((scan(a), empty(b)))
    out = rule()(p)
    assert out.output[0].expr_id == a.expr_id and not out.output[0].nullable


@pytest.mark.parametrize("op", ["INTERSECT", "INTERSECT ALL"])
def test_intersect_with_empty_side_is_empty(op):
    r1 = run(f"SELECT num FROM t {op} SELECT num FROM {U_EMPTY}", *EMPTY_RULES)
    r2 = run(f"SELECT num FROM {T_EMPTY} {op} SELECT num FROM u", *EMPTY_RULES)
    assert L.is_empty_relation(r1.optimized) and L.is_empty_relation(r2.optimized)


def test_except_with_empty_left_is_empty():
    r = run(f"SELECT num FROM {T_EMPTY} EXCEPT SELECT num FROM u", *EMPTY_RULES)
    assert L.is_empty_relation(r.optimized)


def test_except_distinct_with_empty_right_is_distinct_left():
    r = run(f"SELECT s FROM t EXCEPT SELECT s FROM {U_EMPTY}", *EMPTY_RULES)
    assert isinstance(r.optimized, L.Distinct) and not nodes(r.optimized, L.Except)


def test_except_all_with_empty_right_is_left():
    r = run(f"SELECT s FROM t EXCEPT ALL SELECT s FROM {U_EMPTY}", *EMPTY_RULES)
    assert not nodes(r.optimized, (L.Except, L.Distinct))


# ---------------------------------------------------------------------------
# Global aggregates
# ---------------------------------------------------------------------------


def test_global_aggregate_over_empty_is_one_row():
    r = run("SELECT count(*), count(x), sum(x), avg(num), max(s), count_if(p) FROM t WHERE false",
            *EMPTY_RULES)
    assert reads_no_table(r.optimized)
    proj = r.optimized
    assert isinstance(proj, L.Project) and isinstance(proj.child, L.OneRowRelation)
    assert [p.child.value for p in proj.projections] == [0, 0, None, None, None, 0]
    assert same_schema(proj, r.analyzed)


def test_global_aggregate_over_empty_keeps_expressions_around_aggregates():
    r = run("SELECT count(*) + 1 AS c, coalesce(max(x), 0.0) AS m FROM t WHERE false", *EMPTY_RULES)
    # (with the casts Spark's coercion puts there: count is a bigint, x a double)
    assert text(r.optimized) == "Project [(0 + cast(1 as bigint)) AS c, coalesce(null, cast(0.0 as double)) AS m]" \
                                "\n+- OneRowRelation"


def test_spark_20686_count_over_where_false_is_one_row():
    r = run("SELECT 1 FROM (SELECT count(*) FROM t WHERE false)", *EMPTY_RULES)
    assert reads_no_table(r.optimized) and not nodes(r.optimized, L.Aggregate)


def test_global_aggregate_with_unmodelled_aggregate_is_not_folded():
    r = run("SELECT kurtosis(x) FROM t WHERE false", *EMPTY_RULES)
    assert nodes(r.optimized, L.Aggregate)


def test_approx_count_distinct_of_no_row_is_zero():
    """(as count: checked on Spark in tests/test_view_rows.py)"""
    r = run("SELECT approx_count_distinct(x) AS n FROM t WHERE false", *EMPTY_RULES)
    assert not nodes(r.optimized, L.Aggregate) and r.sql == "SELECT 0L AS n"
    kept = run("SELECT approx_count_distinct(x, 0.1) AS n FROM t WHERE false", *EMPTY_RULES)
    assert nodes(kept.optimized, L.Aggregate)  # (its relative error stays as written)


def test_global_aggregate_with_collect_list_is_not_folded():
    r = run("SELECT collect_list(x) FROM t WHERE false", *EMPTY_RULES)
    assert nodes(r.optimized, L.Aggregate)


def test_grouped_aggregate_is_not_folded_to_one_row():
    r = run("SELECT num, count(*) FROM t WHERE false GROUP BY num", "PruneFilters", "FoldEmptyAggregate")
    assert not fired(r, "FoldEmptyAggregate")


def test_constant_global_aggregate_is_one_row_without_reading_the_table():
    r = run("SELECT 1 AS one FROM t HAVING true", "FoldConstantAggregate")
    assert reads_no_table(r.optimized)


def test_constant_global_aggregate_over_raising_input_is_kept():
    r = run("SELECT 1 AS one FROM t WHERE 10 / num > 1 HAVING true", "FoldConstantAggregate")
    assert not fired(r, "FoldConstantAggregate")


def test_constant_global_aggregate_over_unmodelled_expression_is_kept():
    r = run("SELECT 1 AS one FROM t WHERE some_udf(x) HAVING true", "FoldConstantAggregate")
    assert not fired(r, "FoldConstantAggregate")


def test_aggregate_with_aggregate_function_is_not_constant():
    r = run("SELECT count(x) FROM t", "FoldConstantAggregate")
    assert not fired(r, "FoldConstantAggregate")


# ---------------------------------------------------------------------------
# On Spark: every join type with an empty side, set operations, aggregates
# ---------------------------------------------------------------------------

JOINS = ["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "LEFT SEMI JOIN", "LEFT ANTI JOIN"]
SIDES = {
    "left_empty": (f"{T_EMPTY} a", "u b", "ON a.num = b.num"),
    "right_empty": ("t a", f"{U_EMPTY} b", "ON a.num = b.num"),
    "both_empty": (f"{T_EMPTY} a", f"{U_EMPTY} b", "ON a.num = b.num"),
    "on_false": ("t a", "u b", "ON false"),
}


@pytest.mark.parametrize("side", list(SIDES))
@pytest.mark.parametrize("join", JOINS)
def test_join_with_empty_side_agrees_with_spark(spark, tables, join, side):
    left, right, on = SIDES[side]
    r = run(f"SELECT * FROM {left} {join} {right} {on}", *EMPTY_RULES)
    if join == "FULL JOIN" and side == "on_false":
        assert join_types(r.optimized) == [L.FULL_OUTER]
    else:
        assert fired(r, PROP) and not join_types(r.optimized)
    spark_agrees(spark, r)


@pytest.mark.parametrize("side", ["left_empty", "right_empty"])
def test_cross_join_with_empty_side_agrees_with_spark(spark, tables, side):
    left, right, _ = SIDES[side]
    r = run(f"SELECT * FROM {left} CROSS JOIN {right}", *EMPTY_RULES)
    assert L.is_empty_relation(r.optimized)
    spark_agrees(spark, r)


SPARK_CASES = [
    f"SELECT num, x FROM {T_EMPTY} ORDER BY x LIMIT 3",
    "SELECT * FROM t LIMIT 0",
    f"SELECT DISTINCT s FROM {T_EMPTY}",
    f"SELECT num, count(*) AS c FROM {T_EMPTY} GROUP BY num",
    f"SELECT num FROM t UNION ALL SELECT num FROM {U_EMPTY} UNION ALL SELECT num FROM u",
    f"SELECT num AS a FROM {T_EMPTY} UNION ALL SELECT num FROM u",
    f"SELECT x FROM {T_EMPTY} UNION ALL SELECT z FROM u UNION ALL SELECT x FROM t",
    f"SELECT num FROM {T_EMPTY} UNION SELECT num FROM u",
    f"SELECT num FROM {T_EMPTY} UNION ALL SELECT num FROM {U_EMPTY}",
    f"SELECT s FROM t INTERSECT SELECT s FROM {U_EMPTY}",
    f"SELECT s FROM {T_EMPTY} INTERSECT ALL SELECT s FROM u",
    f"SELECT s FROM {T_EMPTY} EXCEPT SELECT s FROM u",
    f"SELECT s FROM t EXCEPT SELECT s FROM {U_EMPTY}",
    f"SELECT s FROM t EXCEPT ALL SELECT s FROM {U_EMPTY}",
    "SELECT count(*), count(x), sum(x), avg(num), max(s), min(d), count_if(p) FROM t WHERE false",
    "SELECT count(*) + 1 AS c, coalesce(max(x), 0.0) AS m, sum(b) IS NULL AS z FROM t WHERE false",
    "SELECT 1 FROM (SELECT count(*) FROM t WHERE false)",
    "SELECT count(DISTINCT x), stddev(x), bool_and(p), first(s) FROM t WHERE false",
    f"SELECT * FROM t WHERE num IN (SELECT count(*) FROM {U_EMPTY})",
]


@pytest.mark.parametrize("sql", SPARK_CASES)
def test_empty_relation_rules_agree_with_spark(spark, tables, sql):
    r = run(sql, *EMPTY_RULES)
    assert fired(r, PROP) or fired(r, "FoldEmptyAggregate")
    spark_agrees(spark, r)


def test_fold_to_a_raising_constant_is_not_kept(spark, tables):
    # 0 / 0 as a constant raises when Spark plans the query, whatever the rows; here the
    # original raises too (its one row divides by zero), but the engine does not tell
    # the two apart (optimizer/validate.py, spark_fold_errors): the fold is not kept
    r = run("SELECT count(*) / 0 FROM t WHERE false", *EMPTY_RULES)
    assert not fired(r, "FoldEmptyAggregate")
    assert any("FoldEmptyAggregate" in w for w in r.trace.warnings)
    spark_agrees(spark, r)


@pytest.mark.parametrize("sql", [
    "SELECT 1 AS one FROM t HAVING true",
    "SELECT 'a' AS k, 2.5 AS v FROM t WHERE x > 1 HAVING true",
])
def test_constant_aggregate_agrees_with_spark(spark, tables, sql):
    r = run(sql, "FoldConstantAggregate")
    assert fired(r, "FoldConstantAggregate") and reads_no_table(r.optimized)
    spark_agrees(spark, r)


@pytest.mark.parametrize("sql", [
    # OFFSET past the only row (eliminate_joins:25): empty, as Catalyst's EliminateOffsets
    "SELECT t.num FROM t CROSS JOIN (SELECT 1 AS b OFFSET 1) AS y",
    "SELECT count(*) FROM t OFFSET 1",
    "SELECT * FROM (SELECT num FROM t LIMIT 1) q OFFSET 2",
])
def test_an_offset_past_the_only_row_is_empty(spark, tables, sql):
    from sparkfold import optimize

    r = optimize(sql, tables)
    assert any(isinstance(n, L.LocalRelation) and not n.rows for n in r.optimized.walk()), r.explain()
    spark_agrees(spark, r)


@pytest.mark.parametrize("sql", [
    "SELECT 1 / 0 AS r OFFSET 1",  # the row is computed before it is skipped (may raise)
    "SELECT num FROM t LIMIT 1 OFFSET 1",  # the offset comes first: many rows
])
def test_an_offset_that_stays(spark, tables, sql):
    from sparkfold import optimize

    r = optimize(sql, tables)
    assert not any(isinstance(n, L.LocalRelation) and not n.rows for n in r.optimized.walk()), r.explain()
    spark_agrees(spark, r)
