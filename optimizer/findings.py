"""Findings: lints about NULL logic, reported with their position in the original SQL.

`optimize()` returns them as `result.findings`, sorted by position; `explain` shows them.

| code                        | severity | what                                                   |
|-----------------------------|----------|--------------------------------------------------------|
| `null-comparison`           | warning  | `a = NULL`, `a <> NULL`, `a > NULL`..., `CASE a WHEN NULL` |
| `not-in-null`               | warning  | `a NOT IN (1, NULL)`: never TRUE                         |
| `not-in-nullable-subquery`  | warning  | `a NOT IN (SELECT b ...)` with `b` nullable              |
| `never-true`                | warning  | a WHERE / HAVING / ON condition that is never TRUE       |
| `always-true`               | info     | a WHERE / HAVING / ON condition, or a part of its AND, that is always TRUE |
| `unreachable-branch`        | warning  | a CASE WHEN / IF branch that is never taken              |
| `count-never-null`          | info     | `count(x)` with x never NULL: the same as `count(*)`     |
| `outer-join-not-outer`      | warning  | an outer join a filter makes inner (its padded rows are dropped) |
| `always-raises`             | warning  | `1/0`, `CAST('n/a' AS INT)`: raises under ANSI mode whenever evaluated |

Where the lints look:
- the parsed sqlglot tree, for what the text says (`a = NULL`, a NULL in a NOT IN list);
  the parser records each expression's character span (`plans.ir.dialect.node_span`);
- the analyzed expressions, for types and nullability: a `SourceMap` installed on the
  analyzer remembers which expression each sqlglot node became;
- the optimizer's trace, for outer joins that are not outer: EliminateOuterJoin's
  rewrites name the joins (by their ON condition, which the `SourceMap` ties to the
  text) whose padded rows a filter above rejects;
- the optimizer's own rules, for "never TRUE" / "always TRUE": a condition is put in a
  small plan `Filter(condition, <a relation of the columns it reads>)` and optimized with
  the batches of the `optimize()` call.  An empty relation means the condition is never
  TRUE (NULL counts as not TRUE, as in WHERE); the Filter disappearing means it always
  is.  So these findings follow whatever rules exist, and say nothing without rules
  (except for conditions written as a literal).  Only conditions holding something the
  NULL and constant rules act on are probed (`_could_fold`), so lints stay cheap.

Findings are advice: a bug in a lint never fails `optimize()` (see `find_all`).
"""

from __future__ import annotations

import itertools
import re
from typing import Callable, Iterable, Sequence

from sqlglot import exp

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from ..plans.ir import types as T
from ..plans.ir.dialect import DIALECT, is_aggregate_call, node_span
from ..plans.ir.records import as_dict, record
from ..plans.ir.tree import transform_up
from ..plans.sql_in.precedence import MEANING as PRECEDENCE
from ..rules.base import RuleContext

from .severities import ERROR, INFO, WARNING
LINT_TABLE = "__sparkfold_lint__"


@record(frozen=True)
class Finding:
    """One finding.  `line` and `column` (1-based) point at the first character of the
    flagged expression, `end_line`/`end_column` at its last; `snippet` is its text;
    `suggestion` a replacement text when there is an obvious one."""

    code: str
    message: str
    line: int
    column: int
    severity: str = WARNING
    snippet: str = ""
    suggestion: str | None = None
    end_line: int | None = None
    end_column: int | None = None

    def to_dict(self) -> dict:
        return as_dict(self)

    def __str__(self) -> str:
        return f"{self.line}:{self.column}: {self.severity}: {self.message} [{self.code}]"


# ---------------------------------------------------------------------------
# sqlglot node -> analyzed expression
# ---------------------------------------------------------------------------


class SourceMap:
    """Remembers, for each sqlglot node the analyzer analyzed, the expression it became
    (the first one, when a CTE is analyzed once per reference; `pairs` has them all)."""

    def __init__(self) -> None:
        self._by_node: dict[int, tuple[exp.Expression, E.Expr]] = {}
        self.pairs: list[tuple[exp.Expression, E.Expr]] = []

    def record(self, analyzer):
        """Install on an `Analyzer` (before `analyze`); returns the analyzer."""
        by_node, pairs = self._by_node, self.pairs

        def recording(node: exp.Expression, out: E.Expr) -> None:
            by_node.setdefault(id(node), (node, out))  # the node is kept alive with its id
            pairs.append((node, out))

        analyzer.exprs.observer = recording
        analyzer.recorded = pairs
        return analyzer

    def expr_for(self, node: exp.Expression | None) -> E.Expr | None:
        if node is None:
            return None
        hit = self._by_node.get(id(node))
        return hit[1] if hit is not None and hit[0] is node else None

    def __len__(self) -> int:
        return len(self._by_node)


