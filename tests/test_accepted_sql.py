"""Valid Spark SQL that sparkfold rejected (the reach issue's list): each is accepted
now, optimized where it can be (or passed through), and gives Spark's result."""

from __future__ import annotations

import pytest
from sparkfold import optimize

from tests.spark_check import assert_same_result

QUERIES = [
    # float literals written from the point, with a type suffix
    "SELECT .10D AS a, -.10D AS b, 9.e+1 AS c, .5 AS d, -.5e1F AS e, num + .25D AS f FROM t",
    # `any(v)` is the aggregate bool_or, next to its siblings
    "SELECT every(p), some(p), any(p), bool_and(p) FROM t WHERE num = 4",
    "SELECT s, any(p) AS a FROM t GROUP BY s",
    # two-argument aggregates with DISTINCT
    "SELECT corr(DISTINCT x, z) AS c FROM t, u",
    "SELECT corr(x, num), covar_pop(x, num), covar_samp(DISTINCT x, num) FROM t WHERE 1 = 1",
    # an aggregate of the outer query inside a correlated subquery
    "SELECT s, count(*) FROM t GROUP BY s HAVING EXISTS (SELECT 1 FROM u WHERE u.y < min(t.num))",
    # an unmodelled aggregate with a FILTER over a column that is not grouped
    "SELECT s, approx_count_distinct(num) FILTER (WHERE x >= 0) FROM t GROUP BY 1",
    "SELECT s, approx_count_distinct(num) FILTER (WHERE x >= 0) AS c FROM t WHERE b IS NOT NULL GROUP BY s",
    # window aggregates with FILTER, WITHIN GROUP, IGNORE NULLS (written `f(v, true)`)
    "SELECT num, sum(b) FILTER (WHERE x > 0) OVER (PARTITION BY s) FROM t",
    "SELECT num, count(*) FILTER (WHERE s = 'a') OVER () AS c FROM t WHERE 1 = 1",
    "SELECT num, percentile_cont(0.25) WITHIN GROUP (ORDER BY x) OVER (PARTITION BY s) FROM t",
    "SELECT num, first_value(b, true) OVER (ORDER BY num), any_value(b, true) OVER (ORDER BY num) FROM t",
    # the same outside windows (Spark's printer in sqlglot writes percentile_approx)
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_disc(0.25) WITHIN GROUP (ORDER BY x DESC) "
    "FROM t",
    "SELECT s, first(b, true), last(b) IGNORE NULLS, first(b) AS f FROM t GROUP BY s",
    # a GROUP BY expression holding an IN-subquery, repeated in the select list
    "SELECT num IN (SELECT num FROM u) AS z, count(*) FROM t GROUP BY num IN (SELECT num FROM u)",
    "SELECT num IN (SELECT num FROM u), count(*) AS c FROM t WHERE s <> NULL OR true "
    "GROUP BY num IN (SELECT num FROM u)",
    # concat of no argument is '' (sqlglot's builder needs one)
    "SELECT concat() AS e, concat(), concat(s) AS c FROM t WHERE 1 = 1",
]


# The same, read from a derived table: the outer query refers to each unaliased column
# by Spark's name for it (`first(b, true)` is `first(b)`, `last(b) IGNORE NULLS` is
# `last(b)`, a window's name spells its frame out).
NESTED = [
    "SELECT * FROM (SELECT num, sum(b) FILTER (WHERE x > 0) OVER (PARTITION BY s) FROM t) q "
    "WHERE num > 1 AND NULL IS NULL",
    "SELECT * FROM (SELECT s, first(b, true), last(b) IGNORE NULLS, any_value(b) IGNORE NULLS FROM t GROUP BY s) q "
    "WHERE s <> 'zz' AND 1 = 1",
    "SELECT * FROM (SELECT num, first_value(b, true) OVER (ORDER BY num), last_value(b) IGNORE NULLS OVER "
    "(ORDER BY num), percentile_cont(0.25) WITHIN GROUP (ORDER BY x DESC) OVER (PARTITION BY s) FROM t) q "
    "WHERE num > 1 AND NULL IS NULL",
    "SELECT * FROM (SELECT s, approx_count_distinct(num) FILTER (WHERE x >= 0), "
    "percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM t GROUP BY 1) q WHERE 1 = 1",
]


@pytest.mark.parametrize("sql", NESTED)
def test_wrapped_calls_keep_spark_names_on_both_paths(spark, tables, sql):
    result = optimize(sql, tables)
    assert result.passthrough is None and result.sql != sql  # rewritten: the names are ours
    report = result.verify(spark)
    assert report.equal, report.to_text()
    assert "DataFrame: equal" in report.to_text(), report.to_text()


