"""`result.explain()`: the plans, every rewrite, a summary, the optimized SQL, the findings.

Text (`format="text"`), in the spirit of Spark's `explain(True)` and of the plan change
log `spark.sql.planChangeLog.level` prints:

    == Parsed Logical Plan ==        the sqlglot tree as unresolved operators ('Project ...)
    == Analyzed Logical Plan ==      output schema, then the plan with attribute ids (num#1)
    == Optimized Logical Plan ==
    == Plan Changes ==               one block per effective rule application:
        === Applying Rule NullPropagation ===
        Batch: <batch>, iteration <n>, <time>
        At: Project > Filter               where the changed subtree sits (from the root)
        Changed: (num#1 = null) => null    the smallest changed expressions
        -Filter (num#1 = null)             the changed subtree, before (-) and after (+)
        +Filter null
         +- Relation t[num#1]
    == NOT NULL Facts ==             the catalog's NOT NULL columns the query reads, where
                                     each comes from, the rules whose rewrites rest on it
    == Summary ==                    Spark's "Metrics of Executed Rules", the batches
                                     (iterations, converged), each rule (runs, effective,
                                     time), warnings, phase timings
    == Optimized SQL ==
    == Findings ==                   `line:column: severity: message [code]`, with the line
                                     of SQL and a caret under the flagged expression

A passthrough query (valid SQL the optimizer does not model) gets a `== Passthrough ==`
section saying why, and its findings from the text alone.

Filters: `rule=` and `batch=` (a name or a list of names, case-insensitive) keep only
the matching rewrites in "Plan Changes" and the matching rows in the summary's rule and
batch tables; totals stay those of the whole run.  `color=True` adds ANSI colors.

JSON (`format="json"`: a JSON string; `explain_dict` returns the same as a dict).
Stable keys (`format_version` 1; new keys may be added, none removed or renamed):

    format_version   1
    original_sql     the input text
    sql              the optimized SQL (the input when nothing changed)
    changed          bool: did any rule change the plan
    passthrough      null, or why the query was passed through unchanged
    plans            {"parsed": str, "analyzed": str | null, "optimized": str | null}
    schema           [{"name", "type", "nullable"}] of the optimized plan (null on passthrough)
    rewrites         [{"index" (position in the whole trace), "batch", "iteration", "rule",
                       "seconds", "places": the smallest changed subtrees (at most
                       MAX_PLACES), each {"path" (operator names from the root),
                       "before", "after" (the subtree as text, at most MAX_TEXT_LINES
                       lines), "diff" (lines prefixed "-", "+", " "), "changes"
                       ([{"before", "after"}]: the smallest changed expressions)},
                       "more_places": bool (places were left out)}]
    summary          {"total_runs", "total_seconds", "effective_runs", "effective_seconds",
                      "batches": [{"name", "strategy", "iterations", "converged", "seconds"}],
                      "rules": [{"name", "runs", "effective", "seconds"}], "warnings": [str]}
    timings          {"parse", "analyze", "optimize", "generate", "lint"}: seconds
    findings         [{"code", "message", "line", "column", "severity", "snippet",
                       "suggestion", "end_line", "end_column"}]
    not_null_facts   [{"table", "column", "source", "rules"}]: the catalog's NOT NULL
                      columns the query reads, where each comes from, and the rules
                      whose rewrites rest on it (`not_null_facts`)
    filters          {"rule": [str] | null, "batch": [str] | null}
"""

from __future__ import annotations

import difflib
import json
import weakref
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from ..plans.ir import types as T
from ..plans.ir.dialect import deep_stack, is_aggregate_call, to_sql
from ..plans.ir.errors import SparkfoldError, UnsupportedError
from ..plans.ir.printer import expr_str, node_line, plan_str
from ..plans.ir.records import record
from ..plans.ir.tree import data_key
from ..plans.sql_in.parse import parse_query

if TYPE_CHECKING:
    from ..plans.ir.tree import Node

FORMAT_VERSION = 1
MAX_PLACES = 4  # changed subtrees shown per rewrite
MAX_CHANGES = 8  # changed expressions listed per subtree
CONTEXT = 3  # unchanged lines kept around a change in a long subtree diff
FULL_DIFF_LINES = 40  # subtrees up to this many lines are shown whole
MAX_RUN = 40  # removed or added lines shown in a row
MAX_TEXT_LINES = 200  # lines of a subtree's text in JSON
SOURCE_WIDTH = 120  # characters of a SQL line shown under a finding


