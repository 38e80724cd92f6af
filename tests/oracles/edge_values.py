"""Edge values of each Spark type, written as Spark SQL literals: the operands of the
folding oracle.

For every type sparkfold folds: its extremes and one past them (written so that a cast
or an arithmetic operator reaches past), overflow boundaries, precision 38, NaN,
±Infinity, -0.0, empty and malformed strings, strings that cast to the special doubles,
invalid dates, and a NULL of the type.  `core` marks the few values that stand for the
type when it meets another type (the whole cross product of every value of every type
would be too large to check on every run); between values of one type every pair is
taken.

A `Value` is SQL text, not a Python value: Spark and sparkfold read the same text, so
each literal's own typing (`1` is an int, `1.5` a decimal(2,1), `1e3` a double) is part
of what is checked.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Value:
    sql: str
    type: str          # Spark's simpleString of the value's type
    core: bool = False


def _values(type_name: str, core: list[str], rest: list[str]) -> list[Value]:
    return [Value(s, type_name, True) for s in core] + [Value(s, type_name) for s in rest]


def _dec(digits_before: int, digits_after: int, sign: str = "") -> str:
    """The largest decimal with these digits, as a BD literal (its type is exactly
    decimal(before + after, after))."""
    whole = "9" * digits_before or "0"
    return f"{sign}{whole}.{'9' * digits_after}BD" if digits_after else f"{sign}{whole}BD"


D38_18 = "DECIMAL(38,18)"

VALUES: dict[str, list[Value]] = {
    "void": [Value("NULL", "void", True)],
    "boolean": _values("boolean", ["TRUE", "FALSE", "CAST(NULL AS BOOLEAN)"], []),
    "tinyint": _values("tinyint", ["127Y", "-128Y", "CAST(NULL AS TINYINT)"], ["0Y", "-1Y", "2Y"]),
    "smallint": _values("smallint", ["32767S", "-32768S"], ["0S", "-1S", "CAST(NULL AS SMALLINT)"]),
    "int": _values("int", ["2147483647", "-2147483648", "0", "CAST(NULL AS INT)"], ["1", "-1", "7", "128"]),
    "bigint": _values("bigint", ["9223372036854775807L", "-9223372036854775808L", "0L"],
                      ["1L", "-1L", "2147483648L", "CAST(NULL AS BIGINT)"]),
    "float": _values("float", ["CAST('NaN' AS FLOAT)", "CAST(-0.0D AS FLOAT)", "1.5F"],
                     ["CAST('Infinity' AS FLOAT)", "CAST('-Infinity' AS FLOAT)", "3.4028234E38F", "0.1F",
                      "CAST(NULL AS FLOAT)"]),
    "double": _values("double", ["CAST('NaN' AS DOUBLE)", "CAST('-Infinity' AS DOUBLE)", "-0.0D"],
                      ["2.5D", "CAST('Infinity' AS DOUBLE)", "0.0D", "-2.5D", "0.1D", "1.7976931348623157E308D",
                       "4.9E-324D", "9.223372036854775807E18D", "2147483647.5D", "1.0E16D", "-1.0E-5D",
                       "CAST(NULL AS DOUBLE)"]),
    "decimal(1,0)": _values("decimal(1,0)", ["9BD", "-9BD"], ["0BD", "CAST(NULL AS DECIMAL(1,0))"]),
    "decimal(10,2)": _values("decimal(10,2)", [_dec(8, 2), "CAST(-0.01 AS DECIMAL(10,2))"],
                             ["CAST(1.25 AS DECIMAL(10,2))", "CAST(0 AS DECIMAL(10,2))",
                              "CAST(NULL AS DECIMAL(10,2))"]),
    "decimal(38,0)": _values("decimal(38,0)", [_dec(38, 0), _dec(38, 0, "-")],
                             ["CAST(1 AS DECIMAL(38,0))", "CAST(NULL AS DECIMAL(38,0))"]),
    "decimal(38,18)": _values("decimal(38,18)", [_dec(20, 18), f"CAST(0.000000000000000001 AS {D38_18})"],
                              [_dec(20, 18, "-"), f"CAST(-1.5 AS {D38_18})", f"CAST(0.5 AS {D38_18})",
                               f"CAST(NULL AS {D38_18})"]),
    "decimal(38,38)": _values("decimal(38,38)", [_dec(0, 38)],
                              ["CAST(NULL AS DECIMAL(38,38))"]),
    "string": _values("string", ["''", "'abc'", "'NaN'"],
                      ["' 12 '", "' '", "'1'", "'-0.0'", "'1.5'", "'-Infinity'", "'inf'", "'true'", "'yes'",
                       "'2020-02-29'", "'2020-02-30'", "'2147483648'", "'1e3'", "'ß'", "'a_c'",
                       "'9.5BD'", "CAST(NULL AS STRING)"]),
    "date": _values("date", ["DATE'2020-02-29'", "DATE'9999-12-31'"],
                    ["DATE'1970-01-01'", "DATE'0001-01-01'", "CAST(NULL AS DATE)"]),
    "timestamp": _values("timestamp", ["TIMESTAMP'2020-02-29 12:34:56'"], ["CAST(NULL AS TIMESTAMP)"]),
    "timestamp_ntz": _values("timestamp_ntz", ["TIMESTAMP_NTZ'2020-02-29 12:34:56'"], []),
    "binary": _values("binary", ["X'00FF'"], ["X''"]),
}

TYPES = tuple(VALUES)


def values(type_name: str, core: bool = False) -> list[Value]:
    return [v for v in VALUES[type_name] if v.core or not core]


def representative(type_name: str) -> Value:
    """The value that stands for its type when only the types matter (Spark's analysis)."""
    return VALUES[type_name][0]


# Operands whose evaluation raises (under ANSI; in legacy mode they give a value or NULL):
# where the operator evaluates them lazily (the branch of an IF not taken, the right side
# of `FALSE AND`), the error must stay an error where Spark takes them and must not be
# folded away where it does not.
RAISING: dict[str, list[Value]] = {
    "int": [Value("(2147483647 + 1)", "int")],
    "bigint": [Value("(1 div 0)", "bigint")],
    "double": [Value("(1 / 0)", "double")],
    "decimal(38,0)": [Value(f"({_dec(38, 0)} + 1)", "decimal(38,0)")],
    "string": [Value("CAST(2147483647 + 1 AS STRING)", "string")],
    "boolean": [Value("(CAST('x' AS INT) = 1)", "boolean"), Value("('a' LIKE 'a\\\\b')", "boolean")],
}
