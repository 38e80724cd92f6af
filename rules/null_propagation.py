"""NullPropagation: what Catalyst's rule of that name does, with Spark 4's IN semantics.

Every case keeps the expression's type, and drops a sub-expression only when Spark
would not evaluate it or when evaluating it has no effect (`droppable`: deterministic
and cannot raise), so errors and non-deterministic values survive.
"""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir import types as T
from ..plans.ir.expressions import (
    Agg,
    Coalesce,
    EqualNullSafe,
    In,
    IsNotNull,
    IsNull,
    Literal,
    is_null_literal,
)
from .base import expression_rule
from .predicates import droppable, string_cast_may_raise, types_reliable, with_type

ONE = Literal(1, T.INT)


@expression_rule("NullPropagation", needs=(Agg, IsNull, IsNotNull, Coalesce, In, Literal),
                 catalyst="org.apache.spark.sql.catalyst.optimizer.NullPropagation")
def null_propagation(e: E.Expr, ctx) -> E.Expr:
    """Fold NULL literals through null-intolerant expressions, count(), IS [NOT] NULL,
    <=> NULL, coalesce and IN."""
    match e:
        # count(NULL, ...) -> CAST(0 AS BIGINT): no row has every argument non-NULL
        # (DISTINCT or not, whatever the FILTER says, as long as dropping it is invisible)
        case Agg("count", args, _, flt) if args and all(is_null_literal(a) for a in args) \
                and (flt is None or droppable(flt)):
            return Literal(0, T.LONG)
        # count(e, ...) with every e never NULL -> count(1); not for DISTINCT (it counts values)
        case Agg("count", args, False, flt) if args != (ONE,) \
                and all(not a.nullable and droppable(a) for a in args):
            return Agg("count", (ONE,), False, flt)
        # never-NULL IS NULL -> FALSE, IS NOT NULL -> TRUE (the operand's evaluation is dropped)
        case IsNull(child) if not child.nullable and droppable(child):
            return E.FALSE
        case IsNotNull(child) if not child.nullable and droppable(child):
            return E.TRUE
        # x <=> NULL -> x IS NULL (unless a typed NULL makes Spark cast a string x first)
        case EqualNullSafe(left, right) if is_null_literal(right) and _no_cast_dropped(e, right):
            return IsNull(left)
        case EqualNullSafe(left, right) if is_null_literal(left) and _no_cast_dropped(e, left):
            return IsNull(right)
        # coalesce: drop NULL literals, stop at the first never-NULL argument
        case Coalesce():
            return _prune_coalesce(e)
        # NULL IN (...) -> NULL: Spark does not evaluate the list for a NULL value
        case In(value, items) if items and is_null_literal(value):
            return E.NULL_BOOL
        # x IN () -> FALSE in Spark 4 with ANSI on (legacy: NULL for a NULL x, see OptimizeIn)
        case In(value, ()) if ctx.null_in_empty_is_false and droppable(value):
            return E.FALSE
        case In(value, ()) if is_null_literal(value):
            return E.NULL_BOOL
        # a null-intolerant expression with a NULL argument is NULL of its type
        case _ if e.null_intolerant and _has_null_child(e) and _others_droppable(e):
            return Literal(None, e.data_type)
        case _:
            return e


def _no_cast_dropped(cmp: E.Expr, null: E.Expr) -> bool:
    """Rewriting `x <=> NULL` to `x IS NULL` drops the cast of x to the comparison type,
    which can raise only for a string x compared with a typed NULL."""
    return null.data_type == T.NULL or not string_cast_may_raise(cmp)


def _has_null_child(e: E.Expr) -> bool:
    return any(is_null_literal(c) for c in e.children)


def _others_droppable(e: E.Expr) -> bool:
    if isinstance(e, Literal) or not types_reliable(e):
        return False
    if not all(droppable(c) for c in e.children if not is_null_literal(c)):
        return False
    if isinstance(e, E.Arithmetic) and T.STRING in {c.data_type for c in e.children}:
        # a string operand is cast first, and ANSI refuses `NULL + 'a'`
        return False
    if isinstance(e, E.Comparison):
        # a typed NULL next to a string makes Spark cast the string (which may raise)
        nulls = [c for c in e.children if is_null_literal(c)]
        return all(n.data_type == T.NULL for n in nulls) or not string_cast_may_raise(e)
    if isinstance(e, E.Func):
        # the function itself could raise (an invalid LIKE pattern), or Spark casts an
        # argument first (which may raise) or refuses its type (`substring(NULL, TRUE)`)
        return not e.may_raise and e.spec.exact_args(e.args)
    return True


def _prune_coalesce(e: Coalesce) -> E.Expr:
    args = [a for a in e.args if not is_null_literal(a)]
    for i, a in enumerate(args):
        # (an argument that may raise under ANSI may be NULL without it: a decimal
        # overflow, which the nullability the model gives it does not show)
        if not a.nullable and droppable(a):
            args = args[: i + 1]  # later arguments are never evaluated
            break
    if len(args) == len(e.args):
        return e
    if not types_reliable(e):
        return e
    if not args:
        return Literal(None, e.data_type)
    new = args[0] if len(args) == 1 else Coalesce(tuple(args), e.fname)
    typed = with_type(new, e.data_type)
    return typed if typed is not None else e
