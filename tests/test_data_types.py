"""Spark type names read through sqlglot's DataType (no hand-written type parser)."""

from __future__ import annotations

import pytest
from sparkfold.plans.ir import types as T
from sparkfold.plans.sql_in.data_types import TypeParseError, parse_type

CASES = {
    "int": T.INT, "integer": T.INT, "INT": T.INT, "bigint": T.LONG, "long": T.LONG,
    "smallint": T.SHORT, "short": T.SHORT, "tinyint": T.BYTE, "byte": T.BYTE,
    "float": T.FLOAT, "real": T.FLOAT, "double": T.DOUBLE,
    "string": T.STRING, "text": T.STRING, "varchar(10)": T.STRING, "char(3)": T.STRING,
    "boolean": T.BOOLEAN, "bool": T.BOOLEAN, "binary": T.BINARY, "date": T.DATE,
    "timestamp": T.TIMESTAMP, "timestamp_ltz": T.TIMESTAMP, "timestamp_ntz": T.TIMESTAMP_NTZ,
    "void": T.NULL, "null": T.NULL, "interval": T.CALENDAR_INTERVAL,
    "decimal": T.DecimalType(10, 0), "dec(5)": T.DecimalType(5, 0), "numeric(4,1)": T.DecimalType(4, 1),
    "DECIMAL(38, 18)": T.DecimalType(38, 18), "decimal(15,2)": T.DecimalType(15, 2),
    "array<string>": T.ArrayType(T.STRING),
    "map<string,int>": T.MapType(T.STRING, T.INT),
    "map<string, array<decimal(5,2)>>": T.MapType(T.STRING, T.ArrayType(T.DecimalType(5, 2))),
    "struct<a:int,b:string>": T.StructType((T.StructField("a", T.INT, True), T.StructField("b", T.STRING, True))),
    "struct<`x y`: int not null, b: array<double>>": T.StructType(
        (T.StructField("x y", T.INT, False), T.StructField("b", T.ArrayType(T.DOUBLE), True))),
    "array<struct<a:int>>": T.ArrayType(T.StructType((T.StructField("a", T.INT, True),))),
}


@pytest.mark.parametrize("text", list(CASES))
def test_type_names_read_as_spark_types(text):
    assert parse_type(text) == CASES[text]


@pytest.mark.parametrize("text, message", [
    ("integr", "unknown type"), ("decimal(50,2)", "invalid decimal"), ("decimal(5,6)", "invalid decimal"),
    ("array<int", "unbalanced"), ("array<>", "type"),
])
def test_bad_type_names_are_errors(text, message):
    with pytest.raises(TypeParseError, match=message):
        parse_type(text)
