"""EliminateOuterJoin (Catalyst's `EliminateOuterJoin`, joins.scala).

A Filter over an outer join drops every row whose predicate is NULL or FALSE.  If a
conjunct is NULL or FALSE whenever all columns of the NULL-padded side are NULL
("null-rejecting"), no padded row survives, and the join may as well not pad:
left outer with a right-rejecting conjunct -> inner; right outer with a left-rejecting
one -> inner; full outer with both -> inner, with only left -> left outer (the
right-padded rows survive), with only right -> right outer.  Only the join type
changes; the Filter stays.

Null rejection is decided structurally, by a three-valued abstract evaluation: each
expression gets the set of results it may have ({TRUE, FALSE, NULL} for predicates,
{NULL, value} otherwise) when the side's attributes are NULL and everything else is
unknown.  Null-intolerant expressions with a NULL input are NULL; And, Or, Not, IS
[NOT] NULL, <=>, coalesce, IF, CASE WHEN, IN, between, isnan and nanvl are followed
exactly; anything else may be anything.  A conjunct rejects only if it is deterministic,
has no subquery, cannot raise on the padded row (Catalyst treats an error in its trial
evaluation as "not rejecting", SPARK-38868), and its result set has no TRUE.
So `coalesce(e, a) = 0` and `isnotnull(coalesce(e, a))` do not reject (SPARK-16991).
As in Catalyst (which also tries the filter's constraints), a side is rejected too
when a conjunct implies `IsNotNull` of one of its attributes (`t.b + 3 = u.e`).
"""

from __future__ import annotations

from typing import cast

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from ..plans.ir import types as T
from ..plans.ir.tree import fold
from .base import plan_rule
from .constraints import is_null_intolerant, non_null_attributes, substitute, usable

TRUE, FALSE, NULL, VALUE = "T", "F", "N", "V"
_BOOLS = frozenset((TRUE, FALSE, NULL))
_ANY = frozenset((VALUE, NULL))
_ONLY_NULL = frozenset((NULL,))


def _unknown(e: E.Expr) -> frozenset:
    if e.data_type == T.BOOLEAN:
        return _BOOLS if e.nullable else frozenset((TRUE, FALSE))
    return _ANY if e.nullable else frozenset((VALUE,))


def _not(s):
    return frozenset({TRUE: FALSE, FALSE: TRUE}.get(x, x) for x in s)


def _and(a, b):
    out = set()
    for x in a:
        for y in b:
            out.add(FALSE if FALSE in (x, y) else NULL if NULL in (x, y) else TRUE)
    return frozenset(out)


def _or(a, b):
    out = set()
    for x in a:
        for y in b:
            out.add(TRUE if TRUE in (x, y) else NULL if NULL in (x, y) else FALSE)
    return frozenset(out)


def _is_null(s):
    return frozenset(([TRUE] if NULL in s else []) + ([FALSE] if s - _ONLY_NULL else []))


