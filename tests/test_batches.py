"""The default batches: order, strategies, exclusion by name, Once-batch idempotence,
convergence, and the end-to-end plan-level rewrites with every registered rule."""

from __future__ import annotations

import pytest
from sparkfold.optimizer import optimize
from sparkfold.optimizer.batches import BATCHES, RULES, default_batches
from sparkfold.optimizer.engine import FixedPoint, Once, execute
from sparkfold.plans.ir import logical as L
from sparkfold.rules.base import RuleContext

from tests.rule_helpers import (
    SCHEMA,
    fired,
    nodes,
    reads_no_table,
    spark_agrees,
)

# Written in parallel by the expression-rule family; every other name is a plan rule here.
EXPRESSION_RULES = {"NullPropagation", "ConstantFolding", "BooleanSimplification", "SimplifyConditionals",
                    "SimplifyBinaryComparison", "OptimizeIn", "NullDownPropagation",
                    "ReplaceNullWithFalseInPredicate"}
PLAN_RULES = {"PruneFilters", "PropagateEmptyRelation", "FoldEmptyAggregate", "FoldConstantAggregate",
              "EliminateOuterJoin", "InferFiltersFromConstraints", "UpdateAttributeNullability",
              "OptimizeSubqueries", "PushDownPredicates", "ConstantPropagation", "FoldablePropagation",
              "EliminateView", "ConvertToLocalRelation", "SetOperationOfRows"}
CLEANUP_RULES = {"RemoveRedundantIsNotNull"}


def test_batches_follow_catalyst_order_and_strategies():
    assert [(b.name, type(b.strategy)) for b in BATCHES] == [
        ("LocalRelation early", FixedPoint),
        ("Operator Optimization before Inferring Filters", FixedPoint),
        ("Infer Filters", Once),
        ("Operator Optimization after Inferring Filters", FixedPoint),
        ("LocalRelation", FixedPoint),
        ("Cleanup", Once),
    ]
    ops = {b.name: b.rules for b in BATCHES}
    assert ops["Operator Optimization before Inferring Filters"] == \
        ops["Operator Optimization after Inferring Filters"]
    assert [r.name for r in ops["Infer Filters"]] == ["InferFiltersFromConstraints"]


def test_every_batch_rule_is_a_known_rule():
    assert {r.name for b in BATCHES for r in b.rules} == EXPRESSION_RULES | PLAN_RULES | CLEANUP_RULES


def test_the_rule_registry_is_derived_from_the_batches():
    assert set(RULES) == EXPRESSION_RULES | PLAN_RULES | CLEANUP_RULES
    assert all(RULES[r.name] is r for b in BATCHES for r in b.rules)
    assert default_batches() == BATCHES


def test_rules_are_excluded_by_name():
    sql = "SELECT num FROM t WHERE false"
    assert fired(optimize(sql, SCHEMA), "PruneFilters")
    r = optimize(sql, SCHEMA, exclude=["PruneFilters"])
    assert not fired(r, "PruneFilters") and nodes(r.optimized, L.Filter)
    assert not fired(optimize(sql, SCHEMA, exclude=["prunefilters"]), "PruneFilters")


CORPUS = [
    "SELECT * FROM t WHERE num = NULL",
    "SELECT count(DISTINCT (num = NULL)) FROM t",
    "SELECT count(x) FROM t WHERE x IS NOT NULL",
    "SELECT 1 FROM (SELECT count(*) FROM t WHERE false)",
    "SELECT * FROM t, u WHERE u.num = 1 AND u.num = t.num",
    "SELECT * FROM t JOIN u ON t.num = u.num AND t.num = 1 AND u.z > 5",
    "SELECT * FROM t LEFT JOIN u ON t.num = u.num WHERE u.y > 1",
    "SELECT * FROM t FULL JOIN u ON t.num = u.num WHERE coalesce(u.num, t.num) = 0",
    "SELECT * FROM t LEFT JOIN (SELECT * FROM u WHERE false) v ON t.num = v.num",
    "SELECT num FROM t UNION ALL SELECT num FROM u WHERE num = NULL",
    "SELECT s FROM t EXCEPT SELECT s FROM u WHERE false",
    "SELECT * FROM t WHERE x NOT IN (SELECT z FROM u WHERE false)",
    "SELECT x, count(*) FROM t WHERE x > 1 AND x = x GROUP BY x HAVING count(*) > 0",
    "SELECT * FROM t JOIN u ON t.x = u.z WHERE u.z > 1 AND t.x < 10",
    "SELECT * FROM t WHERE num IN (SELECT num FROM u WHERE num > 2 AND num = y - 1)",
    "SELECT a.num FROM u a JOIN u b ON a.num = b.num JOIN u c ON b.num = c.num WHERE c.num + a.y > 3",
    # a global aggregate under a projection stays one row when a rule rewrites below it
    "SELECT 1 FROM (SELECT count(*) FROM t WHERE x > 1)",
    "SELECT 1 AS o FROM (SELECT count(*) AS c FROM t WHERE s = 'a') WHERE 1 = 1",
]


