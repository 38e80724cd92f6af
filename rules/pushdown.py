"""PushDownPredicates (Catalyst's `PushDownPredicates`: CombineFilters,
PushPredicateThroughNonJoin and PushPredicateThroughJoin, Optimizer.scala).

Query builders nest: ibis writes `left_join(...).filter(u.y > 0)` as
`SELECT ... FROM (... LEFT OUTER JOIN ...) AS t4 WHERE t4.y > 0`, where the filter is
out of EliminateOuterJoin's and PruneFilters' reach.  This rule moves a Filter's
conjuncts down:

- through a SubqueryAlias, a Sort, and a Project (the Project's aliases substituted
  into the conjuncts, as Catalyst's `replaceAlias` does);
- into a Filter below (CombineFilters);
- into each input of a Union (its columns by position);
- below an Aggregate, when a conjunct reads only grouping values, and below a Distinct.

It stops at a join: a Filter right above a Join is what EliminateOuterJoin and the
constraint rules read, and Catalyst, which re-optimizes the query on submission, pushes
into the join's sides itself; in the SQL written back, a side filtered apart is one
more subquery for a reviewer to read (the review issue).

Moving a predicate changes which rows, and in which order, each expression is evaluated
on.  That cannot change a result, but it could raise an error the original does not
raise (a conjunct evaluated on rows another conjunct used to remove).  So every
conjunct of the filter must be deterministic and error-free (no ANSI division, cast or
overflow), with no subquery or opaque expression in it.  The operator passed must be
deterministic too, but its own expressions may raise: a projection or an aggregate is
then computed on fewer rows, which could hide an error, except that Catalyst makes the
very same move on the original query (PushPredicateThroughNonJoin passes any
deterministic Project or Aggregate), so on Spark neither form computes them on the rows
the filter removes.

A moved filter is not a rewrite a user needs to see: when no other rule changed the
query, its text is kept as written (`rewrites=False`).

Grouping and DISTINCT compare values with `=`, and `=` treats some different values as
one (0.0 and -0.0; Spark normalizes them in grouping keys): a conjunct that could tell
them apart (`1 / x > 0`) may hold for the group's key and not for each of its rows.  A
conjunct goes below an Aggregate, a Distinct or a UNION DISTINCT only if every column
it reads has a type whose equal values are identical (integers, decimals, strings,
booleans, dates, timestamps, binary).  A Project's alias of a constant is not
substituted: Spark types an operator after a literal operand's digits, so `d + one`
and `d + 1` may differ in type, and a constant moved where the rules fold it would
leave the optimized text open to one more rewrite.
"""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from ..plans.ir.tree import mask_of
from .base import plan_rule
from .constraints import substitute
from .predicates import exact_type

_BLOCKED = mask_of(E.ScalarSubquery, E.Exists, E.InSubquery, E.Opaque)


def _safe(e: E.Expr) -> bool:
    """Can e be evaluated on other rows, or in another order, with no visible change?"""
    return _passable(e) and not e.may_raise


def _passable(e: E.Expr) -> bool:
    """Can a filter move below an operator that computes e (as Catalyst moves it)?"""
    return e.deterministic and not (e.deep_mask & _BLOCKED)


def _constant(e: E.Expr | None) -> bool:
    """An alias of a constant is not substituted (see the module's note on literals)."""
    return e is not None and e.foldable


def _reads_exact(e: E.Expr) -> bool:
    return all(exact_type(n.data_type) for n in e.walk() if isinstance(n, E.Attribute))


@plan_rule("PushDownPredicates", needs=(L.Filter,), catalyst="PushDownPredicates", rewrites=False)
def push_down_predicates(p: L.Plan, ctx) -> L.Plan:
    """Move a filter's conjuncts below projections, aliases, unions and grouping, down to a join."""
    match p:
        case L.Filter(cond, child) if _safe(cond):
            pushed = _push(E.split_conjuncts(cond), child)
            return p if pushed is None else pushed
        case _:
            return p


def _below(conjuncts: list[E.Expr], plan: L.Plan) -> L.Plan:
    """plan filtered by the conjuncts, pushed as deep as they go."""
    pushed = _push(conjuncts, plan)
    return pushed if pushed is not None else L.Filter(E.conjunction(conjuncts), plan)


def _push(conjuncts: list[E.Expr], child: L.Plan) -> L.Plan | None:
    """`Filter(conjuncts, child)` with the conjuncts moved into child; None if none moves."""
    match child:
        case L.SubqueryAlias(alias, grand):  # a filter right under an alias is a subquery more
            inner = _push(conjuncts, grand)
            return None if inner is None else L.SubqueryAlias(alias, inner)
        case L.Sort(orders, grand) if all(_passable(o) for o in orders):
            return L.Sort(orders, _below(conjuncts, grand))
        case L.Filter(cond, grand) if _safe(cond):
            return _below(E.split_conjuncts(cond) + conjuncts, grand)
        case L.Project(projections, grand) if all(_passable(x) for x in projections):
            aliases = {x.expr_id: x.child for x in projections if isinstance(x, E.Alias)}
            if any(_constant(aliases.get(r)) for c in conjuncts for r in c.references):
                return None
            return L.Project(projections, _below([substitute(c, aliases) for c in conjuncts], grand))
        case L.Union(_, all_) if all_ or all(_reads_exact(c) for c in conjuncts):
            return _into_union(conjuncts, child)
        case L.Distinct(grand) if all(_reads_exact(c) for c in conjuncts):
            return L.Distinct(_below(conjuncts, grand))
        case L.Aggregate() if child.grouping:
            return _into_aggregate(conjuncts, child)
        case _:
            return None


def _into_union(conjuncts: list[E.Expr], union: L.Union) -> L.Plan | None:
    first = union.inputs[0].output
    inputs = []
    for plan in union.inputs:
        if any(a.data_type != b.data_type for a, b in zip(first, plan.output)):
            return None
        columns = {a.expr_id: b for a, b in zip(first, plan.output)}
        inputs.append(_below([substitute(c, columns) for c in conjuncts], plan))
    return union.copy(inputs=tuple(inputs))


def _into_aggregate(conjuncts: list[E.Expr], agg: L.Aggregate) -> L.Plan | None:
    """Conjuncts over grouping values go below; Catalyst requires what this does."""
    if not all(_passable(x) for x in agg.grouping + agg.aggregates):
        return None
    values = {x.expr_id: x.child for x in agg.aggregates
              if isinstance(x, E.Alias) and not E.contains_aggregate(x.child)}
    inputs = agg.child.output_ids
    down, stay = [], []
    for c in conjuncts:
        moved = substitute(c, values)
        if (c.references and moved.references <= inputs and _reads_exact(moved)
                and not any(_constant(values.get(r)) for r in c.references)):
            down.append(moved)
        else:
            stay.append(c)
    if not down:
        return None
    new = agg.copy(child=_below(down, agg.child))
    return L.Filter(E.conjunction(stay), new) if stay else new
