"""Spark SQL data types and the part of Spark's (ANSI) type coercion the optimizer needs.

Types are small frozen values.  `simple_string()` is Spark's `DataType.simpleString`
(`int`, `decimal(10,2)`, `array<int>`); `sql()` is Spark's `DataType.sql` (in column
names), `written()` the text sparkfold writes for a CAST target.
Coercion follows Spark 4 with `spark.sql.ansi.enabled=true` for the common cases
(numeric widening, decimal precision and scale, string against numbers and dates);
anything it cannot decide returns `None`, and callers then leave the expression alone.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from decimal import Context, Decimal
from typing import Callable, Iterator, TypeVar

from .records import record

MAX_PRECISION = 38
MIN_ADJUSTED_SCALE = 6


# How sparkfold writes the type `timestamp` (TIMESTAMP_LTZ) in a query it gives Spark: its
# name TIMESTAMP, unless the session's spark.sql.timestampType makes that name stand for
# TIMESTAMP_NTZ (see `writing_for`).  A context variable: each thread and task writes for
# its own session.
_TIMESTAMP_WRITTEN: ContextVar[str] = ContextVar("sparkfold_timestamp_written", default="TIMESTAMP")
R = TypeVar("R")


@contextmanager
def writing_for(timestamp_ntz: bool) -> Iterator[None]:
    """Write types for a session whose spark.sql.timestampType is TIMESTAMP_NTZ (True)
    or TIMESTAMP_LTZ, within the block."""
    token = _TIMESTAMP_WRITTEN.set("TIMESTAMP_LTZ" if timestamp_ntz else "TIMESTAMP")
    try:
        yield
    finally:
        _TIMESTAMP_WRITTEN.reset(token)


def writing_as_now(fn: Callable[..., R]) -> Callable[..., R]:
    """fn, writing types as the calling thread does wherever it runs (on another
    thread, whose context is its own)."""
    ntz = _TIMESTAMP_WRITTEN.get() != "TIMESTAMP"

    def run(*args, **kwargs) -> R:
        with writing_for(ntz):
            return fn(*args, **kwargs)

    return run


class DataType:
    """Base of all Spark data types."""

    __slots__ = ()

    def simple_string(self) -> str:
        raise NotImplementedError

    def sql(self) -> str:
        """Spark's SQL name of the type (`DataType.sql`), which column names show."""
        return self.simple_string().upper()

    def written(self) -> str:
        """The type's name as sparkfold writes it in a query, which Spark reads as this
        type under the session's settings: `sql()`, but TIMESTAMP_LTZ for `timestamp`
        while spark.sql.timestampType makes the name TIMESTAMP stand for TIMESTAMP_NTZ
        (`writing_for`)."""
        return self.sql()

    def __repr__(self) -> str:
        return self.simple_string()


@record(frozen=True, slots=True, repr=False)
class AtomicType(DataType):
    name: str

    def simple_string(self) -> str:
        return self.name

    def written(self) -> str:
        return _TIMESTAMP_WRITTEN.get() if self.name == "timestamp" else self.sql()


@record(frozen=True, slots=True, repr=False)
class DecimalType(DataType):
    precision: int = 10
    scale: int = 0

    def simple_string(self) -> str:
        return f"decimal({self.precision},{self.scale})"


@record(frozen=True, slots=True, repr=False)
class ArrayType(DataType):
    element: DataType
    contains_null: bool = True

    def simple_string(self) -> str:
        return f"array<{self.element.simple_string()}>"

    def sql(self) -> str:
        return f"ARRAY<{self.element.sql()}>"

    def written(self) -> str:
        return f"ARRAY<{self.element.written()}>"


@record(frozen=True, slots=True, repr=False)
class MapType(DataType):
    key: DataType
    value: DataType
    value_contains_null: bool = True

    def simple_string(self) -> str:
        return f"map<{self.key.simple_string()},{self.value.simple_string()}>"

    def sql(self) -> str:
        return f"MAP<{self.key.sql()}, {self.value.sql()}>"

    def written(self) -> str:
        return f"MAP<{self.key.written()}, {self.value.written()}>"


