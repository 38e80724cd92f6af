"""The statements real clients send to Spark (tests/corpus/clients: splink training and
applying linkage models, dbt building tests/dbt_project), captured through sparkfold's
hook with the schemas of the tables they read (`python -m tests.corpus.clients` writes
them; `python -m tests.corpus.clients.check` prints the counts per client and the
pass-through reasons).

Without Spark, every captured statement against the catalog recorded with it: sparkfold
rejects none that Spark accepted when the client sent it, fails inside on none, and
passes under 2% of the queries through whole, each with a reason."""

from __future__ import annotations

import pytest

from tests.corpus.clients.check import summary, without_spark
from tests.corpus.clients.record import names_read
from tests.corpus.clients.source import statements

CLIENTS = ("dbt", "splink")


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
    assert [(o.status, o.name, o.detail) for o in outcomes if o.status in ("rejected", "bug")] == []


def test_whole_query_pass_through_is_rare_and_named(outcomes):
    s = summary(outcomes)
    assert s["queries"] >= 200, s
    assert all(len(reason) > 10 for reason in s["passthrough_reasons"]), s["passthrough_reasons"]
    assert s["passthrough_share"] < 0.02, s
