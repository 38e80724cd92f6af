"""The table `edge` whose rows hold the edge values of each type (tests/oracles/
edge_values.py), for the simplification oracle: nullable and NOT NULL columns, every
value of each column in some row (the columns cycle through their values at different
lengths, so rows mix them).  One partition, rows in `id` order, so that Spark meets
the rows in that order and the first row that raises decides the error, as it does
for sparkfold's evaluator walking the same rows.
"""

from __future__ import annotations

import math
from datetime import date
from decimal import Decimal

NAN, INF = math.nan, math.inf
MAX38_18 = Decimal("9" * 20 + "." + "9" * 18)

SCHEMA = {"id": "int not null", "b": "boolean", "nb": "boolean not null", "i": "int", "ni": "int not null",
          "l": "bigint", "d": "double", "nd": "double not null", "f": "float", "m": "decimal(10,2)",
          "w": "decimal(38,18)", "s": "string", "ns": "string not null", "dt": "date"}

_VALUES = {
    "b": [True, False, None],
    "nb": [True, False],
    "i": [2147483647, -2147483648, 0, 1, -1, None, 7],
    "ni": [2147483647, -2147483648, 0, 1, -1, 7],
    "l": [9223372036854775807, -9223372036854775808, 0, None, 2147483648],
    "d": [NAN, INF, -INF, -0.0, 0.0, 2.5, None, 1.7976931348623157e308, 0.1],
    "nd": [NAN, -0.0, 0.0, INF, 2.5, -INF, 0.1],
    "f": [NAN, -0.0, 1.5, None, 3.4028234663852886e38],
    "m": [Decimal("99999999.99"), Decimal("-0.01"), Decimal("0.00"), None, Decimal("1.25")],
    "w": [MAX38_18, Decimal("0.000000000000000001"), None, Decimal("-1.500000000000000000")],
    "s": ["", "abc", " 12 ", "NaN", None, "1", "inf", "-0.0", "true", "2020-02-29", "ß"],
    "ns": ["", "NaN", "1", "abc", "1.5", " 7 "],
    "dt": [date(2020, 2, 29), date(9999, 12, 31), None, date(1970, 1, 1), date(1, 1, 1)],
}

ROWS = 24


def rows() -> list[tuple]:
    out = []
    for k in range(ROWS):
        out.append((k,) + tuple(vs[k % len(vs)] for vs in _VALUES.values()))
    return out


def register(spark) -> dict:
    """Create the temp view `edge` (one partition, in id order); returns its schema."""
    from tests.data import local_copy, spark_schema

    df = local_copy(spark.createDataFrame(rows(), spark_schema(SCHEMA)).coalesce(1))
    df.createOrReplaceTempView("edge")
    return {"edge": SCHEMA}
