"""A SELECT block over its FROM plan: WHERE, the select list (lateral aliases, stars),
GROUP BY / HAVING (aggregates rewritten over the Aggregate's output, hidden columns
for HAVING and ORDER BY), ORDER BY (aliases and ordinals), OFFSET and LIMIT.  Each
takes the `Analyzer` first."""

from __future__ import annotations

import re
from typing import cast

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir import types as T
from ..ir.dialect import DIALECT, is_aggregate_call
from ..ir.errors import AnalysisError, UnknownColumnError
from ..ir.evaluate import CannotEvaluate, EvaluationError, evaluate
from ..ir.naming import name_known, spark_name
from ..ir.printer import expr_str, plan_str
from ..ir.records import replace
from ..ir.tree import transform_down
from .expr_context import Ctx, NotModelled, calls_nondeterministic, refuse_unnamed, require_boolean
from . import regex_columns
from .from_clause import from_items
from .generator_select import generator_select
from .opaque_select import (TIME_WINDOW_REASON, TRANSFORM_REASON, check_transform, opaque_reason, opaque_select,
                            time_windowed, transforms)
from .scope import Scope
from .stars import has_star, star_columns, star_of
from .subquery_places import check_sort, pass_correlated_scalar


def select_block(an, sel: exp.Select, outer: Scope | None, ctes: dict) -> L.Plan:
    for arg in _UNSUPPORTED_SELECT_ARGS:
        if sel.args.get(arg):
            raise NotModelled(f"SELECT with {arg.rstrip('_')}")
    if sel.args.get("hint") and sel is not an.root:
        # the outermost SELECT's hints go back on the rewritten query (optimizer.api);
        # a hint inside stays where it is written only in the kept-layout output
        an.inner_hints = True
    if time_windowed(sel):
        # Spark adds a struct column `window` (`session_window`) the select list reads, and
        # a sliding window repeats each row in every window holding it: the block is kept
        # as written, its FROM clause (and WHERE) optimized
        return opaque_select(an, sel, outer, ctes, TIME_WINDOW_REASON, is_root=sel is an.root)
    if transforms(sel):
        check_transform(sel, an.sql)
        return opaque_select(an, sel, outer, ctes, TRANSFORM_REASON, is_root=sel is an.root)
    generated = generator_select(an, sel)
    if generated is not None:
        return generated
    reason = opaque_reason(sel)
    if reason is not None:
        return opaque_select(an, sel, outer, ctes, reason, is_root=sel is an.root)
    from_ = sel.args.get("from_")
    if from_ is not None:
        plan, scope = from_items(an, from_, sel.args.get("joins") or [], outer, ctes)
    else:
        if sel.args.get("joins"):
            raise NotModelled("joins without FROM")
        plan, scope = L.OneRowRelation(), Scope()
    return select_over(an, sel, plan, scope.with_parent(outer, ctes))


def select_over(an, sel: exp.Select, plan: L.Plan, scope: Scope) -> L.Plan:
    """The clauses of a SELECT block after its FROM clause, over the FROM's plan and scope."""
    where = sel.args.get("where")
    if where is not None:
        ctx = Ctx(scope, clause="WHERE", unnamed_ok=True, stars=True)
        cond = require_boolean(an.exprs.analyze(where.this, ctx), "WHERE")
        plan = L.Filter(cond, plan)

    items = select_items(an, sel, scope)
    group = sel.args.get("group")
    having = sel.args.get("having")
    is_aggregate = group is not None or having is not None or any(
        E.contains_aggregate(e) for e, _ in items)
    if is_aggregate:
        return aggregate_query(an, sel, plan, scope, items, group, having)

    projections = named_items(an, items)
    for e in projections:
        if E.contains_aggregate(e):
            raise AnalysisError("aggregate functions need an aggregate query")
    plan = L.Project(tuple(projections), plan)
    distinct = sel.args.get("distinct")
    if distinct is not None:
        if distinct.args.get("on"):
            raise NotModelled("DISTINCT ON")
        plan = L.Distinct(plan)
    order = sel.args.get("order")
    if order is not None:
        plan = order_project(an, order, plan, scope, distinct is not None)
    return limit_offset(an, sel, plan)


