"""Deep and wide input: no RecursionError, no interpreter crash, same answers."""

from __future__ import annotations

import pytest
from sparkfold.optimizer import optimize
from sparkfold.plans.sql_in.parse import parse_query

from tests.spark_check import assert_same_result

CATALOG = {"t": {"num": "int not null", "x": "double", "s": "string"}}


def nested(depth: int) -> str:
    return "SELECT " + "(" * depth + "num" + " + 1)" * depth + " AS v FROM t"


def test_3000_level_nested_expression_round_trips():
    result = optimize(nested(3000), CATALOG, always_regenerate=True)
    assert result.sql.count("+ 1") == 3000
    # the regenerated SQL parses again and is analyzed to the same plan shape
    again = optimize(result.sql, CATALOG, always_regenerate=True)
    assert again.sql == result.sql


def test_5000_nested_not():
    sql = "SELECT num FROM t WHERE " + "NOT (" * 5000 + "num = 1" + ")" * 5000
    result = optimize(sql, CATALOG, rules=[], always_regenerate=True)
    assert result.sql.count("NOT") == 5000


def test_10000_element_in_list():
    items = ", ".join(str(i) for i in range(10000))
    result = optimize(f"SELECT num FROM t WHERE num IN ({items})", CATALOG, rules=[], always_regenerate=True)
    assert result.sql.count(",") >= 9999
    assert parse_query(result.sql) is not None


def test_10000_term_or_chain():
    sql = "SELECT num FROM t WHERE " + " OR ".join(f"num = {i}" for i in range(10000))
    result = optimize(sql, CATALOG, rules=[], always_regenerate=True)
    assert result.sql.count(" OR ") == 9999


def test_1000_way_union_all():
    sql = " UNION ALL ".join(f"SELECT num + {i} AS v FROM t" for i in range(1000))
    result = optimize(sql, CATALOG, rules=[], always_regenerate=True)
    assert result.sql.count("UNION ALL") == 999


def test_1000_branch_case():
    sql = "SELECT CASE " + " ".join(f"WHEN num = {i} THEN {i}" for i in range(1000)) + " END AS c FROM t"
    result = optimize(sql, CATALOG, rules=[], always_regenerate=True)
    assert result.sql.count("WHEN") == 1000


@pytest.mark.parametrize("sql", [
    nested(200),
    "SELECT num FROM t WHERE " + " OR ".join(f"num = {i}" for i in range(300)),
    " UNION ALL ".join(f"SELECT num + {i} AS v FROM t" for i in range(60)),
    "SELECT num FROM t WHERE num IN (" + ", ".join(str(i) for i in range(2000)) + ")",
])
def test_deep_queries_give_the_same_rows_on_spark(spark, tables, sql):
    result = optimize(sql, tables, always_regenerate=True)
    assert_same_result(spark, sql, result.sql)
