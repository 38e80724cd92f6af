"""Check the corpus on Spark: original against rewritten, SQL and DataFrame.

    python -m tests.corpus.run [--sample N] [--only PREFIX]... [--no-dataframe] [--ansi-off] [--out FILE.jsonl]
    python -m tests.corpus.run --clients [FILE] [--no-spark] ...

The corpus is sqlglot's optimizer fixtures, or with `--clients` the statements real
clients sent to Spark (splink, ibis, dbt: tests/corpus/clients/statements.jsonl), each
over the tables and settings it was captured with; `--no-spark` gives sparkfold's
status of each without Spark (no comparison).

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
    ap.add_argument("--clients", nargs="?", const="", default=None, metavar="FILE",
                    help="the clients' statements (tests/corpus/clients/statements.jsonl by default)")
    ap.add_argument("--no-spark", action="store_true", help="with --clients: sparkfold's status only, no Spark")
    args = ap.parse_args(argv)
    if args.clients is not None:
        return _clients(args)

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
    return _report(outcomes, s, dataframe=not args.no_dataframe)


def _report(outcomes, s: dict, dataframe: bool = True, compared: bool = True) -> int:
    """The summary's lines (stdout), then every failure; 1 when there is one."""
    print(f"  rewritten {s['rewritten']}, unchanged {s['unchanged']}, passed through {s['passthrough']} "
          f"({100 * s['passthrough_share']:.1f}%), rejected {s['rejected']}, internal failures {s['bugs']}")
    for reason, n in s["passthrough_reasons"].items():
        print(f"    passed through: {n} x {reason}")
    if not compared:
        bad = [o for o in outcomes if o.status in ("rejected", "bug")]
        _failures(bad)
        return 1 if bad else 0
    print(f"  optimized SQL: {s['compared']} compared on Spark, {s['wrong_sql']} wrong "
          f"({s['wrong_sql_nullability_only']} in nullability only; "
          f"{s['nondeterministic']} non-deterministic, not compared)")
    if dataframe:
        print(f"  DataFrame: {s['dataframe_compared']} compared, {s['wrong_dataframe']} wrong "
              f"({s['wrong_dataframe_nullability_only']} in nullability only), "
              f"{s['lowering_failed']} failed to lower, {s['dataframe_text_fallback']} with a SQL-text part")
    print(f"  reach: outer joins removed: Catalyst {s['catalyst_outer_joins_removed']}, sparkfold "
          f"{s['sparkfold_outer_joins_removed']}; folded to an empty relation: Catalyst {s['catalyst_empty']}, "
          f"sparkfold {s['sparkfold_empty']}")
    bad = [o for o in outcomes if o.status in ("rejected", "bug") or o.sql_verdict == "wrong"
           or o.df_verdict in ("wrong", "lowering-failed")]
    _failures(bad)
    return 1 if bad else 0


def _failures(bad) -> None:
    for o in bad:
        print(f"\n[{o.status}{' / SQL ' + o.sql_verdict if o.sql_verdict else ''}"
              f"{' / DataFrame ' + o.df_verdict if o.df_verdict else ''}] {o.name}\n  {o.sql}")
        if o.detail:
            print(f"  {o.detail}")
        if o.report:
            print("  " + o.report.replace("\n", "\n  "))


def _clients(args) -> int:
    """The clients' statements: per client, then all of them."""
    from .check import summary
    from .clients import check as clients_check
    from .clients.source import statements

    sts = statements(args.clients or None)
    if args.only:
        sts = [s for s in sts if s.name.startswith(tuple(args.only))]
    sts = sample(sts, args.sample)
    print(f"corpus: {len(sts)} statements (clients: tests/corpus/clients)", file=sys.stderr)
    if args.no_spark:
        outcomes = clients_check.without_spark(sts)
    else:
        from tests.oracles.session import spark_session

        spark = spark_session()
        t0 = time.time()

        def progress(done, total):
            print(f"\r  {done}/{total} checked, {time.time() - t0:.0f} s", end="", file=sys.stderr, flush=True)

        sink = open(args.out, "w", encoding="utf-8") if args.out else None

        def done(outs):  # each batch as it is checked: a run cut short keeps what it did
            for o in outs:
                sink.write(json.dumps(asdict(o)) + "\n")
            sink.flush()

        try:
            outcomes = clients_check.on_spark(spark, sts, compare=not args.no_compare,
                                              dataframe=not args.no_dataframe, progress=progress,
                                              done=done if sink else None)
        finally:
            if sink:
                sink.close()
        print(file=sys.stderr)
    if args.out and args.no_spark:
        with open(args.out, "w", encoding="utf-8") as f:
            for o in outcomes:
                f.write(json.dumps(asdict(o)) + "\n")
    sends = {st.name: st.sends for st in sts}
    rc = 0
    for client in sorted({st.client for st in sts}) + ["all"]:
        mine = [o for o in outcomes if client == "all" or o.name.startswith(client + ":")]
        s = summary(mine)
        print(f"{client}: {s['statements']} distinct statements ({sum(sends[o.name] for o in mine)} sent), "
              f"{s['no_query']} hold no query, Spark accepts {s['accepted']} queries "
              f"({s['spark_rejects']} it rejects are left out)")
        if client == "all" or len({st.client for st in sts}) == 1:
            rc = _report(mine, s, dataframe=not args.no_dataframe, compared=not (args.no_spark or args.no_compare))
        else:
            _summary_lines(s)
    return rc


def _summary_lines(s: dict) -> None:
    print(f"  rewritten {s['rewritten']}, unchanged {s['unchanged']}, passed through {s['passthrough']} "
          f"({100 * s['passthrough_share']:.1f}%), rejected {s['rejected']}, internal failures {s['bugs']}; "
          f"wrong: SQL {s['wrong_sql']}, DataFrame {s['wrong_dataframe']}")
    for reason, n in s["passthrough_reasons"].items():
        print(f"    passed through: {n} x {reason}")


if __name__ == "__main__":
    sys.exit(main())
