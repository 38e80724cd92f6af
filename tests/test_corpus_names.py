"""Names, struct fields and correlated references the corpus (tests/corpus) found wrong
on the DataFrame path, and with them on the SQL path once a rule fires: each checked on
Spark, both paths, with a rule made to fire (`WHERE 1 = 1`, `OR x = NULL`...)."""

from __future__ import annotations

import pytest
from sparkfold import optimize
from sparkfold.optimizer.compare import compare_rows
from sparkfold.plans.pyspark.to_pyspark import run_code, to_pyspark_code

from tests.spark_check import error_class
from tests.spark_check import assert_same_result, is_ordered, run_or_error, schema_of


def _both_paths(spark, tables, sql):
    """The optimized SQL and the DataFrame program return Spark's names, types and rows."""
    result = optimize(sql, tables)
    assert result.passthrough is None, result.passthrough
    assert result.trace, "no rule fired: the test would not see the writer"
    assert_same_result(spark, sql, result.sql, ordered=is_ordered(result.analyzed), context=sql)
    code = to_pyspark_code(result)
    expected = run_or_error(spark, sql)
    try:
        df = run_code(code, spark)
        got = (schema_of(df), [tuple(r) for r in df.collect()])
    except Exception as e:  # noqa: BLE001 - Spark's error, compared with the original's
        got = ("error", error_class(e))
    if "error" in (expected[0], got[0]):
        assert expected == got, f"{sql}\n{expected} vs {got}\n{code}"
        return result, code
    assert got[0] == expected[0], f"{sql}\n{code}"
    diff = compare_rows(expected[1], got[1], ordered=is_ordered(result.analyzed))
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


@pytest.fixture(scope="module")
def struct_table(spark, tables):
    """t5: a struct column named as its table (issue 16's `t5.t5.i1`)."""
    spark.sql("CREATE OR REPLACE TEMP VIEW t5 AS SELECT * FROM VALUES "
              "(named_struct('i1', 1, 'i2', 2), 3), (named_struct('i1', 4, 'i2', NULL), 5) AS v(t5, i1)")
    return {**tables, "t5": {"t5": "struct<i1:int,i2:int>", "i1": "int"}}


@pytest.mark.parametrize("sql", [
    # a field of a struct column named as its table: t5.t5.i1 is the field (the DataFrame
    # read `t5`.i1 as the table's column i1: other rows), and is named `i1`
    "SELECT t5.t5.i1, t5.i1, t5.t5.i2, upper(t5.t5.i1) FROM t5 WHERE 1 = 1",
    "SELECT T5.I1 FROM t5 WHERE t5.t5.i2 IS NULL OR 1 = NULL",
])
def test_struct_fields_of_a_column_named_as_its_table(spark, struct_table, sql):
    _both_paths(spark, struct_table, sql)


@pytest.mark.parametrize("sql", [
    # generated names show string literals unquoted: map(a, num)[a]
    "SELECT map('a', num)['a'], named_struct('f', num).f, array(num)[0], map('k', s)['k'] || 'x' "
    "FROM t WHERE 1 = 1",
    # a WINDOW clause: the name spells the window out, as Spark does
    "SELECT s, count(*) OVER w, sum(num) OVER w FROM t WHERE 1 = 1 WINDOW w AS (PARTITION BY s ORDER BY num)",
    "SELECT s, count(*) OVER w AS c, rank() OVER w, max(num) OVER v FROM t WHERE 1 = 1 "
    "WINDOW w AS (PARTITION BY s ORDER BY num), v AS (ORDER BY num ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
])
def test_generated_names_of_unmodelled_expressions(spark, tables, sql):
    _both_paths(spark, tables, sql)


@pytest.mark.parametrize("sql", [
    # a decimal literal Spark rejects stays as written (it was written `1.2e-38DBD`: a
    # syntax error instead of Spark's DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION)
    "SELECT 1.20E-38BD FROM t WHERE 1 = 1",
    # a positive exponent adds digits: 1.5E2BD is decimal(3,0)
    "SELECT 1.5E2BD, 12E1BD + 1, 9.e+1, .10D, -.10D FROM t WHERE 1 = 1",
])
def test_literals_as_spark_types_them(spark, tables, sql):
    _both_paths(spark, tables, sql)


# -- issue 16's other classes, each on both paths with a rule made to fire ---------------

@pytest.mark.parametrize("sql", [
    # set operations: INTERSECT binds tighter than UNION and EXCEPT
    "SELECT num FROM t EXCEPT SELECT num FROM u UNION ALL SELECT k FROM n INTERSECT SELECT num FROM t WHERE 1 = 1",
    "SELECT num FROM t WHERE 1 = 1 EXCEPT SELECT num FROM u UNION ALL SELECT k FROM n INTERSECT ALL SELECT num FROM t",
    # functions kept as themselves, not near relatives
    "SELECT s, percentile_cont(0.5) WITHIN GROUP (ORDER BY num) FROM t WHERE 1 = 1 GROUP BY s",
    "SELECT any(p), every(p), some(p), bool_and(p) FROM t WHERE 1 = 1",
    # `'four: ' || 2 + 2` is ('four: ' || 2) + 2: an error under ANSI, on both paths
    "SELECT 'four: ' || 2 + 2 FROM t WHERE 1 = 1",
    "SELECT 'four: ' || (2 + 2), 1 + 2 || 'x' FROM t WHERE 1 = 1",
    # PIVOT keeps its implicit grouping columns (dt here)
    "SELECT * FROM (SELECT dt, s, num FROM t WHERE 1 = 1) PIVOT (sum(num) FOR s IN ('a', 'b'))",
    # HAVING reads the grouping column, not the select alias of the same name
    "SELECT sum(num) AS num FROM t WHERE 1 = 1 GROUP BY num HAVING num > 1",
    # an error Spark raises at run time is raised by both
    "SELECT CAST(s AS INT) FROM t WHERE 1 = 1",
    # names as written, case included
    "SELECT num AS COL1, s AS Col2, x AS `MiXeD` FROM t WHERE 1 = 1",
])
def test_issue_16_classes_on_both_paths(spark, tables, sql):
    _both_paths(spark, tables, sql)


@pytest.mark.parametrize("sql, error", [
    ("SELECT * FROM t WHERE 1 = 1 GROUP BY 1", "STAR_GROUP_BY_POS"),
    ("SELECT num FROM t JOIN u ON t.num = u.num WHERE 1 = 1", "AMBIGUOUS_REFERENCE"),
])
def test_an_invalid_query_is_not_made_valid(spark, tables, sql, error):
    """sparkfold refuses what Spark refuses (so no program is written that would run)."""
    from sparkfold.optimizer.errors import SparkfoldError

    assert run_or_error(spark, sql) == ("error", error)
    with pytest.raises(SparkfoldError):
        optimize(sql, tables)
