"""Nested WITHs under spark.sql.legacy.ctePrecedencePolicy=LEGACY, read as Spark reads them.

Spark's CTESubstitution (its LEGACY branch) inlines every CTE read, WITH by WITH:
- the WITHs of the query's relation tree (its FROM items, derived tables, set operation
  branches) are taken bottom-up, the innermost first, again until none is left;
- taking a WITH, each definition in turn has the earlier ones substituted into it, then
  the body has them all; a substitution reaches the relation tree, the bodies of the
  WITHs inside it (not their definitions), and every subquery expression, which it
  then takes in its turn (so there an outer name wins over an inner WITH's);
- a subquery expression that no WITH reached is taken when Spark analyzes it.
So a name read inside a CTE's definition, or inside a subquery expression, is the outer
WITH's when both define it; a WITH nested in a definition does not see the CTEs around
it (its own definitions read the catalog); and a definition no read reaches is never
analyzed.  Names compare as Spark's resolver does (case-insensitive).

`as_lexical(sql, tree)` gives a text that means the same under LEGACY and as sparkfold
reads CTEs (each name the innermost visible definition's, as under CORRECTED): the CTEs
that LEGACY reads otherwise renamed apart, each read of one renamed with its old name as
its alias.  A read LEGACY binds differently at two of its copies, or to a definition not
visible where it stands, cannot be written so: NotModelled.  The rest of LEGACY's meaning
holds as it is: every read inlined computes a non-deterministic CTE once per read, and
sparkfold passes a non-deterministic CTE read twice through in any case.
"""

from __future__ import annotations

import copy
from typing import Any
from dataclasses import field

from sqlglot import exp

from ..ir.records import record
from .expr_context import NotModelled
from .parse import parse_query

KEY = "spark.sql.legacy.ctePrecedencePolicy"


def legacy_policy(unmodelled: tuple[tuple[str, str], ...]) -> bool:
    return any(k == KEY and v.strip().lower() == "legacy" for k, v in unmodelled)


# -- the plan as CTESubstitution sees it ----------------------------------------------

@record(eq=False)
class _Ref:
    """An unqualified table name that a CTE may replace; `origin`: its Table node's index."""
    name: str
    origin: int


@record(eq=False)
class _Op:
    """Any other operator: its relation children, and the plans of its subquery expressions."""
    children: list = field(default_factory=list)
    subqueries: list = field(default_factory=list)


@record(eq=False)
class _With:
    defs: list  # (lower-case name, definition's index, plan)
    child: Any  # (not `object`: the compiled record class fails on import with it)


_QUERY = (exp.Select, exp.SetOperation, exp.Subquery, exp.Values)


class _Builder:
    def __init__(self) -> None:
        self.tables: list[exp.Table] = []
        self.ctes: list[exp.CTE] = []

    def query(self, node: exp.Expression) -> object:
        op = _Op()
        self._collect(node, node, op)
        with_ = node.args.get("with_")
        if with_ is None:
            return op
        if with_.args.get("recursive"):
            raise NotModelled("WITH RECURSIVE under spark.sql.legacy.ctePrecedencePolicy=LEGACY")
        defs = []
        for cte in with_.expressions:
            self.ctes.append(cte)
            defs.append((cte.alias.lower(), len(self.ctes) - 1, self.query(cte.this)))
        return _With(defs, op)

    def _collect(self, root: exp.Expression, node: exp.Expression, op: _Op) -> None:
        stack = [(child, k) for k, child in _args(node) if k != "with_"]
        while stack:
            n, key = stack.pop()
            if isinstance(n, exp.Table):
                op.children.append(self._table(n)) if _relation(n, root) else op.subqueries.append(self._table(n))
                continue
            if isinstance(n, _QUERY) and n is not root:
                (op.children if _relation(n, root) else op.subqueries).append(self.query(n))
                continue
            stack.extend((c, k) for k, c in _args(n))

    def _table(self, t: exp.Table) -> object:
        self.tables.append(t)
        if isinstance(t.this, exp.Identifier) and not t.args.get("db") and not t.args.get("catalog"):
            return _Ref(t.name.lower(), len(self.tables) - 1)
        return _Op()


def _args(node: exp.Expression):
    for k, v in node.args.items():
        for c in (v if isinstance(v, list) else [v]):
            if isinstance(c, exp.Expression):
                yield k, c


