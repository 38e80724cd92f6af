"""BooleanSimplification in three-valued logic, with Spark's evaluation order.

Spark evaluates `a AND b` / `a OR b` left to right and skips b when a decides
(FALSE / TRUE).  So `FALSE AND e` -> FALSE is always sound (e is never evaluated), but
`e AND FALSE` -> FALSE drops an evaluation of e: only when e is `droppable`
(deterministic, cannot raise).  Complement and absorption need a never-NULL operand
(`a AND NOT a` is NULL, not FALSE, when a is NULL: SPARK-25402).  NOT over a comparison
flips it (`NOT a > b` is `a <= b`: Spark orders every value, NaN largest, and NULL
propagates through both).

Chains are split only up to `_MAX_PARTS` operands, so rewriting the 10,000-term OR
chains that generated SQL contains stays linear.
"""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir import types as T
from ..plans.ir.expressions import And, Not, Or
from ..plans.ir.tree import fold
from .base import expression_rule
from .predicates import droppable, with_type

_MAX_PARTS = 64
_FLIP = {E.GreaterThan: E.LessThanOrEqual, E.GreaterThanOrEqual: E.LessThan,
         E.LessThan: E.GreaterThanOrEqual, E.LessThanOrEqual: E.GreaterThan}


@expression_rule("BooleanSimplification", needs=(And, Or, Not),
                 catalyst="org.apache.spark.sql.catalyst.optimizer.BooleanSimplification")
def boolean_simplification(e: E.Expr, ctx) -> E.Expr:
    """Identities of AND / OR / NOT that hold for NULL operands and keep errors."""
    match e:
        # TRUE AND e -> e, e AND TRUE -> e
        case And(left, right) if left == E.TRUE:
            return _boolean(right, e)
        case And(left, right) if right == E.TRUE:
            return _boolean(left, e)
        # FALSE AND e -> FALSE (e is never evaluated); e AND FALSE -> FALSE if e is droppable
        case And(left, right) if left == E.FALSE or (right == E.FALSE and droppable(left)):
            return E.FALSE
        # FALSE OR e -> e, e OR FALSE -> e
        case Or(left, right) if left == E.FALSE:
            return _boolean(right, e)
        case Or(left, right) if right == E.FALSE:
            return _boolean(left, e)
        # TRUE OR e -> TRUE; e OR TRUE -> TRUE if e is droppable
        case Or(left, right) if left == E.TRUE or (right == E.TRUE and droppable(left)):
            return E.TRUE
        # a AND a -> a, a OR a -> a (a deterministic: its second evaluation repeats the first)
        case And(left, right) | Or(left, right) if left == right and left.deterministic:
            return _boolean(left, e)
        # a AND NOT a -> FALSE, a OR NOT a -> TRUE, for a never NULL
        case And(left, right) if _complement(left, right):
            return E.FALSE
        case Or(left, right) if _complement(left, right):
            return E.TRUE
        # a AND (NOT a OR c) -> a AND c, a OR (NOT a AND c) -> a OR c, for a never NULL
        case And(left, Or() as inner) if (out := _absorb(e, left, inner, True)) is not None:
            return out
        case And(Or() as inner, right) if (out := _absorb(e, right, inner, False)) is not None:
            return out
        case Or(left, And() as inner) if (out := _absorb(e, left, inner, True)) is not None:
            return out
        case Or(And() as inner, right) if (out := _absorb(e, right, inner, False)) is not None:
            return out
        # (a OR b) AND (a OR c) -> a OR (b AND c); duplicate conjuncts / disjuncts dropped
        case And() | Or() if (out := _factor(e)) is not None:
            return out
        # NOT TRUE -> FALSE, NOT NOT a -> a, NOT a > b -> a <= b, NOT IS NULL -> IS NOT NULL,
        # De Morgan: NOT (a AND b) -> NOT a OR NOT b (pushed down the whole chain at once)
        case Not(child) if (out := _negate(child)) is not None:
            return out
        case _:
            return e


