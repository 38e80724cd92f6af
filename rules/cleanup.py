"""Cleanup before the SQL is written (sparkfold's own, no Catalyst counterpart).

RemoveRedundantIsNotNull: InferFiltersFromConstraints adds `x IS NOT NULL` next to
predicates that already reject NULL x, and under join sides whose join condition
already does.  Catalyst keeps them for its physical planning; in the SQL a user reads
they are noise, and Spark infers them again anyway.  By then they have done their job
(narrowing nullability, so that `count(x)` became `count(1)`).

- In a Filter, `IsNotNull(a)` goes when another conjunct is NULL whenever `a` is (a
  null-intolerant path from the conjunct to `a`): that conjunct already rejects the row.
  Only when the conjuncts after it are droppable: AND short-circuits, so they were never
  evaluated on the rows the guard stopped (an error or a rand() draw would be new).
- Under a join, a side's `Filter` loses `IsNotNull(k)` when a conjunct of the join
  condition is NULL whenever `k` is and the side is one whose unmatched rows do not
  reach the output (both sides of inner and semi joins, the right side of left outer
  and left anti joins, the left side of right outer joins): a row with NULL k matches
  nothing there.  A Filter left with no conjunct goes too.
"""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from .base import plan_rule
from .constraints import non_null_attributes
from .predicates import droppable


def rejected_by(conjuncts) -> set[int]:
    """Ids of the attributes some conjunct (other than an IS NOT NULL) is NULL for."""
    ids: set[int] = set()
    for c in conjuncts:
        if isinstance(c, E.IsNotNull):
            continue
        ids.update(a.expr_id for a in non_null_attributes(c))
    return ids


def _drop_is_not_null(conjuncts, rejected: set[int]) -> list[E.Expr]:
    """Without the guard, the conjuncts after it are evaluated on the rows it stopped
    (Spark's AND short-circuits): it goes only when they are droppable (deterministic,
    cannot raise), or `b IS NOT NULL AND CAST(s AS INT) + b > 0` would start raising."""
    out = []
    for i, c in enumerate(conjuncts):
        if isinstance(c, E.IsNotNull) and isinstance(c.child, E.Attribute) and c.child.expr_id in rejected \
                and all(droppable(x) for x in conjuncts[i + 1:]):
            continue
        out.append(c)
    return out


def _prune_side(side: L.Plan, rejected: set[int]) -> L.Plan:
    if not isinstance(side, L.Filter):
        return side
    conjuncts = E.split_conjuncts(side.condition)
    kept = _drop_is_not_null(conjuncts, rejected)
    if len(kept) == len(conjuncts):
        return side
    return L.Filter(E.conjunction(kept), side.child) if kept else side.child


_PRUNABLE_SIDES = {
    L.INNER: (True, True), L.CROSS: (True, True), L.LEFT_SEMI: (True, True),
    L.LEFT_OUTER: (False, True), L.LEFT_ANTI: (False, True), L.RIGHT_OUTER: (True, False),
    L.FULL_OUTER: (False, False),
}


@plan_rule("RemoveRedundantIsNotNull", needs=(L.Filter, L.Join), catalyst="(none)")
def remove_redundant_is_not_null(p: L.Plan, ctx) -> L.Plan:
    """Drop `x IS NOT NULL` conjuncts that another predicate already implies."""
    match p:
        case L.Filter(cond, child):
            conjuncts = E.split_conjuncts(cond)
            if not any(isinstance(c, E.IsNotNull) for c in conjuncts):
                return p
            kept = _drop_is_not_null(conjuncts, rejected_by(conjuncts))
            if len(kept) == len(conjuncts):
                return p
            return L.Filter(E.conjunction(kept), child)
        # (rows with a NULL key then reach the join condition: it must be droppable too)
        case L.Join(left, right, jt, cond) if cond is not None and droppable(cond):
            prune_left, prune_right = _PRUNABLE_SIDES[jt]
            rejected = rejected_by(E.split_conjuncts(cond))
            new_left = _prune_side(left, rejected) if prune_left else left
            new_right = _prune_side(right, rejected) if prune_right else right
            if new_left is left and new_right is right:
                return p
            return L.Join(new_left, new_right, jt, cond)
        case _:
            return p
