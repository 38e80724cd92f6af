"""Helpers for the plan-level rule tests (no tests here).

`run(sql, *rule_names)` optimizes with just those rules to a fixed point;
`spark_agrees(spark, result)` runs original and optimized SQL on Spark and compares
names, types, rows (or the error both raise)."""

from __future__ import annotations

from sparkfold.optimizer import optimize
from sparkfold.optimizer.batches import RULES
from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import logical as L
from sparkfold.plans.ir.tree import collect

from tests.data import STANDARD_SCHEMA
from tests.spark_check import assert_same_result, is_ordered

SCHEMA = STANDARD_SCHEMA


def rules(*names):
    registry = RULES
    return [registry[n] for n in names]


def run(sql: str, *names: str, schema=None, exclude=()):
    """optimize() with only the named rules (all registered ones if none are named)."""
    if names:
        return optimize(sql, schema or SCHEMA, rules=rules(*names), exclude=exclude)
    return optimize(sql, schema or SCHEMA, exclude=exclude)


def fired(result, name: str) -> bool:
    return any(w.rule == name for w in result.trace)


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
