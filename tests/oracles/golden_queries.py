"""The golden files of the oracles whose cases are whole queries (query_schemas,
inline_tables): Spark's answer to each query in each mode, recorded once.

A golden file has a header line (Spark's version, the modes, the number of queries), then
one line per mode and query, `[mode, query, schema]` or, with the rows, `[mode, query,
schema, rows]`: the schema as `optimizer.verify.schema_of` writes it and the rows as
`cell_text` writes each value, or `"!ERROR_CLASS"` (and `null` rows) when Spark rejects
the query.
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path
from typing import Callable


def cell_text(v) -> str | None:
    """A value of a row as text that Spark's value and sparkfold's compare by: NaN and the
    infinities by name, -0.0 as 0.0 (Spark's equality), decimals by their digits."""
    import datetime as dt
    from decimal import Decimal

    if v is None:
        return None
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        return repr(v + 0.0)
    if isinstance(v, Decimal):
        return format(v, "f")
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).hex()
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    return repr(v)


def spark_answer(spark, sql: str, rows: bool) -> list:
    """Spark's answer to one query: [schema] (with `rows`, [schema, rows]), or
    ["!ERROR_CLASS"] ([..., None]) when Spark rejects it."""
    from sparkfold.optimizer.verify import _error_of, schema_of

    try:
        df = spark.sql(sql)
        schema = [list(f) for f in schema_of(df)]
        return [schema, [[cell_text(v) for v in r] for r in df.collect()]] if rows else [schema]
    except Exception as e:  # noqa: BLE001 - Spark's rejection is its answer
        return ["!" + _error_of(e)[0]] + ([None] if rows else [])


def record(path: Path, modes: dict[str, str], sqls: list[str], register: Callable, rows: bool = False) -> int:
    """Ask Spark (its tables made by `register(spark)`) for every query in every mode
    (`modes`: name -> spark.sql.ansi.enabled) and write the golden file; returns its
    number of cases."""
    import pyspark

    from tests.oracles.session import spark_session

    spark = spark_session()
    register(spark)
    lines = []
    for mode, ansi in modes.items():
        spark.conf.set("spark.sql.ansi.enabled", ansi)
        lines += [[mode, sql, *spark_answer(spark, sql, rows)] for sql in sqls]
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write(json.dumps({"spark": pyspark.__version__, "modes": modes, "queries": len(sqls)}) + "\n")
        for line in lines:
            f.write(json.dumps(line) + "\n")
    return len(lines)


def schemas(path: Path) -> dict[tuple[str, str], object]:
    """(mode, query) -> Spark's schema or `!ERROR_CLASS`."""
    return {case: answer[0] for case, answer in load(path).items()}


def load(path: Path) -> dict[tuple[str, str], list]:
    """(mode, query) -> Spark's answer, as `spark_answer` gives it."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        next(f)
        return {(line[0], line[1]): line[2:] for line in map(json.loads, f)}