def select_items(an, sel: exp.Select, scope: Scope) -> list[tuple[E.Expr, str | None]]:
    """Analyze the select list: (expression, explicit alias or None), stars expanded."""
    out: list[tuple[E.Expr, str | None]] = []
    lateral: dict[str, E.Expr] = {}
    for item in sel.expressions:
        if id(item) in an.regex:
            if sel.args.get("group") is not None:
                # (Spark's star checks, STAR_GROUP_BY_POS among them, take a regex for a star)
                raise NotModelled(f"a regular expression select item with GROUP BY, under {regex_columns.KEY}")
            columns = regex_columns.expand(item, scope)
            refuse_unnamed(an, columns)
            out.extend((c, None) for c in columns)
            if not out and item is sel.expressions[-1]:
                raise NotModelled(f"a select list whose regular expressions match no column, under "
                                  f"{regex_columns.KEY}")
            continue
        star = star_of(item)
        if star is not None:
            columns, _fields = star_columns(an, star, scope)
            out.extend((c, None) for c in columns)
            continue
        ctx = Ctx(scope, lateral=dict(lateral), allow_aggregates=True, allow_windows=True, stars=True)
        if isinstance(item, exp.Alias):
            if isinstance(item.this, exp.Star):
                raise AnalysisError("`*` cannot be aliased")
            e = an.exprs.analyze(item.this, replace(ctx, unnamed_ok=True))
            name = item.alias
            out.append((e, name))
            # Spark names a later item that uses it `(lateralAliasReference(a) * 2)`
            lateral[name.lower()] = E.Alias(e, f"{LATERAL_PREFIX}{name})", E.new_id())
        elif isinstance(item, exp.Aliases):
            raise NotModelled("multi-alias select item")
        else:
            fields = an.star_field_args
            try:
                out.append((an.exprs.analyze(item, ctx), None))
                if isinstance(item, exp.Column) and len(item.parts) > 1 and not isinstance(out[-1][0], E.Attribute):
                    # `SELECT col1.field, field`: Spark names a struct's field (a map's value)
                    # read so after it, and a later item may read it by that name (checked
                    # on Spark's alias-resolution-edge-cases.sql)
                    lateral[item.name.lower()] = E.Alias(out[-1][0], f"{LATERAL_PREFIX}{item.name})", E.new_id())
            except UnknownColumnError as e:
                if _field_named(sel.expressions, item, e.name):
                    # `SELECT col1.field, field`: Spark names the struct field (or map
                    # value) `field` and takes the later `field` for that lateral alias
                    raise NotModelled("a reference to the name Spark gives a field read earlier in the "
                                      "select list") from None
                raise
            if an.star_field_args != fields:
                # Spark names it after the fields' aliases (`concat(s.a AS a, s.b AS b)`)
                raise NotModelled("a select item without alias over a struct's fields expanded "
                                  "as function arguments (`s.*`)")
    return out


def _field_named(items: list, before: exp.Expression, name: str) -> bool:
    """Is an unaliased `c.name` (a struct field, a map value) in the select list before `before`?"""
    for item in items:
        if item is before:
            return False
        if isinstance(item, exp.Column) and len(item.parts) > 1 and item.name.lower() == name.lower().split(".")[-1]:
            return True
    return False


def named_items(an, items) -> list[E.Expr]:
    out: list[E.Expr] = []
    for e, alias in items:
        if alias is not None:
            out.append(E.Alias(e, alias, E.new_id()))
        elif isinstance(e, E.Attribute):
            out.append(e)
        elif isinstance(e, E.Alias):
            name = e.name
            if name.startswith(LATERAL_PREFIX):
                name = name[len(LATERAL_PREFIX):-1]
            out.append(E.Alias(e.child, name, E.new_id()))
        else:
            alias = E.Alias(e, spark_name(e), E.new_id(), auto=True)
            if not name_known(e):
                an.unnamed.add(alias.expr_id)
            out.append(alias)
    return out


def order_project(an, order: exp.Order, plan: L.Project | L.Distinct, scope: Scope,
                   distinct: bool) -> L.Plan:
    project = cast(L.Project, plan.child) if isinstance(plan, L.Distinct) else plan
    outputs = list(project.output)
    ctx = Ctx(scope, preferred=_preferred(project.projections), clause="ORDER BY")
    with _alias_in_subquery(ctx.preferred, "ORDER BY"):
        orders = sort_orders(an, order, ctx, outputs)
    out_ids = {a.expr_id for a in outputs}
    check_sort(orders, lambda i: _local_id(i, scope), out_ids.__contains__, an.checked_later)
    missing: dict[int, E.Attribute] = {}
    for o in orders:
        for n in o.walk():
            if isinstance(n, E.Attribute) and n.expr_id not in out_ids and _local(n, scope):
                missing.setdefault(n.expr_id, n)
    if not missing:
        return L.Sort(tuple(orders), plan)
    if distinct:
        raise AnalysisError("ORDER BY of a SELECT DISTINCT can only use columns of the select list")
    wider = L.Project(project.projections + tuple(missing.values()), project.child)
    return L.Project(tuple(outputs), L.Sort(tuple(orders), wider))


