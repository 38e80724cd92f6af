"""PropagateEmptyRelation (Catalyst's `PropagateEmptyRelationBase`), FoldEmptyAggregate
and FoldConstantAggregate.

An empty relation is a `LocalRelation` without rows.  Every replacement keeps the
operator's output: the same attribute ids, names and types (nullability may narrow),
and none is made when a column type is one the SQL generator cannot write as a typed
NULL (`T.UNKNOWN`).

PropagateEmptyRelation, per operator:
- Project, Filter, Sort, Limit, Offset, Distinct, a subquery alias over empty -> empty,
  but for one holding a constant expression that may raise (Spark's ConstantFolding
  evaluates it with no row: `SELECT 1/0 AS c FROM t WHERE FALSE` fails under ANSI);
  `LIMIT 0` -> empty (Catalyst's OptimizeLimitZero, which runs before ConstantFolding).
- A grouped Aggregate over empty -> empty.  A global one is NOT empty: it returns one
  row (SPARK-20686); FoldEmptyAggregate handles it.
- Joins (L / R: that side is empty; F: the condition is a FALSE or NULL literal):
  inner/cross with L, R or F -> empty; left outer, semi, anti with L -> empty;
  semi with R or F -> empty; anti with R or F -> left; full outer with L and R -> empty;
  left/full outer with R, and left outer with F -> left padded with typed NULLs for the
  right columns; right/full outer with L, and right outer with F -> right padded.  The
  padding is a Project that re-uses the padded attributes' ids and names (SPARK-22615).
  Full outer with F is left alone (both sides would have to be kept).
- A LATERAL join (an opaque block whose operators sparkfold knows) over an empty left,
  inner, cross or left, with nothing between that makes a row of none -> empty.
- Union: empty inputs are dropped; all empty -> empty; when the first input goes, a
  Project keeps the old output ids and names (SPARK-32241).
- Intersect [ALL] with an empty side -> empty.  Except [ALL] with an empty left ->
  empty; with an empty right -> the left (EXCEPT ALL) or its DISTINCT (EXCEPT).

FoldEmptyAggregate: a global Aggregate over empty input is its one row of empty-input
values (count, count_if -> 0; the other modelled aggregates -> NULL), as a Project of
the aggregate expressions over the one-row relation, which evaluates them exactly once,
as the aggregate did (so errors and non-deterministic calls are kept).

FoldConstantAggregate (beyond Catalyst): a global Aggregate with no aggregate function
left (after `count(NULL)` -> 0, say) returns one row whatever its input; it becomes the
same Project over the one-row relation, but only when evaluating the input cannot raise
(reading it could fail the query; not reading it would hide that).
"""

from __future__ import annotations

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from ..plans.ir import types as T
from ..plans.ir.functions import EMPTY_INPUT_ZERO
from .base import plan_rule, transform_up_typed
from .prune_filters import folding_may_raise, writable

_empty = L.is_empty_relation


def _empty_of(p: L.Plan) -> L.Plan:
    return L.empty_like(p) if writable(p.output) else p


def _never_matches(cond: E.Expr | None) -> bool:
    return isinstance(cond, E.Literal) and (cond.value is False or cond.value is None)


def _non_empty(p: L.Plan) -> bool:
    return isinstance(p, L.OneRowRelation) or (isinstance(p, L.LocalRelation) and bool(p.rows))


def _pad(keep: L.Plan, padded: L.Plan, join: L.Join, keep_left: bool) -> L.Plan:
    """Project(keep.output ++ NULLs for padded.output) in the join's column order."""
    if not writable(padded.output):
        return join
    nulls: list[E.Expr] = [E.Alias(E.Literal(None, a.data_type), a.name, a.expr_id) for a in padded.output]
    kept: list[E.Expr] = list(keep.output)
    return L.Project(tuple(kept + nulls if keep_left else nulls + kept), keep)


# every case involves an empty or one-row relation, a LIMIT 0 or a literal FALSE condition
@plan_rule("PropagateEmptyRelation", needs=(L.LocalRelation, L.OneRowRelation, L.Limit, L.Offset, E.Literal),
           catalyst="PropagateEmptyRelation")
