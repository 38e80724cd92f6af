"""Statements that wrap a query: only the query is optimized, the rest kept exactly.

dbt sends every model as CREATE TABLE ... AS <query>; CREATE VIEW, INSERT, CACHE TABLE,
MERGE ... USING (<query>) and EXPLAIN wrap queries too.  Each statement runs on Spark as
written and as optimized, and what it made (a table, a view, inserted rows) is
compared; statements without a query pass through without a word."""

from __future__ import annotations

import logging

import pytest
from sparkfold import optimize

from tests.spark_check import assert_same_result

QUERY = "SELECT s, count(num) AS n FROM t WHERE x = NULL OR num > 1 GROUP BY s"
OPTIMIZED = optimize(QUERY, {"t": {"num": "int not null", "x": "double", "s": "string"}}).sql


@pytest.mark.parametrize("head, tail", [
    ("CREATE TABLE {name} USING parquet LOCATION '{path}' AS ", ""),
    ("CREATE OR REPLACE TEMPORARY VIEW {name} AS\n  ", ""),
    ("CREATE TEMP VIEW {name} (s, n) AS ", ";"),
    ("CACHE TABLE {name} AS ", ""),
])
def test_creating_statements_make_the_same_thing(spark, tables, tmp_path, head, tail):
    made = {}
    for kind in ("original", "optimized"):
        name = f"stmt_{kind}_{abs(hash(head)) % 10_000}"
        statement = head.format(name=name, path=tmp_path / kind) + QUERY + tail
        result = optimize(statement, tables)
        assert result.passthrough is None and result.changed
        assert result.sql == head.format(name=name, path=tmp_path / kind) + OPTIMIZED + tail
        assert result.query_original_sql == QUERY and result.query_sql == OPTIMIZED
        spark.sql(statement if kind == "original" else result.sql)
        made[kind] = name
    assert_same_result(spark, f"SELECT * FROM {made['original']}", f"SELECT * FROM {made['optimized']}")


def test_insert_inserts_the_same_rows(spark, tables, tmp_path):
    for kind in ("original", "optimized"):
        spark.sql(f"CREATE TABLE ins_{kind} (s STRING, n BIGINT) USING parquet LOCATION '{tmp_path / kind}'")
    for into in ("INSERT INTO", "INSERT OVERWRITE TABLE"):
        original = f"{into} ins_original {QUERY}"
        result = optimize(f"{into} ins_optimized {QUERY}", tables)
        assert result.sql == f"{into} ins_optimized {OPTIMIZED}"
        spark.sql(original)
        spark.sql(result.sql)
    assert_same_result(spark, "SELECT * FROM ins_original", "SELECT * FROM ins_optimized")


def test_merge_source_and_explain_are_optimized_in_place(spark, tables):
    merge = f"MERGE INTO target USING ({QUERY}) src ON target.s = src.s WHEN MATCHED THEN DELETE"
    assert optimize(merge, tables).sql == merge.replace(QUERY, OPTIMIZED)
    explain = f"EXPLAIN EXTENDED {QUERY}"
    result = optimize(explain, tables)
    assert result.sql == f"EXPLAIN EXTENDED {OPTIMIZED}"
    assert spark.sql(result.sql).count() == 1  # Spark explains the optimized query


def test_findings_are_positioned_in_the_statement(tables):
    statement = f"CREATE OR REPLACE TEMPORARY VIEW v AS\n  {QUERY}"
    found = [f for f in optimize(statement, tables).findings if f.code == "null-comparison"]
    assert [(f.line, f.column) for f in found] == [(2, 3 + QUERY.index("x = NULL"))]


@pytest.mark.parametrize("statement", [
    "SHOW TABLES", "DESCRIBE t", "SET spark.sql.ansi.enabled = true", "EXPLAIN t", "USE default",
    "INSERT INTO x VALUES (1)", "CREATE VIEW v AS (SELECT 1)", "REFRESH TABLE t",
])
def test_statements_without_a_query_pass_through_quietly(tables, caplog, statement):
    with caplog.at_level(logging.DEBUG):
        result = optimize(statement, tables)
    assert result.sql == statement and result.passthrough is not None
    assert not [r for r in caplog.records if r.name.startswith("sqlglot")]
