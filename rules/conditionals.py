"""SimplifyConditionals: IF and CASE WHEN with constant conditions or equal branches.

A branch Spark does not take is never evaluated, so dropping it is sound even when it
would raise (it is never folded, though: ConstantFolding leaves it alone).  Dropping a
*condition* drops its evaluation, so only droppable (deterministic, non-raising)
conditions go, and equal branches merge only when deterministic (`IF(c, rand(7),
rand(7))` is not `rand(7)`: each branch is its own generator).  `IF(c, TRUE, FALSE)`
is c only for a never-NULL c; otherwise it is `c <=> TRUE` (SPARK-33845: NULL must
become FALSE).  Results keep the expression's type: a surviving branch of another type
gets the CAST Spark applied to it anyway.
"""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir import types as T
from ..plans.ir.expressions import (
    And,
    CaseWhen,
    EqualNullSafe,
    If,
    Literal,
    Not,
    Or,
    is_null_literal,
)
from .base import expression_rule
from .predicates import droppable, types_reliable, with_type


@expression_rule("SimplifyConditionals", needs=(If, CaseWhen),
                 catalyst="org.apache.spark.sql.catalyst.optimizer.SimplifyConditionals")
def simplify_conditionals(e: E.Expr, ctx) -> E.Expr:
    """Constant-condition and equal-branch identities of IF and CASE WHEN."""
    if isinstance(e, (If, CaseWhen)) and not types_reliable(e):
        return e  # its type here may not be Spark's: keep every branch
    match e:
        # IF(TRUE, x, y) -> x; IF(FALSE, x, y) -> y; IF(NULL, x, y) -> y
        case If(predicate, then, _) if predicate == E.TRUE:
            return _typed(then, e)
        case If(predicate, _, otherwise) if predicate == E.FALSE or is_null_literal(predicate):
            return _typed(otherwise, e)
        case If(predicate, then, otherwise):
            return _if_identities(predicate, then, otherwise, e)
        case CaseWhen():
            return _simplify_case(e)
        case _:
            return e


def _typed(x: E.Expr, original: E.Expr) -> E.Expr:
    typed = with_type(x, original.data_type)
    return typed if typed is not None else original


def _if_identities(c: E.Expr, then: E.Expr, otherwise: E.Expr, e: E.Expr) -> E.Expr:
    """Identities of IF(c, then, otherwise), shared with a one-branch CASE WHEN."""
    boolean = c.data_type == T.BOOLEAN
    # IF(c, x, x) -> x, when c is deterministic and cannot raise and x is deterministic
    # (two rand(7) are two generators: each branch's advances only on its own rows)
    if then == otherwise and then.deterministic and droppable(c):
        return _typed(then, e)
    if not boolean or e.data_type != T.BOOLEAN:
        return e
    # IF(c, TRUE, FALSE) -> c if c is never NULL, else c <=> TRUE
    if then == E.TRUE and otherwise == E.FALSE:
        return c if not c.nullable else EqualNullSafe(c, E.TRUE)
    # IF(c, FALSE, TRUE) -> NOT c if c is never NULL, else NOT (c <=> TRUE)
    if then == E.FALSE and otherwise == E.TRUE:
        return Not(c) if not c.nullable else Not(EqualNullSafe(c, E.TRUE))
    if c.nullable:
        return e
    # never-NULL c: IF(c, NULL, FALSE) -> c AND NULL; IF(c, NULL, TRUE) -> NOT c OR NULL;
    # IF(c, FALSE, NULL) -> NOT c AND NULL; IF(c, TRUE, NULL) -> c OR NULL
    if is_null_literal(then) and otherwise == E.FALSE:
        return And(c, E.NULL_BOOL)
    if is_null_literal(then) and otherwise == E.TRUE:
        return Or(Not(c), E.NULL_BOOL)
    if then == E.FALSE and is_null_literal(otherwise):
        return And(Not(c), E.NULL_BOOL)
    if then == E.TRUE and is_null_literal(otherwise):
        return Or(c, E.NULL_BOOL)
    return e


def _same_value(a: E.Expr | None, b: E.Expr | None) -> bool:
    if a is None or b is None:
        return (a is None or is_null_literal(a)) and (b is None or is_null_literal(b))
    # equal non-deterministic values are not the same value (each is its own generator)
    return (a == b and a.deterministic) or (is_null_literal(a) and is_null_literal(b))


def _simplify_case(e: CaseWhen) -> E.Expr:
    # branches whose condition is FALSE or NULL are never taken
    branches = [(c, v) for c, v in e.branches if not (c == E.FALSE or is_null_literal(c))]
    otherwise = e.otherwise
    # the first branch with a TRUE condition is taken whenever reached: it becomes the ELSE
    for i, (c, v) in enumerate(branches):
        if c == E.TRUE:
            branches, otherwise = branches[:i], v
            break
    # trailing branches giving the ELSE value anyway go, if their condition is droppable
    while branches and _same_value(branches[-1][1], otherwise) and droppable(branches[-1][0]):
        branches.pop()
    # ELSE NULL -> no ELSE (SPARK-37270), when that leaves the type as it is
    if otherwise is not None and is_null_literal(otherwise) and branches \
            and CaseWhen(tuple(branches)).data_type == e.data_type:
        otherwise = None
    if not branches:
        result = otherwise if otherwise is not None else Literal(None, e.data_type)
        if T.contains_unknown(e.data_type):
            return e
        return _typed(result, e)
    if len(branches) == 1:
        (c, v), = branches
        fallback = otherwise if otherwise is not None else Literal(None, v.data_type)
        out = _if_identities(c, v, fallback, e)
        if out is not e:
            return out
    if len(branches) == len(e.branches) and otherwise is e.otherwise and \
            all(a is b for a, b in zip(branches, e.branches)):
        return e
    new = CaseWhen(tuple(branches), otherwise)
    if new == e:
        return e
    return _typed(new, e)