def _values(e: E.Expr, args, null_ids) -> frozenset:
    """The possible results of e given its children's possible results."""
    match e:
        case E.Attribute():
            return _ONLY_NULL if e.expr_id in null_ids else _unknown(e)
        case E.Literal(value):
            if value is None:
                return _ONLY_NULL
            if e.data_type == T.BOOLEAN:
                return frozenset((TRUE if value else FALSE,))
            return frozenset((VALUE,))
        case E.Not():  # NOT TRUE = FALSE, NOT NULL = NULL
            return _not(args[0])
        case E.And():
            return _and(args[0], args[1])
        case E.Or():
            return _or(args[0], args[1])
        case E.IsNull():
            return _is_null(args[0])
        case E.IsNotNull():
            return _not(_is_null(args[0]))
        case E.EqualNullSafe():  # NULL <=> NULL is TRUE, NULL <=> value is FALSE
            out = set()
            for x in args[0]:
                for y in args[1]:
                    if x == NULL and y == NULL:
                        out.add(TRUE)
                    elif NULL in (x, y):
                        out.add(FALSE)
                    else:
                        out.update((TRUE, FALSE))
            return frozenset(out)
        case E.Coalesce():  # the first non-NULL argument
            out = set()
            for s in args:
                out |= s - _ONLY_NULL
                if NULL not in s:
                    return frozenset(out)
            return frozenset(out | {NULL})
        case E.If():
            p, t, o = args
            out = set()
            if TRUE in p:
                out |= t
            if p - {TRUE}:
                out |= o
            return frozenset(out)
        case E.CaseWhen(branches, otherwise):
            out = set()
            for i in range(len(branches)):
                cond, value = args[2 * i], args[2 * i + 1]
                if TRUE in cond:
                    out |= value
                if cond == {TRUE}:
                    return frozenset(out)
            return frozenset(out | (args[-1] if otherwise is not None else _ONLY_NULL))
        case E.In(_, items) if items and args[0] == _ONLY_NULL:
            return _ONLY_NULL  # NULL IN (...) is NULL
        case E.Func("between"):  # v >= lo AND v <= hi
            v, lo, hi = args
            ge = _ONLY_NULL if _ONLY_NULL in (v, lo) else _unknown(e)
            le = _ONLY_NULL if _ONLY_NULL in (v, hi) else _unknown(e)
            return _and(ge, le)
        case E.Func("isnan") if args[0] == _ONLY_NULL:
            return frozenset((FALSE,))
        case E.Func("nanvl") if args[0] == _ONLY_NULL:
            return _ONLY_NULL
        case _ if is_null_intolerant(e) and any(a == _ONLY_NULL for a in args):
            return _ONLY_NULL  # a NULL input gives NULL
        case _:
            return _unknown(e)


def _may_raise(e: E.Expr, args, raises) -> bool:
    """Could evaluating e raise on the padded row?  A null-intolerant expression with a
    NULL input returns NULL without computing; otherwise its own checks may fire."""
    if any(raises):
        return True
    if is_null_intolerant(e) and any(a == _ONLY_NULL for a in args):
        return False
    if isinstance(e, E.ScalarSubquery):
        return False  # uncorrelated (see rejects_nulls): run once per query, not per row
    return e._self_may_raise() if not isinstance(e, (E.Literal, E.Attribute)) else False


def _row_independent_subqueries(pred: E.Expr) -> bool:
    """Are pred's subqueries all uncorrelated scalar subqueries (and nothing opaque)?
    Spark computes such a subquery once for the query, whatever rows reach the filter
    (`t1a < (SELECT max(x) FROM t3)` still rejects a NULL t1a; Catalyst reads it so)."""
    if not pred.deep_mask & _SUBQUERIES:
        return True
    return all(not isinstance(n, (E.Exists, E.InSubquery, E.Opaque))
               and not (isinstance(n, E.ScalarSubquery) and n.outer_references)
               for n in pred.walk())


def rejects_nulls(pred: E.Expr, null_ids: frozenset[int]) -> bool:
    """Is pred NULL or FALSE (and error-free) whenever the attributes null_ids are NULL?"""
    if not pred.deterministic or not (pred.references & null_ids) or not _row_independent_subqueries(pred):
        return False

    def step(e, results):
        args = [r[0] for r in results]
        return _values(e, args, null_ids), _may_raise(e, args, [r[1] for r in results])

    values, raises = fold(pred, step)
    return not raises and TRUE not in values


_SUBQUERIES = E.ScalarSubquery.bit | E.Exists.bit | E.InSubquery.bit | E.Opaque.bit


def _compares_scalar_subquery(c: E.Expr) -> bool:
    """Is c deterministic, with scalar subqueries (correlated or not) as its only
    subqueries?  `t1a < (SELECT max(x) FROM t2 WHERE t2c = t1c)` is TRUE only for a
    non-NULL t1a, whatever the subquery gives.  Catalyst makes the join below inner too
    (it rewrites the subquery as a join of its aggregate and infers IS NOT NULL(t1a)
    from the comparison), so Spark never evaluates the subquery on the padded rows the
    original would remove either."""
    return c.deterministic and bool(c.deep_mask & E.ScalarSubquery.bit) \
        and not c.deep_mask & (E.Exists.bit | E.InSubquery.bit | E.Opaque.bit)


