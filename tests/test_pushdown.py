"""Filters reach joins through subqueries (PushDownPredicates).

Query builders nest: ibis compiles `left_join(...).filter(u.y > 0)` to a derived table
with the WHERE outside it.  The filter is moved down through aliases, projections,
grouping and unions to the join, where EliminateOuterJoin reads it, so the nested
and the flat form of a query reach the same joins and filters.  Every query runs on
Spark as written and as optimized (SQL and DataFrame, through `verify`); the guards
show the moves that are not made, and Spark agreeing on data that would tell."""

from __future__ import annotations

import pytest
from sparkfold import optimize
from sparkfold.plans.ir import logical as L

from tests.data import local_copy

SCHEMA = {
    "orders": {"id": "int", "cust": "int", "amount": "int", "price": "double"},
    "customers": {"cid": "int", "name": "string", "score": "int"},
}


@pytest.fixture(scope="module")
def tables(spark):
    local_copy(spark.createDataFrame(
        [(1, 10, 5, 0.0), (2, 10, None, -0.0), (3, 20, 7, 1.5), (4, None, 1, None), (5, 30, 0, -0.0),
         (6, 40, 3, 0.0)],
        "id int, cust int, amount int, price double")).createOrReplaceTempView("orders")
    local_copy(spark.createDataFrame(
        [(10, "a", 1), (20, None, -2), (30, "c", None), (50, "e", 4)],
        "cid int, name string, score int")).createOrReplaceTempView("customers")
    return SCHEMA


def _shape(plan: L.Plan) -> list:
    """The operators other than projections and aliases, top down, with join types and
    filter conditions: what the nested and the flat form must share."""
    out = []
    for n in plan.walk():
        if isinstance(n, L.Join):
            out.append(("join", n.join_type))
        elif isinstance(n, L.Filter):
            out.append(("filter", str(n.condition).split("#")[0]))
        elif not isinstance(n, (L.Project, L.SubqueryAlias)):
            out.append(type(n).__name__)
    return out


def _joins(result) -> list[str]:
    return [n.join_type for n in result.optimized.walk() if isinstance(n, L.Join)]


def _agrees(spark, result):
    report = result.verify(spark)
    assert report.equal, report.to_text()


NESTED_AND_FLAT = [
    (  # ibis: left_join(...).filter(u.score > 0)
        "SELECT t4.id, t4.score FROM (SELECT t0.id, t1.score FROM orders AS t0 "
        "LEFT OUTER JOIN customers AS t1 ON t0.cust = t1.cid) AS t4 WHERE t4.score > 0",
        "SELECT t0.id, t1.score FROM orders AS t0 LEFT OUTER JOIN customers AS t1 "
        "ON t0.cust = t1.cid WHERE t1.score > 0",
    ),
    (  # two levels of derived tables, the filter on the outer one
        "SELECT * FROM (SELECT * FROM (SELECT o.id, c.name FROM customers c "
        "RIGHT JOIN orders o ON o.cust = c.cid) a) b WHERE b.name IS NOT NULL",
        "SELECT o.id, c.name FROM customers c RIGHT JOIN orders o ON o.cust = c.cid "
        "WHERE c.name IS NOT NULL",
    ),
]


@pytest.mark.parametrize("nested,flat", NESTED_AND_FLAT)
def test_nested_filter_makes_the_outer_join_inner_like_the_flat_form(spark, tables, nested, flat):
    n, f = optimize(nested, tables), optimize(flat, tables)
    assert _joins(n) == _joins(f) == ["inner"]
    assert _shape(n.optimized) == _shape(f.optimized)
    _agrees(spark, n)


def _below_the_aggregate(plan: L.Plan) -> bool:
    """s.score > 0 went below the grouping; s.n > 0 (an aggregate) stays above it."""
    agg = next(n for n in plan.walk() if isinstance(n, L.Aggregate))
    return isinstance(agg.child, L.Filter)


