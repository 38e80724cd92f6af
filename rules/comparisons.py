"""SimplifyBinaryComparison: comparisons of an expression with itself, and with TRUE/FALSE.

`a = a` is TRUE only when a is not NULL (NULL = NULL is NULL); NaN = NaN is TRUE in
Spark, so NaN needs no guard.  Inside a Filter, a top-level conjunct `a IS NOT NULL`
makes a never NULL for its sibling conjuncts: where a is NULL the filter is not TRUE
anyway, and a top-level conjunct that turns NULL into TRUE changes no short-circuit.
"""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from ..plans.ir import types as T
from ..plans.ir.expressions import (
    EqualNullSafe,
    EqualTo,
    GreaterThan,
    GreaterThanOrEqual,
    LessThan,
    LessThanOrEqual,
    Not,
)
from ..plans.ir.tree import mask_of
from .base import plan_rule, transform_up_typed
from .predicates import droppable

_REFLEXIVE_TRUE = (EqualTo, GreaterThanOrEqual, LessThanOrEqual)
_REFLEXIVE_FALSE = (GreaterThan, LessThan)
_MASK = mask_of(EqualNullSafe, EqualTo, GreaterThan, GreaterThanOrEqual, LessThan, LessThanOrEqual)


def simplify_comparison(e: E.Expr, not_null=frozenset()) -> E.Expr:
    """One comparison; `not_null` holds expressions known not to be NULL here."""
    match e:
        # a <=> a -> TRUE (a deterministic and cannot raise)
        case EqualNullSafe(left, right) if left == right and droppable(left):
            return E.TRUE
        # a = a, a >= a, a <= a -> TRUE and a > a, a < a -> FALSE, for a never NULL
        case E.Comparison() if type(e) in _REFLEXIVE_TRUE + _REFLEXIVE_FALSE \
                and _same_never_null(e, not_null):
            return E.TRUE if isinstance(e, _REFLEXIVE_TRUE) else E.FALSE
        # a = TRUE -> a, a = FALSE -> NOT a (a boolean; NULL stays NULL)
        case EqualTo(left, right) if right == E.TRUE and left.data_type == T.BOOLEAN:
            return left
        case EqualTo(left, right) if left == E.TRUE and right.data_type == T.BOOLEAN:
            return right
        case EqualTo(left, right) if right == E.FALSE and left.data_type == T.BOOLEAN:
            return Not(left)
        case EqualTo(left, right) if left == E.FALSE and right.data_type == T.BOOLEAN:
            return Not(right)
        # a <=> TRUE -> a, a <=> FALSE -> NOT a, only for a never NULL (NULL <=> TRUE is FALSE)
        case EqualNullSafe(left, right) if right == E.TRUE and _never_null_boolean(left):
            return left
        case EqualNullSafe(left, right) if left == E.TRUE and _never_null_boolean(right):
            return right
        case EqualNullSafe(left, right) if right == E.FALSE and _never_null_boolean(left):
            return Not(left)
        case EqualNullSafe(left, right) if left == E.FALSE and _never_null_boolean(right):
            return Not(right)
        case _:
            return e


def _same_never_null(e: E.Comparison, not_null) -> bool:
    left, right = e.left, e.right
    return left == right and droppable(left) and (not left.nullable or left in not_null)


def _never_null_boolean(x: E.Expr) -> bool:
    return x.data_type == T.BOOLEAN and not x.nullable


@plan_rule("SimplifyBinaryComparison",
           needs=(EqualNullSafe, EqualTo, GreaterThan, GreaterThanOrEqual, LessThan, LessThanOrEqual),
           catalyst="org.apache.spark.sql.catalyst.optimizer.SimplifyBinaryComparison")
def simplify_binary_comparison(plan: L.Plan, ctx) -> L.Plan:
    """Reflexive comparisons and comparisons with boolean literals."""
    if not (plan.mask & _MASK):
        return plan
    if isinstance(plan, L.Filter):
        plan = _filter_with_not_null(plan)
    return plan.map_expressions(
        lambda x: transform_up_typed(x, simplify_comparison, _MASK, opaque=(E.Opaque,)))


def _filter_with_not_null(f: L.Filter) -> L.Filter:
    conjuncts = E.split_conjuncts(f.condition)
    not_null = frozenset(c.child for c in conjuncts if isinstance(c, E.IsNotNull))
    if not not_null:
        return f
    new = [simplify_comparison(c, not_null) if isinstance(c, E.Comparison) else c for c in conjuncts]
    if all(a is b for a, b in zip(new, conjuncts)):
        return f
    return L.Filter(E.conjunction(new), f.child)