def explain(result, format: str = "text", rule=None, batch=None, color: bool = False,
            where: "Where | None" = None) -> str:
    """`where`: the file the query came from and the line and column its text starts
    at there, so that the text's findings are positioned in that file."""
    if format not in ("text", "json", "html"):
        raise UnsupportedError(f"unknown explain format {format!r}: use 'text', 'json' or 'html'")
    if format == "json":
        return json.dumps(explain_dict(result, rule=rule, batch=batch), indent=2)
    if format == "html":
        from .explain_html import render_html

        w = where or Where("query")
        return render_html({"format_version": FORMAT_VERSION, "statements": [
            {"source": w.name, "statement": 0, "offset": 0, "line": w.line, "column": w.column,
             "explain": explain_dict(result, rule=rule, batch=batch)}]})
    with T.writing_for(result.catalog.timestamp_ntz):  # (the SQL it shows reads as written)
        return deep_stack(_text, result, _names(rule), _names(batch), _Style(color), where)


@record(frozen=True)
class Where:
    """Where a statement's text is in its file: the file's name, and the (1-based) line and
    column of the statement's first character."""

    name: str
    line: int = 1
    column: int = 1

    def position(self, line: int, column: int) -> tuple[int, int]:
        return self.line + line - 1, (column + self.column - 1 if line == 1 else column)


def explain_dict(result, rule=None, batch=None) -> dict:
    with T.writing_for(result.catalog.timestamp_ntz):
        return deep_stack(_dict, result, _names(rule), _names(batch))


def _names(value) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    return tuple(str(v) for v in value)


def _keep(name: str, wanted: tuple[str, ...] | None) -> bool:
    return wanted is None or name.lower() in {w.lower() for w in wanted}


def _rewrites(result, rules, batches):
    return [(i, r) for i, r in enumerate(result.trace.rewrites)
            if _keep(r.rule, rules) and _keep(r.batch, batches)]


# ---------------------------------------------------------------------------
# The changed part of a rewrite
# ---------------------------------------------------------------------------


def _same_shell(a, b) -> bool:
    """Same node type and plain data, same number of children (children not compared)."""
    return (type(a) is type(b)
            and all(data_key(getattr(a, n)) == data_key(getattr(b, n)) for n in a._data_names)
            and len(a.children) == len(b.children))


def changed_places(before: L.Plan, after: L.Plan, limit: int = MAX_PLACES):
    """The smallest plan subtrees that differ: descend while two operators agree on
    everything but their children, into each pair of children that differs.  An
    operator whose own expressions changed while its children changed too is a place
    of its own ("node only": just its line is shown) and the children are searched on.
    Returns ([(operator names from the root, before, after, node_only)], more) where
    `more` says that places beyond `limit` were left out."""
    places: list[tuple[list[str], L.Plan, L.Plan, bool]] = []
    work: list[tuple[list[str], L.Plan, L.Plan]] = [([], before, after)]
    while work:
        path, b, a = work.pop()
        if _same_shell(b, a):
            diff = [(x, y) for x, y in zip(b.children, a.children) if x is not y and x != y]
            own = b._extra_nodes() != a._extra_nodes()
            if diff:
                if own:
                    if len(places) == limit:
                        return places, True
                    places.append((path, b, a, True))
                here = path + [_op_name(b)]
                work.extend((here, x, y) for x, y in reversed(diff))
                continue
        if len(places) == limit:
            return places, True
        places.append((path, b, a, False))
    return places, False


def expression_changes(before: L.Plan, after: L.Plan, limit: int = MAX_CHANGES) -> list[tuple[str, str]]:
    """The smallest expressions that differ between two operators of the same kind
    (empty when their expressions do not line up one to one).  A changed leaf is shown
    with its parent (`count(num#1) => count(1)`, not `num#1 => 1`), unless only its
    nullability changed."""
    xb, xa = before._extra_nodes(), after._extra_nodes()
    if type(before) is not type(after) or len(xb) != len(xa):
        return []
    work: list[tuple[Node, Node, tuple[Node, Node] | None]] = [
        (x, y, None) for x, y in zip(xb, xa) if x is not y and x != y]
    work.reverse()
    out: list[tuple[str, str]] = []
    while work and len(out) < limit:
        x, y, parent = work.pop()
        if _same_shell(x, y) and not isinstance(x, E.SubqueryExpr) and not _lifted(x, y):
            kids = [(p, q, (x, y)) for p, q in zip(x.children, y.children) if p is not q and p != q]
            if kids:
                work.extend(reversed(kids))
                continue
        bt, at = _node_text(x), _node_text(y)
        if bt == at and isinstance(x, E.Expr) and isinstance(y, E.Expr) and x.nullable != y.nullable:
            bt, at = _nullability(x), _nullability(y)
        elif parent is not None and not x.children and not y.children:
            bt, at = _node_text(parent[0]), _node_text(parent[1])
        if (bt, at) not in out:
            out.append((bt, at))
    return out