def _into_each_union_input(plan: L.Plan) -> bool:
    union = next(n for n in plan.walk() if isinstance(n, L.Union))
    return all(any(isinstance(m, L.Filter) for m in i.walk()) for i in union.inputs)


@pytest.mark.parametrize("sql,placed", [
    ("SELECT * FROM (SELECT c.score, count(*) AS n FROM orders o LEFT JOIN customers c "
     "ON o.cust = c.cid GROUP BY c.score) s WHERE s.score > 0 AND s.n > 0", _below_the_aggregate),
    ("SELECT * FROM (SELECT c.score AS v FROM orders o LEFT JOIN customers c ON o.cust = c.cid "
     "UNION ALL SELECT amount FROM orders) u WHERE u.v > 2", _into_each_union_input),
])
def test_filter_reaches_the_join_through_grouping_and_unions(spark, tables, sql, placed):
    r = optimize(sql, tables)
    assert _joins(r) == ["inner"]
    assert placed(r.optimized)
    _agrees(spark, r)


def test_a_move_alone_keeps_the_text(tables):
    """Moving a filter is no rewrite a user needs to review: the query stays as written."""
    sql = "SELECT * FROM (SELECT id, amount + 1 AS a FROM orders) s WHERE s.a > 3"
    r = optimize(sql, tables)
    assert [s.rule for s in r.trace.rewrites if s.rule != "UpdateAttributeNullability"] == ["PushDownPredicates"]
    assert r.sql == sql


GUARDS = [
    # 0.0 and -0.0 are one group whose key is 0.0: the conjunct holds for the key, not each row
    ("SELECT * FROM (SELECT price, count(*) AS n FROM orders GROUP BY price) s "
     "WHERE CAST(s.price AS STRING) = '0.0'", L.Aggregate),
    ("SELECT * FROM (SELECT DISTINCT price FROM orders) s WHERE CAST(s.price AS STRING) = '-0.0'",
     L.Distinct),
    ("SELECT * FROM (SELECT price FROM orders UNION SELECT -0.0D) s "
     "WHERE CAST(s.price AS STRING) = '-0.0'", L.Union),
    # a conjunct that may raise (division by zero) is not moved apart from its neighbours
    ("SELECT * FROM (SELECT cust, count(*) AS n FROM orders GROUP BY cust) s "
     "WHERE s.cust > 10 AND 100 / s.n > 1", L.Aggregate),
]


@pytest.mark.parametrize("sql,kept_under", GUARDS)
def test_no_move_that_could_change_rows_or_errors(spark, tables, sql, kept_under):
    r = optimize(sql, tables, always_regenerate=True)
    filters_above = [n for n in r.optimized.walk() if isinstance(n, L.Filter)
                     and any(isinstance(m, kept_under) for m in n.child.walk())]
    assert filters_above, r.explain()
    _agrees(spark, r)


def test_ibis_left_join_then_filter_is_made_inner(spark, tables):
    """Real ibis (compile level): `left_join(...).filter(...)` nests the join in a derived
    table; through sparkfold its outer join becomes inner, like the flat query's."""
    import ibis

    # (no float column: ibis's Spark compiler reads a backend option for those)
    orders = ibis.table({"id": "int32", "cust": "int32", "amount": "int32"}, name="orders")
    customers = ibis.table({"cid": "int32", "name": "string", "score": "int32"}, name="customers")
    expr = (orders.left_join(customers, orders.cust == customers.cid)
            .filter(lambda t: t.score > 0).select("id", "score"))
    sql = ibis.to_sql(expr, dialect="pyspark")
    assert "LEFT OUTER JOIN" in sql and "WHERE" in sql.split(")")[-1]  # the nested shape
    r = optimize(sql, tables)
    assert _joins(r) == ["inner"] and "LEFT" not in r.sql
    flat = optimize("SELECT o.id, c.score FROM orders o LEFT JOIN customers c ON o.cust = c.cid "
                    "WHERE c.score > 0", tables)
    assert _shape(r.optimized) == _shape(flat.optimized)
    _agrees(spark, r)
