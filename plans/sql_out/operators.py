"""The writers of the operators over a child: Filter, Project, Aggregate, Distinct, Sort,
Limit, Offset, Join and the set operations.  Each takes the generator (`SqlGenerator`)
first and fills its child's block, or wraps it as a subquery when a clause is past."""

from __future__ import annotations

from typing import cast

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir import types as T
from ..ir.naming import UnknownName, name_known, spark_name
from ..ir.opaque_values import unmodelled_in
from .blocks import Block
from .expressions import ExprWriter, _faithful, _names_kept, _wrap
from .literals import data_type_sql
from .names import _needs_quotes


def write_filter(gen, plan: L.Filter, outer) -> Block:
    b = gen.block(plan.child, outer)
    if b.setop is None and b.group is None and b.select is None and not b.distinct and not b.closed:
        b.where.append(gen.expr(plan.condition, b.refs))
        b.output = list(plan.output)
        return b
    if b.group is not None and b.provisional and not b.distinct and not b.closed and \
            substitutable(gen, plan.condition, b):
        b.having.append(gen.expr(plan.condition, definition_refs(gen, b)))
        return b
    b = gen.wrap(b, outer)
    b.where.append(gen.expr(plan.condition, b.refs))
    return b


def _unmodelled(items) -> set[int]:
    """The ids of the select items holding an expression Spark's analysis may reject."""
    return {E.to_attribute(p).expr_id for p in items if p.deep_mask & E.Opaque.bit and unmodelled_in(p)}


def _drops_unmodelled(b: Block, kept: set[int]) -> bool:
    """Would a select list of only `kept` (ids, read or referenced) drop one of b's items
    that holds an expression Spark's analysis may reject?"""
    return bool(b.unmodelled - kept)


def write_project(gen, plan: L.Project, outer) -> Block:
    b = gen.block(plan.child, outer)
    read = {i for p in plan.projections for i in p.references} | {E.to_attribute(p).expr_id for p in plan.projections}
    if b.setop is None and not b.distinct and not b.closed:
        if b.select is None:
            b.select = [(E.to_attribute(p), select_item(gen, p, b.refs)) for p in plan.projections]
            b.unmodelled = _unmodelled(plan.projections)
            b.output = list(plan.output)
            return b
        if b.provisional and all(substitutable(gen, p, b) for p in plan.projections) \
                and not _drops_unmodelled(b, read):
            refs = definition_refs(gen, b)
            existing = {a.expr_id: (a, item) for a, item in b.select}
            b.select = [existing[p.expr_id] if isinstance(p, E.Attribute) and p.expr_id in existing
                        and existing[p.expr_id][0].name == p.name
                        else (E.to_attribute(p), select_item(gen, p, refs)) for p in plan.projections]
            if b.group == [] and not b.having and not any(
                    E.contains_aggregate(b.definitions[i]) for p in plan.projections
                    for i in p.references if i in b.definitions):
                # `SELECT 1 FROM (SELECT count(*) FROM t)`: still one aggregated row
                b.having.append(exp.true())
            b.provisional = False
            b.unmodelled = (b.unmodelled & read) | _unmodelled(plan.projections)
            b.output = list(plan.output)
            return b
    if b.select is not None and b.setop is None and all(isinstance(p, E.Attribute) for p in plan.projections):
        # a subset of the select list (dropping ORDER BY's hidden columns)
        attrs = cast("tuple[E.Attribute, ...]", plan.projections)
        by_id = {a.expr_id: (a, item) for a, item in b.select}
        if all(p.expr_id in by_id and by_id[p.expr_id][0].name == p.name for p in attrs) \
                and not (b.order_aliases - {p.expr_id for p in attrs}) and not b.distinct \
                and not _drops_unmodelled(b, read):
            b.select = [by_id[p.expr_id] for p in attrs]
            b.provisional = False
            b.output = list(plan.output)
            return b
    b = gen.wrap(b, outer)
    b.select = [(E.to_attribute(p), select_item(gen, p, b.refs)) for p in plan.projections]
    b.unmodelled = _unmodelled(plan.projections)
    b.output = list(plan.output)
    return b