def propagate_empty_relation(p: L.Plan, ctx) -> L.Plan:
    """Operators over an empty relation become empty (or the non-empty side, padded)."""
    match p:
        case L.Project(_, c) | L.Filter(_, c) | L.Sort(_, c) | L.Limit(_, c) | L.Offset(_, c) \
                | L.Distinct(c) | L.SubqueryAlias(_, c) if _empty(c) and not folding_may_raise(p):
            return _empty_of(p)  # unary operator over empty -> empty (a constant that may
            # raise stays: Spark's ConstantFolding evaluates it, rows or none)
        case L.Limit(0, _):
            return _empty_of(p)  # LIMIT 0 -> empty
        case L.Offset(n, c) if n >= 1 and _at_most_one_row(c) and not plan_may_raise(c):
            return _empty_of(p)  # OFFSET 1 over one row -> empty (Catalyst's EliminateOffsets)
        case L.Aggregate(grouping, _, c) if grouping and _empty(c):
            return _empty_of(p)  # grouped aggregate over empty -> empty (a global one is not)
        case L.Join(left, right, jt, cond):
            return _join(p, left, right, jt, cond)
        case L.OpaqueRelation(inputs=inputs, model=model) if model is not None and inputs and _empty(inputs[0]) \
                and _empty_with_its_left(model) and not plan_may_raise(model):
            return _empty_of(p)  # a LATERAL block over an empty left -> empty
        case L.Union(inputs) if any(_empty(i) for i in inputs):
            return _union(p, inputs)
        case L.Intersect(left, right) if _empty(left) or _empty(right):
            return _empty_of(p)  # nothing in common with nothing
        case L.Except(left, _) if _empty(left):
            return _empty_of(p)  # empty EXCEPT anything -> empty
        case L.Except(left, right, all_) if _empty(right):
            return left if all_ else L.Distinct(left)  # x EXCEPT [ALL] empty -> x [distinct]
        case _:
            return p


def _at_most_one_row(p: L.Plan) -> bool:
    match p:
        case L.OneRowRelation() | L.Aggregate((), _, _):
            return True
        case L.LocalRelation(_, rows):
            return len(rows) <= 1
        case L.Limit(n, c):
            return n <= 1 or _at_most_one_row(c)
        case L.Project(_, c) | L.Filter(_, c) | L.Sort(_, c) | L.SubqueryAlias(_, c) | L.Distinct(c) \
                | L.Offset(_, c):
            return _at_most_one_row(c)
        case _:
            return False


def _empty_with_its_left(model: L.Plan) -> bool:
    """Is an opaque block (a LATERAL join, `model` its operators) empty when the left of
    its innermost LateralJoin (the block's first input) is?  So when every operator
    down to it keeps no row of nothing: inner, cross and left LateralJoins (on their
    left), Projects, Filters, sorts, limits, DISTINCT (no aggregate: a global one
    gives a row)."""
    joins = 0
    p = model
    while True:
        match p:
            case L.LateralJoin(left, _, jt) if jt in (L.INNER, L.CROSS, L.LEFT_OUTER):
                joins += 1
                p = left
            case L.Project(_, c) | L.Filter(_, c) | L.Sort(_, c) | L.Limit(_, c) | L.Offset(_, c) \
                    | L.Distinct(c) | L.SubqueryAlias(_, c):
                if joins:
                    return True  # (below the innermost LateralJoin: the block's input)
                p = c
            case L.LateralJoin():
                return False
            case _:
                return joins > 0


def _join(p: L.Join, left, right, jt, cond) -> L.Plan:
    le, re, never = _empty(left), _empty(right), _never_matches(cond)
    match jt:
        case L.INNER | L.CROSS if le or re or never:
            return _empty_of(p)
        case L.LEFT_OUTER | L.LEFT_SEMI | L.LEFT_ANTI if le:
            return _empty_of(p)  # no left rows, no output
        case L.LEFT_SEMI if re or never:
            return _empty_of(p)  # nothing to match
        case L.LEFT_ANTI if re or never:
            return left  # nothing matches: every left row
        case L.LEFT_SEMI if cond is None and _non_empty(right):
            return left  # every left row has a match
        case L.LEFT_ANTI if cond is None and _non_empty(right):
            return _empty_of(p)  # every left row has a match
        case L.FULL_OUTER if le and re:
            return _empty_of(p)
        case L.RIGHT_OUTER if re:
            return _empty_of(p)  # no right rows, no output
        case L.LEFT_OUTER | L.FULL_OUTER if re:
            return _pad(left, right, p, keep_left=True)
        case L.LEFT_OUTER if never:
            return _pad(left, right, p, keep_left=True)
        case L.RIGHT_OUTER | L.FULL_OUTER if le:
            return _pad(right, left, p, keep_left=False)
        case L.RIGHT_OUTER if never:
            return _pad(right, left, p, keep_left=False)
        case _:
            return p


