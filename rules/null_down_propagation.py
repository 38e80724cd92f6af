"""NullDownPropagation: push IS [NOT] NULL through expressions that are NULL exactly
when an operand is: NOT, and deterministic <, <=, >, >=.

`(a > b) IS NULL` -> `a IS NULL OR b IS NULL`, evaluating a then b only when a is not
NULL, as the comparison does.  Not through CAST (a legacy cast turns a bad string into
NULL), not through `=` (too disruptive for other rules, SPARK-32290), not through a
comparison that casts a string operand (malformed strings raise or become NULL), and
not through non-deterministic comparisons.
"""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir.expressions import (
    GreaterThan,
    GreaterThanOrEqual,
    IsNotNull,
    IsNull,
    LessThan,
    LessThanOrEqual,
    Not,
)
from .base import expression_rule
from .predicates import string_cast_may_raise

_ORDERING = (GreaterThan, GreaterThanOrEqual, LessThan, LessThanOrEqual)


@expression_rule("NullDownPropagation", needs=(IsNull, IsNotNull),
                 catalyst="org.apache.spark.sql.catalyst.optimizer.NullDownPropagation")
def null_down_propagation(e: E.Expr, ctx) -> E.Expr:
    """IS [NOT] NULL of NOT / ordering comparisons -> IS [NOT] NULL of the operands."""
    match e:
        # (NOT a) IS NULL -> a IS NULL; (a > b) IS NULL -> a IS NULL OR b IS NULL
        case IsNull(child) if _transparent(child):
            return E.disjunction([IsNull(x) for x in _operands(child)])
        # (NOT a) IS NOT NULL -> a IS NOT NULL; (a > b) IS NOT NULL -> both IS NOT NULL
        case IsNotNull(child) if _transparent(child):
            return E.conjunction([IsNotNull(x) for x in _operands(child)])
        case _:
            return e


def _transparent(x: E.Expr) -> bool:
    """Is x NULL exactly when one of its operands is?"""
    if isinstance(x, Not):
        return True
    return isinstance(x, _ORDERING) and x.deterministic and not string_cast_may_raise(x)


def _operands(x: E.Expr) -> list[E.Expr]:
    """The operands below a stack of transparent expressions, left to right."""
    out, stack = [], [x]
    while stack:
        n = stack.pop()
        if _transparent(n):
            stack.extend(reversed(n.children))
        else:
            out.append(n)
    return out