def select_item(gen, p: E.Expr, refs) -> exp.Expr:
    """A select item producing attribute p's name."""
    if isinstance(p, E.Attribute):
        ref = gen.expr(p, refs)
        if isinstance(ref, exp.Column) and ref.name == p.name:
            return ref
        return exp.alias_(ref, p.name, quoted=_needs_quotes(p.name), copy=False)
    assert isinstance(p, E.Alias)
    body = gen.expr(p.child, refs)
    same_name = p.auto and _faithful(p.child) and _names_kept(p.child, refs) and spark_name(p.child) == p.name
    if p.expr_id in gen.unnamed:
        # an output column only Spark can name: written as the input wrote it, unaliased
        if not same_name:
            raise UnknownName(p.name)
        return body
    if same_name and name_known(p.child):
        return body
    if isinstance(body, exp.Column) and body.name == p.name and not isinstance(p.child, E.Opaque):
        return body
    return exp.alias_(body, p.name, quoted=_needs_quotes(p.name), copy=False)


def write_aggregate(gen, plan: L.Aggregate, outer) -> Block:
    b = gen.block(plan.child, outer)
    if not (b.setop is None and b.group is None and b.select is None and not b.distinct and not b.closed):
        b = gen.wrap(b, outer)
    b.group = [_not_ordinal(gen.expr(g, b.refs), g) for g in plan.grouping]
    b.select = [(E.to_attribute(p), select_item(gen, p, b.refs)) for p in plan.aggregates]
    b.unmodelled = _unmodelled(plan.aggregates)
    if not plan.grouping and not any(E.contains_aggregate(a) for a in plan.aggregates):
        # without GROUP BY and aggregate functions Spark would read a projection:
        # HAVING keeps it one aggregated row (also over an empty input)
        b.having.append(exp.true())
    b.provisional = True
    b.definitions = {E.to_attribute(p).expr_id: (p.child if isinstance(p, E.Alias) else p)
                     for p in plan.aggregates}
    b.output = list(plan.output)
    return b


def substitutable(gen, e: E.Expr, b: Block) -> bool:
    """Can e's references to aggregate outputs be replaced by their definitions?  Not a
    non-deterministic one, nor one that a subquery reads and that reads no column: Spark
    takes an aggregate in a subquery for the enclosing query's only when it reads that
    query's columns (`HAVING EXISTS (... WHERE y < min(t.x))`); `count(1)` there would be
    the subquery's own."""
    for n in e.walk():
        if isinstance(n, E.Attribute) and n.expr_id in b.definitions:
            if not b.definitions[n.expr_id].deterministic:
                return False
    for x in L.subquery_plans(e):
        for i in x.outer_references:
            if i in b.definitions and not b.definitions[i].references:
                return False
    return True


def definition_refs(gen, b: Block) -> dict[int, exp.Expression]:
    refs = dict(b.refs)
    writer = ExprWriter(gen, b.refs)
    for i, d in b.definitions.items():
        refs[i] = exp.Paren(this=writer(d)) if not isinstance(d, (E.Attribute, E.Literal, E.Agg)) \
            else writer(d)
    return refs


def write_distinct(gen, plan: L.Distinct, outer) -> Block:
    b = gen.block(plan.child, outer)
    if b.setop is not None and b.union_all and not b.closed:
        b.setop = _union_distinct(b.setop)
        b.union_all = False
        return b
    if b.setop is None and not b.distinct and not b.closed:
        if b.select is None:
            b.select = [(a, select_item(gen, a, b.refs)) for a in b.output]
        b.provisional = False
        b.distinct = True
        return b
    b = gen.wrap(b, outer)
    b.select = [(a, select_item(gen, a, b.refs)) for a in b.output]
    b.distinct = True
    return b


def write_sort(gen, plan: L.Sort, outer) -> Block:
    b = gen.block(plan.child, outer)
    if b.closed:
        b = gen.wrap(b, outer)
    refs, aliases = order_refs(gen, b)
    if refs is None:
        b = gen.wrap(b, outer)
        refs, aliases = order_refs(gen, b)
    used = {n.expr_id for o in plan.orders for n in o.walk() if isinstance(n, E.Attribute)}
    b.order = [_not_ordinal(gen.expr(o, refs), o.child) for o in plan.orders]
    b.order_aliases = used & aliases
    return b


