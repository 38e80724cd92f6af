"""Literals the DataFrame API gives with exactly Spark SQL's type, value and nullability,
beyond what `values._lit` writes with `F.lit` (the rest go as SQL text, `F.expr`):

- a typed NULL: `F.lit(None).cast(t)` is the tree Spark parses `CAST(NULL AS t)` into;
- a BIGINT outside the INT range: `F.lit(v)` is a LONG literal (classic and Connect);
- a DATE of the Gregorian era (from 1900): `F.lit(datetime.date(...))`.

Not here, for they differ: a BIGINT / SMALLINT / TINYINT in the INT range (`F.lit` makes it
an INT; a cast is not a literal, and Spark types an integral *literal* in decimal
arithmetic by its digits, `DecimalPrecision`), a DECIMAL (Spark Connect sends it as
DECIMAL(10, 0) widened to its digits: another type), a FLOAT, NaN and the infinities."""

from __future__ import annotations

from datetime import date
from typing import Any

from ..ir import types as T
from .values import py_str

_NULL_TYPES = (T.BOOLEAN, T.BYTE, T.SHORT, T.INT, T.LONG, T.FLOAT, T.DOUBLE, T.STRING, T.BINARY, T.DATE,
               T.TIMESTAMP, T.TIMESTAMP_NTZ)
_INT = 2 ** 31
_LONG = 2 ** 63


def literal_code(value: Any, dt: T.DataType, imports: set[str]) -> str | None:
    """Python code of the literal as a Column, or None when it has no exact DataFrame form."""
    if value is None:
        plain = dt in _NULL_TYPES or isinstance(dt, T.DecimalType)
        return f"F.lit(None).cast({py_str(dt.written())})" if plain else None
    if dt == T.LONG and isinstance(value, int) and not isinstance(value, bool) \
            and not -_INT <= value < _INT and -_LONG <= value < _LONG:
        return f"F.lit({value!r})"
    if dt == T.DATE and type(value) is date and value.year >= 1900:
        imports.add("import datetime")
        return f"F.lit(datetime.date({value.year}, {value.month}, {value.day}))"
    return None