def _ordinal(node: exp.Expression) -> int | None:
    """The position an ORDER BY / GROUP BY item names, if it is an integer literal; Spark
    reads one in parentheses the same (`GROUP BY (1)`: its parser keeps no parentheses)."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
        return int(node.this)
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string \
            and node.this.this.isdigit():
        return -int(node.this.this)  # `-1` is a literal to Spark's parser: a position out of range
    return None


def names_all(node: exp.Expression) -> bool:
    """Is node the bare name `all` (`ALL`, `` `all` ``: sqlglot reads it in ORDER BY as a
    Var, quoted or not)?"""
    if isinstance(node, exp.Var):
        return node.name.lower() == "all"
    return isinstance(node, exp.Column) and not node.table and node.name.lower() == "all"


def column_all_visible(ctx: Ctx) -> bool:
    """Does the name `all` resolve to a column of this query (or a select alias), or is it
    ambiguous?  Then Spark reads `ORDER BY all` / `GROUP BY all` as that column."""
    if "all" in ctx.preferred or "all" in ctx.lateral:
        return True
    try:
        _found, _rest, depth = ctx.scope.resolve(("all",), "all")
    except UnknownColumnError:
        return False
    except AnalysisError:
        return True
    # an outer query's column `all` does not: ORDER BY ALL / GROUP BY ALL come before outer
    # references (Spark's column-resolution-sort.sql and -aggregate.sql say so)
    return depth == 0


def sort_orders(an, order: exp.Order, ctx: Ctx, outputs: list[E.Attribute]) -> list[E.SortOrder]:
    """The ORDER BY's sort orders.  `ORDER BY ALL [ASC|DESC] [NULLS FIRST|LAST]` (Spark
    3.5+: its only item the name `all`, which resolves to no column) orders by every
    output column from left to right, each with that direction and null ordering."""
    items = order.expressions
    if len(items) == 1 and names_all(items[0].this) and not column_all_visible(ctx):
        asc, nulls_first = _direction(items[0])
        return [E.SortOrder(a, asc, nulls_first) for a in outputs]
    if an.catalog.order_by_ordinal and len(items) > 1 and any(
            (i := _ordinal(o.this)) is not None and not 1 <= i <= len(outputs) for o in items):
        # beside other keys, Spark may read a position past the select list against the
        # columns the sort adds for them (spark.sql.prioritizeOrdinalResolutionInSort)
        raise NotModelled("an ORDER BY position past the select list beside other keys")
    return [sort_order(an, o, ctx, outputs) for o in items]


def sort_order(an, o: exp.Ordered, ctx: Ctx, outputs: list[E.Attribute]) -> E.SortOrder:
    node = o.this
    if isinstance(node, exp.Var) and names_all(node):  # the column `all` (`ORDER BY all, x`)
        node = exp.column(exp.to_identifier("all", quoted=True))
    i = _ordinal(node) if an.catalog.order_by_ordinal else None  # (else a constant)
    if i is not None:
        if not 1 <= i <= len(outputs):
            raise AnalysisError(f"ORDER BY position {i} is not in the select list "
                                f"(1 to {len(outputs)})")
        e: E.Expr = outputs[i - 1]
    else:
        e = an.exprs.analyze(node, ctx)
    return E.SortOrder(e, *_direction(o))


def _direction(o: exp.Ordered) -> tuple[bool, bool]:
    """(ascending, nulls first) of an ORDER BY item (NULLS FIRST when ascending unless told)."""
    asc = not o.args.get("desc")
    nulls_first = o.args.get("nulls_first")
    return asc, bool(asc if nulls_first is None else nulls_first)


def limit_offset(an, node: exp.Expression, plan: L.Plan) -> L.Plan:
    offset = node.args.get("offset")
    if offset is not None:
        plan = L.Offset(limit_count(an, offset.expression, "OFFSET"), plan)
    limit = node.args.get("limit")
    if limit is not None:
        if limit.args.get("offset") is not None:
            raise NotModelled("LIMIT with an offset argument")
        plan = L.Limit(limit_count(an, limit.expression, "LIMIT"), plan)
    return plan


def limit_count(an, node, what: str) -> int:
    """The count of LIMIT / OFFSET, as Spark's CheckAnalysis takes it: a foldable INT
    expression (`2 + 1`, `CAST(1 AS INT)`; a bigint, even `1L`, is DATA_TYPE), evaluated
    when the query is analyzed (an error then fails the query), neither NULL nor negative."""
    if calls_nondeterministic(node):
        raise AnalysisError(f"[INVALID_LIMIT_LIKE_EXPRESSION.IS_UNFOLDABLE] {what} calls a non-deterministic function")
    e = an.exprs.analyze(node, Ctx(Scope(), clause=what))
    if T.contains_unknown(e.data_type) or not e.deterministic or any(isinstance(n, E.Opaque) for n in e.walk()):
        raise NotModelled(f"{what} with a value sparkfold does not model")
    if e.data_type != T.INT:
        raise AnalysisError(f"[INVALID_LIMIT_LIKE_EXPRESSION.DATA_TYPE] {what} takes an INT, not "
                            f"{e.data_type.simple_string()}")
    if e.references or not (isinstance(e, E.Literal) or e.foldable):
        raise NotModelled(f"{what} with a value sparkfold does not fold")
    try:
        value = evaluate(e, an.catalog.ansi)
    except EvaluationError as err:
        raise AnalysisError(f"{what}: {err}") from None
    except CannotEvaluate:
        raise NotModelled(f"{what} with a value sparkfold does not evaluate") from None
    if value is None:
        raise AnalysisError(f"[INVALID_LIMIT_LIKE_EXPRESSION.IS_NULL] {what} is NULL")
    if value < 0:
        raise AnalysisError(f"[INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE] {what} must not be negative")
    return value


def aggregate_query(an, sel, plan, scope, items, group, having) -> L.Plan:
    grouping = grouping_expressions(an, group, items, scope) if group is not None else []
    for g in grouping:
        pass_correlated_scalar(g, lambda i: _local_id(i, scope), "GROUP BY")
    named = _grouping_subqueries_shared(named_items(an, items), grouping)
    for e in named:
        check_grouped(an, e, grouping, scope)

    window_items = [i for i, e in enumerate(named) if _has_window(e)]
    agg_list: list[E.Expr] = [e for i, e in enumerate(named) if i not in window_items]
    hidden: list[E.Expr] = []

    rewrite = _AggRewriter(grouping, agg_list, hidden, scope, over_having=having is not None)
    final: list[E.Expr] = []
    for i, e in enumerate(named):
        if i in window_items:
            final.append(rewrite(e, "SELECT"))
        else:
            final.append(E.to_attribute(e))

    preferred = _preferred(named)
    having_cond = None
    if having is not None:
        grouped = frozenset(g.expr_id for g in grouping if isinstance(g, E.Attribute))
        ctx = Ctx(scope, preferred=preferred, grouping=grouped, allow_aggregates=True, clause="HAVING")
        hosted: list[E.Expr] = []
        an.aggregate_hosts[id(scope)] = hosted
        try:
            with _alias_in_subquery(preferred, "HAVING"):
                cond = an.exprs.analyze(having.this, ctx)
        finally:
            del an.aggregate_hosts[id(scope)]
        if hosted:
            cond = _outer_aggregates_read(cond, hosted, rewrite)
        having_cond = rewrite(require_boolean(cond, "HAVING", allow_void=True), "HAVING")
    orders: list[E.SortOrder] | None = None
    order = sel.args.get("order")
    distinct = sel.args.get("distinct")
    if having is not None and order is not None and (hidden or window_items or distinct is not None) and any(
            is_aggregate_call(n) for o in order.expressions for n in o.walk()):
        # Spark resolves aggregates in ORDER BY past a HAVING only when the Sort sits on
        # the HAVING's Filter over the Aggregate (checked on Spark 4.x): not when the
        # HAVING has an aggregate that is no select item of its own (a hidden output,
        # projected away above the Filter), nor over a window or DISTINCT; UNRESOLVED_COLUMN
        # otherwise.  Spark decides those on the original text.
        raise NotModelled("ORDER BY with aggregate functions after a HAVING with aggregates of its own")
    if order is not None and window_items and any(is_aggregate_call(n) for o in order.expressions for n in o.walk()):
        # over a window of the select list, Spark resolves an aggregate in ORDER BY (and
        # the grouping expressions beside it) otherwise than over the Aggregate alone:
        # UNRESOLVED_COLUMN or UNSUPPORTED_EXPR_FOR_OPERATOR where the query written whole
        # runs (held-out window-with-aggregates.sql).  Spark decides on the original text.
        raise NotModelled("ORDER BY with aggregate functions in a grouped SELECT with window functions")
    if order is not None:
        ctx = Ctx(scope, preferred=preferred, allow_aggregates=True, clause="ORDER BY")
        outputs = [E.to_attribute(e) for e in named]
        with _alias_in_subquery(preferred, "ORDER BY"):
            sorted_by = sort_orders(an, order, ctx, outputs)
        # (under an aggregate function too, where the rewrite does not look)
        check_sort(sorted_by, lambda i: _local_id(i, scope), rewrite.shows, [])
        orders = [cast(E.SortOrder, rewrite(o, "ORDER BY")) for o in sorted_by]
        if any(isinstance(x, (E.Exists, E.InSubquery)) for o in orders for x in o.walk()) \
                and any(isinstance(x, E.SubqueryExpr) for g in grouping for x in g.walk()):
            # Spark matches an IN subquery in ORDER BY with the same one in GROUP BY by
            # their plans (it then sorts by the grouping key), which sparkfold does not
            raise NotModelled("an IN or EXISTS subquery in ORDER BY beside a subquery in GROUP BY")
        # (the rewrite raised for a column the Aggregate's output does not hold)
        check_sort(orders, lambda i: _local_id(i, scope), lambda i: True, an.checked_later)
    _carry_outer_grouping(grouping, agg_list + hidden, hidden, [having_cond] + list(orders or ()))
    agg = L.Aggregate(tuple(grouping), tuple(agg_list + hidden), plan)
    out: L.Plan = agg
    if having_cond is not None:
        out = L.Filter(having_cond, out)
    needs_project = bool(window_items) or bool(hidden)
    final_ids = {E.to_attribute(e).expr_id for e in final}
    if distinct is not None:
        if distinct.args.get("on"):
            raise NotModelled("DISTINCT ON")
        if needs_project:
            out = L.Project(tuple(final), out)
        out = L.Distinct(out)
        agg_ids = {a.expr_id for a in agg.output}
        for so in orders or ():
            if any(i in agg_ids and i not in final_ids for i in so.references):
                raise AnalysisError("ORDER BY of a SELECT DISTINCT can only use columns "
                                    "of the select list")
        if orders is not None:
            out = L.Sort(tuple(orders), out)
        return limit_offset(an, sel, out)
    if not needs_project:
        if orders is not None:
            out = L.Sort(tuple(orders), out)
        return limit_offset(an, sel, out)
    # The select list needs a Project over the Aggregate (window expressions, or
    # hidden aggregates for HAVING / ORDER BY).  ORDER BY may use the select list's
    # window outputs, so it goes above that Project, which then also carries the
    # hidden outputs the ordering needs.
    needed = {i for so in orders or () for i in so.references} - final_ids
    extra = [a for a in agg.output if a.expr_id in needed]
    out = L.Project(tuple(final) + tuple(extra), out)
    if orders is not None:
        out = L.Sort(tuple(orders), out)
    if extra:
        out = L.Project(tuple(E.to_attribute(e) for e in final), out)
    return limit_offset(an, sel, out)


def _outer_aggregates_read(cond: E.Expr, hosted: list[E.Expr], rewrite: "_AggRewriter") -> E.Expr:
    """cond with the aggregates its subqueries' WHERE computed over this query's columns
    (`expr_calls.outer_aggregate`) taken into the aggregate, as hidden outputs, and read
    by the subqueries as outer references (Spark's UpdateOuterReferences)."""
    read = {id(a): rewrite._add_hidden(a) for a in hosted}

    def in_plan(p: L.Plan) -> L.Plan:
        children = [in_plan(c) for c in p.children]
        if any(a is not b for a, b in zip(children, p.children)):
            p = p.with_children(children)
        return p.map_expressions(lambda e: transform_down(e, lambda x: read.get(id(x), x)))

    def in_subquery(x: E.Expr) -> E.Expr:
        if isinstance(x, E.SubqueryExpr):
            plan = in_plan(x.plan)
            return x if plan is x.plan else x.with_plan(plan)
        return x

    return transform_down(cond, in_subquery)


class _alias_in_subquery:
    """A subquery in HAVING or ORDER BY may read a select alias as an outer reference
    (`SELECT c, max(a) AS m ... GROUP BY c HAVING EXISTS (... WHERE x = m)`: Spark resolves
    it against the Aggregate's or the Project's output, checked on Spark 4.3), which sparkfold's
    subquery scopes do not hold: such a name, unknown to them, passes the query through
    rather than rejecting it.  (A select alias outside a subquery resolves through
    `preferred`, so an unknown one is inside a subquery.)"""

    def __init__(self, preferred: dict, clause: str):
        self.preferred, self.clause = preferred, clause

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, error, tb) -> None:
        if isinstance(error, UnknownColumnError) and error.name.split(".")[-1].strip("`").lower() in self.preferred:
            raise NotModelled(f"a subquery in {self.clause} reading the select alias `{error.name}`") from None


