"""Plan -> SQL round trips checked on Spark: with no rule applied, the regenerated SQL
returns the same column names, types and rows as the original."""

from __future__ import annotations

import os

import pytest
from sparkfold.optimizer import optimize

from tests.spark_check import assert_same_result, is_ordered

HERE = os.path.dirname(__file__)


def load_queries(name: str) -> list[str]:
    text = open(os.path.join(HERE, "fixtures", name)).read()
    lines = [ln for ln in text.splitlines() if not ln.strip().startswith("--")]
    return [q.strip() for q in "\n".join(lines).split(";\n") if q.strip()]


QUERIES = load_queries("roundtrip.sql")


@pytest.mark.parametrize("sql", QUERIES)
def test_round_trip_matches_spark(spark, tables, sql):
    result = optimize(sql, tables, rules=[], always_regenerate=True)
    assert result.passthrough is None, result.passthrough
    assert_same_result(spark, sql, result.sql, ordered=is_ordered(result.analyzed))


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
