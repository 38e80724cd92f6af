"""Name resolution in HAVING and ORDER BY follows Spark's order (checked on Spark 4.3).

A name that is both a select-list alias and a FROM column:
- ORDER BY: the alias;
- HAVING, outside aggregate functions: the FROM column when it is itself a grouping
  expression (`SELECT sum(a) AS b ... GROUP BY b HAVING b > 10` filters on t.b), else the
  alias (GROUP BY c, or GROUP BY b + 1);
- HAVING, inside an aggregate function's arguments: the FROM column (`max(b)` is t.b).

Each query runs as written and as optimized, with a foldable CAST added to the select
list so that a rule fires and the SQL is regenerated (the wrong result of the reach
issue showed only then)."""

from __future__ import annotations

import pytest
from sparkfold import optimize

from tests.data import local_copy
from tests.spark_check import assert_same_result

HV = {"hv": {"a": "int", "b": "int", "c": "int"}}

QUERIES = [
    "SELECT sum(a) AS b FROM hv GROUP BY b HAVING b > 10",
    "SELECT sum(a) AS b FROM hv GROUP BY c HAVING b > 10",
    "SELECT sum(a) AS b FROM hv GROUP BY b HAVING b > 10 ORDER BY b",
    "SELECT sum(a) AS b FROM hv GROUP BY b ORDER BY b",
    "SELECT c AS b, sum(a) FROM hv GROUP BY c HAVING b > 1",
    "SELECT sum(a) AS x FROM hv GROUP BY b HAVING x > 10",
    "SELECT sum(a) AS b FROM hv GROUP BY b HAVING max(b) > 10",
    "SELECT sum(a) AS b FROM hv GROUP BY c HAVING max(b) > 19",
    "SELECT sum(a) AS b FROM hv GROUP BY b, c HAVING b > 10",
    "SELECT sum(a) AS b FROM hv GROUP BY b + 1 HAVING b > 10",
    "SELECT sum(a) AS b FROM hv GROUP BY hv.b HAVING b > 10",
    "SELECT sum(a) AS b FROM hv AS x GROUP BY x.b HAVING b > 10",
    "SELECT sum(a) AS b FROM hv GROUP BY b HAVING hv.b > 10",
    "SELECT c AS a, sum(a) AS s FROM hv GROUP BY c HAVING a > 1",
    "SELECT c AS a, sum(a) AS s FROM hv GROUP BY c ORDER BY a",
    "SELECT sum(a) AS b, b FROM hv GROUP BY b HAVING b > 10",
    "SELECT sum(a) AS b FROM hv GROUP BY 1 + 0, b HAVING b > 10",
]


@pytest.fixture(scope="module")
def hv(spark):
    local_copy(spark.createDataFrame([(1, 20, 1), (30, 5, 1), (2, 20, 2), (4, 1, 2), (None, 20, None)],
                                     "a int, b int, c int")).createOrReplaceTempView("hv")
    return HV


@pytest.mark.parametrize("sql", QUERIES)
def test_having_and_order_by_resolve_names_as_spark_does(spark, hv, sql):
    fired = sql.replace("SELECT ", "SELECT CAST(1 AS INT) AS one, ", 1)
    result = optimize(fired, hv)
    assert result.changed and result.sql != fired
    assert_same_result(spark, fired, result.sql, ordered="ORDER BY" in sql)
    assert_same_result(spark, sql, optimize(sql, hv, always_regenerate=True).sql, ordered="ORDER BY" in sql)


# In a subquery, an earlier select item's alias comes before an outer query's column of
# the name (Spark: the FROM's columns, then lateral aliases, then outer references; found
# on Spark's column-resolution-aggregate.sql, where the written-whole query read `hv.a`)
LATERAL_BEFORE_OUTER = [
    "SELECT a FROM hv WHERE (21, 22) IN (SELECT max(b + 1) AS a, a + 1 FROM (SELECT b FROM hv) AS h)",
    "SELECT a FROM hv WHERE EXISTS (SELECT b AS a, a + 1 AS d FROM (SELECT b FROM hv) AS h WHERE a > 10)",
    "SELECT a, (SELECT max(b) AS a FROM hv) + a AS s FROM hv",
]


@pytest.mark.parametrize("sql", LATERAL_BEFORE_OUTER)
def test_a_select_alias_comes_before_an_outer_column(spark, hv, sql):
    assert_same_result(spark, sql, optimize(sql, hv, always_regenerate=True).sql)


