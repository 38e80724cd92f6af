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
]


@pytest.mark.parametrize("sql", [
    # a star as a function argument: Spark 4.3 rejects count(t.*) unless a legacy flag
    # allows it; sparkfold passes it through for Spark to decide, rather than rejecting it
    "SELECT count(t.*) FROM t",
    "SELECT count(DISTINCT t.*) FROM t",
    "SELECT struct(t.*) AS r FROM t",
])
def test_a_star_argument_is_left_to_spark(spark, tables, sql):
    result = optimize(sql, tables)
    assert result.passthrough is not None and result.sql == sql
    assert_same_result(spark, sql, result.sql)


@pytest.mark.parametrize("sql", QUERIES)
def test_valid_spark_sql_is_accepted_and_agrees(spark, tables, sql):
    spark.sql(sql).collect()  # Spark accepts it
    result = optimize(sql, tables)
    assert_same_result(spark, sql, result.sql)
    regenerated = optimize(sql, tables, always_regenerate=True)
    assert_same_result(spark, sql, regenerated.sql)
