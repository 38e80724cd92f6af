"""Findings (lints): each kind, its position in the SQL, its must-not cases, and the
claim it makes checked on Spark.

The never/always-TRUE and branch findings ask the optimizer, so these tests pass two
small rules of their own (`rules=PROBE_RULES`) instead of depending on which rule
families have landed: NULL comparisons and IS [NOT] NULL of a never-null value fold to
literals, and a Filter on a literal is pruned."""

from __future__ import annotations

import dataclasses
import re

import pytest
from sparkfold.optimizer import findings as F
from sparkfold.optimizer import optimize
from sparkfold.plans.sql_in.catalog import Catalog
from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import logical as L
from sparkfold.rules.base import Rule, transform_expressions, transform_plan

from tests.data import STANDARD_SCHEMA as S
from tests.spark_check import run


def _fold(e: E.Expr, ctx=None) -> E.Expr:
    match e:
        case E.Comparison() if not isinstance(e, E.EqualNullSafe) and (
                E.is_null_literal(e.left) or E.is_null_literal(e.right)):
            return E.NULL_BOOL                     # x = NULL -> NULL
        case E.IsNull(c) if not c.nullable:        # never-null IS NULL -> FALSE
            return E.FALSE
        case E.IsNotNull(c) if not c.nullable:     # never-null IS NOT NULL -> TRUE
            return E.TRUE
        case _:
            return e


def _prune(p: L.Plan, ctx=None) -> L.Plan:
    match p:
        case L.Filter(E.Literal(value), child) if value is None or value is False:
            return L.empty_like(p)                 # WHERE FALSE/NULL -> empty
        case L.Filter(E.Literal(True), child):
            return child                           # WHERE TRUE -> child
        case _:
            return p


PROBE_RULES = [Rule("ProbeNullFold", lambda plan, ctx: transform_expressions(plan, lambda e: _fold(e))),
               Rule("ProbePruneFilters", lambda plan, ctx: transform_plan(plan, lambda p: _prune(p)))]


F_CATALOG_ANSI_OFF = Catalog.from_mapping(S, ansi=False)


def findings(sql: str, rules=PROBE_RULES, **kw):
    return optimize(sql, S, rules=rules, **kw).findings


def codes(sql: str, rules=PROBE_RULES) -> list[str]:
    return [f.code for f in findings(sql, rules)]


def only(sql: str, code: str, rules=PROBE_RULES) -> F.Finding:
    hits = [f for f in findings(sql, rules) if f.code == code]
    assert len(hits) == 1, (code, findings(sql, rules))
    return hits[0]


# ---------------------------------------------------------------------------
# Positions
# ---------------------------------------------------------------------------


def test_null_comparison_position_on_line_3_column_9():
    sql = "SELECT num\nFROM t\nWHERE   x = NULL"
    f = only(sql, "null-comparison")
    assert (f.line, f.column, f.end_line, f.end_column) == (3, 9, 3, 16)
    assert f.snippet == "x = NULL"


def test_positions_of_several_findings_in_multi_line_sql():
    sql = ("SELECT count(num),\n"
           "       max(CASE s WHEN NULL THEN 1 END)\n"
           "FROM t\n"
           "WHERE NULL <> s\n"
           "  AND num NOT IN (1, NULL)")
    got = {(f.code, f.line, f.column) for f in findings(sql)}
    assert ("count-never-null", 1, 8) in got
    assert ("null-comparison", 2, 24) in got      # the NULL after WHEN
    assert ("null-comparison", 4, 7) in got
    assert ("not-in-null", 5, 7) in got


def test_findings_are_sorted_by_position():
    sql = "SELECT num FROM t\nWHERE s NOT IN ('a', NULL)\n  AND x = NULL AND NULL = num"
    fs = findings(sql)
    assert [(f.line, f.column) for f in fs] == sorted((f.line, f.column) for f in fs)
    assert len(fs) >= 3


def test_position_of_a_tab_indented_finding_counts_the_tab_as_one_column():
    f = only("SELECT num FROM t WHERE\n\tx = NULL", "null-comparison")
    assert (f.line, f.column) == (2, 2)


def test_positions_count_characters_not_bytes_and_ignore_crlf():
    sql = "SELECT num AS `zähler 日本` FROM t\r\nWHERE s = 'héllo 日本' AND\r\n      x = NULL"
    f = only(sql, "null-comparison")
    assert (f.line, f.column, f.snippet) == (3, 7, "x = NULL")