# ---------------------------------------------------------------------------
# Positions
# ---------------------------------------------------------------------------


class Text:
    """A text's positions: an offset as (line, column), both from 1, and back."""

    def __init__(self, sql: str):
        self.sql = sql
        self._line_starts: list[int] | None = None  # (found at the first finding: most queries have none)

    def _starts(self) -> list[int]:
        starts = self._line_starts
        if starts is None:
            starts = self._line_starts = [0]
            i = self.sql.find("\n")
            while i >= 0:
                starts.append(i + 1)
                i = self.sql.find("\n", i + 1)
        return starts

    def line_col(self, offset: int) -> tuple[int, int]:
        import bisect

        starts = self._starts()
        i = bisect.bisect_right(starts, offset) - 1
        return i + 1, offset - starts[i] + 1

    def offset(self, line: int, column: int) -> int:
        return self._starts()[line - 1] + column - 1

    def of(self, node: exp.Expression) -> str:
        span = node_span(node)
        if span is None:
            return node.sql(dialect=DIALECT)
        return self.sql[span[0]:span[1] + 1]


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _code(text: str) -> str:
    """The user's SQL quoted in a message, as Markdown quotes code: in backticks, or, when
    it holds backticks itself (a quoted identifier), in double backticks and spaces."""
    return f"`` {text} ``" if "`" in text else f"`{text}`"


class _Collector:
    def __init__(self, sql: str):
        self.text = Text(sql)
        self.findings: list[Finding] = []
        self._seen: set[tuple[str, int]] = set()

    def add(self, code: str, node: exp.Expression, message: str, severity: str = WARNING,
            suggestion: str | None = None, span: tuple[int, int] | None = None) -> None:
        span = span or node_span(node)
        if span is None:
            return  # no position: a lint without a place to point at is not reported
        key = (code, span[0])
        if key in self._seen:
            return
        self._seen.add(key)
        line, col = self.text.line_col(span[0])
        end_line, end_col = self.text.line_col(span[1])
        self.findings.append(Finding(code, message, line, col, severity,
                                     _short(self.text.sql[span[0]:span[1] + 1]), suggestion,
                                     end_line, end_col))


# ---------------------------------------------------------------------------
# Syntactic lints
# ---------------------------------------------------------------------------

_COMPARISONS = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE)


def _unparen(node):
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _is_null(node) -> bool:
    """NULL, (NULL), CAST(NULL AS t)."""
    while True:
        node = _unparen(node)
        if not isinstance(node, (exp.Cast, exp.TryCast)):
            return isinstance(node, exp.Null)
        node = node.this


def _null_comparison(c: _Collector, node: exp.Expression) -> None:
    left, right = node.this, node.expression
    l_null, r_null = _is_null(left), _is_null(right)
    if not (l_null or r_null):
        return
    text = _short(c.text.of(node))
    if l_null and r_null:
        c.add("null-comparison", node, f"{_code(text)} is always NULL, never TRUE: a comparison with "
                                       f"NULL is NULL")
        return
    other = _short(c.text.of(right if l_null else left))
    if isinstance(node, exp.EQ):
        fix = f"{other} IS NULL"
        c.add("null-comparison", node, f"{_code(text)} is always NULL, never TRUE: a comparison with "
                                       f"NULL is NULL; did you mean {_code(fix)}?", suggestion=fix)
    elif isinstance(node, exp.NEQ):
        fix = f"{other} IS NOT NULL"
        c.add("null-comparison", node, f"{_code(text)} is always NULL, never TRUE: a comparison with "
                                       f"NULL is NULL; did you mean {_code(fix)}?", suggestion=fix)
    else:
        c.add("null-comparison", node, f"{_code(text)} is always NULL, never TRUE: a comparison with "
                                       f"NULL is NULL; test for NULL with {_code(other + ' IS NULL')} or "
                                       f"{_code(other + ' IS NOT NULL')}")


def _case_when_null(c: _Collector, node: exp.Case) -> None:
    operand = node.this
    if operand is None:
        return
    for branch in node.args.get("ifs") or ():
        if _is_null(branch.this):
            subject = _short(c.text.of(operand))
            c.add("null-comparison", branch.this,
                  f"{_code('CASE ' + subject + ' WHEN NULL')} never matches: it tests "
                  f"{_code(subject + ' = NULL')}, which is "
                  f"NULL; did you mean {_code('CASE WHEN ' + subject + ' IS NULL')}?",
                  suggestion=f"CASE WHEN {subject} IS NULL")


def _negated_in(node: exp.Not) -> exp.In | None:
    inner = _unparen(node.this)
    return inner if isinstance(inner, exp.In) else None