def order_refs(gen, b: Block):
    """How ORDER BY refers to the block's outputs: by select alias (unqualified) when
    the output is an aliased item with a unique name, else by its FROM reference."""
    if b.setop is not None:
        names = [a.name.lower() for a in b.output]
        if len(set(names)) != len(names):
            return None, set()
        return {a.expr_id: exp.column(a.name, quoted=_needs_quotes(a.name)) for a in b.output}, \
            {a.expr_id for a in b.output}
    if b.select is None:
        return b.refs, set()
    refs = dict(b.refs)
    aliases = set()
    names = [a.name.lower() for a, _ in b.select]
    defined = None  # the definitions' references, written once (not once per item)
    for a, item in b.select:
        if isinstance(item, exp.Column) and a.expr_id in b.refs:
            continue  # a plain column: its FROM reference works in ORDER BY
        # Spark resolves aggregate expressions in ORDER BY, except past a HAVING or a
        # DISTINCT (UNRESOLVED_COLUMN): there the select alias is used.
        if a.expr_id in b.definitions and b.definitions[a.expr_id].deterministic and not b.having \
                and not b.distinct:
            if defined is None:
                defined = definition_refs(gen, b)
            refs[a.expr_id] = defined[a.expr_id]
        elif names.count(a.name.lower()) == 1:
            refs[a.expr_id] = exp.column(a.name, quoted=_needs_quotes(a.name))
            aliases.add(a.expr_id)
        else:
            return None, set()
    return refs, aliases


def write_limit(gen, plan: L.Limit, outer) -> Block:
    b = gen.block(plan.child, outer)
    if b.limit is not None:
        b = gen.wrap(b, outer)
    b.limit = plan.count
    return b


def write_offset(gen, plan: L.Offset, outer) -> Block:
    b = gen.block(plan.child, outer)
    if b.limit is not None or b.offset is not None:
        b = gen.wrap(b, outer)
    b.offset = plan.count
    return b


def write_join(gen, plan: L.Join, outer) -> Block:
    left = gen.block(plan.left, outer)
    if not left.from_only or left.from_ is None:
        left = gen.wrap(left, outer)
    right = gen.block(plan.right, outer)
    if not right.from_only or right.joins or right.from_ is None:
        right = gen.wrap(right, outer)
    refs = {**left.refs, **right.refs}
    jt = plan.join_type
    kwargs: dict = {}
    if jt in (L.LEFT_OUTER, L.RIGHT_OUTER, L.FULL_OUTER):
        kwargs["side"] = {L.LEFT_OUTER: "LEFT", L.RIGHT_OUTER: "RIGHT", L.FULL_OUTER: "FULL"}[jt]
    elif jt == L.LEFT_SEMI:
        kwargs.update(side="LEFT", kind="SEMI")
    elif jt == L.LEFT_ANTI:
        kwargs.update(side="LEFT", kind="ANTI")
    condition = plan.condition
    if condition is None and jt in (L.INNER, L.CROSS):
        kwargs["kind"] = "CROSS"
    elif condition is None:
        kwargs["on"] = exp.true()
    else:
        kwargs["on"] = gen.expr(condition, refs)
    join = exp.Join(this=right.from_, **kwargs)
    out_refs = left.refs if jt in (L.LEFT_SEMI, L.LEFT_ANTI) else refs
    return Block(list(plan.output), dict(out_refs), from_=left.from_, joins=left.joins + [join])


def write_union(gen, plan: L.Union, outer) -> Block:
    queries = []
    for i, child in enumerate(plan.inputs):
        b = gen.block(child, outer)
        q, _ = gen.finish(b, exact_names=(i == 0))
        queries.append(_setop_operand(q))
    ast = queries[0]
    for q in queries[1:]:
        ast = exp.Union(this=ast, expression=_right_operand(q), distinct=False)
    return Block(list(plan.output), dict(outer), setop=ast, union_all=len(queries) > 1)


