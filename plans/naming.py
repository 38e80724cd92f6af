"""Spark's generated column names for unaliased select items.

Spark names `SELECT a = NULL` as `(a = NULL)`, `count(*)` as `count(1)`, a cast of a
column as the column, and drops the casts its analyzer inserted (`toPrettySQL`).
`spark_name` reproduces that from our expressions; every form here was checked
against PySpark 4.3 (tests/test_naming.py compares with Spark).
"""

from __future__ import annotations

import math
from datetime import date, datetime
from decimal import Decimal

from . import expressions as E
from . import types as T
from .tree import fold


def java_double(v: float) -> str:
    """Java's Double.toString, which Spark uses for double literals in names:
    positional between 1e-3 and 1e7, `d.dddE<n>` outside, always a digit after the point."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    if v == 0:
        return "-0.0" if math.copysign(1.0, v) < 0 else "0.0"
    d = Decimal(repr(v))
    sign = "-" if v < 0 else ""
    if 1e-3 <= abs(v) < 1e7:
        text = format(abs(d), "f")
        if "." not in text:
            text += ".0"
        return sign + text
    _, digits, exponent = d.as_tuple()
    ds = "".join(map(str, digits)).rstrip("0") or "0"
    power = len(digits) + exponent - 1
    return f"{sign}{ds[0]}.{ds[1:] or '0'}E{power}"


def literal_name(value, data_type: T.DataType) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if data_type in (T.DOUBLE, T.FLOAT) and isinstance(value, (float, int)):
        return java_double(float(value))
    if isinstance(value, Decimal):
        if value == 0:
            value = abs(value)
        return format(value, "f")
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return "X'" + value.hex().upper() + "'"
    if isinstance(value, datetime):
        return f"TIMESTAMP '{value.strftime('%Y-%m-%d %H:%M:%S')}'" if data_type == T.TIMESTAMP \
            else f"TIMESTAMP_NTZ '{value.strftime('%Y-%m-%d %H:%M:%S')}'"
    if isinstance(value, date):
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, tuple):
        return interval_name(value, data_type)
    return str(value)


def interval_name(value, data_type) -> str:
    months, days, micros = value
    unit = T.INTERVAL_UNITS.get(data_type)
    if unit is not None:
        name, field, size = unit
        n = value[field] // size
        text = f"{n:02d}" if name in ("HOUR", "MINUTE", "SECOND") and n >= 0 else str(n)
        return f"INTERVAL '{text}' {name}"
    if data_type in T.YEAR_MONTH_INTERVALS:
        if months % 12 == 0:
            return f"INTERVAL '{months // 12}' YEAR"
        return f"INTERVAL '{months}' MONTH"
    if micros == 0:
        return f"INTERVAL '{days}' DAY"
    return f"INTERVAL '{days} {micros}' DAY TO SECOND"


def _name_node(e: E.Expr, args: list[str]) -> str:
    match e:
        case E.Literal(value, dt):
            return literal_name(value, dt)
        case E.Attribute(name):
            return name
        case E.Alias(_, name):
            return name  # a lateral alias or merged USING key, referred to by name
        case E.Not():
            return f"(NOT {args[0]})"
        case E.IsNull():
            return f"({args[0]} IS NULL)"
        case E.IsNotNull():
            return f"({args[0]} IS NOT NULL)"
        case E.Negate():
            return f"(- {args[0]})"
        case E.Add(left, right) if left.data_type == T.DATE and right.data_type == T.DAY_INTERVAL:
            return f"date_add({args[0]}, extractansiintervaldays({args[1]}))"
        case E.Add(left, right) if left.data_type == T.DATE and T.is_integral(right.data_type):
            return f"date_add({args[0]}, {args[1]})"
        case E.Subtract(left, right) if left.data_type == T.DATE and right.data_type == T.DAY_INTERVAL:
            return f"date_add({args[0]}, (- extractansiintervaldays({args[1]})))"
        case E.Add(left, right) | E.Subtract(left, right) if right.data_type in T.INTERVALS and \
                left.data_type in (T.DATE, T.TIMESTAMP, T.TIMESTAMP_NTZ, T.STRING):
            return f"{args[0]} {e.symbol} {args[1]}"  # Spark writes these without parentheses
        case E.Subtract(left, right) if left.data_type == T.DATE and T.is_integral(right.data_type):
            return f"date_sub({args[0]}, {args[1]})"
        case E.BinaryExpr():
            return f"({args[0]} {e.symbol} {args[1]})"
        case E.Cast(_, to, try_, user):
            if not user:
                return args[0]
            return f"{'TRY_CAST' if try_ else 'CAST'}({args[0]} AS {to.sql()})"
        case E.If():
            return f"(IF({args[0]}, {args[1]}, {args[2]}))"
        case E.CaseWhen(branches, otherwise):
            parts = ["CASE"]
            for i in range(len(branches)):
                parts.append(f"WHEN {args[2 * i]} THEN {args[2 * i + 1]}")
            if otherwise is not None:
                parts.append(f"ELSE {args[-1]}")
            parts.append("END")
            return " ".join(parts)
        case E.Coalesce():
            return f"{e.fname}({', '.join(args)})"
        case E.In():
            return f"({args[0]} IN ({', '.join(args[1:])}))"
        case E.Func("like"):
            return f"{args[0]} LIKE {args[1]}"
        case E.Func(name):
            return f"{name}({', '.join(args)})"
        case E.Agg(name, fargs, distinct, flt):
            n = len(fargs)
            text = f"{name}({'DISTINCT ' if distinct else ''}{', '.join(args[:n])})"
            if flt is not None:
                text += f" FILTER (WHERE {args[n]})"
            return text
        case E.Opaque():
            return e.sql_text
        case E.ScalarSubquery():
            return "scalarsubquery()"
        case E.Exists():
            return "exists()"
        case E.InSubquery():
            inner = args[0] if len(args) == 1 else f"named_struct({', '.join(args)})"
            return f"({inner} IN (listquery()))"
        case E.SortOrder():
            return args[0]
        case _:
            return f"{type(e).__name__.lower()}({', '.join(args)})"


def spark_name(e: E.Expr) -> str:
    """The column name Spark gives `SELECT <e>` when e has no alias."""
    # ResolveAliases: a cast of a named expression keeps the name (`CAST(a AS BIGINT)` is `a`)
    while isinstance(e, E.Cast) and isinstance(e.child, (E.Attribute, E.Alias)):
        e = e.child
    if isinstance(e, E.Alias):
        return e.name
    return fold(e, _name_node)