def _carry_outer_grouping(grouping, outputs, hidden: list[E.Expr], above) -> None:
    """A subquery in HAVING or ORDER BY may read a grouping column the select list does
    not show (`GROUP BY a, c HAVING max(b) <= (SELECT ... WHERE t2.c = c)`): the Aggregate
    then outputs it as a hidden column, so that the operators above it can read it (the
    DataFrame program reads the Aggregate's columns only)."""
    shown = {E.to_attribute(e).expr_id for e in outputs}
    by_id = {g.expr_id: g for g in grouping if isinstance(g, E.Attribute)}
    for e in above:
        if e is None:
            continue
        for n in e.walk():
            if isinstance(n, E.SubqueryExpr):
                for i in sorted(n.outer_references):
                    if i in by_id and i not in shown:
                        hidden.append(by_id[i])
                        shown.add(i)


def _contains_window(e: E.Expr) -> bool:
    return bool(e.mask & E.Opaque.bit) and any(isinstance(n, E.Opaque) and n.kind == "window" for n in e.walk())


def grouping_expressions(an, group: exp.Group, items, scope) -> list[E.Expr]:
    for arg in ("grouping_sets", "cube", "rollup", "totals"):
        if group.args.get(arg):
            raise NotModelled(f"GROUP BY {arg.upper().replace('_', ' ')}")
    ctx = Ctx(scope, clause="GROUP BY", lateral=_group_by_aliases(an, items))
    keys = list(group.expressions)
    if group.args.get("all"):
        # sqlglot reads `GROUP BY all, x` as GROUP BY ALL with x; Spark, as the column `all` and x
        keys = [exp.column(exp.to_identifier("all", quoted=True))] + keys
    if len(keys) == 1 and names_all(keys[0]) and not column_all_visible(ctx):
        # GROUP BY ALL (`all`, quoted or not, when no column or select alias has the name): every select
        # item without an aggregate; a window function is an aggregate to it (`count(*) OVER ()`)
        return _no_lateral_alias([_unalias(e) for e, _ in items if not E.contains_aggregate(e) and not _contains_window(e)])
    out = []
    select = group.parent
    star = isinstance(select, exp.Select) and has_star(select.expressions)
    for g in keys:
        i = _ordinal(g) if an.catalog.group_by_ordinal else None  # (else a constant)
        if i is not None:
            if star:
                raise AnalysisError("[STAR_GROUP_BY_POS] a star (*) in the select list with GROUP BY "
                                    f"position {i}: Spark does not allow it")
            if not 1 <= i <= len(items):
                raise AnalysisError(f"GROUP BY position {i} is not in the select list "
                                    f"(1 to {len(items)})")
            e = items[i - 1][0]
            if E.contains_aggregate(e):
                raise AnalysisError(f"GROUP BY position {i} refers to an aggregate")
            out.append(_unalias(e))
            continue
        for col in g.find_all(exp.Column):
            if len(col.parts) == 1 and col.name.lower() in ctx.lateral and _outer_only(scope, col.name):
                raise NotModelled(f"GROUP BY {col.name}, a select alias and an outer query's column")
        try:
            e = _unalias(an.exprs.analyze(g, ctx))
        except UnknownColumnError:
            if an.catalog.group_by_aliases and any(alias is None and not isinstance(x, (E.Attribute, E.Alias))
                                                   and not name_known(x) for x, alias in items):
                # (it may be Spark's name of a select item that sparkfold cannot name:
                # `` GROUP BY `concat_ws( , a, b)` ``)
                raise NotModelled(f"GROUP BY {g.sql(dialect=DIALECT)}, which may name a select item "
                                  f"Spark names with a name sparkfold does not know") from None
            raise
        if E.contains_aggregate(e) or _contains_window(e):
            raise AnalysisError(f"GROUP BY {g.sql(dialect=DIALECT)} refers to an aggregate or window function")
        out.append(e)
    return _no_lateral_alias(out)


