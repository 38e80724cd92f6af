"""A block with a LATERAL subquery as operators (`lateral_join`): its WHERE below the join
where Catalyst puts it, and the block as `L.LateralJoin`s under its clauses, the model the
DataFrame writer lowers to `lateralJoin`."""

from __future__ import annotations

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir import types as T
from ..ir.errors import AnalysisError
from ..ir.tree import mask_of, transform_up
from .expr_context import Ctx, NotModelled, calls_nondeterministic, require_boolean
from .scope import Scope

# what a conjunct moved below the LATERAL join may not hold (as rules.pushdown's)
_BLOCKED = mask_of(E.ScalarSubquery, E.Exists, E.InSubquery, E.Opaque)


def join_step(analyzer, j: exp.Join, plan: L.Plan, output: list[E.Attribute], scope: Scope,
          steps: list) -> list | None:
    """The LATERAL item as a join (its columns `output`, fresh where the subquery's were an
    earlier item's), or None where its ON condition is not analyzed as Spark's."""
    fresh = [E.Alias(a, o.name, o.expr_id) if a.expr_id != o.expr_id else a for a, o in zip(plan.output, output)]
    right = L.Project(tuple(fresh), plan) if any(isinstance(e, E.Alias) for e in fresh) else plan
    on = j.args.get("on")
    side = (j.side or "").upper()
    if side not in ("", "LEFT"):
        return None  # (Spark rejects a RIGHT or FULL one: INVALID_LATERAL_JOIN_TYPE)
    if side == "LEFT":
        join_type = L.LEFT_OUTER
    elif on is None:
        join_type = L.CROSS
    else:
        join_type = L.INNER
    condition = None
    if on is not None:
        if calls_nondeterministic(on):
            return None
        prev = analyzer.exprs.observer
        analyzer.exprs.observer = None
        try:
            condition = require_boolean(analyzer.exprs.analyze(on.copy(), Ctx(scope, clause="JOIN ON",
                                                                               unnamed_ok=True)), "JOIN ON")
        except (AnalysisError, NotModelled):
            return None
        finally:
            analyzer.exprs.observer = prev
    return steps + [(join_type, right, condition)]


def inner_join(j: exp.Join) -> bool:
    """`, LATERAL`, `[INNER | CROSS] JOIN LATERAL`: every row has a row of the subquery."""
    return not j.side and (j.kind or "").upper() in ("", "INNER", "CROSS")


def input_values(plan, input_ids: set[int]) -> list[E.Attribute | None]:
    """Per output column of a LATERAL subquery, the input column it equals on every row
    (a select item `x.a` or `x.a AS c` of its top SELECT), else None."""
    top = plan
    while isinstance(top, (L.Sort, L.Limit, L.Offset, L.Distinct, L.Filter, L.SubqueryAlias)):
        top = top.children[0]
    if not isinstance(top, L.Project):
        return [None] * len(plan.output)
    out: list[E.Attribute | None] = []
    for e in top.projections:
        v = e.child if isinstance(e, E.Alias) else e
        out.append(v if isinstance(v, E.Attribute) and v.expr_id in input_ids else None)
    return out


def filter_input(analyzer, template: exp.Expression, plan, scope: Scope, later: list[exp.Join],
                 equal: dict[int, E.Attribute]):
    """The block's WHERE over its input, as Catalyst pushes it below the LATERAL join (into
    the left side of inner and left joins): a conjunct that reads only the input moves
    into a Filter over it; one that reads columns of inner LATERAL subqueries equal to
    input columns (`equal`) stays, and its copy over those input columns goes below too
    (`WHERE t.a = s.c` over `LATERAL (SELECT x.b AS c ...) s` holds `t.a = x.b`), so the
    rules see the input's rows as Spark does (EliminateOuterJoin).  Only when every
    conjunct is deterministic and cannot raise (the lateral subqueries and the other
    conjuncts are then computed on fewer rows, as on Spark), and the FROM items after the
    input are inner or left joins.  Returns the input plan."""
    where = template.args.get("where")
    if where is None or any(j.side and j.side.upper() != "LEFT" for j in later):
        return plan
    nodes: list = list(where.this.flatten()) if isinstance(where.this, exp.And) else [where.this]
    prev = analyzer.exprs.observer
    analyzer.exprs.observer = None  # (the copies analyzed are no source's)
    try:
        conds = [analyzer.exprs.analyze(n.copy(), Ctx(scope, clause="WHERE")) for n in nodes]
    except (AnalysisError, NotModelled):
        return plan
    finally:
        analyzer.exprs.observer = prev
    if not all(c.data_type == T.BOOLEAN and c.deterministic and not c.may_raise and
               not (c.deep_mask & _BLOCKED) for c in conds):
        return plan
    own = {a.expr_id for a in plan.output}
    below: list[E.Expr] = []
    kept: list[exp.Expression] = []
    for node, c in zip(nodes, conds):
        if c.references <= own:
            below.append(c)
            continue
        kept.append(node)
        if c.references <= own | equal.keys():
            below.append(transform_up(c, lambda x: equal.get(x.expr_id, x) if isinstance(x, E.Attribute) else x))
    if not below:
        return plan
    template.set("where", exp.Where(this=exp.and_(*kept, copy=False)) if kept else None)
    return L.Filter(require_boolean(E.conjunction(below), "WHERE"), plan)


def lateral_model(analyzer, sel: exp.Select, plan: L.Plan, scope: Scope, steps: list | None,
                  output: list[E.Attribute]) -> L.Plan | None:
    """The block as operators over its input `plan` and the LATERAL joins (`steps`), for the
    DataFrame writer (`OpaqueRelation.model`); None where a clause is not analyzed (the
    block then runs as SQL text there too)."""
    if not steps or any(a.name == "*" for a in output):
        return None
    model = plan
    for join_type, right, condition in steps:
        model = L.LateralJoin(model, right, join_type, condition)
    prev, recorded = analyzer.exprs.observer, analyzer.recorded
    analyzer.exprs.observer = analyzer.recorded = None  # (what the text's findings map to is the block's)
    try:
        model = analyzer.select_over(sel, model, scope)
    except (AnalysisError, NotModelled):
        return None
    finally:
        analyzer.exprs.observer, analyzer.recorded = prev, recorded
    if [a.name for a in model.output] != [a.name for a in output]:
        return None
    return model
