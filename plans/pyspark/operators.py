"""The lowering of each logical operator to DataFrame calls (anything else goes through
its SQL text: `Lowering.via_sql`).  Each takes the `Lowering` first."""

from __future__ import annotations

from typing import cast

from ..ir import expressions as E
from ..ir import logical as L
from ..ir import types as T
from ..ir.errors import InternalError
from ..ir.evaluate import raising_constants
from ..ir.naming import UnknownName
from ..sql_out.relations import local_relation_nullability
from .expressions import _SUBQUERY_MASK, is_unnamed, lower_expr, named_by_spark, unnamed
from .frames import Frame, Scope, _nested_reach
from .generators import lower_generator
from .grouping_sets import lower_grouping_analytics
from .lateral import lower_lateral
from .pivot import lower_pivot
from .relations import range_arguments
from .text_reasons import LATERAL_REASON, relation_reason
from .values import (
    _SIMPLE_TYPES,
    _as_type,
    _py_tuple,
    col,
    ddl,
    py_str,
    py_value,
    quote_ident,
)

# Nesting depth of one Python expression before a sub-expression is hoisted into its own
# variable (CPython's parser allows 200 nested parentheses).


def lower_relation(low, p: L.Relation, outer) -> Frame:
    names = low.column_names(p.output)
    table = ".".join(quote_ident(part) for part in p.table.split("."))
    code = f"{low.spark}.table({py_str(table)})"
    if names != [a.name for a in p.output]:
        items = [col(a.name) if a.name == n else f"{col(a.name)}.alias({py_str(n)})"
                 for a, n in zip(p.output, names)]
        code += f".select({', '.join(items)})"
    return low.frame(code, p.output, names, p.table.split(".")[-1])


def lower_local_relation(low, p: L.LocalRelation, outer) -> Frame:
    names = low.column_names(p.output)
    if p.rows and not all(a.data_type in _SIMPLE_TYPES or isinstance(a.data_type, T.DecimalType)
                          for a in p.output):
        return low.via_sql(p)
    if p.rows and _raising_constant_over(low.plan, p):
        return low.via_sql(p, ROWS_REASON)
    types = [a.data_type for a in p.output]
    rows = ", ".join(_py_tuple([py_value(_as_type(v, t), low.imports) for v, t in zip(r, types)])
                     for r in p.rows)
    nullable = local_relation_nullability(p)  # (as the SQL text types it)
    code = f"{low.spark}.createDataFrame([{rows}], {py_str(ddl(names, p.output, nullable))})"
    return low.frame(code, p.output, names, "values" if p.rows else "empty")


# VALUES whose DataFrame (createDataFrame: an RDD's rows to Spark's optimizer) would let a
# constant above it raise where Spark reads the rows first
ROWS_REASON = "VALUES under a constant that raises, which Spark evaluates only on the rows it reads"


def _raising_constant_over(root: L.Plan, rows: L.LocalRelation) -> bool:
    """Does an operator Spark's first optimizer batch evaluates row by row over `rows`
    (ConvertToLocalRelation: the Projects, Filters... between them and a global aggregate
    or the top) hold a constant that raises (in either mode) or an unmodelled call of
    constants?  Over VALUES Spark evaluates such a constant only if a row reaches it;
    over a DataFrame of Python rows its ConstantFolding raises at once (optimizer.validate
    models the same for the SQL text)."""
    path: list[L.Plan] = []

    def find(p: L.Plan) -> bool:
        if p is rows:
            return True
        path.append(p)
        if any(find(c) for c in p.children):
            return True
        path.pop()
        return False

    if not find(root):
        return False
    for p in reversed(path):
        if isinstance(p, L.OpaqueRelation) or (isinstance(p, L.Aggregate) and not p.grouping):
            return False
        if any(raising_constants(e, True) or raising_constants(e, False) for e in p.expressions):
            return True
    return False


def lower_one_row_relation(low, p, outer) -> Frame:
    return low.frame(f"{low.spark}.range(1).select()", [], [], "one_row")


