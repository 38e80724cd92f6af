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

The plan-level helpers: `run(sql, *rule_names)` optimizes with just those rules to a
fixed point; `spark_agrees(spark, result)` runs original and optimized SQL on Spark and
compares names, types, rows (or the error both raise); `nodes`, `filters`,
`join_types`, `attribute` look into a plan.
"""

from __future__ import annotations

from sparkfold.optimizer import optimize
from sparkfold.optimizer.batches import RULES
from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import logical as L
from sparkfold.plans.ir import types as T
from sparkfold.plans.ir.tree import collect
from sparkfold.rules.base import Rule, RuleContext

from tests.data import STANDARD_SCHEMA
from tests.spark_check import assert_same_result, is_ordered


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


# -- plan-level rules ------------------------------------------------------------------

SCHEMA = STANDARD_SCHEMA


def rules(*names):
    registry = RULES
    return [registry[n] for n in names]


def run(sql: str, *names: str, schema=None, exclude=()):
    """optimize() with only the named rules (all registered ones if none are named)."""
    if names:
        return optimize(sql, schema or SCHEMA, rules=rules(*names), exclude=exclude)
    return optimize(sql, schema or SCHEMA, exclude=exclude)


def rules_output(r) -> L.Plan:
    """The plan as the rules left it: before the optimizer's last step, which gives the
    output the original's nullability back (optimizer/output_nullability.py)."""
    from sparkfold.optimizer.output_nullability import NAME

    last = r.trace.rewrites[-1] if r.trace.rewrites else None
    return last.before if last is not None and last.rule == NAME else r.optimized


def nodes(plan: L.Plan, cls) -> list:
    """Operators of a kind, in subquery plans too."""
    out = []
    stack = [plan]
    while stack:
        p = stack.pop()
        for n in p.walk():
            if isinstance(n, cls):
                out.append(n)
            for e in n.expressions:
                for s in e.walk():
                    if isinstance(s, E.SubqueryExpr):
                        stack.append(s.plan)
    return out


def reads_no_table(plan: L.Plan) -> bool:
    return not nodes(plan, (L.Relation, L.OpaqueRelation))


def join_types(plan: L.Plan) -> list[str]:
    return [j.join_type for j in nodes(plan, L.Join)]


def filters(plan: L.Plan) -> list[L.Filter]:
    return nodes(plan, L.Filter)


def attribute(plan: L.Plan, name: str, where=None) -> list[E.Attribute]:
    """Attribute references named `name` in the expressions of operators of kind where."""
    out = []
    for n in plan.walk():
        if where is not None and not isinstance(n, where):
            continue
        if isinstance(n, (L.Relation, L.LocalRelation)):
            continue
        for e in n.expressions:
            out.extend(collect(e, lambda x: isinstance(x, E.Attribute) and x.name == name))
    return out


def text(x) -> str:
    """Plan or expression text without attribute ids (`num#3` -> `num`)."""
    import re

    from sparkfold.plans.ir.printer import expr_str, plan_str

    return re.sub(r"#\d+L?", "", plan_str(x) if isinstance(x, L.Plan) else expr_str(x))


def spark_agrees(spark, result) -> None:
    assert result.passthrough is None, result.passthrough
    assert_same_result(spark, result.original_sql, result.sql,
                       ordered=is_ordered(result.analyzed), context=result.original_sql)


def same_schema(a: L.Plan, b: L.Plan) -> bool:
    return [(x.name, x.data_type, x.expr_id) for x in a.output] == \
        [(x.name, x.data_type, x.expr_id) for x in b.output]