def test_finding_is_a_frozen_record():
    f = only("SELECT num FROM t WHERE x = NULL", "null-comparison")
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.line = 2  # type: ignore[misc]
    d = f.to_dict()
    assert set(d) == {"code", "message", "line", "column", "severity", "snippet", "suggestion",
                      "end_line", "end_column"}
    assert str(f).startswith("1:25: warning: ")


# ---------------------------------------------------------------------------
# Comparisons with NULL
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("op, suggestion", [("=", "x IS NULL"), ("<>", "x IS NOT NULL"),
                                            ("!=", "x IS NOT NULL"), (">", None), ("<", None),
                                            (">=", None), ("<=", None)])
def test_comparison_with_null_literal_is_reported(op, suggestion):
    f = only(f"SELECT num FROM t WHERE x {op} NULL", "null-comparison")
    assert "always NULL" in f.message
    assert f.suggestion == suggestion
    if suggestion:
        assert f"did you mean `{suggestion}`?" in f.message


def test_null_on_the_left_and_typed_null_are_reported():
    assert only("SELECT num FROM t WHERE NULL = s", "null-comparison").suggestion == "s IS NULL"
    f = only("SELECT num FROM t WHERE num > CAST(NULL AS INT)", "null-comparison")
    assert f.snippet == "num > CAST(NULL AS INT)"


def test_comparison_with_null_in_select_list_is_reported():
    assert "null-comparison" in codes("SELECT num = NULL FROM t")


def test_case_operand_when_null_is_reported():
    f = only("SELECT CASE s WHEN NULL THEN 1 ELSE 2 END FROM t", "null-comparison")
    assert f.suggestion == "CASE WHEN s IS NULL"


@pytest.mark.parametrize("sql", [
    "SELECT num FROM t WHERE x IS NULL",
    "SELECT num FROM t WHERE x IS NOT NULL",
    "SELECT num FROM t WHERE x <=> NULL",
    "SELECT num FROM t WHERE NOT (x <=> NULL)",
    "SELECT num FROM t WHERE x = 1 AND s = 'NULL'",
    "SELECT coalesce(x, NULL), nullif(x, 1) FROM t",
    "SELECT CASE WHEN s IS NULL THEN 1 END FROM t",
])
def test_no_null_comparison_finding(sql):
    assert "null-comparison" not in codes(sql)


# ---------------------------------------------------------------------------
# NOT IN
# ---------------------------------------------------------------------------


def test_not_in_with_null_in_list_is_never_true():
    f = only("SELECT num FROM t WHERE num NOT IN (1, NULL)", "not-in-null")
    assert "never TRUE" in f.message
    assert f.suggestion == "num NOT IN (1)"
    assert f.snippet == "num NOT IN (1, NULL)"


def test_not_over_parenthesized_in_with_null_is_reported():
    f = only("SELECT num FROM t WHERE NOT (num IN (NULL))", "not-in-null")
    assert f.suggestion is None


@pytest.mark.parametrize("sql", [
    "SELECT num FROM t WHERE num NOT IN (1, 2)",
    "SELECT num FROM t WHERE num IN (1, NULL)",
    "SELECT num FROM t WHERE s NOT IN ('a', 'NULL')",
])
def test_no_not_in_null_finding(sql):
    assert "not-in-null" not in codes(sql)


def test_not_in_over_nullable_subquery_column_is_reported():
    f = only("SELECT num FROM t WHERE num NOT IN (SELECT num FROM u)", "not-in-nullable-subquery")
    assert "NOT EXISTS" in f.message and "`num`" in f.message
    assert (f.line, f.column) == (1, 25)


@pytest.mark.parametrize("sql", [
    "SELECT num FROM t WHERE num NOT IN (SELECT y FROM u)",                        # y NOT NULL
    "SELECT num FROM t WHERE num NOT IN (SELECT k FROM n)",                        # k NOT NULL
    "SELECT num FROM t WHERE num NOT IN (SELECT num FROM u WHERE num IS NOT NULL)",
    "SELECT num FROM t WHERE num NOT IN (SELECT v FROM (SELECT num AS v FROM u) q WHERE v > 0)",
    "SELECT num FROM t WHERE num IN (SELECT num FROM u)",                          # not negated
])
def test_no_not_in_nullable_subquery_finding(sql):
    assert "not-in-nullable-subquery" not in codes(sql)