@record(frozen=True, slots=True)
class StructField:
    name: str
    data_type: DataType
    nullable: bool = True


@record(frozen=True, slots=True, repr=False)
class StructType(DataType):
    fields: tuple[StructField, ...]

    def simple_string(self) -> str:
        inner = ",".join(f"{f.name}:{f.data_type.simple_string()}" for f in self.fields)
        return f"struct<{inner}>"

    def sql(self) -> str:
        inner = ", ".join(f"`{f.name}`: {f.data_type.sql()}" for f in self.fields)
        return f"STRUCT<{inner}>"

    def written(self) -> str:
        inner = ", ".join(f"`{f.name}`: {f.data_type.written()}" for f in self.fields)
        return f"STRUCT<{inner}>"


BOOLEAN = AtomicType("boolean")
BYTE = AtomicType("tinyint")
SHORT = AtomicType("smallint")
INT = AtomicType("int")
LONG = AtomicType("bigint")
FLOAT = AtomicType("float")
DOUBLE = AtomicType("double")
STRING = AtomicType("string")
BINARY = AtomicType("binary")
DATE = AtomicType("date")
TIMESTAMP = AtomicType("timestamp")
TIMESTAMP_NTZ = AtomicType("timestamp_ntz")
NULL = AtomicType("void")
# The type of an expression the optimizer does not model (an opaque function,
# a window expression).  Rules never build a literal of this type.
UNKNOWN = AtomicType("unknown")
# ANSI intervals, by their fields as Spark types them (INTERVAL '3' DAY is `interval day`,
# INTERVAL '1 02' DAY TO HOUR `interval day to hour`): a day-time interval from a start
# field to an end field of day, hour, minute, second; a year-month one of year, month.
DAY_TIME_FIELDS = ("day", "hour", "minute", "second")
YEAR_MONTH_FIELDS = ("year", "month")


def _interval_type(fields: tuple[str, ...], start: int, end: int) -> AtomicType:
    if start == end:
        return AtomicType(f"interval {fields[start]}")
    return AtomicType(f"interval {fields[start]} to {fields[end]}")


def day_time_interval(start: int, end: int) -> AtomicType:
    """DayTimeIntervalType(start, end), fields by index in DAY_TIME_FIELDS."""
    return _interval_type(DAY_TIME_FIELDS, start, end)


def year_month_interval(start: int, end: int) -> AtomicType:
    """YearMonthIntervalType(start, end), fields by index in YEAR_MONTH_FIELDS."""
    return _interval_type(YEAR_MONTH_FIELDS, start, end)


DAY_TIME_INTERVAL = day_time_interval(0, 3)
DAY_INTERVAL = day_time_interval(0, 0)
HOUR_INTERVAL = day_time_interval(1, 1)
MINUTE_INTERVAL = day_time_interval(2, 2)
SECOND_INTERVAL = day_time_interval(3, 3)
YEAR_INTERVAL = year_month_interval(0, 0)
MONTH_INTERVAL = year_month_interval(1, 1)
YEAR_MONTH_INTERVAL = year_month_interval(0, 1)
CALENDAR_INTERVAL = AtomicType("interval")

INTEGRAL: tuple[DataType, ...] = (BYTE, SHORT, INT, LONG)
FRACTIONAL = (FLOAT, DOUBLE)
# the types whose values Spark compares by value alone (no collation, nothing nested):
# a window's keys, the rows of a set operation (rules.local_relation)
BY_VALUE = frozenset({BOOLEAN, BYTE, SHORT, INT, LONG, FLOAT, DOUBLE, STRING, BINARY, DATE, TIMESTAMP,
                      TIMESTAMP_NTZ})


def compared_by_value(t: DataType) -> bool:
    return t in BY_VALUE or isinstance(t, DecimalType)