def _lifted(x, y) -> bool:
    """Is `y` a part of `x` (or `x` of `y`) lifted out whole, as in `(A AND B) AND true ->
    A AND B`?  Then the change is the whole node, not its children paired by position
    (which would read `true => B`)."""
    return any(c == y for c in x.children) or any(c == x for c in y.children)


def _node_text(n) -> str:
    return plan_str(n) if isinstance(n, L.Plan) else expr_str(n)


def _nullability(e: E.Expr) -> str:
    return f"{expr_str(e)} ({'nullable' if e.nullable else 'never null'})"


def _op_name(p: L.Plan) -> str:
    return node_line(p).split(" ", 1)[0]


def line_diff(before: list[str], after: list[str]) -> list[str]:
    """Lines prefixed "-" (only before), "+" (only after) or " " (both).  Long unchanged
    runs are cut to CONTEXT lines around the changes, long changed runs to MAX_RUN lines;
    a line " ..." or "-... (n more lines)" marks a cut."""
    out: list[str] = []
    short = len(before) <= FULL_DIFF_LINES and len(after) <= FULL_DIFF_LINES
    ops = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
    for k, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag == "equal":
            same = before[i1:i2]
            if short or len(same) <= 2 * CONTEXT:
                out.extend(" " + s for s in same)
            else:
                head = same[:CONTEXT] if k > 0 else []
                tail = same[-CONTEXT:] if k < len(ops) - 1 else []
                out.extend(" " + s for s in head)
                out.append(" ...")
                out.extend(" " + s for s in tail)
            continue
        for mark, lines in (("-", before[i1:i2]), ("+", after[j1:j2])):
            out.extend(mark + s for s in lines[:MAX_RUN])
            if len(lines) > MAX_RUN:
                out.append(f"{mark}... ({len(lines) - MAX_RUN} more lines)")
    return out


def _capped(text: str, limit: int = MAX_TEXT_LINES) -> str:
    lines = text.split("\n")
    if len(lines) <= limit:
        return text
    return "\n".join(lines[:limit] + [f"... ({len(lines) - limit} more lines)"])


def _rewrite_dict(index: int, r) -> dict:
    places, more = changed_places(r.before, r.after)
    out = []
    for path, b, a, node_only in places:
        before, after = (node_line(b), node_line(a)) if node_only else (plan_str(b), plan_str(a))
        out.append({"path": path, "before": _capped(before), "after": _capped(after),
                    "diff": line_diff(before.split("\n"), after.split("\n")),
                    "changes": [{"before": x, "after": y} for x, y in expression_changes(b, a)]})
    return {"index": index, "batch": r.batch, "iteration": r.iteration, "rule": r.rule,
            "seconds": r.seconds, "places": out, "more_places": more}


# ---------------------------------------------------------------------------
# The parsed plan: the sqlglot tree as Spark's unresolved operators
# ---------------------------------------------------------------------------


