"""The folding oracle: Spark's value, type or error for every constant expression of the
space sparkfold's evaluator folds (tests/oracles/fold_space.py), in ANSI and legacy mode.

    python -m tests.oracles.folds --regenerate   # ask Spark, write golden/folds.jsonl.gz
    python -m tests.oracles.folds --check        # sparkfold against the golden file (no Spark)
    python -m tests.oracles.folds --write-open   # list today's disagreements in folds_open.txt

The golden file holds, one JSON array a line:
- for each form and type combination, Spark's analysis of its representative
  (`[form, types, ansi, legacy]`): the type, or the error class when Spark rejects the
  combination (its expressions are then not evaluated in that mode);
- for each expression, Spark's outcome in each mode (`[expression, ansi, legacy]`):
  `[type, value]` (see spark_eval.encode), `"!ERROR_CLASS"`, or null where the
  expression's combination does not analyze in that mode.

tests/test_oracle_folds.py checks sparkfold against it: a fold must give Spark's value
(doubles bit for bit) and type, and must never turn an error into a value.  The
disagreements not fixed yet are listed in folds_open.txt, which the test holds as a
ratchet (a new one fails it, and so does a fixed one still listed).
"""

from __future__ import annotations

import argparse
import gzip
import io
import itertools
import json
import sys
import time
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from . import cli
from .sparkfold_side import both_modes, compare
from .fold_space import FORMS, Form, expressions, lazy_expressions, literal_expressions, representative_sql, \
    type_combinations

GOLDEN = Path(__file__).parent / "golden" / "folds.jsonl.gz"
OPEN = Path(__file__).parent / "folds_open.txt"
MODES = (("ansi", True), ("legacy", False))


# ---------------------------------------------------------------------------
# Outcomes in the golden file
# ---------------------------------------------------------------------------


def to_golden(o: dict | None):
    if o is None:
        return None
    if "e" in o:
        return "!" + o["e"]
    return [o["t"], o["v"]] if "v" in o else [o["t"]]


def from_golden(g) -> dict | None:
    if g is None:
        return None
    if isinstance(g, str):
        return {"e": g[1:]}
    return {"t": g[0], "v": g[1]} if len(g) > 1 else {"t": g[0]}


# ---------------------------------------------------------------------------
# The space
# ---------------------------------------------------------------------------


@dataclass
class Space:
    combos: list[tuple[Form, tuple[str, ...]]]
    # (form name, types) -> {mode: representative's analysis}
    analysis: dict = field(default_factory=dict)
    # expression -> {mode: outcome or None}
    outcomes: dict = field(default_factory=dict)

    def accepted(self, key, mode: str) -> bool:
        o = self.analysis.get(key, {}).get(mode)
        return o is not None and "e" not in o


def all_combos() -> list[tuple[Form, tuple[str, ...]]]:
    return [(f, t) for f in FORMS for t in type_combinations(f)]


def expected_expressions(space: Space) -> dict[str, set[str]]:
    """Each expression of the space and the modes it is evaluated in."""
    out: dict[str, set[str]] = {}
    for f, t in space.combos:
        modes = {m for m, _ in MODES if space.accepted((f.name, t), m)}
        if modes:
            for e in expressions(f, t):
                out.setdefault(e, set()).update(modes)
    for e in lazy_expressions() + literal_expressions():
        out.setdefault(e, set()).update(m for m, _ in MODES)
    return out


def read_rows(path: Path):
    """The JSON rows of a gzipped golden file."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            yield json.loads(line)


def write_rows(path: Path, rows) -> None:
    """A gzipped golden file of JSON rows, the same bytes for the same rows."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) as z, \
            io.TextIOWrapper(z, encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def load(path: Path = GOLDEN) -> Space:
    space = Space(all_combos())
    for row in read_rows(path):
        if len(row) == 4:  # [form, types, ansi, legacy]: a combination's analysis
            space.analysis[(row[0], tuple(row[1]))] = {"ansi": from_golden(row[2]), "legacy": from_golden(row[3])}
        else:  # [expression, ansi, legacy]
            space.outcomes[row[0]] = {"ansi": from_golden(row[1]), "legacy": from_golden(row[2])}
    return space


