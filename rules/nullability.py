"""UpdateAttributeNullability: references carry the nullability their input proves.

Catalyst's rule makes every attribute reference agree with the nullability of the child
output it refers to.  Here the child's nullability is what constraint propagation
proves (`constraints.not_null_ids`): an output attribute is never NULL when the child
says so, and also above a Filter whose conjuncts imply `x IS NOT NULL` (`x > 1`,
`x IS NOT NULL`, `x + 1 = y`), above an inner join with an equi-condition on x, and
after a rule changed a join type (outer -> inner) or removed an empty input.

So `SELECT count(x) FROM t WHERE x IS NOT NULL` gets a non-nullable `x` inside the
count, and NullPropagation then makes it `count(1)`.

Only references to a child's output are touched (the operator's own condition keeps
what its child proves, never what it filters); outer references inside subquery plans
are left as they are.  A reference is widened again if its child no longer proves it
non-null, so no stale non-null claim survives a rewrite below it.
"""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from ..plans.ir.tree import transform_up
from .base import Facts, plan_rule
from .constraints import not_null_ids


def _child_nullability(p: L.Plan, facts: Facts) -> dict[int, bool]:
    """Expression id -> nullable, for the attributes p's expressions can refer to."""
    out: dict[int, bool] = {}
    for c in p.children:
        proven = not_null_ids(c, facts)
        for a in c.output:
            out[a.expr_id] = a.expr_id not in proven
    return out


@plan_rule("UpdateAttributeNullability", catalyst="UpdateAttributeNullability", rewrites=False)
def update_attribute_nullability(p: L.Plan, ctx) -> L.Plan:
    """References to a child's output take the nullability the child proves."""
    match p:
        case L.Relation() | L.LocalRelation() | L.OneRowRelation() | L.OpaqueRelation():
            # leaves declare their output; an opaque relation's args are not rewritten
            return p
        case _ if not p.expressions:
            return p
        case _:
            nullable = _child_nullability(p, ctx.facts)
            if not nullable:
                return p
            return p.map_expressions(_Renulled(nullable).expression)


class _Renulled:
    """Expressions with their references' nullability as `nullable` (expr id -> nullable)
    says.  (A class, not closures: see `rules.base._PlanTransform`.)"""

    __slots__ = ("nullable",)

    def __init__(self, nullable: dict[int, bool]):
        self.nullable = nullable

    def expression(self, x: E.Expr) -> E.Expr:
        return transform_up(x, self.reference, mask=E.Attribute.bit, opaque=(E.Opaque,))

    def reference(self, e: E.Expr) -> E.Expr:
        if isinstance(e, E.Attribute):
            want = self.nullable.get(e.expr_id)
            if want is not None and want != e.nullable:
                return e.with_nullability(want)
        return e
