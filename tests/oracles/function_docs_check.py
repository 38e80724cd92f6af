"""Check sparkfold on Spark's function documentation (`function_docs`): every example and
arity mutation, original against every text sparkfold writes for it.

    python -m tests.oracles.function_docs_check [--sample N] [--only FUNCTION]... [--part K/N] [--mode ansi|legacy]

`--part K/N` checks the K-th of N parts of about the same number of cases, whole
functions in the registry's order, so that the whole corpus can be run in short runs.

Each case is optimized three ways: as users get it (`spliced SQL`, the input's text with
the rewrites applied), written whole from the optimized plan (`regenerated SQL`, what
`--regenerate` and a failed splice give) and written whole with no rule run (`written
SQL`: the writer's text for every call as analyzed, before any fold hides it); the
optimized and the unoptimized plans are also lowered to DataFrame programs.  Each
candidate runs on Spark against the original (`optimizer.verify`): column names, types,
rows, and the error class when Spark raises one.  A case sparkfold rejects itself keeps
Spark's error only when Spark's analysis rejects it too; rejecting a query Spark runs is a
rejection.  Progress goes to stderr; the counts by outcome, and every failure, to stdout.
Exit 1 on any failure.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

from sparkfold.optimizer.verify import base_type, schema_differences

from .function_docs import EXAMPLE, MODES, case_id, catalog, load, settings_applied

SPLICED, REGENERATED, WRITTEN = "spliced SQL", "regenerated SQL", "written SQL"
DATAFRAME, WRITTEN_DATAFRAME = "DataFrame", "unoptimized DataFrame"
CANDIDATES = (SPLICED, REGENERATED, WRITTEN, DATAFRAME, WRITTEN_DATAFRAME)

# a candidate's verdicts that are failures (nullability is item 5's, counted apart)
FAILURES = frozenset({"names", "types", "rows", "error-dropped", "error-made", "error-class",
                      "lowering-failed", "columns"})


@dataclass
class Outcome:
    case: dict
    mode: str
    status: str = ""        # checked | passthrough | kept-error | rejected | bug
    detail: str = ""
    verdicts: dict[str, str] = field(default_factory=dict)    # candidate -> verdict
    texts: dict[str, str] = field(default_factory=dict)       # candidate -> its text
    reports: dict[str, str] = field(default_factory=dict)     # candidate -> what differs

    @property
    def failed(self) -> bool:
        return self.status in ("rejected", "bug") or any(v in FAILURES for v in self.verdicts.values())

    def to_text(self) -> str:
        c = self.case
        out = [f"[{self.mode}] {case_id(c)}: {self.status}"
               + (f" ({self.detail})" if self.detail else "") + f"\n  {c['sql']}"]
        if c["settings"]:
            out.append(f"  settings: {c['settings']}")
        for name, verdict in self.verdicts.items():
            if verdict in FAILURES or verdict == "nullability":
                out.append(f"  {name}: {verdict}: {self.reports.get(name, '')}")
                text = self.texts.get(name, "")
                out.append("    " + text.strip().replace("\n", "\n    "))
        return "\n".join(out)


def _analysis_error(answer: dict) -> bool:
    return "error" in answer and answer.get("phase") == "analysis"


def _kept_error(e, answer: dict) -> str:
    """The status of a case sparkfold rejects: `kept-error` when Spark's analysis rejects
    it too, `kept-error as a syntax error` when sparkfold's parser does without Spark's
    class (sqlglot's grammar is stricter than Spark's), `rejected` otherwise (Spark runs
    it, or sparkfold names another class than Spark's)."""
    if not _analysis_error(answer):
        return "rejected"
    ours = getattr(e, "error_class", None)
    if ours is not None and ours != answer["error"]:
        return "rejected"
    from sparkfold.optimizer.errors import ParseError

    if isinstance(e, ParseError) and ours is None and answer["error"] != "PARSE_SYNTAX_ERROR":
        return "kept-error as a syntax error"
    return "kept-error"


def optimize_three_ways(sql: str, catalog):
    """(as users get it, written whole, written whole with no rule run)."""
    from sparkfold import optimize

    return (optimize(sql, catalog), optimize(sql, catalog, always_regenerate=True),
            optimize(sql, catalog, rules=[], always_regenerate=True))


def _error_class(error: str) -> str:
    """Spark's error class; a JVM exception without one (`IllegalArgumentException`, a
    task's `org.apache.spark.SparkException` around it) is one class: which wrapper it
    comes in depends on where the optimizer evaluated the call, in a task or in planning."""
    return error if error.split(".")[0].isupper() else "(a JVM exception without an error class)"


def _verdict(ref, side, deterministic: bool, comparison) -> tuple[str, str]:
    """(verdict, what differs) of one candidate side against the reference side."""
    if side.method == "same text as the original":
        return "same-text", ""
    if ref.error or side.error:
        if ref.error and side.error:
            if _error_class(ref.error) == _error_class(side.error):
                return "equal", ""
            return "error-class", f"Spark raises {ref.error}, the candidate {side.error}"
        if ref.error:
            return "error-dropped", f"Spark raises {ref.error}; the candidate does not"
        return "error-made", f"the candidate raises {side.error}: {(side.error_message or '')[:300]}"
    if ref.schema is None or side.schema is None or len(ref.schema) != len(side.schema):
        return "columns", f"{ref.schema} against {side.schema}"
    # the worst difference first: rows, then types, then names
    if deterministic and not comparison.rows_equal:
        return "rows", comparison.detail + "".join(
            f"; only in {w}: {rows[:3]}" for w, rows in (("Spark", comparison.only_in_reference),
                                                        ("the candidate", comparison.only_in_candidate)) if rows)
    # (a schema's types carry their nullability, `verify.schema_of`: compared last)
    if [base_type(t) for _, t in ref.schema] != [base_type(t) for _, t in side.schema]:
        return "types", f"{ref.schema} against {side.schema}"
    if [n for n, _ in ref.schema] != [n for n, _ in side.schema]:
        return "names", f"{[n for n, _ in ref.schema]} against {[n for n, _ in side.schema]}"
    if ref.schema != side.schema:
        return "nullability", "; ".join(schema_differences(ref.schema, side.schema))
    return "equal", ""


def check(spark, cases: list[dict], mode: str = "ansi", *, progress=None, chunk: int = 30) -> list[Outcome]:
    """Check the cases in one mode (the session's ANSI setting is set, and each case's
    settings around it)."""
    from sparkfold.optimizer.errors import InternalError, SparkfoldError
    from sparkfold.optimizer.verify import _nondeterministic, reads_clock, verify_many
    from sparkfold.plans.pyspark.to_pyspark import to_pyspark_code
    groups: dict[tuple, list[dict]] = {}
    for c in cases:
        groups.setdefault(tuple(sorted(c["settings"].items())), []).append(c)
    outcomes: list[Outcome] = []
    done = 0
    for settings, group in groups.items():
        schema = catalog(mode, dict(settings))
        with settings_applied(spark, {"spark.sql.ansi.enabled": MODES[mode], **dict(settings)}):
            for start in range(0, len(group), chunk):
                pending = []
                for c in group[start:start + chunk]:
                    out = Outcome(c, mode)
                    outcomes.append(out)
                    answer = c["answers"][mode]
                    try:
                        results = optimize_three_ways(c["sql"], schema)
                    except InternalError as e:
                        out.status, out.detail = "bug", str(e)[:300]
                        continue
                    except SparkfoldError as e:
                        out.status = _kept_error(e, answer)
                        out.detail = str(e).splitlines()[0][:300]
                        continue
                    except Exception as e:  # noqa: BLE001 - anything else escaping optimize() is a bug
                        out.status, out.detail = "bug", f"{type(e).__name__}: {e}"[:300]
                        continue
                    normal = results[0]
                    if normal.passthrough:
                        out.status, out.detail = "passthrough", normal.passthrough
                        continue
                    out.status = "checked"
                    lowered = []
                    for r in (normal, results[2]):
                        try:
                            lowered.append(to_pyspark_code(r, header=False))
                        except Exception as e:  # noqa: BLE001 - a lowering failure is a verdict
                            lowered.append(e)
                    deterministic = not (answer.get("nondeterministic") or _nondeterministic(normal.analyzed)
                                         or reads_clock(c["sql"]))
                    pending.append((out, results, lowered, deterministic))
                if pending:
                    reports = verify_many([r for _, results, _, _ in pending for r in results], spark, timed=False)
                    for i, (out, results, lowered, deterministic) in enumerate(pending):
                        normal, regenerated, written = reports[3 * i:3 * i + 3]
                        for name, rep, kind, code in ((SPLICED, normal, "optimized SQL", None),
                                                      (REGENERATED, regenerated, "optimized SQL", None),
                                                      (WRITTEN, written, "optimized SQL", None),
                                                      (DATAFRAME, normal, "DataFrame", lowered[0]),
                                                      (WRITTEN_DATAFRAME, written, "DataFrame", lowered[1])):
                            side = next(s for s in rep.candidates if s.name == kind)
                            if isinstance(code, Exception):
                                out.verdicts[name] = "lowering-failed"
                                out.reports[name] = f"{type(code).__name__}: {code}"[:300]
                                continue
                            out.texts[name] = side.text
                            out.verdicts[name], out.reports[name] = _verdict(
                                rep.reference, side, deterministic, rep.comparison(kind))
                done += len(group[start:start + chunk])
                if progress:
                    progress(done, len(cases))
    return outcomes


def summary(outcomes: list[Outcome]) -> str:
    """Counts by outcome: cases by status, pass-throughs by reason, each candidate's verdicts."""
    lines = []
    by_mode: dict[str, list[Outcome]] = {}
    for o in outcomes:
        by_mode.setdefault(o.mode, []).append(o)
    for mode, outs in by_mode.items():
        examples = [o for o in outs if o.case["kind"] == EXAMPLE]
        mutations = [o for o in outs if o.case["kind"] != EXAMPLE]
        lines.append(f"{mode}: {len({o.case['function'] for o in outs})} functions, {len(examples)} examples, "
                     f"{len(mutations)} arity mutations")
        for label, group in (("examples", examples), ("arity mutations", mutations)):
            if not group:
                continue
            spark_errors = sum("error" in o.case["answers"][mode] for o in group)
            status = Counter(o.status for o in group)
            lines.append(f"  {label}: {len(group)}, Spark raises on {spark_errors}: "
                         + ", ".join(f"{k} {v}" for k, v in sorted(status.items())))
            reasons = Counter(o.detail for o in group if o.status == "passthrough")
            for reason, n in reasons.most_common():
                lines.append(f"    passed through ({n}): {reason}")
            for name in CANDIDATES:
                verdicts = Counter(o.verdicts[name] for o in group if name in o.verdicts)
                if verdicts:
                    lines.append(f"    {name}: " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))
        failed = sum(o.failed for o in outs)
        lines.append(f"  failures: {failed} cases")
    return "\n".join(lines)