# A table written alone is the current database's (`USE db`), and its columns are then
# qualified `spark_catalog.db.t`; a temporary view's only by its own name, a global one's
# by `global_temp.v`.  The session says which (`Catalog.from_spark`): sparkfold once
# took every table written alone to be in `default`, and so rejected `db.t.c` that Spark
# resolves, and let `default.v.c` through where Spark raises (Spark's columnresolution.sql).
QUALIFIED = [
    ("qual_db1", "SELECT qual_db1.t1.i1 FROM t1"),
    ("qual_db1", "SELECT spark_catalog.qual_db1.t1.i1 FROM t1"),
    ("qual_db1", "SELECT qual_db1.t1.i1 FROM t1, qual_db2.t1"),
    ("qual_db1", "SELECT qual_db1.t1.i1 FROM t1, qual_db1.t1"),  # ambiguous
    ("qual_db2", "SELECT qual_db1.t1.i1 FROM t1"),  # t1 is qual_db2's
    ("qual_db2", "SELECT qual_db1.t1.i1 FROM t1, qual_db1.t1"),
    ("qual_db1", "SELECT qual_db1.t1.* FROM t1"),
    ("qual_db1", "SELECT default.t1.i1 FROM t1"),
    ("qual_db1", "SELECT qv.a FROM qv"),
    ("qual_db1", "SELECT default.qv.a FROM qv"),
    ("qual_db1", "SELECT qual_db1.qv.a FROM qv"),
    ("qual_db1", "SELECT global_temp.qgv.a FROM global_temp.qgv"),
    ("qual_db1", "SELECT spark_catalog.global_temp.qgv.a FROM global_temp.qgv"),
]


@pytest.fixture(scope="module")
def databases(spark):
    for db, value in (("qual_db1", 1), ("qual_db2", 20)):
        spark.sql(f"CREATE DATABASE IF NOT EXISTS {db}")
        spark.sql(f"CREATE OR REPLACE TEMP VIEW qual_src AS SELECT {value} AS i1")
        spark.sql(f"CREATE TABLE IF NOT EXISTS {db}.t1 USING parquet AS SELECT * FROM qual_src")
    spark.sql("CREATE OR REPLACE TEMP VIEW qv AS SELECT 1 AS a")
    spark.sql("CREATE OR REPLACE GLOBAL TEMP VIEW qgv AS SELECT 2 AS a")
    yield
    spark.sql("USE default")
    for db in ("qual_db1", "qual_db2"):
        spark.sql(f"DROP DATABASE IF EXISTS {db} CASCADE")


@pytest.mark.parametrize("database, sql", QUALIFIED)
def test_a_table_written_alone_is_the_current_databases(spark, databases, database, sql):
    from sparkfold.optimizer.errors import SparkfoldError
    from sparkfold.plans.sql_in.catalog import Catalog

    from tests.spark_check import run_or_error

    spark.sql(f"USE {database}")
    try:
        catalog = Catalog.from_spark(spark)
        try:
            candidate = optimize(sql.replace("SELECT ", "SELECT CAST(1 AS INT) AS one, ", 1), catalog,
                                 always_regenerate=True).sql
        except SparkfoldError as e:
            assert run_or_error(spark, sql)[0] == "error", f"sparkfold rejects what Spark accepts: {e}"
            return
        assert_same_result(spark, sql.replace("SELECT ", "SELECT CAST(1 AS INT) AS one, ", 1), candidate)
    finally:
        spark.sql("USE default")


# Aggregates in ORDER BY after a HAVING: Spark resolves them when its Sort sits on the
# HAVING's Filter over the Aggregate, not when the HAVING adds an aggregate of its own
# (then projected away), nor over a window or DISTINCT (UNRESOLVED_COLUMN).  sparkfold
# passed every such query through (Spark's having.sql); now it models those Spark
# accepts and passes the others through.
HAVING_THEN_ORDER = [
    "SELECT c, sum(a) FROM hv GROUP BY c HAVING sum(a) > 1 + 1 ORDER BY sum(a)",
    "SELECT c, sum(a) FROM hv GROUP BY c HAVING sum(a) > 2 ORDER BY avg(b), c",
    "SELECT c, max(a) AS m FROM hv GROUP BY c HAVING max(a) > 0 ORDER BY min(b) DESC NULLS LAST",
    "SELECT c, sum(a) FROM hv GROUP BY c HAVING c > 0 ORDER BY min(b), c",
    "SELECT c, sum(a) FROM hv GROUP BY c HAVING sum(a) > 2 AND c > 0 ORDER BY min(b) + sum(a), c",
    "SELECT sum(a) FROM hv HAVING sum(a) > 0 ORDER BY count(b)",
    "SELECT c FROM hv GROUP BY c HAVING sum(a) > 2 ORDER BY max(b) DESC",
    "SELECT c, sum(a) + 1 AS s FROM hv GROUP BY c HAVING sum(a) > 0 ORDER BY min(b)",
    "SELECT c, sum(a), rank() OVER (ORDER BY c) FROM hv GROUP BY c HAVING sum(a) > 2 ORDER BY min(b)",
    "SELECT DISTINCT c FROM hv GROUP BY c HAVING sum(a) > 2 ORDER BY sum(a)",
]