# Spark's numeric precedence for widening (decimal is handled separately).
_NUMERIC_ORDER = {BYTE: 0, SHORT: 1, INT: 2, LONG: 3, FLOAT: 5, DOUBLE: 6}
# The decimal each integral type fits in (DecimalType.forType).
_INTEGRAL_DECIMAL: dict[DataType, DecimalType] = {
    BYTE: DecimalType(3, 0),
    SHORT: DecimalType(5, 0),
    INT: DecimalType(10, 0),
    LONG: DecimalType(20, 0),
}
INTEGRAL_RANGE: dict[DataType, tuple[int, int]] = {
    BYTE: (-(2**7), 2**7 - 1),
    SHORT: (-(2**15), 2**15 - 1),
    INT: (-(2**31), 2**31 - 1),
    LONG: (-(2**63), 2**63 - 1),
}


def schema_text(t: DataType, nullable: bool = True) -> str:
    """The type as `simple_string()` with ` not null` after whatever is never NULL: the
    value itself, or inside it an array's elements, a map's values, a struct's fields
    (`int not null`, `array<int not null>`, `struct<a:int not null,b:string>`).  The
    verifier writes Spark's `df.schema` the same way (`optimizer.verify.schema_of`)."""
    if isinstance(t, ArrayType):
        text = f"array<{schema_text(t.element, t.contains_null)}>"
    elif isinstance(t, MapType):
        text = f"map<{schema_text(t.key)},{schema_text(t.value, t.value_contains_null)}>"
    elif isinstance(t, StructType):
        text = "struct<" + ",".join(f"{f.name}:{schema_text(f.data_type, f.nullable)}" for f in t.fields) + ">"
    else:
        text = t.simple_string()
    return text if nullable else text + " not null"


def is_integral(t: DataType) -> bool:
    return t in INTEGRAL


def is_fractional(t: DataType) -> bool:
    return t in FRACTIONAL


def is_numeric(t: DataType) -> bool:
    return t in _NUMERIC_ORDER or isinstance(t, DecimalType)


DAY_TIME_INTERVALS = tuple(day_time_interval(s, e) for s in range(4) for e in range(s, 4))
YEAR_MONTH_INTERVALS = tuple(year_month_interval(s, e) for s in range(2) for e in range(s, 2))
INTERVALS = DAY_TIME_INTERVALS + YEAR_MONTH_INTERVALS + (CALENDAR_INTERVAL,)
# unit of a single-field interval type -> (field of the value tuple, unit size)
INTERVAL_UNITS = {YEAR_INTERVAL: ("YEAR", 0, 12), MONTH_INTERVAL: ("MONTH", 0, 1),
                  DAY_INTERVAL: ("DAY", 1, 1), HOUR_INTERVAL: ("HOUR", 2, 3_600_000_000),
                  MINUTE_INTERVAL: ("MINUTE", 2, 60_000_000), SECOND_INTERVAL: ("SECOND", 2, 1_000_000)}


def is_datetime(t: DataType) -> bool:
    return t in (DATE, TIMESTAMP, TIMESTAMP_NTZ)


def is_orderable(t: DataType) -> bool:
    return t is not UNKNOWN and not isinstance(t, MapType)


def contains(t: DataType, test: Callable[[DataType], bool]) -> bool:
    """Does `test` hold for t or for a type nested in it (an array's element, a map's key
    or value, a struct's field)?"""
    if test(t):
        return True
    if isinstance(t, ArrayType):
        return contains(t.element, test)
    if isinstance(t, MapType):
        return contains(t.key, test) or contains(t.value, test)
    if isinstance(t, StructType):
        return any(contains(f.data_type, test) for f in t.fields)
    return False


def contains_unknown(t: DataType) -> bool:
    return contains(t, lambda x: x == UNKNOWN)


# ---------------------------------------------------------------------------
# Coercion
# ---------------------------------------------------------------------------


def decimal_for(t: DataType) -> DecimalType | None:
    """The decimal type an integral or decimal value widens to (DecimalType.forType)."""
    if isinstance(t, DecimalType):
        return t
    return _INTEGRAL_DECIMAL.get(t)


