"""explain(): sections, the plan change log and its diffs, filters, JSON, colors.

Rewrites come from small rules of the tests' own (PROBE_RULES of test_findings), so
what is asserted does not depend on which rule families have landed."""

from __future__ import annotations

import json
import re

import pytest
from sparkfold.optimizer import optimize
from sparkfold.optimizer.engine import Batch, FixedPoint, Once, Rewrite
from sparkfold.optimizer.explain import (
    FORMAT_VERSION,
    _rewrite_dict,
    changed_places,
    explain_dict,
    expression_changes,
    line_diff,
    parsed_plan_str,
)
from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import logical as L
from sparkfold.plans.ir import types as T
from sparkfold.plans.ir.errors import SparkfoldError
from sparkfold.rules.base import Rule, transform_expressions

from tests.data import STANDARD_SCHEMA as S
from tests.test_findings import PROBE_RULES

FOLD, PRUNE = PROBE_RULES
SECTIONS = ["== Parsed Logical Plan ==", "== Analyzed Logical Plan ==", "== Optimized Logical Plan ==",
            "== Plan Changes ==", "== Summary ==", "== Optimized SQL ==", "== Findings =="]
SQL = "SELECT num, s\nFROM t\nWHERE   x = NULL"


def probe(sql: str = SQL, **kw):
    kw.setdefault("rules", PROBE_RULES)
    return optimize(sql, S, **kw)


# ---------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------


def test_text_has_every_section_in_order():
    text = probe().explain()
    positions = [text.index(s) for s in SECTIONS]
    assert positions == sorted(positions)


def test_plans_look_like_spark():
    text = probe().explain()
    parsed = text[text.index(SECTIONS[0]):text.index(SECTIONS[1])]
    assert "'Project ['num, 's]\n+- 'Filter ('x = NULL)\n   +- 'UnresolvedRelation [t]" in parsed
    analyzed = text[text.index(SECTIONS[1]):text.index(SECTIONS[2])].split("\n")
    assert analyzed[1] == "num: int, s: string"
    assert re.match(r"Project \[num#\d+, s#\d+\]", analyzed[2])
    optimized = text[text.index(SECTIONS[2]):text.index(SECTIONS[3])]
    assert re.search(r"Project \[num#\d+, s#\d+\]\n\+- LocalRelation <empty>, \[num#\d+,x#", optimized)


@pytest.mark.parametrize("sql, lines", [
    ("SELECT /*+ BROADCAST(u) */ * FROM t LATERAL VIEW OUTER explode(array(1)) e AS v SORT BY num",
     ["'UnresolvedHint /*+ BROADCAST(u) */", "+- 'Sort ['num], false", "   +- 'Project [*]",
      "      +- 'Generate explode(array(1)), true, e, ['v]", "         +- 'UnresolvedRelation [t]"]),
    ("SELECT * FROM range(10) r", ["'Project [*]", "+- 'SubqueryAlias r",
                                   "   +- 'UnresolvedTableValuedFunction range(10)"]),
    ("SELECT * FROM (VALUES (1), (NULL)) AS v(a)",
     ["'Project [*]", "+- 'SubqueryAlias v", "   +- 'UnresolvedInlineTable [a], VALUES (1), (NULL)"]),
    ("SELECT * FROM t PIVOT (sum(num) FOR s IN (1, 2)) p",
     ["'Project [*]", "+- 'SubqueryAlias p", "   +- 'Pivot PIVOT(sum('num) FOR 's IN (1, 2))",
      "      +- 'UnresolvedRelation [t]"]),
    ("WITH a AS (SELECT 1 AS one) (SELECT one FROM a) UNION ALL SELECT num FROM t ORDER BY 1 LIMIT 2",
     ["'WithCTE", ":- CTERelationDef a", ":  +- 'Project [1 AS one]", ":     +- OneRowRelation",
      "+- 'GlobalLimit 2", "   +- 'Sort [1], true", "      +- 'Union All", "         :- 'Project ['one]",
      "         :  +- 'UnresolvedRelation [a]", "         +- 'Project ['num]",
      "            +- 'UnresolvedRelation [t]"]),
])
def test_parsed_plan_shows_every_clause(sql, lines):
    assert parsed_plan_str(sql).split("\n") == lines