def _union(p: L.Union, inputs) -> L.Plan:
    """Drop the empty inputs, keeping the union's output ids and names."""
    rest = [i for i in inputs if not _empty(i)]
    if not rest:
        return _empty_of(p)
    out = rest[0] if len(rest) == 1 else L.Union(tuple(rest), p.all)
    old, new = p.output, out.output
    if any(a.data_type != b.data_type for a, b in zip(old, new)):
        return p  # inputs of different types: Spark casts them; not modelled here
    if all(a.expr_id == b.expr_id and a.name == b.name for a, b in zip(old, new)):
        return out
    return L.Project(tuple(b if (a.expr_id == b.expr_id and a.name == b.name)
                           else E.Alias(b, a.name, a.expr_id) for a, b in zip(old, new)), out)


# ---------------------------------------------------------------------------
# Global aggregates that need not read their input
# ---------------------------------------------------------------------------


def _empty_value(agg: E.Agg) -> E.Literal | None:
    """The value of a modelled aggregate over no rows, or None when not known."""
    if T.contains_unknown(agg.data_type):
        return None
    if agg.name in EMPTY_INPUT_ZERO:
        return E.Literal(0, agg.data_type)
    if agg.name in ("collect_list", "collect_set"):
        return None  # an empty array: not written as a literal here
    return E.Literal(None, agg.data_type)


def _one_row(p: L.Aggregate, aggregates) -> L.Plan:
    """Project(aggregates, OneRowRelation) when it is self-contained and writable."""
    if any(e.references for e in aggregates) or not writable(p.output):
        return p
    if any(e.deep_mask & E.Opaque.bit for e in aggregates):
        return p  # an unmodelled function: not looked into, not moved
    return L.Project(tuple(aggregates), L.OneRowRelation())


@plan_rule("FoldEmptyAggregate", needs=(L.Aggregate,))
def fold_empty_aggregate(p: L.Plan, ctx) -> L.Plan:
    """A global aggregate over an empty input -> its one row of empty-input values."""
    match p:
        case L.Aggregate((), aggregates, child) if _empty(child):
            failed = []

            def value(e):
                if isinstance(e, E.Agg):
                    v = _empty_value(e)
                    if v is None:
                        failed.append(e)
                        return e
                    return v
                return e

            # typed: an operator whose type depends on its operands' form keeps them (a
            # literal 0 for count makes `min(d) * count(k)` decimal(p+2, s), not p+21)
            folded = [transform_up_typed(a, value, mask=E.Agg.bit, opaque=(E.Opaque,)) for a in aggregates]
            if failed or any(E.contains_aggregate(a) for a in folded):
                return p
            return _one_row(p, folded)
        case _:
            return p


def plan_may_raise(plan: L.Plan) -> bool:
    """Could evaluating this plan raise (under ANSI)?  Unmodelled relations might."""
    for n in plan.walk():
        if isinstance(n, L.OpaqueRelation):
            return True
        if any(e.may_raise for e in n.expressions):
            return True
    return False


@plan_rule("FoldConstantAggregate", needs=(L.Aggregate,))
def fold_constant_aggregate(p: L.Plan, ctx) -> L.Plan:
    """A global aggregate without aggregate functions -> one constant row, unread input."""
    match p:
        case L.Aggregate((), aggregates, child) if not _empty(child) \
                and not any(E.contains_aggregate(a) for a in aggregates) \
                and not plan_may_raise(child):
            return _one_row(p, aggregates)
        case _:
            return p
