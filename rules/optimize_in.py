"""OptimizeIn: deduplicate literal IN lists; a one-element list is an equality.

`x IN (a)` and `x = a` agree on NULL (both NULL when either side is), on NaN (NaN = NaN)
and in evaluation (a is not evaluated when x is NULL), as long as both cast their
operands to the same type.  There is no InSet in this IR, so long lists stay IN lists.
Spark 4 with ANSI on: `x IN ()` is FALSE; legacy: NULL for a NULL x.
"""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir import types as T
from ..plans.ir.expressions import EqualTo, If, In, IsNotNull, Literal
from .base import expression_rule
from .predicates import droppable


@expression_rule("OptimizeIn", needs=(In,), catalyst="org.apache.spark.sql.catalyst.optimizer.OptimizeIn")
def optimize_in(e: E.Expr, ctx) -> E.Expr:
    """Empty, duplicate-literal and one-element IN lists."""
    match e:
        # x IN () -> FALSE (Spark 4, ANSI on: x is not evaluated)
        case In(value, ()) if ctx.null_in_empty_is_false and droppable(value):
            return E.FALSE
        # legacy: x IN () -> IF(x IS NOT NULL, FALSE, NULL)
        case In(value, ()) if not ctx.null_in_empty_is_false:
            return If(IsNotNull(value), E.FALSE, E.NULL_BOOL)
        # x IN (a) -> x = a, when IN and = cast x and a to the same type
        case In(value, (item,)) if _same_coercion(value.data_type, item.data_type):
            return EqualTo(value, item)
        # x IN (1, 1, 2) -> x IN (1, 2): repeated literals change nothing
        case In(value, items) if all(isinstance(i, Literal) for i in items) \
                and len(unique := _dedupe(items)) < len(items):
            if len(unique) == 1 and _same_coercion(value.data_type, unique[0].data_type):
                return EqualTo(value, unique[0])
            return In(value, unique)
        case _:
            return e


def _dedupe(items) -> tuple:
    seen: set = set()
    out = []
    for i in items:
        if i not in seen:
            seen.add(i)
            out.append(i)
    return tuple(out)


def _same_coercion(a: T.DataType, b: T.DataType) -> bool:
    """Do `x IN (y)` (wider type) and `x = y` (comparison type) cast alike?"""
    if a == b or T.NULL in (a, b):
        return True
    return T.STRING not in (a, b) and T.is_numeric(a) and T.is_numeric(b)