def lower_opaque_relation(low, p, outer) -> Frame:
    bounds = range_arguments(p)
    if bounds is not None:
        names = low.column_names(p.output)
        args = ", ".join(str(b) for b in bounds)
        rename = "" if names == ["id"] else f".toDF({py_str(names[0])})"
        return low.frame(f"{low.spark}.range({args}){rename}", p.output, names, "id_range")
    if p.model is not None or relation_reason(p) == LATERAL_REASON:
        return lower_lateral(low, p, outer)
    # (a column Spark names as sparkfold does not know: its SQL text, for Spark to name)
    for structured in (lower_grouping_analytics, lower_pivot, lower_generator) if not p.unnamed else ():
        frame = structured(low, p, outer)
        if frame is not None:
            return frame
    what = " ".join(p.sql_text.split())
    low.lines.append(f"# not modelled by sparkfold, run as Spark SQL: {what[:70]}{'...' if len(what) > 70 else ''}")
    return low.via_sql(p)


def lower_subquery_alias(low, p: L.SubqueryAlias, outer) -> Frame:
    child = low.lower(p.child, outer)
    return low.chain(child, f".alias({py_str(p.alias)})")


def lower_project(low, p: L.Project, outer) -> Frame:
    child = low.lower(p.child, outer)
    if any(is_unnamed(n) for n in child.names):
        return _dropped(low, p, child)
    scope = Scope(child, outer)
    names = low.column_names(p.output)
    items = []
    for i, (e, n) in enumerate(zip(p.projections, names)):
        if isinstance(e, E.Attribute) and child.ids.get(e.expr_id) == n:
            items.append(col(n))
        elif isinstance(e, E.Alias) and e.expr_id in low.unnamed:
            items.append(named_by_spark(low, e, scope))
            names[i] = unnamed(e)
        else:
            body = e.child if isinstance(e, E.Alias) else e
            items.append(f"{lower_expr(low, body, scope, True)}.alias({py_str(n)})")
    return low.frame(f"{child.var}.select({', '.join(items)})", p.output, names)


def _dropped(low, p: L.Project, child: Frame) -> Frame:
    """A projection over columns Spark named (`named_by_spark`), which cannot be selected
    by name: the columns it leaves out dropped, when it keeps the others in order."""
    ids = [e.expr_id if isinstance(e, E.Attribute) else None for e in p.projections]
    kept = [child.ids.get(i) if i is not None else None for i in ids]
    if None in kept or kept != [n for n in child.names if n in kept]:
        raise UnknownName(", ".join(a.name for a in p.output))
    gone = [n for n in child.names if n not in kept]
    frame = low.chain(child, f".drop({', '.join(py_str(n) for n in gone)})") if gone else child
    return Frame.of(frame.var, p.output, cast("list[str]", kept))


def lower_filter(low, p: L.Filter, outer) -> Frame:
    child = low.lower(p.child, outer)
    conjuncts = E.split_conjuncts(p.condition)
    joins: list = []  # functions making the semi / anti joins (subquery_join)
    rest: list[E.Expr] = []
    for c in conjuncts:
        spec = None if _ordered(p.child) else subquery_join(low, c, child, outer)
        (joins if spec is not None else rest).append(spec if spec is not None else c)
    frame = child
    if rest:
        cond = lower_expr(low, E.conjunction(rest), Scope(child, outer))
        frame = Frame(low.emit(f"{child.var}.filter({cond})"), child.names, child.ids)
    for make in joins:
        frame = make(frame)
    return frame