def _no_lateral_alias(keys: list[E.Expr]) -> list[E.Expr]:
    """Spark does not group by a select item that reads an earlier item's alias
    (`SELECT k AS a, a + 1 AS c ... GROUP BY c`, by position, or by ALL)."""
    for e in keys:
        if any(isinstance(n, E.Alias) and n.name.startswith(LATERAL_PREFIX) for n in e.walk()):
            raise AnalysisError("[UNSUPPORTED_FEATURE.LATERAL_COLUMN_ALIAS_IN_GROUP_BY] a GROUP BY key reads "
                                "the alias of another select item")
    return keys


def _outer_only(scope: Scope, name: str) -> bool:
    try:
        _found, _rest, depth = scope.resolve((name,), name)
    except AnalysisError:
        return False
    return depth > 0


def _group_by_aliases(an, items) -> dict[str, E.Expr]:
    """The select items a GROUP BY name may mean when no FROM column has it
    (spark.sql.groupByAliases, on by default), by name: an alias, or the name Spark gives
    an unaliased item (`` GROUP BY `concat_ws( , a, b)` ``); the first item of a name, as
    Spark takes it, also inside an expression (`GROUP BY k + 1`)."""
    out: dict[str, E.Expr] = {}
    if not an.catalog.group_by_aliases:
        return out
    for e, alias in items:
        if alias is None:
            if isinstance(e, (E.Attribute, E.Alias)) or not name_known(e):
                continue
            alias = spark_name(e)
        out.setdefault(alias.lower(), _unalias(e))
    return out


