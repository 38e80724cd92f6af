"""Completeness against Catalyst: queries over NULL/NaN-heavy tables where Catalyst's
optimized plan reads no table at all.  sparkfold's optimized plan must read no table for
at least 95% of them, and give the same results (and names and types) for all."""

from __future__ import annotations

import pytest
from sparkfold.optimizer import optimize
from sparkfold.plans.ir import logical as L

from tests.spark_check import assert_same_result, is_ordered

# Predicates that are never TRUE on any row.
NEVER_TRUE = [
    "num = NULL", "x <> NULL", "s > NULL", "NULL = NULL", "num IN (NULL)", "x NOT IN (1.5, NULL)",
    "num = NULL AND x > 1", "NOT (num = NULL)", "num + NULL > 1", "1 = 0", "num IS NULL",
    "CAST(NULL AS INT) = num", "x = NULL OR s = NULL", "(num = NULL) IS NOT NULL", "NULL <=> 1",
    "IF(p, CAST(NULL AS BOOLEAN), FALSE)", "num IN (SELECT num FROM e)", "EXISTS (SELECT 1 FROM e WHERE e.num = t.num)",
]

TEMPLATES = [
    "SELECT * FROM t WHERE {p}",
    "SELECT num, x FROM t WHERE {p} ORDER BY num LIMIT 5",
    "SELECT count(*), sum(x), max(s) FROM t WHERE {p}",
    "SELECT s, count(*) FROM t WHERE {p} GROUP BY s",
    "SELECT t.num, u.y FROM (SELECT * FROM t WHERE {p}) t JOIN u ON t.num = u.num",
    "SELECT DISTINCT s FROM t WHERE {p}",
    "SELECT num FROM t WHERE {p} UNION ALL SELECT num FROM t WHERE {p}",
    "SELECT a FROM (SELECT num + 1 AS a FROM t WHERE {p}) q WHERE a > 2",
    "SELECT count(DISTINCT x) FROM t WHERE {p}",
    "SELECT u.y FROM u LEFT SEMI JOIN (SELECT * FROM t WHERE {p}) t ON t.num = u.num",
    "SELECT t.num, u.y FROM (SELECT * FROM t WHERE {p}) t LEFT JOIN u ON t.num = u.num",
]

EXTRA = [
    "SELECT count(DISTINCT (num = NULL)) FROM t",
    "SELECT count(NULL), count(DISTINCT NULL) FROM t",
    "SELECT * FROM t LIMIT 0",
    "SELECT * FROM e",
    "SELECT count(*) FROM e",
    "SELECT e.num, u.y FROM e JOIN u ON e.num = u.num",
    "SELECT u.y FROM u LEFT SEMI JOIN e ON e.num = u.num",
    "SELECT e.num FROM e LEFT JOIN u ON e.num = u.num",
    "SELECT num FROM e INTERSECT SELECT num FROM u",
    "SELECT num FROM e EXCEPT SELECT num FROM u",
    "SELECT num FROM e UNION ALL SELECT num FROM e",
    "SELECT x, count(*) FROM e GROUP BY x",
    "SELECT sum(x) FROM e HAVING sum(x) > 0",
    "SELECT num FROM t WHERE FALSE AND x > 1",
    "SELECT num FROM t WHERE x > 1 AND NULL",
    "SELECT max(num) FROM t WHERE num = NULL HAVING max(num) IS NULL",
]

QUERIES = [t.format(p=p) for p in NEVER_TRUE for t in TEMPLATES] + EXTRA


def catalyst_reads_no_table(spark, sql: str) -> bool:
    plan = spark.sql(sql)._jdf.queryExecution().optimizedPlan()
    leaves = plan.collectLeaves()
    names = [leaves.apply(i).getClass().getSimpleName() for i in range(leaves.size())]
    return all(n in ("LocalRelation", "OneRowRelation") for n in names)


def reads_no_table(plan: L.Plan) -> bool:
    stack = [plan]
    while stack:
        p = stack.pop()
        if isinstance(p, (L.Relation, L.OpaqueRelation)):
            return False
        for e in p.expressions:
            stack.extend(s.plan for s in L.subquery_plans(e))
        stack.extend(p.children)
    return True


@pytest.fixture(scope="module")
def outcomes(spark, tables):
    """(sql, catalyst eliminated, sparkfold eliminated) for every query, results checked."""
    out = []
    for sql in QUERIES:
        result = optimize(sql, tables)
        assert_same_result(spark, sql, result.sql, ordered=is_ordered(result.analyzed))
        out.append((sql, catalyst_reads_no_table(spark, sql), reads_no_table(result.optimized)))
    return out


def test_corpus_has_150_queries_catalyst_eliminates(outcomes):
    eliminated = [q for q, catalyst, _ in outcomes if catalyst]
    assert len(eliminated) >= 150, len(eliminated)


def test_sparkfold_reads_no_table_for_95_percent(outcomes):
    catalyst = [(q, ours) for q, cat, ours in outcomes if cat]
    missed = [q for q, ours in catalyst if not ours]
    share = 1 - len(missed) / len(catalyst)
    print(f"\nsparkfold reads no table for {share:.1%} of the {len(catalyst)} queries Catalyst "
          f"empties; missed: {missed}")
    assert share >= 0.95, missed


def test_optimizing_the_optimized_sql_changes_nothing(tables):
    # issue 3's idempotence: optimize(optimize(q).sql).sql == optimize(q).sql
    changed = []
    for sql in QUERIES:
        once = optimize(sql, tables).sql
        if optimize(once, tables).sql != once:
            changed.append(sql)
    assert not changed, changed[:5]
