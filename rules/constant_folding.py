"""ConstantFolding: replace an expression built only from literals by its value.

The value is computed by `plans.evaluate` with Spark's semantics (NaN = NaN, -0.0 = 0.0,
decimal rounding, casts of 'NaN' / 'Infinity' strings...).  An expression whose
evaluation raises (1/0 under ANSI, an overflow, a malformed cast) is left for Spark,
since the error is its result; so is anything the evaluator does not model exactly.
Non-deterministic expressions are never foldable.  The folded literal keeps the exact
type of the expression (a folded bigint stays bigint).

Folding runs bottom-up, so `IF(c, 1/0, 2 + 3)` becomes `IF(c, 1/0, 5)`: a branch that
would raise is kept as is, and raises only if Spark takes it.

Our IR has no implicit casts (Spark's analyzer inserts them; Catalyst then folds
`CAST('NaN' AS DOUBLE)`), so the implicit cast of a string literal compared with (or
listed IN against) another type is folded here: `x = 'NaN'` becomes `x = NaN` typed
double, when the cast succeeds and leaves the comparison type as it was.
"""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir import types as T
from ..plans.ir.evaluate import (
    CannotEvaluate,
    EvaluationError,
    fold_to_literal,
    implicit_cast,
)
from .base import expression_rule
from .predicates import types_reliable


# Every case needs a literal below it (a foldable expression is built from literals).
@expression_rule("ConstantFolding", needs=(E.Literal,),
                 catalyst="org.apache.spark.sql.catalyst.optimizer.ConstantFolding")
def constant_folding(e: E.Expr, ctx) -> E.Expr:
    """Evaluate deterministic literal-only expressions that cannot fail."""
    match e:
        # a literal is already folded; a named or ordering wrapper is not a value
        case E.Literal() | E.Alias() | E.SortOrder():
            return e
        # foldable e -> Literal(eval(e), e.data_type), unless evaluation raises
        case _ if e.foldable and types_reliable(e):
            folded = fold_to_literal(e, ctx.ansi)
            return folded if folded is not None else e
        # x = 'NaN' -> x = NaN: the implicit cast of a string literal, done once
        case E.Comparison() if (out := _typed_string_operands(e, ctx)) is not None:
            return out
        case E.In() if (out := _typed_string_items(e, ctx)) is not None:
            return out
        case _:
            return e


def _cast_string_literal(x: E.Expr, t: T.DataType | None, ansi: bool) -> E.Expr:
    """A non-NULL string literal cast to t when that cannot fail, else x itself."""
    if not (isinstance(x, E.Literal) and x.data_type == T.STRING and x.value is not None) \
            or t in (None, T.STRING, T.NULL) or T.contains_unknown(t):
        return x
    try:
        value = implicit_cast(x.value, T.STRING, t, ansi)
    except (EvaluationError, CannotEvaluate):
        return x
    return x if value is None else E.Literal(value, t)


def _typed_string_operands(e: E.Comparison, ctx) -> E.Expr | None:
    t = e.compare_type
    left = _cast_string_literal(e.left, t, ctx.ansi)
    right = _cast_string_literal(e.right, t, ctx.ansi)
    if left is e.left and right is e.right:
        return None
    new = e.copy(left=left, right=right)
    return new if new.compare_type == t else None


def _typed_string_items(e: E.In, ctx) -> E.Expr | None:
    t = T.wider_type_of([e.value.data_type] + [i.data_type for i in e.items])
    if t is None:
        return None
    value = _cast_string_literal(e.value, t, ctx.ansi)
    items = tuple(_cast_string_literal(i, t, ctx.ansi) for i in e.items)
    if value is e.value and all(a is b for a, b in zip(items, e.items)):
        return None
    new = E.In(value, items)
    if T.wider_type_of([new.value.data_type] + [i.data_type for i in new.items]) != t:
        return None
    return new
