"""SQL pipe syntax (`FROM t |> WHERE ... |> SELECT ...`), read as the standard SQL Spark's
parser builds of it (plans/sql_in/pipe_syntax.py).  Against Spark, every operator after every
kind of first query, and the forms Spark rejects: tests/sqltests/classes.py pipe_syntax_files
(tests/test_sqltests_classes.py).  Here, without Spark: what is written, what passes
through and why, where findings point, and the setting that turns the syntax off."""

from __future__ import annotations

import pytest

from sparkfold.optimizer.api import optimize
from sparkfold.plans.sql_in.catalog import Catalog, settings_of_conf
from sparkfold.plans.sql_in.expr_context import NotModelled
from sparkfold.plans.sql_in.pipe_syntax import as_standard

TABLES = {"pv": {"k": "int", "s": "string"}, "pw": {"j": "int", "t": "string"}}


@pytest.mark.parametrize("sql, text", [
    ("FROM pv |> WHERE k > 1 |> SELECT s", "SELECT s FROM (SELECT * FROM pv WHERE k > 1) AS `pv`"),
    ("TABLE pv |> EXTEND k + 1 AS k1 |> DROP s", "SELECT * EXCEPT (s) FROM (SELECT *, k + 1 AS k1 FROM pv)"),
    ("TABLE pv |> AS q |> ORDER BY q.k |> LIMIT 1",
     "SELECT * FROM (SELECT * FROM (SELECT * FROM pv) AS q ORDER BY q.k) AS `q` LIMIT 1"),
    ("TABLE pv |> AGGREGATE count(*) AS c GROUP BY s, k + 1 AS k1",
     "SELECT s, k + 1 AS k1, count(*) AS c FROM pv GROUP BY s, k + 1"),
    ("TABLE pv |> LEFT JOIN pw ON j = k |> UNION ALL TABLE pv",
     "SELECT * FROM pv LEFT JOIN pw ON j = k UNION ALL TABLE pv"),
    ("SELECT k FROM pv |> UNION TABLE pv |> INTERSECT TABLE pv",
     "SELECT * FROM (SELECT k FROM pv UNION TABLE pv) INTERSECT TABLE pv"),
    # (a JOIN after a comma would bind to the last relation: the relations go first)
    ("FROM pv, pw |> JOIN pw AS x ON x.j = k", "SELECT * FROM (SELECT * FROM pv, pw) JOIN pw AS x ON x.j = k"),
])
def test_each_operator_is_written_as_the_plan_spark_builds(sql, text):
    assert as_standard(sql).text == text


COLUMNS = {"SELECT * FROM pv": ["k", "s"], "SELECT *, 1 AS z FROM pv": ["k", "s", "z"],
           "SELECT `k`, (k + 1) AS `s` FROM pv": ["k", "s"], "SELECT 1 AS a, 2 AS A": ["a", "A"]}


@pytest.mark.parametrize("sql, text", [
    # SET: the star by name, the column set where it stands, one projection per assignment
    ("TABLE pv |> SET s = k + 1", "SELECT `k`, (k + 1) AS `s` FROM pv"),
    ("TABLE pv |> SET s = k + 1, K = length(s)",
     "SELECT (length(s)) AS `K`, `s` FROM (SELECT `k`, (k + 1) AS `s` FROM pv)"),
    ("TABLE pv |> EXTEND 1 AS z |> SET z = k", "SELECT `k`, `s`, (k) AS `z` FROM (SELECT *, 1 AS z FROM pv)"),
    # AGGREGATE grouping by a position: the column there, by its name
    ("TABLE pv |> AGGREGATE count(*) AS c GROUP BY 2, k", "SELECT `s`, k, count(*) AS c FROM pv GROUP BY `s`, k"),
])
def test_set_and_a_grouping_position_read_the_columns_of_the_query_before(sql, text):
    assert as_standard(sql, COLUMNS.get).text == text


@pytest.mark.parametrize("sql, reason", [
    ("TABLE pv |> SET q = 1", "a column the query does not have"),
    ("SELECT 1 AS a, 2 AS A |> SET a = 3", "a column name twice"),
    ("TABLE pv |> SET pv.k = 1", "other than `column = expression`"),
    ("TABLE pv |> SET k = max(k)", "an aggregate function in |> SET"),
    ("TABLE pv |> AGGREGATE sum(k) GROUP BY 3", "a position past the columns"),
    ("TABLE pw |> SET j = 1", "whose columns sparkfold cannot tell"),
])
def test_set_and_a_grouping_position_spark_refuses_are_not_read(sql, reason):
    with pytest.raises(NotModelled, match=reason.replace("(", r"\(").replace("|", r"\|")):
        as_standard(sql, COLUMNS.get)


@pytest.mark.parametrize("sql, reason", [
    ("TABLE pv |> SET q = 1", "|> SET of a column the query does not have"),
    ("TABLE pv |> EXTEND sum(k) AS t", "aggregate function in |> EXTEND"),
    ("TABLE pv |> WHERE k > 1 ORDER BY k |> SELECT s", "|> WHERE with another clause"),
    ("TABLE pv |> AGGREGATE k GROUP BY s", "not an aggregate"),
    ("TABLE pv |> AGGREGATE sum(k) GROUP BY 3", "a position past the columns"),
    ("SELECT * FROM (TABLE pv |> WHERE k > 1)", "inside a subquery"),
    ("FROM pv |> SELECT k |> WHERE pv.k > 1", "cannot analyze: unknown column `pv.k`"),
])
def test_what_is_not_read_passes_through_named_never_rejected(sql, reason):
    result = optimize(sql, TABLES)
    assert result.passthrough is not None and reason in result.passthrough, result.passthrough
    assert result.sql == sql


def test_an_unchanged_query_keeps_its_pipe_text_and_a_rewritten_one_is_standard_sql():
    same = "FROM pv |> WHERE k > 1 |> SELECT s"
    assert optimize(same, TABLES).sql == same
    rewritten = optimize("FROM pv |> WHERE k > 1 AND 1 = 1 |> SELECT s", TABLES)
    assert rewritten.passthrough is None and "|>" not in rewritten.sql and "1 = 1" not in rewritten.sql


def test_findings_point_into_the_pipe_text():
    sql = "FROM pv\n|> WHERE k = NULL\n|> SELECT s"
    findings = {f.code: f for f in optimize(sql, TABLES).findings}
    f = findings["null-comparison"]
    assert (f.line, f.column, f.end_line, f.end_column) == (2, 10, 2, 17)
    assert sql.split("\n")[1][f.column - 1:f.end_column] == "k = NULL"


def test_with_the_syntax_turned_off_the_statement_passes_through():
    off = Catalog(TABLES).with_settings(**settings_of_conf({"spark.sql.operatorPipeSyntaxEnabled": "false"}))
    result = optimize("FROM pv |> WHERE k > 1 AND 1 = 1", off)
    assert result.passthrough is not None and "operatorPipeSyntaxEnabled" in result.passthrough


def test_a_bitwise_or_is_not_a_pipe():
    assert as_standard("SELECT k | 1 FROM pv") is None
    with pytest.raises(NotModelled):
        as_standard("TABLE pv |> TABLESAMPLE (1 ROWS)")
