"""Spark type names -> IR types, through sqlglot's `DataType` (no text round trip).

Schema strings (`"decimal(15,2) not null"`, `array<string>`, `struct<a:int,b:string>`)
are read with sqlglot's Spark type parser; CAST targets arrive as its `DataType`
already.  `from_sqlglot` maps the one to the other by the type's kind."""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError as SqlglotParseError

from ..ir import types as T
from ..ir.dialect import timestamp_precision

_D = exp.DataType.Type
_ATOMIC = {
    _D.BOOLEAN: T.BOOLEAN,
    _D.TINYINT: T.BYTE,
    _D.SMALLINT: T.SHORT,
    _D.INT: T.INT,
    _D.BIGINT: T.LONG,
    _D.FLOAT: T.FLOAT,
    _D.DOUBLE: T.DOUBLE,
    _D.TEXT: T.STRING,
    _D.VARCHAR: T.STRING,  # varchar(n) and char(n) read as strings, as Spark does
    _D.CHAR: T.STRING,
    _D.BINARY: T.BINARY,
    _D.DATE: T.DATE,
    _D.TIMESTAMPLTZ: T.TIMESTAMP,  # with the session time zone
    _D.TIMESTAMPNTZ: T.TIMESTAMP_NTZ,
    _D.NULL: T.NULL,
}
# the name TIMESTAMP (sqlglot's TIMESTAMPTZ in the Spark dialect): the type
# spark.sql.timestampType names, TIMESTAMP_LTZ unless it is set
_BARE_TIMESTAMP = frozenset({_D.TIMESTAMP, _D.TIMESTAMPTZ})
_VOID = {"void": T.NULL, "null": T.NULL}  # names sqlglot's type parser does not read


class TypeParseError(ValueError):
    """A type name that is not a Spark type."""


def parse_type(text: str) -> T.DataType:
    """A Spark type name such as `int`, `decimal(15,2)`, `array<string>`,
    `struct<a:int,b:string>` or `map<string,int>` (case-insensitive)."""
    if text.strip().lower() in _VOID:
        return _VOID[text.strip().lower()]
    if text.strip().lower() == "variant":
        return T.UNKNOWN  # (a VARIANT column: of a type sparkfold does not model, as the session's)
    if text.count("<") != text.count(">") or text.count("(") != text.count(")"):
        raise TypeParseError(f"cannot read type {text!r}: unbalanced brackets")
    try:
        # the whole text must be one type: sqlglot's DataType.build ignores what follows
        # one (`int garbage words` would read as int)
        dt = sqlglot.parse_one(text, read="spark", into=exp.DataType)
    except (SqlglotParseError, ValueError) as e:
        raise TypeParseError(f"unknown type {text!r}") from e
    return from_sqlglot(dt, text)


def is_bare_timestamp(dt: exp.DataType) -> bool:
    """Is the type the name TIMESTAMP alone (not TIMESTAMP_LTZ / TIMESTAMP_NTZ)?"""
    return dt.this in _BARE_TIMESTAMP


def from_sqlglot(dt: exp.DataType, text: str | None = None, timestamp: T.DataType = T.TIMESTAMP) -> T.DataType:
    """The IR type of a sqlglot `DataType`; raises TypeParseError for one Spark has not.
    `timestamp`: the type the name TIMESTAMP stands for (in a query's text, the session's
    spark.sql.timestampType)."""
    kind = dt.this
    if any(d.args.get("collate") is not None for d in dt.find_all(exp.DataType)):
        # `STRING COLLATE UTF8_LCASE`: its comparisons ignore case, which sparkfold does not model
        raise TypeParseError(f"a collated string type ({_shown(dt, text)})")
    if isinstance(kind, exp.Interval):
        return _ansi_interval(dt, kind, text)
    if dt.expressions and timestamp_precision(dt):
        # TIMESTAMP_NTZ(9): Spark 4.3's nanosecond types (FEATURE_NOT_ENABLED without
        # spark.sql.timestampNanosTypes.enabled), which sparkfold does not model
        raise TypeParseError(f"a timestamp type with a precision ({_shown(dt, text)})")
    if kind in _BARE_TIMESTAMP:
        return timestamp
    if kind in _ATOMIC:
        return _ATOMIC[kind]
    args = dt.expressions
    if kind == _D.DECIMAL:
        if not args:
            return T.DecimalType(10, 0)
        precision = int(args[0].name)
        scale = int(args[1].name) if len(args) > 1 else 0
        if not (1 <= precision <= T.MAX_PRECISION and 0 <= scale <= precision):
            raise TypeParseError(f"invalid decimal type {_shown(dt, text)!r}")
        return T.DecimalType(precision, scale)
    if kind == _D.INTERVAL and not args:
        return T.CALENDAR_INTERVAL
    if kind == _D.ARRAY and len(args) == 1 and isinstance(args[0], exp.DataType):
        return T.ArrayType(from_sqlglot(args[0], timestamp=timestamp))
    if kind == _D.MAP and len(args) == 2 and all(isinstance(a, exp.DataType) for a in args):
        return T.MapType(from_sqlglot(args[0], timestamp=timestamp), from_sqlglot(args[1], timestamp=timestamp))
    if kind == _D.STRUCT and all(isinstance(a, exp.ColumnDef) for a in args):
        fields = []
        for f in args:
            nullable = not any(isinstance(c.args.get("kind"), exp.NotNullColumnConstraint)
                               for c in f.args.get("constraints") or ())
            fields.append(T.StructField(f.name, from_sqlglot(f.args["kind"], timestamp=timestamp), nullable))
        return T.StructType(tuple(fields))
    raise TypeParseError(f"unknown type {_shown(dt, text)!r}")


def _ansi_interval(dt: exp.DataType, node: exp.Interval, text: str | None) -> T.DataType:
    """`INTERVAL DAY`, `INTERVAL YEAR TO MONTH`, `INTERVAL HOUR TO SECOND`...: the ANSI
    interval of those fields (sqlglot reads the fields as its `unit`)."""
    unit = node.args.get("unit")
    if isinstance(unit, exp.IntervalSpan):
        start, end = unit.this.name.lower(), unit.expression.name.lower()
    elif isinstance(unit, exp.Var):
        start = end = unit.name.lower()
    else:
        raise TypeParseError(f"unknown type {_shown(dt, text)!r}")
    for fields, make in ((T.DAY_TIME_FIELDS, T.day_time_interval), (T.YEAR_MONTH_FIELDS, T.year_month_interval)):
        if start in fields and end in fields and fields.index(start) <= fields.index(end):
            return make(fields.index(start), fields.index(end))
    raise TypeParseError(f"invalid interval type {_shown(dt, text)!r}")


def _shown(dt: exp.DataType, text: str | None) -> str:
    """The type as the user wrote it, for an error (printed only then: printing every
    CAST's type was a hundredth of a compiled TPC-DS run)."""
    return text if text is not None else dt.sql(dialect="spark")
