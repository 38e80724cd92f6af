"""InferFiltersFromConstraints (Catalyst's rule of the same name, in the Once batch
"Infer Filters").

- Filter: the predicates its constraints imply that neither its child guarantees nor
  its condition states (IS NOT NULL of what a null-intolerant conjunct uses, what
  attribute equalities carry over: `a = 1 AND a = b` gives `b = 1`) are added after
  the condition.  Appending keeps which error a failing conjunct raises.
- Join: every predicate known on the join's rows (both sides' constraints, the
  condition's conjuncts, and their closure) that references one side only is added as
  a Filter on that side, if that side does not already guarantee it; only where
  removing rows early cannot change the result: inner/cross and left semi: both sides;
  left outer and left anti: the right side; right outer: the left side; full outer:
  neither.  A preserved side of an outer join never gets a filter.

Only deterministic predicates that cannot raise are added (the closure in
`rules.constraints` makes sure of that for inferred ones), with the attributes of the
operator they are added above (right names and nullability).  The rule is idempotent:
a second run finds everything it would add already guaranteed.
"""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from .base import Facts, plan_rule
from .cleanup import rejected_by
from .constraints import Constraints, canon, close, constraints, substitute


def _addable(e: E.Expr) -> bool:
    return e.deterministic and not e.may_raise


def _bind(e: E.Expr, plan: L.Plan) -> E.Expr:
    """e with its attributes as `plan` outputs them."""
    return substitute(e, {a.expr_id: a for a in plan.output})


def _implied(e: E.Expr, rejected: set[int]) -> bool:
    """`x IS NOT NULL` that a stated predicate already implies (it rejects NULL x): the
    narrowing it would bring comes from that predicate too, and in the SQL it is noise
    (RemoveRedundantIsNotNull would drop it again)."""
    return isinstance(e, E.IsNotNull) and isinstance(e.child, E.Attribute) and e.child.expr_id in rejected


def _new_for(side: L.Plan, known: Constraints, implied: set[int], facts: Facts) -> list[E.Expr]:
    ids = side.output_ids
    have = constraints(side, facts)
    return [_bind(e, side) for k, e in known.items()
            if e.references <= ids and k not in have and _addable(e) and not _implied(e, implied)]


def _padded_side_filtered(conjuncts: list[E.Expr], child: L.Plan, facts: Facts) -> L.Plan:
    """WHERE over `x LEFT JOIN y ON c`: what the WHERE's conjuncts on x alone and c imply
    of y alone, added as a filter on y.  A y row it removes matches no x row the WHERE
    keeps (for those, c and the x conjuncts hold, so the inferred predicate does), and
    x rows the WHERE drops do not matter.  (Catalyst pushes the x conjuncts into x first
    and infers from the join.)  The same, mirrored, for RIGHT JOIN."""
    join, alias = (child.child, child.alias) if isinstance(child, L.SubqueryAlias) else (child, None)
    if not isinstance(join, L.Join) or join.join_type not in (L.LEFT_OUTER, L.RIGHT_OUTER):
        return child
    kept, padded = (join.left, join.right) if join.join_type == L.LEFT_OUTER else (join.right, join.left)
    on_kept = [c for c in conjuncts if c.references and c.references <= kept.output_ids and _addable(c)]
    if not on_kept or join.condition is None:
        return child
    known = close([*constraints(kept, facts).values(), *on_kept, *E.split_conjuncts(join.condition)],
                  (*kept.output, *padded.output), facts)
    new = _new_for(padded, known, rejected_by(E.split_conjuncts(join.condition)), facts)
    if not new:
        return child
    filtered = _with_filter(padded, new)
    join = join.copy(right=filtered) if join.join_type == L.LEFT_OUTER else join.copy(left=filtered)
    return L.SubqueryAlias(alias, join) if alias is not None else join


def _with_filter(side: L.Plan, preds: list[E.Expr]) -> L.Plan:
    return L.Filter(E.conjunction(preds), side) if preds else side


# An inferred filter alone is not a rewrite a user needs to see (Catalyst infers the same
# ones from the query as written): when no other rule changed the query, its text is
# kept as written (`rewrites=False`), as for a moved filter.
@plan_rule("InferFiltersFromConstraints", needs=(L.Filter, L.Join),
           catalyst="InferFiltersFromConstraints", rewrites=False)
def infer_filters_from_constraints(p: L.Plan, ctx) -> L.Plan:
    """Add the IS NOT NULL and equality-implied predicates constraints give."""
    match p:
        case L.Filter(cond, child):
            conjuncts = E.split_conjuncts(cond)
            stated = {canon(c, ctx.facts) for c in conjuncts}
            have = constraints(child, ctx.facts)
            implied = rejected_by(conjuncts)
            new = [_bind(e, child) for k, e in constraints(p, ctx.facts).items()
                   if k not in have and k not in stated and _addable(e) and not _implied(e, implied)]
            if new:
                return L.Filter(E.conjunction([cond, *new]), child)
            padded = _padded_side_filtered(conjuncts, child, ctx.facts)
            return p if padded is child else L.Filter(cond, padded)
        case L.Join(left, right, jt, cond) if jt != L.FULL_OUTER:
            conj = E.split_conjuncts(cond) if cond is not None else []
            both = close([*constraints(left, ctx.facts).values(), *constraints(right, ctx.facts).values(),
                          *conj], (*left.output, *right.output), ctx.facts)
            implied = rejected_by(conj)
            to_left = _new_for(left, both, implied, ctx.facts) if jt in (L.INNER, L.CROSS, L.LEFT_SEMI,
                                                              L.RIGHT_OUTER) else []
            to_right = _new_for(right, both, implied, ctx.facts) if jt in (L.INNER, L.CROSS, L.LEFT_SEMI,
                                                                L.LEFT_OUTER, L.LEFT_ANTI) else []
            if not to_left and not to_right:
                return p
            return p.copy(left=_with_filter(left, to_left), right=_with_filter(right, to_right))
        case _:
            return p
