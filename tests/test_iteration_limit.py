"""A fixed-point batch that hits its iteration limit stops, records a warning in the
trace, and returns a plan that is still correct (checked on Spark); later batches run."""

from __future__ import annotations

from sparkfold.optimizer import optimize
from sparkfold.optimizer.batches import default_batches
from sparkfold.optimizer.engine import Batch, FixedPoint, Once
from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import logical as L
from sparkfold.rules.base import Rule, transform_expressions

from tests.data import STANDARD_SCHEMA as S
from tests.spark_check import assert_same_result

# Two rules that never agree: each swaps the operands of its own comparison kind, so
# every iteration changes the plan and it returns to an earlier one only every second
# iteration (a structural fixed-point test would not stop it either).
FLIP_EQ = Rule("FlipEqualTo", lambda plan, ctx: transform_expressions(
    plan, lambda e: E.EqualTo(e.right, e.left) if isinstance(e, E.EqualTo) else e))
FLIP_LT = Rule("FlipLessThan", lambda plan, ctx: transform_expressions(
    plan, lambda e: E.GreaterThan(e.right, e.left) if isinstance(e, E.LessThan)
    else E.LessThan(e.right, e.left) if isinstance(e, E.GreaterThan) else e))
FLIPPING = Batch("Flipping", FixedPoint(3), (FLIP_EQ, FLIP_LT))

SQL = "SELECT num, x FROM t WHERE num = 3 OR x < 2.0 OR (b > 5 AND s = 'a')"


def test_batch_stops_at_its_limit_with_a_warning(spark, tables):
    r = optimize(SQL, S, batches=[FLIPPING])
    assert r.trace.warnings == ["Max iterations (3) reached for batch Flipping; the plan so far is kept"]
    run, = r.trace.batches
    assert (run.name, run.iterations, run.converged) == ("Flipping", 3, False)
    assert [(w.iteration, w.rule) for w in r.trace] == \
        [(i, name) for i in (1, 2, 3) for name in ("FlipEqualTo", "FlipLessThan")]
    # three flips: the plan is the flipped one, and Spark gives the original's answer
    cond = next(n for n in r.optimized.walk() if isinstance(n, L.Filter)).condition
    assert E.EqualTo(E.Literal(3, r.analyzed.output[0].data_type), r.analyzed.output[0]) in list(cond.walk())
    assert r.sql != SQL
    assert_same_result(spark, SQL, r.sql)


def test_even_number_of_flips_gives_back_the_original_plan():
    r = optimize(SQL, S, batches=[Batch("Flipping", FixedPoint(2), (FLIP_EQ, FLIP_LT))])
    assert r.trace.warnings and r.optimized == r.analyzed
    assert r.sql == SQL  # no net change: the original text


def test_later_batches_still_run_after_a_batch_hits_its_limit(spark, tables):
    r = optimize("SELECT num FROM t WHERE num = NULL OR x < NULL", S, batches=[FLIPPING, *default_batches()])
    assert len(r.trace.warnings) == 1 and "Flipping" in r.trace.warnings[0]
    assert [b.converged for b in r.trace.batches][0] is False
    assert all(b.converged for b in r.trace.batches[1:])
    assert L.is_empty_relation(r.optimized)  # NullPropagation + PruneFilters ran afterwards
    assert_same_result(spark, r.original_sql, r.sql)


def test_once_batch_never_warns():
    r = optimize(SQL, S, batches=[Batch("Flip once", Once(), (FLIP_EQ, FLIP_LT))])
    assert not r.trace.warnings and r.trace.batches[0].iterations == 1


def test_limit_warning_reaches_explain():
    text = optimize(SQL, S, batches=[FLIPPING]).explain()
    assert "Max iterations (3) reached for batch Flipping" in text


def test_default_batches_converge_on_hard_queries():
    # the default batches reach their fixed point well before the limit
    for sql in ("SELECT * FROM t LEFT JOIN (SELECT * FROM u WHERE FALSE) v ON t.num = v.num "
                "WHERE v.y IS NULL OR t.x = NULL",
                "SELECT count(DISTINCT (num = NULL)) FROM e",
                "SELECT num FROM t WHERE NOT (b = 10 AND b + 1 = 10) AND (p OR NOT p) AND x IN (1, NULL)",
                "SELECT (SELECT max(y) FROM u WHERE u.num = t.num AND FALSE) FROM t WHERE NULL IS NULL"):
        r = optimize(sql, S)
        assert not r.trace.warnings, (sql, r.trace.warnings)
        assert all(b.converged for b in r.trace.batches)