def lower_aggregate(low, p: L.Aggregate, outer) -> Frame:
    child = low.lower(p.child, outer)
    scope = Scope(child, outer)
    names = low.column_names(p.output)
    grouping: list[E.Expr] = []
    for g in p.grouping:
        if g not in grouping:
            grouping.append(g)
    gcode, gnames = [], []
    for g in grouping:
        if isinstance(g, E.Attribute) and g.expr_id in child.ids:
            n = child.ids[g.expr_id]
            gcode.append(col(n))
        else:
            n = low.names.fresh("_group")
            gcode.append(f"{lower_expr(low, g, scope, True)}.alias({py_str(n)})")
        gnames.append(n)
    grouped_ids = {g.expr_id: n for g, n in zip(grouping, gnames) if isinstance(g, E.Attribute)}
    aggs, agg_names = [], []
    out_names = []
    for e, n in zip(p.aggregates, names):
        if isinstance(e, E.Attribute) and grouped_ids.get(e.expr_id) == n:
            out_names.append(n)  # the grouping column groupBy keeps
            continue
        if isinstance(e, E.Alias) and e.expr_id in low.unnamed:
            aggs.append(named_by_spark(low, e, scope))
            n = unnamed(e)
        else:
            body = e.child if isinstance(e, E.Alias) else e
            aggs.append(f"{lower_expr(low, body, scope, True)}.alias({py_str(n)})")
        agg_names.append(n)
        out_names.append(n)
    if not aggs:
        dummy = low.names.fresh("_rows")
        aggs.append(f"F.count(F.lit(1)).alias({py_str(dummy)})")
        agg_names.append(dummy)
    if not p.grouping:
        # a correlated global aggregate is written as a select: on a classic session
        # agg() analyzes its input eagerly, which fails on an outer reference
        method = "select" if outer is not None and L.outer_references(p) else "agg"
        code = f"{child.var}.{method}({', '.join(aggs)})"
    else:
        code = f"{child.var}.groupBy({', '.join(gcode)}).agg({', '.join(aggs)})"
    produced = (gnames if p.grouping else []) + agg_names
    if produced != out_names:
        if any(is_unnamed(n) for n in out_names):
            # (columns Spark named are not selected by name: the grouping ones dropped)
            if [n for n in produced if n not in gnames or n in out_names] != out_names:
                raise UnknownName(", ".join(a.name for a in p.output))
            code += f".drop({', '.join(py_str(n) for n in gnames if n not in out_names)})"
        else:
            code += f".select({', '.join(col(n) for n in out_names)})"
    return low.frame(code, p.output, out_names)


def lower_sort(low, p: L.Sort, outer) -> Frame:
    child = low.lower(p.child, outer)
    scope = Scope(child, outer)
    orders = ", ".join(lower_expr(low, o, scope) for o in p.orders)
    return low.chain(child, f".orderBy({orders})")


def lower_limit(low, p: L.Limit, outer) -> Frame:
    child = low.lower(p.child, outer)
    return low.chain(child, f".limit({int(p.count)})")


def lower_offset(low, p: L.Offset, outer) -> Frame:
    child = low.lower(p.child, outer)
    return low.chain(child, f".offset({int(p.count)})")


def lower_distinct(low, p: L.Distinct, outer) -> Frame:
    child = low.lower(p.child, outer)
    return low.chain(child, ".distinct()")


def lower_join(low, p: L.Join, outer) -> Frame:
    left = low.lower(p.left, outer)
    right = low.lower(p.right, outer)
    if set(left.names) & set(right.names):
        raise InternalError("join sides share attribute ids; cannot lower unambiguously")
    both = Frame(left.var, left.names + right.names, {**right.ids, **left.ids})
    how = _JOIN_HOW[p.join_type]
    if p.condition is None and p.join_type in (L.INNER, L.CROSS):
        code = f"{left.var}.crossJoin({right.var})"
    else:
        cond = "F.lit(True)" if p.condition is None else lower_expr(low, p.condition, Scope(both, outer))
        code = f"{left.var}.join({right.var}, {cond}, {py_str(how)})"
    if p.join_type in (L.LEFT_SEMI, L.LEFT_ANTI):
        return Frame(low.emit(code), left.names, left.ids)
    return Frame(low.emit(code), both.names, both.ids)


def lower_union(low, p: L.Union, outer) -> Frame:
    frames = [low.lower(c, outer) for c in p.inputs]
    first = frames[0]
    code = first.var + "".join(f".union({f.var})" for f in frames[1:])
    if len(frames) > 50:  # keep each statement short
        var = first.var
        for i in range(1, len(frames), 50):
            var = low.emit(var + "".join(f".union({f.var})" for f in frames[i:i + 50]))
        return Frame.of(var, p.output, first.names)
    return Frame.of(low.emit(code), p.output, first.names)


def lower_intersect(low, p: L.Intersect, outer) -> Frame:
    left, right = low.lower(p.left, outer), low.lower(p.right, outer)
    method = "intersectAll" if p.all else "intersect"
    return Frame.of(low.emit(f"{left.var}.{method}({right.var})"), p.output, left.names)


def lower_except(low, p: L.Except, outer) -> Frame:
    left, right = low.lower(p.left, outer), low.lower(p.right, outer)
    method = "exceptAll" if p.all else "subtract"
    return Frame.of(low.emit(f"{left.var}.{method}({right.var})"), p.output, left.names)


