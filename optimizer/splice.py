"""Optimized SQL that reads like the input: the user's text with just the rewrites applied.

The writer regenerates a whole query from its plan (CTEs inlined, every column qualified,
the user's layout and comments gone).  For review, `spliced` keeps the input's text and
replaces only the parts a rewrite changed:

1. The analyzed plan (no rule applied) is written by the same writer as the optimized one,
   each node marked with the plan expression it was written from.  The two regenerated
   trees differ exactly where the rules changed something, in the writer's own shape.
2. Both trees are compared top-down.  At the smallest node that differs and that was
   written from an expression the analyzer read from one node of the input (the
   analyzer's `SourceMap`), that input node's text is replaced by the optimized tree's
   node, written in the input's style (its keyword case; columns unqualified where the
   input writes them so).  A chain of ANDs is compared conjunct by conjunct: a conjunct
   the rules added goes after the one before it, with the input's separator, and one
   they dropped is cut out with its AND.
3. The result is checked, not trusted: it is parsed, analyzed and written again, and must
   give exactly the optimized plan's SQL.  The writer is the same canonical form both
   times, so equal text is the same plan.  Anything else (a piece that reads differently
   in its new place, a name the input's scope does not have) gives None, and the caller
   keeps the regenerated query.

Comments inside a replaced piece lead the query, as the regenerated query's do.
"""

from __future__ import annotations

import decimal
import difflib
import re
from typing import Any, Callable, cast

from sqlglot import exp
from sqlglot.tokens import TokenType

from ..plans.ir import logical as L
from ..plans.ir import types as T
from ..plans.ir.dialect import DIALECT, node_span
from ..plans.sql_in.analyzer import Analyzer
from ..plans.sql_in.parse import parse_query
from ..plans.sql_out.expressions import _PRECEDENCE as _PRECEDENCE_KNOWN
from ..plans.sql_out.expressions import WRITTEN_FROM, _prec
from ..plans.sql_out.literals import literal_sql
from ..plans.sql_out.to_sql import SqlGenerator
from .output_nullability import written_nullability

# sqlglot nodes that are operators, not calls whose arguments stand between commas
_OPERATOR_FUNCS = (exp.Between, exp.In, exp.Is, exp.Like, exp.ILike, exp.RegexpLike, exp.Connector,
                   exp.Binary, exp.Unary)
_COMPARISONS = (exp.EQ, exp.NullSafeEQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE)
# tokens that are not keywords (their case is the user's data or names)
_NOT_KEYWORDS = {TokenType.VAR, TokenType.IDENTIFIER, TokenType.STRING, TokenType.NUMBER,
                 TokenType.NATIONAL_STRING, TokenType.RAW_STRING, TokenType.BIT_STRING,
                 TokenType.HEX_STRING, TokenType.BYTE_STRING}


class _Failed(Exception):
    """No checkable splice: keep the regenerated query."""


def spliced(sql: str, tree: exp.Expression, sources: Any, catalog: Any, before: exp.Expression,
            written: list, target: exp.Expression, target_sql: Callable[[], str] | None = None,
            target_plan: L.Plan | None = None) -> str | None:
    """The input `sql` (parsed as `tree`, analyzed with `sources` recorded) with the parts
    that differ between `before` (the analyzed plan as the writer writes it, recording
    into `written`) and `target` (the plan `target_plan` so written; `target_sql`, when
    the caller has one, writes its text on one line) replaced; None when that cannot be
    done checkably."""
    inputs = _input_nodes(sources, tree)
    differ = _Differ(lambda node: _input_node(node, written, inputs), sql)
    try:
        edits = differ.diff(before, target)
    except (_Failed, RecursionError):
        return None
    if not edits:
        return sql if differ.respelled else None
    if any(e[0] is tree for e in edits if e[0] is not None):
        return None
    style = _Style(sql, tree)
    respelled = _spelling if differ.respelled else None

    def written_text() -> str:
        if respelled is not None:  # (compared as spelled alike: see `_spelling`)
            return respelled(target).sql(dialect=DIALECT, normalize_functions=False, copy=False)
        return target_sql() if target_sql is not None else target.sql(dialect=DIALECT, normalize_functions=False)

    # a text left as written where the plan respells it may type a column otherwise (Spark
    # types `CAST(0 AS DECIMAL(3,2))` nullable, an int may not fit; the literal the writer
    # writes for it, `CAST(0.00 AS DECIMAL(3, 2))`, NOT NULL): it must type each as the
    # optimized plan written does
    nullable = written_nullability(target_plan) if respelled and target_plan is not None else None
    for unqualified in (True, False):
        text = _apply(sql, edits, style, unqualified)
        if text is not None and _reads_as(text, catalog, written_text, None if respelled else target_plan,
                                          respelled, nullable):
            return text
    return None