def _not_in_null_list(c: _Collector, node: exp.Not, in_: exp.In) -> None:
    items = in_.expressions
    if not items or not any(_is_null(i) for i in items):
        return
    value = _short(c.text.of(in_.this))
    rest = [c.text.of(i) for i in items if not _is_null(i)]
    suggestion = f"{value} NOT IN ({', '.join(rest)})" if rest else None
    c.add("not-in-null", node,
          f"{_code(_short(c.text.of(node)))} is never TRUE: with a NULL in the list, NOT IN is FALSE "
          f"or NULL for every row" + (f"; did you mean {_code(suggestion)}?" if suggestion else ""),
          suggestion=suggestion)


# ---------------------------------------------------------------------------
# Lints on analyzed expressions
# ---------------------------------------------------------------------------


def _rejects_null(cond: E.Expr, expr_id: int) -> bool:
    """Is `cond` (a conjunct of a filter) not TRUE whenever the attribute is NULL?"""
    def is_attr(e):
        while isinstance(e, E.Cast):
            e = e.child
        return isinstance(e, E.Attribute) and e.expr_id == expr_id

    match cond:
        case E.IsNotNull(x):
            return is_attr(x)
        case E.EqualNullSafe():
            return False
        case E.Comparison():
            return is_attr(cond.left) or is_attr(cond.right)
        case E.In(value, _):
            return is_attr(value)
        case E.Not(x):
            return not isinstance(x, (E.IsNull, E.IsNotNull, E.EqualNullSafe)) and _rejects_null(x, expr_id)
        case _:
            return False


def _filtered_not_null(plan: L.Plan, expr_id: int) -> bool:
    """Does the plan output the column `expr_id` only non-NULL, because a filter in it
    rejects NULLs (`WHERE b IS NOT NULL`, `WHERE b > 0`)?  Follows the column down
    through renames, sorts, limits and DISTINCT; gives up elsewhere."""
    p = plan
    while True:
        match p:
            case L.Filter(cond, child):
                if any(_rejects_null(x, expr_id) for x in E.split_conjuncts(cond)):
                    return True
                p = child
            case L.Project(projections, child):
                source = None
                for x in projections:
                    if isinstance(x, E.Attribute) and x.expr_id == expr_id:
                        source = x
                    elif isinstance(x, E.Alias) and x.expr_id == expr_id and isinstance(x.child, E.Attribute):
                        source = x.child
                if source is None:
                    return False
                expr_id, p = source.expr_id, child
            case L.SubqueryAlias(_, child) | L.Distinct(child) | L.Sort(_, child) | \
                    L.Limit(_, child) | L.Offset(_, child):
                p = child
            case _:
                return False


def _abstract_aggregates(cond: E.Expr, ids) -> E.Expr:
    """Replace aggregate and window calls by columns of the same type and nullability
    (with ids from `ids`, negative so they meet no real column), so a HAVING condition
    (analyzed before its aggregates are pulled out) or a CASE inside an aggregate query
    can be evaluated as a plain filter."""

    def fn(e: E.Expr) -> E.Expr:
        if isinstance(e, E.Agg) or (isinstance(e, E.Opaque) and e.kind != "scalar"):
            i = next(ids)
            return E.Attribute(f"__agg{-i}", e.data_type, e.nullable, i)
        return e

    if not (cond.deep_mask & (E.Agg.bit | E.Opaque.bit)):
        return cond
    return transform_up(cond, fn, E.Agg.bit | E.Opaque.bit, opaque=(E.Opaque,))


def _columns_of(cond: E.Expr) -> tuple[E.Attribute, ...]:
    """The attributes a condition reads, its subqueries' outer references included."""
    found: dict[int, E.Attribute] = {}
    stack: list = [cond]
    while stack:
        n = stack.pop()
        if isinstance(n, E.Attribute):
            found.setdefault(n.expr_id, n)
        elif isinstance(n, E.SubqueryExpr):
            outer = n.outer_references
            if outer:
                for p in n.plan.walk():
                    for x in p.expressions:
                        for a in x.walk():
                            if isinstance(a, E.Attribute) and a.expr_id in outer:
                                found.setdefault(a.expr_id, a)
        stack.extend(n.children)
    return tuple(found.values())


class _Answer:
    """What the optimizer said about one probe, filled in by `_Evaluator.resolve`."""

    __slots__ = ("value",)

    def __init__(self, value=None):
        self.value = value