@pytest.mark.parametrize("sql", CORPUS)
def test_once_batches_are_idempotent(sql):
    # Catalyst's check: a Once batch run again on its own output changes nothing
    plan = optimize(sql, SCHEMA, rules=[]).analyzed
    ctx = RuleContext(ansi=True)
    for batch in default_batches():
        plan, _ = execute(plan, [batch], ctx)
        if isinstance(batch.strategy, Once):
            again, trace = execute(plan, [batch], ctx)
            assert again is plan, f"{batch.name} changed its own output: {trace.rewrites}"


@pytest.mark.parametrize("sql", CORPUS)
def test_fixed_point_batches_converge(sql):
    result = optimize(sql, SCHEMA)
    assert not result.trace.warnings
    assert all(run.converged for run in result.trace.batches)


@pytest.mark.parametrize("sql", CORPUS)
def test_default_batches_agree_with_spark(spark, tables, sql):
    spark_agrees(spark, optimize(sql, SCHEMA))


def test_spark_20686_global_count_over_where_false_is_one_row(spark, tables):
    r = optimize("SELECT 1 FROM (SELECT count(*) FROM t WHERE false)", SCHEMA)
    assert reads_no_table(r.optimized)
    assert len(spark.sql(r.sql).collect()) == 1
    spark_agrees(spark, r)


def test_seed_002_where_num_eq_null_is_empty_relation(spark, tables):
    r = optimize("SELECT * FROM t WHERE num = NULL", SCHEMA)
    assert L.is_empty_relation(r.optimized)  # NullPropagation's NULL reached PruneFilters
    assert [w.rule for w in r.trace][-2:] == ["PruneFilters", "PropagateEmptyRelation"]
    spark_agrees(spark, r)


def test_seed_002_count_distinct_eq_null_is_one_constant_row(spark, tables):
    r = optimize("SELECT count(DISTINCT (num = NULL)) FROM e", SCHEMA)
    assert reads_no_table(r.optimized) and fired(r, "FoldConstantAggregate")
    spark_agrees(spark, r)
    assert spark.sql(r.sql).collect()[0][0] == 0


def test_count_after_is_not_null_becomes_count_1(spark, tables):
    r = optimize("SELECT count(x) FROM t WHERE x IS NOT NULL", SCHEMA)
    assert fired(r, "UpdateAttributeNullability")
    agg = nodes(r.optimized, L.Aggregate)[0]
    assert [a.value for a in agg.aggregates[0].child.args] == [1]
    spark_agrees(spark, r)


def test_count_after_left_join_keeps_counting_the_padded_column(spark, tables):
    # u.y is NOT NULL in u but NULL on rows the left join pads: count(u.y) must stay
    r = optimize("SELECT count(u.y) FROM t LEFT JOIN u ON t.num = u.num", SCHEMA)
    agg = nodes(r.optimized, L.Aggregate)[0]
    assert agg.aggregates[0].child.args[0].name == "y"
    spark_agrees(spark, r)


def test_a_rule_is_not_called_again_on_operators_it_left_unchanged():
    """The per-rule memo of a run (`Facts.stable`): a rule is a pure function of the plan,
    so an operator it left unchanged, met again in the same run's facts, is skipped with
    its subtree; a new operator above it is visited; a run with fresh facts visits all."""
    from sparkfold.plans.ir import expressions as E
    from sparkfold.plans.ir import types as T
    from sparkfold.rules.base import plan_rule

    seen = []

    @plan_rule("Counting")
    def counting(p, ctx):
        seen.append(p)
        return p

    plan = optimize("SELECT num FROM t WHERE num > 1 ORDER BY num", SCHEMA).analyzed
    ctx = RuleContext()
    assert counting(plan, ctx) is plan
    first = len(seen)
    assert first == len(list(plan.walk())) >= 3
    assert counting(plan, ctx) is plan and len(seen) == first
    on_top = L.Filter(E.Literal(True, T.BOOLEAN), plan)
    assert counting(on_top, ctx) is on_top and seen[first:] == [on_top]
    counting(plan, RuleContext())
    assert len(seen) == 2 * first + 1