def test_each_rewrite_is_a_plan_change_log_entry():
    text = probe().explain()
    log = text[text.index(SECTIONS[3]):text.index(SECTIONS[4])]
    assert log.count("=== Applying Rule ") == 2
    assert "=== Applying Rule ProbeNullFold ===\nBatch: Custom, iteration 1, " in log
    assert log.index("ProbeNullFold") < log.index("ProbePruneFilters")


def test_diff_shows_only_the_changed_subtree():
    text = probe(rules=[FOLD]).explain()
    log = text[text.index(SECTIONS[3]):text.index(SECTIONS[4])].split("\n")
    assert "At: Project" in log
    assert any(re.fullmatch(r"Changed: \(x#\d+ = null\) => null", line) for line in log)
    minus = [line for line in log if line.startswith("-")]
    plus = [line for line in log if line.startswith("+")]
    assert len(minus) == 1 and re.fullmatch(r"-Filter \(x#\d+ = null\)", minus[0])
    assert plus == ["+Filter null"]
    assert not any("Project" in line for line in minus + plus)
    assert " +- SubqueryAlias t" in log  # unchanged context below the change


def test_diff_of_an_operator_replaced_by_an_empty_relation():
    d = explain_dict(probe(), rule="ProbePruneFilters")
    (place,) = d["rewrites"][0]["places"]
    assert place["path"] == ["Project"]
    assert place["diff"][0] == "-Filter null"
    assert place["diff"][-1].startswith("+LocalRelation <empty>")
    assert place["before"].startswith("Filter null\n+- SubqueryAlias t")


def test_summary_reports_metrics_batches_and_rules():
    text = probe().explain()
    summary = text[text.index(SECTIONS[4]):text.index(SECTIONS[5])]
    assert "=== Metrics of Executed Rules ===" in summary
    assert "Total number of effective runs: 2" in summary
    assert re.search(r"Custom\s+FixedPoint\(100\)\s+2 iterations\s+converged", summary)
    assert re.search(r"ProbeNullFold\s+2 / 1 ", summary)
    assert "Time: parse" in summary


def test_summary_reports_a_batch_that_did_not_converge():
    flip = Rule("Flip", lambda plan, ctx: transform_expressions(
        plan, lambda e: E.EqualTo(e.right, e.left) if isinstance(e, E.EqualTo) else e))
    r = optimize("SELECT num FROM t WHERE num = 1", S, batches=[Batch("Flipping", FixedPoint(3), (flip,))])
    text = r.explain()
    assert re.search(r"Flipping\s+FixedPoint\(3\)\s+3 iterations\s+NOT converged", text)
    assert "Warning: Max iterations (3) reached for batch Flipping" in text
    assert text.count("=== Applying Rule Flip ===") == 3


def test_optimized_sql_section():
    r = probe()
    text = r.explain()
    assert f"== Optimized SQL ==\n{r.sql}\n" in text
    same = optimize("SELECT num FROM t", S, rules=[]).explain()
    assert "== Optimized SQL ==\nSELECT num FROM t\n(no rule changed the plan" in same
    assert "No rule changed the plan." in same


def test_findings_section_points_at_the_sql():
    text = probe().explain()
    findings = text[text.index(SECTIONS[6]):].split("\n")
    i = next(k for k, line in enumerate(findings) if line.startswith("3:9: warning: `x = NULL`"))
    assert findings[i + 1] == "  | WHERE   x = NULL"
    assert findings[i + 2] == "  |         ^^^^^^^^"
    assert "[null-comparison]" in findings[i]
    assert any(line.startswith("3:9: warning: the WHERE condition") for line in findings)


def test_findings_section_says_none():
    assert optimize("SELECT num FROM t", S, rules=[]).explain().endswith("== Findings ==\nNone.")


def test_passthrough_explains_why():
    r = optimize("SELECT localtime AS r, num FROM t WHERE x = NULL", S)
    text = r.explain()
    assert f"== Passthrough ==\nNot optimized: {r.passthrough}." in text
    assert "== Analyzed Logical Plan ==" not in text and "== Plan Changes ==" not in text
    assert "== Findings ==\n1:" in text
    d = json.loads(r.explain(format="json"))
    assert d["passthrough"] == r.passthrough and d["plans"]["analyzed"] is None and d["rewrites"] == []


