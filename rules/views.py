"""EliminateView, the part of it sparkfold takes: a view read as a table whose
definition is known to be empty is the empty relation.

Catalyst replaces a view by its definition before it optimizes a query, and what the
definition proves (an empty result) folds the query around it.  sparkfold keeps a view a
table in the plan, so that the text sent to Spark still reads the view by its name; the
optimizer proves the definitions of the views a query reads apart, under the same
settings (`optimizer.views`), and tells the rules which are empty (`ctx.empty_views`, by
the relation's `table`).  The empty relation keeps the view's output: the same ids,
names and types; none is made when a column's type has no typed NULL to write.
"""

from __future__ import annotations

from ..plans.ir import logical as L
from ..plans.ir.tree import mask_of
from .base import Rule, RuleContext, transform_plan
from .prune_filters import writable

_RELATION = mask_of(L.Relation)


class _Empty:
    __slots__ = ("views",)

    def __init__(self, views: frozenset[str]):
        self.views = views

    def __call__(self, p: L.Plan) -> L.Plan:
        if isinstance(p, L.Relation) and p.table in self.views and writable(p.output):
            return L.empty_like(p)  # a view whose definition is empty -> the empty relation
        return p


def _eliminate_view(plan: L.Plan, ctx: RuleContext) -> L.Plan:
    if not ctx.empty_views:
        return plan
    return transform_plan(plan, _Empty(ctx.empty_views), _RELATION)


eliminate_view = Rule("EliminateView", _eliminate_view,
                      "A view whose definition (read from the session) is proved empty -> the empty relation.",
                      "EliminateView")