def _relation(n: exp.Expression, root: exp.Expression) -> bool:
    """Does `n` sit in `root`'s relation tree (a FROM item, a join's relation, a derived
    table, a set operation's branch), not inside an expression?"""
    while n is not root:
        parent = n.parent
        if parent is None:
            return False
        key = n.arg_key
        if isinstance(parent, exp.SetOperation) and key in ("this", "expression"):
            pass
        elif isinstance(parent, (exp.From, exp.Join)) and key == "this":
            pass
        elif isinstance(parent, (exp.Subquery, exp.Paren)) and key == "this":
            pass
        elif isinstance(parent, exp.Select) and key in ("from_", "from", "joins"):
            pass
        else:
            return False
        n = parent
    return True


class _Legacy:
    """CTESubstitution's LEGACY branch over the plan; `bound[i]`: the definitions the
    Table node i was replaced by, at each of its copies (None: left to the catalog)."""

    def __init__(self) -> None:
        self.bound: dict[int, set] = {}

    def analyze(self, plan):
        """The Substitution batch to its fixed point, then each subquery expression left,
        as Spark's ResolveSubquery analyzes it."""
        while _has_with(plan):
            plan = self.traverse(plan)
        stack = [plan]
        while stack:
            x = stack.pop()
            if isinstance(x, _Op):
                x.subqueries = [self.analyze(s) for s in x.subqueries]
                stack.extend(x.children)
        return plan

    def traverse(self, n):
        if isinstance(n, _Op):
            n.children = [self.traverse(c) for c in n.children]
            return n
        if isinstance(n, _With):
            n.child = self.traverse(n.child)
            rels: list = []
            for name, index, d in n.defs:
                rels.append((name, index, self.substitute(d, list(rels))))
            return self.substitute(n.child, rels)
        return n

    def substitute(self, n, rels):
        if isinstance(n, _Ref):
            for name, index, d in rels:
                if name == n.name:
                    self.bound.setdefault(n.origin, set()).add(index)
                    return copy.deepcopy(d)
            return n
        if isinstance(n, _Op):
            n.children = [self.substitute(c, rels) for c in n.children]
            n.subqueries = [self.traverse(self.substitute(s, rels)) for s in n.subqueries]
            return n
        if isinstance(n, _With):
            n.child = self.substitute(n.child, rels)
        return n

    def unbound(self, plan) -> None:
        stack = [plan]
        while stack:
            n = stack.pop()
            if isinstance(n, _Ref):
                self.bound.setdefault(n.origin, set()).add(None)
            elif isinstance(n, _Op):
                stack.extend(n.children)
                stack.extend(n.subqueries)
            elif isinstance(n, _With):
                stack.append(n.child)  # (definitions no read reached are never analyzed)


def _has_with(n) -> bool:
    stack = [n]
    while stack:
        x = stack.pop()
        if isinstance(x, _With):
            return True
        if isinstance(x, _Op):
            stack.extend(x.children)
    return False


def legacy_bindings(tree: exp.Expression) -> tuple[list[exp.Table], list[exp.CTE], dict[int, set]]:
    """The Table nodes and CTEs of the query, in document order of building, and what
    LEGACY binds each Table read to (only those Spark analyzes)."""
    b = _Builder()
    plan = b.query(tree)
    legacy = _Legacy()
    legacy.unbound(legacy.analyze(plan))
    return b.tables, b.ctes, legacy.bound


def lexical_bindings(tables: list[exp.Table], ctes: list[exp.CTE]) -> dict[int, int | None]:
    """What sparkfold (and CORRECTED) binds each Table read to: the innermost definition
    visible where it stands (a definition sees the earlier ones of its WITH)."""
    index = {id(c): i for i, c in enumerate(ctes)}
    out: dict[int, int | None] = {}
    for i, t in enumerate(tables):
        out[i] = None
        if not isinstance(t.this, exp.Identifier) or t.args.get("db") or t.args.get("catalog"):
            continue
        name = t.name.lower()
        n: exp.Expr | None = t
        while n is not None and n.parent is not None and out[i] is None:
            parent = n.parent
            if isinstance(parent, exp.CTE) and n.arg_key == "this" and parent.parent is not None:
                with_ = parent.parent
                defs: list[exp.Expression] = with_.expressions[:with_.expressions.index(parent)]
                # (a typed list, not `reversed` of sqlglot's untyped one: mypyc's compiler
                # stopped on that with an internal error)
                out[i] = next((index[id(c)] for c in defs[::-1] if c.alias.lower() == name), None)
                n = with_.parent  # (past this WITH: its query's own scope)
                continue
            own = parent.args.get("with_") if n.arg_key != "with_" else None
            if own is not None:
                out[i] = next((index[id(c)] for c in reversed(own.expressions) if c.alias.lower() == name), None)
            n = parent
    return out


