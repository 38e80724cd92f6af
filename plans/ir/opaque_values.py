"""The unmodelled expressions (`Opaque`, kept as written) whose value the evaluator reads:
a quantified LIKE (plans.ir.quantified_like) with its quantifier, and a tuple IN
(plans.ir.tuple_in).  They are deterministic, and Spark's analysis accepts them as read
(the types each requires)."""

from __future__ import annotations

from . import expressions as E
from . import types as T
from .quantified_like import quantified_like, quantifier_items
from .tuple_in import tuple_in


def evaluable_opaque(e: E.Expr) -> bool:
    """Is `e` an Opaque the evaluator reads (a quantified LIKE or its quantifier, a tuple IN)?"""
    if not isinstance(e, E.Opaque):
        return False
    return quantified_like(e) is not None or quantifier_items(e) is not None or tuple_in(e) is not None


def deterministic(e: E.Expr) -> bool:
    """`e.deterministic`, the Opaques the evaluator reads counted as what they are."""
    return all(n._self_deterministic() or evaluable_opaque(n) for n in e.walk())


def spark_accepts(e: E.Opaque) -> tuple[E.Expr, ...] | None:
    """When Spark's analysis surely accepts the Opaque `e` (one the evaluator reads, over
    the types it reads), the Opaques among its arguments that it accepts with it (a
    quantified LIKE's quantifier); else None."""
    q = quantified_like(e)
    if q is not None:
        if q.value.data_type == T.STRING and all(p.data_type in (T.STRING, T.NULL) for p in q.patterns):
            return (e.args[1],)
        return None
    t = tuple_in(e)
    if t is not None and not any(T.contains_unknown(v.data_type) or v.data_type == T.NULL for v in t[0]):
        return ()
    return None
