"""A SELECT block with LATERAL subqueries as DataFrame calls: Spark 4's
`left.lateralJoin(right, on, how)`, the right side built from the subquery's plan with
`F.col(...).outer()` for the left's columns (a subquery without FROM: its columns selected
beside the left's), the block's clauses lowered as any plan's.

The block is an opaque relation for the rules and the SQL writer (`sql_in.lateral_join`);
its `model` is the block as operators (`L.LateralJoin`) over its input as analyzed, which
is replaced here by the optimized input.  The block stays SQL text, its reason named in the
program's comment, where the model is missing (a table after the LATERAL subquery, a clause
sparkfold does not analyze) or the API cannot build it: a right side that reads a column
two levels out, or whose outer reference sits under an operator a classic session analyzes
at once (a join, a grouping, SQL text: `frames._lazy_safe`); and where the optimized input
no longer gives a column the block reads."""

from __future__ import annotations

from ..ir import expressions as E
from ..ir import logical as L
from ..ir.naming import unnamed_output
from .expressions import is_unnamed, lower_expr
from .frames import Frame, Scope, _lazy_safe, _nested_reach
from .text_reasons import LATERAL_REASON
from .values import col, py_str

# (a CROSS JOIN LATERAL, or `, LATERAL`, is the inner join Spark's parser makes of it)
_HOW = {L.INNER: "inner", L.CROSS: "inner", L.LEFT_OUTER: "left"}


def lateral_obstacle(p: L.OpaqueRelation, outer: Frame | None) -> tuple[L.Plan | None, str]:
    """The block's model over its optimized input, or None and why the API cannot say it."""
    if p.model is None or len(p.inputs) != 1:
        return None, LATERAL_REASON
    model = _splice(p.model, p.inputs[0])
    if not L.outer_references(model) <= (set(outer.ids) if outer is not None else set()):
        return None, "LATERAL subquery whose input no longer gives a column the block reads"
    if unnamed_output(model):
        return None, "LATERAL subquery in a block with a column only Spark names"
    for n in model.walk():
        if not isinstance(n, L.LateralJoin):
            continue
        left = {a.expr_id for a in n.left.output}
        corr = L.outer_references(n.right)
        if not corr <= left or _nested_reach(n.right, left):
            return None, "LATERAL subquery reading a query two levels out"
        if not _lazy_safe(n.right, corr):
            return None, "LATERAL subquery with an outer reference under a join, a grouping or SQL text"
    return model, ""


def _splice(p: L.Plan, new_input: L.Plan) -> L.Plan:
    """The model with the innermost LateralJoin's left side replaced by `new_input`."""
    if isinstance(p, L.LateralJoin):
        left = _splice(p.left, new_input) if isinstance(p.left, L.LateralJoin) else new_input
        return p.with_children([left, p.right])
    return p.with_children([_splice(p.children[0], new_input), *p.children[1:]])


def lower_lateral(low, p: L.OpaqueRelation, outer) -> Frame:
    model, why = lateral_obstacle(p, outer)
    if model is None:
        return low.via_sql(p, why)
    frame = low.lower(model, outer)
    return Frame.of(frame.var, p.output, frame.names)


def lower_lateral_join(low, p: L.LateralJoin, outer) -> Frame:
    left = low.lower(p.left, outer)
    layers = _one_row_projections(p.right)
    if layers is not None and not any(is_unnamed(n) for n in left.names) and \
            (p.condition is None or p.condition == E.TRUE or p.join_type != L.LEFT_OUTER):
        return _selected(low, p, left, layers, outer)
    right = low.lower(p.right, left)  # (the left's columns read with .outer())
    both = Frame(left.var, left.names + right.names, {**right.ids, **left.ids})
    args = [right.var]
    if p.condition is not None:
        args.append(lower_expr(low, p.condition, Scope(both, outer)))
    args.append(f"how={py_str(_HOW[p.join_type])}")
    return Frame(low.emit(f"{left.var}.lateralJoin({', '.join(args)})"), both.names, both.ids)


def _one_row_projections(right: L.Plan) -> list[L.Project] | None:
    """The projections of a subquery without FROM (`LATERAL (SELECT x.a + 1 AS b)`), the
    innermost first, or None."""
    layers = []
    while isinstance(right, L.Project):
        layers.append(right)
        right = right.child
    return layers[::-1] if layers and isinstance(right, L.OneRowRelation) else None


def _selected(low, p: L.LateralJoin, left: Frame, layers: list[L.Project], outer) -> Frame:
    """A LATERAL subquery without FROM makes one row per row of the left: its columns are
    selected beside the left's, as Spark's optimizer rewrites it (OptimizeOneRowRelationSubquery;
    a `lateralJoin` over `spark.range(1)` would be decorrelated instead), then the ON
    condition of an inner join filters them."""
    frame = left
    for layer in layers:
        scope = Scope(frame, outer)
        names, ids = list(frame.names), dict(frame.ids)
        items = [col(n) for n in frame.names]
        for e, a, n in zip(layer.projections, layer.output, low.column_names(layer.output)):
            if a.expr_id in ids:
                continue  # (a column of the left as it is)
            body = e.child if isinstance(e, E.Alias) else e
            items.append(f"{lower_expr(low, body, scope, True)}.alias({py_str(n)})")
            names.append(n)
            ids[a.expr_id] = n
        frame = Frame(low.emit(f"{frame.var}.select({', '.join(items)})"), names, ids)
    wanted = left.names + [frame.ids[a.expr_id] for a in p.right.output]
    if frame.names != wanted:
        frame = Frame(low.emit(f"{frame.var}.select({', '.join(col(n) for n in wanted)})"), wanted, frame.ids)
    if p.condition is not None and p.condition != E.TRUE:
        frame = Frame(low.emit(f"{frame.var}.filter({lower_expr(low, p.condition, Scope(frame, outer))})"),
                      frame.names, frame.ids)
    return frame
