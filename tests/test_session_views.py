"""The definitions of the session's views, as sparkfold reads them (issue 36, item 2).

A view whose definition is provably empty folds the queries around it, as Catalyst,
which reads the definition, folds them; the text sent to Spark never holds the view's
text.  A view created under other settings, in another database, without SQL text
(a DataFrame's), or whose empty definition holds a constant that may raise, stays a
table.  Every query is checked against Spark (rows, names, types, nullability)."""

from __future__ import annotations

import pytest
from sparkfold import optimize
from sparkfold.optimizer.hooks import install
from sparkfold.plans.sql_in.catalog import Catalog

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def session(spark):
    s = spark.newSession()  # its own temporary views and settings
    for sql in [
        "CREATE OR REPLACE TEMPORARY VIEW sv_t AS SELECT * FROM VALUES (1, 'x'), (2, NULL) AS t(a, s)",
        "CREATE OR REPLACE TEMPORARY VIEW sv_empty AS SELECT a FROM sv_t WHERE false",
        "CREATE OR REPLACE TEMPORARY VIEW sv_filtered AS SELECT a, s FROM sv_t WHERE a > 5 AND a IS NULL",
        "CREATE OR REPLACE TEMPORARY VIEW sv_over (b) AS SELECT a + 1 FROM sv_empty",
        "CREATE OR REPLACE TEMPORARY VIEW sv_raises AS SELECT 1 / 0 AS c FROM sv_t WHERE false",
        "SET spark.sql.ansi.enabled = false",
        "CREATE OR REPLACE TEMPORARY VIEW sv_other_setting AS SELECT a FROM sv_t WHERE false",
        "SET spark.sql.ansi.enabled = true",
        "CREATE DATABASE IF NOT EXISTS sv_db",
        "CREATE OR REPLACE TEMPORARY VIEW sv_base AS SELECT 1 AS a",
        "USE sv_db",
        "CREATE OR REPLACE TEMPORARY VIEW sv_other_db AS SELECT a FROM sv_base WHERE false",
        "USE default",
    ]:
        s.sql(sql)
    s.range(2).createOrReplaceTempView("sv_frame")
    yield s
    s.sql("DROP DATABASE IF EXISTS sv_db CASCADE")


def _fields(df):
    return [(f.name, f.dataType, f.nullable) for f in df.schema.fields]


def _checked(session, sql, dataframe=False):
    """The optimized query's rows and schema are Spark's for the query as written (the
    DataFrame program's too, with `dataframe`)."""
    result = optimize(sql, Catalog.from_spark(session))
    assert result.passthrough is None, result.passthrough
    if dataframe:
        report = result.verify(session)
        assert report.equal, report.to_text()
    original, optimized = session.sql(sql), session.sql(result.sql)
    assert _fields(optimized) == _fields(original)  # nullability included
    assert sorted(map(repr, optimized.collect())) == sorted(map(repr, original.collect()))
    return result


@pytest.mark.parametrize("sql", [
    "SELECT * FROM sv_t INNER JOIN sv_empty",
    "SELECT * FROM sv_t CROSS JOIN sv_filtered",
    "SELECT * FROM sv_empty RIGHT JOIN sv_t ON sv_empty.a = sv_t.a WHERE sv_empty.a > 0",
    "SELECT s, count(*) FROM sv_filtered GROUP BY s",
    "SELECT * FROM sv_over",                                # a view over an empty view
    "SELECT a FROM sv_t WHERE a IN (SELECT a FROM sv_empty)",
])
def test_a_query_over_an_empty_view_folds_to_the_empty_relation(session, sql):
    result = _checked(session, sql, dataframe="JOIN" in sql)
    assert result.optimized is not None and result.sql.rstrip().upper().endswith("WHERE FALSE"), result.sql
    assert "sv_t WHERE" not in result.sql  # no view's text in the output


@pytest.mark.parametrize("sql, kept", [
    ("SELECT * FROM sv_t LEFT JOIN sv_empty ON sv_t.a = sv_empty.a", "FROM sv_t"),
    ("SELECT a FROM sv_t UNION ALL SELECT a FROM sv_filtered", "FROM sv_t"),
    ("SELECT count(*) AS n FROM sv_empty", None),
])
def test_the_rest_of_the_query_still_reads_its_views_by_name(session, sql, kept):
    result = _checked(session, sql)
    assert result.sql != sql and "false" not in result.sql.lower().split("from")[0]
    assert kept is None or kept in result.sql
    assert "VALUES" not in result.sql.upper()  # sv_t's definition is never inlined


@pytest.mark.parametrize("view, why", [
    ("sv_other_setting", "other settings (spark.sql.ansi.enabled=false)"),
    ("sv_other_db", "created in spark_catalog.sv_db"),
    ("sv_frame", "no SQL text"),
])
def test_a_view_sparkfold_may_not_read_as_spark_does_stays_a_table(session, view, why):
    assert why in Catalog.from_spark(session).lookup(view).view.why_opaque
    result = _checked(session, f"SELECT * FROM sv_t INNER JOIN {view}")
    assert result.sql == f"SELECT * FROM sv_t INNER JOIN {view}"


def test_an_empty_definition_holding_a_constant_that_may_raise_is_not_empty(session):
    sql = "SELECT * FROM sv_t INNER JOIN sv_raises"
    assert optimize(sql, Catalog.from_spark(session)).sql == sql  # Spark raises on it


def test_not_null_columns_of_a_view_as_the_session_types_them(session):
    result = _checked(session, "SELECT a FROM sv_t WHERE a IS NULL")  # VALUES without NULL: NOT NULL
    assert result.sql.rstrip().upper().endswith("WHERE FALSE")


def test_the_hook_sees_a_view_replaced_under_a_view(session):
    hook = install(session, report=False)
    try:
        session.sql("CREATE OR REPLACE TEMPORARY VIEW sv_inner AS SELECT a FROM sv_t WHERE false")
        # (a view's query is not folded by another view's definition: Spark reads that
        # one when the view is read)
        session.sql("CREATE OR REPLACE TEMPORARY VIEW sv_outer AS SELECT a FROM sv_inner")
        assert hook.last_sql == "CREATE OR REPLACE TEMPORARY VIEW sv_outer AS SELECT a FROM sv_inner"
        query = "SELECT a FROM sv_t WHERE a IN (SELECT a FROM sv_outer)"
        assert session.sql(query).collect() == [] and "sv_outer" not in hook.last_sql
        session.sql("CREATE OR REPLACE TEMPORARY VIEW sv_inner AS SELECT a FROM sv_t")
        assert sorted(r.a for r in session.sql(query).collect()) == [1, 2]
        assert hook.last_sql == query
    finally:
        hook.uninstall()
