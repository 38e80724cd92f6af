"""Spark's common types, in each of its two coercion systems: `AnsiTypeCoercion` (under
spark.sql.ansi.enabled) and `TypeCoercion` (without), read off Spark 4 and checked by the
type oracle (tests/oracles/expr_types.py).  `ansi` picks the system everywhere.

- `tightest`: findTightestCommonType (numbers widen, a date next to a timestamp, intervals
  of one kind to the fields of both, NULL to anything);
- `wider` / `wider_common`: findWiderTypeForTwo / findWiderCommonType (and decimals,
  and strings: promoted to the other type under ANSI, the other to a string without);
- `wider_without_strings`: findWiderTypeWithoutStringPromotion (greatest, least);
- `implicit_cast`: the type an argument is cast to where a function expects a kind of
  type (ImplicitTypeCasts), or None where Spark rejects it.
"""

from __future__ import annotations

from ..ir import types as T

_NUMERIC_PRECEDENCE = (T.BYTE, T.SHORT, T.INT, T.LONG, T.FLOAT, T.DOUBLE)


def interval_kind(t: T.DataType) -> tuple[str, int, int] | None:
    """("day-time" | "year-month", start field, end field) of an ANSI interval type."""
    if t in T.DAY_TIME_INTERVALS:
        return ("day-time", *_fields(t.simple_string(), T.DAY_TIME_FIELDS))
    if t in T.YEAR_MONTH_INTERVALS:
        return ("year-month", *_fields(t.simple_string(), T.YEAR_MONTH_FIELDS))
    return None


def _fields(name: str, fields: tuple[str, ...]) -> tuple[int, int]:
    words = name.split()[1:]  # "interval day to second" -> day, to, second
    return fields.index(words[0]), fields.index(words[-1])


def is_ansi_interval(t: T.DataType) -> bool:
    return interval_kind(t) is not None


def is_wider_decimal(d: T.DecimalType, t: T.DataType) -> bool:
    """DecimalType.isWiderThan: d holds every value of t (an integral or a decimal)."""
    other = T.decimal_for(t)
    return other is not None and d.precision - d.scale >= other.precision - other.scale \
        and d.scale >= other.scale


def tightest(a: T.DataType, b: T.DataType, ansi: bool) -> T.DataType | None:
    if a == b:
        return a
    if a == T.NULL:
        return b
    if b == T.NULL:
        return a
    if T.is_integral(a) and isinstance(b, T.DecimalType) and is_wider_decimal(b, a):
        return b
    if T.is_integral(b) and isinstance(a, T.DecimalType) and is_wider_decimal(a, b):
        return a
    if a in _NUMERIC_PRECEDENCE and b in _NUMERIC_PRECEDENCE:
        wider = max(a, b, key=_NUMERIC_PRECEDENCE.index)
        # ANSI: an integral next to a float is a double (a float cannot hold every long)
        return T.DOUBLE if ansi and wider == T.FLOAT else wider
    if T.is_datetime(a) and T.is_datetime(b):
        if T.TIMESTAMP in (a, b):
            return T.TIMESTAMP
        return T.TIMESTAMP_NTZ
    ka, kb = interval_kind(a), interval_kind(b)
    if ka is not None and kb is not None and ka[0] == kb[0]:
        make = T.day_time_interval if ka[0] == "day-time" else T.year_month_interval
        return make(min(ka[1], kb[1]), max(ka[2], kb[2]))
    return None


def wider_for_decimal(a: T.DataType, b: T.DataType) -> T.DataType | None:
    """findWiderTypeForDecimal: decimals widen to hold both; next to a float, a double."""
    if isinstance(a, T.DecimalType) or isinstance(b, T.DecimalType):
        if T.is_fractional(a) or T.is_fractional(b):
            return T.DOUBLE
        da, db = T.decimal_for(a), T.decimal_for(b)
        if da is not None and db is not None:
            return T.wider_decimal(da, db)
    return None


def _atomic(t: T.DataType) -> bool:
    """Spark's AtomicType: the scalar types but void and the calendar interval."""
    return t not in (T.NULL, T.UNKNOWN, T.CALENDAR_INTERVAL) and isinstance(t, (T.AtomicType, T.DecimalType))


def string_promotion(a: T.DataType, b: T.DataType, ansi: bool) -> T.DataType | None:
    """The type a string and another type are both cast to: ANSI promotes the string
    (AnsiStringPromotionTypeCoercion.findWiderTypeForString), the legacy system makes the
    other a string (TypeCoercion.stringPromotion)."""
    if a != T.STRING:
        if b != T.STRING:
            return None
        a, b = b, a
    if ansi:
        if T.is_integral(b):
            return T.LONG
        if T.is_fractional(b) or isinstance(b, T.DecimalType):
            return T.DOUBLE
        if b == T.NULL:
            return T.STRING
        if is_ansi_interval(b):
            return None
        return b if _atomic(b) else None
    if _atomic(b) and b not in (T.BINARY, T.BOOLEAN):
        return T.STRING
    return None


def wider(a: T.DataType, b: T.DataType, ansi: bool) -> T.DataType | None:
    """findWiderTypeForTwo."""
    t = tightest(a, b, ansi)
    if t is None:
        t = wider_for_decimal(a, b)
    if t is None:
        t = string_promotion(a, b, ansi)
    return t


def wider_common(types, ansi: bool) -> T.DataType | None:
    """findWiderCommonType: the types folded left from void (without ANSI, the strings
    first: the legacy system's widening is not associative)."""
    types = list(types)
    if not ansi:
        strings = [t for t in types if t == T.STRING]
        types = strings[:1] + [t for t in types if t != T.STRING]
    out: T.DataType | None = T.NULL
    for t in types:
        out = wider(out, t, ansi) if out is not None else None
    return out


def wider_without_strings(types, ansi: bool) -> T.DataType | None:
    """findWiderTypeWithoutStringPromotion (greatest, least)."""
    out: T.DataType | None = T.NULL
    for t in types:
        if out is None:
            return None
        w = tightest(out, t, ansi)
        out = w if w is not None else wider_for_decimal(out, t)
    return out
