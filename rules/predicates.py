"""What rules need to know about an expression before they drop, duplicate or retype it."""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir import types as T


def droppable(e: E.Expr) -> bool:
    """Can a rewrite leave e unevaluated (or evaluate it once more) without changing
    anything observable?  Only when it is deterministic and cannot raise."""
    return e.deterministic and not e.may_raise


def string_cast_may_raise(e: E.Expr) -> bool:
    """Does a comparison / arithmetic / IN cast a STRING operand to another type
    (which raises under ANSI for a malformed string)?  A void NULL needs no cast."""
    types = {c.data_type for c in e.children} - {T.NULL}
    return len(types) > 1 and T.STRING in types


def with_type(e: E.Expr, t: T.DataType) -> E.Expr | None:
    """e as an expression of type t, where Spark's implicit cast of the original
    expression's value is the same cast: a NULL literal retyped, or a CAST that only
    widens a number (or converts a string, which the original cast too).  None when
    that cannot be guaranteed."""
    src = e.data_type
    if src == t:
        return e
    if T.contains_unknown(t) or T.contains_unknown(src):
        return None
    if isinstance(e, E.Literal) and e.value is None:
        return E.Literal(None, t)
    if src in (T.NULL, T.STRING) or (T.is_numeric(src) and T.is_numeric(t)):
        return E.Cast(e, t, user=False)
    return None


def type_is_reliable(e: E.Expr) -> bool:
    """Is e.data_type what Spark gives e?  Folding e to a literal writes that type out.
    Unknown types are not; a function typed void (a NULL argument Spark may first cast)
    is not trusted either.  (tests/test_naming.py compares the type model with Spark.)"""
    if T.contains_unknown(e.data_type):
        return False
    if e.data_type == T.NULL and isinstance(e, E.Func):
        return False
    return not _float_with_integral(e)


def _float_with_integral(e: E.Expr) -> bool:
    """An integral operand meets a float: Spark widens both to float without ANSI and to
    double with it (`1 + 1.5F` is a double, `16777217 = CAST(16777216 AS FLOAT)` FALSE),
    which the type model does not tell apart (tests/oracles/folds.py finds it)."""
    types = {c.data_type for c in e.children}
    return T.FLOAT in types and any(T.is_integral(t) for t in types)


def types_reliable(e: E.Expr) -> bool:
    """type_is_reliable for e and everything below it (a wrong type propagates up: a
    rewrite choosing among branches must not pick by a type Spark does not give)."""
    return all(type_is_reliable(n) for n in e.walk() if not isinstance(n, (E.Opaque, E.Agg)))


_EXACT = frozenset((T.BOOLEAN, T.BYTE, T.SHORT, T.INT, T.LONG, T.STRING, T.BINARY, T.DATE,
                    T.TIMESTAMP, T.TIMESTAMP_NTZ) + T.DAY_TIME_INTERVALS + T.YEAR_MONTH_INTERVALS)


def exact_type(t: T.DataType) -> bool:
    """Are equal values of t identical (no 0.0 / -0.0, no collation)?"""
    if isinstance(t, T.DecimalType):
        return True
    if isinstance(t, T.ArrayType):
        return exact_type(t.element)
    if isinstance(t, T.StructType):
        return all(exact_type(f.data_type) for f in t.fields)
    return t in _EXACT
