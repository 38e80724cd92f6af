"""FoldablePropagation (Catalyst's `FoldablePropagation`, expressions.scala), in conditions.

A column that holds one constant in every row of its relation (an alias of a literal
in a Project, the column of a one-row VALUES) may be read as that constant by a
condition above it.  `WITH a AS (SELECT 1 AS id), b AS (SELECT 2 AS id) ... a JOIN b
USING (id)` compares 1 with 2: FALSE, and the join is empty.  Only conjuncts that read
nothing but such constants are rewritten (they then fold to TRUE, FALSE or NULL, for
PruneFilters and PropagateEmptyRelation); a conjunct that stays partly a column keeps
its text.

Where a column is constant: through Project and Aggregate (an alias of a literal, or a
column passed on: `SELECT 2 AS c ... GROUP BY ALL HAVING c > 50` is empty, as Spark's
analyzer makes the HAVING read the grouping expression), SubqueryAlias, Filter, Sort,
Limit, Offset, Distinct; through an inner join from both sides, a left (semi, anti) join
from its left, a right join from its right (the padded side may be NULL instead).  Not
through set operations.  A join's
ON condition sees both sides' rows before padding: both sides' constants hold there.
"""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from .base import plan_rule, transform_up_typed

_SUBQUERIES = E.ScalarSubquery.bit | E.Exists.bit | E.InSubquery.bit | E.Opaque.bit


def constants(plan: L.Plan) -> dict[int, E.Literal]:
    """Attribute id -> the literal it equals in every row of plan's output."""
    match plan:
        case L.Project(items, child) | L.Aggregate(_, items, child):
            # (an aggregate's literal, or grouping column constant below, is the same in
            # every group's row, and in a global aggregate's one row over no input too)
            below = constants(child)
            out = {}
            for e in items:
                if isinstance(e, E.Alias) and isinstance(e.child, E.Literal):
                    out[e.expr_id] = e.child
                elif isinstance(e, E.Attribute) and e.expr_id in below:
                    out[e.expr_id] = below[e.expr_id]
                elif isinstance(e, E.Alias) and isinstance(e.child, E.Attribute) and e.child.expr_id in below:
                    out[e.expr_id] = below[e.child.expr_id]
            return out
        case L.LocalRelation(output, rows) if len(rows) == 1:
            return {a.expr_id: E.Literal(v, a.data_type) for a, v in zip(output, rows[0])}
        case L.SubqueryAlias(_, child) | L.Filter(_, child) | L.Sort(_, child) | L.Limit(_, child) \
                | L.Offset(_, child) | L.Distinct(child):
            return constants(child)
        case L.Join(left, right, jt, _):
            if jt in (L.INNER, L.CROSS):
                return {**constants(left), **constants(right)}
            if jt in (L.LEFT_OUTER, L.LEFT_SEMI, L.LEFT_ANTI):
                return constants(left)
            if jt == L.RIGHT_OUTER:
                return constants(right)
            return {}
        case _:
            return {}


def _propagate(cond: E.Expr, values: dict[int, E.Literal]) -> E.Expr:
    out, changed = [], False
    for c in E.split_conjuncts(cond):
        if not c.references or not c.references <= values.keys() or c.deep_mask & _SUBQUERIES:
            out.append(c)
            continue
        # (an operator whose type would change with a literal operand keeps its operand)
        new = transform_up_typed(c, lambda n: values.get(n.expr_id, n) if isinstance(n, E.Attribute) else n,
                                 E.Attribute.bit, opaque=(E.Opaque,))
        if new is not c and new.data_type == c.data_type and not new.references:
            out.append(new)
            changed = True
        else:
            out.append(c)
    return E.conjunction(out) if changed else cond


@plan_rule("FoldablePropagation", needs=(L.Filter, L.Join), catalyst="FoldablePropagation")
def foldable_propagation(p: L.Plan, ctx) -> L.Plan:
    """A condition over columns that are constants -> over the constants."""
    match p:
        case L.Filter(cond, child):  # WHERE id = 2 over (SELECT 1 AS id) -> WHERE 1 = 2
            new = _propagate(cond, constants(child))
            return p if new is cond else L.Filter(new, child)
        case L.Join(left, right, _, cond) if cond is not None:  # ON a.id = b.id -> ON 1 = 2
            new = _propagate(cond, {**constants(left), **constants(right)})
            return p if new is cond else p.copy(condition=new)
        case _:
            return p
