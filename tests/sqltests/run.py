"""Check Apache Spark's SQLQueryTestSuite files on Spark: original against sparkfold.

    python -m tests.sqltests.run [--files NAME ...] [--dir DIR] [--sample N] [--all-configs]
                                 [--no-dataframe] [--no-whole] [--out FILE.jsonl] [--json FILE]

NAME is a file or a folder relative to the tree (`having.sql`, `subquery/in-subquery`);
DIR a tree of such files (default: tests/sqltests/inputs, the measured set).  Progress goes
to stderr; the counts and every failure to stdout.  Exit 1 when a result is wrong on any
path, a query Spark accepts is rejected, sparkfold fails inside, or a program fails to
lower, other than the failures known on the measured set (known_failures.txt), or when a
known one no longer fails (the list is then out of date).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path


def spark_session(warehouse: str):
    """A local session with a warehouse of its own (the files create tables and databases)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from tests.fuzz.oracles import FAST_CONF
    from tests.oracles.session import quiet

    quiet()
    b = (SparkSession.builder.master("local[2]").appName("sparkfold-sqltests")
         .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
         .config("spark.default.parallelism", "2")
         .config("spark.sql.session.timeZone", "America/Los_Angeles")
         .config("spark.driver.memory", "2g").config("spark.sql.adaptive.enabled", "false")
         .config("spark.sql.warehouse.dir", warehouse))
    for k, v in FAST_CONF.items():  # small data: no code generation, one shuffle partition
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("OFF")
    return spark


def check_files(spark, tests, *, all_configs=False, dataframe=True, whole=True, progress=None):
    from .check import run_file

    runs = []
    todo = [(t, c) for t in tests for c in t.config_sets(all_configs)]
    t0 = time.time()
    for k, (t, config) in enumerate(todo):
        runs.append(run_file(spark, t, config, dataframe=dataframe, whole=whole))
        if progress:
            progress(k + 1, len(todo), t.name, time.time() - t0)
    return runs


def print_summary(s: dict, title: str, out=sys.stdout) -> None:
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p(f"{title}: {s['files']} files, {s['runs']} runs; {s['statements']} statements, "
      f"{s['commands']} commands ({s['command_errors']} raised), {s['queries']} queries")
    p(f"  Spark accepts {s['spark_accepts']}; rejects {s['spark_rejects']} "
      f"(sparkfold rejects {s['spark_rejects_sparkfold_too']} of them too; the others are compared: errors must survive)")
    share = 100 * s['passthrough'] / s['spark_accepts'] if s['spark_accepts'] else 0.0
    p(f"  of those Spark accepts: rewritten {s['rewritten']}, unchanged {s['unchanged']}, passed through whole "
      f"{s['passthrough']} ({share:.1f}%), rejected {s['rejected']}; internal failures {s['bugs']}")
    for reason, n in s["passthrough_reasons"].items():
        p(f"    passed through ({n}): {reason}")
    p(f"  SQL path: {s['compared']} compared, {s['wrong_sql']} wrong ({s['nondeterministic']} non-deterministic, "
      f"not compared); written whole: {s['wrong_whole_sql']} wrong, {s['whole_sql_bugs']} failed to write")
    p(f"  DataFrame path: {s['dataframe_compared']} compared, {s['wrong_dataframe']} disagree, "
      f"{s['lowering_failed']} failed to lower; programs with SQL text: {s['dataframe_sql_text']} run a part "
      f"with spark.sql, {s['dataframe_expr_text']} an expression with F.expr/selectExpr")
    for reason, n in s.get("dataframe_text_reasons", {}).items():
        p(f"    programs with SQL text ({n}): {reason}")
    p(f"  schema nullability differs (names and types equal): {dict(s['nullability_differs'])} "
      f"({s['nullability_differs_rewritten']} rewritten queries); both raise but another error class: "
      f"{dict(s['error_class_differs'])}")
    if s.get("error_class_spark_inconsistent"):
        p(f"  another error class, Spark's own (it raises the candidate's for the original text with its whole "
          f"optimizer, the original's with the rules sparkfold implements excluded): "
          f"{dict(s['error_class_spark_inconsistent'])}")
    if s["spark_inconsistent"]:
        p(f"  Spark disagrees with itself (the original's rows with the rules sparkfold implements excluded differ "
          f"from its rows with the whole optimizer, which the candidate gives): {dict(s['spark_inconsistent'])}")
    p(f"  reach: outer joins removed: Catalyst {s['catalyst_outer_joins_removed']}, sparkfold "
      f"{s['sparkfold_outer_joins_removed']}; folded to an empty relation: Catalyst {s['catalyst_empty']}, "
      f"sparkfold {s['sparkfold_empty']}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", nargs="+", help="files or folders relative to the tree")
    ap.add_argument("--dir", help="the tree of input files (default: the measured set in tests/sqltests/inputs)")
    ap.add_argument("--sample", type=int, help="only N files, spread over the tree")
    ap.add_argument("--all-configs", action="store_true",
                    help="run every combination of --CONFIG_DIM values (by default a dimension of "
                         "execution-only settings runs its first value)")
    ap.add_argument("--no-dataframe", action="store_true", help="skip the DataFrame program")
    ap.add_argument("--no-whole", action="store_true", help="skip the query written whole from its plan")
    ap.add_argument("--out", help="write every query's outcome as JSON lines here")
    ap.add_argument("--json", help="write the counts as JSON here")
    args = ap.parse_args(argv)

    from .check import summary
    from .known import compare, load
    from .source import INPUTS, files, spread

    root = Path(args.dir) if args.dir else INPUTS
    tests = files(root, args.files)
    if args.sample:
        tests = spread(tests, args.sample)
    if not tests:
        print(f"no input files under {root}" + (f" named {' '.join(args.files)}" if args.files else ""),
              file=sys.stderr)
        return 2
    print(f"sql-tests: {len(tests)} files under {root}", file=sys.stderr)
    warehouse = tempfile.mkdtemp(prefix="sparkfold-sqltests-")
    try:
        spark = spark_session(warehouse)

        def progress(done, total, name, secs):
            print(f"\r  {done}/{total} runs, {secs:.0f} s: {name[:60]:<60}", end="", file=sys.stderr, flush=True)

        runs = check_files(spark, tests, all_configs=args.all_configs, dataframe=not args.no_dataframe,
                           whole=not args.no_whole, progress=progress)
        print(file=sys.stderr)
    finally:
        shutil.rmtree(warehouse, ignore_errors=True)
    outcomes = [o for r in runs for o in r.outcomes]
    s = summary(outcomes, runs)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            for o in outcomes:
                f.write(json.dumps(asdict(o)) + "\n")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(s, f, indent=1, default=dict)
    print_summary(s, f"sql-tests ({root})")
    # on the measured set, the failures known (known_failures.txt) are told apart
    new, stale = compare(outcomes, load() if root == INPUTS else {})
    known = sum(bool(o.failures) for o in outcomes) - len(new)
    print(f"  failures: {len(new)} {'new' if root == INPUTS else ''}"
          + (f", {known} known (tests/sqltests/known_failures.txt), {len(stale)} known ones fixed" if root == INPUTS
             else ""))
    for line in stale:
        print(f"  fixed (remove it from known_failures.txt): {line}")
    for o in new:
        print(f"\n[{', '.join(o.failures)}] {o.name} (Spark: {o.spark})\n  {o.sql}")
        if o.detail:
            print(f"  {o.detail}")
        if o.report:
            print("  " + o.report.strip().replace("\n", "\n  "))
    return 1 if new or stale else 0


if __name__ == "__main__":
    sys.exit(main())
