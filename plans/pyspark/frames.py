"""What the lowering tracks about the DataFrames it builds: a `Frame` (its variable and
column names by attribute id), the `Scope` an expression is lowered in, and `Names`
(unique column names for the plan's attributes)."""

from __future__ import annotations

from dataclasses import field

from ..ir import expressions as E
from ..ir import logical as L
from ..ir.records import record

# Nesting depth of one Python expression before a sub-expression is hoisted into its own
# variable (CPython's parser allows 200 nested parentheses).


@record
class Frame:
    """A DataFrame of the program: the variable holding it and its columns by position."""

    var: str
    names: list[str]                       # column names, unique within the frame
    ids: dict[int, str] = field(default_factory=dict)  # expr id -> column name

    @staticmethod
    def of(var: str, attrs, names: list[str]) -> "Frame":
        ids: dict[int, str] = {}
        for a, n in zip(attrs, names):
            ids.setdefault(a.expr_id, n)
        return Frame(var, list(names), ids)


@record
class Scope:
    """What an expression may refer to: its frame's columns, and (in a correlated
    subquery) the enclosing frame's columns, written with `.outer()`."""

    frame: Frame
    outer: Frame | None = None


def _all_attributes(plan: L.Plan):
    """Every attribute a plan (subqueries included) produces or references."""
    stack = [plan]
    seen: set[int] = set()
    while stack:
        p = stack.pop()
        if id(p) in seen:
            continue
        seen.add(id(p))
        yield from p.output
        for e in p.expressions:
            for n in e.walk():
                if isinstance(n, E.Attribute):
                    yield n
                elif isinstance(n, E.Alias):
                    yield n.to_attribute()
                elif isinstance(n, E.SubqueryExpr):
                    stack.append(n.plan)
        stack.extend(p.children)
        if isinstance(p, L.OpaqueRelation) and p.model is not None:
            stack.append(p.model)


class Names:
    """Internal column names: an attribute's own name when unique in the plan (Spark
    resolves names case-insensitively), else `name#id`; fresh names never collide."""

    def __init__(self, plan: L.Plan):
        ids_by_name: dict[str, set[int]] = {}
        for a in _all_attributes(plan):
            ids_by_name.setdefault(a.name.lower(), set()).add(a.expr_id)
        self.by_id: dict[int, str] = {}
        self.taken: set[str] = set(ids_by_name)
        self._ids_by_name = ids_by_name

    def of(self, a: E.Attribute) -> str:
        n = self.by_id.get(a.expr_id)
        if n is None:
            ids = self._ids_by_name.get(a.name.lower(), set())
            n = a.name if ids == {a.expr_id} and a.name else self.fresh(f"{a.name}#{a.expr_id}")
            self.by_id[a.expr_id] = n
            self.taken.add(n.lower())
        return n

    def fresh(self, base: str) -> str:
        name, k = base, 1
        while name.lower() in self.taken:
            k += 1
            name = f"{base}_{k}"
        self.taken.add(name.lower())
        return name


# Nesting depth of one Python expression before a sub-expression is hoisted into its own
# variable (CPython's parser allows 200 nested parentheses).
_MAX_DEPTH = 40


# Operators a DataFrame with unresolved outer references can pass through on a classic
# session (the others analyze their input eagerly, which fails on an outer reference).
_LAZY_SAFE = (L.Filter, L.Project, L.SubqueryAlias, L.Sort, L.Limit, L.Relation, L.LocalRelation,
              L.OneRowRelation)


def _nested_reach(plan: L.Plan, ids: set[int]) -> bool:
    """Does a subquery nested inside `plan` reference one of `ids` (two levels out)?"""
    for n in plan.walk():
        for e in n.expressions:
            for s in L.subquery_plans(e):
                if L.outer_references(s.plan) & ids:
                    return True
    return False


def _lazy_safe(plan: L.Plan, corr: frozenset[int]) -> bool:
    """Can a correlated subquery plan be built with the DataFrame API on a classic
    session?  Every operator above an outer reference must be lazy (see _LAZY_SAFE),
    a global aggregate must compute an aggregate (it is written as a select), and
    expressions with outer references must not need SQL text (F.expr cannot say outer)."""
    for n in plan.walk():
        refs = L.outer_references(n) & corr
        if not refs:
            continue
        if isinstance(n, L.Aggregate):
            if n.grouping or not any(E.contains_aggregate(a) for a in n.aggregates):
                return False
        elif not isinstance(n, _LAZY_SAFE):
            return False
        for e in n.expressions:
            if e.references & refs and _needs_sql(e):
                return False
    return True


def _needs_sql(e: E.Expr) -> bool:
    for n in e.walk():
        if isinstance(n, (E.Opaque, E.SubqueryExpr)):
            return True
        if isinstance(n, E.Agg) and (n.filter is not None or (n.distinct and n.name != "count")):
            return True
    return False