def _reads_as(text: str, catalog, target_sql: Callable[[], str], target_plan: L.Plan | None,
              respelled: Callable | None = None, nullable: list | None = None) -> bool:
    """Is `text` the query `target_sql()` says, as the writer writes it?  Read back, it is
    when its plan is `target_plan` but for ids and nullability (which the writer does not
    print: `same_but_ids`), else when it is written as that same text (both spelled by
    `respelled`, when given); and, when `nullable` is given, when Spark types each
    output column nullable or NOT NULL as it says (None: either)."""
    try:
        tree = parse_query(text, placed=False)  # (its nodes are never placed)
    except Exception:  # the candidate does not read back: it is not the query
        return False
    return _read_back_is(tree, text, catalog, target_sql, target_plan, respelled, nullable)


def _read_back_is(tree: exp.Expression, text: str, catalog, target_sql: Callable[[], str],
                  target_plan: L.Plan | None, respelled: Callable | None = None,
                  nullable: list | None = None) -> bool:
    """`_reads_as`, for `text` parsed as `tree`."""
    try:
        plan = Analyzer(catalog, text).analyze(tree)
    except Exception:  # the candidate does not read back: it is not the query
        return False
    if nullable is not None and any(want is not None and got is not None and want != got for want, got in
                                    zip(nullable, written_nullability(plan, original=True))):
        return False
    hint = tree.args.get("hint") if isinstance(tree, exp.Select) else None
    if hint is None and target_plan is not None and L.same_but_ids(plan, target_plan):
        return True
    try:
        again = SqlGenerator().query(plan)
    except Exception:
        return False
    if hint is not None:
        if not isinstance(again, exp.Select):
            return False
        again.set("hint", hint.copy())
    if respelled is not None:
        again = respelled(again)
    # (printed without sqlglot's defensive copy: `again` is not used after)
    return again.sql(dialect=DIALECT, normalize_functions=False, copy=False) == target_sql()


def _spelling(node: exp.Expr) -> exp.Expr:
    """The node with what only spells the same thing otherwise made one spelling: a CASE
    without `ELSE NULL` (what no ELSE means), `NOT b` for `b = false` and `b` for
    `b = true` (a column or a predicate b: the same value, NULL included), and a number
    cast to a decimal that holds it exactly as that decimal's literal (`CAST(0 AS
    DECIMAL(12, 2))`, the analyzer's coercion of `coalesce(amount, 0)`, is the `0.00` that
    ConstantFolding makes of it).  A rewrite that only respells is not worth a change in
    the user's text."""
    return _spellings(node)[id(node)]


def _spellings(node: exp.Expr) -> dict[int, exp.Expr]:
    """`_spelling(part)` by id(part), for `node` and each part of it that the respelling
    reaches (it respells top-down, and a part it replaced is not respelled within): each
    is that part's place in node's respelt copy, which is what respelling the part alone
    gives.  One copy of the whole node, not one per part asked about."""
    out = node.copy()
    twins = dict(zip((id(n) for n in node.walk(bfs=False)), out.walk(bfs=False)))
    for case in list(out.find_all(exp.Case)):
        if isinstance(case.args.get("default"), exp.Null):
            case.set("default", None)
    spelt: dict[int, exp.Expr] = {}

    def respell(n: exp.Expr) -> exp.Expr:
        if type(n) is exp.EQ:
            for b, other in ((n.this, n.expression), (n.expression, n.this)):
                if isinstance(b, exp.Boolean) and _boolean_operand(other):
                    if b.this:
                        return other.copy()
                    n = exp.Not(this=other.copy() if _prec(other) > _prec(exp.Not()) else exp.Paren(this=other.copy()))
                    break
        if type(n) is exp.Not and isinstance(n.this, exp.Paren) and _prec(n.this.this) > _prec(n):
            n = exp.Not(this=n.this.this.copy())  # (NOT binds looser than what it wraps)
        if type(n) is exp.Cast and (literal := _exact_decimal(n)) is not None:
            n = literal
        return n

    def recorded(n: exp.Expr) -> exp.Expr:
        spelt[id(n)] = respell(n)
        return spelt[id(n)]

    out.transform(recorded, copy=False)
    return {i: spelt[id(twin)] for i, twin in twins.items() if id(twin) in spelt}


