"""What every oracle's command line shares: record Spark's answers into the golden file
(`--regenerate`, needs Spark) or check sparkfold against it (no Spark), and the list of
disagreements not fixed yet (`*_open.txt`, a ratchet: the oracle's test fails on one not
listed and on one listed that agrees).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable, Iterable


def main(argv: list[str] | None, doc: str | None, regenerate: Callable[[], str],
         check: Callable[[bool], int], open_list: Path | None = None) -> int:
    """`python -m tests.oracles.NAME [--regenerate] [--write-open]`: `regenerate` asks
    Spark, writes the golden file and says what it wrote; `check(write_open)` prints its
    report, lists today's disagreements in `open_list` when asked, and returns the exit
    status (1: a disagreement, 2: a stale golden file)."""
    ap = argparse.ArgumentParser(description=(doc or "").splitlines()[0] if doc else None)
    ap.add_argument("--regenerate", action="store_true", help="record Spark's answers into the golden file (needs Spark)")
    if open_list is not None:
        ap.add_argument("--write-open", action="store_true", help=f"list today's disagreements in {open_list.name}")
    args = ap.parse_args(argv)
    if args.regenerate:
        t0 = time.time()
        print(f"{regenerate()} in {time.time() - t0:.0f} s", file=sys.stderr)
    return check(getattr(args, "write_open", False))


def golden_main(argv: list[str] | None, oracle, show: int = 40) -> int:
    """`main` of an oracle module whose golden file is recorded by `record(spark)` and
    `write(golden)`, read by `load()`, checked for a changed space by `stale(golden)` and
    against sparkfold by `check(golden)` (a report with `summary()` and `mismatches`, each
    (class, mode, case, detail)); one with `OPEN` and `write_open(report)` keeps an open
    list."""
    def regenerate() -> str:
        from .session import spark_session

        oracle.write(oracle.record(spark_session()))
        return f"wrote {oracle.GOLDEN}"

    def check(write_open_list: bool) -> int:
        golden = oracle.load()
        if (problems := oracle.stale(golden)):
            return stale(problems)
        report = oracle.check(golden)
        print(report.summary())
        for c, m, case, d in report.mismatches[:show]:
            print(f"[{c}] {m}: {case}\n    {d}")
        if write_open_list:
            oracle.write_open(report)
        return 1 if report.mismatches else 0

    return main(argv, oracle.__doc__, regenerate, check, getattr(oracle, "OPEN", None))


def verdicts_main(argv: list[str] | None, oracle) -> int:
    """`main` of an oracle module whose `regenerate()` records its golden file and whose
    `verdicts(load())` gives (counts, the wrong cases)."""
    def check(_write_open: bool) -> int:
        counts, wrong = oracle.verdicts(oracle.load())
        print(counts)
        for w in wrong[:50]:
            print("  ", w)
        return 1 if wrong else 0

    return main(argv, oracle.__doc__, lambda: f"{oracle.regenerate()} cases written to {oracle.GOLDEN}", check)


def stale(problems: list[str]) -> int:
    """The exit status of a check whose golden file no longer matches the space (2)."""
    print("the golden file is stale, run with --regenerate: " + "; ".join(problems[:5]), file=sys.stderr)
    return 2


def read_open(path: Path, fields: int) -> set[tuple[str, ...]]:
    """The disagreements `path` lists as not fixed yet, each as its `fields` fields (the
    last one may hold tabs)."""
    if not path.exists():
        return set()
    return {tuple(line.split("\t", fields - 1)) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")}


def write_open(rows: Iterable[tuple[str, ...]], path: Path, what: str, fields: str,
               fails: str = "on one not\n# listed (a new disagreement) and on one listed that agrees") -> None:
    """List `rows` in `path` (remove it when there are none): `what` names the oracle
    (`The folding oracle's`), `fields` its columns, `fails` when its test fails."""
    lines = sorted("\t".join(r) for r in rows)
    if not lines:
        path.unlink(missing_ok=True)
        return
    module = path.name.removesuffix("_open.txt")
    head = (f"# {what} disagreements not fixed yet: {fields}.\n"
            f"# Written by `python -m tests.oracles.{module} --write-open`; the test fails {fails}\n"
            "# (fixed: write this file again).\n")
    path.write_text(head + "\n".join(lines) + "\n", encoding="utf-8")
