"""All expression rules together, to their fixed point, over the round-trip corpus and
the seeds/000 situations (filters against NULL, 'NaN', 'INF', `<=>`, joins on NULL keys,
grouping NULLs): the optimized SQL returns what the original returns on Spark, and
optimizing the optimized SQL again changes nothing."""

from __future__ import annotations

import pytest
from sparkfold.optimizer import optimize

from tests.rule_helpers import rule
from tests.spark_check import assert_same_result, is_ordered
from tests.test_roundtrip_spark import load_queries

EXPRESSION_RULES = ["NullPropagation", "NullDownPropagation", "OptimizeIn", "ConstantFolding",
                    "BooleanSimplification", "SimplifyConditionals", "SimplifyBinaryComparison",
                    "ReplaceNullWithFalseInPredicate"]
RULES = [rule(n) for n in EXPRESSION_RULES]

SEED_000 = [
    # comparisons with special values, seeds/000 "Filter"
    "SELECT num, x FROM t WHERE x = 'NaN'",
    "SELECT num, x FROM t WHERE x = 'INF'",
    "SELECT num, x FROM t WHERE x = '-INF'",
    "SELECT num, x FROM t WHERE x > 'INF' OR x < '-Infinity'",
    "SELECT num, x FROM t WHERE x <=> NULL",
    "SELECT num, x FROM t WHERE NOT x <=> NULL",
    "SELECT num, x FROM t WHERE NOT x = NULL",
    "SELECT num FROM t WHERE x = NULL OR x = 'NaN'",
    "SELECT num FROM t WHERE x >= 'NaN' AND x <= 'NaN'",
    "SELECT num, x = x, x <=> x, x > 'inf' FROM t",
    "SELECT x, z, x = z, x <=> z, x < z FROM t JOIN u ON t.num = u.num",
    # joins on NULL keys: = drops them, <=> matches them
    "SELECT t.s, u.s FROM t JOIN u ON t.s = u.s AND NULL IS NULL",
    "SELECT t.s, u.s FROM t JOIN u ON t.s <=> u.s AND TRUE",
    "SELECT t.num, u.num FROM t FULL JOIN u ON t.num = u.num AND (u.z = 'NaN' OR NULL)",
    # grouping NULLs, count distinct with NULL / NaN
    "SELECT s, count(*), count(s), count(DISTINCT x) FROM t GROUP BY s",
    "SELECT x, count(1) FROM t GROUP BY x",
    "SELECT count(DISTINCT x, s), count(x = NULL), count(DISTINCT NULL) FROM t",
    "SELECT count(DISTINCT (num = NULL)) FROM t",
    "SELECT count(num) AS c FROM t",
    "SELECT num FROM t WHERE num = NULL",
    # three-valued logic in SELECT values must keep NULLs
    "SELECT p AND NULL, p OR NULL, NOT (p AND NULL), NULL AND FALSE, NULL OR TRUE FROM t",
    "SELECT IF(p, TRUE, FALSE), IF(p, NULL, FALSE), CASE WHEN p THEN 1 END FROM t",
    "SELECT num IN (1, NULL), NOT (num IN (1, NULL)), NULL IN (1, 2) FROM t",
    "SELECT coalesce(NULL, x, CAST('NaN' AS DOUBLE)), nanvl(x, 0.0D), isnan(x), greatest(x, 0.0D) FROM t",
    "SELECT num FROM t WHERE coalesce(p, NULL) OR NOT coalesce(p, TRUE)",
    "SELECT d + 1.005, d * d, d / 3, -d FROM t WHERE d IS NOT NULL AND d = d",
]


@pytest.mark.parametrize("sql", load_queries("roundtrip.sql") + SEED_000)
def test_expression_rules_keep_results(spark, tables, sql):
    result = optimize(sql, tables, rules=RULES)
    assert result.passthrough is None, result.passthrough
    assert all(b.converged for b in result.trace.batches), result.trace.warnings
    assert_same_result(spark, sql, result.sql, ordered=is_ordered(result.analyzed),
                       context=f"rewrites: {[w.rule for w in result.trace]}")
    again = optimize(result.sql, tables, rules=RULES)
    assert again.sql == result.sql, f"not idempotent:\n{result.sql}\n{again.sql}"
