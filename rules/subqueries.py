"""OptimizeSubqueries: subquery expressions over a provably empty plan (beyond Catalyst).

Once PruneFilters and PropagateEmptyRelation reduced a subquery's plan to an empty
relation, its value is known:
- `v IN (empty)` -> FALSE, for a non-NULL v and, in Spark 4 with ANSI on, for a NULL v
  too (`NULL IN (empty subquery)` is FALSE, SPARK-44431; with ANSI off the legacy
  behaviour makes it NULL, so a nullable v is left alone there).
- `NOT (v IN (empty))` -> TRUE, under the same condition: with the legacy behaviour a
  NULL v gives NULL in a select list (checked on Spark 4.3), though a WHERE's null-aware
  anti join keeps every row.
- `EXISTS (empty)` -> FALSE; `NOT EXISTS (empty)` -> TRUE.
- `(scalar subquery over empty)` -> a NULL of its type.

The values of an IN must be deterministic and unable to raise: the rewrite stops
evaluating them.
"""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from ..plans.ir import types as T
from ..plans.ir.tree import mask_of, transform_down
from .base import plan_rule

_empty = L.is_empty_relation


def _droppable(values) -> bool:
    return all(v.deterministic and not v.may_raise for v in values)


_SUBQUERIES = mask_of(E.InSubquery, E.Exists, E.ScalarSubquery)


@plan_rule("OptimizeSubqueries", needs=(E.InSubquery, E.Exists, E.ScalarSubquery))
def optimize_subqueries(p: L.Plan, ctx) -> L.Plan:
    """IN / NOT IN / EXISTS / scalar subqueries over an empty plan -> constants.  Top-down,
    so that `NOT (v IN (empty))` is seen whole (it is TRUE even where `v IN (empty)` is
    not FALSE)."""
    return p.map_expressions(lambda x: transform_down(x, lambda e: _rewrite(e, ctx), _SUBQUERIES,
                                                      opaque=(E.Opaque,)))


def _rewrite(e: E.Expr, ctx) -> E.Expr:
    subquery = e.child if isinstance(e, E.Not) else e
    if isinstance(subquery, E.SubqueryExpr) and subquery.frozen:
        return e  # (see E.SubqueryExpr's `frozen`)
    match e:
        case E.Not(E.InSubquery(values, plan)) if _empty(plan) and _droppable(values) \
                and (ctx.null_in_empty_is_false or not any(v.nullable for v in values)):
            return E.TRUE  # v NOT IN (empty) is TRUE
        case E.InSubquery(values, plan) if _empty(plan) and _droppable(values) \
                and (ctx.null_in_empty_is_false or not any(v.nullable for v in values)):
            return E.FALSE  # v IN (empty) is FALSE
        case E.Not(E.Exists(plan)) if _empty(plan):
            return E.TRUE  # NOT EXISTS (empty) is TRUE
        case E.Exists(plan) if _empty(plan):
            return E.FALSE  # EXISTS (empty) is FALSE
        case E.ScalarSubquery(plan) if _empty(plan) and not T.contains_unknown(e.data_type):
            return E.Literal(None, e.data_type)  # no row: NULL
        case _:
            return e
