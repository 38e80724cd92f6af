"""The tuple IN oracle: `(a, b) [NOT] IN ((x, y), ...)`, which sparkfold keeps as written and
evaluates (plans.ir.tuple_in) where a Filter over rows it holds keeps none of them
(rules.local_relation), against Spark's value on each row.

The space: lists of tuples (one or two; NULL, a typed NULL, NaN, -0.0 and the empty string
in each position; of the value's types, and of types Spark must cast first) over tables
of rows with NULL in each position, of two pairs of types, each IN and NOT IN, in ANSI
mode and out of it.

    python -m tests.oracles.tuple_in --regenerate   # record Spark's answers (seconds)
    python -m tests.oracles.tuple_in                # sparkfold against them

The golden file (`golden/tuple_in.jsonl.gz`) is `golden_queries`': one line per mode and
query, `[mode, query, schema, rows]` (the rows `[i, in, not in]`, by i), or `[mode,
query, "!ERROR_CLASS", null]` when Spark rejects the query.
"""

from __future__ import annotations

import functools
import sys
from decimal import Decimal
from pathlib import Path

from . import cli, golden_queries

GOLDEN = Path(__file__).parent / "golden" / "tuple_in.jsonl.gz"
MODES = {"ansi": "true", "legacy": "false"}

# name -> (its columns' types, its rows as (SQL text, value) per column)
N = ("NULL", None)
TABLES = {
    "t1": (("int", "decimal(2,1)"), [
        (N, N), (N, ("1.0", Decimal("1.0"))), (("2", 2), ("3.0", Decimal("3.0"))), (("4", 4), ("5.0", Decimal("5.0"))),
        (("2", 2), N), (("0", 0), ("0.0", Decimal("0.0")))]),
    "t2": (("double", "string"), [
        (("double('NaN')", float("nan")), ("'x'", "x")), (("-0.0D", -0.0), ("'x'", "x")), (("0.0D", 0.0), ("''", "")),
        (N, ("'x'", "x")), (("1.5D", 1.5), N), (N, N)]),
}
ITEMS = {
    "t1": ["(2, 3.0)", "(NULL, 1.0)", "(CAST(NULL AS INT), 1.0)", "(2, 3.0), (CAST(NULL AS INT), CAST(NULL AS DECIMAL(2,1)))",
           "(2, CAST(NULL AS DECIMAL(2,1)))", "(4, 5.0), (2, 3.0)", "(0, 0.0)", "(2, 3)", "(2L, 3.0)", "(2, 3.00)",
           "(NULL, NULL)", "(7, 7.0)"],
    "t2": ["(double('NaN'), 'x')", "(0.0D, 'x')", "(-0.0D, '')", "(CAST(NULL AS DOUBLE), 'x')", "(NULL, 'x')",
           "(1.5D, CAST(NULL AS STRING))", "(CAST(NULL AS DOUBLE), CAST(NULL AS STRING))", "(1.5, NULL)", "(0, 'x')"],
}


def table(name: str) -> str:
    types, rows = TABLES[name]
    out = []
    for i, row in enumerate(rows):
        cells = [text if i else f"CAST({text} AS {t})" for (text, _), t in zip(row, types)]
        out.append(f"({i}, {', '.join(cells)})")
    return "VALUES " + ", ".join(out) + " AS t(i, a, b)"


def query(name: str, items: str) -> str:
    return f"SELECT i, (a, b) IN ({items}) AS r, (a, b) NOT IN ({items}) AS n FROM {table(name)} ORDER BY i"


def cases() -> list[tuple[str, str]]:
    return [(name, items) for name in TABLES for items in ITEMS[name]]


def regenerate(path: Path = GOLDEN) -> int:
    return golden_queries.record(path, MODES, [query(*c) for c in cases()], lambda spark: None, rows=True)


def load(path: Path = GOLDEN) -> dict[tuple[str, str], tuple]:
    return {case: tuple(answer) for case, answer in golden_queries.load(path).items()}


@functools.cache
def _catalog(ansi: bool):
    from sparkfold.plans.sql_in.catalog import Catalog

    return Catalog.from_mapping({name: {"a": types[0], "b": types[1]} for name, (types, _) in TABLES.items()},
                                ansi=ansi)


@functools.cache
def expressions(name: str, items: str, ansi: bool):
    """sparkfold's analysis of `(a, b) IN (items)` and of its NOT IN over the table, and
    the ids of a and b."""
    from sparkfold import optimize

    r = optimize(f"SELECT (a, b) IN ({items}) AS r, (a, b) NOT IN ({items}) AS n FROM {name}", _catalog(ansi))
    project = r.analyzed
    a, b = project.child.output
    return [e.child for e in project.projections], (a, b)


def sparkfold_values(name: str, items: str, row: tuple, ansi: bool) -> list[tuple[str, object]]:
    """("value", v) | ("raises" | "unknown", why) for IN and NOT IN on one row."""
    from sparkfold.plans.ir import expressions as E
    from sparkfold.plans.ir.evaluate import CannotEvaluate, EvaluationError, evaluate
    from sparkfold.rules.local_relation import _bound

    exprs, cols = expressions(name, items, ansi)
    values = {c.expr_id: E.Literal(v, c.data_type) for c, (_, v) in zip(cols, row)}
    out: list[tuple[str, object]] = []
    for e in exprs:
        try:
            out.append(("value", evaluate(_bound(e, values), ansi)))
        except EvaluationError as x:
            out.append(("raises", str(x)))
        except CannotEvaluate as x:
            out.append(("unknown", str(x)))
    return out


def verdicts(golden: dict[tuple[str, str], tuple]) -> tuple[dict[str, int], list[str]]:
    """Counts by verdict and the wrong cases: a value must be Spark's; where Spark
    rejects the query, sparkfold may not give a value."""
    from tests.oracles.golden_queries import cell_text

    counts = {"ok": 0, "unknown": 0, "wrong": 0}
    wrong: list[str] = []
    for mode, setting in MODES.items():
        for name, items in cases():
            schema, rows = golden[(mode, query(name, items))]
            spark = {int(r[0]): r[1:] for r in rows} if rows is not None else None
            for i, row in enumerate(TABLES[name][1]):
                for k, (kind, got) in enumerate(sparkfold_values(name, items, row, setting == "true")):
                    if kind != "value":
                        counts["unknown"] += 1
                        continue
                    expected = spark[i][k] if spark is not None else schema
                    if spark is None or cell_text(got) != expected:
                        counts["wrong"] += 1
                        wrong.append(f"{mode}: {name} row {i} {'NOT ' * k}IN ({items}): Spark {expected}, "
                                     f"sparkfold {got}")
                    else:
                        counts["ok"] += 1
    return counts, wrong


def main(argv: list[str] | None = None) -> int:
    return cli.verdicts_main(argv, sys.modules[__name__])


if __name__ == "__main__":
    sys.exit(main())
