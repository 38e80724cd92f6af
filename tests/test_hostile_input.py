"""Hostile and odd input: odd identifiers, tricky literals, comments, hints and parameter
markers come out intact, and Spark gives the same answer for the output."""

from __future__ import annotations

import pytest
from sparkfold.optimizer import optimize

from tests.data import register
from tests.spark_check import assert_same_result, run

WEIRD = {"select": "int", "a b": "string", "ünï": "double", "x`y": "int not null"}
WEIRD_ROWS = [(1, "p q", 1.5, 1), (2, None, float("nan"), 2), (None, "ü", None, 3)]


@pytest.fixture(scope="module")
def catalog(spark, tables):
    register(spark, "weird_table", WEIRD, WEIRD_ROWS)
    return {**tables, "weird_table": WEIRD}


QUERIES = [
    "SELECT `select`, `a b`, `ünï`, `x``y` FROM weird_table WHERE `select` > 1 OR `a b` IS NULL",
    "SELECT w.`select` AS `from`, w.`a b` AS `WHERE`, `ünï` AS `ö ä` FROM weird_table AS w",
    "SELECT num AS `from`, s AS `SELECT` FROM t AS `order` WHERE `order`.num > 2",
    "SELECT 'it''s', 'a\\\\b', 'tab\\there', 'new\\nline', 'SELECT * FROM t; DROP TABLE t', '\"dq\"', "
    "'ü€😀', '--not a comment', '/* nor this */' FROM t WHERE num = 1",
    "SELECT num FROM t WHERE s = 'it''s' OR s = 'a\\'b' OR s = ''",
    "SELECT concat('a', s, 'it''s') AS c FROM t",
    "-- leading comment\nSELECT num /* inline */ FROM t -- trailing\nWHERE num > 1",
    "SELECT num FROM t WHERE num IN (1, 2, NULL) AND s <> 'x'",
]


@pytest.mark.parametrize("sql", QUERIES)
def test_odd_text_round_trips_with_the_same_answer(spark, catalog, sql):
    result = optimize(sql, catalog, always_regenerate=True)
    assert result.passthrough is None
    assert_same_result(spark, sql, result.sql)


def test_string_literal_values_are_exact(spark, catalog):
    sql = ("SELECT 'it''s' AS a, 'a\\\\b' AS b, 'new\\nline' AS c, 'SELECT * FROM t; DROP TABLE t' AS d, "
           "'ü€😀' AS e, \"dq'\" AS f")
    result = optimize(sql, catalog, always_regenerate=True)
    assert run(spark, result.sql) == run(spark, sql)
    _, rows = run(spark, result.sql)
    assert rows == [("it's", "a\\b", "new\nline", "SELECT * FROM t; DROP TABLE t", "ü€😀", "dq'")]


def test_comments_are_kept():
    sql = "-- job: nightly\nSELECT num /* the key */ FROM t -- done\nWHERE num > 1"
    out = optimize(sql, {"t": {"num": "int"}}, always_regenerate=True).sql
    for text in ("job: nightly", "the key", "done"):
        assert text in out


def test_comment_with_block_end_is_kept_as_line_comment(spark, catalog):
    sql = "SELECT num FROM t -- a */ trick\nWHERE num > 1"
    result = optimize(sql, catalog, always_regenerate=True)
    assert "a */ trick" in result.sql
    assert_same_result(spark, sql, result.sql)


def test_top_level_hints_stay_and_inner_hints_stay_in_place(spark, catalog):
    # the outermost SELECT's hints go back on the rewritten query (they never change rows)
    sql = "SELECT /*+ BROADCAST(u) */ t.num FROM t JOIN u ON t.num = u.num WHERE 1 = 1"
    result = optimize(sql, catalog)
    assert result.passthrough is None
    assert result.sql == "SELECT /*+ BROADCAST(u) */ t.num FROM t JOIN u ON t.num = u.num"
    assert_same_result(spark, sql, result.sql)
    # a hint inside a derived table stays where it is written (the kept-layout output)
    inner = f"SELECT * FROM ({sql}) q"
    result = optimize(inner, catalog)
    assert result.passthrough is None
    assert result.sql == "SELECT * FROM (SELECT /*+ BROADCAST(u) */ t.num FROM t JOIN u ON t.num = u.num) q"
    assert_same_result(spark, inner, result.sql)


@pytest.mark.parametrize("sql,markers", [
    ("SELECT num FROM t WHERE s = :name AND num > :low", [":name", ":low"]),
    ("SELECT num FROM t WHERE num > ? AND s = ?", ["?", "?"]),
])
def test_parameter_markers_are_kept(spark, catalog, sql, markers):
    result = optimize(sql, catalog, always_regenerate=True)
    out = result.sql
    for m in markers:
        assert out.count(m) >= markers.count(m)
    args = {"name": "a", "low": 0} if ":" in sql else [0, "a"]
    expected = sorted(tuple(r) for r in spark.sql(sql, args=args).collect())
    assert sorted(tuple(r) for r in spark.sql(out, args=args).collect()) == expected


@pytest.mark.parametrize("sql", [
    "SELECT __sf_lit_decimal('NaN') AS x",
    "SELECT -__sf_lit_decimal('Infinity') AS x",
    "SELECT __sf_lit_decimal('1e999999') AS x",
    "SELECT __sf_lit_double('abc') AS x",
])
def test_typed_literal_markers_written_by_hand_are_calls_not_literals(sql):
    # sparkfold reads `1.5BD` as a call `__sf_lit_decimal('1.5')`; one the user wrote that
    # is no literal (NaN, infinity, no number) stays an unknown call, never a crash
    result = optimize(sql, {})
    assert result.sql == sql
    assert result.optimized is not None