class _Evaluator:
    """Asks the optimizer whether conditions are never / always TRUE (see the module
    docstring).  Lints ask during the walk over the query (`truth`, `optimized`) and
    read the answers in a callback (`then`) that `resolve` calls after running the
    probes.  Each probe is optimized on its own: the same attribute may be nullable in
    one probe and not in another (a column above and inside an outer join), so probes
    never share a plan.  Only conditions that pass `_could_fold` are probed, at most
    `runs` per query, over at most `nodes` expression nodes in all and none bigger
    than `largest` (a 10,000-term OR is not probed)."""

    def __init__(self, batches: Sequence, exclude: Iterable[str], ctx: RuleContext,
                 runs: int = 64, nodes: int = 20_000, largest: int = 2_000):
        self.batches = tuple(batches or ())
        self.exclude = tuple(exclude)
        self.ctx = ctx
        self.runs, self.nodes, self.largest = runs, nodes, largest
        self._agg_ids = itertools.count(-1, -1)  # ids of abstracted aggregates, unique
        self._probes: list[tuple[L.Plan, _Answer, Callable[[L.Plan], object]]] = []
        self._callbacks: list = []

    def _affordable(self, plan: L.Plan) -> bool:
        limit = min(self.largest, self.nodes)
        size = 0
        for p in plan.walk():
            for e in p.expressions:
                for _ in e.walk():
                    size += 1
                    if size > limit:
                        return False
        self.nodes -= size
        return True

    def _ask(self, plan: L.Plan, read) -> _Answer:
        answer = _Answer()
        if self.batches and self._affordable(plan):
            self._probes.append((plan, answer, read))
        return answer

    def truth(self, cond: E.Expr | None) -> _Answer:
        """Answer: "never", "always" (TRUE for every row) or None (cannot tell)."""
        if cond is None:
            return _Answer()
        if isinstance(cond, E.Literal):
            return _Answer(_literal_truth(cond))
        if not _could_fold(cond):
            return _Answer()
        cond = _abstract_aggregates(cond, self._agg_ids)
        return self._ask(L.Filter(cond, L.Relation(LINT_TABLE, _columns_of(cond))), _verdict)

    def optimized(self, plan: L.Plan) -> _Answer:
        """Answer: the plan optimized (narrowed nullability, maybe empty), or None."""
        return self._ask(plan, lambda out: out)

    def then(self, callback) -> None:
        self._callbacks.append(callback)

    def resolve(self) -> None:
        from .engine import execute

        for plan, answer, read in self._probes[:self.runs]:
            try:
                out, _ = execute(plan, self.batches, self.ctx, self.exclude)
            except Exception:  # a rule that fails on a probe plan: no verdict
                continue
            answer.value = read(out)
        for callback in self._callbacks:
            callback()


def _could_fold(cond: E.Expr) -> bool:
    """A cheap screen before probing: does the condition hold something the NULL and
    constant rules act on?  A NULL or boolean literal, IS [NOT] NULL or <=> of a
    never-null value, a constant predicate (`1 = 0`), the same value on both sides of
    an operator, or a subquery that may be provably empty.  Conditions without any
    (most of them) are not optimized a second time for the lints."""
    stack = [cond]
    while stack:
        e = stack.pop()
        match e:
            case E.Literal(value) if value is None or isinstance(value, bool):
                return True
            case E.IsNull(c) | E.IsNotNull(c) if not c.nullable:
                return True
            case E.EqualNullSafe() if not (e.left.nullable and e.right.nullable):
                return True
            case E.SubqueryExpr() if _could_be_empty(e.plan):
                return True
            case E.BinaryExpr() if e.left == e.right:
                return True
            case _ if e.children and e.foldable and e.data_type == T.BOOLEAN:
                return True
        stack.extend(e.children)
    return False


def _could_be_empty(plan: L.Plan) -> bool:
    """Might the rules prove the plan empty?  An empty relation, LIMIT 0, or a filter or
    join condition that passes the screen above."""
    for p in plan.walk():
        if L.is_empty_relation(p) or (isinstance(p, L.Limit) and p.count == 0):
            return True
        if isinstance(p, (L.Filter, L.Join)) and p.condition is not None and _could_fold(p.condition):
            return True
    return False


def _verdict(out: L.Plan) -> str | None:
    if L.is_empty_relation(out):
        return "never"
    if isinstance(out, L.Filter) and isinstance(out.child, L.Relation) and \
            isinstance(out.condition, E.Literal):
        return _literal_truth(out.condition)
    if isinstance(out, L.Relation) and out.table == LINT_TABLE:
        return "always"
    return None


def _literal_truth(lit: E.Literal) -> str | None:
    if lit.value is True:
        return "always"
    if lit.value is None or lit.value is False:
        return "never"
    return None


