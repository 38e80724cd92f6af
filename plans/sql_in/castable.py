"""Which casts Spark's analyzer takes: Cast.canCast (spark.sql.ansi.enabled off),
Cast.canAnsiCast (on, and every TRY_CAST), over the scalar types sparkfold models; read
off Spark 4.3 by the type oracle (tests/oracles/expr_types.py).  A cast it rejects is
not modelled (the query passes through, Spark reports it)."""

from __future__ import annotations

from ..ir import types as T
from .widening import interval_kind

_DATETIMES = (T.DATE, T.TIMESTAMP, T.TIMESTAMP_NTZ)


def _scalar(t: T.DataType) -> bool:
    # (no `*_DATETIMES` inside the tuple: mypyc cannot compile a starred `in (...)`)
    return isinstance(t, T.DecimalType) or t in (
        T.BOOLEAN, T.BYTE, T.SHORT, T.INT, T.LONG, T.FLOAT, T.DOUBLE, T.STRING, T.BINARY) \
        or t in _DATETIMES or interval_kind(t) is not None


def can_cast(src: T.DataType, dst: T.DataType, ansi: bool) -> bool | None:
    """Does Spark take CAST(<src> AS <dst>) (`ansi`: under ANSI rules, as TRY_CAST
    always is)?  None where sparkfold does not know (a type not modelled here)."""
    if src == dst or src == T.NULL or dst == T.STRING:
        return True
    if not (_scalar(src) and _scalar(dst)):
        return None
    if src == T.STRING:
        return True
    legacy = not ansi
    numeric = T.is_numeric(src)
    if dst == T.BOOLEAN:
        return numeric or (legacy and src in (T.DATE, T.TIMESTAMP))
    if T.is_integral(dst) or isinstance(dst, T.DecimalType):
        return numeric or src in (T.BOOLEAN, T.TIMESTAMP) or interval_kind(src) is not None \
            or (legacy and src == T.DATE)
    if dst in (T.FLOAT, T.DOUBLE):
        return numeric or src in (T.BOOLEAN, T.TIMESTAMP) or (legacy and src == T.DATE)
    if dst == T.BINARY:
        return legacy and T.is_integral(src)
    if dst in (T.DATE, T.TIMESTAMP_NTZ):
        return src in _DATETIMES
    if dst == T.TIMESTAMP:
        return src in _DATETIMES or numeric or (legacy and src == T.BOOLEAN)
    kind = interval_kind(dst)
    if kind is not None:
        src_kind = interval_kind(src)
        if src_kind is not None:
            return src_kind[0] == kind[0]
        return T.is_integral(src) or isinstance(src, T.DecimalType)
    return None
