"""The error oracle (issue 35, item 4): errors survive sparkfold's rewrites.

    python -m tests.oracles.error_mutations --regenerate   # ask Spark, write golden/error_mutations.jsonl.gz
    python -m tests.oracles.error_mutations                # sparkfold against it (no Spark)
    python -m tests.oracles.error_mutations --write-open   # list today's disagreements in error_mutations_open.txt

The space: valid queries over the edge table (tests/oracles/edge_table.py), each with a
slot in a place a rule rewrites (a select item folded, multiplied by 0, compared with
itself, under IS NULL, coalesce, IF and CASE branches, IN, AND / OR with a constant, a
filter that keeps no row, a column nothing reads, GROUP BY, DISTINCT, a UNION input, an
unread CTE), mutated by putting into the slot an operand that raises: ANSI overflow, an
invalid cast, division by zero, an index out of bounds, on every row or on some, and
calls Spark's analysis rejects in every mode (of the wrong arity, with an argument of the
wrong type, of an unknown function).  Spark's outcome for each
query in each mode (its row count, or its error class) is recorded twice: with Spark's
optimizer (what the user gets) and, where that raises nothing, with the rules sparkfold's
references run without (`spark_eval.mode`), which may evaluate what Spark's optimizer drops.

A rewrite must never drop an error: sparkfold's optimized query must raise where the
original raises (the same class, on live Spark), or return rows where Spark itself does
(with its optimizer).  Without Spark, the rules' plan is run row by row by sparkfold's
evaluator where it can (scans, projections, filters); on live Spark, a sample (all with
SPARKFOLD_LONG=1) runs the optimized SQL.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from . import cli, edge_table
from .folds import in_share, read_rows, write_rows
from .simplifications import MODES, SOURCE, Raised, Unchecked, run_plan

GOLDEN = Path(__file__).parent / "golden" / "error_mutations.jsonl.gz"
OPEN = Path(__file__).parent / "error_mutations_open.txt"

# the operands that raise, as ints: (on every row) ANSI overflow, invalid cast, division by
# zero, index out of bounds, modulo by zero, a cast overflow; (on some rows) the same over a
# column; and calls Spark's analysis rejects in every mode, which sparkfold does not model:
# of the wrong arity, of an argument of the wrong type, of a function that does not exist
RAISING = ["2147483647 + 1", "CAST('x' AS INT)", "CAST(1 / 0 AS INT)", "element_at(array(1), 3)", "5 % 0",
           "CAST(300 AS TINYINT)", "abs(-2147483648)", "i + 2147483647", "CAST(s AS INT)", "ni DIV (ni - ni)",
           "CAST(d AS INT)", "length('a', 'b')", "coalesce()", "abs(1, 2)",
           "ascii(array(1))", "no_such_function(1)"]

# valid queries with a slot {x} for an int operand
SEEDS = [
    "SELECT {x} AS c FROM edge",
    "SELECT {x} * 0 AS c FROM edge",
    "SELECT {x} - {x} AS c FROM edge",
    "SELECT {x} = {x} AS c FROM edge",
    "SELECT ({x}) IS NULL AS c FROM edge",
    "SELECT coalesce(1, {x}) AS c FROM edge",
    "SELECT coalesce({x}, 1) AS c FROM edge",
    "SELECT nvl2({x}, 1, 2) AS c FROM edge",
    "SELECT IF(TRUE, 1, {x}) AS c FROM edge",
    "SELECT IF(FALSE, 1, {x}) AS c FROM edge",
    "SELECT IF(id < 0, {x}, 1) AS c FROM edge",
    "SELECT CASE WHEN id > 100 THEN {x} ELSE 0 END AS c FROM edge",
    "SELECT CASE WHEN TRUE THEN 0 ELSE {x} END AS c FROM edge",
    "SELECT {x} IN (1, 2) AS c FROM edge",
    "SELECT 1 IN (1, {x}) AS c FROM edge",
    "SELECT id FROM edge WHERE FALSE AND {x} > 0",
    "SELECT id FROM edge WHERE {x} > 0 AND FALSE",
    "SELECT id FROM edge WHERE TRUE OR {x} > 0",
    "SELECT id FROM edge WHERE {x} > 0 OR TRUE",
    "SELECT id FROM edge WHERE {x} > 0 AND id < 0",
    "SELECT id FROM edge WHERE id IS NULL AND {x} > 0",
    "SELECT {x} AS c FROM edge WHERE FALSE",
    "SELECT {x} AS c FROM edge WHERE id < 0",
    "SELECT {x} AS c FROM edge LIMIT 0",
    "SELECT id FROM (SELECT id, {x} AS c FROM edge) s",
    "SELECT id FROM (SELECT id, {x} AS c FROM edge) s WHERE c IS NOT NULL",
    "SELECT c FROM (SELECT {x} AS c FROM edge) s WHERE FALSE",
    "SELECT count({x}) AS c FROM edge",
    "SELECT count(*) AS c FROM edge WHERE {x} = {x}",
    "SELECT max(id) AS c FROM edge GROUP BY {x}",
    "SELECT DISTINCT {x} AS c FROM edge",
    "SELECT {x} AS c FROM edge UNION ALL SELECT 1 AS c FROM edge WHERE FALSE",
    "WITH w AS (SELECT {x} AS c FROM edge) SELECT 1 AS c",
    "SELECT id FROM edge e1 WHERE EXISTS (SELECT 1 FROM edge e2 WHERE e2.id = e1.id AND {x} > 0)",
]


def space() -> list[str]:
    return list(dict.fromkeys(seed.replace("{x}", f"({x})") for seed in SEEDS for x in RAISING))


def load(path: Path = GOLDEN) -> dict[str, dict]:
    return {row["sql"]: {k: v for k, v in row.items() if k != "sql"} for row in read_rows(path)}


def stale(golden: dict) -> list[str]:
    wanted = set(space())
    return [e for e in wanted if e not in golden][:10] + [e for e in golden if e not in wanted][:10]


# ---------------------------------------------------------------------------
# Spark
# ---------------------------------------------------------------------------


def outcome(spark, sql: str) -> dict:
    """A query's outcome: {"n": row count} or {"e": error class}."""
    from .spark_eval import condition_of

    try:
        return {"n": len(spark.sql(sql).collect())}
    except Exception as e:  # noqa: BLE001 - the error is the answer
        return {"e": condition_of(e)}