def test_color_only_when_asked():
    r = probe()
    assert "\x1b[" not in r.explain()
    colored = r.explain(color=True)
    assert "\x1b[1;36m== Parsed Logical Plan ==\x1b[0m" in colored
    assert "\x1b[32m+Filter null\x1b[0m" in colored
    assert re.sub(r"\x1b\[[0-9;]*m", "", colored) == r.explain()


def test_unknown_format_is_a_clear_error():
    with pytest.raises(SparkfoldError, match="unknown explain format 'xml'"):
        probe().explain(format="xml")


# ---------------------------------------------------------------------------
# Filters
# ---------------------------------------------------------------------------


def test_filter_by_rule():
    r = probe()
    text = r.explain(rule="probeprunefilters")
    assert "=== Applying Rule ProbePruneFilters ===" in text
    assert "=== Applying Rule ProbeNullFold ===" not in text
    assert "1 of 2 rewrites (only rule probeprunefilters)." in text
    d = explain_dict(r, rule=["ProbePruneFilters"])
    assert [w["rule"] for w in d["rewrites"]] == ["ProbePruneFilters"]
    assert d["rewrites"][0]["index"] == 1  # its position in the whole trace
    assert [x["name"] for x in d["summary"]["rules"]] == ["ProbePruneFilters"]
    assert d["filters"] == {"rule": ["ProbePruneFilters"], "batch": None}


def test_filter_by_batch():
    r = optimize(SQL, S, batches=[Batch("Fold", Once(), (FOLD,)), Batch("Prune", Once(), (PRUNE,))])
    d = explain_dict(r, batch="Prune")
    assert [(w["batch"], w["rule"]) for w in d["rewrites"]] == [("Prune", "ProbePruneFilters")]
    assert [b["name"] for b in d["summary"]["batches"]] == ["Prune"]
    text = r.explain(batch="Fold")
    assert "=== Applying Rule ProbeNullFold ===" in text and "ProbePruneFilters ===" not in text


def test_filter_matching_nothing():
    text = probe().explain(rule="NoSuchRule")
    assert "No effective rule (only rule NoSuchRule)." in text
    assert "=== Applying Rule" not in text


# ---------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------

TOP_KEYS = {"format_version", "original_sql", "sql", "changed", "passthrough", "plans", "schema",
            "rewrites", "summary", "timings", "findings", "not_null_facts", "filters"}


def test_json_round_trips_with_the_documented_keys():
    r = probe()
    d = json.loads(r.explain(format="json"))
    assert set(d) == TOP_KEYS
    assert d["format_version"] == FORMAT_VERSION == 1
    assert d["original_sql"] == SQL and d["sql"] == r.sql and d["changed"] is True
    assert set(d["plans"]) == {"parsed", "analyzed", "optimized"}
    assert d["schema"] == [{"name": "num", "type": "int", "nullable": False},
                           {"name": "s", "type": "string", "nullable": True}]
    for w in d["rewrites"]:
        assert set(w) == {"index", "batch", "iteration", "rule", "seconds", "places", "more_places"}
        for p in w["places"]:
            assert set(p) == {"path", "before", "after", "diff", "changes"}
    assert set(d["summary"]) == {"total_runs", "total_seconds", "effective_runs", "effective_seconds",
                                 "batches", "rules", "warnings"}
    assert set(d["summary"]["batches"][0]) == {"name", "strategy", "iterations", "converged", "seconds"}
    assert set(d["summary"]["rules"][0]) == {"name", "runs", "effective", "seconds"}
    assert {"parse", "analyze", "optimize", "generate", "lint"} <= set(d["timings"])
    assert d["findings"] == [f.to_dict() for f in r.findings]
    assert d == explain_dict(r)


def test_json_changes_list_the_smallest_changed_expressions():
    d = explain_dict(probe(), rule="ProbeNullFold")
    (change,) = d["rewrites"][0]["places"][0]["changes"]
    assert re.fullmatch(r"\(x#\d+ = null\)", change["before"]) and change["after"] == "null"


