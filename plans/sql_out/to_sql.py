"""Logical plan -> Spark SQL (through sqlglot's generator).

The plan is turned back into SELECT blocks bottom-up.  A block fills its clauses in
SQL's evaluation order (FROM, WHERE, GROUP BY, HAVING, SELECT, DISTINCT, ORDER BY,
OFFSET, LIMIT); an operator that would need an earlier clause of a block already past
it wraps the block as a subquery with a fresh alias.  Column references are always
qualified by their FROM item's alias, and aliases are unique in the whole query, so
references cannot be captured by an inner scope.

Literals are written so Spark reads back exactly the value and type (`0L`, `1.5D`,
`CAST('NaN' AS DOUBLE)`, `CAST(NULL AS INT)`), and every select item gets the name the
plan says (an `AS` is left out only when Spark would generate that very name).
"""

from __future__ import annotations

from typing import Callable

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir import types as T
from ..ir.dialect import DIALECT, deep_stack
from ..ir.naming import UnknownName, unnamed_output
from .blocks import Block
from .expressions import ExprWriter
from .literals import literal_sql
from .names import _needs_quotes, _unique_names, column_ref
from .operators import (
    _conjoin,
    select_item,
    write_aggregate,
    write_distinct,
    write_except,
    write_filter,
    write_intersect,
    write_join,
    write_limit,
    write_offset,
    write_project,
    write_sort,
    write_union,
)
from .relations import (
    write_local_relation,
    write_one_row_relation,
    write_opaque_relation,
    write_relation,
    write_subquery_alias,
)


class SqlGenerator:

    def __init__(self, whole_query: bool = True) -> None:
        self.aliases: set[str] = set()
        self.counter = 0
        # when a list: the plan expressions written, each node marked with its index in
        # `meta[WRITTEN_FROM]` (kept by copies)
        self.written: list | None = None
        # the output columns Spark names with names sparkfold does not know (of the
        # query, not of a subquery in it, nor of a part written for a DataFrame program,
        # which renames its columns): written unaliased in its top SELECT
        self.unnamed: set[int] = set()
        self._top = whole_query

    # -- entry points ------------------------------------------------------
    def query(self, plan: L.Plan, outer: dict[int, exp.Expression] | None = None) -> exp.Expression:
        top, self._top = self._top, False
        if top:
            self.unnamed = unnamed_output(plan)
        block = self.block(plan, outer or {})
        out = self.finish(block, exact_names=True)[0]
        if top and self.unnamed:
            _named_by_spark(out, plan, self.unnamed)
        return out

    def fresh_alias(self, base: str) -> str:
        base = base or "_q"
        name = base
        n = 1
        while name.lower() in self.aliases:
            n += 1
            name = f"{base}_{n}"
        self.aliases.add(name.lower())
        return name

    # -- blocks ---------------------------------------------------------------
    def block(self, plan: L.Plan, outer: dict[int, exp.Expression]) -> Block:
        return _BLOCK_WRITERS[type(plan)](self, plan, outer)

    def expr(self, e: E.Expr, refs: dict[int, exp.Expression]) -> exp.Expression:
        return ExprWriter(self, refs)(e)

    # -- finishing --------------------------------------------------------------------
    def wrap(self, b: Block, outer, alias: str = "_q", output: list[E.Attribute] | None = None) -> Block:
        """Turn a block into a FROM item `(SELECT ...) AS alias`."""
        query, names = self.finish(b, exact_names=False)
        name = self.fresh_alias(alias)
        out = output if output is not None else b.output
        sub = exp.Subquery(this=query, alias=exp.TableAlias(this=exp.to_identifier(name, quoted=_needs_quotes(name))))
        refs = dict(outer)
        for a, n in zip(out, names):
            refs[a.expr_id] = (n, name)
        return Block(list(out), refs, from_=sub)

    def finish(self, b: Block, exact_names: bool) -> tuple[exp.Expression, list[str]]:
        """The block as a query; returns it and the names of its columns.  Without
        `exact_names` (a subquery) duplicate names are made unique."""
        if b.setop is not None:
            q = b.setop
            if b.order is not None or b.limit is not None or b.offset is not None:
                q = q.copy()
                if b.order is not None:
                    q.set("order", exp.Order(expressions=b.order))
                if b.offset is not None:
                    q.set("offset", exp.Offset(expression=literal_sql(b.offset, T.INT)))
                if b.limit is not None:
                    q.set("limit", exp.Limit(expression=literal_sql(b.limit, T.INT)))
            names = [a.name for a in b.output]
            if not exact_names and len({n.lower() for n in names}) != len(names):
                # a set operation takes its first input's names: rename the duplicates
                # positionally, `SELECT _q.* FROM (<setop>) AS _q(y, c1, y_2)` (wrapping
                # the block again would meet the same duplicates, forever)
                unique = _unique_names(names)
                alias = self.fresh_alias("_q")
                sub = exp.Subquery(this=q, alias=exp.TableAlias(
                    this=exp.to_identifier(alias, quoted=_needs_quotes(alias)),
                    columns=[exp.to_identifier(n, quoted=_needs_quotes(n)) for n in unique]))
                sel = exp.Select(expressions=[column_ref(n, alias) for n in unique]).from_(sub, copy=False)
                return sel, unique
            return q, names
        select = b.select
        if select is None:
            select = [(a, select_item(self, a, b.refs)) for a in b.output]
        names = [a.name for a, _ in select]
        items = [item for _, item in select]
        if not exact_names:
            unique = _unique_names(names)
            fixed = []
            for (a, item), n in zip(select, unique):
                if n != a.name:
                    body = item.this if isinstance(item, exp.Alias) else item
                    item = exp.alias_(body.copy(), n, quoted=_needs_quotes(n), copy=False)
                fixed.append(item)
            items, names = fixed, unique
        q = exp.Select(expressions=items or [exp.Literal.number(1)])
        if not items:
            names = []
        if b.distinct:
            q.set("distinct", exp.Distinct())
        if b.from_ is not None:
            q.set("from_", exp.From(this=b.from_))
        if b.joins:
            q.set("joins", list(b.joins))
        if b.where:
            q.set("where", exp.Where(this=_conjoin(b.where)))
        if b.group is not None and b.group:
            q.set("group", exp.Group(expressions=b.group))
        if b.having:
            q.set("having", exp.Having(this=_conjoin(b.having)))
        if b.order is not None:
            q.set("order", exp.Order(expressions=b.order))
        if b.offset is not None:
            q.set("offset", exp.Offset(expression=literal_sql(b.offset, T.INT)))
        if b.limit is not None:
            q.set("limit", exp.Limit(expression=literal_sql(b.limit, T.INT)))
        return q, names