def _new_join_type(jt: str, left_rejected: bool, right_rejected: bool) -> str:
    match jt:
        case L.LEFT_OUTER if right_rejected:
            return L.INNER
        case L.RIGHT_OUTER if left_rejected:
            return L.INNER
        case L.FULL_OUTER if left_rejected and right_rejected:
            return L.INNER
        case L.FULL_OUTER if left_rejected:
            return L.LEFT_OUTER  # rows padded on the left are dropped, right-padded kept
        case L.FULL_OUTER if right_rejected:
            return L.RIGHT_OUTER
        case _:
            return jt


def _eliminate(cond: E.Expr, join: L.Join) -> L.Join:
    if join.join_type not in (L.LEFT_OUTER, L.RIGHT_OUTER, L.FULL_OUTER):
        return join
    conjuncts = E.split_conjuncts(cond)
    # Catalyst's candidates also include the filter's IS NOT NULL constraints: a TRUE
    # conjunct implies its null-intolerant attributes are not NULL (`b + 3 = e`)
    not_null = {a.expr_id for c in conjuncts if usable(c) or _compares_scalar_subquery(c)
                for a in non_null_attributes(c)}
    left_ids, right_ids = join.left.output_ids, join.right.output_ids
    left = join.join_type != L.LEFT_OUTER and (
        bool(not_null & left_ids) or any(rejects_nulls(c, left_ids) for c in conjuncts))
    right = join.join_type != L.RIGHT_OUTER and (
        bool(not_null & right_ids) or any(rejects_nulls(c, right_ids) for c in conjuncts))
    jt = _new_join_type(join.join_type, left, right)
    return join if jt == join.join_type else join.copy(join_type=jt)


@plan_rule("EliminateOuterJoin", needs=(L.Join,), catalyst="EliminateOuterJoin")
def eliminate_outer_join(p: L.Plan, ctx) -> L.Plan:
    """Filter(null-rejecting, outer join) -> the same filter over a less outer join; an
    outer join whose padded side nothing above reads, when it cannot change the rows
    that are read -> its preserved side."""
    match p:
        case L.Filter(cond, L.Join() | L.SubqueryAlias(_, L.Join()) as child):  # WHERE rejects the padded rows
            new = _less_outer_below(child, cond, _deep_conjuncts(cond))
            return p if new is child else L.Filter(cond, new)
        # a join's condition rejects the padded rows of an outer join below it, on a side
        # whose rows that fail the condition do not reach the result: `x LEFT JOIN u ...
        # JOIN y ON y.b = u.b` (Catalyst infers IS NOT NULL(u.b) below the join first);
        # not when the condition may raise: it is evaluated on the padded rows too
        case L.Join(left, right, jt, cond) if cond is not None and cond.deterministic \
                and not cond.may_raise and not cond.deep_mask & _SUBQUERIES:
            new_left = _less_outer(left, cond) if jt in (L.INNER, L.LEFT_SEMI, L.RIGHT_OUTER) else left
            new_right = _less_outer(right, cond) if jt in (L.INNER, L.LEFT_OUTER, L.LEFT_SEMI, L.LEFT_ANTI) \
                else right
            return p if new_left is left and new_right is right else p.copy(left=new_left, right=new_right)
        # Project(only the kept side's columns, LEFT JOIN whose other side matches each row
        # at most once) -> the kept side: every kept row comes out exactly once
        case L.Project(projections, L.Join(_, _, L.LEFT_OUTER | L.RIGHT_OUTER) as join) \
                if (_unread_side(join, _references(projections)) is not None and _at_most_one_match(join)) \
                or _dropped_by_catalyst(join, _references(projections)):
            return L.Project(projections, _kept_side(join))
        # Aggregate(only the kept side's columns, duplicate-agnostic aggregates: grouping,
        # min, max, DISTINCT) over an outer join -> over the kept side: the join only
        # repeats kept rows (each at least once), which these aggregates do not see; the
        # same through the row-by-row operators between them (a WHERE on the kept side, a
        # subquery's alias, a select list), as Catalyst reaches it by pushing the WHERE
        # into the kept side first
        case L.Aggregate(grouping, aggregates, child) if all(_duplicate_agnostic(a) for a in aggregates):
            kept = _without_unread_side(child, _references(grouping + aggregates))
            return p if kept is None else L.Aggregate(grouping, aggregates, kept)
        # SELECT DISTINCT of the kept side's columns: the same, for a Distinct
        case L.Distinct(L.Project() | L.Filter() | L.SubqueryAlias() as child):
            kept = _without_unread_side(child, child.output_ids)
            return p if kept is None else L.Distinct(kept)
        case _:
            return p