@pytest.mark.parametrize("sql", HAVING_THEN_ORDER)
def test_aggregates_in_order_by_after_having_as_spark_resolves_them(spark, hv, sql):
    from tests.spark_check import run_or_error

    accepted = run_or_error(spark, sql)[0] != "error"
    result = optimize(sql, hv)
    if not accepted:
        assert result.passthrough, result.sql
        return
    assert result.passthrough is None, result.passthrough
    assert_same_result(spark, sql, result.sql, ordered=True)
    assert_same_result(spark, sql, optimize(sql, hv, always_regenerate=True).sql, ordered=True)


# An aggregate in the WHERE of a subquery in HAVING, over the enclosing query's columns
# only, is the enclosing query's (Spark's UpdateOuterReferences: computed in its Aggregate
# and read by the subquery as an outer reference).  sparkfold passed such queries through
# whole (Spark's exists-having.sql, aggregates_part1.sql); one that mixes the subquery's
# columns in is rejected by Spark (AGGREGATE_FUNCTION_MIXED_OUTER_LOCAL_REFERENCES) and
# still passes through.
OUTER_AGGREGATES = [
    "SELECT c, count(*) FROM hv GROUP BY c HAVING EXISTS (SELECT 1 FROM hv x WHERE x.b < min(hv.a)) AND 1 = 1",
    "SELECT c FROM hv GROUP BY c HAVING NOT EXISTS (SELECT 1 FROM hv x WHERE x.a > max(hv.b) OR x.b < min(hv.a)) "
    "AND 1 = 1",
    "SELECT c, sum(DISTINCT a) FROM hv h GROUP BY c HAVING EXISTS (SELECT 1 FROM hv x WHERE sum(DISTINCT h.a) = x.a) "
    "AND 1 = 1",
    # count(b) is count(1) once b is known not NULL: read by the subquery, it stays a column
    "SELECT c, count(b) FROM hv WHERE b IS NOT NULL GROUP BY c HAVING EXISTS (SELECT 1 FROM hv x WHERE x.a > count(hv.b))",
    "SELECT a FROM hv WHERE EXISTS (SELECT c, count(*) FROM hv y GROUP BY c HAVING EXISTS "
    "(SELECT 1 FROM hv x WHERE x.b < min(y.a))) AND 1 = 1",
    "SELECT c FROM hv GROUP BY c HAVING max(a) > (SELECT min(x.b) FROM hv x WHERE x.a <= avg(hv.a)) AND 1 = 1",
]


def _outer_aggregates_agree(spark, queries, modes):
    from sparkfold.plans.sql_in.catalog import Catalog

    from tests.spark_check import verify_batched

    old = spark.conf.get("spark.sql.ansi.enabled")
    try:
        for ansi in modes:
            catalog = Catalog.from_mapping(HV, ansi=ansi)
            results = [optimize(q, catalog, always_regenerate=whole) for q in queries for whole in (False, True)]
            for r in results:
                assert r.passthrough is None and r.sql != r.original_sql, (r.original_sql, r.passthrough)
            spark.conf.set("spark.sql.ansi.enabled", str(ansi).lower())
            bad = [f"{r.original_sql}\n  -> {r.optimized_sql}\n  {r.to_dict()['comparisons']}"
                   for r in verify_batched(results, spark) if not r.equal]
            assert not bad, "\n".join(bad)
    finally:
        spark.conf.set("spark.sql.ansi.enabled", old)


def test_an_aggregate_of_outer_columns_in_a_having_subquery_is_the_outer_querys(spark, hv):
    from tests.spark_check import run_or_error

    _outer_aggregates_agree(spark, [OUTER_AGGREGATES[0], OUTER_AGGREGATES[3]], (True,))
    mixed = "SELECT c FROM hv GROUP BY c HAVING EXISTS (SELECT 1 FROM hv x WHERE x.b < min(hv.a + x.a))"
    assert run_or_error(spark, mixed)[0] == "error"
    assert optimize(mixed, HV).passthrough


@pytest.mark.slow
def test_every_outer_aggregate_form_agrees_in_both_modes(spark, hv):
    _outer_aggregates_agree(spark, OUTER_AGGREGATES, (True, False))


# ORDER BY ALL / GROUP BY ALL come before an outer query's column named `all` (Spark's
# column-resolution-sort.sql and -aggregate.sql); a struct's field (a map's value) read
# without alias is named after it, and a later select item may read it by that name
# (Spark's alias-resolution-edge-cases.sql).  Both passed the whole query through.
ALL_AND_FIELD_NAMES = [
    "SELECT (SELECT s FROM u ORDER BY all LIMIT 1) AS f FROM (SELECT 1 AS all) WHERE 1 = 1",
    "SELECT * FROM (SELECT 1 AS all) WHERE EXISTS (SELECT num, s FROM u GROUP BY all) AND 1 = 1",
    "SELECT col1.field, field FROM VALUES (named_struct('field', 1)), (named_struct('field', NULL)) WHERE 1 = 1",
    "SELECT col1.field, field FROM VALUES (map('field', 1)) WHERE 1 = 1",
]


