"""The statements real clients send to Spark (tests/corpus/clients: splink training and
applying linkage models, ibis's PySpark backend running a typical user's workload and
TPC queries, dbt building tests/dbt_project), captured through sparkfold's
hook with the schemas of the tables they read (`python -m tests.corpus.clients` writes
them; `python -m tests.corpus.clients.check` prints the counts per client and the
pass-through reasons).

Without Spark, every captured statement against the catalog recorded with it: sparkfold
rejects none that Spark accepted when the client sent it, fails inside on none, and
passes under 2% of the queries through whole, each with a reason.  On Spark, a sample of
the queries sparkfold rewrites (and one it leaves unchanged per client), each over its
recorded tables with generated rows: the original against the optimized SQL and the
DataFrame program.  The whole set on Spark: `python -m tests.corpus.run --clients`."""

from __future__ import annotations

import pytest

from tests.corpus.check import summary
from tests.corpus.clients import check
from tests.corpus.clients.check import without_spark
from tests.corpus.clients.record import names_read
from tests.corpus.clients.source import statements

CLIENTS = ("dbt", "ibis", "splink")
SAMPLE = 5  # about 15 s on Spark under load; the whole set: python -m tests.corpus.run --clients


def _failures(outcomes):
    return [f"[{o.status} / SQL {o.sql_verdict or '-'} / DataFrame {o.df_verdict or '-'}] {o.name}\n"
            f"  {o.sql[:2000]}\n  {o.detail}\n  {o.report}"
            for o in outcomes if o.status in ("rejected", "bug") or o.sql_verdict == "wrong"
            or o.df_verdict in ("wrong", "lowering-failed")]


@pytest.fixture(scope="module")
def captured():
    return statements()


@pytest.fixture(scope="module")
def outcomes(captured):
    return without_spark(captured)


def test_every_client_is_captured(captured):
    by_client = {c: [st for st in captured if st.client == c] for c in CLIENTS}
    assert all(len(sts) >= 10 for sts in by_client.values()), {c: len(s) for c, s in by_client.items()}
    # each query Spark accepted carries what it needs to run again: every table it reads
    for st in captured:
        if st.query is not None and st.spark_accepts:
            assert sorted(names_read(st.query)[0]) == sorted(st.tables), st.name


def test_no_statement_spark_accepts_is_rejected_or_fails_inside(outcomes):
    assert _failures(outcomes) == []


def test_whole_query_pass_through_is_rare_and_named(outcomes):
    s = summary(outcomes)
    assert s["accepted"] >= 200, s
    assert all(len(reason) > 10 for reason in s["passthrough_reasons"]), s["passthrough_reasons"]
    assert s["passthrough_share"] < 0.02, s


def _sample(outcomes, captured):
    """SAMPLE - 1 queries sparkfold rewrites, taken from each client in turn (spread over
    its statements), and one it leaves unchanged (the middle one of all)."""
    by_name = {st.name: st for st in captured}
    per_client = -(-(SAMPLE - 1) // len(CLIENTS))
    spread = {}
    for client in CLIENTS:
        rewritten = [o.name for o in outcomes if o.name.startswith(client + ":") and o.status == "rewritten"]
        spread[client] = rewritten[::max(1, len(rewritten) // per_client)]
    picked = [spread[c][i] for i in range(per_client) for c in CLIENTS if i < len(spread[c])][:SAMPLE - 1]
    unchanged = [o.name for o in outcomes if o.status == "unchanged"]
    picked += unchanged[len(unchanged) // 2:][:1]
    return [by_name[n] for n in picked]


def test_a_sample_agrees_on_spark(spark, outcomes, captured):
    sample = _sample(outcomes, captured)
    assert len(sample) == SAMPLE and {st.client for st in sample} == set(CLIENTS), [st.name for st in sample]
    # a session of its own: the clients' tables stay out of the other tests' views
    checked = check.on_spark(spark.newSession(), sample)
    assert [(o.name, o.detail) for o in checked if o.status in ("spark-rejects", "no-query")] == []
    assert _failures(checked) == []
    assert sum(o.sql_verdict == "equal" and o.df_verdict == "equal" for o in checked) >= len(sample) // 2