_SUBQUERY_BITS = E.ScalarSubquery.bit | E.Exists.bit | E.InSubquery.bit


def _subquery_plans(e: E.Expr) -> list[L.Plan]:
    """The plans of e's subqueries, nested ones included."""
    plans, stack = [], [x.plan for x in e.walk() if isinstance(x, E.SubqueryExpr)]
    while stack:
        p = stack.pop()
        plans.append(p)
        for op in p.walk():
            for x in op.expressions:
                if x.deep_mask & _SUBQUERY_BITS:
                    stack.extend(y.plan for y in x.walk() if isinstance(y, E.SubqueryExpr))
    return plans


def _subquery_key(e: E.Expr) -> str:
    """e's text with the ids its subqueries produce numbered in order of appearance:
    `a IN (SELECT a FROM u)` written twice is analyzed twice, with new ids inside, and
    is the same expression to Spark (it compares canonical plans)."""
    plans = _subquery_plans(e)
    inner = set().union(*(L.produced_ids(p) for p in plans))
    numbers: dict[int, int] = {}

    def canon(m: re.Match) -> str:
        i = int(m.group(1))
        return f"#s{numbers.setdefault(i, len(numbers))}" if i in inner else m.group(0)

    return re.sub(r"#(\d+)", canon, expr_str(e) + "\n".join(plan_str(p) for p in plans))


