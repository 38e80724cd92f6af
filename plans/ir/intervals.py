"""ANSI interval literals: their values, and the text Spark writes for them.

A year-month interval's value is `(months, 0, 0)`, a day-time interval's `(0, 0,
microseconds)` (the literal value tuple of `expressions.Literal`), whatever its fields:
`INTERVAL '1' DAY` and `INTERVAL '24' HOUR` are one value.  `parse` reads the text of
`INTERVAL '<text>' <start> [TO <end>]` as Spark's ANSI interval syntax does (None for any
other text: such a literal is kept as written); `text` is Spark's text for a value
(IntervalUtils.toYearMonthIntervalString / toDayTimeIntervalString, ANSI style), which
is also how Spark names the literal's column: `INTERVAL '1 02' DAY TO HOUR`.
"""

from __future__ import annotations

import re
from decimal import Decimal

from . import types as T

MICROS = {"day": 86_400_000_000, "hour": 3_600_000_000, "minute": 60_000_000, "second": 1_000_000}
# a field's bound inside a larger one (hours in a day...)
_BOUND = {"hour": 24, "minute": 60, "second": 60}


def fields_of(t: T.DataType) -> tuple[str, str, str] | None:
    """("day-time" | "year-month", start, end) field names of an ANSI interval type."""
    words = t.simple_string().split()
    if not words or words[0] != "interval" or len(words) not in (2, 4):
        return None
    start, end = words[1], words[-1]
    for kind, fields in (("day-time", T.DAY_TIME_FIELDS), ("year-month", T.YEAR_MONTH_FIELDS)):
        if start in fields and end in fields and fields.index(start) <= fields.index(end):
            return kind, start, end
    return None


def interval_type(start: str, end: str) -> T.DataType | None:
    start, end = start.lower().rstrip("s"), end.lower().rstrip("s")
    for fields, make in ((T.DAY_TIME_FIELDS, T.day_time_interval), (T.YEAR_MONTH_FIELDS, T.year_month_interval)):
        if start in fields and end in fields and fields.index(start) <= fields.index(end):
            return make(fields.index(start), fields.index(end))
    return None


_NUMBER = r"(\d+)"
_SECONDS = r"(\d+(?:\.\d{1,9})?)"


def parse(text: str, t: T.DataType) -> tuple[int, int, int] | None:
    """The value of `INTERVAL '<text>' <fields of t>`, or None if Spark's ANSI syntax
    does not read it so (or a field is out of its range)."""
    found = fields_of(t)
    if found is None:
        return None
    kind, start, end = found
    m = re.fullmatch(r"\s*([+-]?)(.*?)\s*", text)
    sign, body = (m.group(1), m.group(2)) if m else ("", text)
    negative = sign == "-"
    if kind == "year-month":
        if start == end:
            mm = re.fullmatch(_NUMBER, body)
            if mm is None:
                return None
            months = int(mm.group(1)) * (12 if start == "year" else 1)
        else:
            mm = re.fullmatch(_NUMBER + "-" + _NUMBER, body)
            if mm is None or int(mm.group(2)) >= 12:
                return None
            months = int(mm.group(1)) * 12 + int(mm.group(2))
        return (-months if negative else months, 0, 0)
    names = list(T.DAY_TIME_FIELDS[T.DAY_TIME_FIELDS.index(start):T.DAY_TIME_FIELDS.index(end) + 1])
    regex = ""
    for i, n in enumerate(names):
        if i:
            regex += " " if names[i - 1] == "day" else ":"
        regex += _SECONDS if n == "second" else _NUMBER
    mm = re.fullmatch(regex, body)
    if mm is None:
        return None
    micros = 0
    for i, (n, v) in enumerate(zip(names, mm.groups())):
        amount = Decimal(v)
        if i > 0 and amount >= _BOUND[n]:
            return None
        micros += int(amount * MICROS[n])
    return (0, 0, -micros if negative else micros)


def total(value: tuple[int, int, int], t: T.DataType) -> int:
    """A value's months (year-month) or microseconds (day-time)."""
    months, days, micros = value
    found = fields_of(t)
    if found is not None and found[0] == "year-month":
        return months
    return days * MICROS["day"] + micros


def text(value: tuple[int, int, int], t: T.DataType) -> str | None:
    """Spark's `INTERVAL '...' FIELD [TO FIELD]` for a value of an ANSI interval type."""
    found = parts(value, t)
    if found is None:
        return None
    body, start, end = found
    span = start.upper() if start == end else f"{start.upper()} TO {end.upper()}"
    return f"INTERVAL '{body}' {span}"


def parts(value: tuple[int, int, int], t: T.DataType) -> tuple[str, str, str] | None:
    """(the quoted text, start field, end field) of Spark's text for an interval value."""
    found = fields_of(t)
    if found is None:
        return None
    kind, start, end = found
    amount = total(value, t)
    sign = "-" if amount < 0 else ""
    rest = abs(amount)
    if kind == "year-month":
        if start == end:
            body = f"{sign}{rest // 12}" if start == "year" else f"{amount}"
        else:
            body = f"{sign}{rest // 12}-{rest % 12}"
        return body, start, end
    names = T.DAY_TIME_FIELDS[T.DAY_TIME_FIELDS.index(start):T.DAY_TIME_FIELDS.index(end) + 1]
    pieces = []
    for n in names:
        if n == "second":
            secs = Decimal(rest) / MICROS["second"]
            plain = format(secs.normalize(), "f") if secs else "0"
            whole = plain.split(".")[0]
            pieces.append(("0" if len(whole) < 2 else "") + plain)
            rest = 0
        else:
            count, rest = divmod(rest, MICROS[n])
            pieces.append(str(count) if n == "day" else f"{count:02d}")
    body = pieces[0]
    for prev, p in zip(names, pieces[1:]):
        body += (" " if prev == "day" else ":") + p
    return sign + body, start, end