def _without_unread_side(plan: L.Plan, read: frozenset[int]) -> L.Plan | None:
    """plan, a chain of row-by-row operators (Project, Filter, SubqueryAlias: each row in
    gives at most one row out, computed from it alone) over a left or right outer join
    whose padded side nothing in the chain nor `read` reads, with the join replaced by
    its kept side; None if there is no such join.  Every kept row comes out of the join
    at least once, with the same values in the columns read, so the chain gives the same
    rows, only fewer copies of some (which a duplicate-agnostic consumer does not see),
    and evaluates its expressions on the same values (the same errors).  The chain's
    expressions must be deterministic (fewer evaluations of a random call differ)."""
    chain: list[L.Plan] = []
    while isinstance(plan, (L.Project, L.Filter, L.SubqueryAlias)):
        if not all(e.deterministic for e in plan.expressions):
            return None
        read = read | _references(plan.expressions)
        chain.append(plan)
        plan = plan.child
    if not isinstance(plan, L.Join) or plan.join_type not in (L.LEFT_OUTER, L.RIGHT_OUTER) \
            or _unread_side(plan, read & plan.output_ids) is None:
        return None
    out = _kept_side(plan)
    for node in reversed(chain):
        out = node.copy(child=out)
    return out


# The sides of a join whose rows reach its output unchanged: a row of such a side that a
# filter above rejects gives only output rows the filter rejects.
_UNCHANGED_SIDES = {L.INNER: (0, 1), L.CROSS: (0, 1), L.LEFT_OUTER: (0,), L.RIGHT_OUTER: (1,),
                    L.LEFT_SEMI: (0,), L.LEFT_ANTI: (0,)}


def _row_safe(cond: E.Expr | None) -> bool:
    """Can cond be evaluated on fewer rows without hiding anything (deterministic, cannot
    raise, no subquery)?"""
    return cond is None or (cond.deterministic and not cond.may_raise and not cond.deep_mask & _SUBQUERIES)


def _raises_per_row(e: E.Expr) -> bool:
    """Could e raise on some rows and not on others?  An uncorrelated subquery is run
    once for the query, whatever rows reach e (`t1a IN (SELECT ...)`): only the
    expressions around it count."""
    if not e.deterministic:
        return True
    return e.may_raise and any(
        x._self_may_raise() and not (isinstance(x, E.SubqueryExpr) and not x.outer_references)
        for x in e.walk())


def _deep_conjuncts(cond: E.Expr) -> list[E.Expr] | None:
    """The conjuncts of a filter's condition that may make the outer joins below the one
    under it less outer (see `_less_outer_below`): those that cannot raise, when no
    conjunct can raise on some rows and not others (removing rows early would hide
    that); else None."""
    conjuncts = E.split_conjuncts(cond)
    if any(_raises_per_row(c) for c in conjuncts):
        return None
    safe = [c for c in conjuncts if _row_safe(c)]
    return safe or None


