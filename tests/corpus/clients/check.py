"""The clients' statements through sparkfold, without Spark: each one's status against
the catalog recorded with it, and the counts per client.

    python -m tests.corpus.clients.check [--file statements.jsonl] [--only CLIENT]...

A statement that holds no query (SHOW, DESCRIBE, DROP...) is `no-query`; one whose
query Spark rejected when the client sent it is `spark-rejects` (left out of the
measure); else its query (a `CREATE TABLE ... AS` statement's is the query it wraps,
which is what the hook optimizes) is rewritten, unchanged, passed through (with its
reason), rejected, or an internal failure (`bug`).  Printed per client: the counts, the
share of queries passed through whole and its reasons, and every rejection or failure;
exit 1 when there is one."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass

from .source import ClientStatement, catalog, statements


@dataclass
class Status:
    name: str
    sql: str
    status: str          # no-query | spark-rejects | rejected | bug | passthrough | unchanged | rewritten
    detail: str = ""     # the pass-through's reason, the rejection's or failure's message


def status_of(st: ClientStatement) -> Status:
    from sparkfold import optimize
    from sparkfold.optimizer.errors import InternalError, SparkfoldError

    if st.query is None:
        return Status(st.name, st.sql, "no-query")
    if st.spark_accepts is False:
        return Status(st.name, st.query, "spark-rejects")
    try:
        result = optimize(st.query, catalog(st))
    except InternalError as e:
        return Status(st.name, st.query, "bug", str(e))
    except SparkfoldError as e:
        return Status(st.name, st.query, "rejected", str(e))
    except Exception as e:  # noqa: BLE001 - anything else escaping optimize() is a bug
        return Status(st.name, st.query, "bug", f"{type(e).__name__}: {e}")
    if result.passthrough:
        return Status(st.name, st.query, "passthrough", str(result.passthrough))
    return Status(st.name, st.query, "rewritten" if result.trace else "unchanged")


def without_spark(sts: list[ClientStatement]) -> list[Status]:
    return [status_of(st) for st in sts]


def summary(outcomes: list[Status]) -> dict:
    """The counts over the queries Spark accepted, and the pass-through reasons (their
    particulars left out, as the hook counts them)."""
    from sparkfold.optimizer.hooks import _reason

    status = Counter(o.status for o in outcomes)
    queries = [o for o in outcomes if o.status not in ("no-query", "spark-rejects")]
    return {
        "statements": len(outcomes), "no_query": status["no-query"], "spark_rejects": status["spark-rejects"],
        "queries": len(queries), "rewritten": status["rewritten"], "unchanged": status["unchanged"],
        "passthrough": status["passthrough"],
        "passthrough_share": status["passthrough"] / len(queries) if queries else 0.0,
        "passthrough_reasons": dict(Counter(_reason(o.detail) for o in queries
                                            if o.status == "passthrough").most_common()),
        "rejected": status["rejected"], "bugs": status["bug"],
    }


def main(argv=None) -> int:
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
              f"{s['no_query']} hold no query, {s['queries']} queries Spark accepts "
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