def _not_in_subquery(c: _Collector, node: exp.Not, in_: exp.In, sources: SourceMap,
                     ev: _Evaluator) -> None:
    e = sources.expr_for(in_)
    if not isinstance(e, E.InSubquery):
        return
    plan = e.plan
    nullable = [i for i, a in enumerate(plan.output)
                if a.nullable and not _filtered_not_null(plan, a.expr_id)]
    if not nullable:
        return
    optimized = ev.optimized(plan)

    def report():
        still, out = nullable, optimized.value
        if out is not None and _empty(out):
            return  # NOT IN over no rows is TRUE
        if out is not None and len(out.output) == len(plan.output):
            still = [i for i in nullable if out.output[i].nullable]
        if not still:
            return
        column = plan.output[still[0]].name
        c.add("not-in-nullable-subquery", node,
              f"{_code(_short(c.text.of(node), 60))} returns no rows if the subquery yields a NULL "
              f"(its column {_code(column)} is nullable): NOT IN is then never TRUE; use NOT EXISTS, "
              f"or filter {_code(column + ' IS NOT NULL')} in the subquery")

    ev.then(report)


def _empty(plan: L.Plan) -> bool:
    """An empty relation, under operators that keep it empty."""
    while isinstance(plan, (L.Project, L.Filter, L.SubqueryAlias, L.Sort, L.Limit, L.Offset,
                            L.Distinct)):
        plan = plan.child
    return L.is_empty_relation(plan)


def _count_never_null(c: _Collector, node: exp.Expression, sources: SourceMap,
                      inputs: "_AggregateInputs") -> None:
    e = sources.expr_for(node)
    if not (isinstance(e, E.Agg) and e.name == "count" and not e.distinct and e.args):
        return
    if all(isinstance(a, E.Literal) for a in e.args):
        return  # count(1), count(*)
    below = inputs.of(e)
    filtered = False
    for a in e.args:
        if not a.nullable:
            continue
        base = a
        while isinstance(base, E.Cast) and not base.try_ and \
                not E.cast_may_be_null(base.child.data_type, base.to):
            base = base.child  # a cast that never makes NULL of a value
        if not (isinstance(base, E.Attribute) and below is not None
                and _filtered_not_null(below, base.expr_id)):
            return
        filtered = True
    args = ", ".join(_short(c.text.of(a), 40) for a in _call_args(node)) or "..."
    why = "the WHERE lets no NULL through" if filtered else "it is never NULL"
    c.add("count-never-null", node,
          f"{_code(_short(c.text.of(node), 60))} counts the rows where {args} is not NULL, and "
          f"{why}: the same as `count(*)`", severity=INFO, suggestion="count(*)")


class _AggregateInputs:
    """`_aggregate_inputs` of a plan, computed when a `count(x)` first asks."""

    def __init__(self, plan: L.Plan | None):
        self.plan = plan
        self._found: dict[int, L.Plan] | None = None

    def of(self, agg: E.Agg) -> L.Plan | None:
        if self._found is None:
            self._found = _aggregate_inputs(self.plan)
        return self._found.get(id(agg))


def _aggregate_inputs(plan: L.Plan | None) -> dict[int, L.Plan]:
    """id of each aggregate call in an Aggregate's output -> that Aggregate's input."""
    out: dict[int, L.Plan] = {}
    if plan is None:
        return out
    stack = [plan]
    while stack:
        p = stack.pop()
        stack.extend(p.children)
        for x in p.expressions:
            stack.extend(s.plan for s in L.subquery_plans(x))
        if isinstance(p, L.Aggregate):
            for x in p.aggregates:
                if x.deep_mask & E.Agg.bit:
                    for n in x.walk():
                        if isinstance(n, E.Agg):
                            out.setdefault(id(n), p.child)
    return out


def _call_args(node: exp.Expression) -> list[exp.Expression]:
    args = [node.this] if isinstance(node.this, exp.Expression) else []
    args += list(node.expressions)
    if len(args) == 1 and isinstance(args[0], exp.Distinct):
        args = list(args[0].expressions)
    return args


# -- conditions of WHERE / HAVING / ON ---------------------------------------------


def _consequence(clause: exp.Expression) -> str:
    sel = clause.parent
    if not isinstance(sel, exp.Select):
        return "no row passes it"
    root = sel.parent is None
    aggregate = sel.args.get("group") is None and any(
        f.find_ancestor(exp.Window) is None for p in sel.expressions for f in p.walk() if is_aggregate_call(f))
    if isinstance(clause, exp.Where) and aggregate:
        return "no row reaches the aggregate, which returns one row over an empty input"
    return "the query returns no rows" if root else "this SELECT returns no rows"


def _join_consequence(join: exp.Join) -> str:
    side = (join.args.get("side") or "").upper()
    kind = (join.args.get("kind") or "").upper()
    if kind == "ANTI":
        return "no row is matched, so the anti join keeps every row"
    if side in ("LEFT", "RIGHT", "FULL"):
        return f"no row is matched: the {side} join only pads rows with NULLs"
    return "no pair of rows matches, so the join returns no rows"


