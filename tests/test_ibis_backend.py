"""ibis's PySpark backend, for real: ibis runs its own SQL through `spark.sql`, where the
hook sits.  Results are the same with and without sparkfold, the query ibis nests
(`left_join(...).filter(...)` puts the join in a derived table) is sent with its outer
join made inner, and each query ibis runs is optimized once."""

from __future__ import annotations

import pytest

ibis = pytest.importorskip("ibis")

from sparkfold.optimizer.hooks import install  # noqa: E402

pytestmark = pytest.mark.spark


@pytest.fixture
def views(spark):
    # DataFrames' views: a view made by SQL text has its definition read by sparkfold,
    # and the hook does not yet reuse a result over such a view (docs/hooks.md)
    spark.createDataFrame([(1, 10, 5), (2, 11, 7), (3, 99, 1), (4, None, 2)],
                          "id int, cust int, amount int").createOrReplaceTempView("ib_orders")
    spark.createDataFrame([(10, "a", 3), (11, "b", None), (12, "c", -1)],
                          "cid int, name string, score int").createOrReplaceTempView("ib_customers")
    yield
    spark.catalog.dropTempView("ib_orders")
    spark.catalog.dropTempView("ib_customers")


def _query(con):
    o, c = con.table("ib_orders"), con.table("ib_customers")
    return (o.left_join(c, o.cust == c.cid).filter(c.score > 0)
            .select("id", "name", "score").order_by("id"))


def _rows(df) -> list[tuple]:
    return [tuple(None if v != v else v for v in row) for row in df.itertuples(index=False)]


def test_ibis_pyspark_backend_through_the_hook(spark, views):
    plain = _rows(_query(ibis.pyspark.connect(spark)).to_pandas())
    seen = []
    hook = install(spark, on_query=seen.append)
    try:
        got = _rows(_query(ibis.pyspark.connect(spark)).to_pandas())
    finally:
        hook.uninstall()
    assert got == plain == [(1, "a", 3)]
    rewritten = [r for r in seen if r.rewritten]
    assert len(rewritten) == 1, [(r.sql, r.rules) for r in seen]
    assert "EliminateOuterJoin" in rewritten[0].rules
    assert "LEFT OUTER JOIN" in rewritten[0].sql.upper() and "LEFT" not in rewritten[0].sent.upper()
    # each query ibis ran went through sparkfold once
    assert len({r.sql for r in seen}) == len(seen)


def test_ibis_con_sql_is_optimized_once_per_text(spark, views, monkeypatch):
    """`con.sql(text)` sends the text to Spark, then ibis's own rendering of it (ibis 12:
    `... AS o ...`): each is optimized once, and a text sent again over the same schemas
    is not optimized a second time."""
    from sparkfold.optimizer import hooks

    calls = []
    real = hooks.rewrite
    monkeypatch.setattr(hooks, "rewrite", lambda sql, *a, **kw: calls.append(sql) or real(sql, *a, **kw))
    sql = "SELECT o.id, c.score FROM ib_orders o LEFT JOIN ib_customers c ON o.cust = c.cid WHERE c.score > 0"
    plain = _rows(ibis.pyspark.connect(spark).sql(sql).to_pandas())
    seen = []
    hook = install(spark, on_query=seen.append)
    try:
        got = _rows(ibis.pyspark.connect(spark).sql(sql).to_pandas())
        again = _rows(ibis.pyspark.connect(spark).sql(sql).to_pandas())
    finally:
        hook.uninstall()
    assert got == again == plain == [(1, 3)]
    assert seen and all(r.rewritten and "LEFT" not in r.sent.upper() for r in seen), [(r.sql, r.sent) for r in seen]
    assert sorted(calls) == sorted({r.sql for r in seen})  # each text optimized once
    assert len(seen) == 2 * len(calls)  # the second run sent the same texts again


def test_a_text_sent_again_after_its_table_changed_is_optimized_again(spark, views):
    """Reuse is only for the same schemas: a view replaced with a nullable column in
    between is read afresh, and the count is not rewritten any more."""
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW ib_nn AS SELECT id FROM range(3)")  # id NOT NULL
    sql = "SELECT count(id) AS n FROM ib_nn"
    hook = install(spark)
    try:
        first = spark.sql(sql).collect()
        sent_first = hook.last_sql
        spark.sql("CREATE OR REPLACE TEMPORARY VIEW ib_nn AS SELECT CAST(NULL AS BIGINT) AS id FROM range(3)")
        second = spark.sql(sql).collect()
        sent_second = hook.last_sql
    finally:
        hook.uninstall()
        spark.catalog.dropTempView("ib_nn")
    assert "count(1)" in sent_first and sent_second == sql
    assert [tuple(r) for r in first] == [(3,)] and [tuple(r) for r in second] == [(0,)]
