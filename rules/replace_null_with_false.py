"""ReplaceNullWithFalseInPredicate: where NULL and FALSE mean the same, write FALSE.

A WHERE / HAVING / JOIN ON condition, an aggregate's FILTER, an IF predicate and a
CASE WHEN condition keep a row (take a branch) only when the value is TRUE, so NULL
there may become FALSE.  Never in a SELECT value: `NOT (1 IN (2, NULL))` is NULL there.

Like Calcite's RexSimplify, the rewrite carries an explicit null context down the
boolean structure: under "unknown as false" a NULL literal becomes FALSE, under
"unknown as true" TRUE; NOT flips the context; AND / OR / boolean IF / CASE values pass
it on; conditions of IF / CASE start a fresh "unknown as false"; anything else (a
comparison, a function argument) stops it.  Short-circuits are kept honest: a NULL
left operand of AND turned into FALSE skips the right operand, so that is done only
when the right operand is droppable (dually for OR and TRUE).
"""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from ..plans.ir import types as T
from ..plans.ir.expressions import (
    And,
    CaseWhen,
    EqualNullSafe,
    If,
    In,
    Not,
    Or,
    is_null_literal,
)
from ..plans.ir.tree import mask_of
from .base import plan_rule, transform_up_typed
from .predicates import droppable

AS_FALSE, AS_TRUE = False, True  # the value NULL may take in the context
_LOCAL_MASK = mask_of(If, CaseWhen, EqualNullSafe, E.Agg)
_KEEP = object()


@plan_rule("ReplaceNullWithFalseInPredicate",
           needs=(L.Filter, L.Join, If, CaseWhen, EqualNullSafe, E.Agg),
           catalyst="org.apache.spark.sql.catalyst.optimizer.ReplaceNullWithFalseInPredicate")
def replace_null_with_false(plan: L.Plan, ctx) -> L.Plan:
    """NULL -> FALSE in filter and join conditions, IF predicates and CASE conditions."""
    match plan:
        case L.Filter(condition, child):
            new = replace_in_predicate(condition)
            if new is not condition:
                plan = L.Filter(new, child)
        case L.Join(left, right, join_type, condition) if condition is not None:
            new = replace_in_predicate(condition)
            if new is not condition:
                plan = L.Join(left, right, join_type, new)
    if not (plan.mask & _LOCAL_MASK):
        return plan
    return plan.map_expressions(lambda x: transform_up_typed(x, _local, _LOCAL_MASK, opaque=(E.Opaque,)))


def _local(e: E.Expr) -> E.Expr:
    """Predicates inside any expression: IF / CASE conditions, `x <=> TRUE`, FILTER."""
    match e:
        case If(predicate, then, otherwise):
            new = replace_in_predicate(predicate)
            return e if new is predicate else If(new, then, otherwise)
        case CaseWhen(branches, otherwise):
            new_branches = tuple((replace_in_predicate(c), v) for c, v in branches)
            if all(a[0] is b[0] for a, b in zip(new_branches, branches)):
                return e
            return CaseWhen(new_branches, otherwise)
        # NULL <=> TRUE and FALSE <=> TRUE are both FALSE
        case EqualNullSafe(left, right) if right == E.TRUE and left.data_type == T.BOOLEAN:
            new = replace_in_predicate(left)
            return e if new is left else EqualNullSafe(new, right)
        case E.Agg(name, args, distinct, flt) if flt is not None:
            new = replace_in_predicate(flt)
            return e if new is flt else E.Agg(name, args, distinct, new)
        case _:
            return e


def replace_in_predicate(e: E.Expr, context: bool = AS_FALSE) -> E.Expr:
    """e rewritten for a position where NULL means `context` (FALSE by default).
    Iterative; returns e itself when nothing changes."""
    stack: list = [(e, context, False, None)]
    results: list = []
    while stack:
        n, ctx, expanded, plan = stack.pop()
        if ctx is _KEEP:
            results.append(n)
            continue
        if not expanded:
            leaf = _leaf(n, ctx)
            if leaf is not None:
                results.append(leaf)
                continue
            plan = _child_contexts(n, ctx)
            if plan is None:
                results.append(n)
                continue
            stack.append((n, ctx, True, plan))
            for child, c in reversed(list(zip(n.children, plan))):
                stack.append((child, _KEEP if c is None else c, False, None))
            continue
        count = len(n.children)
        kids = results[-count:]
        del results[-count:]
        results.append(_rebuild(n, kids, ctx))
    return results[0]


def _leaf(n: E.Expr, ctx: bool) -> E.Expr | None:
    # NULL -> FALSE (or TRUE under NOT)
    if is_null_literal(n) and n.data_type in (T.BOOLEAN, T.NULL):
        return E.TRUE if ctx is AS_TRUE else E.FALSE
    # a AND NOT a is FALSE or NULL, so FALSE here; a OR NOT a is TRUE or NULL, so TRUE under
    # NOT (BooleanSimplification leaves them to a nullable a, SPARK-25402)
    if isinstance(n, And if ctx is AS_FALSE else Or) and _complements(n.left, n.right) \
            and droppable(n.left) and droppable(n.right):
        return E.FALSE if ctx is AS_FALSE else E.TRUE
    # x IN (.., NULL, ..) and NULL IN (..) are TRUE or NULL, never FALSE: TRUE where NULL
    # counts as TRUE (so NOT (x IN (1, NULL)) in a WHERE is FALSE, SPARK-34692)
    if ctx is AS_TRUE and isinstance(n, In) and n.items and droppable(n) and \
            any(is_null_literal(c) for c in n.children):
        return E.TRUE
    return None


def _complements(a: E.Expr, b: E.Expr) -> bool:
    from .boolean_simplification import negation

    return a.data_type == T.BOOLEAN and (b == negation(a) or a == negation(b))


def _child_contexts(n: E.Expr, ctx: bool):
    """The context of each child, None for a child left alone; None: do not descend."""
    match n:
        case And(_, right):
            # AND skips its right side after a FALSE left: only if the right is droppable
            return [ctx if (ctx is AS_TRUE or droppable(right)) else None, ctx]
        case Or(_, right):
            return [ctx if (ctx is AS_FALSE or droppable(right)) else None, ctx]
        case Not(child) if child.data_type in (T.BOOLEAN, T.NULL):
            return [not ctx]
        case If() if n.data_type == T.BOOLEAN:
            return [AS_FALSE, ctx, ctx]
        case CaseWhen(branches, otherwise) if n.data_type == T.BOOLEAN:
            contexts = [AS_FALSE, ctx] * len(branches)
            return contexts + ([ctx] if otherwise is not None else [])
        case _:
            return None


def _rebuild(n: E.Expr, kids: list, ctx: bool) -> E.Expr:
    out = n.with_children(kids)
    match out:
        # a CASE without ELSE gives NULL: write the context's value
        case CaseWhen(branches, None):
            out = CaseWhen(branches, E.TRUE if ctx is AS_TRUE else E.FALSE)
        # NOT TRUE -> FALSE, NOT FALSE -> TRUE (left by the context flip)
        case Not(E.Literal(bool() as v, T.BOOLEAN)) if out is not n:
            out = E.FALSE if v else E.TRUE
    return out