def _less_outer_below(plan: L.Plan, cond: E.Expr, deep: list[E.Expr] | None) -> L.Plan:
    """The outer join at the top of plan (under a table alias or not) made less outer by a
    filter's condition above it; with `deep` (conjuncts of that condition), also the
    outer joins below it, through every side whose rows reach the filter unchanged (both
    sides of an inner join, the kept side of an outer one), and through the row-by-row
    operators on the way (a subquery's alias, a select list whose aliases are put in
    the conjuncts, a WHERE).  A padded row the conjuncts reject there only gives rows they
    reject above, so removing it early changes no result.  That is Catalyst's result for
    `n LEFT JOIN l ... LEFT JOIN r ... WHERE l.v <> r.v`, which it reaches by pushing the
    WHERE into the (now inner) top join and inferring `l.v IS NOT NULL` below it: both
    joins inner.  Only through what cannot raise (the conditions of the joins, the select
    lists and WHEREs passed through): they see fewer rows."""
    match plan:
        case L.SubqueryAlias(alias, child):
            new = _less_outer_below(child, cond, deep)
            return plan if new is child else L.SubqueryAlias(alias, new)
        case L.Join():
            join = _eliminate(cond, plan)
            if deep is not None and _row_safe(join.condition):
                sides = [_deeper(c, deep) if i in _UNCHANGED_SIDES.get(join.join_type, ()) else c
                         for i, c in enumerate(join.children)]
                if any(a is not b for a, b in zip(sides, join.children)):
                    join = join.copy(left=sides[0], right=sides[1])
            return join
        case _:
            return plan


def _deeper(plan: L.Plan, deep: list[E.Expr]) -> L.Plan:
    """plan's outer joins made less outer by the conjuncts `deep` of a filter above it,
    whose rows reach that filter unchanged (`_less_outer_below`)."""
    match plan:
        case L.Join():
            return _less_outer_below(plan, E.conjunction(deep), deep)
        case L.SubqueryAlias(_, child):
            new = _deeper(child, deep)
            return plan if new is child else plan.copy(child=new)
        case L.Project(projections, child) if all(_row_safe(e) for e in projections):
            aliases = {e.expr_id: e.child for e in projections if isinstance(e, E.Alias)}
            new = _deeper(child, [substitute(c, aliases) for c in deep])
            return plan if new is child else plan.copy(child=new)
        case L.Filter(c, child) if _row_safe(c):
            new = _deeper(child, deep)
            return plan if new is child else plan.copy(child=new)
        case _:
            return plan


def _less_outer(side: L.Plan, cond: E.Expr) -> L.Plan:
    """side's outer join (under a table alias or not) made less outer by cond."""
    match side:
        case L.Join():
            return _eliminate(cond, side)
        case L.SubqueryAlias(alias, L.Join() as join):
            new = _eliminate(cond, join)
            return side if new is join else L.SubqueryAlias(alias, new)
        case _:
            return side


def _references(exprs) -> frozenset[int]:
    out: set[int] = set()
    for e in exprs:
        out |= e.references
    return frozenset(out)


def _kept_side(join: L.Join) -> L.Plan:
    return join.left if join.join_type == L.LEFT_OUTER else join.right


def _unread_side(join: L.Join, read: frozenset[int]) -> L.Plan | None:
    """The padded side of a left or right outer join, if nothing in `read` comes from it
    and dropping it (with the join condition) cannot hide an error or a non-deterministic
    call; else None."""
    kept, other = (join.left, join.right) if join.join_type == L.LEFT_OUTER else (join.right, join.left)
    if not read <= kept.output_ids:
        return None
    cond = join.condition
    if cond is not None and (not cond.deterministic or cond.may_raise or cond.deep_mask & _SUBQUERIES):
        return None
    needed = set(cond.references) if cond is not None else set()
    if _may_raise_when_read(other, needed) or not all(e.deterministic for n in other.walk() for e in n.expressions):
        return None
    return other


def _may_raise_when_read(plan: L.Plan, needed: set[int]) -> bool:
    """Could evaluating the columns `needed` of the plan raise?  A select-list or
    aggregate column nothing reads is not evaluated: Spark's ColumnPruning drops it
    before the query runs (an unread sum() that could overflow never does), so only
    what the needed columns are computed from, filters and grouping count."""
    match plan:
        case L.Project(projections, child):
            items = [e for e in projections if E.to_attribute(e).expr_id in needed]
            return any(_raises(e) for e in items) or _may_raise_when_read(child, set(_references(items)))
        case L.Aggregate(grouping, aggregates, child):
            items = [e for e in aggregates if E.to_attribute(e).expr_id in needed] + list(grouping)
            return any(_raises(e) for e in items) or _may_raise_when_read(child, set(_references(items)))
        case L.Filter(cond, child):
            return _raises(cond) or _may_raise_when_read(child, needed | cond.references)
        case L.SubqueryAlias(_, child):
            return _may_raise_when_read(child, needed)
        case _:
            return _plan_raises(plan)


