"""Plan -> SQL round trips checked on Spark: with no rule applied, the regenerated SQL
returns the same column names, types and rows as the original."""

from __future__ import annotations

import os

import pytest
from sparkfold.optimizer import optimize

from tests.spark_check import assert_same_result

HERE = os.path.dirname(__file__)


def load_queries(name: str) -> list[str]:
    text = open(os.path.join(HERE, "fixtures", name)).read()
    lines = [ln for ln in text.splitlines() if not ln.strip().startswith("--")]
    return [q.strip() for q in "\n".join(lines).split(";\n") if q.strip()]


QUERIES = load_queries("roundtrip.sql")


@pytest.fixture(scope="module")
def round_trips(spark, tables) -> dict:
    """Every query regenerated with no rule, and Spark's verdict on it, in a few Spark jobs
    (the original with Spark's whole optimizer, as a user runs it, against the
    regenerated SQL: names, types with nullability, rows, in order under ORDER BY, errors)."""
    from tests.spark_check import verify_batched

    results = [optimize(sql, tables, rules=[], always_regenerate=True) for sql in QUERIES]
    reports = verify_batched(results, spark, candidates=("optimized SQL",), exclude_rules=[])
    return {sql: (result, report) for sql, result, report in zip(QUERIES, results, reports)}


@pytest.mark.parametrize("sql", QUERIES)
def test_round_trip_matches_spark(round_trips, sql):
    result, report = round_trips[sql]
    assert result.passthrough is None, result.passthrough
    assert report.equal, report.to_text()
    assert result.sql == sql or report.candidates[0].error == report.reference.error, report.to_text()


def test_order_by_over_many_aggregates_writes_their_definitions_once(spark, tables, monkeypatch):
    """ORDER BY over an aggregate's select list refers to the aggregates by definition:
    those are written once per sort, not once per select item (TPC-DS q66, with dozens
    of sums, spent a quarter of its time rewriting them), and the query still reads the
    same on Spark."""
    from sparkfold.plans.sql_out import operators

    calls = []
    real = operators.definition_refs
    monkeypatch.setattr(operators, "definition_refs", lambda gen, b: calls.append(b) or real(gen, b))
    sums = ", ".join(f"sum(num + {i}) AS s{i}" for i in range(8))
    sql = f"SELECT s, {sums} FROM t GROUP BY s ORDER BY s, s3 DESC"
    result = optimize(sql, tables, rules=[], always_regenerate=True)
    assert result.passthrough is None
    assert len(calls) == 1, f"the definitions were written {len(calls)} times for one ORDER BY"
    assert_same_result(spark, sql, result.sql, ordered=True)
