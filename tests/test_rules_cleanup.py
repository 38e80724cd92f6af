"""RemoveRedundantIsNotNull: inferred IS NOT NULL predicates leave the SQL once another
predicate implies them; results stay the same on Spark."""

from __future__ import annotations

import pytest
from sparkfold.optimizer import optimize

from tests.spark_check import assert_same_result


@pytest.mark.parametrize("sql,absent", [
    ("SELECT num FROM t WHERE x > 1", "IS NOT NULL"),
    ("SELECT t.num, u.y FROM t JOIN u ON t.num = u.num", "IS NOT NULL"),
    ("SELECT t.num FROM t LEFT JOIN u ON t.num = u.num WHERE u.z > 1", "IS NOT NULL"),
    ("SELECT num FROM t WHERE num IN (SELECT num FROM u WHERE z > 0)", "IS NOT NULL"),
])
def test_inferred_is_not_null_is_not_written(spark, tables, sql, absent):
    result = optimize(sql, tables)
    assert absent not in result.sql
    assert_same_result(spark, sql, result.sql)


@pytest.mark.parametrize("sql", [
    "SELECT num FROM t WHERE x IS NOT NULL",  # the user's own predicate, implied by nothing else
    "SELECT num FROM t WHERE x IS NOT NULL OR s = 'a'",
    "SELECT t.num FROM t LEFT ANTI JOIN u ON t.num = u.num WHERE t.s IS NOT NULL",
])
def test_is_not_null_stays_when_nothing_else_implies_it(spark, tables, sql):
    result = optimize(sql, tables)
    assert "IS NOT NULL" in result.sql
    assert_same_result(spark, sql, result.sql)


def test_count_still_becomes_count_1(spark, tables):
    sql = "SELECT count(x) FROM t WHERE x > 1"
    result = optimize(sql, tables)
    assert "count(1)" in result.sql and "IS NOT NULL" not in result.sql
    assert_same_result(spark, sql, result.sql)


def test_left_outer_join_keeps_preserved_side_filter(spark, tables):
    # the left side of a left join is preserved: a user's IS NOT NULL there must stay
    sql = "SELECT t.num, u.y FROM (SELECT * FROM t WHERE x IS NOT NULL) t LEFT JOIN u ON t.x = u.z"
    result = optimize(sql, tables)
    assert "IS NOT NULL" in result.sql
    assert_same_result(spark, sql, result.sql)