def decimal_digits(d: Decimal, t: DecimalType) -> Decimal | None:
    """`d` to the scale of `t` (its digits as written in `t`: 0 in decimal(12,2) is 0.00),
    or None when `d` does not hold in `t` without rounding."""
    if not d.is_finite():
        return None
    q = d.quantize(Decimal(1).scaleb(-t.scale), context=_WIDE)
    if q != d or len(q.as_tuple().digits) > t.precision:
        return None
    return q


_WIDE = Context(prec=2 * MAX_PRECISION + 4)  # quantizing to 38 places needs more than Python's default 28 digits


def bounded_decimal(precision: int, scale: int) -> DecimalType:
    return DecimalType(min(precision, MAX_PRECISION), min(scale, MAX_PRECISION))


def adjust_precision_scale(precision: int, scale: int) -> DecimalType:
    """DecimalType.adjustPrecisionScale with spark.sql.decimalOperations.allowPrecisionLoss."""
    if precision <= MAX_PRECISION:
        return DecimalType(precision, scale)
    if scale < 0:
        return DecimalType(MAX_PRECISION, scale)
    int_digits = precision - scale
    min_scale = min(scale, MIN_ADJUSTED_SCALE)
    adjusted_scale = max(MAX_PRECISION - int_digits, min_scale)
    return DecimalType(MAX_PRECISION, adjusted_scale)


def wider_decimal(a: DecimalType, b: DecimalType) -> DecimalType:
    """DecimalPrecision.widerDecimalType; Spark 4 bounds it preferring integral digits
    (DecimalType.boundedPreferIntegralDigits): past 38 digits the fraction gives up digits,
    so decimal(30,20) and decimal(25,0) widen to decimal(38,13), not decimal(38,20)."""
    scale = max(a.scale, b.scale)
    precision = max(a.precision - a.scale, b.precision - b.scale) + scale
    if precision <= MAX_PRECISION:
        return DecimalType(precision, scale)
    return DecimalType(MAX_PRECISION, max(0, scale - (precision - MAX_PRECISION)))


def tightest_common_type(a: DataType, b: DataType) -> DataType | None:
    """findTightestCommonType: NULL widens to anything, numerics widen (not to decimal)."""
    if a == b:
        return a
    if a == NULL:
        return b
    if b == NULL:
        return a
    if a in _NUMERIC_ORDER and b in _NUMERIC_ORDER:
        return a if _NUMERIC_ORDER[a] >= _NUMERIC_ORDER[b] else b
    if a in (TIMESTAMP, TIMESTAMP_NTZ, DATE) and b in (TIMESTAMP, TIMESTAMP_NTZ, DATE):
        if TIMESTAMP in (a, b):
            return TIMESTAMP
        return TIMESTAMP_NTZ
    return None


def wider_type(a: DataType, b: DataType) -> DataType | None:
    """findWiderTypeForTwo under ANSI coercion, for CASE / COALESCE / IF / IN / set ops.

    Returns None where Spark would need a cast we do not model (callers then leave
    the expression alone) or would fail analysis."""
    t = tightest_common_type(a, b)
    if t is not None:
        return t
    if UNKNOWN in (a, b):
        return None
    if isinstance(a, DecimalType) or isinstance(b, DecimalType):
        if is_fractional(a) or is_fractional(b):
            return DOUBLE
        da, db = decimal_for(a), decimal_for(b)
        if da is not None and db is not None:
            return wider_decimal(da, db)
        other = b if isinstance(a, DecimalType) else a
        if other == STRING:
            # ANSI: a string next to a decimal becomes a double? Spark casts string to
            # DecimalType.SYSTEM_DEFAULT or double depending on version: leave it unknown.
            return None
        return None
    if STRING in (a, b):
        other = b if a == STRING else a
        # ANSI implicit cast of a string: to bigint for integral types, to double for
        # fractional, to the date/timestamp/boolean type otherwise.
        if is_integral(other):
            return LONG
        if is_fractional(other):
            return DOUBLE
        if other in (DATE, TIMESTAMP, TIMESTAMP_NTZ, BOOLEAN, BINARY):
            return other
        return None
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        e = wider_type(a.element, b.element)
        return None if e is None else ArrayType(e, a.contains_null or b.contains_null)
    return None