# The writer of each logical operator: a table a reader (and a type checker) can follow.
_BLOCK_WRITERS: dict[type, Callable[..., Block]] = {
    L.Relation: write_relation,
    L.SubqueryAlias: write_subquery_alias,
    L.LocalRelation: write_local_relation,
    L.OneRowRelation: write_one_row_relation,
    L.OpaqueRelation: write_opaque_relation,
    L.Filter: write_filter,
    L.Project: write_project,
    L.Aggregate: write_aggregate,
    L.Distinct: write_distinct,
    L.Sort: write_sort,
    L.Limit: write_limit,
    L.Offset: write_offset,
    L.Join: write_join,
    L.Union: write_union,
    L.Intersect: write_intersect,
    L.Except: write_except,
}


def plan_to_ast(plan: L.Plan, whole_query: bool = True) -> exp.Expression:
    return SqlGenerator(whole_query).query(plan)


def plan_to_sql(plan: L.Plan, pretty: bool = False, whole_query: bool = True) -> str:
    """Spark SQL text for a plan (runs on a deep stack: sqlglot's printer recurses).
    `whole_query=False`: a part whose columns the caller names."""

    def run():
        ast = plan_to_ast(plan, whole_query)
        return ast.sql(dialect=DIALECT, pretty=pretty, normalize_functions=False)

    return deep_stack(run)


def _named_by_spark(query: exp.Expression, plan: L.Plan, unnamed: set[int]) -> None:
    """Raise UnknownName unless each output column only Spark can name is an unaliased
    item of the query's top SELECT (not a reference to a derived table's column)."""
    items = query.expressions if isinstance(query, exp.Select) else []
    for i, a in enumerate(plan.output):
        if a.expr_id in unnamed and (i >= len(items) or isinstance(items[i], (exp.Alias, exp.Column))):
            raise UnknownName(a.name)