def _grouping_subqueries_shared(named: list[E.Expr], grouping: list[E.Expr]) -> list[E.Expr]:
    """Select items that repeat a GROUP BY expression holding a subquery use the GROUP
    BY's own instance (so that they are grouped, as Spark sees them)."""
    keyed = {_subquery_key(g): g for g in grouping if g.deep_mask & _SUBQUERY_BITS}
    if not keyed:
        return named

    def share(x: E.Expr) -> E.Expr:
        if x.deep_mask & _SUBQUERY_BITS and not isinstance(x, E.Alias):
            return keyed.get(_subquery_key(x), x)
        return x

    return [transform_down(e, share) for e in named]


_COMMUTATIVE = (E.Add, E.Multiply, E.And, E.Or, E.EqualTo, E.EqualNullSafe)


def _canonical(x: E.Expr) -> E.Expr:
    """x with the operands of each commutative operator in one order (a stand-in for
    Spark's canonicalization, by which `1 + a` is the grouping expression `a + 1`)."""
    kids = [_canonical(c) for c in x.children]
    if isinstance(x, _COMMUTATIVE) and len(kids) == 2 and repr(kids[1]) < repr(kids[0]):
        kids = [kids[1], kids[0]]
    return x.with_children(kids)


def _swappable(x: E.Expr) -> bool:
    """May x be matched with a grouping expression up to its commutative operands' order?
    Not over decimals: Spark does not reorder a decimal sum whose type the order changes
    (SPARK-40903), where this would."""
    return x.mask & E.Opaque.bit == 0 and not any(
        isinstance(n, _COMMUTATIVE) and any(isinstance(c.data_type, T.DecimalType) for c in (n, *n.children))
        for n in x.walk())


def _grouping_by_canonical(grouping: list[E.Expr]) -> dict[E.Expr, E.Expr]:
    """The grouping expressions with a commutative operator, by their canonical form
    (`_canonical`): `1 + a` in ORDER BY, HAVING or the select list is the grouping
    expression `a + 1` to Spark, which compares canonicalized expressions."""
    return {_canonical(g): g for g in grouping
            if any(isinstance(n, _COMMUTATIVE) for n in g.walk()) and _swappable(g)}


def _refuse_ungrouped(column: E.Attribute, e: E.Expr, grouping: list[E.Expr]) -> None:
    """Spark's MISSING_AGGREGATION for `column`, outside every grouping expression in `e`;
    unless a part of `e` is a grouping expression as Spark compares them (canonically:
    `ORDER BY 1 + col1` after `GROUP BY col1 + 1`), which Spark accepts and sparkfold
    passes through."""
    if any(isinstance(g, _COMMUTATIVE) or any(isinstance(n, _COMMUTATIVE) for n in g.walk()) for g in grouping):
        canonical = {_canonical(g) for g in grouping}
        if any(_canonical(n) in canonical for n in e.walk()):
            raise NotModelled("an expression Spark matches to a GROUP BY expression with its operands in another "
                              "order")
    raise AnalysisError(f"column `{column.name}` must be in GROUP BY or inside an aggregate function")


def check_grouped(an, e: E.Expr, grouping: list[E.Expr], scope: Scope) -> None:
    """Spark's MISSING_AGGREGATION check: a column outside aggregate functions must be
    (part of) a grouping expression."""
    group_set = set(grouping)
    canonical = _grouping_by_canonical(grouping)
    stack = [e.child if isinstance(e, E.Alias) else e]
    while stack:
        x = stack.pop()
        if x in group_set or canonical and _swappable(x) and _canonical(x) in canonical:
            continue
        if isinstance(x, E.Agg) or (isinstance(x, E.Opaque) and x.kind == "aggregate"):
            continue
        if isinstance(x, E.Attribute):
            if _local(x, scope):
                _refuse_ungrouped(x, e, grouping)
            continue
        if isinstance(x, E.SubqueryExpr):
            for rid in x.outer_references:
                if _local_id(rid, scope) and not any(isinstance(g, E.Attribute) and g.expr_id == rid
                                                     for g in grouping):
                    raise AnalysisError("a correlated subquery refers to a column that is not "
                                        "in GROUP BY")
            # (Spark: SCALAR_SUBQUERY_IS_IN_GROUP_BY_OR_AGGREGATE_FUNCTION; see subquery_places)
            pass_correlated_scalar(x, lambda i: _local_id(i, scope), "a grouped select item")
        stack.extend(x.children)


_UNSUPPORTED_SELECT_ARGS = ("into", "connect", "prewhere", "pivots", "locks", "sample", "match",
                            "settings", "format", "options", "for_", "exclude", "kind",
                            "operation_modifiers")


LATERAL_PREFIX = "lateralAliasReference("


def _unalias(e: E.Expr) -> E.Expr:
    while isinstance(e, E.Alias):
        e = e.child
    return e


def _has_window(e: E.Expr) -> bool:
    if not (e.mask & E.Opaque.bit):
        return False
    return any(isinstance(n, E.Opaque) and n.kind == "window" for n in e.walk())


