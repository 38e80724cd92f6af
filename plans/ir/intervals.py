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


# Spark's parse of an interval's text (SparkIntervalUtils.stringToInterval), for the
# literals written as `INTERVAL '<value> <unit> ...'` and `INTERVAL <value> <unit> <value>
# <unit> ...`, which Spark then types by the units they name (AstBuilder's
# constructMultiUnitsIntervalLiteral)
_INT_MAX, _LONG_MAX = 2**31 - 1, 2**63 - 1
_JAVA_SPACE = " \t\n\x0b\f\r\x1c\x1d\x1e\x1f"
# unit -> (which field of the value it adds to, the amount of one)
_UNIT_AMOUNTS = {"year": ("months", 12), "month": ("months", 1), "week": ("days", 7), "day": ("days", 1),
                 "hour": ("micros", 3_600_000_000), "minute": ("micros", 60_000_000),
                 "second": ("micros", 1_000_000), "millisecond": ("micros", 1_000), "microsecond": ("micros", 1)}
# the unit words by their first letter, in the order Spark tries them
_UNITS_BY_LETTER: dict[str, list[str]] = {}
for _u in ("year", "week", "day", "hour", "second", "month", "minute", "millisecond", "microsecond"):
    _UNITS_BY_LETTER.setdefault(_u[0], []).append(_u)


class _Overflow(Exception):
    pass


def _exact(v: int, limit: int) -> int:
    if not -limit - 1 <= v <= limit:
        raise _Overflow
    return v


def from_string(text: str) -> tuple[int, int, int] | None:
    """(months, days, microseconds) of an interval's text as Spark reads it (`1 year 2
    months`, `interval -1 day 3 hours`, `1.5 seconds`), or None where Spark raises (or the
    text is not ASCII, which this does not read)."""
    if not text.isascii():
        return None
    s = text.strip("".join(chr(c) for c in range(33)) + "\x7f").lower()  # (UTF8String.trimAll)
    if not s:
        return None
    if s.startswith("interval"):
        if len(s) == len("interval") or s[len("interval")] not in _JAVA_SPACE:
            return None
        s = s[len("interval") + 1:]
    months = days = micros = 0
    i, n = 0, len(s)
    try:
        while True:
            while i < n and s[i] in _JAVA_SPACE:
                i += 1
            if i == n:
                return (months, days, micros)
            negative, point_first = False, False
            if s[i] in "+-":
                negative = s[i] == "-"
                i += 1
                while i < n and s[i] in _JAVA_SPACE:
                    i += 1
            elif s[i] == ".":
                point_first = True
            elif not s[i].isdigit():
                return None
            value, fraction, digits = 0, 0, -1  # digits: of the fraction, -1 without a point
            if not point_first:
                start = i
                while i < n and s[i].isdigit():
                    value = _exact(value * 10 + int(s[i]), _LONG_MAX)
                    i += 1
                if i == start and (i == n or s[i] != "."):
                    return None
            if i < n and s[i] == ".":
                i += 1
                digits = 0
                while i < n and s[i].isdigit():
                    if digits == 9:
                        return None
                    fraction = fraction * 10 + int(s[i])
                    digits += 1
                    i += 1
                if point_first and digits == 0:
                    return None
                fraction = fraction * 10 ** (9 - digits) // 1000
            if i == n or s[i] not in _JAVA_SPACE:
                return None
            while i < n and s[i] in _JAVA_SPACE:
                i += 1
            if i == n or (s[i] != "s" and digits >= 0):
                return None
            unit = next((u for u in _UNITS_BY_LETTER.get(s[i], ()) if s.startswith(u, i)), None)
            if unit is None:
                return None
            i += len(unit)
            if i < n and s[i] == "s":
                i += 1
            if i < n and s[i] not in _JAVA_SPACE:
                return None
            if negative:
                value, fraction = -value, -fraction
            field, amount = _UNIT_AMOUNTS[unit]
            if amount == 1 and field != "micros":
                _exact(value, _INT_MAX)  # (a month's or a day's count is an int first)
            if field == "months":
                months = _exact(months + _exact(value * amount, _LONG_MAX), _INT_MAX)
            elif field == "days":
                days = _exact(days + _exact(value * amount, _LONG_MAX), _INT_MAX)
            else:
                micros = _exact(micros + _exact(value * amount, _LONG_MAX), _LONG_MAX)
                if unit == "second":
                    micros = _exact(micros + fraction, _LONG_MAX)
    except _Overflow:
        return None


_YEAR_MONTH_UNITS = {"year": 0, "month": 1}
_DAY_TIME_UNITS = {"week": 0, "day": 0, "hour": 1, "minute": 2, "second": 3, "millisecond": 3, "microsecond": 3}


def multi_unit(value: tuple[int, int, int], units: list[str]) -> tuple[tuple[int, int, int], T.DataType] | None:
    """The literal Spark makes of an interval's parsed value and the units its text names
    (each lower case, without a plural `s`): a year-month interval from the largest to the
    smallest year-month unit, or a day-time one (a week is days, a millisecond and a
    microsecond seconds); None where Spark raises (units of both kinds, a day-time value
    past a long's microseconds)."""
    ym = [_YEAR_MONTH_UNITS[u] for u in units if u in _YEAR_MONTH_UNITS]
    dt = [_DAY_TIME_UNITS[u] for u in units if u in _DAY_TIME_UNITS]
    if len(ym) + len(dt) != len(units) or (ym and dt) or not units:
        return None
    months, days, micros = value
    if ym:
        return (months, 0, 0), T.year_month_interval(min(ym), max(ym))
    try:  # (IntervalUtils.getDuration)
        total_micros = _exact(micros + _exact(days * MICROS["day"], _LONG_MAX), _LONG_MAX)
    except _Overflow:
        return None
    if months:
        return None
    return (0, 0, total_micros), T.day_time_interval(min(dt), max(dt))


def quoted_literal(text: str) -> tuple[tuple[int, int, int], T.DataType] | None:
    """`INTERVAL '<text>'` as Spark's parser makes it (AstBuilder's typed literal of
    INTERVAL: the units are the text's words), or None where Spark raises."""
    value = from_string(text)
    if value is None or re.search(r"[\x1c-\x1f]", text):
        # (a space Spark's parse takes and its split into words does not: not read here)
        return None
    units = [w.lower().removesuffix("s") for w in re.split(r"[ \t\n\x0b\f\r]", text)]
    return multi_unit(value, [u for u in units if u != "interval" and re.fullmatch(r"[a-z]+", u)])
