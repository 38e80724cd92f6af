"""Python source for values, names and types in a lowered program (`py_str`, `col`,
`py_value`, DDL strings)."""

from __future__ import annotations

import math
import re
from datetime import date
from decimal import Decimal
from typing import Any

from ..ir import expressions as E
from ..ir import types as T
from ..ir.dialect import DIALECT
from ..ir.errors import InternalError
from ..sql_out.to_sql import literal_sql

# Nesting depth of one Python expression before a sub-expression is hoisted into its own
# variable (CPython's parser allows 200 nested parentheses).


_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def py_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") \
        .replace("\r", "\\r").replace("\t", "\\t") + '"'


def quote_ident(name: str) -> str:
    """A column name as Spark parses it in `F.col` / SQL text (backticks when needed)."""
    if _IDENT.match(name):
        return name
    return "`" + name.replace("`", "``") + "`"


def col(name: str) -> str:
    return f"F.col({py_str(quote_ident(name))})"


def py_value(v: Any, imports: set[str]) -> str:
    """A Python literal for a value of a local relation."""
    if v is None or isinstance(v, (bool, int)):
        return repr(v)
    if isinstance(v, float):
        if math.isnan(v):
            return 'float("nan")'
        if math.isinf(v):
            return 'float("inf")' if v > 0 else 'float("-inf")'
        return repr(v)
    if isinstance(v, str):
        return py_str(v)
    if isinstance(v, Decimal):
        imports.add("from decimal import Decimal")
        return f'Decimal("{v}")'
    if isinstance(v, date):  # (and datetime): the repr names the module, `datetime.date(2020, 1, 2)`
        imports.add("import datetime")
        return repr(v)
    if isinstance(v, (bytes, bytearray)):
        return f"bytearray({bytes(v)!r})"
    raise InternalError(f"no Python literal for {v!r}")


def _as_type(v: Any, t: T.DataType) -> Any:
    """The Python value createDataFrame accepts for a column of type t."""
    if v is None:
        return v
    if t in (T.DOUBLE, T.FLOAT) and not isinstance(v, float):
        return float(v)
    if isinstance(t, T.DecimalType) and not isinstance(v, Decimal):
        return Decimal(str(v))
    if T.is_integral(t) and not isinstance(v, int):
        return int(v)
    return v


def _py_tuple(items: list[str]) -> str:
    return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"


def ddl(names: list[str], attrs, nullable: list[bool] | None = None) -> str:
    """The DDL of columns named `names`, typed as `attrs`, nullable as `nullable` says
    (default: as the attributes are)."""
    parts = []
    for i, (n, a) in enumerate(zip(names, attrs)):
        t = a.data_type if a.data_type != T.UNKNOWN else T.NULL
        null = a.nullable if nullable is None else nullable[i]
        parts.append(f"`{n.replace('`', '``')}` {t.written()}{'' if null else ' NOT NULL'}")
    return ", ".join(parts)


# Types createDataFrame takes from plain Python values exactly.
_SIMPLE_TYPES = (T.BOOLEAN, T.BYTE, T.SHORT, T.INT, T.LONG, T.FLOAT, T.DOUBLE, T.STRING, T.BINARY,
                 T.DATE, T.NULL)


def _plain_literal(e: E.Expr) -> str | None:
    """A right operand written as a plain Python value where F.lit gives the same type
    (int, finite double, string), for readability: `F.col("num") > 5`."""
    if isinstance(e, E.Literal) and e.value is not None:
        v, t = e.value, e.data_type
        if t == T.INT and not isinstance(v, bool):
            return repr(int(v))
        if t == T.DOUBLE and isinstance(v, float) and math.isfinite(v):
            return repr(v)
        if t == T.STRING:
            return py_str(v)
    return None


def _lit(value: Any, dt: T.DataType) -> str:
    """A literal of exactly this type: F.lit where Python's value maps to it, else the
    SQL text `plans.sql_out` writes for it (`5L`, `1.25`, `CAST(NULL AS INT)`...)."""
    if value is None and dt == T.NULL:
        return "F.lit(None)"
    if value is not None:
        if dt == T.BOOLEAN:
            return f"F.lit({bool(value)!r})"
        if dt == T.INT and not isinstance(value, bool):
            return f"F.lit({int(value)!r})"
        if dt == T.STRING:
            return f"F.lit({py_str(value)})"
        if dt == T.DOUBLE and isinstance(value, float) and math.isfinite(value):
            # (NaN and the infinities go as the SQL text writes them, a cast from a string:
            # Spark types that nullable and F.lit(float("nan")) NOT NULL, and both paths
            # must give the column the same nullability, `written_nullable`)
            return f"F.lit({value!r})"
    text = literal_sql(value, dt).sql(dialect=DIALECT)
    return f"F.expr({py_str(text)})"