def record(spark) -> dict[str, dict]:
    """Each query's outcome in each mode: `<mode>` with Spark's optimizer, `<mode>_ref`
    without the rules the references run without."""
    from .spark_eval import mode

    edge_table.register(spark)
    out: dict[str, dict] = {q: {} for q in space()}
    for m, ansi in MODES:
        t0 = time.time()
        with ansi_mode(spark, ansi):
            for q in out:
                out[q][m] = outcome(spark, q)
        with mode(spark, ansi):  # (asked where Spark's optimizer leaves no error)
            for q in out:
                out[q][f"{m}_ref"] = out[q][m] if "e" in out[q][m] else outcome(spark, q)
        print(f"{m}: {len(out)} queries ({time.time() - t0:.0f} s)", file=sys.stderr)
    return out


class ansi_mode:
    """ANSI on or off for the block, Spark's optimizer as it is."""

    def __init__(self, spark, ansi: bool):
        self.spark, self.ansi = spark, ansi

    def __enter__(self):
        self.old = self.spark.conf.get("spark.sql.ansi.enabled")
        self.spark.conf.set("spark.sql.ansi.enabled", "true" if self.ansi else "false")

    def __exit__(self, *exc):
        self.spark.conf.set("spark.sql.ansi.enabled", self.old)


def write(golden: dict, path: Path = GOLDEN) -> None:
    write_rows(path, ({"sql": q, **row} for q, row in golden.items()))


# ---------------------------------------------------------------------------
# Checking
# ---------------------------------------------------------------------------


@dataclass
class Report:
    verdicts: Counter = field(default_factory=Counter)   # (mode, verdict) -> queries
    mismatches: list = field(default_factory=list)       # (class, mode, query, detail)

    def summary(self) -> str:
        return f"{dict(sorted(self.verdicts.items()))}; mismatches {len(self.mismatches)} " \
               f"{dict(Counter((c, m) for c, m, *_ in self.mismatches))}"


def acceptable(golden_row: dict, m: str, got: dict) -> bool:
    """The optimized query's outcome is Spark's for the original: the same error class
    (or rows) as Spark with its optimizer, or as the reference without its rules."""
    return any(_same(golden_row[k], got) for k in (m, f"{m}_ref"))