def write(space: Space, path: Path = GOLDEN) -> None:
    combos = ([f.name, list(t), to_golden(space.analysis[(f.name, t)]["ansi"]),
               to_golden(space.analysis[(f.name, t)]["legacy"])] for f, t in space.combos)
    outcomes = ([e, to_golden(o["ansi"]), to_golden(o["legacy"])] for e, o in space.outcomes.items())
    write_rows(path, itertools.chain(combos, outcomes))


# ---------------------------------------------------------------------------
# Recording (Spark)
# ---------------------------------------------------------------------------


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def record(spark, analysis: dict | None = None) -> Space:
    """Spark's answers over the space; `analysis` reuses the type combinations' analysis
    of an earlier recording (the combinations and Spark unchanged)."""
    from .spark_eval import Evaluator, mode

    space = Space(all_combos())
    ev = Evaluator(spark)
    if analysis is not None:
        space.analysis = {k: v for k, v in analysis.items()}
    else:
        analyze_combinations(space, spark, ev)
    wanted = expected_expressions(space)
    space.outcomes = {e: {m: None for m, _ in MODES} for e in wanted}
    for m, ansi in MODES:
        t0 = time.time()
        todo = [e for e, modes in wanted.items() if m in modes]
        with mode(spark, ansi):
            for start in range(0, len(todo), 1500):
                part = todo[start:start + 1500]
                for e, o in zip(part, ev.outcomes(part)):
                    space.outcomes[e][m] = o
                _log(f"{m}: {start + len(part)} of {len(todo)} expressions ({time.time() - t0:.0f} s, "
                     f"{ev.queries} queries)")
    return space


def analyze_combinations(space: Space, spark, ev) -> None:
    """Spark's analysis of each combination's representative, in each mode."""
    from .spark_eval import mode
    from .sparkfold_side import sparkfold_outcomes

    reps = [representative_sql(f, t) for f, t in space.combos]
    for m, ansi in MODES:
        t0 = time.time()
        # what sparkfold accepts Spark most likely does: those are asked in batches
        ours = sparkfold_outcomes(reps, ansi)
        likely = [o.kind != "rejected" and o.type not in ("unknown", "") for o in ours]
        with mode(spark, ansi):
            got = ev.types(reps, likely)
        for (f, t), o in zip(space.combos, got):
            space.analysis.setdefault((f.name, t), {})[m] = o
        _log(f"{m}: {sum('t' in o for o in got)} of {len(got)} type combinations analyze "
             f"({time.time() - t0:.0f} s, {ev.queries} queries)")


# ---------------------------------------------------------------------------
# Checking (no Spark)
# ---------------------------------------------------------------------------


@dataclass
class Report:
    checked: Counter = field(default_factory=Counter)      # mode -> expressions compared
    folded: Counter = field(default_factory=Counter)       # mode -> folded to a literal
    kept: Counter = field(default_factory=Counter)
    rejected: Counter = field(default_factory=Counter)
    spark_errors: Counter = field(default_factory=Counter)
    mismatches: list = field(default_factory=list)         # (class, mode, expr, Spark, sparkfold)

    def by_class(self) -> Counter:
        return Counter(c for c, *_ in self.mismatches)

    def summary(self) -> str:
        lines = []
        for m, _ in MODES:
            lines.append(f"{m}: {self.checked[m]} expressions, {self.folded[m]} folded, {self.kept[m]} kept, "
                         f"{self.rejected[m]} rejected; Spark raises on {self.spark_errors[m]}")
        lines.append(f"mismatches: {len(self.mismatches)} {dict(self.by_class())}")
        return "\n".join(lines)


def stale(space: Space) -> list[str]:
    """What the golden file lacks or holds beyond the space (it needs --regenerate)."""
    missing = [f"{f.name} {t}" for f, t in space.combos if (f.name, t) not in space.analysis]
    if missing:
        return missing[:20]
    wanted = expected_expressions(space)
    out = [e for e in wanted if e not in space.outcomes]
    out += [e for e in space.outcomes if e not in wanted]
    return out[:20]