def parsed_tree(node: exp.Expression) -> tuple[str, list]:
    """(text, children) for a parsed query, in the shape of Spark's parsed plan."""
    if isinstance(node, exp.Select):
        out = _parsed_select(node)
    elif isinstance(node, exp.SetOperation):
        kind = type(node)
        distinct = node.args.get("distinct") is not False
        inputs, cur = [node.expression], node.this
        while type(cur) is kind and (cur.args.get("distinct") is not False) == distinct \
                and not _modifiers(cur):
            inputs.append(cur.expression)
            cur = cur.this
        inputs.append(cur)
        name = {exp.Union: "Union", exp.Intersect: "Intersect", exp.Except: "Except"}.get(kind, kind.__name__)
        label = f"'{name}" + ("" if distinct else " All")
        out = (label, [parsed_tree(i) for i in reversed(inputs)])
        if kind is exp.Union and distinct:
            out = ("'Distinct", [("'Union", out[1])])
    elif isinstance(node, exp.Subquery):
        out = parsed_tree(node.this)
        if node.alias:
            out = (f"'SubqueryAlias {node.alias}", [out])
    elif isinstance(node, exp.Paren):
        return parsed_tree(node.this)
    elif isinstance(node, exp.Table):
        if isinstance(node.this, exp.Identifier):
            out = (f"'UnresolvedRelation [{', '.join(p.name for p in node.parts)}]", [])
        else:  # range(10), a table-valued function
            out = (f"'UnresolvedTableValuedFunction {_sql(node.this)}", [])
        for pivot in node.args.get("pivots") or ():
            bare = pivot.copy()
            bare.set("alias", None)
            out = (f"'{'Unpivot' if pivot.args.get('unpivot') else 'Pivot'} {_short(_sql(bare))}", [out])
            if pivot.alias:
                out = (f"'SubqueryAlias {pivot.alias}", [out])
        if node.alias:
            out = (f"'SubqueryAlias {node.alias}", [out])
        return out
    elif isinstance(node, exp.Values):
        bare = node.copy()
        bare.set("alias", None)
        alias = node.args.get("alias")
        names = [c.name for c in alias.columns] if alias is not None else []
        columns = f"[{', '.join(names)}], " if names else ""
        out = (f"'UnresolvedInlineTable {columns}{_short(to_sql(bare))}", [])
        if node.alias:
            out = (f"'SubqueryAlias {node.alias}", [out])
        return out
    else:
        return (f"'{type(node).__name__} {_short(to_sql(node))}", [])
    out = _with_modifiers(node, out) if not isinstance(node, exp.Select) else out
    with_ = node.args.get("with_")
    if with_ is not None:
        defs = [(f"CTERelationDef {cte.alias}", [parsed_tree(cte.this)]) for cte in with_.expressions]
        out = ("'WithCTE", defs + [out])
    return out


def _modifiers(node) -> bool:
    return any(node.args.get(k) for k in ("order", "limit", "offset"))


def _with_modifiers(node, out):
    order = node.args.get("order")
    if order is not None:
        out = (f"'Sort [{', '.join(_sql(o) for o in order.expressions)}], true", [out])
    offset = node.args.get("offset")
    if offset is not None:
        out = (f"'Offset {_sql(offset.expression)}", [out])
    limit = node.args.get("limit")
    if limit is not None:
        out = (f"'GlobalLimit {_sql(limit.expression)}", [out])
    return out


def _parsed_select(sel: exp.Select):
    from_ = sel.args.get("from_")
    rel = parsed_tree(from_.this) if from_ is not None else ("OneRowRelation", [])
    for j in sel.args.get("joins") or []:
        kind = " ".join(x for x in (j.args.get("side"), j.args.get("kind")) if x) or "Inner"
        on = j.args.get("on")
        using = j.args.get("using")
        cond = f", {_cond(on)}" if on is not None else \
            f", USING ({', '.join(_sql(u) for u in using)})" if using else ""
        rel = (f"'Join {kind.title()}{cond}", [rel, parsed_tree(j.this)])
    for lateral in sel.args.get("laterals") or ():
        alias = lateral.args.get("alias")
        columns = ", ".join("'" + c.name for c in alias.columns) if alias is not None else ""
        outer = "true" if lateral.args.get("outer") else "false"
        rel = (f"'Generate {_sql(lateral.this)}, {outer}, {lateral.alias}, [{columns}]", [rel])
    where = sel.args.get("where")
    if where is not None:
        rel = (f"'Filter {_cond(where.this)}", [rel])
    items = ", ".join(_sql(e) for e in sel.expressions)
    group = sel.args.get("group")
    if group is not None or any(_has_aggregate(e) for e in sel.expressions):
        keys = ", ".join(_sql(g) for g in group.expressions) if group is not None else ""
        out = (f"'Aggregate [{keys}], [{items}]", [rel])
    else:
        out = (f"'Project [{items}]", [rel])
    having = sel.args.get("having")
    if having is not None:
        out = (f"'UnresolvedHaving {_cond(having.this)}", [out])
    qualify = sel.args.get("qualify")
    if qualify is not None:
        out = (f"'Qualify {_cond(qualify.this)}", [out])
    if sel.args.get("distinct") is not None:
        out = ("'Distinct", [out])
    for key, label in (("distribute", "'RepartitionByExpression"), ("cluster", "'RepartitionByExpression"),
                       ("sort", "'Sort")):
        clause = sel.args.get(key)
        if clause is not None:
            keys = ", ".join(_sql(e) for e in clause.expressions)
            out = (f"{label} [{keys}]" + (", false" if key == "sort" else ""), [out])
    hint = sel.args.get("hint")
    if hint is not None:
        out = (f"'UnresolvedHint {_short(to_sql(hint))}", [out])
    return _with_modifiers(sel, out)