def _same(theirs: dict, got: dict) -> bool:
    if "e" in theirs or "e" in got:
        return theirs.get("e") == got.get("e") or ("e" in theirs and got.get("e") == "raises")
    return got.get("n") is None or theirs["n"] == got["n"]


def check(golden: dict, share: int = 1) -> Report:
    """Without Spark: sparkfold rejects only what Spark rejects, and where a rule
    rewrote the query, the rules' plan run by the evaluator raises where Spark does."""
    from .sparkfold_side import _catalog, optimized
    from tests.rule_helpers import rules_output

    report = Report()
    for q in in_share(list(golden), share):
        for m, ansi in MODES:
            row = golden[q]
            r = optimized([], _catalog(ansi, {SOURCE: edge_table.SCHEMA}), sql=q)
            if isinstance(r, Exception):
                report.verdicts[(m, "rejected")] += 1
                if "e" not in row[m] and "e" not in row[f"{m}_ref"]:
                    report.mismatches.append(("valid rejected", m, q, f"{type(r).__name__}: {r}"[:200]))
                continue
            if r.passthrough is not None or r.sql == q:
                report.verdicts[(m, "as written")] += 1
                continue
            report.verdicts[(m, "rewritten")] += 1
            if _spark_decides(rules_output(r)):
                report.verdicts[(m, "rewritten, live only")] += 1
                continue
            try:
                got = {"n": len(run_plan(rules_output(r), ansi))}
            except Raised:
                got = {"e": "raises"}
            except (Unchecked, KeyError):
                report.verdicts[(m, "rewritten, live only")] += 1
                continue
            if not acceptable(row, m, got):
                report.mismatches.append(("error dropped" if "e" not in got else "error introduced", m, q,
                                          f"Spark {row[m]} (reference {row[f'{m}_ref']}); the rewrite {got}"))
    return report


def _spark_decides(plan) -> bool:
    """Does the plan keep what Spark evaluates whether rows reach it or not: an
    expression kept as written, which Spark analyzes (`length('a', 'b')` over an empty
    relation still fails), or a constant that may raise, which its ConstantFolding
    evaluates (`SELECT 1/0 AS c FROM (<no rows>)` fails under ANSI)?"""
    from sparkfold.plans.ir import expressions as E
    from sparkfold.rules.prune_filters import folding_may_raise

    return folding_may_raise(plan) \
        or any(isinstance(x, E.Opaque) for n in plan.walk() for e in n.expressions for x in e.walk())


def live(spark, golden: dict, queries: list[str]) -> Report:
    """On Spark now: the original gives the golden outcome, and sparkfold's optimized SQL
    gives it too (the same error class, or rows where Spark gives rows)."""
    from .sparkfold_side import _catalog, optimized

    edge_table.register(spark)
    report = Report()
    for m, ansi in MODES:
        cat = _catalog(ansi, {SOURCE: edge_table.SCHEMA})
        with ansi_mode(spark, ansi):
            for q in queries:
                row = golden[q]
                if not _same(row[m], outcome(spark, q)):
                    report.mismatches.append(("golden differs", m, q, str(row[m])))
                    continue
                r = optimized([], cat, sql=q)
                if isinstance(r, Exception) or r.sql == q:
                    report.verdicts[(m, "as written")] += 1
                    continue
                report.verdicts[(m, "live")] += 1
                got = outcome(spark, r.sql)
                if not acceptable(row, m, got):
                    report.mismatches.append(("optimized differs", m, q, f"{r.sql}: {got} vs {row}"))
    return report


def mismatch_keys(report: Report) -> set[tuple[str, str, str]]:
    return {(c, m, q) for c, m, q, _d in report.mismatches}


def open_keys(path: Path = OPEN) -> set[tuple[str, ...]]:
    """The disagreements not fixed yet (class, mode, query), as --write-open listed them."""
    return cli.read_open(path, 3)


def write_open(report: Report, path: Path = OPEN) -> None:
    cli.write_open(mismatch_keys(report), path, "The error oracle's", "class, mode, query")


def main(argv=None) -> int:
    return cli.golden_main(argv, sys.modules[__name__])


if __name__ == "__main__":
    sys.exit(main())