# A lambda stays in place, as text, where the query names the column itself or in a
# condition (the query's columns it reads bound like arguments); the rest of the query
# is optimized.
LAMBDAS_IN_PLACE = [
    "SELECT transform(array(num, b), x -> x + 1) AS tr, num FROM t WHERE exists(array(x), q -> isnan(q)) "
    "OR s = NULL",
    "SELECT t.num, u.y FROM t JOIN u ON t.num = u.num AND exists(array(u.y), q -> q > 300) WHERE 1 = 1",
    "SELECT s, aggregate(collect_list(b), 0L, (acc, z) -> acc + coalesce(z, 0L)) AS sm FROM t "
    "WHERE num IS NOT NULL GROUP BY s",
    "SELECT filter(array(x, x + 1), v -> v > 1.0) AS f, size(filter(array(num), v -> v > 3)) AS n FROM t "
    "WHERE NOT NOT (num > 2)",
    "SELECT transform(array(num, b), e -> e + num) AS z FROM t WHERE 1 = 1",
]
LAMBDAS_PASSED_THROUGH = [
    "SELECT transform(array(num, b), x -> x + 1) FROM t WHERE 1 = 1",       # Spark names the column
    "SELECT transform(array(num, b), x -> x + num) AS z FROM t WHERE 1 = 1",  # x: also t's column
    "SELECT num FROM t ORDER BY size(filter(array(num), v -> v > 3))",
]


@pytest.mark.parametrize("sql", LAMBDAS_IN_PLACE)
def test_lambdas_stay_in_place_and_the_rest_is_optimized(spark, tables, sql):
    result = optimize(sql, tables)
    assert result.passthrough is None and result.sql != sql
    assert "->" in result.sql
    report = result.verify(spark)  # the optimized SQL and the DataFrame program
    assert report.equal and "DataFrame: equal" in report.to_text(), report.to_text()


@pytest.mark.parametrize("sql", LAMBDAS_PASSED_THROUGH)
def test_other_lambdas_pass_the_query_through(spark, tables, sql):
    result = optimize(sql, tables)
    assert result.passthrough is not None and "lambda" in result.passthrough and result.sql == sql
    spark.sql(sql).collect()


# range(...) is a relation with Spark's schema (id BIGINT NOT NULL), kept as text
RANGES = [
    "SELECT r.id, t.s FROM range(1, 5) AS r(id) JOIN t ON r.id = t.num WHERE t.s = NULL OR r.id > 2",
    "SELECT count(id) AS c, max(id) FROM range(-5, 5)",
    "SELECT id FROM range(0, 10, 3, 2) r WHERE id IS NOT NULL AND id IN (SELECT num FROM t)",
    "SELECT * FROM range(3) WHERE 1 = 1",
]


# a tuple IN list stays in place where no column name is needed
TUPLES_IN_PLACE = [
    "SELECT num FROM t WHERE (num, s) IN ((1, 'a'), (3, 'b'), (5, 'a')) OR 1 = 0",
    "SELECT (num, s) IN ((1, 'a')) AS z, num FROM t WHERE NOT NOT (num > 0)",
    "SELECT t.num, u.y FROM t JOIN u ON (t.num, t.s) IN ((u.num, u.s)) AND 1 = 1",
]


@pytest.mark.parametrize("sql", TUPLES_IN_PLACE)
def test_tuple_in_lists_stay_in_place(spark, tables, sql):
    result = optimize(sql, tables)
    assert result.passthrough is None and result.sql != sql
    report = result.verify(spark)
    assert report.equal and "DataFrame: equal" in report.to_text(), report.to_text()


def test_an_unnamed_tuple_in_list_passes_through(spark, tables):
    sql = "SELECT (num, s) IN ((1, 'a')) FROM t WHERE 1 = 1"
    result = optimize(sql, tables)
    assert result.passthrough == "a tuple IN list" and result.sql == sql


@pytest.mark.parametrize("sql", RANGES)
def test_range_is_a_relation_and_the_query_is_optimized(spark, tables, sql):
    result = optimize(sql, tables)
    assert result.passthrough is None and result.sql != sql
    report = result.verify(spark)
    assert report.equal and "DataFrame: equal" in report.to_text(), report.to_text()


@pytest.mark.parametrize("sql", [
    # a table's star alone in count: Spark 4.3 rejects it (unless a legacy flag, which the
    # session's catalog names, allows it), and so does sparkfold (tests/test_stars.py)
    "SELECT count(t.*) FROM t",
    "SELECT count(DISTINCT t.*) FROM t",
])
def test_a_tables_star_alone_in_count_is_rejected(spark, tables, sql):
    from sparkfold.optimizer.errors import SparkfoldError

    from tests.spark_check import run_or_error

    assert run_or_error(spark, sql)[0] == "error"
    with pytest.raises(SparkfoldError):
        optimize(sql, tables)


def test_a_star_argument_is_expanded_as_spark_does(spark, tables):
    sql = "SELECT struct(t.*) AS r FROM t"
    result = optimize(sql, tables, always_regenerate=True)
    assert result.passthrough is None and "t.num" in result.sql
    assert_same_result(spark, sql, result.sql)


@pytest.mark.parametrize("sql", QUERIES)
def test_valid_spark_sql_is_accepted_and_agrees(spark, tables, sql):
    spark.sql(sql).collect()  # Spark accepts it
    result = optimize(sql, tables)
    assert_same_result(spark, sql, result.sql)
    regenerated = optimize(sql, tables, always_regenerate=True)
    assert_same_result(spark, sql, regenerated.sql)