def _checked(tree: exp.Expression) -> tuple[list[exp.Table], list[exp.CTE], dict[int, int | None], bool]:
    """The query's reads and CTEs, LEGACY's binding of each read Spark analyzes, and
    whether sparkfold's reading binds every such read alike."""
    tables, ctes, bound = legacy_bindings(tree)
    lexical = lexical_bindings(tables, ctes)
    legacy: dict[int, int | None] = {}
    for i, targets in bound.items():
        if len(targets) > 1:
            raise NotModelled(f"`{tables[i].name}` read as two CTEs at two of its copies under "
                              f"spark.sql.legacy.ctePrecedencePolicy=LEGACY")
        legacy[i] = next(iter(targets))
    return tables, ctes, legacy, all(lexical[i] == d for i, d in legacy.items())


def as_lexical(sql: str, tree: exp.Expression) -> str:
    """`sql` (whose parse is `tree`) written so that it reads the same under LEGACY and
    as sparkfold reads it: `sql` itself where it already does."""
    tables, ctes, legacy, alike = _checked(tree)
    if alike:
        return sql
    taken = {i.name.lower() for i in tree.find_all(exp.Identifier)}
    renamed: dict[int, str] = {}
    clash = {c.alias.lower() for c in ctes}
    for i in sorted(range(len(ctes)), key=lambda i: _span(ctes[i].args["alias"].this)):
        c = ctes[i]
        if sum(x.alias.lower() == c.alias.lower() for x in ctes) > 1 or \
                any(d is None and tables[t].name.lower() == c.alias.lower() for t, d in legacy.items()):
            k = 1
            while f"{c.alias}_{k}".lower() in taken or f"{c.alias}_{k}".lower() in clash:
                k += 1
            renamed[i] = f"{c.alias}_{k}"
            taken.add(renamed[i].lower())
    edits: list[tuple[int, int, str]] = []
    for i, new in renamed.items():
        ident = ctes[i].args["alias"].this
        edits.append((*_span(ident), _ident(new)))
    for t, d in legacy.items():
        if d is None or d not in renamed:
            continue
        table = tables[t]
        if any(table.args.get(k) for k in ("sample", "joins", "pivots", "laterals", "version", "when", "changes")):
            raise NotModelled("a read of a CTE renamed under spark.sql.legacy.ctePrecedencePolicy=LEGACY, "
                              "with a clause after its name")
        start, end = _span(table.this)
        alias = "" if table.alias else f" AS {_ident(table.name)}"
        edits.append((start, end, _ident(renamed[d]) + alias))
    out = sql
    for start, end, text in sorted(edits, reverse=True):
        out = out[:start] + text + out[end + 1:]
    written = parse_query(out, placed=False)
    if not _checked(written)[3] or any(lexical_bindings(*_reads(written))[i] != d for i, d in legacy.items()):
        raise NotModelled("a CTE read under spark.sql.legacy.ctePrecedencePolicy=LEGACY whose definition "
                          "is not visible where it stands")
    return out


def _reads(tree: exp.Expression) -> tuple[list[exp.Table], list[exp.CTE]]:
    b = _Builder()
    b.query(tree)
    return b.tables, b.ctes


def reads_alike(tree: exp.Expression) -> bool:
    """Does every read Spark analyzes under LEGACY bind as sparkfold reads it?"""
    try:
        return _checked(tree)[3]
    except NotModelled:
        return False


def _span(ident: exp.Expression) -> tuple[int, int]:
    start, end = ident.meta.get("start"), ident.meta.get("end")
    if start is None or end is None:
        raise NotModelled("a CTE name without its place in the text, under "
                          "spark.sql.legacy.ctePrecedencePolicy=LEGACY")
    return start, end


def _ident(name: str) -> str:
    return exp.to_identifier(name).sql(dialect="spark")