def test_not_in_over_a_subquery_the_rules_prove_empty_is_not_reported():
    sql = "SELECT num FROM t WHERE num NOT IN (SELECT num FROM u WHERE num IS NULL AND y IS NULL)"
    assert "not-in-nullable-subquery" in codes(sql, rules=[])
    assert "not-in-nullable-subquery" not in codes("SELECT num FROM t WHERE num NOT IN "
                                                   "(SELECT num FROM u WHERE y IS NULL)")


def test_not_in_over_outer_joined_column_is_nullable():
    sql = "SELECT num FROM t WHERE num NOT IN (SELECT n.k FROM u LEFT JOIN n ON u.num = n.k)"
    assert "not-in-nullable-subquery" in codes(sql)


# ---------------------------------------------------------------------------
# count over a never-null expression
# ---------------------------------------------------------------------------


def test_count_of_never_null_column_is_same_as_count_star():
    f = only("SELECT count(num) FROM t", "count-never-null")
    assert f.severity == F.INFO and f.suggestion == "count(*)"
    assert (f.line, f.column, f.snippet) == (1, 8, "count(num)")


def test_count_of_never_null_expression_in_group_by_query():
    assert "count-never-null" in codes("SELECT s, count(num + 1) FROM t GROUP BY s")


def test_count_of_column_filtered_not_null_is_same_as_count_star():
    f = only("SELECT count(x) FROM t WHERE x IS NOT NULL", "count-never-null")
    assert "the WHERE lets no NULL through" in f.message
    assert "count-never-null" in codes("SELECT s, count(v) FROM (SELECT s, x AS v FROM t) q "
                                       "WHERE v > 0 GROUP BY s")


@pytest.mark.parametrize("sql", [
    "SELECT count(x) FROM t WHERE x IS NULL OR x > 1",                # lets NULL through
    "SELECT count(x) FROM t WHERE x <=> 1 OR s = 'a'",
    "SELECT count(CAST(s AS INT)) FROM t WHERE s IS NOT NULL",        # the cast may give NULL
    "SELECT count(x) FROM t",                                         # nullable
    "SELECT count(*), count(1) FROM t",                               # already count(*)
    "SELECT count(DISTINCT num) FROM t",                              # not the same as count(*)
    "SELECT count(n.k) FROM t LEFT JOIN n ON t.num = n.k",           # nullable after the join
    "SELECT count(num, x) FROM t",                                    # x nullable
])
def test_no_count_never_null_finding(sql):
    assert "count-never-null" not in codes(sql)


# ---------------------------------------------------------------------------
# WHERE / HAVING / ON never or always TRUE
# ---------------------------------------------------------------------------


def test_where_never_true_returns_no_rows():
    f = only("SELECT num FROM t\nWHERE x = NULL", "never-true")
    assert "the query returns no rows" in f.message
    assert (f.line, f.column) == (2, 7)


def test_where_never_true_under_a_global_aggregate_says_one_row():
    f = only("SELECT count(*) FROM t WHERE num IS NULL", "never-true")
    assert "one row" in f.message


def test_where_never_true_in_a_subquery_says_this_select():
    f = only("SELECT * FROM (SELECT num FROM t WHERE s = NULL) q", "never-true")
    assert "this SELECT returns no rows" in f.message


def test_where_always_true_is_info():
    f = only("SELECT num FROM t WHERE num IS NOT NULL", "always-true")
    assert f.severity == F.INFO


def test_a_part_of_an_and_that_is_always_true_is_info():
    f = only("SELECT num FROM t WHERE num IS NOT NULL AND x > 1", "always-true")
    assert f.severity == F.INFO and f.snippet == "num IS NOT NULL"
    assert "the AND in the WHERE condition is the same without it" in f.message
    assert "always-true" not in codes("SELECT num FROM t WHERE x IS NOT NULL AND x > 1")  # x is nullable


def test_having_never_true():
    f = only("SELECT s FROM t GROUP BY s HAVING count(*) = NULL", "never-true")
    assert f.message.startswith("the HAVING condition")


def test_join_on_never_true():
    f = only("SELECT 1 FROM t JOIN u ON t.num = NULL", "never-true")
    assert "the join returns no rows" in f.message
    g = only("SELECT 1 FROM t LEFT JOIN u ON t.num = NULL", "never-true")
    assert "pads" in g.message