def wider_type_of(types) -> DataType | None:
    result: DataType = NULL
    for t in types:
        wider = wider_type(result, t)
        if wider is None:
            return None
        result = wider
    return result


def comparison_type(a: DataType, b: DataType) -> DataType | None:
    """The type both sides of a comparison are cast to (ANSI), or None if unknown."""
    if a == b:
        return a
    if a == NULL:
        return b
    if b == NULL:
        return a
    if STRING in (a, b):
        other = b if a == STRING else a
        if isinstance(other, DecimalType):
            return DOUBLE
        if is_integral(other):
            return LONG
        if is_fractional(other):
            return DOUBLE
        if other in (DATE, TIMESTAMP, TIMESTAMP_NTZ, BOOLEAN, BINARY):
            return other
        return None
    return wider_type(a, b)


def _arithmetic_decimals(a: DataType, b: DataType):
    if isinstance(a, DecimalType) or isinstance(b, DecimalType):
        da, db = decimal_for(a), decimal_for(b)
        if da is not None and db is not None:
            return da, db
    return None


def arithmetic_operand_type(a: DataType, b: DataType) -> DataType | None:
    """The common type of `+ - * %` operands when no decimal is involved."""
    if a == NULL and b == NULL:
        return DOUBLE
    if STRING in (a, b):
        other = b if a == STRING else a
        if other == STRING or other == NULL:
            return LONG
        if is_integral(other):
            return LONG
        if is_fractional(other) or isinstance(other, DecimalType):
            return DOUBLE
        return None
    t = tightest_common_type(a, b)
    if t is not None and is_numeric(t):
        return t
    if isinstance(a, DecimalType) or isinstance(b, DecimalType):
        if is_fractional(a) or is_fractional(b):
            return DOUBLE
    return None


def binary_arithmetic_type(op: str, a: DataType, b: DataType,
                           a_literal_decimal: DecimalType | None = None,
                           b_literal_decimal: DecimalType | None = None,
                           precision_loss: bool = True) -> DataType | None:
    """Result type of `a op b` for op in + - * / % div (DecimalPrecision rules).

    `x_literal_decimal` is the decimal an integral *literal* widens to (Spark uses the
    literal's own precision, so `d + 1` is decimal(p+1,...), not the int's decimal(10,0)).
    `precision_loss`: spark.sql.decimalOperations.allowPrecisionLoss (a decimal result
    past 38 digits gives up fraction digits, down to 6; else it is bounded)."""
    if op == "div":  # integral or decimal operands only (Spark refuses `1.5D div 2`)
        if all(is_integral(t) or isinstance(t, DecimalType) or t == NULL for t in (a, b)):
            return LONG
        return None
    if op == "/":
        if a == NULL and isinstance(b, DecimalType):
            return DOUBLE  # as read off Spark 4: NULL / d is double, d / NULL is decimal
        decs = _decimal_operands(a, b, a_literal_decimal, b_literal_decimal)
        if decs is not None:
            p1, s1, p2, s2 = decs
            if not precision_loss:
                int_digits = min(MAX_PRECISION, p1 - s1 + s2)
                dec_digits = min(MAX_PRECISION, max(MIN_ADJUSTED_SCALE, s1 + p2 + 1))
                over = int_digits + dec_digits - MAX_PRECISION
                if over > 0:
                    dec_digits -= over // 2 + 1
                    int_digits = MAX_PRECISION - dec_digits
                return bounded_decimal(int_digits + dec_digits, dec_digits)
            scale = max(MIN_ADJUSTED_SCALE, s1 + p2 + 1)
            precision = p1 - s1 + s2 + scale
            return adjust_precision_scale(precision, scale)
        if (is_numeric(a) or a in (NULL, STRING)) and (is_numeric(b) or b in (NULL, STRING)):
            return DOUBLE
        return None
    decs = _decimal_operands(a, b, a_literal_decimal, b_literal_decimal)
    if decs is not None:
        p1, s1, p2, s2 = decs
        if op in ("+", "-"):
            scale = max(s1, s2)
            precision = max(p1 - s1, p2 - s2) + scale + 1
        elif op == "*":
            precision, scale = p1 + p2 + 1, s1 + s2
        elif op == "%":
            precision = min(p1 - s1, p2 - s2) + max(s1, s2)
            scale = max(s1, s2)
        else:
            return None
        return adjust_precision_scale(precision, scale) if precision_loss else bounded_decimal(precision, scale)
    return arithmetic_operand_type(a, b)


