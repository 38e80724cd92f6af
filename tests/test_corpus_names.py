"""Names, struct fields and correlated references the corpus (tests/corpus) found wrong
on the DataFrame path, and with them on the SQL path once a rule fires: each checked on
Spark, both paths, with a rule made to fire (`WHERE 1 = 1`, `OR x = NULL`...)."""

from __future__ import annotations

import pytest
from sparkfold import optimize
from sparkfold.optimizer.compare import compare_rows
from sparkfold.plans.pyspark.to_pyspark import run_code, to_pyspark_code

from tests.spark_check import assert_same_result, is_ordered, run, schema_of


def _both_paths(spark, tables, sql):
    """The optimized SQL and the DataFrame program return Spark's names, types and rows."""
    result = optimize(sql, tables)
    assert result.passthrough is None, result.passthrough
    assert result.trace, "no rule fired: the test would not see the writer"
    assert_same_result(spark, sql, result.sql, ordered=is_ordered(result.analyzed), context=sql)
    code = to_pyspark_code(result)
    df = run_code(code, spark)
    schema, rows = run(spark, sql)
    assert schema_of(df) == schema, f"{sql}\n{code}"
    diff = compare_rows(rows, [tuple(r) for r in df.collect()], ordered=is_ordered(result.analyzed))
    assert diff.equal, f"{sql}\n{diff.only_left} vs {diff.only_right}\n{code}"
    return result, code


@pytest.mark.parametrize("sql", [
    # Spark names a column as the reference is written, not as the catalog spells it
    "SELECT T.NUM, upper(t.S), Num + 1 FROM t WHERE 1 = 1",
    "SELECT * FROM (SELECT T.NUM, t.S AS s2 FROM t) q WHERE q.num > 1 OR NULL = 1",
    "SELECT U.Y, count(*) FROM u WHERE 1 = 1 GROUP BY u.y ORDER BY 1",
])
def test_column_names_as_written(spark, tables, sql):
    _both_paths(spark, tables, sql)


@pytest.mark.parametrize("sql", [
    # struct(c) names its field after the column as written (qualify_columns:210)
    "WITH t1 AS (SELECT 1 AS id), t2 AS (SELECT 2 AS id) SELECT STRUCT(id) AS f FROM t1 JOIN t2 USING (id)",
    "SELECT struct(T.NUM, s AS label, num + 1) AS f FROM t WHERE 1 = 1",
    "SELECT struct(t.num, u.num) AS f FROM t JOIN u ON t.num = u.num WHERE 1 = 1",
])
def test_struct_fields_keep_their_names(spark, tables, sql):
    _both_paths(spark, tables, sql)


@pytest.mark.parametrize("sql", [
    # Spark lists a subquery's outer references in its name: exists(num), listquery(num)
    "SELECT EXISTS(SELECT 1 FROM u WHERE u.num = t.num AND u.z > t.x) FROM t WHERE 1 = 1",
    "SELECT t.num IN (SELECT num FROM u WHERE u.s = t.s) FROM t WHERE 1 = 1",
    "SELECT (num, s) IN (SELECT num, s FROM u WHERE u.y > t.num) FROM t WHERE 1 = 1",
    "SELECT (num + 1, T.S) IN (SELECT num, s FROM u) FROM t WHERE 1 = 1",
    # in a window's argument (unnest_subqueries:29)
    "SELECT count(CASE WHEN EXISTS(SELECT count(*) FROM u WHERE u.num = t.num) THEN 1 END) OVER () "
    "FROM t WHERE 1 = 1",
])
def test_subquery_names_list_outer_references(spark, tables, sql):
    _both_paths(spark, tables, sql)


@pytest.mark.parametrize("sql", [
    # a subquery with no FROM that selects an outer column (qualify_columns:116/117): the
    # column comes from the outer query, and it failed to lower
    "WITH q(c) AS (SELECT 1) SELECT (SELECT c) FROM q WHERE 1 = 1",
    "WITH q1(c1) AS (SELECT 1), q2(c2) AS (SELECT 2) SELECT (SELECT c1 FROM q2) FROM q1 WHERE 1 = 1",
    "SELECT num, (SELECT t.s) FROM t WHERE 1 = 1",
])
def test_a_subquery_selecting_an_outer_column(spark, tables, sql):
    result, _ = _both_paths(spark, tables, sql)
    assert "scalarsubquery(" in result.optimized.output[-1].name


def test_the_verifier_hashes_rows_alike_whatever_the_nullability(spark, tables):
    """A folded date is never NULL where the original cast may be: the rows are the same
    and must fingerprint alike (they were collected instead, and year -480 cannot be a
    Python date: simplify:239)."""
    from sparkfold.optimizer.verify import verify

    sql = "SELECT CAST('2020-01-01' AS DATE) - INTERVAL '2500' YEAR AS r FROM t"
    result = optimize(sql, tables)
    assert result.sql != sql
    report = verify(result, spark, candidates=("optimized SQL", "DataFrame"))
    assert report.equal, report.to_text()
    assert all(c.method.startswith("fingerprint") for c in report.comparisons), report.to_text()


def test_a_query_reading_the_clock_is_flagged(spark, tables):
    """current_time() gives another value on every run: the verifier says so (the
    corpus does not compare such queries)."""
    from sparkfold.optimizer.verify import reads_clock, verify

    assert reads_clock("SELECT LOCALTIME AS r") and not reads_clock("SELECT current_user()")
    report = verify(optimize("SELECT current_timestamp() AS r, num FROM t WHERE 1 = 1", tables), spark)
    assert any("clock" in n for n in report.notes), report.to_text()
