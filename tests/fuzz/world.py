"""Random worlds: a few tables with random schemas and NULL/NaN/±Infinity/-0.0-rich data.

A world is a pure function of its seed.  Columns are int, bigint, double, decimal(p,s),
string, boolean and date, nullable or not; values come from small pools (so that joins
match and groups form) full of the values Spark treats specially: NULL, NaN, ±Infinity,
-0.0, empty strings, 'NaN' as a string.  At least one table of every world is empty.
A few columns are "extreme": they also hold the type's largest and smallest values, so
that arithmetic on them may overflow (an ANSI error is a result too); the generators
keep them out of arithmetic where a query must not raise.

Table names start with `fz` so that they never collide with the standard test tables.
"""

from __future__ import annotations

import datetime as dt
import math
import random
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property

NUM, STR, BOOL, DATE = "num", "str", "bool", "date"

NAN, INF = math.nan, math.inf

COLUMN_NAMES = ["k", "a", "b", "c", "x", "y", "s", "v", "w", "d"]
DECIMALS = [(10, 2), (5, 0), (12, 4), (3, 1), (20, 5), (38, 6)]

_INTS = [0, 1, 2, 3, -1, 7, 1, 2]
_LONGS = [0, 1, 2, 10, -5, 3, 1]
_DOUBLES = [0.0, -0.0, 1.5, -2.5, 1.0, 2.0, NAN, INF, -INF, 3.0, NAN, 1.5]
_DECIMALS = ["0", "1", "-1", "1.25", "-3.5", "2", "0.01", "1.25", "-0.00"]
_STRINGS = ["", "a", "b", "A", "NaN", " a", "1", "Infinity", "ab", "a", "b", ""]
_DATES = [dt.date(2000, 1, 1), dt.date(1970, 1, 1), dt.date(2024, 2, 29), dt.date(1999, 12, 31),
          dt.date(2000, 1, 2), dt.date(2000, 1, 1)]
_EXTREMES = {
    "int": [2147483647, -2147483648],
    "bigint": [9223372036854775807, -9223372036854775808],
    "double": [1.7976931348623157e308, -1.7976931348623157e308, 5e-324],
    "date": [dt.date(1, 1, 1), dt.date(9999, 12, 31)],
}


def family_of(type_name: str) -> str:
    if type_name in ("int", "bigint", "double") or type_name.startswith("decimal"):
        return NUM
    return {"string": STR, "boolean": BOOL, "date": DATE}[type_name]


@dataclass(frozen=True)
class Col:
    name: str
    type: str          # Spark's simple string: int, bigint, double, decimal(p,s), string, boolean, date
    nullable: bool
    extreme: bool = False  # may hold the type's extreme values (arithmetic may overflow)

    @property
    def family(self) -> str:
        return family_of(self.type)

    def catalog_type(self) -> str:
        return self.type + ("" if self.nullable else " not null")


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Col, ...]
    rows: tuple[tuple, ...]


@dataclass(frozen=True)
class World:
    seed: int
    tables: tuple[Table, ...]

    def mapping(self) -> dict:
        """The catalog mapping of design.md, `{"table": {"col": "type [not null]"}}`."""
        return {t.name: {c.name: c.catalog_type() for c in t.columns} for t in self.tables}

    @cached_property
    def catalog(self):
        from sparkfold.plans.sql_in.catalog import Catalog

        return Catalog.from_mapping(self.mapping())

    def table(self, name: str) -> Table:
        return next(t for t in self.tables if t.name == name)

    def describe(self) -> str:
        out = []
        for t in self.tables:
            cols = ", ".join(f"{c.name} {c.catalog_type()}{' (extreme)' if c.extreme else ''}" for c in t.columns)
            out.append(f"{t.name}({cols}): {len(t.rows)} rows")
        return "\n".join(out)


def _value(rnd: random.Random, col: Col):
    if col.nullable and rnd.random() < 0.25:
        return None
    if col.extreme and rnd.random() < 0.3:
        key = "double" if col.type == "double" else col.type
        if key in _EXTREMES:
            return rnd.choice(_EXTREMES[key])
        if col.type.startswith("decimal"):
            p, s = _precision_scale(col.type)
            top = Decimal(10) ** (p - s) - Decimal(1).scaleb(-s)
            return rnd.choice([top, -top])
    if col.type == "int":
        return rnd.choice(_INTS)
    if col.type == "bigint":
        return rnd.choice(_LONGS)
    if col.type == "double":
        return rnd.choice(_DOUBLES)
    if col.type.startswith("decimal"):
        p, s = _precision_scale(col.type)
        while True:
            d = Decimal(rnd.choice(_DECIMALS)).quantize(Decimal(1).scaleb(-s)) if s else \
                Decimal(rnd.choice(_DECIMALS)).to_integral_value()
            if len(d.as_tuple().digits) <= p:
                return d
    if col.type == "string":
        return rnd.choice(_STRINGS)
    if col.type == "boolean":
        return rnd.random() < 0.5
    if col.type == "date":
        return rnd.choice(_DATES)
    raise ValueError(col.type)


def _precision_scale(type_name: str) -> tuple[int, int]:
    p, s = type_name[len("decimal("):-1].split(",")
    return int(p), int(s)


def _column_type(rnd: random.Random) -> str:
    r = rnd.random()
    if r < 0.2:
        return "int"
    if r < 0.32:
        return "bigint"
    if r < 0.52:
        return "double"
    if r < 0.64:
        p, s = rnd.choice(DECIMALS)
        return f"decimal({p},{s})"
    if r < 0.8:
        return "string"
    if r < 0.9:
        return "boolean"
    return "date"


def make_world(seed: int, tables: int = 5) -> World:
    """A world of `tables` tables (names fz<seed % 1000>_0, ...); table 1 is empty."""
    rnd = random.Random(seed)
    out = []
    for i in range(tables):
        names = ["k"] + rnd.sample(COLUMN_NAMES[1:], rnd.randint(1, 5))
        cols = []
        for j, name in enumerate(names):
            # the first column is an integer key (often NOT NULL), for joins and correlation
            typ = rnd.choice(["int", "int", "bigint"]) if j == 0 else _column_type(rnd)
            nullable = rnd.random() < (0.4 if j == 0 else 0.75)
            extreme = j > 0 and typ in ("int", "bigint", "double", "date") and rnd.random() < 0.15
            cols.append(Col(name, typ, nullable, extreme))
        n_rows = 0 if i == 1 else rnd.choice([1, 3, 4, 5, 6, 7, 8, 9])
        rows = tuple(tuple(_value(rnd, c) for c in cols) for _ in range(n_rows))
        out.append(Table(f"fz{seed % 1000}_{i}", tuple(cols), rows))
    return World(seed, tuple(out))


# ---------------------------------------------------------------------------
# Spark
# ---------------------------------------------------------------------------


def spark_schema(table: Table):
    from pyspark.sql import types as st

    return st.StructType([st.StructField(c.name, st._parse_datatype_string(c.type), c.nullable)
                          for c in table.columns])


def register_world(spark, world: World, cache: bool = True) -> dict:
    """Register the world's tables as temp views (one partition each, cached: tiny data
    runs fastest that way); returns the catalog mapping."""
    for t in world.tables:
        df = spark.createDataFrame(list(t.rows), spark_schema(t)).coalesce(1)
        df.createOrReplaceTempView(t.name)
        if cache:
            spark.catalog.cacheTable(t.name)
    return world.mapping()


def unregister_world(spark, world: World) -> None:
    for t in world.tables:
        spark.catalog.uncacheTable(t.name)
        spark.catalog.dropTempView(t.name)