_PLAIN_NUMBER = re.compile(r"-?\d+(?:\.\d+)?\Z")


def _exact_decimal(cast_: exp.Cast) -> exp.Expression | None:
    """`CAST(n AS DECIMAL(p, s))` of a number literal n, negated or not, that DECIMAL(p,
    s) holds without rounding, written as the writer writes that decimal's literal
    (`literal_sql`: `0BD`, `1.50`, `CAST(0.00 AS DECIMAL(12, 2))`).  Such a cast has that value in both modes, no error (None: any
    other cast)."""
    to = cast_.to
    if to.this != exp.DataType.Type.DECIMAL or len(to.expressions) != 2:
        return None
    operand, sign = cast_.this, ""
    if type(operand) is exp.Neg:
        operand, sign = operand.this, "-"
    if type(operand) is not exp.Literal or operand.is_string:
        return None
    text = sign + operand.this
    if not _PLAIN_NUMBER.match(text):
        return None
    try:
        precision, scale = (int(e.this.this) for e in to.expressions)
    except (AttributeError, TypeError, ValueError):
        return None
    if not 0 <= scale <= precision <= T.MAX_PRECISION:
        return None
    to_type = T.DecimalType(precision, scale)
    exact = T.decimal_digits(decimal.Decimal(text), to_type)
    return None if exact is None else literal_sql(exact, to_type)


def _boolean_operand(node: exp.Expr) -> bool:
    """Is `node` compared with `true` / `false` a boolean of its own: a column (the rule
    that writes `NOT c` for `c = false` wrote it for a boolean c) or a predicate?"""
    inner = node.this if isinstance(node, exp.Paren) else node
    return isinstance(inner, (exp.Column, exp.Predicate, exp.Not, exp.Connector, exp.Exists))


def _input_nodes(sources, tree: exp.Expression) -> dict:
    """Plan expression -> the input nodes it was analyzed from."""
    out: dict = {}
    seen: dict = {}
    for node, e in sources.pairs:
        try:
            nodes = out.setdefault(e, [])
            ids = seen.setdefault(e, set())
        except TypeError:  # an unhashable expression: not a place to splice
            continue
        if id(node) not in ids:
            ids.add(id(node))
            nodes.append(node)
    spans = None
    for e, nodes in out.items():
        if len(nodes) > 1:  # a node and its parentheses (or alias) read as one expression: the inner one
            spans = spans if spans is not None else _subtree_spans(tree)
            out[e] = _innermost(nodes, spans)
    return out


def _subtree_spans(tree: exp.Expression) -> dict[int, tuple[int, int]]:
    """id(node) -> (its index in the tree's preorder, the index of its subtree's last node)."""
    order = list(tree.walk(bfs=False))
    size = {id(n): 1 for n in order}
    for n in reversed(order):
        if n.parent is not None and id(n.parent) in size and n is not tree:
            size[id(n.parent)] += size[id(n)]
    return {id(n): (i, i + size[id(n)] - 1) for i, n in enumerate(order)}


def _innermost(nodes: list, spans: dict) -> list:
    """The nodes with no other node of the list under them.  In preorder a node's
    descendants follow it, so a node has one of the list under it exactly when the next
    one of the list (in preorder) starts within its subtree."""
    if any(id(n) not in spans for n in nodes):  # not from the tree: walk up from each
        ids = {id(n) for n in nodes}
        outer = set()
        for m in nodes:
            up = m.parent
            while up is not None:
                if id(up) in ids:
                    outer.add(id(up))
                up = up.parent
        return [n for n in nodes if id(n) not in outer]
    ranked = sorted(nodes, key=lambda n: spans[id(n)][0])
    outer = {id(a) for a, b in zip(ranked, ranked[1:]) if spans[id(b)][0] <= spans[id(a)][1]}
    return [n for n in nodes if id(n) not in outer]