def _raises(e: E.Expr) -> bool:
    """`e.may_raise`, but for an IN or EXISTS subquery: it raises only where its query
    may, or its IN compares values of other types than the query's columns (a cast);
    `e.may_raise` takes every subquery to (a scalar one raises on more than one row,
    which stays so here).  Not a frozen one (a decorrelation setting: Spark's own
    reading of it is kept whole)."""
    if not e.may_raise:
        return False
    for x in e.walk():
        if isinstance(x, (E.Exists, E.InSubquery)) and not x.frozen:
            if _plan_raises(x.plan) or (isinstance(x, E.InSubquery) and (
                    len(x.values) != len(x.plan.output)
                    or any(v.data_type != a.data_type for v, a in zip(x.values, x.plan.output)))):
                return True
        elif not isinstance(x, (E.Literal, E.Attribute)) and x._self_may_raise():
            return True
    return False


def _plan_raises(plan: L.Plan) -> bool:
    """`plan_may_raise`, with IN and EXISTS subqueries read as `_raises` reads them."""
    return any(isinstance(n, L.OpaqueRelation) or any(_raises(e) for e in n.expressions) for n in plan.walk())


def _at_most_one_match(join: L.Join, as_catalyst: bool = False) -> bool:
    """Does each row of the kept side match at most one row of the other?  True when the
    other side is unique on columns the condition equates with the kept side's (Spark's
    distinctKeys: grouping columns, DISTINCT, LIMIT 1, a global aggregate).  `as_catalyst`:
    only keys Catalyst's ExtractEquiJoinKeys sees bare, `=` between columns of one type
    (`<=>` becomes coalesce and isnull keys there, and a coerced key is a cast)."""
    kept, other = (join.left, join.right) if join.join_type == L.LEFT_OUTER else (join.right, join.left)
    equated: set[int] = set()
    for c in E.split_conjuncts(join.condition) if join.condition is not None else ():
        if isinstance(c, E.EqualTo if as_catalyst else (E.EqualTo, E.EqualNullSafe)):
            for a, b in ((c.left, c.right), (c.right, c.left)):
                if isinstance(a, E.Attribute) and a.expr_id in other.output_ids \
                        and b.references and b.references <= kept.output_ids \
                        and (not as_catalyst or a.data_type == b.data_type):
                    equated.add(a.expr_id)
    return any(keys <= equated for keys in distinct_keys(other))


# Window functions that number rows: deterministic for Catalyst, computed by Spark's
# Window operator when the query runs, never while it is optimized
_NUMBERING = frozenset({"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile"})


def _numbering(e: E.Expr) -> bool:
    return isinstance(e, E.Opaque) and e.kind == "window" and e.function in _NUMBERING


def _dropped_by_catalyst(join: L.Join, read: frozenset[int]) -> bool:
    """Does Catalyst's own EliminateOuterJoin drop this join's padded side before the
    query runs?  It drops the side of a LEFT (RIGHT) JOIN under a Project that reads only
    the kept side when that side is unique on keys the condition equates with `=`
    (distinctKeys), without asking what the side would compute: a sum that could
    overflow, a `ROW_NUMBER()` (which overflows past 2^31 rows in a partition under ANSI).
    Spark then never runs that side, so neither does the query with the side dropped.
    Checked on Spark 4.0 and 4.3 (tests/test_rules_plan_outer_join.py).  Not when Spark
    could run part of the side before that rule, or would keep it for other reasons:
    - it is not deterministic for Catalyst (a CTE that is not is not inlined, and a
      CTE reference has no distinct keys), or reads a subquery or an unmodelled relation;
    - it may raise where Spark evaluates while optimizing, ahead of its other rules:
      Projects and Filters over inline tables (ConvertToLocalRelation; a table name may be
      a view of VALUES), grouping expressions (pulled out below the aggregate first).
    The join condition must not raise either (as for any dropped join)."""
    kept, other = (join.left, join.right) if join.join_type == L.LEFT_OUTER else (join.right, join.left)
    cond = join.condition
    if not read <= kept.output_ids or cond is None or not cond.deterministic or cond.may_raise \
            or cond.deep_mask & _SUBQUERIES or not _at_most_one_match(join, as_catalyst=True):
        return False
    for n in other.walk():
        if isinstance(n, L.OpaqueRelation):
            return False
        for e in n.expressions:
            if any(not _numbering(x) and (isinstance(x, (E.SubqueryExpr, E.Opaque)) or not x._self_deterministic())
                   for x in e.walk()):
                return False
    return not _may_raise_while_optimized(other)


