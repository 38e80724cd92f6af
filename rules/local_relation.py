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
"""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
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
