"""Check the corpus on Spark: original against rewritten, SQL and DataFrame.

    python -m tests.corpus.run [--sample N] [--only PREFIX]... [--no-dataframe] [--ansi-off] [--out FILE.jsonl]

Progress goes to stderr; the summary (pass-through share, rejections, wrong results,
Catalyst's reach against sparkfold's) and every failure go to stdout.  Exit 1 when a
result is wrong, a statement Spark accepts is rejected, or sparkfold fails inside.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from dataclasses import asdict


def sample(statements, n: int | None):
    """Every k-th statement, so that a sample spreads over every fixture file."""
    if not n or n >= len(statements):
        return statements
    step = len(statements) / n
    return [statements[int(i * step)] for i in range(n)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, help="check only N statements, spread over the corpus")
    ap.add_argument("--only", action="append",
                    help="only statements whose name starts with this (e.g. simplify: or simplify:239:in); repeatable")
    ap.add_argument("--no-dataframe", action="store_true", help="skip the lowered DataFrame candidate")
    ap.add_argument("--no-compare", action="store_true",
                    help="only Spark's analysis and sparkfold (reach, rejections, pass-through): no query runs")
    ap.add_argument("--regenerate", action="store_true",
                    help="no rules: write every analyzed query back as SQL and compare that (checks the "
                         "analysis and the writer on every statement)")
    ap.add_argument("--ansi-off", action="store_true",
                    help="run with spark.sql.ansi.enabled=false (as dbt-spark sessions do), sparkfold told so")
    ap.add_argument("--out", help="write every outcome as JSON lines here")
    args = ap.parse_args(argv)

    from tests.fuzz.run import spark_session

    from .check import check, summary
    from .source import statements

    sts = statements()
    if args.only:
        sts = [s for s in sts if s.name.startswith(tuple(args.only))]
    sts = sample(sts, args.sample)
    print(f"corpus: {len(sts)} statements (sqlglot's optimizer fixtures)", file=sys.stderr)
    for name in ("DataFrameQueryContextLogger", "SQLQueryContextLogger", "py4j"):
        logging.getLogger(name).setLevel(logging.CRITICAL)  # Spark's errors are results here
    spark = spark_session()
    t0 = time.time()

    def progress(done, total):
        print(f"\r  {done}/{total} checked, {time.time() - t0:.0f} s", end="", file=sys.stderr, flush=True)

    outcomes = check(spark, sts, compare=not args.no_compare, dataframe=not args.no_dataframe,
                     regenerate=args.regenerate, ansi=not args.ansi_off, progress=progress)
    print(file=sys.stderr)
    s = summary(outcomes)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            for o in outcomes:
                f.write(json.dumps(asdict(o)) + "\n")
    print(f"statements: {s['statements']}, Spark accepts {s['accepted']} "
          f"({s['spark_rejects']} are not Spark SQL and are left out)")
    print(f"  rewritten {s['rewritten']}, unchanged {s['unchanged']}, passed through {s['passthrough']} "
          f"({100 * s['passthrough_share']:.1f}%), rejected {s['rejected']}, internal failures {s['bugs']}")
    print(f"  optimized SQL: {s['compared']} compared on Spark, {s['wrong_sql']} wrong "
          f"({s['wrong_sql_nullability_only']} in nullability only; "
          f"{s['nondeterministic']} non-deterministic, not compared)")
    if not args.no_dataframe:
        print(f"  DataFrame: {s['dataframe_compared']} compared, {s['wrong_dataframe']} wrong "
              f"({s['wrong_dataframe_nullability_only']} in nullability only), "
              f"{s['lowering_failed']} failed to lower, {s['dataframe_text_fallback']} with a SQL-text part")
    print(f"  reach: outer joins removed: Catalyst {s['catalyst_outer_joins_removed']}, sparkfold "
          f"{s['sparkfold_outer_joins_removed']}; folded to an empty relation: Catalyst {s['catalyst_empty']}, "
          f"sparkfold {s['sparkfold_empty']}")
    bad = [o for o in outcomes if o.status in ("rejected", "bug") or o.sql_verdict == "wrong"
           or o.df_verdict in ("wrong", "lowering-failed")]
    for o in bad:
        print(f"\n[{o.status}{' / SQL ' + o.sql_verdict if o.sql_verdict else ''}"
              f"{' / DataFrame ' + o.df_verdict if o.df_verdict else ''}] {o.name}\n  {o.sql}")
        if o.detail:
            print(f"  {o.detail}")
        if o.report:
            print("  " + o.report.replace("\n", "\n  "))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
