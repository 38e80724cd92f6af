"""ConstantPropagation: `k = 1 AND k = 2` in a WHERE is an empty relation.

Catalyst folds contradictory equalities; so does sparkfold now, also after a LEFT JOIN
and through a derived table whose filter PushDownPredicates combines with the outer one.
Guards: floating point (0.0 = -0.0, yet 1 / x tells them apart), a conjunct that may
raise (on a row where `k = 0` is NULL, `10 / k` is NULL but `10 / 0` raises), and the
same conjunction as a value (NULL there, not FALSE).  Every query runs on Spark as
written and as optimized, on data with the values that would tell."""

from __future__ import annotations

import pytest
from sparkfold import optimize
from sparkfold.plans.ir import logical as L

from tests.data import local_copy

SCHEMA = {"cp": {"k": "int", "v": "int", "x": "double"}, "cq": {"k": "int"}}


@pytest.fixture(scope="module")
def tables(spark):
    local_copy(spark.createDataFrame([(1, 1, 0.0), (2, None, -0.0), (None, 3, 1.0), (0, 0, None)],
                                     "k int, v int, x double")).createOrReplaceTempView("cp")
    local_copy(spark.createDataFrame([(1,), (2,), (None,)], "k int")).createOrReplaceTempView("cq")
    return SCHEMA


def _agrees(spark, r):
    report = r.verify(spark)
    assert report.equal, report.to_text()


@pytest.mark.parametrize("sql", [
    "SELECT * FROM cp WHERE k = 1 AND k = 2",
    "SELECT * FROM cq LEFT JOIN cp ON cq.k = cp.k WHERE cp.k = 1 AND cp.k = 2",
    "SELECT * FROM (SELECT k, v FROM cp WHERE k = 1) s WHERE s.k = 2",
    "SELECT v FROM cp WHERE k = 1 AND v = 2 AND v <= k",
])
def test_contradictory_equalities_make_an_empty_relation(spark, tables, sql):
    r = optimize(sql, tables)
    assert any(isinstance(n, L.LocalRelation) and not n.rows for n in r.optimized.walk()), r.explain()
    assert not any(isinstance(n, L.Relation) for n in r.optimized.walk())
    _agrees(spark, r)


@pytest.mark.parametrize("sql", [
    "SELECT k, x FROM cp WHERE x = 0.0D AND 1 / x > 0",          # -0.0 = 0.0, 1 / -0.0 < 0
    "SELECT k FROM cp WHERE k = 0 AND 10 / k > 1",               # 10 / 0 would raise on k NULL
    "SELECT k, v FROM cp WHERE v = 1 AND 10 DIV v >= 10",
])
def test_no_propagation_that_could_change_rows_or_errors(spark, tables, sql):
    r = optimize(sql, tables, always_regenerate=True)
    assert not any(s.rule == "ConstantPropagation" for s in r.trace.rewrites)
    _agrees(spark, r)


def test_the_conjunction_as_a_value_is_left_alone(spark, tables):
    sql = "SELECT k, (k = 1 AND k = 2) AS both FROM cp"
    r = optimize(sql, tables, always_regenerate=True)
    assert not any(s.rule == "ConstantPropagation" for s in r.trace.rewrites)
    _agrees(spark, r)


def test_a_propagation_alone_keeps_the_text(tables):
    sql = "SELECT * FROM cp WHERE k = 1 AND v > k"
    r = optimize(sql, tables)
    assert [s.rule for s in r.trace.rewrites if s.rule != "UpdateAttributeNullability"] == ["ConstantPropagation"]
    assert r.sql == sql


@pytest.mark.parametrize("sql", [
    # the WHERE contradicts what the input already guarantees: k = 2 holds on every row
    # of the join (its side was filtered so), so k = 1 is false (merge_subqueries:38)
    "SELECT cp.k, cq.k FROM cp JOIN cq ON cp.k = cq.k AND cq.k = 2 WHERE cp.k = 1",
    "SELECT * FROM (SELECT k, v FROM cp WHERE k = 2) s JOIN cq ON s.v = cq.k WHERE s.k = 1",
])
def test_the_inputs_constraints_contradict_the_condition(spark, tables, sql):
    r = optimize(sql, tables)
    assert any(isinstance(n, L.LocalRelation) and not n.rows for n in r.optimized.walk()), r.explain()
    _agrees(spark, r)


@pytest.mark.parametrize("sql", [
    # a double the input fixes to 0.0 may be -0.0: not a constant to propagate
    "SELECT * FROM (SELECT * FROM cp WHERE x = 0.0) s JOIN cq ON s.k = cq.k WHERE 1 / s.x > 0",
    # the input's constraint is on the padded side of an outer join: it holds only where
    # the row matched
    "SELECT * FROM cq LEFT JOIN (SELECT * FROM cp WHERE k = 2) s ON s.v = cq.k WHERE coalesce(s.k, 1) = 1",
])
def test_the_inputs_constraints_only_where_they_hold(spark, tables, sql):
    _agrees(spark, optimize(sql, tables))