def _clause(c: _Collector, what: str, cond_node: exp.Expression, consequence: str,
            sources: SourceMap, ev: _Evaluator) -> None:
    answer = ev.truth(sources.expr_for(cond_node))
    # the parts of an AND / OR condition, each probed too: a part that is never TRUE is
    # why the whole is, or, under an OR, a branch that selects no row
    parts = list(itertools.islice(_parts(cond_node), _MAX_PARTS))
    root = _unparen(cond_node)
    answers = {id(p): ev.truth(sources.expr_for(p)) for p, _ in parts}
    answers[id(root)] = answer

    def never(node) -> bool:
        node = _unparen(node)
        return any(answers.get(id(n)) is not None and answers[id(n)].value == "never"
                   for n in (node, *(p for p, _ in parts if _unparen(p) is node)))

    def always(node) -> bool:
        node = _unparen(node)
        return any(answers.get(id(n)) is not None and answers[id(n)].value == "always"
                   for n in (node, *(p for p, _ in parts if _unparen(p) is node)))

    def report():
        if answer.value in ("never", "always"):
            text = _code(_short(c.text.of(cond_node), 60))  # (placed only when reported: spans cost)
        if answer.value == "never":
            why = [p for p, parent in parts if never(p) and parent is root]
            because = f" ({_code(_short(c.text.of(why[0]), 40))} is never TRUE)" \
                if why and isinstance(root, exp.And) else ""
            c.add("never-true", cond_node, f"the {what} condition {text} is never TRUE{because}: {consequence}")
            return
        if answer.value == "always":
            c.add("always-true", cond_node, f"the {what} condition {text} is always TRUE: it removes no rows",
                  severity=INFO)
        for part, parent in parts:  # the largest parts that are never TRUE in a condition that can be
            if never(part) and not never(parent) and not _null_compared(part):
                where = (f"this side of the OR in the {what} condition selects no rows" if isinstance(parent, exp.Or)
                         else f"the AND around it in the {what} condition is never TRUE either")
                c.add("never-true", part, f"{_code(_short(c.text.of(part), 60))} is never TRUE: {where}")
            elif always(part) and isinstance(parent, exp.And) and not always(parent) and answer.value != "never":
                c.add("always-true", part, f"{_code(_short(c.text.of(part), 60))} is always TRUE: the AND in the "
                                           f"{what} condition is the same without it", severity=INFO)

    ev.then(report)


_MAX_PARTS = 16


def _null_compared(node: exp.Expression) -> bool:
    """`a = NULL` and the like, which null-comparison reports already."""
    node = _unparen(node)
    return isinstance(node, _COMPARISONS) and (_is_null(node.this) or _is_null(node.expression))


def _parts(node: exp.Expression):
    """(part, the AND / OR chain it is an operand of) for the operands of the AND / OR
    tree `node` is the root of, at every depth, outermost first.  A chain `a AND b AND c`
    is one node with three operands (its first link, the root of sqlglot's left-deep
    tree); a part is the node the analyzer saw (parentheses included)."""
    stack = [_unparen(node)]
    while stack:
        top = stack.pop(0)
        if not isinstance(top, exp.Connector):
            continue
        operands: list[exp.Expression] = []
        spine = [top]
        while spine:
            n = spine.pop()
            for kid in (n.expression, n.this):
                (spine if type(kid) is type(top) else operands).append(kid)
        for kid in reversed(operands):
            yield kid, top
            stack.append(_unparen(kid))


# -- expressions that always raise ----------------------------------------------------


def _always_raises(c: _Collector, sources: SourceMap, ansi: bool) -> None:
    """A constant expression whose evaluation raises under ANSI mode (`1/0`,
    `CAST('n/a' AS INT)`, an overflowing sum of literals): each row it is evaluated on
    fails the query (with ANSI off it is NULL instead, most likely not what was meant).
    Only the innermost such expression is reported; one in a branch that is not taken
    is not evaluated, so the message says 'whenever it is evaluated'."""
    from ..plans.ir.evaluate import CannotEvaluate, EvaluationError, evaluate

    raising: dict[int, tuple[exp.Expression, str]] = {}
    for node, e in sources.pairs:
        if id(node) in raising or not (e.foldable and e.may_raise) or isinstance(e, E.Literal):
            continue
        try:
            evaluate(e, ansi=True)
        except EvaluationError as error:
            raising[id(node)] = (node, str(error))
        except (CannotEvaluate, RecursionError):
            pass
    for node, why in raising.values():
        if any(id(n) in raising for n in node.walk() if n is not node):
            continue  # an expression inside it raises: that one is reported
        text = _code(_short(c.text.of(node), 60))
        if ansi:
            c.add("always-raises", node, f"{text} raises an error whenever it is evaluated ({why}): with "
                                         f"ANSI mode on, the query fails on the first row that reaches it")
        else:
            c.add("always-raises", node, f"{text} is {_ansi_off_value(sources.expr_for(node))} with ANSI mode "
                                         f"off, and raises an error with it on ({why}): most likely not "
                                         f"what was meant")


