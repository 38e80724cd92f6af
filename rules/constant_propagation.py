"""ConstantPropagation (Catalyst's `ConstantPropagation`, expressions.scala), in filters.

In `WHERE k = 1 AND k = 2` (or `p.k = 1 AND p.k = 2` after a LEFT JOIN, or a filter
that PushDownPredicates combined with one inside a derived table) the row must have
k = 1 for the condition to be TRUE; k can then be replaced by 1 in the other conjuncts:
`k = 1 AND 1 = 2`, which ConstantFolding and PruneFilters make an empty relation.

Only where it is sound:
- in a Filter's condition, between its top-level conjuncts: a WHERE keeps only the rows
  where the whole condition is TRUE, and on those the equality holds (as a value, with
  k NULL, `k = 1 AND k = 2` is NULL and `k = 1 AND 1 = 2` FALSE); and from the
  constraints of the Filter's input into its condition: those hold (TRUE) on every input
  row, so k is that value wherever the condition is evaluated;
- from `attribute = literal` (either side, not NULL) of the same type, a type whose
  equal values are identical (not floating point: 0.0 = -0.0, yet 1 / x tells them
  apart), and not a string: a CHAR(n) column reads as a string here, and Spark pads
  CHAR values in comparisons (Calcite's 6448 emptied `s = 'a' AND s = 'a '` so);
- into conjuncts that are deterministic and cannot raise: on a row where the equality
  is NULL, the other conjuncts are still evaluated, and `10 / k` would become `10 / 0`.
"""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from ..plans.ir import types as T
from .base import plan_rule, transform_up_typed
from .constraints import constraints
from .predicates import exact_type


def _binding(c: E.Expr) -> tuple[int, E.Literal] | None:
    """(attribute id, literal) when c is `attribute = literal` of one exact type."""
    if not isinstance(c, E.EqualTo):
        return None
    for a, b in ((c.left, c.right), (c.right, c.left)):
        if isinstance(a, E.Attribute) and isinstance(b, E.Literal) and b.value is not None \
                and a.data_type == b.data_type and exact_type(a.data_type) and a.data_type != T.STRING:
            return a.expr_id, b
    return None


@plan_rule("ConstantPropagation", needs=(L.Filter,), catalyst="ConstantPropagation", rewrites=False)
def constant_propagation(p: L.Plan, ctx) -> L.Plan:
    """`k = 1 AND k = 2` in a WHERE -> `k = 1 AND 1 = 2` (then FALSE)."""
    if not isinstance(p, L.Filter):
        return p
    conjuncts = E.split_conjuncts(p.condition)
    values: dict[int, E.Literal] = {}
    sources: dict[int, int] = {}  # attribute id -> index of the conjunct that binds it
    # the input's own constraints bind first: k = 2 holds on every row below a join
    # whose side was filtered so (Catalyst gets there by pushing the WHERE down first)
    for _, e in constraints(p.child, ctx.facts).items():
        bound = _binding(e)
        if bound is not None and bound[0] not in values:
            values[bound[0]], sources[bound[0]] = bound[1], -1
    for i, c in enumerate(conjuncts):
        bound = _binding(c)
        if bound is not None and bound[0] not in values:
            values[bound[0]], sources[bound[0]] = bound[1], i
    if not values:
        return p
    out, changed = [], False
    for i, c in enumerate(conjuncts):
        if not c.deterministic or c.may_raise or c.references.isdisjoint(values):
            out.append(c)
            continue
        mapping = {k: v for k, v in values.items() if sources[k] != i}
        # (an operator whose type would change with a literal operand keeps its operand)
        new = transform_up_typed(c, lambda n: mapping.get(n.expr_id, n) if isinstance(n, E.Attribute) else n,
                                 E.Attribute.bit, opaque=(E.Opaque,)) if mapping else c
        if new is not c and new.data_type == c.data_type and not new.may_raise:
            out.append(new)
            changed = True
        else:
            out.append(c)
    return L.Filter(E.conjunction(out), p.child) if changed else p
