"""OptimizeSubqueries: IN / NOT IN / EXISTS / scalar subqueries over an empty plan."""

from __future__ import annotations

import pytest
from sparkfold.optimizer.batches import RULES as BY_NAME
from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import logical as L
from sparkfold.plans.ir import types as T
from sparkfold.plans.sql_in.catalog import Catalog
from sparkfold.rules.base import RuleContext

from tests.rule_helpers import (
    rules_output,
    SCHEMA,
    fired,
    nodes,
    reads_no_table,
    run,
    spark_agrees,
)

SUB = "OptimizeSubqueries"
RULES = ("PruneFilters", "PropagateEmptyRelation", SUB)
EMPTY_U = "(SELECT num FROM u WHERE false)"


def rewrite(e: E.Expr, ansi: bool = True, legacy_null_in_empty: bool = False) -> E.Expr:
    p = L.Project((E.Alias(e, "c", 7001),), L.OneRowRelation())
    return BY_NAME[SUB](p, RuleContext(ansi=ansi, legacy_null_in_empty=legacy_null_in_empty)).projections[0].child


def empty_plan(t=T.INT):
    return L.LocalRelation((E.Attribute("v", t, True, 7002),))


def test_in_empty_subquery_is_false():
    r = run(f"SELECT num IN {EMPTY_U} AS i FROM u", *RULES)
    assert rules_output(r).projections[0].child == E.FALSE


def test_in_empty_subquery_is_false_for_null_value_under_ansi():
    assert rewrite(E.InSubquery((E.Literal(None, T.INT),), empty_plan())) == E.FALSE


def test_in_empty_subquery_with_nullable_value_kept_without_ansi():
    a = E.Attribute("a", T.INT, True, 7003)
    e = E.InSubquery((a,), empty_plan())
    assert rewrite(e, ansi=False) is e
    assert rewrite(E.InSubquery((a.with_nullability(False),), empty_plan()), ansi=False) == E.FALSE


def test_not_in_empty_subquery_is_true_for_null_under_ansi_only():
    """With the legacy behaviour (ANSI off, or spark.sql.legacy.nullInEmptyListBehavior)
    `NULL NOT IN (empty)` is NULL in a select list (tests/test_sqltests_classes.py checks
    it on Spark: null-in-empty.sql)."""
    r = run(f"SELECT num NOT IN {EMPTY_U} AS i FROM u", *RULES)
    assert rules_output(r).projections[0].child == E.TRUE
    null_not_in = E.Not(E.InSubquery((E.Literal(None, T.INT),), empty_plan()))
    assert rewrite(null_not_in) == E.TRUE
    assert rewrite(null_not_in, ansi=False) is null_not_in
    assert rewrite(null_not_in, legacy_null_in_empty=True) is null_not_in
    a = E.Attribute("a", T.INT, False, 7003)
    assert rewrite(E.Not(E.InSubquery((a,), empty_plan())), ansi=False) == E.TRUE


def test_exists_empty_is_false_and_not_exists_is_true():
    r = run("SELECT EXISTS (SELECT 1 FROM u WHERE false) AS e, NOT EXISTS (SELECT 1 FROM u WHERE false) AS n "
            "FROM t", *RULES)
    assert [p.child for p in r.optimized.projections] == [E.FALSE, E.TRUE]


def test_scalar_subquery_over_empty_is_typed_null():
    r = run("SELECT (SELECT z FROM u WHERE false) AS s FROM t", *RULES)
    assert r.optimized.projections[0].child == E.Literal(None, T.DOUBLE)


def test_in_subquery_over_non_empty_plan_is_kept():
    r = run("SELECT num IN (SELECT num FROM u) AS i FROM t", *RULES)
    assert not fired(r, SUB)


def test_in_subquery_with_raising_value_is_kept():
    r = run(f"SELECT (10 div num) IN {EMPTY_U} AS i FROM t", *RULES)
    assert not fired(r, SUB)


def test_correlated_exists_over_empty_is_false():
    r = run("SELECT * FROM t WHERE EXISTS (SELECT 1 FROM (SELECT * FROM u WHERE false) v "
            "WHERE v.num = t.num)", *RULES)
    assert reads_no_table(r.optimized)


def test_in_empty_subquery_in_where_empties_the_query():
    r = run(f"SELECT * FROM t WHERE num IN {EMPTY_U}", *RULES)
    assert L.is_empty_relation(r.optimized)


def test_not_in_empty_subquery_in_where_removes_the_filter():
    r = run("SELECT * FROM t WHERE x NOT IN (SELECT z FROM u WHERE false)", *RULES)
    assert not nodes(r.optimized, L.Filter) and not nodes(r.optimized, L.LocalRelation)


SPARK_CASES = [
    f"SELECT num, num IN {EMPTY_U} AS i, num NOT IN {EMPTY_U} AS n FROM u",
    f"SELECT * FROM u WHERE num NOT IN {EMPTY_U}",
    f"SELECT * FROM u WHERE NOT (num IN {EMPTY_U})",
    f"SELECT * FROM u WHERE num IN {EMPTY_U}",
    "SELECT x, x NOT IN (SELECT z FROM u WHERE false) AS n FROM t",
    "SELECT EXISTS (SELECT 1 FROM u WHERE false) AS e, NOT EXISTS (SELECT 1 FROM u WHERE false) AS n FROM t",
    "SELECT * FROM t WHERE EXISTS (SELECT 1 FROM (SELECT * FROM u WHERE false) v WHERE v.num = t.num)",
    "SELECT * FROM t WHERE NOT EXISTS (SELECT 1 FROM (SELECT * FROM u WHERE false) v WHERE v.num = t.num)",
    "SELECT num, (SELECT z FROM u WHERE false) AS s, "
    "(SELECT s FROM (SELECT * FROM u WHERE false) v WHERE v.num = t.num) AS c FROM t",
    "SELECT (SELECT max(z) FROM u WHERE false) AS m",
]


@pytest.mark.parametrize("sql", SPARK_CASES)
def test_optimize_subqueries_agrees_with_spark(spark, tables, sql):
    r = run(sql, *RULES, "FoldEmptyAggregate")
    assert fired(r, SUB) or fired(r, "FoldEmptyAggregate")
    spark_agrees(spark, r)


def test_not_in_empty_subquery_agrees_with_spark_without_ansi(spark, tables):
    """Without ANSI a NULL value's IN and NOT IN over an empty subquery are NULL in a select
    list: kept for a nullable value (num), folded for one never NULL."""
    sql = f"SELECT num, num NOT IN {EMPTY_U} AS n, num IN {EMPTY_U} AS i, coalesce(num, 0) NOT IN {EMPTY_U} AS c FROM u"
    r = run(sql, *RULES, schema=Catalog.from_mapping(SCHEMA, ansi=False))
    assert fired(r, SUB)
    assert "NOT u.num IN (SELECT" in r.sql and "u.num IN (SELECT" in r.sql
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        spark_agrees(spark, r)
    finally:
        spark.conf.set("spark.sql.ansi.enabled", "true")
