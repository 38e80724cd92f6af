"""The clients' statements through sparkfold: each one's status against the catalog
recorded with it, and the counts per client (tests/corpus/check.py's outcomes).

    python -m tests.corpus.clients.check [--file statements.jsonl] [--only CLIENT]...   # no Spark
    python -m tests.corpus.run --clients [FILE]                                         # on Spark

A statement that holds no query (SHOW, DESCRIBE, DROP...) is `no-query`; one whose
query Spark rejected when the client sent it is `spark-rejects` (left out of the
measure); else its query (a `CREATE TABLE ... AS` statement's is the query it wraps,
which is what the hook optimizes) is rewritten, unchanged, passed through (with its
reason), rejected, or an internal failure (`bug`).  Printed per client: the counts, the
share of queries passed through whole and its reasons, and every rejection or failure;
exit 1 when there is one.  On Spark (`on_spark`) each query is analyzed first, over the
tables it was captured with, filled with generated rows (source.SparkWorld), and every
query sparkfold optimizes is compared with its optimized SQL and DataFrame program."""

from __future__ import annotations

import argparse
import sys
import tempfile

from ..check import Outcome, _catalyst_reach, compare_on_spark, run_sparkfold, summary
from .source import ClientStatement, SparkWorld, ansi, catalog, statements


def status_of(st: ClientStatement) -> Outcome:
    """sparkfold's status of one statement, against the catalog recorded with it."""
    if st.query is None:
        return Outcome(st.name, st.sql, "no-query")
    if st.spark_accepts is False:
        return Outcome(st.name, st.query, "spark-rejects")
    out = Outcome(st.name, st.query, "")
    run_sparkfold(out, st.query, catalog(st))
    return out


def without_spark(sts: list[ClientStatement]) -> list[Outcome]:
    return [status_of(st) for st in sts]


def on_spark(spark, sts: list[ClientStatement], *, compare: bool = True, dataframe: bool = True,
             batch: int = 20, progress=None, done=None) -> list[Outcome]:
    """Each statement's outcome with Spark: analyzed, optimized, and (`compare`) its
    optimized SQL and DataFrame program against the original, in batches of statements
    that share one world (a table registered again, or another setting, ends a batch).
    `done(outcomes)` is told the outcomes of each batch once they are final (a long run
    cut short keeps what it checked)."""
    outcomes: list[Outcome] = []
    pending: list = []
    conf_now: dict = {}
    told = [0]
    kept = {k: spark.conf.get(k, None) for k in {k for st in sts for k in st.conf}
            | {"spark.sql.ansi.enabled"}}

    def flush():
        if pending and compare:
            compare_on_spark(spark, pending, dataframe)
        pending.clear()
        if done is not None and told[0] < len(outcomes):
            done(outcomes[told[0]:])
            told[0] = len(outcomes)

    with tempfile.TemporaryDirectory() as scratch:
        world = SparkWorld(spark, scratch)
        try:
            for i, st in enumerate(sts):
                if st.query is None:
                    outcomes.append(Outcome(st.name, st.sql, "no-query"))
                    continue
                conf = {"spark.sql.ansi.enabled": str(ansi(st)).lower(), **st.conf}
                if conf != conf_now or world.changes(st):
                    flush()
                    for k, v in conf.items():
                        spark.conf.set(k, v)
                    for k in set(conf_now) - set(conf):
                        if kept.get(k) is not None:
                            spark.conf.set(k, kept[k])
                    conf_now = conf
                world.use(st)
                try:
                    df = spark.sql(st.query)
                except Exception as e:  # noqa: BLE001 - Spark's analysis error: not in the measure
                    text = str(e).strip()
                    outcomes.append(Outcome(st.name, st.query, "spark-rejects",
                                            text.splitlines()[0][:200] if text else type(e).__name__))
                    continue
                out = Outcome(st.name, st.query, "")
                out.catalyst_outer_removed, out.catalyst_empty = _catalyst_reach(df)
                result = run_sparkfold(out, st.query, catalog(st))
                if result is not None:
                    pending.append((out, result))
                outcomes.append(out)
                if len(pending) >= batch:
                    flush()
                if progress:
                    progress(i + 1, len(sts))
            flush()
        finally:
            for k, v in kept.items():
                if v is not None:
                    spark.conf.set(k, v)
            world.drop()
    return outcomes


def main(argv=None) -> int:
    """Without Spark (`python -m tests.corpus.run --clients` runs them on Spark)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", help="the captured statements (tests/corpus/clients/statements.jsonl)")
    ap.add_argument("--only", action="append", help="only this client's statements; repeatable")
    args = ap.parse_args(argv)
    sts = [st for st in statements(args.file) if not args.only or st.client in args.only]
    outcomes = without_spark(sts)
    sends = {st.name: st.sends for st in sts}
    for client in sorted({st.client for st in sts}) + ["all"]:
        mine = [o for o in outcomes if client == "all" or o.name.startswith(client + ":")]
        s = summary(mine)
        print(f"{client}: {s['statements']} distinct statements ({sum(sends[o.name] for o in mine)} sent), "
              f"{s['no_query']} hold no query, {s['accepted']} queries Spark accepts "
              f"({s['spark_rejects']} it rejects left out)")
        print(f"  rewritten {s['rewritten']}, unchanged {s['unchanged']}, passed through {s['passthrough']} "
              f"({100 * s['passthrough_share']:.1f}%), rejected {s['rejected']}, internal failures {s['bugs']}")
        for reason, n in s["passthrough_reasons"].items():
            print(f"    passed through: {n} x {reason}")
    bad = [o for o in outcomes if o.status in ("rejected", "bug")]
    for o in bad:
        print(f"\n[{o.status}] {o.name}\n  {o.sql[:2000]}\n  {o.detail}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
