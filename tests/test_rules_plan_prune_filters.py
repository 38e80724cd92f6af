"""PruneFilters: WHERE TRUE / FALSE / NULL, and conjuncts the child already guarantees."""

from __future__ import annotations

import pytest
from sparkfold.optimizer.batches import RULES
from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import logical as L
from sparkfold.plans.ir import types as T

from tests.rule_helpers import filters, fired, run, spark_agrees, text

PRUNE = "PruneFilters"


def rule():
    return RULES[PRUNE]


def scan():
    return L.Relation("t", (E.Attribute("a", T.INT, True, 901), E.Attribute("b", T.UNKNOWN, True, 902)))


def test_filter_true_is_its_child():
    child = scan()
    assert rule()(L.Filter(E.TRUE, child)) is child


def test_filter_false_is_empty_relation_with_child_output():
    r = run("SELECT num, x FROM t WHERE false", PRUNE)
    empty = r.optimized.child
    assert L.is_empty_relation(empty)
    assert [a.expr_id for a in empty.output] == [a.expr_id for a in r.analyzed.child.child.output]


def test_filter_null_boolean_is_empty_relation():
    child = L.Relation("t", (E.Attribute("a", T.INT, True, 901),))
    out = rule()(L.Filter(E.NULL_BOOL, child))
    assert L.is_empty_relation(out) and out.output == child.output


def test_filter_false_not_emptied_when_a_column_type_is_unknown():
    p = L.Filter(E.FALSE, scan())
    assert rule()(p) is p


def test_filter_with_column_condition_unchanged():
    r = run("SELECT num FROM t WHERE x > 1", PRUNE)
    assert not fired(r, PRUNE)


def test_conjunct_implied_by_child_filter_is_dropped():
    r = run("SELECT * FROM (SELECT * FROM t WHERE x > 1 AND s = 'a') WHERE s = 'a' AND num > 2", PRUNE)
    assert [text(f.condition) for f in filters(r.optimized)] == ["(num > 2)", "((x > 1) AND (s = a))"]


def test_filter_fully_implied_is_removed():
    r = run("SELECT * FROM (SELECT * FROM t WHERE x > 1) WHERE x > 1", PRUNE)
    assert len(filters(r.optimized)) == 1


def test_is_not_null_implied_by_null_intolerant_child_conjunct_is_dropped():
    r = run("SELECT * FROM (SELECT * FROM t WHERE x + 1 > 2) WHERE x IS NOT NULL", PRUNE)
    assert len(filters(r.optimized)) == 1


def test_is_not_null_of_never_null_column_is_dropped():
    r = run("SELECT * FROM t WHERE num IS NOT NULL", PRUNE)
    assert not filters(r.optimized)


def test_equality_matches_either_orientation():
    r = run("SELECT * FROM t JOIN u ON t.num = u.num WHERE u.num = t.num", PRUNE)
    assert not filters(r.optimized)


def test_is_not_null_over_is_null_is_kept():
    r = run("SELECT * FROM (SELECT * FROM t WHERE x IS NULL) WHERE x IS NOT NULL", PRUNE)
    assert len(filters(r.optimized)) == 2


def test_nondeterministic_conjunct_is_never_pruned():
    r = run("SELECT * FROM (SELECT * FROM t WHERE rand(10) > 0.5) WHERE rand(10) > 0.5", PRUNE)
    assert len(filters(r.optimized)) == 2


def test_filter_over_union_all_with_branch_filters_is_removed():
    r = run("SELECT * FROM (SELECT num FROM t WHERE num > 10 UNION ALL SELECT num FROM u WHERE num > 10) "
            "WHERE num > 10", PRUNE)
    assert len(filters(r.optimized)) == 2


def test_filter_over_union_with_one_unfiltered_branch_is_kept():
    r = run("SELECT * FROM (SELECT num FROM t WHERE num > 10 UNION ALL SELECT num FROM u) WHERE num > 10",
            PRUNE)
    assert len(filters(r.optimized)) == 2


def test_is_null_filter_below_left_join_prunes_the_same_filter_above():
    r = run("SELECT * FROM (SELECT * FROM t WHERE t.x IS NULL) a LEFT JOIN u ON a.num = u.num "
            "WHERE a.x IS NULL", PRUNE)
    assert len(filters(r.optimized)) == 1


def test_right_side_filter_below_left_join_does_not_prune_above():
    r = run("SELECT * FROM t LEFT JOIN (SELECT * FROM u WHERE z > 1) v ON t.num = v.num WHERE v.z > 1", PRUNE)
    assert len(filters(r.optimized)) == 2


def test_conjunct_that_may_raise_is_dropped_only_when_it_was_evaluated_below():
    r = run("SELECT * FROM (SELECT * FROM t WHERE 10 / num > 1) WHERE 10 / num > 1", PRUNE)
    assert len(filters(r.optimized)) == 1


SPARK_CASES = [
    "SELECT num, x FROM t WHERE false",
    "SELECT num, s FROM t WHERE true",
    "SELECT * FROM (SELECT * FROM t WHERE x > 1 AND s = 'a') WHERE s = 'a' AND num > 2",
    "SELECT * FROM (SELECT * FROM t WHERE x + 1 > 2) WHERE x IS NOT NULL",
    "SELECT * FROM t JOIN u ON t.num = u.num WHERE u.num = t.num",
    "SELECT * FROM (SELECT num FROM t WHERE num > 3 UNION ALL SELECT num FROM u WHERE num > 3) WHERE num > 3",
    "SELECT * FROM (SELECT * FROM t WHERE t.x IS NULL) a LEFT JOIN u ON a.num = u.num WHERE a.x IS NULL",
    "SELECT * FROM (SELECT * FROM t WHERE 10 / num > 1) WHERE 10 / num > 1",
    "SELECT count(*) FROM t WHERE false",
]


@pytest.mark.parametrize("sql", SPARK_CASES)
def test_prune_filters_agrees_with_spark(spark, tables, sql):
    r = run(sql, PRUNE)
    assert fired(r, PRUNE)
    spark_agrees(spark, r)