def _input_node(node: exp.Expression, written: list, inputs: dict) -> list:
    """The input nodes `node` (of the analyzed plan's SQL) was written from: one, or
    none.  When equal expressions came from several input nodes (`3 + 2` in two
    subqueries), the one under the input node of the nearest ancestor that has one input
    node; with no such ancestor, all of them (each changed alike, or the check fails)."""
    found = _candidates(node, written, inputs)
    if len(found) <= 1:
        return found
    if _select_item(node):
        # a bare column in a select list (`SELECT u.y ... WHERE u.y > 0`): the input's
        # column at the same place in a select list, when only one is
        items = [n for n in found if _select_item(n) and n.index == node.index]
        if len(items) == 1:
            return items
    up = node.parent
    while up is not None:
        above = _candidates(up, written, inputs)
        if len(above) == 1:
            inside = [n for n in found if _under(n, above[0])]
            if len(inside) == 1:
                return inside
            # equal expressions under one input node (`d BETWEEN c AND c + i`): the k-th
            # of them as written is the k-th as the writer writes them
            mine = written[node.meta[WRITTEN_FROM]]
            peers = [n for n in up.walk() if n._meta and WRITTEN_FROM in n.meta
                     and written[n.meta[WRITTEN_FROM]] == mine]
            if len(peers) != len(inside):
                return []
            inside.sort(key=lambda n: node_span(n) or (0, 0))
            return [x for p, x in zip(peers, inside) if p is node]
        up = up.parent
    return found


def _select_item(node: exp.Expr) -> bool:
    return isinstance(node.parent, exp.Select) and node.arg_key == "expressions"


def _candidates(node: exp.Expr, written: list, inputs: dict) -> list:
    i = node.meta.get(WRITTEN_FROM) if node._meta else None
    if i is None:
        return []
    try:
        return inputs.get(written[i], [])
    except TypeError:
        return []


def _under(node: exp.Expr | None, ancestor: exp.Expr) -> bool:
    while node is not None:
        if node is ancestor:
            return True
        node = node.parent
    return False


# An edit: (input node, replacement) replaces the node's text; (None, (start, end, piece))
# puts `piece` (a node, or "" to delete) over sql[start:end], after a separator when the
# piece is a node (`sep` in the tuple's 4th place).