def _ansi_off_value(e: E.Expr | None) -> str:
    from ..plans.ir.evaluate import CannotEvaluate, EvaluationError, evaluate

    try:
        value = evaluate(e, ansi=False) if e is not None else ...
    except (CannotEvaluate, EvaluationError, RecursionError):
        value = ...
    if value is None:
        return "NULL"
    if isinstance(value, int) and not isinstance(value, bool) and e is not None and T.is_integral(e.data_type):
        return f"{value} (it wraps around)"
    return "another value"


# -- outer joins that are not outer -------------------------------------------------

_OUTER = (L.LEFT_OUTER, L.RIGHT_OUTER, L.FULL_OUTER)
_JOIN_KEYWORDS = re.compile(r"\b(LEFT|RIGHT|FULL)(?:\s+OUTER)?\s+JOIN\b", re.IGNORECASE)
_PADS = {L.INNER: (), L.LEFT_OUTER: ("right",), L.RIGHT_OUTER: ("left",), L.FULL_OUTER: ("left", "right")}
_JOIN_WORDS = {L.INNER: "an inner join", L.LEFT_OUTER: "a LEFT JOIN", L.RIGHT_OUTER: "a RIGHT JOIN"}


def _joins(plan: L.Plan):
    """Every Join of the plan, subquery plans included."""
    stack = [plan]
    while stack:
        for op in stack.pop().walk():
            if isinstance(op, L.Join):
                yield op
            for e in op.expressions:
                stack.extend(x.plan for x in e.walk() if isinstance(x, E.SubqueryExpr))


def _outer_joins_made_less_outer(rewrites) -> list[tuple[E.Expr, str, str]]:
    """(ON condition, join type before, after) of each outer join EliminateOuterJoin made
    less outer.  The rule changes only the join type, so the condition is the same
    object before and after its rewrite."""
    out = []
    for r in rewrites:
        if r.rule != "EliminateOuterJoin":
            continue
        before = {id(j.condition): j for j in _joins(r.before) if j.join_type in _OUTER and j.condition is not None}
        for j in _joins(r.after):
            old = before.get(id(j.condition))
            if old is not None and old.condition is j.condition and old.join_type != j.join_type:
                out.append((j.condition, old.join_type, j.join_type))
    return out


def _outer_join_not_outer(c: _Collector, join: exp.Join, sources: SourceMap, made) -> None:
    cond = sources.expr_for(join.args.get("on"))
    side = (join.args.get("side") or "").upper()
    if cond is None or side not in ("LEFT", "RIGHT", "FULL"):
        return
    span = node_span(join)
    if span is None:
        return
    # point at the join's keywords (`LEFT [OUTER] JOIN`), which sqlglot's Join node
    # does not cover: the last such words before the joined relation
    words = list(_JOIN_KEYWORDS.finditer(c.text.sql, 0, span[0]))
    if words and words[-1].group(1).upper() == side:
        span = (words[-1].start(), span[1])
    for e, old, new in made:
        if e is cond or e == cond:
            gone = [s for s in _PADS[old] if s not in _PADS[new]]
            padded = "the " + (gone[0] + " side" if len(gone) == 1 else "left and the right sides")
            c.add("outer-join-not-outer", join, span=span, message=
                  f"this {side} JOIN is {_JOIN_WORDS[new]}: a filter above it rejects the NULLs it pads "
                  f"{padded} with, so the rows without a match are dropped anyway; write "
                  f"{'JOIN' if new == L.INNER else new.split('_')[0].upper() + ' JOIN'}, or move that "
                  f"filter into the ON condition to keep them")
            return


# -- CASE / IF branches -------------------------------------------------------------


def _case_branches(c: _Collector, node: exp.Case, sources: SourceMap, ev: _Evaluator) -> None:
    e = sources.expr_for(node)
    ifs = node.args.get("ifs") or []
    if not isinstance(e, E.CaseWhen) or len(e.branches) != len(ifs):
        return
    answers = [ev.truth(cond) for cond, _ in e.branches]

    def report():
        for i, (answer, branch) in enumerate(zip(answers, ifs)):
            if answer.value == "never":
                c.add("unreachable-branch", branch.this,
                      f"this WHEN branch is never taken: {_code(_short(c.text.of(branch.this), 60))} "
                      f"is never TRUE")
            elif answer.value == "always":
                later = [b.this for b in ifs[i + 1:]]
                default = node.args.get("default")
                if default is not None:
                    later.append(default)
                if later:
                    span = node_span(branch.this)
                    line = c.text.line_col(span[0])[0] if span else 0
                    c.add("unreachable-branch", later[0],
                          f"this branch{' and the ones after it are' if len(later) > 1 else ' is'} "
                          f"never taken: an earlier WHEN (line {line}) is always TRUE")
                return

    ev.then(report)


