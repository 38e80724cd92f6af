"""UpdateAttributeNullability: narrowing above filters and inner joins, never above
the padded side of an outer join."""

from __future__ import annotations

import pytest
from sparkfold.optimizer.batches import RULES
from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import logical as L
from sparkfold.plans.ir import types as T
from sparkfold.plans.ir.printer import expr_str

from tests.rule_helpers import attribute, fired, nodes, run, spark_agrees

UAN = "UpdateAttributeNullability"
KEEP = "KeepOutputNullability"  # the optimizer's last step: the output typed as the original's


def out_nullable(sql: str, *extra) -> list[bool]:
    r = run(sql, UAN, *extra)
    return [a.nullable for a in r.optimized.output]


@pytest.mark.parametrize("sql", [
    "SELECT x FROM t WHERE x IS NOT NULL",
    "SELECT x FROM t WHERE x > 1",
    "SELECT x FROM t WHERE x + 1 = 2 AND s = 'a'",
    "SELECT x FROM t WHERE NOT (x < 0)",
    "SELECT x FROM t WHERE x IN (1.0, 2.0)",
    "SELECT u.num FROM t JOIN u ON t.num = u.num",
    "SELECT u.z FROM t JOIN u ON t.x = u.z",
    "SELECT x FROM (SELECT * FROM t WHERE x > 1 ORDER BY num LIMIT 5)",
    "SELECT x FROM t WHERE x > 1 GROUP BY x",
])
def test_reference_becomes_non_nullable_when_proven(sql):
    assert out_nullable(sql) == [False]


@pytest.mark.parametrize("sql", [
    "SELECT x FROM t WHERE x IS NULL OR x > 1",
    "SELECT x FROM t WHERE coalesce(x, 0) > 1",
    "SELECT x FROM t WHERE x <=> 1.0",
    "SELECT x FROM t WHERE NOT (x IS NULL) = true",
    "SELECT u.y FROM t LEFT JOIN u ON t.num = u.num",
    "SELECT t.num FROM t RIGHT JOIN u ON t.num = u.num",
    "SELECT u.y FROM t FULL JOIN u ON t.num = u.num WHERE t.num > 1",
    "SELECT u.num FROM t LEFT JOIN u ON t.num = u.num AND u.num > 1",
    "SELECT num FROM u UNION ALL SELECT num FROM t",
    "SELECT max(x) AS m FROM t WHERE x > 1",
])
def test_reference_stays_nullable_when_not_proven(sql):
    assert out_nullable(sql)[0] is True


def test_filter_condition_itself_is_not_narrowed():
    r = run("SELECT x FROM t WHERE x IS NOT NULL AND x > 1", UAN)
    assert all(a.nullable for a in attribute(r.optimized, "x", where=L.Filter))


def test_count_after_is_not_null_filter_has_non_nullable_argument():
    r = run("SELECT count(x) FROM t WHERE x IS NOT NULL", UAN)
    agg = nodes(r.optimized, L.Aggregate)[0]
    assert not agg.aggregates[0].child.args[0].nullable


def test_outer_join_turned_inner_narrows_the_padded_side():
    sql = "SELECT u.y FROM t LEFT JOIN u ON t.num = u.num WHERE u.num > 1"
    r = run(sql, UAN, "EliminateOuterJoin", exclude=(KEEP,))
    assert fired(r, "EliminateOuterJoin") and not r.optimized.output[0].nullable
    # (the optimizer's output keeps the original's nullable column: Spark types it so)
    assert run(sql, UAN, "EliminateOuterJoin").optimized.output[0].nullable


def test_removed_empty_union_input_narrows_union_output():
    r = run("SELECT num FROM (SELECT num FROM t UNION ALL SELECT num FROM u WHERE false)",
            UAN, "PruneFilters", "PropagateEmptyRelation", exclude=(KEEP,))
    assert not r.optimized.output[0].nullable


def test_stale_non_null_reference_is_widened():
    a = E.Attribute("a", T.INT, True, 5001)
    scan = L.Relation("r", (a,))
    p = L.Project((a.with_nullability(False),), scan)
    out = RULES[UAN](p)
    assert out.output[0].nullable


def test_unchanged_plan_is_the_same_object():
    r = run("SELECT num, x FROM t")
    assert RULES[UAN](r.analyzed) is r.analyzed


def test_outer_reference_in_subquery_is_left_alone():
    r = run("SELECT * FROM t WHERE x IS NOT NULL AND EXISTS (SELECT 1 FROM u WHERE u.z = t.x)", UAN)
    inner = [f for f in nodes(r.optimized, L.Filter) if "z" in expr_str(f.condition)][0]
    outer_x = [a for a in E.split_conjuncts(inner.condition)[0].walk() if isinstance(a, E.Attribute)
               and a.name == "x"]
    assert outer_x and outer_x[0].nullable


SPARK_CASES = [
    "SELECT x FROM t WHERE x IS NOT NULL",
    "SELECT count(x), sum(x) FROM t WHERE x IS NOT NULL",
    "SELECT u.num, count(u.num) FROM t JOIN u ON t.num = u.num GROUP BY u.num",
    "SELECT u.y, count(u.y) FROM t LEFT JOIN u ON t.num = u.num GROUP BY u.y",
    "SELECT s, count(s) FROM t WHERE s > 'a' GROUP BY s",
]


@pytest.mark.parametrize("sql", SPARK_CASES)
def test_nullability_narrowing_agrees_with_spark(spark, tables, sql):
    r = run(sql)  # every registered rule: narrowing feeds NullPropagation when it exists
    spark_agrees(spark, r)