def _preferred(named) -> dict[str, E.Expr]:
    """Select-list outputs by name, for HAVING and ORDER BY (only unambiguous names)."""
    by_name: dict[str, list[E.Attribute]] = {}
    for e in named:
        a = E.to_attribute(e)
        by_name.setdefault(a.name.lower(), []).append(a)
    return {k: v[0] for k, v in by_name.items() if len({a.expr_id for a in v}) == 1}


def _scope_ids(scope: Scope) -> set[int]:
    ids = set()
    for en in scope.entries:
        for c in [*en.columns, *en.hidden]:
            for n in c.walk():
                if isinstance(n, E.Attribute):
                    ids.add(n.expr_id)
    for c in scope.star:
        for n in c.walk():
            if isinstance(n, E.Attribute):
                ids.add(n.expr_id)
    return ids


def _local(a: E.Attribute, scope: Scope) -> bool:
    return _local_id(a.expr_id, scope)


def _local_id(i: int, scope: Scope) -> bool:
    cache = getattr(scope, "_ids", None)
    if cache is None:
        cache = _scope_ids(scope)
        scope._ids = cache  # type: ignore[attr-defined]
    return i in cache


# Spark's error for a subquery in HAVING / ORDER BY over an aggregate that reads a column
# neither grouped nor aggregated (`GROUP BY c HAVING EXISTS (... WHERE u.x = t.b)`)
_UNGROUPED_OUTER_REFERENCE = {"HAVING": "MISSING_ATTRIBUTES.RESOLVED_ATTRIBUTE_MISSING_FROM_INPUT",
                              "ORDER BY": "UNRESOLVED_COLUMN.WITH_SUGGESTION"}


class _AggRewriter:
    """Rewrites an expression over the FROM columns into one over the Aggregate's
    output, adding hidden aggregate outputs as needed (Spark's
    ResolveAggregateFunctions)."""

    def __init__(self, grouping, agg_list, hidden, scope, over_having: bool = False):
        self.grouping = grouping
        self.agg_list = agg_list
        self.hidden = hidden
        self.scope = scope
        # ORDER BY over a HAVING: Spark matches only a grouping expression as written
        # there (`ORDER BY 1 + a` after `GROUP BY a + 1 HAVING ...` is UNRESOLVED_COLUMN)
        self.over_having = over_having

    def _output_for(self, e: E.Expr) -> E.Attribute | None:
        for item in self.agg_list + self.hidden:
            if isinstance(item, E.Alias) and item.child == e:
                return item.to_attribute()
            if isinstance(item, E.Attribute) and item == e:
                return item
        return None

    def _add_hidden(self, e: E.Expr) -> E.Attribute:
        found = self._output_for(e)
        if found is not None:
            return found
        if isinstance(e, E.Attribute):
            self.hidden.append(e)
            return e
        alias = E.Alias(e, spark_name(e), E.new_id(), auto=True)
        self.hidden.append(alias)
        return alias.to_attribute()

    def shows(self, i: int) -> bool:
        """Is the id one a subquery over the Aggregate may read (an output, a grouped column)?"""
        return any(E.to_attribute(x).expr_id == i for x in self.agg_list + self.hidden) or \
            any(isinstance(g, E.Attribute) and g.expr_id == i for g in self.grouping)

    def __call__(self, e: E.Expr, clause: str) -> E.Expr:
        out_ids = {E.to_attribute(x).expr_id for x in self.agg_list + self.hidden}
        group_set = set(self.grouping)
        canonical = _grouping_by_canonical(self.grouping) if not (clause == "ORDER BY" and self.over_having) else {}

        def fn(x: E.Expr) -> E.Expr:
            if isinstance(x, E.Attribute) and x.expr_id in out_ids:
                return x
            if isinstance(x, E.Agg) or (isinstance(x, E.Opaque) and x.kind == "aggregate"):
                return self._add_hidden(x)
            if x in group_set:
                return self._add_hidden(x)
            if canonical and _swappable(x) and (g := canonical.get(_canonical(x))) is not None:
                return self._add_hidden(g)  # (`ORDER BY 1 + a` after `GROUP BY a + 1`: its value)
            if isinstance(x, E.Attribute):
                if _local(x, self.scope):
                    _refuse_ungrouped(x, e, self.grouping)
                return x
            if isinstance(x, E.SubqueryExpr):
                # a subquery in HAVING or ORDER BY reads the Aggregate's output: a column of
                # its input that is neither grouped (a grouping expression over it is not
                # enough) nor aggregated is not there (checked on Spark 4.3)
                grouped = {g.expr_id for g in self.grouping if isinstance(g, E.Attribute)}
                missing = [rid for rid in sorted(x.outer_references)
                           if rid not in out_ids and rid not in grouped and _local_id(rid, self.scope)]
                if missing:
                    raise AnalysisError(
                        f"[{_UNGROUPED_OUTER_REFERENCE.get(clause, _UNGROUPED_OUTER_REFERENCE['HAVING'])}] a "
                        f"subquery in {clause} refers to a column of the aggregated rows that is neither in GROUP BY "
                        f"nor inside an aggregate function")
            return x

        return transform_down(e, fn)
