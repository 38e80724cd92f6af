"""The inline table oracle: VALUES tables whose values are expressions, over Spark's types,
and Spark's answer for each: the schema (column names, types, nullability) and the rows,
or the error class when Spark rejects the query (every row is evaluated when the query is
analyzed, so an error in a row is a rejection too).

The space (`queries`): every pair of values of `VALUES` (a literal, an expression, a
typed NULL, a value Spark types nullable, one that raises under ANSI, a nested type, a
function sparkfold does not model) as the two rows of one column, which Spark widens to
one type or rejects; each value alone, as a one-row table Spark names `col1`, without
parentheses, as a statement, as a `struct(...)` row (its fields are the columns), beside a
second column, under `WHERE FALSE` and a join with an empty table (the rows are
evaluated all the same).  Each in ANSI mode and out of it (`MODES`).

    python -m tests.oracles.inline_tables --regenerate   # record Spark's answers (a few minutes)
    python -m tests.oracles.inline_tables                # sparkfold against them

The golden file (`golden/inline_tables.jsonl.gz`) has a header line, then one line per
mode and query: `[mode, query, schema, rows]`, the schema as `optimizer.verify.schema_of`
writes it and the rows as `golden_queries.cell_text` writes each value, or `[mode, query, "!ERROR_CLASS",
null]` when Spark rejects the query.
"""

from __future__ import annotations

import functools
import sys
from collections import Counter
from pathlib import Path

from . import cli, golden_queries

GOLDEN = Path(__file__).parent / "golden" / "inline_tables.jsonl.gz"
MODES = {"ansi": "true", "legacy": "false"}
CATALOG = {"e": {"k": "int not null"}}  # an empty table

# Values by type: literals, expressions over literals, NULLs typed and not, values Spark
# types nullable (a cast from a string), values that raise under ANSI, nested types, and
# calls sparkfold does not model (kept as written).
VALUES = (
    "TRUE", "NOT FALSE", "CAST(NULL AS BOOLEAN)",
    "1Y", "CAST(2 AS TINYINT)", "1S", "CAST(-3 AS SMALLINT)",
    "1", "1 + 1", "CAST('3' AS INT)", "2147483647 + 1", "CAST(NULL AS INT)", "-2147483648",
    "1L", "2L * 3", "9223372036854775807L",
    "1.5F", "CAST(2 AS FLOAT)", "1.5D", "double('NaN')", "-double('Infinity')", "1 / 2", "1 / 0", "-0.0D",
    "2.50", "CAST(1 AS DECIMAL(38,0))", "CAST(1.25 AS DECIMAL(38,18))", "CAST(7 AS DECIMAL(10,2))",
    "12345678901234567890", "CAST(0.5 AS DECIMAL(1,1))", "CAST(1 AS DECIMAL(9,0))",
    "'a'", "CAST(1 AS STRING)", "concat('a', 'b')", "X'AB'",
    "DATE'2024-01-01'", "CAST('2024-01-02' AS DATE)", "TIMESTAMP'2024-01-01 00:00:00'",
    "TIMESTAMP_NTZ'2024-01-01 00:00:00'", "NULL",
    "INTERVAL '1' DAY", "INTERVAL '1' HOUR", "INTERVAL '1-2' YEAR TO MONTH",
    "array(1, 2)", "array(1L)", "array(NULL)", "map(1, 'a')", "map(1, 2, 1, 3)", "named_struct('a', 1)",
    "current_date()", "try_add(1, 2)", "try_divide(5, 0)", "abs(-2)", "rand(1)",
)
# The pairs: every value with the first of each group of one type (and itself)
PAIRED = ("TRUE", "1Y", "1S", "1", "CAST('3' AS INT)", "2147483647 + 1", "NULL", "CAST(NULL AS INT)", "1L", "1.5F",
          "1.5D", "double('NaN')", "2.50", "CAST(1 AS DECIMAL(38,0))", "CAST(1.25 AS DECIMAL(38,18))",
          "12345678901234567890", "CAST(0.5 AS DECIMAL(1,1))", "'a'", "X'AB'", "DATE'2024-01-01'",
          "TIMESTAMP'2024-01-01 00:00:00'", "TIMESTAMP_NTZ'2024-01-01 00:00:00'", "INTERVAL '1' DAY",
          "INTERVAL '1-2' YEAR TO MONTH", "array(1, 2)", "array(NULL)", "map(1, 'a')", "current_date()")


