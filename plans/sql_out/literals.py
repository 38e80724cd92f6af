"""Literals and types as Spark SQL that Spark reads back exactly (value and type):
`0L`, `1.5D`, `CAST('NaN' AS DOUBLE)`, `CAST(NULL AS INT)`."""

from __future__ import annotations

import math
from datetime import date, datetime
from decimal import Decimal
from typing import cast

from sqlglot import exp

from ..ir import expressions as E
from ..ir import intervals
from ..ir import types as T
from ..ir.dialect import TYPED_LITERAL_PREFIX
from ..ir.errors import InternalError


# a type's sqlglot node by its text: sqlglot builds one by parsing the text, a hundredth
# of a TPC-DS run when the writer asked for each cast and typed NULL it writes
_TYPE_NODES: dict[str, exp.DataType] = {}
_TYPE_NODES_KEPT = 1024


def data_type_sql(t: T.DataType) -> exp.DataType:
    text = t.written()
    node = _TYPE_NODES.get(text)
    if node is None:
        node = exp.DataType.build(text, dialect="spark")
        if len(_TYPE_NODES) < _TYPE_NODES_KEPT:
            _TYPE_NODES[text] = node
    return node.copy()  # (a node of its own for each tree it goes into)


def _typed_number(text: str, suffix_type: str) -> exp.Expression:
    neg = text.startswith("-")
    lit = exp.Anonymous(this=TYPED_LITERAL_PREFIX + suffix_type,
                        expressions=[exp.Literal.number(text.lstrip("-"))])
    return exp.Neg(this=lit) if neg else lit


def _natural_decimal(v: Decimal) -> T.DecimalType:
    _, digits, exponent = v.as_tuple()
    scale = max(-cast(int, exponent), 0)  # finite: a decimal type's value
    return T.DecimalType(max(len(digits), scale, 1), scale)


def literal_sql(value, t: T.DataType) -> exp.Expression:
    """SQL text that Spark reads back as exactly this value of exactly this type."""
    if value is None:
        if t == T.NULL:
            return exp.Null()
        return exp.Cast(this=exp.Null(), to=data_type_sql(t))
    if t == T.BOOLEAN:
        return exp.true() if value else exp.false()
    if t == T.INT:
        return exp.Literal.number(value) if value >= 0 else exp.Neg(this=exp.Literal.number(-value))
    if t in (T.LONG, T.SHORT, T.BYTE):
        suffix = {T.LONG: "bigint", T.SHORT: "smallint", T.BYTE: "tinyint"}[t]
        return _typed_number(str(value), suffix)
    if t == T.DOUBLE:
        v = float(value)
        if math.isnan(v) or math.isinf(v):
            text = "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
            return exp.Cast(this=exp.Literal.string(text), to=data_type_sql(T.DOUBLE))
        return _typed_number(repr(v), "double")
    if t == T.FLOAT:
        v = float(value)
        text = "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity") if math.isinf(v) \
            else repr(v)
        return exp.Cast(this=exp.Literal.string(text), to=data_type_sql(T.FLOAT))
    if isinstance(t, T.DecimalType):
        d = Decimal(value)
        if _natural_decimal(d) == t:
            text = format(d, "f")
            if d.is_signed() and d == 0:
                text = text.lstrip("-")
            if text.startswith("-"):
                return exp.Neg(this=_decimal_literal(text[1:]))
            return _decimal_literal(text)
        # a decimal of a type wider than its digits (0 as decimal(12,2)) is written as its
        # digits to the type's scale, cast to the type: `CAST(0.00 AS DECIMAL(12, 2))`, a
        # widening of the literal 0.00 (decimal(2,2)), which Spark types NOT NULL in both
        # modes (a cast from the string '0.00' is nullable) and names as it names the
        # string's cast
        digits = T.decimal_digits(d, t)
        if digits is not None:
            return exp.Cast(this=literal_sql(digits, _natural_decimal(digits)), to=data_type_sql(t))
        return exp.Cast(this=exp.Literal.string(format(d, "f")), to=data_type_sql(t))
    if t == T.STRING:
        return exp.Literal.string(str(value))
    if t == T.BINARY:
        return exp.HexString(this=bytes(value).hex().upper())
    if t == T.DATE and isinstance(value, date):
        return exp.Anonymous(this=TYPED_LITERAL_PREFIX + "date", expressions=[exp.Literal.string(value.isoformat())])
    if t in (T.TIMESTAMP, T.TIMESTAMP_NTZ) and isinstance(value, datetime):
        kind = t.written().lower()  # (TIMESTAMP_LTZ under a session's timestampType: DataType.written)
        return exp.Anonymous(this=TYPED_LITERAL_PREFIX + kind,
                             expressions=[exp.Literal.string(value.isoformat(sep=" "))])
    if isinstance(value, tuple) and intervals.parts(value, t) is not None:
        body, start, end = cast(tuple[str, str, str], intervals.parts(value, t))
        unit: exp.Expression = exp.Var(this=start.upper()) if start == end else \
            exp.IntervalSpan(this=exp.Var(this=start.upper()), expression=exp.Var(this=end.upper()))
        return exp.Interval(this=exp.Literal.string(body), unit=unit)
    raise InternalError(f"cannot write a literal {value!r} of type {t}")


