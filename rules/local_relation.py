"""ConvertToLocalRelation, the part of it that empties a relation: a Filter over rows
the plan holds, true on none of them, is the empty relation.

Catalyst's ConvertToLocalRelation (Optimizer.scala, in the "LocalRelation early" and
"LocalRelation" batches) evaluates a Project, a Filter or a Limit over a LocalRelation
while it optimizes, row by row, into a new LocalRelation; PropagateEmptyRelation then
folds what an empty one reaches.  The rows it sees are an inline table's (VALUES), and
a view's whose definition is one: Catalyst has replaced the view by its definition by
then (`testData WHERE a = 0`, testData a view over VALUES, is empty to it).  sparkfold
keeps a view a table in the plan (the text sent to Spark reads it by name) and is told
the rows of the views whose definitions it proved to be rows (`ctx.view_rows`, by the
relation's `table`; optimizer.views).

Only the outcome that removes the Filter's input is taken: the Filter becomes the empty
relation when its condition, evaluated on each row as Spark evaluates it
(`plans.ir.evaluate`, in the query's ANSI mode), is FALSE or NULL on every row.  A
condition that raises on some row, or that sparkfold cannot evaluate exactly (a function
it does not model, a subquery, a non-deterministic call), keeps the Filter: Spark would
raise too, or sparkfold does not know what Spark would do.  (Some expressions kept as
written are evaluated: `c LIKE ANY (...)`, `(a, b) IN ((1, 2))`, plans.ir.opaque_values.)  A Filter that keeps some rows
is left as written.

An INTERSECT or EXCEPT of rows the plan holds is evaluated too, as Catalyst does once it
has made it a semi or anti join of local relations (ReplaceIntersectWithSemiJoin,
ReplaceExceptWithAntiJoin, then ConvertToLocalRelation and the join's folding): the
constant rows of a SELECT without FROM (`SELECT 1 INTERSECT SELECT 2`), of Projects over
rows, VALUES, a view's rows.  Rows are the same as Spark's set operations compare them: a
NULL the same as a NULL, NaN as NaN, -0.0 as 0.0 (NormalizeFloatingNumbers), each value
of a type compared by its value (numbers, strings without a collation, booleans, dates,
timestamps, binaries); under ALL each row as many times as Spark keeps it.  A set
operation of them is rows in turn (`SELECT 1 INTERSECT SELECT 1 INTERSECT SELECT 2`).
Only the outcome that empties the operator is taken.
"""

from __future__ import annotations

import math

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from ..plans.ir import types as T
from ..plans.ir.evaluate import CannotEvaluate, EvaluationError, evaluate
from ..plans.ir.opaque_values import deterministic
from ..plans.ir.tree import transform_up
from .base import plan_rule
from .prune_filters import writable

_MAX_ROWS = 1000  # rows evaluated per Filter, at most


def rows_of(p: L.Plan, ctx) -> tuple[tuple, ...] | None:
    """The rows `p` outputs (in `p.output`'s order), when the plan holds them: an inline
    table, or the relation of a view whose definition is rows (`ctx.view_rows`)."""
    while isinstance(p, L.SubqueryAlias):
        p = p.child
    if isinstance(p, L.LocalRelation):
        return p.rows
    if isinstance(p, L.Relation):
        return ctx.view_rows.get(p.table)
    return None


def true_on_none(cond: E.Expr, output, rows, ansi: bool) -> bool:
    """Is `cond` FALSE or NULL on every row (each row's values bound to `output`), with
    no row raising and every row evaluated exactly?"""
    if not deterministic(cond) or len(rows) > _MAX_ROWS:
        return False
    ids = [a.expr_id for a in output]
    used = [i for i, x in enumerate(ids) if x in cond.references]
    for row in rows:
        bound = _bound(cond, {ids[i]: E.Literal(row[i], output[i].data_type) for i in used})
        if bound.references:
            return False  # an outer query's column: not the rows' alone
        try:
            if evaluate(bound, ansi) is True:
                return False
        except (EvaluationError, CannotEvaluate):
            return False
    return True