def test_all_before_an_outer_column_and_a_fields_name_read_later(spark, tables):
    from sparkfold.plans.sql_in.catalog import Catalog

    from tests.spark_check import verify_batched

    catalog = Catalog.from_spark(spark)
    results = [optimize(q, catalog, always_regenerate=whole) for q in ALL_AND_FIELD_NAMES for whole in (False, True)]
    for r in results:
        assert r.passthrough is None and r.sql != r.original_sql, (r.original_sql, r.passthrough)
    bad = [f"{r.original_sql}\n  -> {r.optimized_sql}\n  {r.to_dict()['comparisons']}"
           for r in verify_batched(results, spark) if not r.equal]
    assert not bad, "\n".join(bad)



# A subquery in HAVING or ORDER BY over an aggregate reads the Aggregate's output: an
# outer reference to a column of the aggregated rows that is neither grouped nor under an
# aggregate is not there (Spark 4.3: MISSING_ATTRIBUTES.RESOLVED_ATTRIBUTE_MISSING_FROM_INPUT
# in HAVING, UNRESOLVED_COLUMN in ORDER BY; found on Spark's invalid-correlation.sql, whose
# DataFrame program failed inside sparkfold).  In ORDER BY, Spark then takes no IN or
# EXISTS subquery, nor a correlated scalar one (plans/sql_in/subquery_places.py; every
# clause: tests/oracles/subquery_clauses.py).  The space: each clause, each subquery form,
# an outer reference to a grouped column, an ungrouped one, a column under a grouping
# expression only, and a select alias (passed through: sparkfold's subquery scopes do not
# hold it, Spark reads it); grouped and global aggregates, and no aggregate.
_SUBQUERIES = ["EXISTS (SELECT 1 FROM hv h2 WHERE h2.b = {r})", "max(a) IN (SELECT h2.a FROM hv h2 WHERE h2.b = {r})",
               "(SELECT max(h2.a) FROM hv h2 WHERE h2.b = {r}) > 0",
               "c IN (SELECT max(h2.c) FROM hv h2 GROUP BY h2.b HAVING h2.b > {r})"]
CORRELATED_AFTER_GROUP_BY = [
    f"SELECT {key}, max(a) AS m FROM hv GROUP BY {key} {clause} {sub.format(r=ref)}"
    for key, refs in (("c", ("hv.c", "hv.b", "m")), ("c + 1", ("hv.c",)))
    for ref in refs for sub in _SUBQUERIES for clause in ("HAVING", "ORDER BY")
] + [f"SELECT max(a) AS m FROM hv {clause} {sub.format(r=ref)}"
     for ref in ("hv.b", "m") for sub in _SUBQUERIES[:3] for clause in ("HAVING", "ORDER BY")
] + [f"SELECT c, a AS m FROM hv {clause} {sub.format(r=ref)}"  # (no aggregate: a select alias alike)
     for ref in ("m", "hv.b") for sub in (_SUBQUERIES[0], _SUBQUERIES[2]) for clause in ("WHERE", "ORDER BY")]


def _correlated_as_spark(spark, sql):
    from sparkfold.optimizer.errors import AnalysisError

    from tests.spark_check import run_or_error

    try:
        spark.sql(sql).schema
    except Exception:  # noqa: BLE001 - Spark's analysis rejects it: so must sparkfold, or pass it through
        try:
            result = optimize(sql, HV)
        except AnalysisError:
            return "rejected"
        assert result.passthrough, (sql, result.sql)
        return "passthrough"
    result = optimize(sql, HV)
    assert run_or_error(spark, sql)[0] != "error"
    if result.passthrough is None:
        assert_same_result(spark, sql, result.sql, ordered="ORDER BY" in sql)
        assert_same_result(spark, sql, optimize(sql, HV, always_regenerate=True).sql, ordered="ORDER BY" in sql)
    return "accepted"


def test_a_correlated_subquery_after_group_by_as_spark_resolves_it(spark, hv):
    outcomes = [_correlated_as_spark(spark, sql) for sql in CORRELATED_AFTER_GROUP_BY[1::7]]
    assert "rejected" in outcomes and "accepted" in outcomes, outcomes


@pytest.mark.slow
@pytest.mark.parametrize("sql", CORRELATED_AFTER_GROUP_BY)
def test_every_correlated_subquery_after_group_by_as_spark_resolves_it(spark, hv, sql):
    _correlated_as_spark(spark, sql)