def test_literal_conditions_need_no_rules():
    assert "never-true" in codes("SELECT num FROM t WHERE false", rules=[])
    assert "always-true" in codes("SELECT num FROM t WHERE true", rules=[])


def test_without_rules_no_verdict_on_computed_conditions():
    assert codes("SELECT num FROM t WHERE num IS NULL", rules=[]) == []


@pytest.mark.parametrize("sql", [
    "SELECT num FROM t WHERE x IS NULL",        # x nullable: can be TRUE or FALSE
    "SELECT num FROM t WHERE num = 1",
    "SELECT num FROM t WHERE rand() > 0.5",
])
def test_no_never_or_always_true_finding(sql):
    assert not {"never-true", "always-true"} & set(codes(sql))


def test_excluded_rules_are_not_used_by_the_lints():
    sql = "SELECT num FROM t WHERE num IS NULL"
    assert "never-true" in codes(sql)
    assert "never-true" not in [f.code for f in optimize(sql, S, rules=PROBE_RULES,
                                                         exclude=["ProbeNullFold"]).findings]


# ---------------------------------------------------------------------------
# CASE / IF branches never taken
# ---------------------------------------------------------------------------


def test_case_branch_with_never_true_condition():
    sql = "SELECT CASE WHEN num IS NULL THEN 'none'\n            WHEN num > 1 THEN 'big' END FROM t"
    f = only(sql, "unreachable-branch")
    assert (f.line, f.column, f.snippet) == (1, 18, "num IS NULL")


def test_case_branches_after_an_always_true_condition():
    sql = "SELECT CASE WHEN num IS NOT NULL THEN 1 WHEN x > 0 THEN 2 ELSE 3 END FROM t"
    f = only(sql, "unreachable-branch")
    assert f.snippet == "x > 0" and "always TRUE" in f.message


def test_if_branches():
    assert only("SELECT IF(num IS NULL, 1, 2) FROM t", "unreachable-branch").snippet == "1"
    assert only("SELECT IF(num IS NOT NULL, 1, 2) FROM t", "unreachable-branch").snippet == "2"


def test_no_unreachable_branch_finding():
    assert "unreachable-branch" not in codes(
        "SELECT CASE WHEN x IS NULL THEN 1 WHEN x > 0 THEN 2 ELSE 3 END, IF(s = 'a', 1, 2) FROM t")


def test_case_inside_aggregate_query_is_evaluated():
    sql = "SELECT s, CASE WHEN count(num) IS NULL THEN 0 ELSE 1 END FROM t GROUP BY s"
    assert "unreachable-branch" in codes(sql)


# ---------------------------------------------------------------------------
# Robustness
# ---------------------------------------------------------------------------


def test_passthrough_query_still_gets_text_findings():
    r = optimize("SELECT localtime AS r, num FROM t WHERE x = NULL", S)
    assert r.passthrough is not None
    assert [f.code for f in r.findings] == ["null-comparison"]


def test_findings_with_the_default_rules_have_valid_positions():
    sql = ("SELECT count(t.num), count(x)\nFROM t LEFT JOIN u ON t.num = u.num\n"
           "WHERE x = NULL OR t.s NOT IN ('a', NULL)\nGROUP BY t.s HAVING count(*) > 0")
    r = optimize(sql, S)
    lines = sql.split("\n")
    assert {"null-comparison", "not-in-null", "count-never-null"} <= {f.code for f in r.findings}
    for f in r.findings:
        assert 1 <= f.line <= len(lines) and 1 <= f.column <= len(lines[f.line - 1])
        assert f.severity in (F.ERROR, F.WARNING, F.INFO)


def test_a_failing_lint_is_a_trace_warning_not_an_exception(monkeypatch):
    def boom(*args):
        raise RuntimeError("lint bug")

    monkeypatch.setattr(F, "_null_comparison", boom)
    r = optimize("SELECT num FROM t WHERE x = NULL", S, rules=[])
    assert r.findings == []
    assert any("lints failed" in w for w in r.trace.warnings)