def subquery_join(low, c: E.Expr, frame: Frame, outer: Frame | None):
    """For a filter conjunct [NOT] EXISTS / [NOT] IN (subquery): a function making
    the semi / anti join, or None to keep the conjunct as an expression."""
    negated = isinstance(c, E.Not)
    sub = c.child if isinstance(c, E.Not) else c
    if not isinstance(sub, (E.Exists, E.InSubquery)):
        return None
    plan = sub.plan
    if negated and L.is_empty_relation(plan):
        # an anti join with an empty side keeps every row, and Spark drops it unevaluated
        # (PropagateEmptyRelation) when it runs the SQL; as a DataFrame join it also trips
        # a Spark bug (`key not found` under a correlated scalar subquery and INTERSECT ALL)
        return lambda left: left
    corr_ids = L.outer_references(plan)
    if not corr_ids <= set(frame.ids):
        return None
    if _nested_reach(plan, set(frame.ids)):
        return None
    if isinstance(sub, E.InSubquery) and (any(v.deep_mask & _SUBQUERY_MASK for v in sub.values)
                                          or len(sub.values) != len(plan.output)):
        return None
    correlated: list[E.Expr] = []
    if corr_ids:
        pulled = _pull_up_correlated(plan, corr_ids)
        if pulled is None:
            return None
        plan, correlated = pulled
    conds: list[E.Expr] = []
    if isinstance(sub, E.InSubquery):
        for v, o in zip(sub.values, plan.output):
            eq = E.EqualTo(v, o)
            # NOT IN is null-aware: a NULL on either side makes the row match
            conds.append(E.Or(eq, E.IsNull(eq)) if negated else eq)
    conds += correlated
    how = "left_anti" if negated else "left_semi"

    def make(left: Frame) -> Frame:
        right = low.lower(plan, None)
        both = Frame(left.var, left.names + right.names, {**right.ids, **left.ids})
        cond = lower_expr(low, E.conjunction(conds), Scope(both, outer)) if conds else "F.lit(True)"
        var = low.emit(f"{left.var}.join({right.var}, {cond}, {py_str(how)})")
        return Frame(var, left.names, left.ids)

    return make


_JOIN_HOW = {L.INNER: "inner", L.CROSS: "cross", L.LEFT_OUTER: "left", L.RIGHT_OUTER: "right",
             L.FULL_OUTER: "full", L.LEFT_SEMI: "left_semi", L.LEFT_ANTI: "left_anti"}


def _ordered(p: L.Plan) -> bool:
    """Does p end in a Sort through order-preserving operators only?"""
    while isinstance(p, (L.Project, L.Filter, L.Limit, L.Offset, L.SubqueryAlias)):
        p = p.child
    return isinstance(p, L.Sort)


def _pull_up_correlated(plan: L.Plan, corr: frozenset[int]):
    """Split `[Project | SubqueryAlias]* Filter(cond, X)` with X uncorrelated into the plan
    without cond's correlated conjuncts (projections extended to pass through the columns
    they use) and those conjuncts; None when the plan has another shape."""
    chain = []
    p = plan
    while isinstance(p, (L.Project, L.SubqueryAlias)):
        chain.append(p)
        p = p.child
    if not isinstance(p, L.Filter) or L.outer_references(p.child):
        return None
    conjuncts = E.split_conjuncts(p.condition)
    correlated = [c for c in conjuncts if c.references & corr]
    rest = [c for c in conjuncts if not (c.references & corr)]
    if any(c.deep_mask & _SUBQUERY_MASK or not c.deterministic for c in correlated):
        return None
    base_ids = p.child.output_ids
    needed = {i for c in correlated for i in c.references if i in base_ids}
    needed_attrs = [a for a in p.child.output if a.expr_id in needed]
    new: L.Plan = L.Filter(E.conjunction(rest), p.child) if rest else p.child
    for layer in reversed(chain):
        if isinstance(layer, L.Project):
            have = {a.expr_id for a in layer.output}
            extra = []
            for a in needed_attrs:
                if a.expr_id not in have:
                    extra.append(a)
                    have.add(a.expr_id)
            new = L.Project(layer.projections + tuple(extra), new)
        else:
            new = L.SubqueryAlias(layer.alias, new)
    if L.outer_references(new):
        return None
    return new, correlated