def _has_aggregate(e: exp.Expression) -> bool:
    """An aggregate call outside window functions (`count(x)`, not `count(x) OVER ()`)."""
    return any(f.find_ancestor(exp.Window) is None for f in e.walk() if is_aggregate_call(f))


def _sql(node: exp.Expression) -> str:
    """An unresolved expression as Spark prints it: columns marked `'num`."""
    def mark(n):
        if isinstance(n, exp.Column) and not isinstance(n.this, exp.Star):
            return exp.var("'" + ".".join(p.name for p in n.parts))
        return n

    return to_sql(node.transform(mark))


def _cond(node: exp.Expression) -> str:
    """A condition, in parentheses when it is a binary operator: `('x = NULL)`."""
    text = _sql(node)
    return f"({text})" if isinstance(node, exp.Binary) else text


def _short(text: str, limit: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def render_tree(root: tuple[str, list]) -> str:
    """Catalyst's layout (`:- ` / `+- `) for (text, children) tuples, iteratively."""
    lines: list[str] = []
    stack = [(root, "", "")]
    while stack:
        (text, kids), first, rest = stack.pop()
        lines.append(first + text)
        pushes = []
        for i, k in enumerate(kids):
            last = i == len(kids) - 1
            pushes.append((k, rest + ("+- " if last else ":- "), rest + ("   " if last else ":  ")))
        stack.extend(reversed(pushes))
    return "\n".join(lines)


def parsed_plan_str(sql: str) -> str:
    return render_tree(parsed_tree(parse_query(sql)))


# ---------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------


def _schema(plan: L.Plan | None):
    if plan is None:
        return None
    return [{"name": a.name, "type": a.data_type.simple_string(), "nullable": a.nullable}
            for a in plan.output]


def _summary(result, rules, batches) -> dict:
    t = result.trace
    return {
        "total_runs": sum(s.runs for s in t.rules.values()),
        "total_seconds": sum(s.seconds for s in t.rules.values()),
        "effective_runs": len(t.rewrites),
        "effective_seconds": sum(r.seconds for r in t.rewrites),
        "batches": [{"name": b.name, "strategy": b.strategy, "iterations": b.iterations,
                     "converged": b.converged, "seconds": b.seconds}
                    for b in t.batches if _keep(b.name, batches)],
        "rules": [{"name": n, "runs": s.runs, "effective": s.effective, "seconds": s.seconds}
                  for n, s in t.rules.items() if _keep(n, rules)],
        "warnings": list(t.warnings),
    }


# The last result's NOT NULL facts (the result held weakly): each fact is an optimize run
# of its own, and the text and the JSON of one result (a notebook's cell shows both) ask
# for them twice.  Replaced whole, so a thread reads one result's pair or another's.
_last_facts: "tuple[Any, list[dict]] | None" = None


def not_null_facts(result) -> list[dict]:
    """The NOT NULL columns of the catalog that the query reads, where each comes from
    (a schema file, Parquet footers, a dbt test...), and the rules whose rewrites rest on
    it: the query is optimized again with just that column nullable, and a rule whose
    change is missing from that run rests on the fact.  (A NOT NULL the data breaks gives
    wrong results; `verify` checks the declarations against the data.)"""
    global _last_facts
    last = _last_facts
    if last is None or last[0]() is not result:
        last = (weakref.ref(result), _not_null_facts(result))
        _last_facts = last
    return [dict(f, rules=list(f["rules"])) for f in last[1]]


def _not_null_facts(result) -> list[dict]:
    if result.analyzed is None:
        return []
    cat, facts, seen = result.catalog, [], set()
    for node in L.relations(result.analyzed):
        try:
            schema = cat.lookup(node.table)
        except SparkfoldError:
            continue
        read = {a.name.lower() for a in node.output}
        for col in schema.columns:
            key = (schema.name.lower(), col.name.lower())
            if not col.nullable and col.name.lower() in read and key not in seen:
                seen.add(key)
                facts.append((node.table, schema, col))
    if not facts:
        return []
    base = _changes(result)
    out = []
    for name, schema, col in facts:
        again = result.reoptimized(cat.without_not_null(name, col.name))
        lost = base - _changes(again) if again.analyzed is not None else base
        out.append({"table": schema.name, "column": col.name, "source": schema.fact_source(col),
                    "rules": sorted({rule for rule, _ in lost})})
    return out


def _changes(result):
    """What each rule changed, expression by expression (the runs being compared analyze
    the same text, so their attribute ids are the same)."""
    from collections import Counter

    return Counter((r.rule, (c["before"], c["after"])) for i, r in enumerate(result.trace.rewrites)
                   for place in _rewrite_dict(i, r)["places"] for c in place["changes"])


def _dict(result, rules, batches) -> dict:
    return {
        "format_version": FORMAT_VERSION,
        "original_sql": result.original_sql,
        "sql": result.sql,
        "changed": result.changed,
        "passthrough": result.passthrough,
        "plans": {
            "parsed": parsed_plan_str(result.query_original_sql),
            "analyzed": plan_str(result.analyzed) if result.analyzed is not None else None,
            "optimized": plan_str(result.optimized) if result.optimized is not None else None,
        },
        "schema": _schema(result.optimized),
        "rewrites": [_rewrite_dict(i, r) for i, r in _rewrites(result, rules, batches)],
        "summary": _summary(result, rules, batches),
        "timings": dict(result.timings),
        "findings": [f.to_dict() for f in result.findings],
        "not_null_facts": not_null_facts(result),
        "filters": {"rule": list(rules) if rules is not None else None,
                    "batch": list(batches) if batches is not None else None},
    }


# ---------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------


class _Style:
    CODES = {"header": "1;36", "rule": "1;35", "minus": "31", "plus": "32", "dim": "2",
             "error": "1;31", "warning": "33", "info": "34", "caret": "1;33"}

    def __init__(self, color: bool):
        self.color = color

    def __call__(self, kind: str, text: str) -> str:
        if not self.color or not text:
            return text
        return f"\x1b[{self.CODES[kind]}m{text}\x1b[0m"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


def _text(result, rules, batches, st: _Style, where: Where | None = None) -> str:
    out: list[str] = []

    def section(title: str) -> None:
        if out:
            out.append("")
        out.append(st("header", f"== {title} =="))

    section("Parsed Logical Plan")
    out.append(parsed_plan_str(result.query_original_sql))
    if result.passthrough is not None:
        section("Passthrough")
        out.append(f"Not optimized: {result.passthrough}.")
        out.append("The query is returned unchanged; only the lints on the SQL text ran.")
    else:
        section("Analyzed Logical Plan")
        out.append(", ".join(f"{a.name}: {a.data_type.simple_string()}" for a in result.analyzed.output))
        out.append(plan_str(result.analyzed))
        section("Optimized Logical Plan")
        out.append(plan_str(result.optimized))
        _plan_changes(out, section, result, rules, batches, st)
        facts = not_null_facts(result)
        if facts:
            section("NOT NULL Facts")
            for f in facts:
                rests = (f"rewrites of {', '.join(f['rules'])} rest on it" if f["rules"]
                         else "no rewrite rests on it")
                out.append(f"{f['table']}.{f['column']} NOT NULL, from {f['source']}: {rests}")
        _summary_text(out, section, result, rules, batches)
    section("Optimized SQL")
    out.append(result.sql)
    if not result.changed:
        out.append(st("dim", "(no rule changed the plan: this is the original text)"))
    _findings_text(out, section, result, st, where)
    return "\n".join(out)


def _filter_note(rules, batches) -> str:
    parts = []
    if rules is not None:
        parts.append(f"rule {', '.join(rules)}")
    if batches is not None:
        parts.append(f"batch {', '.join(batches)}")
    return f" (only {'; '.join(parts)})" if parts else ""


def _plan_changes(out, section, result, rules, batches, st) -> None:
    chosen = _rewrites(result, rules, batches)
    section("Plan Changes")
    total = len(result.trace.rewrites)
    if not chosen:
        out.append(f"No effective rule{_filter_note(rules, batches)}." if total or rules or batches
                   else "No rule changed the plan.")
        return
    if len(chosen) != total:
        out.append(f"{len(chosen)} of {total} rewrites{_filter_note(rules, batches)}.")
    for n, (i, r) in enumerate(chosen):
        d = _rewrite_dict(i, r)
        if n:
            out.append("")
        out.append(st("rule", f"=== Applying Rule {r.rule} ==="))
        out.append(f"Batch: {r.batch}, iteration {r.iteration}, {_ms(r.seconds)}")
        for place in d["places"]:
            if not place["path"] and len(d["places"]) > 1:
                out.append("At: (root)")
            _place_text(out, place, st)
        if d["more_places"]:
            out.append(st("dim", f"(more changed subtrees not shown; the first {MAX_PLACES} are)"))


def _place_text(out, place, st) -> None:
    if place["path"]:
        out.append(f"At: {' > '.join(place['path'])}")
    for c in place["changes"]:
        out.append(f"Changed: {_short(c['before'], 200)} => {_short(c['after'], 200)}")
    if all(line[:1] == " " for line in place["diff"]):
        out.append(f" {place['before'].split(chr(10), 1)[0]}")
        out.append(st("dim", "(the plan text is unchanged: only nullability changed)"))
        return
    for line in place["diff"]:
        kind = {"-": "minus", "+": "plus"}.get(line[:1])
        out.append(st(kind, line) if kind else line)


def _summary_text(out, section, result, rules, batches) -> None:
    s = _summary(result, rules, batches)
    section("Summary")
    out.append("=== Metrics of Executed Rules ===")
    out.append(f"Total number of runs: {s['total_runs']}")
    out.append(f"Total time: {s['total_seconds']:.6f} seconds")
    out.append(f"Total number of effective runs: {s['effective_runs']}")
    out.append(f"Total time of effective runs: {s['effective_seconds']:.6f} seconds")
    if s["batches"]:
        out.append(f"Batches{_filter_note(None, batches)}:")
        w = max(len(b["name"]) for b in s["batches"])
        for b in s["batches"]:
            state = "converged" if b["converged"] else "NOT converged"
            plural = "s" if b["iterations"] != 1 else ""
            out.append(f"  {b['name']:<{w}}  {b['strategy']:<15} {b['iterations']:>3} iteration{plural:<1}"
                       f"  {state:<13}  {_ms(b['seconds'])}")
    if s["rules"]:
        out.append(f"Rules (runs / effective / time){_filter_note(rules, None)}:")
        w = max(len(r["name"]) for r in s["rules"])
        for r in s["rules"]:
            out.append(f"  {r['name']:<{w}}  {r['runs']:>4} / {r['effective']:<4} {_ms(r['seconds'])}")
    for warning in s["warnings"]:
        out.append(f"Warning: {warning}")
    if result.timings:
        out.append("Time: " + ", ".join(f"{k} {_ms(v)}" for k, v in result.timings.items()))


def _findings_text(out, section, result, st, where: Where | None = None) -> None:
    section("Findings")
    if not result.findings:
        out.append("None.")
        return
    lines = result.original_sql.split("\n")
    for f in result.findings:
        at = f"{f.line}:{f.column}"
        if where is not None:
            line, col = where.position(f.line, f.column)
            at = f"{where.name}:{line}:{col}"
        out.append(f"{at}: {st(f.severity, f.severity)}: {f.message} [{f.code}]")
        if 1 <= f.line <= len(lines):
            text = lines[f.line - 1].rstrip("\r").expandtabs(1)
            end = f.end_column if f.end_line == f.line and f.end_column else len(text)
            start = f.column - 1
            if len(text) > SOURCE_WIDTH:  # a window around the finding on a long line
                left = max(0, start - 30)
                right = min(len(text), max(end, left + SOURCE_WIDTH - 30))
                prefix = "..." if left else ""
                text = prefix + text[left:right] + ("..." if right < len(text) else "")
                start, end = start - left + len(prefix), min(end, right) - left + len(prefix)
            out.append(f"  | {text}")
            out.append(f"  | {' ' * start}{st('caret', '^' * max(1, end - start))}")


__all__ = ["Where", "explain", "explain_dict", "changed_places", "expression_changes", "line_diff",
           "parsed_plan_str", "FORMAT_VERSION"]