def _boolean(x: E.Expr, original: E.Expr) -> E.Expr:
    """x standing in for a boolean expression (a void NULL literal becomes a typed one)."""
    typed = with_type(x, T.BOOLEAN)
    return typed if typed is not None else original


def _never_null(a: E.Expr) -> bool:
    return not a.nullable and droppable(a)


def negation(a: E.Expr) -> E.Expr:
    """NOT a, simplified one level: NOT NOT x -> x, comparisons flipped, IS [NOT] NULL."""
    match a:
        case E.Literal(True, T.BOOLEAN):
            return E.FALSE
        case E.Literal(False, T.BOOLEAN):
            return E.TRUE
        case Not(child) if child.data_type == T.BOOLEAN:
            return child
        case E.Comparison() if type(a) in _FLIP:
            return _FLIP[type(a)](a.left, a.right)
        case E.IsNull(child):
            return E.IsNotNull(child)
        case E.IsNotNull(child):
            return E.IsNull(child)
        case _:
            return Not(a)


def _complement(a: E.Expr, b: E.Expr) -> bool:
    """Is b = NOT a (or a = NOT b), both never NULL and free to drop?"""
    return (b == negation(a) or a == negation(b)) and _never_null(a) and _never_null(b)


def _absorb(e: And | Or, a: E.Expr, inner: And | Or, a_first: bool) -> E.Expr | None:
    """a AND (NOT a OR c) -> a AND c (and the OR dual), a never NULL and deterministic.
    The result evaluates a first; when the original evaluated c before a, c must be
    droppable (when a decides, the original still evaluated c)."""
    if a.nullable or not a.deterministic:
        return None
    p, q = inner.left, inner.right
    if _is_negation(a, p):
        rest = q
    elif _is_negation(a, q) and (a_first or droppable(p)):
        rest = p
    else:
        return None
    return e.copy(left=a, right=rest)


def _is_negation(a: E.Expr, b: E.Expr) -> bool:
    return b == negation(a) or a == negation(b)


def _split(e: E.Expr, cls) -> list[E.Expr] | None:
    """The operands of a chain of `cls`, or None if it has more than _MAX_PARTS."""
    out, stack = [], [e]
    while stack:
        x = stack.pop()
        if isinstance(x, cls):
            stack.append(x.right)
            stack.append(x.left)
        else:
            out.append(x)
        if len(out) + len(stack) > _MAX_PARTS:  # each pending entry holds an operand at least
            return None
    return out


def _factor(e: And | Or) -> E.Expr | None:
    """(a OR b) AND (a OR c) -> a OR (b AND c) (dually for OR), then duplicate operands
    of the chain dropped (keeping the first, so evaluation order is kept)."""
    outer, inner = (And, Or) if isinstance(e, And) else (Or, And)
    join_outer = E.conjunction if outer is And else E.disjunction
    join_inner = E.disjunction if outer is And else E.conjunction
    left, right = _split(e.left, inner), _split(e.right, inner)
    if left is not None and right is not None and (len(left) > 1 or len(right) > 1):
        common = [x for x in left if x in right and x.deterministic]
        if common and all(droppable(x) for x in left + right):
            left_rest = [x for x in left if x not in common]
            right_rest = [x for x in right if x not in common]
            if not left_rest or not right_rest:
                return join_inner(common)
            return inner(join_inner(common), outer(join_inner(left_rest), join_inner(right_rest)))
    parts = _split(e, outer)
    if parts is None:
        return None
    seen: set = set()
    unique = []
    for x in parts:
        if x in seen and x.deterministic:
            continue
        seen.add(x)
        unique.append(x)
    if len(unique) == len(parts):
        return None
    return join_outer(unique)


def _negate(child: E.Expr) -> E.Expr | None:
    """NOT child simplified, or None when only NOT child itself is left."""
    if not isinstance(child, (And, Or)):
        out = negation(child)
        return None if isinstance(out, Not) and out.child is child else out

    def step(n, kids):
        if isinstance(n, And):
            return Or(kids[0], kids[1])
        if isinstance(n, Or):
            return And(kids[0], kids[1])
        return negation(n)

    return fold(child, step, children=lambda n: n.children if isinstance(n, (And, Or)) else ())