def queries() -> list[str]:
    """The whole space, in a fixed order."""
    out: list[str] = []
    for a in VALUES:
        out += [f"SELECT * FROM VALUES ({a})",
                f"SELECT * FROM VALUES {a}, {a} AS t",
                f"VALUES ({a}, 1), ({a}, 2)",
                f"SELECT * FROM VALUES (struct({a}, 'x')), (struct({a}, 'y')) AS t(p, q)",
                f"SELECT t.c FROM VALUES ({a}) AS t(c) WHERE FALSE",
                f"SELECT t.c FROM VALUES ({a}) AS t(c) JOIN e ON TRUE",
                f"SELECT c, count(*) AS n FROM VALUES ({a}), ({a}) AS t(c) GROUP BY c"]
        for b in PAIRED:
            out.append(f"SELECT * FROM VALUES ({a}), ({b}) AS t(c)")
    return list(dict.fromkeys(out))


def cases() -> list[tuple[str, str]]:
    return [(mode, sql) for mode in MODES for sql in queries()]


def register(spark) -> None:
    from tests.data import register as register_table

    for name, columns in CATALOG.items():
        register_table(spark, name, columns, [])


def regenerate(path: Path = GOLDEN) -> int:
    return golden_queries.record(path, MODES, queries(), register, rows=True)


def load(path: Path = GOLDEN) -> dict[tuple[str, str], tuple]:
    """(mode, query) -> (Spark's schema or `!ERROR_CLASS`, its rows or None)."""
    return {case: tuple(answer) for case, answer in golden_queries.load(path).items()}


@functools.cache
def catalog(mode: str):
    from sparkfold.plans.sql_in.catalog import Catalog

    return Catalog.from_mapping(CATALOG, ansi=MODES[mode] == "true")


def verdict(mode: str, sql: str, answer: tuple) -> tuple[str, str]:
    """("ok" | "opaque" | "passthrough" | "wrong", what differs) for one case: sparkfold's
    optimized query must have Spark's schema (names, types, nullability as written), its
    inline table's rows must be Spark's rows, and it must reject only what Spark rejects,
    with Spark's error class; a query Spark rejects may be accepted only with a column
    sparkfold does not type (kept as written: Spark rejects it again)."""
    from sparkfold import optimize
    from sparkfold.optimizer.errors import SparkfoldError
    from tests.oracles.query_schemas import agrees

    schema, rows = answer
    try:
        r = optimize(sql, catalog(mode))
    except SparkfoldError as e:
        if not isinstance(schema, str):
            return "wrong", f"sparkfold rejects what Spark accepts: {e}"
        if not str(e).startswith(f"[{schema[1:]}]") and "[" in str(e)[:1]:
            return "wrong", f"sparkfold rejects with another class: {e}"
        return "ok", ""
    if r.optimized is None:
        return "passthrough", str(r.passthrough)
    got = _modelled(r)
    if isinstance(schema, str):
        if any(t == "unknown" for _, t, _ in got):
            return "opaque", ""
        return "wrong", f"sparkfold accepts ({got}) what Spark rejects ({schema})"
    if not agrees(got, schema):
        return "wrong", f"schema: Spark {schema}, sparkfold {got}"
    table = _local_rows(r.analyzed)
    if table is not None and rows is not None and sql.startswith("SELECT * FROM VALUES") \
            and sorted(map(str, table)) != sorted(map(str, rows)):
        return "wrong", f"rows: Spark {rows}, sparkfold {table}"
    if any(t == "unknown" for _, t, _ in got):
        return "opaque", ""
    return "ok", ""


def _modelled(r) -> list[list]:
    from sparkfold.optimizer.output_nullability import written_nullability

    nullable = written_nullability(r.optimized)
    return [[a.name, a.data_type.simple_string(), n if a.data_type.simple_string() != "unknown" else None]
            for a, n in zip(r.optimized.output, nullable)]


def _local_rows(plan) -> list[list] | None:
    """The rows of the plan's one inline table sparkfold evaluated, as `golden_queries.cell_text` writes
    them (None: no such table, or one of intervals, which sparkfold holds otherwise)."""
    from sparkfold.plans.ir import logical as L
    from sparkfold.plans.ir import types as T

    tables = [p for p in plan.walk() if isinstance(p, L.LocalRelation) and p.rows]
    if len(tables) != 1 or any(a.data_type in T.INTERVAL_UNITS for a in tables[0].output):
        return None
    return [[golden_queries.cell_text(v) for v in row] for row in tables[0].rows]


def main(argv: list[str] | None = None) -> int:
    def check(_write_open: bool) -> int:
        counts: Counter = Counter()
        for (mode, sql), answer in load().items():
            v, detail = verdict(mode, sql, answer)
            counts[v] += 1
            if v == "wrong":
                print(f"{mode}: {sql}\n  {detail}")
        print(f"{sum(counts.values())} cases: {dict(counts)}")
        return 1 if counts["wrong"] else 0

    return cli.main(argv, __doc__, lambda: f"{regenerate()} cases written to {GOLDEN}", check)


if __name__ == "__main__":
    sys.exit(main())