def _if_branches(c: _Collector, node: exp.If, sources: SourceMap, ev: _Evaluator) -> None:
    e = sources.expr_for(node)
    if not isinstance(e, E.If):
        return
    answer = ev.truth(e.predicate)

    def report():
        cond = _short(c.text.of(node.this), 60) if answer.value else ""
        if answer.value == "never" and node.args.get("true") is not None:
            c.add("unreachable-branch", node.args["true"],
                  f"this IF value is never used: the condition {_code(cond)} is never TRUE")
        elif answer.value == "always" and node.args.get("false") is not None:
            c.add("unreachable-branch", node.args["false"],
                  f"this IF value is never used: the condition {_code(cond)} is always TRUE")

    ev.then(report)


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------


def find_all(sql: str, tree: exp.Expression | None, *, sources: SourceMap | None = None,
             analyzed: L.Plan | None = None, batches: Sequence = (), exclude: Iterable[str] = (),
             ctx: RuleContext | None = None, warnings: list[str] | None = None,
             rewrites: Sequence = ()) -> list[Finding]:
    """Every finding for one query, sorted by position.  Without `sources` (a query that
    was not analyzed) only the lints on the text run; `analyzed` (the plan `sources`
    recorded) lets `count(x)` see the filters below its aggregate; `rewrites` (the
    optimizer's trace) tell which outer joins are not outer.  An internal error in a lint is
    reported in `warnings` (if given) and yields no findings, never an exception."""
    if tree is None or tree.meta.get(PRECEDENCE) is not None:
        return []  # (a tree Spark's parser reads otherwise: advice on it would mislead)
    try:
        return _find(sql, tree, sources, analyzed, batches, exclude, ctx or RuleContext(), rewrites)
    except Exception as e:  # advice must not break optimize(); the warning says it is a bug
        if warnings is not None:
            warnings.append(f"the lints failed ({type(e).__name__}: {e}); please report this as a bug")
        return []


# the nodes `_find` looks at (the classes of its chain of checks)
_LINTED = (*_COMPARISONS, exp.Case, exp.Not, exp.Count, exp.If, exp.Where, exp.Having, exp.Join)


def _find(sql, tree, sources, analyzed, batches, exclude, ctx, rewrites=()) -> list[Finding]:
    c = _Collector(sql)
    ev = _Evaluator(batches, exclude, ctx)
    inputs = _AggregateInputs(analyzed if sources is not None else None)
    made_inner = _outer_joins_made_less_outer(rewrites) if sources is not None else []
    for node in tree.walk():
        if not isinstance(node, _LINTED):  # (most nodes: one check instead of the chain below)
            continue
        if isinstance(node, _COMPARISONS):
            _null_comparison(c, node)
        elif isinstance(node, exp.Case):
            _case_when_null(c, node)
            if sources is not None:
                _case_branches(c, node, sources, ev)
        elif isinstance(node, exp.Not) and (in_ := _negated_in(node)) is not None:
            _not_in_null_list(c, node, in_)
            if sources is not None and in_.args.get("query") is not None:
                _not_in_subquery(c, node, in_, sources, ev)
        elif sources is None:
            continue
        elif isinstance(node, exp.Count):
            _count_never_null(c, node, sources, inputs)
        elif isinstance(node, exp.If) and not isinstance(node.parent, exp.Case):
            _if_branches(c, node, sources, ev)
        elif isinstance(node, exp.Where) and node.this is not None:
            _clause(c, "WHERE", node.this, _consequence(node), sources, ev)
        elif isinstance(node, exp.Having) and node.this is not None:
            _clause(c, "HAVING", node.this, _consequence(node), sources, ev)
        elif isinstance(node, exp.Join) and node.args.get("on") is not None:
            _clause(c, "ON", node.args["on"], _join_consequence(node), sources, ev)
            if made_inner:
                _outer_join_not_outer(c, node, sources, made_inner)
    if sources is not None:
        _always_raises(c, sources, ctx.ansi)
    ev.resolve()
    return sorted(c.findings, key=lambda f: (f.line, f.column, f.code))


__all__ = ["Finding", "SourceMap", "find_all", "ERROR", "WARNING", "INFO"]
