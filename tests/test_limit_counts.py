"""LIMIT and OFFSET counts written as expressions (held-out limit.sql): Spark takes a
foldable INT expression and evaluates it when it analyzes the query, rejecting another
type, NULL, a negative count, a non-deterministic one, or an error evaluating it.
sparkfold reads the count as Spark does: where Spark accepts, the optimized query gives
Spark's result; where Spark rejects, sparkfold rejects with Spark's error class named, or
passes the query through (never a count Spark would not take).  Spark's answer is asked
here, not written down."""

from __future__ import annotations

import pytest
from sparkfold.optimizer import optimize
from sparkfold.optimizer.errors import SparkfoldError

COUNTS = ("2 + 1", "CAST(1 AS INT)", "abs(-2)", "1L", "1Y", "CAST(2 AS SMALLINT)", "TRUE", "'a'", "1.0", "NULL",
          "CAST(NULL AS INT)", "1 - 2", "2147483647 + 1", "(CASE WHEN random() < 0.5 THEN bigint(NULL) END)")


@pytest.mark.parametrize("sql", [f"SELECT num FROM t ORDER BY num LIMIT {c}" for c in COUNTS]
                         + ["SELECT num FROM t ORDER BY num LIMIT 5 OFFSET 1 + 1", "SELECT num FROM t OFFSET 1L"])
def test_a_count_is_read_as_spark_reads_it(spark, tables, sql):
    from tests.spark_check import assert_same_result, run_or_error

    answer = run_or_error(spark, sql)
    try:
        result = optimize(sql, tables)
    except SparkfoldError as e:
        assert answer[0] == "error", f"sparkfold rejects what Spark accepts: {e}"
        if str(e).startswith("["):
            assert str(e).startswith(f"[{answer[1]}]"), f"Spark: {answer[1]}; sparkfold: {e}"
        return
    if answer[0] == "error":
        assert result.passthrough is not None, f"Spark rejects it ({answer[1]}), sparkfold optimized it"
        return
    assert_same_result(spark, sql, result.sql, ordered=True)