def test_probes_run_only_for_conditions_rules_could_fold(monkeypatch):
    from sparkfold.optimizer import engine

    runs = []
    real = engine.execute
    monkeypatch.setattr(engine, "execute", lambda *a, **k: runs.append(1) or real(*a, **k))
    optimize("SELECT num FROM t WHERE num = 1 AND s = 'a' AND x > 1 + 2", S, rules=PROBE_RULES)
    assert runs == []
    sql = ("SELECT CASE WHEN num IS NULL THEN 1 WHEN x IS NULL THEN 2 END FROM t "
           "WHERE s = NULL")
    fs = findings(sql)
    assert len(runs) == 2  # `num IS NULL` and the WHERE; `x IS NULL` (x nullable) needs none
    assert {f.code for f in fs} >= {"unreachable-branch", "never-true"}


def test_a_column_nullable_in_one_place_and_not_in_another_is_probed_in_each_place():
    # inside the ON, u.y is the right side's never-null column; above the outer join
    # it is nullable: `u.y IS NULL` is then not never TRUE
    sql = ("SELECT CASE WHEN u.y IS NULL THEN 'no match' END FROM t LEFT JOIN u "
           "ON t.num = u.num AND u.y IS NOT NULL")
    for rules in (PROBE_RULES, None):
        got = [f for f in findings(sql, rules) if f.code in ("never-true", "unreachable-branch")]
        assert got == []


def test_deep_or_chain_is_linted_quickly():
    sql = "SELECT num FROM t WHERE " + " OR ".join(f"x = {i}" for i in range(3000)) + " OR x = NULL"
    r = optimize(sql, S, rules=PROBE_RULES)
    assert [f.code for f in r.findings] == ["null-comparison"]
    assert r.timings["lint"] < 5.0


# ---------------------------------------------------------------------------
# The claims, checked on Spark
# ---------------------------------------------------------------------------

NO_ROWS = [
    ("SELECT num FROM t WHERE x = NULL", "never-true"),
    ("SELECT num FROM t WHERE num NOT IN (1, NULL)", "not-in-null"),
    ("SELECT num FROM t WHERE num NOT IN (SELECT num FROM u)", "not-in-nullable-subquery"),
    ("SELECT s FROM t GROUP BY s HAVING count(*) = NULL", "never-true"),
    ("SELECT t.num FROM t JOIN u ON t.num = NULL", "never-true"),
]


@pytest.mark.parametrize("sql, code", NO_ROWS)
def test_claim_no_rows_holds_on_spark(spark, tables, sql, code):
    assert code in codes(sql)
    _, rows = run(spark, sql)
    assert rows == []


@pytest.mark.parametrize("sql", ["SELECT count(num), count(*) FROM t",
                                 "SELECT count(x), count(*) FROM t WHERE x IS NOT NULL"])
def test_claim_count_same_as_count_star_holds_on_spark(spark, tables, sql):
    assert "count-never-null" in codes(sql)
    _, rows = run(spark, sql)
    assert rows[0][0] == rows[0][1]


def test_claim_always_true_holds_on_spark(spark, tables):
    assert "always-true" in codes("SELECT num FROM t WHERE num IS NOT NULL")
    _, a = run(spark, "SELECT num FROM t WHERE num IS NOT NULL")
    _, b = run(spark, "SELECT num FROM t")
    assert sorted(a) == sorted(b)


def test_claim_unreachable_branch_holds_on_spark(spark, tables):
    sql = "SELECT CASE WHEN num IS NULL THEN 'never' WHEN x > 0 THEN 'pos' ELSE 'other' END AS c FROM t"
    assert "unreachable-branch" in codes(sql)
    _, rows = run(spark, sql)
    assert ("never",) not in rows and rows


QUOTED = [  # the same mistakes, their identifiers quoted as a client writing SQL quotes them
    "SELECT `num` FROM `t` WHERE `num` = NULL",
    "SELECT `s` FROM t WHERE `x` <> NULL",
    "SELECT CASE `num` WHEN NULL THEN 1 END FROM t",
    "SELECT `num` FROM t WHERE `num` NOT IN (1, NULL)",
    "SELECT count(`num`) FROM t",
    "SELECT `a`.`num` FROM t `a` LEFT JOIN u `b` ON `a`.`num` = `b`.`num` WHERE `b`.`y` > 1",
]