def test_json_with_the_default_rules_loads():
    r = optimize("SELECT count(num) FROM t LEFT JOIN u USING (num) WHERE x = NULL", S)
    d = json.loads(r.explain(format="json"))
    assert [w["index"] for w in d["rewrites"]] == list(range(len(r.trace.rewrites)))
    assert d["summary"]["effective_runs"] == len(r.trace.rewrites)


# ---------------------------------------------------------------------------
# The diff helpers
# ---------------------------------------------------------------------------


def _rel(name):
    return L.Relation(name, (E.Attribute("a", T.INT, True, 1),))


def test_changed_places_finds_each_changed_branch():
    a = E.Attribute("a", T.INT, True, 1)
    branches = [L.Filter(E.EqualTo(a, E.lit(i)), _rel("r")) for i in range(6)]
    before = L.Project((a,), L.Union(tuple(branches)))
    after_branches = list(branches)
    after_branches[1] = L.Filter(E.NULL_BOOL, _rel("r"))
    after_branches[4] = _rel("r")
    places, more = changed_places(before, L.Project((a,), L.Union(tuple(after_branches))))
    assert not more
    assert [(p, b is branches[i]) for (p, b, _, _), i in zip(places, (1, 4))] == \
        [(["Project", "Union"], True), (["Project", "Union"], True)]
    all_changed = L.Project((a,), L.Union(tuple(L.empty_like(b) for b in branches)))
    places, more = changed_places(before, all_changed, limit=4)
    assert len(places) == 4 and more


def test_an_operator_and_its_child_changed_by_one_rule_are_two_places():
    a = E.Attribute("a", T.INT, True, 1)
    before = L.Project((E.Alias(E.Add(a, E.lit(1)), "v", 2),), L.Filter(E.EqualTo(a, E.NULL_BOOL), _rel("r")))
    after = L.Project((E.Alias(E.Add(E.lit(1), a), "v", 2),), L.Filter(E.NULL_BOOL, _rel("r")))
    places, more = changed_places(before, after)
    assert [(p, type(b).__name__, only) for p, b, _, only in places] == \
        [([], "Project", True), (["Project"], "Filter", False)]
    w = _rewrite_dict(0, Rewrite("B", 1, "Both", before, after, 0.0))
    assert w["places"][0]["diff"] == ["-Project [(a#1 + 1) AS v#2]", "+Project [(1 + a#1) AS v#2]"]
    assert w["places"][0]["changes"] == [{"before": "(a#1 + 1)", "after": "(1 + a#1)"}]
    assert w["places"][1]["changes"] == [{"before": "(a#1 = null)", "after": "null"}]


def test_line_diff_cuts_long_unchanged_runs():
    before = [f"line {i}" for i in range(100)]
    after = list(before)
    after[50] = "changed"
    out = line_diff(before, after)
    assert [x for x in out if x[:1] in "-+"] == ["-line 50", "+changed"]
    assert out.count(" ...") == 2 and len(out) < 20


def test_explain_of_a_wide_query_stays_small():
    sql = " UNION ALL ".join(f"SELECT num + {i} AS v FROM t WHERE x = NULL" for i in range(300))
    r = probe(sql)
    text = r.explain()
    assert "(more changed subtrees not shown; the first 4 are)" in text
    assert len(text) < 1_000_000
    json.loads(r.explain(format="json"))


def test_a_part_lifted_out_whole_is_one_change_not_children_paired_by_position():
    # (A AND B) AND true -> A AND B: BooleanSimplification's change is the whole condition,
    # not `true => B` with `A AND B => A`
    r = optimize("SELECT num FROM t WHERE (num > 1 AND x < 2) AND true", S)
    step = next(w for w in r.trace if w.rule == "BooleanSimplification")
    before = next(p for p in step.before.walk() if isinstance(p, L.Filter))
    after = next(p for p in step.after.walk() if isinstance(p, L.Filter))
    changes = expression_changes(before, after)
    assert len(changes) == 1
    assert changes[0][0].endswith("AND true)") and "true" not in changes[0][1]
