"""`||` binds like `+` and `-` in Spark (left to right), tighter than the bitwise
operators: `'four: ' || 2 + 2` is `('four: ' || 2) + 2`, which raises under ANSI and is
NULL without it.  Each query runs as written and as optimized (the rules fold the
constants, so the SQL is regenerated), in both modes; names, types, rows and errors
must agree."""

from __future__ import annotations

import pytest
from sparkfold import optimize

from tests.spark_check import assert_same_result

QUERIES = [
    "SELECT 'four: ' || 2 + 2",
    "SELECT 1 + 2 || 3",
    "SELECT 'a' || 'b' || 'c'",
    "SELECT 2 * 3 || 4",
    "SELECT 1 - 2 || 3 - 4",
    "SELECT 1 | 2 || 3",
    "SELECT 'x' || 1 & 3",
    "SELECT s || num + 1 AS c FROM t",
    "SELECT num + 1 || s AS c FROM t",
]


@pytest.mark.parametrize("ansi", [True, False], ids=["ansi", "no-ansi"])
@pytest.mark.parametrize("sql", QUERIES)
def test_concat_pipe_precedence_matches_spark(spark, tables, sql, ansi):
    from sparkfold import Catalog

    catalog = Catalog.from_mapping(tables, ansi=ansi)
    old = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", str(ansi).lower())
    try:
        result = optimize(sql, catalog, always_regenerate=True)
        assert_same_result(spark, sql, result.sql)
    finally:
        spark.conf.set("spark.sql.ansi.enabled", old)


def test_concat_pipe_then_plus_is_a_concat_under_a_sum():
    r = optimize("SELECT 'four: ' || 2 + 2", {}, always_regenerate=True)
    # (the concat is the sum's left operand: under ANSI Spark casts it to bigint, which
    # sparkfold writes out)
    assert r.sql.startswith("SELECT CAST(concat('four: ', 2) AS BIGINT) + 2L")