def spread(cases: list[dict], n: int | None) -> list[dict]:
    """Every k-th case, so that a sample spreads over the functions and kinds."""
    if not n or n >= len(cases):
        return cases
    step = len(cases) / n
    return [cases[int(i * step)] for i in range(n)]


def part(cases: list[dict], k: int, n: int) -> list[dict]:
    """The k-th (1-based) of n parts of the cases, whole functions in their order, each
    of about the same number of cases."""
    sizes: dict[str, int] = {}
    for c in cases:
        sizes[c["function"]] = sizes.get(c["function"], 0) + 1
    chosen, before = set(), 0
    for function, size in sizes.items():
        if before * n // len(cases) == k - 1:
            chosen.add(function)
        before += size
    return [c for c in cases if c["function"] in chosen]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, help="check only N cases, spread over the corpus")
    ap.add_argument("--only", action="append", help="only this function's cases (repeatable)")
    ap.add_argument("--part", help="K/N: only the K-th of N parts of the corpus (whole functions)")
    ap.add_argument("--mode", action="append", choices=sorted(MODES), help="ansi, legacy (default: both)")
    ap.add_argument("--failures", action="store_true", help="print every failure")
    ap.add_argument("--out", help="write every outcome as JSON lines here")
    args = ap.parse_args(argv)

    from .session import spark_session

    cases = load()
    if args.only:
        cases = [c for c in cases if c["function"] in args.only]
    if args.part:
        k, n = (int(x) for x in args.part.split("/"))
        cases = part(cases, k, n)
    cases = spread(cases, args.sample)
    spark = spark_session()
    t0 = time.time()
    outcomes = []
    for mode in args.mode or ("ansi", "legacy"):
        def progress(done, total):
            print(f"\r  {mode}: {done}/{total} checked, {time.time() - t0:.0f} s", end="", file=sys.stderr,
                  flush=True)

        outcomes += check(spark, cases, mode, progress=progress)
        print(file=sys.stderr)
    print(summary(outcomes))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            for o in outcomes:
                f.write(json.dumps({"id": case_id(o.case), "mode": o.mode, "sql": o.case["sql"], "status": o.status,
                                    "detail": o.detail, "verdicts": o.verdicts, "texts": o.texts,
                                    "reports": o.reports}) + "\n")
    bad = [o for o in outcomes if o.failed]
    if args.failures:
        for o in bad:
            print("\n" + o.to_text())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