@pytest.mark.parametrize("sql", QUOTED)
def test_messages_quote_quoted_identifiers_once(sql):
    """A message quotes the user's SQL in backticks, as Markdown does: when the SQL holds
    backticks itself, in double backticks and spaces (`` `num` = NULL ``), never a doubled
    backtick glued to the identifier (``num` = NULL`)."""
    findings = optimize(sql, S).findings
    assert findings
    for f in findings:
        plain = f.message
        for span in re.findall(r"`` (.+?) ``", f.message):
            assert span.count("`") % 2 == 0, f.message  # the user's quoted identifiers, whole
            plain = plain.replace(f"`` {span} ``", "")
        assert "``" not in plain and plain.count("`") % 2 == 0, f.message


# ---------------------------------------------------------------------------
# The parts of a condition; expressions that always raise under ANSI mode
# ---------------------------------------------------------------------------


def test_a_never_true_condition_names_the_conjunct_that_makes_it_so():
    f = only("SELECT num FROM t WHERE x > 1 AND s = 'a' AND num IS NULL", "never-true", rules=None)
    assert (f.line, f.column) == (1, 25) and "(`num IS NULL` is never TRUE)" in f.message, f


def test_a_never_true_side_of_an_or_is_reported_where_it_is():
    sql = "SELECT num FROM t WHERE x > 1 OR (s = 'a' AND num IS NULL)"
    f = only(sql, "never-true", rules=None)
    assert f.snippet == "(s = 'a' AND num IS NULL)" and (f.line, f.column) == (1, 34)
    assert "this side of the OR in the WHERE condition selects no rows" in f.message
    # inside a larger AND, under an OR, at any depth: still the largest part that is never TRUE
    g = only("SELECT num FROM t WHERE s > 'a' AND ((x > 1 AND num IS NULL AND p) OR b = 3)", "never-true", rules=None)
    assert g.snippet == "(x > 1 AND num IS NULL AND p)", g
    # a comparison with NULL is the null-comparison finding's, not reported twice
    assert codes("SELECT num FROM t WHERE x > 1 OR s = NULL", rules=None) == ["null-comparison"]


def test_no_part_is_reported_in_a_condition_that_can_be_true():
    assert codes("SELECT num FROM t WHERE x > 1 OR (s = 'a' AND x IS NULL)", rules=None) == []


def test_claim_never_true_side_of_an_or_holds_on_spark(spark, tables):
    sql = "SELECT num FROM t WHERE x > 1 OR (s = 'a' AND num IS NULL) OR b IS NULL"
    f = only(sql, "never-true", rules=None)
    _, with_part = run(spark, sql)
    _, without = run(spark, sql.replace(" OR " + f.snippet, ""))
    assert sorted(with_part) == sorted(without) and with_part


RAISING = ["CAST('n/a' AS INT)", "1/0", "2147483647 + 1", "CAST(300 AS TINYINT)", "5 % 0"]


@pytest.mark.parametrize("expr", RAISING)
def test_an_expression_that_always_raises_under_ansi_is_reported(spark, tables, expr):
    sql = f"SELECT num, CASE WHEN num > 2 THEN {expr} END AS v FROM t"
    f = only(sql, "always-raises", rules=None)
    assert f.snippet == expr and "whenever it is evaluated" in f.message
    # Spark: each row that reaches it fails the query under ANSI ...
    with pytest.raises(Exception):
        run(spark, sql)
    # ... and with ANSI off it is a value, which the message gives when it is NULL or wraps
    off = optimize(sql, F_CATALOG_ANSI_OFF).findings
    assert [g.code for g in off] == ["always-raises"], off
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        _, rows = run(spark, f"SELECT {expr}")
    finally:
        spark.conf.unset("spark.sql.ansi.enabled")
    value = rows[0][0]
    assert f"is {'NULL' if value is None else value}" in off[0].message or "another value" in off[0].message, \
        (value, off[0].message)


@pytest.mark.parametrize("expr", ["CAST('12' AS INT)", "1/2", "try_cast('n/a' AS INT)", "try_divide(1, 0)",
                                  "num / 0", "2147483646 + 1", "CAST(NULL AS INT) / 0"])
def test_no_always_raises_finding(expr):
    assert "always-raises" not in codes(f"SELECT {expr} FROM t", rules=None)


def test_only_the_innermost_raising_expression_is_reported():
    f = only("SELECT CAST(1 / 0 AS STRING) || 'x' FROM t", "always-raises", rules=None)
    assert f.snippet == "1 / 0"