def _decimal_literal(text: str) -> exp.Expression:
    if "." in text:
        return exp.Literal.number(text)
    # an integral decimal literal needs the BD suffix to stay a decimal
    return exp.Anonymous(this=TYPED_LITERAL_PREFIX + "decimal", expressions=[exp.Literal.number(text)])


def written_nullable(value, t: T.DataType) -> bool:
    """Does Spark type the text `literal_sql(value, t)` nullable?  A NULL; and a value
    Spark SQL has no literal for, written as a cast from a string, which Spark types
    nullable (the string could fail to parse): NaN and the infinities, every float.  Every
    other literal is NOT NULL (a decimal of a type wider than its digits is a widening cast
    of its digits, `types.decimal_digits`)."""
    if value is None:
        return True
    if t == T.DOUBLE:
        return not math.isfinite(float(value))
    if t == T.FLOAT:
        return True
    if isinstance(t, T.DecimalType):
        d = Decimal(value)
        return _natural_decimal(d) != t and T.decimal_digits(d, t) is None
    return False


_EPOCH = datetime(1970, 1, 1)


def non_null_value(t: T.DataType) -> E.Expr | None:
    """A value of type t that Spark types NOT NULL as written (None: no such text),
    for a column that must be NOT NULL where no row is ever read (an empty relation's)
    or never NULL (restoring a NOT NULL the written query lost)."""
    if t == T.BOOLEAN:
        return E.FALSE
    if T.is_integral(t):
        return E.Literal(0, t)
    if t in (T.DOUBLE, T.STRING):
        return E.Literal(0.0 if t == T.DOUBLE else "", t)
    if t == T.FLOAT:
        return E.Cast(E.Literal(0, T.INT), T.FLOAT)  # (a float literal is a cast from a string)
    if isinstance(t, T.DecimalType):
        # the value whose digits make exactly this type: 100.00 for decimal(5,2), 0.00 for (2,2)
        whole = "1" + "0" * (t.precision - t.scale - 1) if t.precision > t.scale else "0"
        value = Decimal(whole + ("." + "0" * t.scale if t.scale else ""))
        return E.Literal(value, t) if _natural_decimal(value) == t else None
    if t == T.BINARY:
        return E.Literal(b"", t)
    if t == T.DATE:
        return E.Literal(_EPOCH.date(), t)
    if t in (T.TIMESTAMP, T.TIMESTAMP_NTZ):
        return E.Literal(_EPOCH, t)
    if t in T.INTERVAL_UNITS:
        return E.Literal((0, 0, 0), t)
    return None


def literal_is_plain(lit: E.Literal) -> bool:
    """Does the literal's SQL text make Spark name the column as spark_name(lit) does?"""
    v, t = lit.value, lit.data_type
    if v is None:
        return t == T.NULL
    if t == T.DOUBLE:
        return not (math.isnan(v) or math.isinf(v))
    if t == T.FLOAT:
        return False
    if isinstance(t, T.DecimalType):
        return _natural_decimal(Decimal(v)) == t
    return True