def in_share(exprs: list[str], share: int) -> list[str]:
    """The expressions of one share of `share` (by a hash of the text; all for 1): the
    default test run checks one, SPARKFOLD_LONG=1 all.  The share is the day's (UTC), so
    that the runs of `share` days cover the whole space: a share fixed once for all left
    15 of 16 unchecked between long runs, where 5 disagreements waited (2026-11-29)."""
    if share <= 1:
        return exprs
    k = share_of_the_day(share)
    return [e for e in exprs if zlib.crc32(e.encode()) % share == k]


def share_of_the_day(share: int) -> int:
    import os
    from datetime import datetime, timezone

    fixed = os.environ.get("SPARKFOLD_ORACLE_SHARE")  # (to replay a day's share)
    return int(fixed) % share if fixed else datetime.now(timezone.utc).date().toordinal() % share


def check(space: Space, share: int = 1) -> Report:
    """sparkfold against the recorded outcomes (of every expression, or of one `share`),
    and the representatives of the combinations Spark rejects (sparkfold must not fold
    them)."""
    report = Report()
    exprs = in_share(list(space.outcomes), share)
    _compare_all(report, exprs, lambda e, m: space.outcomes[e][m], both_modes(exprs, MODES))
    rejected = {representative_sql(f, t): space.analysis[(f.name, t)] for f, t in space.combos
                if not all(space.accepted((f.name, t), m) for m, _ in MODES)}
    reps = in_share(list(rejected), share)
    _compare_all(report, reps, lambda e, m: rejected[e][m] if "e" in rejected[e][m] else None,
                 both_modes(reps, MODES))
    return report


# ---------------------------------------------------------------------------
# The disagreements not fixed yet (a ratchet)
# ---------------------------------------------------------------------------


def mismatch_keys(report: Report) -> set[tuple[str, str, str]]:
    return {(c, m, e) for c, m, e, _t, _o in report.mismatches}


def open_keys(path: Path = OPEN, share: int = 1) -> set[tuple[str, ...]]:
    """The disagreements listed as not fixed yet: (class, mode, expression)."""
    return {k for k in cli.read_open(path, 3) if in_share([k[2]], share)}


def write_open(report: Report, path: Path = OPEN) -> None:
    cli.write_open(mismatch_keys(report), path, "The folding oracle's", "class, mode, expression")


def _compare_all(report: Report, exprs: list[str], theirs_of, ours_by_mode) -> None:

    for m, _ in MODES:
        for e, o in zip(exprs, ours_by_mode[m]):
            theirs = theirs_of(e, m)
            if theirs is None:
                continue
            report.checked[m] += 1
            report.spark_errors[m] += "e" in theirs
            report.folded[m] += o.kind == "fold"
            report.kept[m] += o.kind == "kept"
            report.rejected[m] += o.kind == "rejected"
            c = compare(theirs, o)
            if c is not None:
                report.mismatches.append((c, m, e, theirs, o))


def same_outcome(golden: dict, got: dict) -> bool:
    from .sparkfold_side import same_value

    if "e" in golden or "e" in got:
        return golden.get("e") == got.get("e")
    return golden["t"] == got["t"] and same_value(got["v"], golden["v"], got["t"])


@dataclass
class LiveReport:
    compared: Counter = field(default_factory=Counter)     # (mode, what) -> expressions
    differences: list = field(default_factory=list)        # (what, mode, expr, golden, got)

    def summary(self) -> str:
        return f"compared {dict(self.compared)}; differences {len(self.differences)} " \
               f"{dict(Counter((w, m) for w, m, *_ in self.differences))}"