def _decimal_operands(a, b, a_lit, b_lit):
    if not (isinstance(a, DecimalType) or isinstance(b, DecimalType)):
        return None
    if is_fractional(a) or is_fractional(b) or STRING in (a, b):
        return None
    da = a_lit if (a_lit is not None and not isinstance(a, DecimalType)) else decimal_for(a)
    db = b_lit if (b_lit is not None and not isinstance(b, DecimalType)) else decimal_for(b)
    if a == NULL:
        da = db
    if b == NULL:
        db = da
    if da is None or db is None:
        return None
    return da.precision, da.scale, db.precision, db.scale


def literal_decimal_for_int(value: int) -> DecimalType:
    """DecimalType.fromLiteral for an integral literal: its own digit count."""
    digits = len(str(abs(value)))
    return DecimalType(max(digits, 1), 0)


def sum_type(t: DataType) -> DataType | None:
    if is_integral(t):
        return LONG
    if is_fractional(t):
        return DOUBLE
    if isinstance(t, DecimalType):
        return bounded_decimal(t.precision + 10, t.scale)
    if t == NULL:
        return DOUBLE
    if t == STRING:
        return DOUBLE
    return None


def avg_type(t: DataType) -> DataType | None:
    if isinstance(t, DecimalType):
        return bounded_decimal(t.precision + 4, t.scale + 4)
    if is_numeric(t) or t in (NULL, STRING):
        return DOUBLE
    return None


def merged_null_flag(a: DataType, b: DataType) -> DataType | None:
    """Spark's findCommonTypeDifferentOnlyInNullFlags: a and b alike but for nullability
    (an array's elements, a map's values, a struct's fields), each flag or-ed; None
    otherwise.  Struct field names must be equal as written."""
    if a == b:
        return a
    if isinstance(a, ArrayType) and isinstance(b, ArrayType):
        element = merged_null_flag(a.element, b.element)
        return None if element is None else ArrayType(element, a.contains_null or b.contains_null)
    if isinstance(a, MapType) and isinstance(b, MapType):
        key, value = merged_null_flag(a.key, b.key), merged_null_flag(a.value, b.value)
        if key is None or value is None:
            return None
        return MapType(key, value, a.value_contains_null or b.value_contains_null)
    if isinstance(a, StructType) and isinstance(b, StructType):
        if len(a.fields) != len(b.fields):
            return None
        fields = []
        for x, y in zip(a.fields, b.fields):
            t = merged_null_flag(x.data_type, y.data_type)
            if t is None or x.name != y.name:
                return None
            fields.append(StructField(x.name, t, x.nullable or y.nullable))
        return StructType(tuple(fields))
    return None


def merged_null_flags(types: list[DataType]) -> DataType | None:
    """`merged_null_flag` of them all (None: two that differ otherwise)."""
    out = types[0]
    for t in types[1:]:
        m = merged_null_flag(out, t)
        if m is None:
            return None
        out = m
    return out


def inner_not_null(t: DataType) -> bool:
    """Is something inside the type NOT NULL (array elements, map values, struct fields)?"""
    if isinstance(t, ArrayType):
        return not t.contains_null or inner_not_null(t.element)
    if isinstance(t, MapType):
        return not t.value_contains_null or inner_not_null(t.key) or inner_not_null(t.value)
    if isinstance(t, StructType):
        return any(not f.nullable or inner_not_null(f.data_type) for f in t.fields)
    return False