def _bound(e: E.Expr, values: dict[int, E.Expr]) -> E.Expr:
    """`e` with the row's values for its columns, in the arguments of the Opaques too (the
    evaluator reads some: the result is evaluated, never written)."""
    return transform_up(e, lambda n: values.get(n.expr_id, n) if isinstance(n, E.Attribute) else n,
                        mask=E.Attribute.bit)


def constant_rows(p: L.Plan, ctx) -> tuple[tuple, ...] | None:
    """`rows_of`, and the rows of the one row of a SELECT without FROM, or of a Project
    over rows, each of its items evaluated on each row (deterministic, none raising)."""
    while isinstance(p, L.SubqueryAlias):
        p = p.child
    if isinstance(p, L.OneRowRelation):
        return ((),)
    if isinstance(p, (L.Intersect, L.Except)):
        return _set_operation_rows(p, ctx)
    if not isinstance(p, L.Project):
        return rows_of(p, ctx)
    below = constant_rows(p.child, ctx)
    if below is None or len(below) > _MAX_ROWS or not all(deterministic(e) for e in p.projections):
        return None
    inputs = p.child.output
    out = []
    for row in below:
        values: dict[int, E.Expr] = {a.expr_id: E.Literal(v, a.data_type) for a, v in zip(inputs, row)}
        items = []
        for e in p.projections:
            bound = _bound(e.child if isinstance(e, E.Alias) else e, values)
            if bound.references:
                return None  # an outer query's column
            try:
                items.append(evaluate(bound, ctx.ansi))
            except (EvaluationError, CannotEvaluate):
                return None
        out.append(tuple(items))
    return tuple(out)


def _same_row(a: tuple, b: tuple) -> bool:
    """Are two rows (of types compared by value) the same row to a set operation?"""
    for x, y in zip(a, b):
        if x is None or y is None:
            if x is not y:
                return False
        elif isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
            continue
        elif x != y:  # (-0.0 == 0.0)
            return False
    return True


def _set_operation_rows(p: L.Intersect | L.Except, ctx) -> tuple[tuple, ...] | None:
    """The rows of an INTERSECT or EXCEPT [ALL] of rows, as Spark's set operations keep
    them (a row kept once, or under ALL as many times as the operation keeps it)."""
    if not all(T.compared_by_value(a.data_type) or a.data_type == T.NULL for a in p.output):
        return None
    lrows, rrows = constant_rows(p.left, ctx), constant_rows(p.right, ctx)
    if lrows is None or rrows is None or len(lrows) * len(rrows) > 100 * _MAX_ROWS:
        return None

    def count(row: tuple, rows: tuple | list) -> int:
        return sum(_same_row(row, x) for x in rows)

    out: list[tuple] = []
    for row in lrows:
        if isinstance(p, L.Intersect):
            copies = min(count(row, lrows), count(row, rrows)) if p.all else min(1, count(row, rrows))
        else:
            copies = max(count(row, lrows) - count(row, rrows), 0) if p.all else int(count(row, rrows) == 0)
        if count(row, out) < copies:
            out.append(row)
    return tuple(out)


@plan_rule("SetOperationOfRows", needs=(L.Intersect, L.Except), catalyst="ConvertToLocalRelation")
def set_operation_of_rows(p: L.Plan, ctx) -> L.Plan:
    """An INTERSECT or EXCEPT of rows that keeps none of them -> the empty relation."""
    match p:
        case L.Intersect() | L.Except() if writable(p.output) and _set_operation_rows(p, ctx) == ():
            return L.empty_like(p)
        case _:
            return p


@plan_rule("ConvertToLocalRelation", needs=(L.Filter,), catalyst="ConvertToLocalRelation")
def convert_to_local_relation(p: L.Plan, ctx) -> L.Plan:
    """A Filter over rows the plan holds (VALUES, a view over VALUES) that keeps none of
    them -> the empty relation."""
    match p:
        case L.Filter(cond, child) if writable(child.output):
            rows = rows_of(child, ctx)
            if rows and true_on_none(cond, child.output, rows, ctx.ansi):
                return L.empty_like(child)
            return p
        case _:
            return p