def _may_raise_while_optimized(plan: L.Plan) -> bool:
    """Could Spark raise on this plan while optimizing it, before EliminateOuterJoin?
    What an Aggregate computes, and what sits above one, runs only when the query runs;
    anything else may be a Project or Filter over an inline table, evaluated at once."""
    match plan:
        case L.Aggregate(grouping, _, child):
            return any(g.may_raise for g in grouping) or _may_raise_anywhere(child)
        case L.Project(_, child) | L.Filter(_, child) | L.Sort(_, child) | L.Limit(_, child) \
                | L.SubqueryAlias(_, child) if _over_aggregate(child):
            return _may_raise_while_optimized(child)
        case _:
            return _may_raise_anywhere(plan)


def _over_aggregate(plan: L.Plan) -> bool:
    while isinstance(plan, (L.Project, L.Filter, L.Sort, L.Limit, L.SubqueryAlias)):
        plan = plan.child
    return isinstance(plan, L.Aggregate)


def _may_raise_anywhere(plan: L.Plan) -> bool:
    """May any expression of the plan raise, but the numbering windows' own calls (their
    PARTITION BY and ORDER BY values are computed below the window, and count)?"""
    return any(not _numbering(x) and x._self_may_raise()
               for n in plan.walk() for e in n.expressions for x in e.walk())


def distinct_keys(plan: L.Plan) -> list[frozenset[int]]:
    """Sets of output columns on which the plan's rows are unique (the empty set: at most
    one row)."""
    match plan:
        case L.Aggregate((), _, _):
            return [frozenset()]
        case L.Aggregate(grouping, aggregates, _):
            ids, covered = set(), []
            for a in aggregates:
                inner = a.child if isinstance(a, E.Alias) else a
                if any(inner == g for g in grouping):
                    ids.add(cast("E.Alias | E.Attribute", a).expr_id)  # (a named expression)
                    covered.append(inner)
            return [frozenset(ids)] if all(any(g == c for c in covered) for g in grouping) else []
        case L.Distinct(child):
            return [plan.output_ids]
        case L.Limit(count, _) if count <= 1:
            return [frozenset()]
        case L.Filter(_, child) | L.Sort(_, child) | L.SubqueryAlias(_, child) | L.Limit(_, child):
            return distinct_keys(child)
        case L.Project(projections, child):
            renamed: dict[int, int] = {}
            for e in projections:
                inner = e.child if isinstance(e, E.Alias) else e
                if isinstance(inner, E.Attribute):
                    renamed.setdefault(inner.expr_id, cast("E.Alias | E.Attribute", e).expr_id)
            return [frozenset(renamed[i] for i in keys) for keys in distinct_keys(child) if keys <= renamed.keys()]
        case _:
            return []


_DUPLICATE_AGNOSTIC = frozenset({"max", "min", "bool_and", "bool_or", "every", "some", "any", "bit_and", "bit_or"})


def _duplicate_agnostic(e: E.Expr) -> bool:
    """Is this aggregate output the same however often each input row is repeated?"""
    if not e.deterministic or e.deep_mask & _SUBQUERIES:
        return False
    return all(n.distinct or n.name.lower() in _DUPLICATE_AGNOSTIC for n in e.walk() if isinstance(n, E.Agg))
