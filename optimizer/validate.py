"""The engine's one check of a rule's output (Catalyst's `validatePlanChanges`).

After every rule application that changed the plan, `plan_change_error` says why the new
plan may not replace the old one, or None:
- the output schema: names, types and arity stay (a rule that breaks this has a bug: the
  engine raises an internal error naming it).  Nullability is left out, as Catalyst's
  `DataType.equalsIgnoreNullability` leaves it out: a rewrite keeps the values, and an
  expression rebuilt by a rule may be typed nullable where the original was proven
  never NULL (UpdateAttributeNullability narrows it again);
- every Aggregate stays grouped (Spark's MISSING_AGGREGATION): a rewrite that takes a
  grouping expression apart in a select list is equal in value but rejected by Spark,
  so the engine does not keep it (a trace warning names the rule).
"""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir import logical as L

_SUBQUERY_MASK = E.ScalarSubquery.bit | E.Exists.bit | E.InSubquery.bit


def schema_error(before: L.Plan, after: L.Plan) -> str | None:
    """Why `after`'s output is not `before`'s (names, types, arity), or None."""
    a, b = before.output, after.output
    if len(a) != len(b) or any(x.name != y.name or x.data_type != y.data_type for x, y in zip(a, b)):
        return (f"changed the output schema from {[(x.name, x.data_type.simple_string()) for x in a]} "
                f"to {[(y.name, y.data_type.simple_string()) for y in b]}")
    return None


def aggregate_is_grouped(agg: L.Aggregate) -> bool:
    """Spark's MISSING_AGGREGATION check on an Aggregate: outside aggregate functions, a
    column of the input may only appear inside a (whole) grouping expression.  A rewrite
    may take such a subtree apart: with GROUP BY NOT (c >= c), the select item
    `(NOT (c >= c)) <=> NULL` simplifies to `c IS NULL`, equal in value but no longer
    over the grouping expression, and Spark rejects the written SQL.  Equality here is
    structural (stricter than Spark's canonical form), so in doubt the rewrite is kept out."""
    local = {a.expr_id for a in agg.child.output}
    group_set = set(agg.grouping)
    group_ids = {g.expr_id for g in agg.grouping if isinstance(g, E.Attribute)}
    for e in agg.aggregates:
        stack = [e.child if isinstance(e, E.Alias) else e]
        while stack:
            x = stack.pop()
            if x in group_set or isinstance(x, E.Agg) or (isinstance(x, E.Opaque) and x.kind == "aggregate"):
                continue
            if isinstance(x, E.Attribute):
                if x.expr_id in local:
                    return False
                continue
            if isinstance(x, E.SubqueryExpr) and any(r in local and r not in group_ids for r in x.outer_references):
                return False
            stack.extend(x.children)
    return True


def ungrouped_aggregates(plan: L.Plan) -> int:
    """How many Aggregates (subquery plans included) Spark would reject with
    MISSING_AGGREGATION (see `aggregate_is_grouped`)."""
    count, stack = 0, [plan]
    while stack:
        for op in stack.pop().walk():
            if isinstance(op, L.Aggregate) and not aggregate_is_grouped(op):
                count += 1
            for e in op.expressions:
                if e.deep_mask & _SUBQUERY_MASK:
                    stack.extend(x.plan for x in e.walk() if isinstance(x, E.SubqueryExpr))
    return count


def rejection(before: L.Plan, after: L.Plan) -> str | None:
    """Why a valid-schema rewrite is not kept, or None."""
    if ungrouped_aggregates(after) > ungrouped_aggregates(before):
        return "took a grouping expression apart in a select list (Spark's MISSING_AGGREGATION)"
    return None