def write_intersect(gen, plan, outer) -> Block:
    return write_binary_setop(gen, plan, outer, exp.Intersect)


def write_except(gen, plan, outer) -> Block:
    return write_binary_setop(gen, plan, outer, exp.Except)


def write_binary_setop(gen, plan, outer, cls) -> Block:
    lq, _ = gen.finish(gen.block(plan.left, outer), exact_names=True)
    rq, _ = gen.finish(gen.block(plan.right, outer), exact_names=False)
    left = _setop_operand(lq)
    if isinstance(left, exp.SetOperation) and _PRECEDENCE[type(left)] < _PRECEDENCE[cls]:
        left = exp.Subquery(this=left)  # (a UNION b) INTERSECT c
    ast = cls(this=left, expression=_right_operand(_setop_operand(rq)), distinct=not plan.all)
    return Block(list(plan.output), dict(outer), setop=ast)


# INTERSECT binds tighter than UNION and EXCEPT, which are read left to right
_PRECEDENCE = {exp.Intersect: 2, exp.Union: 1, exp.Except: 1}


def _right_operand(q: exp.Expression) -> exp.Expression:
    """A set operation as the right operand of another is written in parentheses: `a
    EXCEPT (b UNION c)`; so is an INTERSECT there, which the legacy left-to-right reading
    (spark.sql.legacy.setopsPrecedence.enabled) would otherwise take apart."""
    return exp.Subquery(this=q) if isinstance(q, exp.SetOperation) else q


def _not_ordinal(node: exp.Expression, e: E.Expr) -> exp.Expression:
    """An INT literal in GROUP BY / ORDER BY is read as a column position: cast it.
    Checked on the written SQL too: a key that refers to a select item may be written
    as the item's expression (`ORDER BY max(k), -1` for `SELECT max(k), -1 ... ORDER BY
    1, 2`), and Spark reads that `-1` as position -1 (ORDER_BY_POS_OUT_OF_RANGE)."""
    if (isinstance(e, E.Literal) and e.data_type == T.INT and e.value is not None) or _ordinal_sql(node):
        target = node.this if isinstance(node, exp.Ordered) else node
        cast = exp.Cast(this=target.copy(), to=data_type_sql(T.INT))
        if isinstance(node, exp.Ordered):
            node.set("this", cast)
            return node
        return cast
    return node


def _ordinal_sql(node: exp.Expression) -> bool:
    """Whether Spark's parser reads `node` as an INT literal (an ordinal in GROUP BY /
    ORDER BY): digits in the INT range, parenthesized or not, `-` folded into the literal
    (`-(1)` is a negation, not a literal)."""
    if isinstance(node, exp.Ordered):
        node = node.this
    while isinstance(node, exp.Paren):
        node = node.this
    sign = 1
    if isinstance(node, exp.Neg):
        node, sign = node.this, -1
    if not (isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit()):
        return False
    return -(2 ** 31) <= sign * int(node.this) < 2 ** 31


def _conjoin(parts: list[exp.Expression]) -> exp.Expression:
    out = parts[0]
    for p in parts[1:]:
        out = exp.And(this=_wrap(out, 2), expression=_wrap(p, 2, strict=True))
    return out


def _setop_operand(q: exp.Expression) -> exp.Expression:
    if any(q.args.get(k) for k in ("order", "limit", "offset")) or isinstance(q, exp.SetOperation):
        return exp.Subquery(this=q) if not isinstance(q, exp.SetOperation) or q.args.get("order") \
            or q.args.get("limit") or q.args.get("offset") else q
    return q


def _union_distinct(ast: exp.Expression) -> exp.Expression:
    """The chain of UNION ALL `ast` as UNION, in place: `write_union` built its UNION
    nodes for the one block that holds them (a copy first would copy every branch's
    query too: 1.4 ms of writing q49's plans, 1.5 ms of q75's)."""
    node = ast
    while isinstance(node, exp.Union) and node.args.get("distinct") is False:
        node.set("distinct", True)
        node = node.this
    return ast