def live(spark, space: Space, exprs: list[str], dataframe: bool = True) -> LiveReport:
    """On Spark now: each expression (the golden file must still be Spark's answer), and
    what sparkfold makes of it, as SQL and as a DataFrame program, which must give the
    golden outcome (the same value and type, or the same error class)."""
    from .spark_eval import Evaluator, mode
    from .sparkfold_side import _catalog, column_sql, optimized

    report = LiveReport()
    ev = Evaluator(spark)
    for m, ansi in MODES:
        todo = [e for e in exprs if space.outcomes[e][m] is not None]
        cat = _catalog(ansi)
        with mode(spark, ansi):
            for e, o in zip(todo, ev.outcomes(todo)):
                report.compared[(m, "spark")] += 1
                if not same_outcome(space.outcomes[e][m], o):
                    report.differences.append(("spark", m, e, space.outcomes[e][m], o))
            for start in range(0, len(todo), 200):
                part = todo[start:start + 200]
                for e, written, o in _candidates(spark, ev, part, cat, optimized, column_sql, dataframe):
                    report.compared[(m, written)] += 1
                    if not same_outcome(space.outcomes[e][m], o):
                        report.differences.append((written, m, e, space.outcomes[e][m], o))
    return report


def _candidates(spark, ev, exprs, cat, optimized, column_sql, dataframe):
    """(expression, "sql" or "dataframe", Spark's outcome for sparkfold's output)."""
    r = optimized(exprs, cat)
    if isinstance(r, Exception) or r.passthrough is not None or column_sql(r) is None:
        if len(exprs) == 1:
            return  # rejected or passed through as it is: nothing of sparkfold's to run
        for e in exprs:
            yield from _candidates(spark, ev, [e], cat, optimized, column_sql, dataframe)
        return
    for e, o in zip(exprs, ev.outcomes(column_sql(r))):
        yield e, "sql", o
    if dataframe:
        yield from _dataframe_outcomes(spark, ev, exprs, r, cat, optimized)


def _dataframe_outcomes(spark, ev, exprs, r, cat, optimized):
    """The lowered DataFrame program's outcome for each column; where building the
    program raises (an expression Spark rejects), each half is built on its own."""
    from .spark_eval import condition_of

    try:
        df = r.to_dataframe(spark)
    except Exception as x:  # noqa: BLE001 - an error Spark raises building it is its outcome
        if len(exprs) == 1:
            yield exprs[0], "dataframe", {"e": condition_of(x)}
            return
        mid = len(exprs) // 2
        for half in (exprs[:mid], exprs[mid:]):
            again = optimized(half, cat)
            if not isinstance(again, Exception) and again.passthrough is None:
                yield from _dataframe_outcomes(spark, ev, half, again, cat, optimized)
        return
    for e, o in zip(exprs, ev.frame(df)):
        yield e, "dataframe", o


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--regenerate", action="store_true", help="ask Spark and write the golden file")
    ap.add_argument("--check", action="store_true", help="compare sparkfold with the golden file")
    ap.add_argument("--keep-analysis", action="store_true",
                    help="with --regenerate: reuse the golden file's analysis of the type combinations")
    ap.add_argument("--write-open", action="store_true", help=f"list today's disagreements in {OPEN.name}")
    ap.add_argument("--share", type=int, default=1, help="check one share of this many (as the default test run)")
    ap.add_argument("--show", type=int, default=40, help="mismatches to print")
    args = ap.parse_args(argv)
    if args.regenerate:
        from .session import spark_session

        t0 = time.time()
        analysis = load().analysis if args.keep_analysis else None
        space = record(spark_session(), analysis)
        write(space)
        _log(f"wrote {GOLDEN} ({len(space.combos)} combinations, {len(space.outcomes)} expressions) "
             f"in {time.time() - t0:.0f} s")
    if args.check or args.write_open or not args.regenerate:
        space = load()
        if (problems := stale(space)):
            _log("the golden file is stale, run with --regenerate: " + "; ".join(problems[:5]))
            return 2
        t0, c0 = time.time(), time.process_time()
        report = check(space, args.share)
        print(report.summary())
        print(f"({time.time() - t0:.1f} s, {time.process_time() - c0:.1f} s of CPU)")
        for c, m, e, theirs, o in report.mismatches[:args.show]:
            print(f"[{c}] {m}: {e}\n    Spark {to_golden(theirs)}; sparkfold {o.kind} {o.type} {o.value!r} {o.detail}")
        if args.write_open:
            write_open(report)
        return 1 if report.mismatches else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
