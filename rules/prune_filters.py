"""PruneFilters (Catalyst's `PruneFilters`, Optimizer.scala).

- `Filter(TRUE, child)` -> child.
- `Filter(FALSE, child)` and `Filter(NULL, child)` -> an empty relation with the
  child's output (WHERE keeps a row only when the predicate is TRUE), unless the child
  holds a constant expression that may raise: Spark's ConstantFolding evaluates it
  while it optimizes, rows or none (`SELECT c FROM (SELECT 2147483647 + 1 AS c FROM t)
  WHERE FALSE` fails under ANSI), and the empty relation would not.
- A deterministic conjunct already implied by the child's constraints is dropped (the
  child guarantees it is TRUE on every row); if none is left the Filter goes.
  Non-deterministic conjuncts are never dropped.  A conjunct is only dropped when the
  very same predicate (up to operand order where that cannot change which error is
  raised) is a constraint, which was evaluated to TRUE below, so dropping it cannot
  hide an error either.
"""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from ..plans.ir import types as T
from .base import plan_rule
from .constraints import canon, constraints


def writable(attrs) -> bool:
    """Can the SQL generator write a typed NULL of each attribute's type?  (Not of one with
    NOT NULL inside, `struct<a:int not null>`, which no cast gives.)"""
    return all(not T.contains_unknown(a.data_type) and a.data_type != T.CALENDAR_INTERVAL
               and not T.inner_not_null(a.data_type) for a in attrs)


def folding_may_raise(plan: L.Plan) -> bool:
    """Does an operator of the plan hold a constant expression that may raise (under
    ANSI), which Spark's ConstantFolding evaluates whether any row reaches it or not?
    (Spark spares those in a conditional branch; this does not tell them apart.)"""
    for n in plan.walk():
        for e in n.expressions:
            if e.may_raise and any(x.foldable and x.may_raise for x in e.walk()):
                return True
    return False


def _is_true(e: E.Expr) -> bool:
    return isinstance(e, E.Literal) and e.value is True and e.data_type == T.BOOLEAN


def _never_true(e: E.Expr) -> bool:
    return isinstance(e, E.Literal) and e.data_type in (T.BOOLEAN, T.NULL) \
        and (e.value is False or e.value is None)


@plan_rule("PruneFilters", needs=(L.Filter,), catalyst="PruneFilters")
def prune_filters(p: L.Plan, ctx) -> L.Plan:
    """Drop filters that are always TRUE, empty those never TRUE, prune implied conjuncts."""
    match p:
        case L.Filter(cond, child) if _is_true(cond):  # WHERE TRUE -> child
            return child
        case L.Filter(cond, child) if _never_true(cond) and writable(child.output) \
                and not folding_may_raise(child):
            return L.empty_like(child)  # WHERE FALSE / WHERE NULL -> no rows
        case L.Filter(cond, child):  # conjuncts the child already guarantees
            known = constraints(child, ctx.facts)
            if not known:
                return p
            parts = E.split_conjuncts(cond)
            keep = [c for c in parts if not (c.deterministic and canon(c, ctx.facts) in known)]
            if len(keep) == len(parts):
                return p
            return L.Filter(E.conjunction(keep), child) if keep else child
        case _:
            return p
