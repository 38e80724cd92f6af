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