class _Differ:
    def __init__(self, input_node: Callable, sql: str):
        self.input_node = input_node
        self.sql = sql
        self._counts: dict[int, int] = {}
        self._trees: tuple[exp.Expr, exp.Expr] | None = None  # the first call's: all later calls' are parts
        self._spelt: dict[int, exp.Expr] | None = None
        self.respelled = False  # were differences of spelling only left as written?

    def diff(self, before: exp.Expr, after: exp.Expr) -> list:
        if self._trees is None:
            self._trees = (before, after)
        if before == after:
            return []
        if type(before) is exp.Cast and (literal := _exact_decimal(before)) is not None and literal == after:
            self.respelled = True  # a number and the decimal literal it is cast to
            return []
        if type(before) is type(after):
            if isinstance(before, exp.And):
                chain = self._conjuncts(before, cast(exp.And, after))
                if chain is not None:
                    return chain
            try:
                if isinstance(before, exp.Join) and _join_kind(before) != _join_kind(cast(exp.Join, after)):
                    return self._join(before, cast(exp.Join, after))
                return self._args(before, after)
            except _Failed:
                pass
        if self._spelling(before) == self._spelling(after):
            self.respelled = True  # a rewrite that only spells the same thing otherwise
            return []
        targets = self.input_node(before)
        if not targets:
            raise _Failed
        kept = self._kept(before, after)
        return [(target, after, kept) for target in targets]

    def _spelling(self, node: exp.Expr) -> exp.Expr:
        """`_spelling(node)`, from the whole trees' respelt copies where it is a part of
        them: the trees are compared level by level, and respelling each level's subtree
        afresh would be quadratic in their depth (a UNION of 300 branches: 604 copies of
        ever larger subtrees, 150 s)."""
        if self._spelt is None:
            self._spelt = {**_spellings(self._trees[0]), **_spellings(self._trees[1])} if self._trees else {}
        spelt = self._spelt.get(id(node))
        return spelt if spelt is not None else _spelling(node)

    def _kept(self, before: exp.Expr, after: exp.Expr) -> list:
        """The largest parts of `after` that are parts of `before` as written from one
        input node: (the part, that input node), whose text the replacement keeps."""
        parts: dict = {}
        for node in before.walk():
            if node is not before and len(node.args) > 0:  # (a bare name is as well written again)
                try:
                    parts.setdefault(node, node)
                except TypeError:
                    continue
        kept: list = []
        stack = [after]
        while stack:
            node = stack.pop()
            try:
                same = parts.get(node)
            except TypeError:
                same = None
            found = self.input_node(same) if same is not None else []
            if len(found) == 1 and node_span(found[0]) is not None:
                kept.append((node, found[0]))
                continue
            stack.extend(reversed(list(node.iter_expressions())))
        return kept

    def _conjunct_count(self, node: exp.And) -> int:
        """len(list(node.flatten())), remembered for every AND under it: a chain is
        compared level by level, and flattening it at each level would be quadratic."""
        counts = self._counts
        stack = [node]
        while stack:
            top = stack[-1]
            if id(top) in counts:
                stack.pop()
                continue
            kids = [k for k in (top.this, top.expression) if type(k) is exp.And and id(k) not in counts]
            if kids:
                stack.extend(kids)
                continue
            stack.pop()
            counts[id(top)] = sum(counts[id(k)] if type(k) is exp.And else 1 for k in (top.this, top.expression))
        return counts[id(node)]

    def _join(self, before: exp.Join, after: exp.Join) -> list:
        """A join of another kind (an outer join made inner): its keywords, as written up
        to the joined table, and whatever changed inside.  The input's join is found by
        its ON condition."""
        on = before.args.get("on")
        found = self.input_node(on) if on is not None else []
        join = found[0].parent if len(found) == 1 else None
        if not isinstance(join, exp.Join) or join.args.get("on") is not found[0] or join.this is None:
            raise _Failed
        table = node_span(join.this)
        words = _JOIN_WORDS.search(self.sql, 0, table[0]) if table is not None else None
        if words is None:
            raise _Failed
        edits = self._args(before, after, skip=("side", "kind"))
        keyword = " ".join(w for w in (*_join_kind(after), "JOIN") if w)
        edits.append((None, (words.start(1), words.end(1), _Keyword(keyword), "")))
        return edits

    def _args(self, before: exp.Expr, after: exp.Expr, skip=()) -> list:
        # (in the nodes' order, not a set's: which key fails first must not hang on the hash seed)
        keys = [k for k, v in (*before.args.items(), *after.args.items()) if v not in (None, []) and k not in skip]
        edits: list = []
        for key in dict.fromkeys(keys):
            b, a = before.args.get(key), after.args.get(key)
            if key == "default" and isinstance(before, exp.Case) and isinstance(b, exp.Null) and a is None:
                self.respelled = True  # `ELSE NULL` is what a CASE without ELSE means
                continue
            if key in ("where", "having") and b is not None and a is None:
                edits.append(self._clause_dropped(b))
                continue
            if isinstance(b, list) and isinstance(a, list):
                if len(b) != len(a):
                    raise _Failed
                pairs = list(zip(b, a))
            else:
                pairs = [(b, a)]
            for x, y in pairs:
                if isinstance(x, exp.Expression) and isinstance(y, exp.Expression):
                    edits.extend(self.diff(x, y))
                elif x != y:
                    raise _Failed
        return edits

    def _clause_dropped(self, clause: exp.Expression) -> tuple:
        """Cut a WHERE or HAVING the rules dropped (its condition always true), keyword and
        all, with the space before it.  The input's clause is found by its condition."""
        found = self.input_node(clause.this)
        cond = found[0] if len(found) == 1 else None
        if cond is None or not isinstance(cond.parent, (exp.Where, exp.Having)):
            raise _Failed
        span = node_span(cond)
        word = "WHERE" if isinstance(cond.parent, exp.Where) else "HAVING"
        keyword = re.search(rf"(?<![\w`]){word}\s+\Z", self.sql[:span[0]], re.I) if span else None
        if keyword is None:
            raise _Failed
        start = len(self.sql[:keyword.start()].rstrip())
        return (None, (start, cast("tuple[int, int]", span)[1] + 1, "", ""))

    def _conjuncts(self, before: exp.And, after: exp.And) -> list | None:
        """A chain of ANDs, conjunct by conjunct (None: compare it as a tree)."""
        if self._conjunct_count(before) == self._conjunct_count(after):
            return None
        old, new = list(before.flatten()), list(after.flatten())
        found = [self.input_node(c) for c in old]
        if any(len(n) != 1 for n in found):
            return None
        nodes = [n[0] for n in found]
        spans = cast("list[tuple[int, int]]", [node_span(n) for n in nodes])
        if any(s is None for s in spans) or any(spans[i][1] >= spans[i + 1][0] for i in range(len(spans) - 1)):
            return None  # not one chain of the input, in order
        edits: list = []
        matcher = difflib.SequenceMatcher(None, [c.sql() for c in old], [c.sql() for c in new], autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "equal":
                continue
            if op == "replace" and i2 - i1 == j2 - j1:
                for x, y in zip(old[i1:i2], new[j1:j2]):
                    edits.extend(self.diff(x, y))
                continue
            for k in range(i1, i2):  # cut each dropped conjunct with its AND
                node, parent = nodes[k], nodes[k].parent
                if not isinstance(parent, exp.And):
                    return None
                if node is parent.expression:  # from the end of the operand before it
                    start, end = _span(parent.this)[1] + 1, spans[k][1] + 1
                else:  # up to the operand after it
                    start, end = spans[k][0], _span(parent.expression)[0]
                edits.append((None, (start, end, "", "")))
            if j2 > j1:  # add new[j1:j2] after the conjunct before them (or before the first)
                if len(old) < 2:
                    return None
                sep = self.sql[spans[0][1] + 1:spans[1][0]]
                if "--" in sep or "/*" in sep:
                    sep = " AND "
                if i1 > 0:
                    at = spans[i1 - 1][1] + 1
                    for piece in new[j1:j2]:
                        edits.append((None, (at, at, piece, sep)))
                else:
                    at = spans[0][0]
                    for piece in new[j1:j2]:
                        edits.append((None, (at, at, piece, "\0" + sep)))
        return edits


# the keywords of a join, just before its table
_JOIN_WORDS = re.compile(r"(?<![\w`])((?:(?:NATURAL|LEFT|RIGHT|FULL|INNER|OUTER|CROSS|SEMI|ANTI)\s+)*JOIN)\s+\Z", re.I)


def _span(node: exp.Expr) -> tuple[int, int]:
    span = node_span(node)
    if span is None:  # not a node of the input's text
        raise _Failed
    return span


def _join_kind(join: exp.Join) -> tuple[str, str]:
    return (join.args.get("side") or "").upper(), (join.args.get("kind") or "").upper()


class _Keyword:
    """Keywords put in place as written, in the input's keyword case."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


# the keywords every query has, to tell the input's keyword case (outside quotes and comments)
_COMMON_KEYWORDS = re.compile(r"\b(select|from|where|and|or|join|on|group|by|order|as|having|with|case|when|then|else|end)\b",
                              re.I)
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|--[^\n]*|/\*.*?\*/", re.S)


class _Style:
    """How the input writes what a replacement must write: keyword case, and the
    columns it writes without a table."""

    def __init__(self, sql: str, tree: exp.Expression):
        words = _COMMON_KEYWORDS.findall(_QUOTED.sub(" ", sql))
        self.lower_keywords = sum(w.islower() for w in words) > sum(w.isupper() for w in words)
        self.unqualified = {c.name.lower() for c in tree.find_all(exp.Column) if not c.table}
        self.spelled: dict[str, str] = {}  # function name, lower case -> as the input spells it
        for f in tree.find_all(exp.Func):
            name = f.this if isinstance(f, exp.Anonymous) else (f.meta.get("name") if f._meta else None)
            if isinstance(name, str) and name:
                self.spelled.setdefault(name.lower(), name)

    def write(self, node: exp.Expression, unqualified: bool, indent: str | None = None,
              place: exp.Expression | None = None) -> str:
        """The node's SQL in the input's style (put in place of the input node `place`);
        over several lines, each after the first led by `indent`, when `indent` is given.
        A column is written without its table where `place` writes it so (or, when
        `place` does not write it, where the input does)."""
        node = node.copy()
        if unqualified:
            bare = _written_bare(place) if place is not None else {}
            for col in node.find_all(exp.Column):
                name = col.name.lower()
                here = bare.get(name)
                if col.table and not col.args.get("db") and (here if here is not None else name in self.unqualified):
                    col.set("table", None)
        for f in node.find_all(exp.Func):  # a function named as the input spells it
            anonymous = isinstance(f, exp.Anonymous)
            name = f.this if anonymous else (f.meta.get("name") if f._meta else None) or f.sql_name()
            spelled = self.spelled.get(name.lower()) if isinstance(name, str) else None
            if spelled is not None and spelled != name:
                if anonymous:
                    f.set("this", spelled)
                else:
                    f.meta["name"] = spelled
        # (the node is this call's copy: printed without sqlglot's defensive copy)
        text = node.sql(dialect=DIALECT, normalize_functions=False, pretty=indent is not None, copy=False)
        if indent is not None:
            text = text.replace("\n", "\n" + indent)
        if not self.lower_keywords:
            return text
        out, pos = [], 0
        try:
            tokens = DIALECT.tokenize(text)
        except Exception:
            return text
        for t in tokens:
            if t.token_type not in _NOT_KEYWORDS and t.text.isalpha() and t.text.isupper():
                start = t.end - len(t.text) + 1
                if text[start:t.end + 1] == t.text:
                    out.append(text[pos:start])
                    out.append(t.text.lower())
                    pos = t.end + 1
        out.append(text[pos:])
        return "".join(out)


def _written_bare(place: exp.Expression) -> dict[str, bool]:
    """For each column name the input node writes: does it write it only without a table?"""
    out: dict[str, bool] = {}
    for c in place.find_all(exp.Column):
        name = c.name.lower()
        out[name] = out.get(name, True) and not c.table
    return out


def _needs_parens(parent: exp.Expr | None, arg_key: str | None, replacement: exp.Expr) -> bool | None:
    """Must `replacement` be parenthesized as the `arg_key` operand of `parent`?  The
    check reads the text with sqlglot's grammar, which takes more than Spark's
    (`a IN (...) IS NULL` parses there, not on Spark): so the rules are the writer's
    own, which are Spark's, and any other operator-like parent gets parentheses."""
    mine = _prec(replacement)
    if mine >= 100 or parent is None or isinstance(parent, (exp.Paren, exp.Where, exp.Having, exp.Select,
                                                           exp.Alias, exp.Ordered, exp.Group, exp.Order)):
        return False
    if isinstance(parent, exp.Func) and not isinstance(parent, _OPERATOR_FUNCS):
        return False  # a function's argument, between its commas
    if isinstance(parent, exp.Connector):  # AND / OR
        floor, strict = _prec(parent), arg_key == "expression"
    elif isinstance(parent, exp.Not):
        floor, strict = 4, False
    elif isinstance(parent, (exp.Is, exp.In, exp.Between, exp.Like, exp.ILike, exp.RegexpLike)):
        floor, strict = 5, False
    elif isinstance(parent, _COMPARISONS):
        floor, strict = 4, True
    elif isinstance(parent, (exp.Neg, exp.BitwiseNot)):
        floor, strict = _prec(parent), True
    elif isinstance(parent, exp.Binary) and type(parent) in _PRECEDENCE_KNOWN:
        floor, strict = _prec(parent), arg_key == "expression"
    elif isinstance(parent, (exp.Tuple, exp.Distinct, exp.Bracket)):
        return True  # parentheses are always read there
    else:
        return None  # an operator whose grammar this does not know: no splice there
    return mine < floor or (strict and mine == floor)


def _apply(sql: str, edits: list, style: _Style, unqualified: bool) -> str | None:
    spans: dict = {}
    for node, replacement, *more in edits:
        if node is None:
            start, end, piece, sep = replacement
            if isinstance(piece, exp.Expression):
                text = style.write(piece, unqualified)
                if _prec(piece) <= _prec(exp.And()):
                    text = f"({text})"
                text = text + sep[1:] if sep.startswith("\0") else sep + text
            elif isinstance(piece, _Keyword):
                text = piece.text.lower() if style.lower_keywords else piece.text
            else:
                text = piece
            # typed for both branches: compiled, the first assignment's type (an empty
            # tuple of kept spans) would be enforced on the second
            key: tuple = (start, end, text, ())
        else:
            span = node_span(node)
            if span is None:
                return None
            line_start = sql.rfind("\n", 0, span[0]) + 1
            several = "\n" in sql[span[0]:span[1] + 1]
            indent = "".join(c if c in " \t" else " " for c in sql[line_start:span[0]]) if several else None
            kept = more[0] if more else []
            written = _keeping(sql, replacement, kept, lambda n: style.write(n, unqualified, indent, node))
            if written is None:
                return None
            text, kept_spans = written
            parens = _needs_parens(node.parent, node.arg_key, replacement)
            if parens is None:
                return None
            if parens:
                text = f"({text})"
            key = (span[0], span[1] + 1, text, kept_spans)
        spans[key] = None
    ordered = sorted(spans, key=lambda k: (k[0], k[1]))  # stable: added conjuncts keep their order
    for (s0, e0, *_), (s1, e1, *_) in zip(ordered, ordered[1:]):
        if s1 < e0 or (s0 == s1 and e0 == e1 and s0 != e0):
            return None  # overlapping pieces (one input node standing for two different ones)
    out, pos, lost = [], 0, []
    for start, end, text, kept_spans in ordered:
        out.append(sql[pos:start])
        out.append(text)
        cut, at = [], start
        for k0, k1 in sorted(kept_spans):  # (comments in the parts kept stay where they are)
            cut.append(sql[at:k0])
            at = k1
        cut.append(sql[at:end])
        lost.extend(_comments(" ".join(cut)))
        pos = end
    out.append(sql[pos:])
    body = "".join(out)
    return _lead_with(lost, body)


def _keeping(sql: str, replacement: exp.Expression, kept: list, write: Callable) -> tuple | None:
    """The replacement written by `write`, with the parts of it that `kept` pairs with an
    input node in that node's text as the user wrote it; and the spans of the text kept.
    None when a kept part's place cannot be told."""
    if not kept:
        return write(replacement), ()
    copy = replacement.copy()
    twin = {id(a): b for a, b in zip(replacement.walk(bfs=False), copy.walk(bfs=False))}
    marks, spans = {}, []
    for i, (part, source) in enumerate(kept):
        mark = f"__sparkfold_kept_{i}__"
        place = twin[id(part)]
        while isinstance(source, exp.Paren) and node_span(source.this) is not None:
            # the text inside the parentheses, parenthesized again only where it needs to
            # be: Spark reads `FROM t WHERE (TRUE)` as the alias WHERE with a column list
            source = source.this
        span = cast("tuple[int, int]", node_span(source))
        text = sql[span[0]:span[1] + 1]
        if place is copy:  # the whole replacement: a part of what it replaces
            return text, ((span[0], span[1] + 1),)
        parens = _needs_parens(place.parent, place.arg_key, source)
        if parens is None:
            return None
        marks[mark] = f"({text})" if parens else text
        spans.append((span[0], span[1] + 1))
        place.replace(exp.var(mark))
    text = write(copy)
    if any(text.count(mark) != 1 for mark in marks):
        return None
    for mark, piece in marks.items():
        text = text.replace(mark, piece)
    return text, tuple(spans)


def _lead_with(comments: list[str], text: str) -> str:
    """The text led by these comments (the regenerated query keeps its comments so too)."""
    if not comments:
        return text
    lines: list[str] = []
    for c in comments:
        if "*/" in c:
            lines.extend(f"-- {ln}" for ln in c.splitlines())
        else:
            lines.append(f"/* {c} */")
    return "\n".join(lines) + "\n" + text


def _comments(text: str) -> list[str]:
    if "--" not in text and "/*" not in text:
        return []
    try:
        tokens = DIALECT.tokenize(text)
    except Exception:
        return []
    return [c.strip() for t in tokens for c in t.comments if c.strip() and not c.strip().startswith("+")]
