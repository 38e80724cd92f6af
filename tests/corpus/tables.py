"""The corpus's tables: the schemas sqlglot's optimizer fixtures are written against
(its tests/test_optimizer.py), with small deterministic rows full of NULL, NaN,
±Infinity, -0.0 and empty strings.

`optimizer.sql` is written against a schema of its own (z has a and c, and u), every
other file against the test class's schema: two worlds, registered one at a time."""

from __future__ import annotations

import datetime as dt
import math
import random

_NAMES = ("a", "b", "c", "d", "e", "x", "y", "z", "p", "q", "r", "s", "t", "w", "cond", "id", "foo")

_COMMON = {
    "x": {"a": "int", "b": "int"},
    "nn": {"a": "int not null", "b": "int not null"},
    "y": {"b": "int", "c": "int"},
    "z": {"b": "int", "c": "int"},
    "w": {"d": "string", "e": "string"},
    "temporal": {"d": "date", "t": "timestamp"},
    "structs": {"one": "struct<a_1:int,b_1:string>",
                "nested_0": "struct<a_1:int,nested_1:struct<a_2:int,nested_2:struct<a_3:int>>>"},
    "t_bool": {"a": "boolean", "b": "boolean"},
    "comparisons": {"a": "int", "b": "int", "c": "boolean"},
    "unpivotable": {"id": "int", "jan": "int", "feb": "int", "north": "int", "south": "int"},
    "pivotable": {"id": "int", "cat": "string", "val": "int", "kind": "string", "amt": "int"},
    # annotate_functions.sql's table (the types Spark has)
    "tbl": {"bin_col": "binary", "str_col": "string", "date_col": "date", "float_col": "float",
            "timestamp_col": "timestamp", "double_col": "double", "bigint_col": "bigint",
            "smallint_col": "smallint", "int_col": "int", "bool_col": "boolean", "array_col": "array<string>"},
    # bare-name expression fixtures (simplify.sql, normalize.sql)
    "bools": {n: "boolean" for n in _NAMES},
    "ints": {n: "int" for n in _NAMES},
    "strs": {n: "string" for n in _NAMES},
}

_LOOSE_COLUMNS = {n: "int" for n in ("a", "b", "c", "d", "e", "c1", "c2", "id")}

WORLDS = {
    "default": _COMMON,
    "optimizer": {**_COMMON, "z": {"a": "int", "c": "int"}, "u": {"f": "int", "g": "int", "h": "string"}},
    # the files sqlglot tests with no schema name columns freely: every table has them all
    "loose": {**_COMMON, **{t: _LOOSE_COLUMNS for t in ("x", "y", "z", "t", "t0", "t1", "t2", "aa", "bb", "xx")}},
}

# fixture files sqlglot's tests run with no schema
_LOOSE_FILES = ("unnest_subqueries", "pushdown_predicates", "eliminate_subqueries", "eliminate_ctes",
                "optimize_joins", "isolate_table_selects", "eliminate_joins")


def world_of(statement_name: str) -> str:
    stem = statement_name.split(":")[0]
    return "optimizer" if stem == "optimizer" else "loose" if stem in _LOOSE_FILES else "default"


_POOLS = {
    "int": [0, 1, 2, -1, 3, 1], "bigint": [0, 1, 2, -1, 10], "smallint": [0, 1, -2, 7],
    "double": [0.0, -0.0, 1.5, math.nan, math.inf, -math.inf, 2.0, 1.0],
    "float": [0.0, -0.0, 1.5, math.nan, math.inf, 2.0],
    "string": ["", "a", "b", "1", "NaN", "A", "a"], "boolean": [True, False, True],
    "date": [dt.date(2023, 1, 1), dt.date(2020, 2, 29), dt.date(1999, 12, 31)],
    "timestamp": [dt.datetime(2023, 1, 1, 12, 0), dt.datetime(2020, 2, 29)],
    "binary": [b"", b"a", b"\x00"],
}


def _value(rnd: random.Random, typ: str, nullable: bool):
    if nullable and rnd.random() < 0.3:
        return None
    if typ.startswith("array<"):
        return rnd.choice([[], ["a", None], ["b"]])
    if typ.startswith("struct<"):
        return None if nullable else {}
    return rnd.choice(_POOLS[typ])


def rows_of(table: str, columns: dict, count: int = 7, seed: int = 11) -> list[tuple]:
    from sparkfold.plans.sql_in.catalog import parse_column_type

    rnd = random.Random(f"{seed}:{table}")
    types = []
    for name, text in columns.items():
        _, nullable = parse_column_type(text)
        types.append((text.replace(" not null", ""), nullable))
    return [tuple(_value(rnd, t, n) for t, n in types) for _ in range(count)]


def register_world(spark, world: str) -> dict:
    """Register the world's tables as temp views; returns its catalog mapping."""
    from tests.data import register

    schema = WORLDS[world]
    for table, columns in schema.items():
        register(spark, table, columns, rows_of(table, columns))
    return schema
