"""Helpers for rule tests: apply one rule to an expression or plan and check the result.

    a = col("a")                                    # a nullable int attribute
    assert_rewrites(NULL_PROPAGATION, IsNull(n), FALSE)        # in a SELECT item
    assert_rewrites(RULE, cond, FALSE, where=True)             # as a WHERE condition
    assert_unchanged(RULE, e)

`assert_rewrites` also checks that a second run returns the very same object (the rule
is at its fixed point) and that the schema (names, types) and the rewritten
expression's type did not change.  `assert_sql_rewrite` is the differential check:
optimize SQL with the given rules, check that the expected rule fired, and run the
original and the optimized SQL on Spark.
"""

from __future__ import annotations

from sparkfold.optimizer.batches import RULES
from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import logical as L
from sparkfold.plans.ir import types as T
from sparkfold.rules.base import Rule, RuleContext


def rule(name: str) -> Rule:
    return RULES[name]


def col(name: str, t: T.DataType = T.INT, nullable: bool = True) -> E.Attribute:
    return E.Attribute(name, t, nullable, E.new_id())


def lit(value, t: T.DataType | None = None) -> E.Literal:
    return E.lit(value, t)


def null(t: T.DataType = T.NULL) -> E.Literal:
    return E.Literal(None, t)


def _attributes(e: E.Expr) -> tuple[E.Attribute, ...]:
    seen: dict[int, E.Attribute] = {}
    for n in e.walk():
        if isinstance(n, E.Attribute):
            seen.setdefault(n.expr_id, n)
    return tuple(seen.values())


def wrap(e: E.Expr, where: bool = False) -> L.Plan:
    """A plan holding e: `SELECT e AS c FROM r`, or `SELECT * FROM r WHERE e`."""
    relation = L.Relation("r", _attributes(e) or (col("z"),))
    if where:
        return L.Filter(e, relation)
    return L.Project((E.Alias(e, "c", E.new_id()),), relation)


def unwrap(plan: L.Plan) -> E.Expr:
    if isinstance(plan, L.Filter):
        return plan.condition
    if isinstance(plan, L.Project) and isinstance(plan.projections[0], E.Alias):
        return plan.projections[0].child
    raise AssertionError(f"the rule changed the plan shape:\n{plan!r}")


def apply(r: Rule, x, where: bool = False, ctx: RuleContext | None = None):
    """(plan before, plan after) for an expression or a plan."""
    plan = x if isinstance(x, L.Plan) else wrap(x, where)
    return plan, r.apply(plan, ctx or RuleContext())


def _schema(plan: L.Plan):
    return [(a.name, a.data_type) for a in plan.output]


def assert_rewrites(r: Rule, before, after, where: bool = False, ctx: RuleContext | None = None):
    """r turns `before` (an expression or a plan) into `after`, keeps the schema and the
    expression's type, and is then at a fixed point."""
    ctx = ctx or RuleContext()
    plan, out = apply(r, before, where, ctx)
    assert out is not plan, f"{r.name} did not rewrite {before!r}"
    assert _schema(out) == _schema(plan), f"{r.name} changed the schema"
    got = out if isinstance(before, L.Plan) else unwrap(out)
    assert got == after, f"{r.name}:\n  before:   {before!r}\n  expected: {after!r}\n  got:      {got!r}"
    if isinstance(before, E.Expr) and not where:
        assert got.data_type == before.data_type, \
            f"{r.name} changed the type from {before.data_type} to {got.data_type}"
    again = r.apply(out, ctx)
    assert again is out, f"{r.name} is not at a fixed point after one run:\n{again!r}"
    return got


def assert_unchanged(r: Rule, x, where: bool = False, ctx: RuleContext | None = None):
    plan, out = apply(r, x, where, ctx)
    assert out is plan, f"{r.name} rewrote {x!r} into\n{(unwrap(out) if not isinstance(x, L.Plan) else out)!r}"


def fired(result, name: str) -> bool:
    return any(w.rule == name for w in result.trace)


def assert_sql_rewrite(spark, tables, sql: str, rule_names, expect: str | None = None):
    """Optimize sql with just these rules; the expected rule (default: the first) must
    have rewritten the plan, and Spark must return the same for both texts."""
    from sparkfold.optimizer import optimize

    from tests.spark_check import assert_same_result, is_ordered

    names = [rule_names] if isinstance(rule_names, str) else list(rule_names)
    result = optimize(sql, tables, rules=[RULES[n] for n in names])
    assert result.passthrough is None, result.passthrough
    expected = expect or names[0]
    assert fired(result, expected), f"{expected} did not fire on {sql}\n{result.optimized!r}"
    assert_same_result(spark, sql, result.sql, ordered=is_ordered(result.analyzed),
                       context=f"rules {names}")
    return result
