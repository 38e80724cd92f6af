"""sqlglot tree -> analyzed logical plan (Spark's analyzer, for queries).

The shape of an analyzed SELECT, bottom-up: the FROM tree (relations under
SubqueryAlias, joins), Filter (WHERE), Aggregate (GROUP BY / aggregates), Filter
(HAVING), Project (the select list; for aggregates only when hidden columns or window
expressions need one), Distinct, Sort (ORDER BY), Offset, Limit.  Like Spark, ORDER BY
and HAVING may use columns the select list does not show: they are carried as hidden
columns and projected away on top.

Name resolution follows Spark: case-insensitive, qualified by alias or table name,
USING/NATURAL keys merged, select aliases usable later in the select list (lateral
aliases), in GROUP BY (after FROM columns), ORDER BY (before FROM columns) and HAVING
(before FROM columns, except a FROM column that is itself a grouping expression, and
inside aggregate functions: see `ExprAnalyzer._from_column_first`), and ordinals in
GROUP BY and ORDER BY.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir import types as T
from ..ir.dialect import function_name
from ..ir.errors import AnalysisError, UnsupportedError
from ..ir.naming import spark_name
from ..ir.tree import transform_down
from .analyze_expr import (
    Ctx,
    ExprAnalyzer,
    NotModelled,
    calls_nondeterministic,
    require_boolean,
)
from .catalog import Catalog
from .opaque_select import opaque_reason, opaque_select
from .scope import Entry, Scope

_UNSUPPORTED_SELECT_ARGS = ("into", "connect", "prewhere", "pivots", "locks", "sample", "match",
                            "settings", "format", "options", "for_", "exclude", "kind",
                            "operation_modifiers")


LATERAL_PREFIX = "lateralAliasReference("


@dataclass
class CTEDef:
    name: str
    node: exp.Expression
    columns: list[str]
    outer: Scope | None
    ctes: dict
    uses: list


class Analyzer:
    def __init__(self, catalog: Catalog, sql: str = ""):
        self.catalog = catalog
        self.sql = sql
        self.exprs = ExprAnalyzer(self)
        self.root: exp.Expression | None = None

    # ------------------------------------------------------------------
    def analyze(self, tree: exp.Expression) -> L.Plan:
        if not isinstance(tree, (exp.Query, exp.Subquery)):
            raise NotModelled(f"{type(tree).__name__} statement (only queries are optimized)")
        self.root = tree
        return self.query(tree, None, {})

    def subquery(self, node: exp.Expression, ctx: Ctx) -> L.Plan:
        """A subquery inside an expression: correlated with ctx's scope."""
        return self.query(node, ctx.scope, ctx.scope.ctes)

    # -- queries ------------------------------------------------------------
    def query(self, node: exp.Expression, outer: Scope | None, ctes: dict) -> L.Plan:
        with_ = node.args.get("with_")
        if with_ is not None:
            ctes = self._ctes(with_, outer, ctes)
        if isinstance(node, exp.Select):
            return self._select(node, outer, ctes)
        if isinstance(node, exp.SetOperation):
            return self._set_operation(node, outer, ctes)
        if isinstance(node, exp.Subquery):
            plan = self.query(node.this, outer, ctes)
            if node.alias:
                plan = L.SubqueryAlias(node.alias, plan)
            return self._modifiers(node, plan, outer, ctes)
        if isinstance(node, exp.Values):
            plan, _ = self._values(node)
            return plan
        if isinstance(node, exp.Paren):
            return self.query(node.this, outer, ctes)
        raise NotModelled(f"query of kind {type(node).__name__}")

    def _ctes(self, with_: exp.With, outer, ctes) -> dict:
        if with_.args.get("recursive"):
            raise NotModelled("recursive CTE")
        out = dict(ctes)
        for cte in with_.expressions:
            name = cte.alias
            alias = cte.args.get("alias")
            columns = [c.name for c in alias.columns] if alias is not None and alias.columns else []
            out[name.lower()] = CTEDef(name, cte.this, columns, outer, dict(out), [])
        return out

    def _cte_reference(self, d: CTEDef) -> L.Plan:
        # Each reference analyzes the definition afresh (fresh attribute ids, so a CTE
        # can be joined with itself).  Spark inlines deterministic CTEs the same way; a
        # non-deterministic CTE used twice must be computed once, which we do not model.
        plan = self.query(d.node, d.outer, d.ctes)
        d.uses.append(plan)
        if len(d.uses) > 1 and not surely_deterministic(plan):
            raise NotModelled(f"non-deterministic CTE {d.name} referenced more than once")
        return self._rename(plan, d.columns, d.name)

    def _rename(self, plan: L.Plan, columns: list[str], what: str) -> L.Plan:
        if not columns:
            return plan
        if len(columns) != len(plan.output):
            raise AnalysisError(f"{what} has {len(plan.output)} columns but {len(columns)} names were given")
        return L.Project(tuple(E.Alias(a, n, E.new_id()) for a, n in zip(plan.output, columns)), plan)

    # -- set operations -----------------------------------------------------
    def _set_operation(self, node: exp.SetOperation, outer, ctes) -> L.Plan:
        if node.args.get("by_name") or node.args.get("side") or node.args.get("kind") or node.args.get("on"):
            raise NotModelled("set operation BY NAME / CORRESPONDING")
        distinct = node.args.get("distinct") is not False
        kind = type(node)
        if kind is exp.Union:
            # flatten left-deep chains of the same kind iteratively (1,000-way UNION ALL)
            inputs = [node.expression]
            cur = node.this
            while (type(cur) is exp.Union and (cur.args.get("distinct") is not False) == distinct
                   and not _has_modifiers(cur) and not cur.args.get("by_name")):
                inputs.append(cur.expression)
                cur = cur.this
            inputs.append(cur)
            inputs.reverse()
            plans = [self.query(i, outer, ctes) for i in inputs]
            plans = self._widen(plans, "UNION")
            plan: L.Plan = L.Union(tuple(plans))
            if distinct:
                plan = L.Distinct(plan)
        else:
            left = self.query(node.this, outer, ctes)
            right = self.query(node.expression, outer, ctes)
            name = "INTERSECT" if kind is exp.Intersect else "EXCEPT"
            left, right = self._widen([left, right], name)
            cls = L.Intersect if kind is exp.Intersect else L.Except
            plan = cls(left, right, not distinct)
        return self._modifiers(node, plan, outer, ctes)

    def _widen(self, plans: list[L.Plan], what: str) -> list[L.Plan]:
        width = len(plans[0].output)
        for p in plans[1:]:
            if len(p.output) != width:
                raise AnalysisError(f"{what} inputs have different numbers of columns "
                                    f"({width} and {len(p.output)})")
        targets = []
        for i in range(width):
            t = T.wider_type_of(p.output[i].data_type for p in plans)
            if t is None or t == T.UNKNOWN:
                types = [p.output[i].data_type for p in plans]
                if len(set(types)) > 1:
                    raise NotModelled(f"{what} column {i + 1} needs a type coercion we do not model")
                t = types[0]
            targets.append(t)
        out = []
        for p in plans:
            if all(a.data_type == t for a, t in zip(p.output, targets)):
                out.append(p)
                continue
            items = []
            for a, t in zip(p.output, targets):
                if a.data_type == t:
                    items.append(a)
                else:
                    items.append(E.Alias(E.Cast(a, t, False, False), a.name, E.new_id()))
            out.append(L.Project(tuple(items), p))
        return out

    def _modifiers(self, node: exp.Expression, plan: L.Plan, outer, ctes) -> L.Plan:
        """ORDER BY / LIMIT / OFFSET applied to a set operation or parenthesized query."""
        order = node.args.get("order")
        if order is not None:
            scope = Scope.of((), list(plan.output)).with_parent(outer)
            ctx = Ctx(scope, clause="ORDER BY")
            orders = tuple(self._sort_order(o, ctx, list(plan.output)) for o in order.expressions)
            plan = L.Sort(orders, plan)
        return self._limit_offset(node, plan)

    # -- SELECT -----------------------------------------------------------------
    def _select(self, sel: exp.Select, outer: Scope | None, ctes: dict) -> L.Plan:
        for arg in _UNSUPPORTED_SELECT_ARGS:
            if sel.args.get(arg):
                raise NotModelled(f"SELECT with {arg.rstrip('_')}")
        if sel.args.get("hint"):
            raise NotModelled("query hints")
        reason = opaque_reason(sel)
        if reason is not None:
            return opaque_select(self, sel, outer, ctes, reason, is_root=sel is self.root)
        from_ = sel.args.get("from_")
        if from_ is not None:
            plan, scope = self.from_clause(from_, sel.args.get("joins") or [], outer, ctes)
        else:
            if sel.args.get("joins"):
                raise NotModelled("joins without FROM")
            plan, scope = L.OneRowRelation(), Scope()
        scope = scope.with_parent(outer, ctes)

        where = sel.args.get("where")
        if where is not None:
            cond = require_boolean(self.exprs.analyze(where.this, Ctx(scope, clause="WHERE")), "WHERE")
            plan = L.Filter(cond, plan)

        items = self._select_items(sel, scope)
        group = sel.args.get("group")
        having = sel.args.get("having")
        is_aggregate = group is not None or having is not None or any(
            E.contains_aggregate(e) for e, _ in items)
        if is_aggregate:
            return self._aggregate_query(sel, plan, scope, items, group, having)

        projections = self._named(items)
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
            plan = self._order_project(order, plan, scope, distinct is not None)
        return self._limit_offset(sel, plan)

    def _select_items(self, sel: exp.Select, scope: Scope) -> list[tuple[E.Expr, str | None]]:
        """Analyze the select list: (expression, explicit alias or None), stars expanded."""
        out: list[tuple[E.Expr, str | None]] = []
        lateral: dict[str, E.Expr] = {}
        for item in sel.expressions:
            if isinstance(item, exp.Star):
                if item.args.get("except_") or item.args.get("replace") or item.args.get("rename"):
                    raise NotModelled("SELECT * EXCEPT/REPLACE")
                out.extend((c, None) for c in scope.expand_star(None))
                continue
            if isinstance(item, exp.Column) and isinstance(item.this, exp.Star):
                qual = tuple(p.name for p in item.parts[:-1])
                out.extend((c, None) for c in scope.expand_star(qual))
                continue
            ctx = Ctx(scope, lateral=dict(lateral), allow_aggregates=True, allow_windows=True)
            if isinstance(item, exp.Alias):
                if isinstance(item.this, exp.Star):
                    raise AnalysisError("`*` cannot be aliased")
                e = self.exprs.analyze(item.this, ctx)
                name = item.alias
                out.append((e, name))
                # Spark names a later item that uses it `(lateralAliasReference(a) * 2)`
                lateral[name.lower()] = E.Alias(e, f"{LATERAL_PREFIX}{name})", E.new_id())
            elif isinstance(item, exp.Aliases):
                raise NotModelled("multi-alias select item")
            else:
                out.append((self.exprs.analyze(item, ctx), None))
        return out

    def _named(self, items) -> list[E.Expr]:
        out = []
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
                out.append(E.Alias(e, spark_name(e), E.new_id(), auto=True))
        return out

    def _order_project(self, order: exp.Order, plan: L.Project | L.Distinct, scope: Scope,
                       distinct: bool) -> L.Plan:
        project = plan.child if isinstance(plan, L.Distinct) else plan
        outputs = list(project.output)
        ctx = Ctx(scope, preferred=_preferred(project.projections), clause="ORDER BY")
        orders = [self._sort_order(o, ctx, outputs) for o in order.expressions]
        out_ids = {a.expr_id for a in outputs}
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

    def _sort_order(self, o: exp.Ordered, ctx: Ctx, outputs: list[E.Attribute]) -> E.SortOrder:
        node = o.this
        if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
            i = int(node.this)
            if not 1 <= i <= len(outputs):
                raise AnalysisError(f"ORDER BY position {i} is not in the select list "
                                    f"(1 to {len(outputs)})")
            e: E.Expr = outputs[i - 1]
        else:
            e = self.exprs.analyze(node, ctx)
        asc = not o.args.get("desc")
        nulls_first = o.args.get("nulls_first")
        if nulls_first is None:
            nulls_first = asc
        return E.SortOrder(e, asc, bool(nulls_first))

    def _limit_offset(self, node: exp.Expression, plan: L.Plan) -> L.Plan:
        offset = node.args.get("offset")
        if offset is not None:
            plan = L.Offset(self._count(offset.expression, "OFFSET"), plan)
        limit = node.args.get("limit")
        if limit is not None:
            if limit.args.get("offset") is not None:
                raise NotModelled("LIMIT with an offset argument")
            plan = L.Limit(self._count(limit.expression, "LIMIT"), plan)
        return plan

    def _count(self, node, what: str) -> int:
        e = self.exprs.analyze(node, Ctx(Scope(), clause=what))
        if isinstance(e, E.Literal) and isinstance(e.value, int) and not isinstance(e.value, bool):
            if e.value < 0:
                raise AnalysisError(f"{what} must not be negative")
            return e.value
        raise NotModelled(f"{what} with a non-literal value")

    # -- aggregation ------------------------------------------------------------
    def _aggregate_query(self, sel, plan, scope, items, group, having) -> L.Plan:
        grouping = self._grouping(group, items, scope) if group is not None else []
        named = self._named(items)
        for e in named:
            self._check_grouped(e, grouping, scope)

        window_items = [i for i, e in enumerate(named) if _has_window(e)]
        agg_list: list[E.Expr] = [e for i, e in enumerate(named) if i not in window_items]
        hidden: list[E.Expr] = []

        rewrite = _AggRewriter(grouping, agg_list, hidden, scope)
        final: list[E.Expr] = []
        for i, e in enumerate(named):
            if i in window_items:
                final.append(rewrite(e))
            else:
                final.append(E.to_attribute(e))

        preferred = _preferred(named)
        having_cond = None
        if having is not None:
            grouped = frozenset(g.expr_id for g in grouping if isinstance(g, E.Attribute))
            ctx = Ctx(scope, preferred=preferred, grouping=grouped, allow_aggregates=True, clause="HAVING")
            cond = self.exprs.analyze(having.this, ctx)
            having_cond = rewrite(require_boolean(cond, "HAVING", allow_void=True))
        orders = None
        order = sel.args.get("order")
        if having is not None and order is not None and any(
                isinstance(n, exp.AggFunc) for o in order.expressions for n in o.walk()):
            # Spark resolves aggregates in ORDER BY past a HAVING only in some cases
            # (UNRESOLVED_COLUMN otherwise); let Spark decide on the original text.
            raise NotModelled("ORDER BY with aggregate functions after HAVING")
        distinct = sel.args.get("distinct")
        if order is not None:
            ctx = Ctx(scope, preferred=preferred, allow_aggregates=True, clause="ORDER BY")
            outputs = [E.to_attribute(e) for e in named]
            orders = [rewrite(self._sort_order(o, ctx, outputs)) for o in order.expressions]
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
            return self._limit_offset(sel, out)
        if not needs_project:
            if orders is not None:
                out = L.Sort(tuple(orders), out)
            return self._limit_offset(sel, out)
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
        return self._limit_offset(sel, out)

    def _grouping(self, group: exp.Group, items, scope) -> list[E.Expr]:
        for arg in ("grouping_sets", "cube", "rollup", "totals"):
            if group.args.get(arg):
                raise NotModelled(f"GROUP BY {arg.upper().replace('_', ' ')}")
        if group.args.get("all"):
            return [e for e, _ in items if not E.contains_aggregate(e)]
        out = []
        ctx = Ctx(scope, clause="GROUP BY")
        for g in group.expressions:
            if isinstance(g, exp.Literal) and not g.is_string and g.this.isdigit():
                i = int(g.this)
                if not 1 <= i <= len(items):
                    raise AnalysisError(f"GROUP BY position {i} is not in the select list "
                                        f"(1 to {len(items)})")
                e = items[i - 1][0]
                if E.contains_aggregate(e):
                    raise AnalysisError(f"GROUP BY position {i} refers to an aggregate")
                out.append(_unalias(e))
                continue
            try:
                out.append(_unalias(self.exprs.analyze(g, ctx)))
            except AnalysisError:
                # groupByAliases: a select alias, when no FROM column has the name
                if isinstance(g, exp.Column) and len(g.parts) == 1:
                    match = [e for e, a in items if a is not None and a.lower() == g.name.lower()]
                    if len(match) == 1 and not E.contains_aggregate(match[0]):
                        out.append(_unalias(match[0]))
                        continue
                raise
        return out

    def _check_grouped(self, e: E.Expr, grouping: list[E.Expr], scope: Scope) -> None:
        """Spark's MISSING_AGGREGATION check: a column outside aggregate functions must be
        (part of) a grouping expression."""
        group_set = set(grouping)
        stack = [e.child if isinstance(e, E.Alias) else e]
        while stack:
            x = stack.pop()
            if x in group_set:
                continue
            if isinstance(x, E.Agg) or (isinstance(x, E.Opaque) and x.kind == "aggregate"):
                continue
            if isinstance(x, E.Attribute):
                if _local(x, scope):
                    raise AnalysisError(f"column `{x.name}` must be in GROUP BY or inside an "
                                        f"aggregate function")
                continue
            if isinstance(x, E.SubqueryExpr):
                for rid in x.outer_references:
                    if _local_id(rid, scope) and not any(isinstance(g, E.Attribute) and g.expr_id == rid
                                                         for g in grouping):
                        raise AnalysisError("a correlated subquery refers to a column that is not "
                                            "in GROUP BY")
            stack.extend(x.children)

    # -- FROM --------------------------------------------------------------------
    def from_clause(self, from_: exp.From, joins, outer, ctes) -> tuple[L.Plan, Scope]:
        plan, scope = self._relation(from_.this, outer, ctes)
        for j in joins:
            right, rscope = self._relation(j.this, outer, ctes)
            plan, scope = self._join(plan, scope, right, rscope, j, outer, ctes)
        return plan, scope

    def _relation(self, node: exp.Expression, outer, ctes) -> tuple[L.Plan, Scope]:
        if node.args.get("pivots"):
            raise NotModelled("PIVOT / UNPIVOT")
        if node.args.get("laterals") or node.args.get("joins"):
            raise NotModelled("nested joins in a FROM item")
        if isinstance(node, exp.Table):
            return self._table(node, ctes)
        if isinstance(node, exp.Subquery):
            plan = self.query(node.this, outer, ctes)
            plan = self._modifiers(node, plan, outer, ctes) if _has_modifiers(node) else plan
            alias = node.args.get("alias")
            columns = [c.name for c in alias.columns] if alias is not None and alias.columns else []
            name = node.alias
            plan = self._rename(plan, columns, f"subquery {name}")
            if name:
                plan = L.SubqueryAlias(name, plan)
                return plan, Scope.of((name.lower(),), list(plan.output), name)
            return plan, Scope.of((), list(plan.output))
        if isinstance(node, exp.Values):
            return self._values(node)
        raise NotModelled(f"FROM item {type(node).__name__}")

    def _table(self, node: exp.Table, ctes) -> tuple[L.Plan, Scope]:
        if not isinstance(node.this, exp.Identifier):
            raise NotModelled("table-valued function")
        for arg in ("sample", "version", "when", "changes", "partition", "hints", "system_time"):
            if node.args.get(arg):
                raise NotModelled(f"table {arg}")
        parts = [p.name for p in node.parts]
        alias_node = node.args.get("alias")
        alias = node.alias
        columns = [c.name for c in alias_node.columns] if alias_node is not None and alias_node.columns else []
        if len(parts) == 1 and parts[0].lower() in ctes:
            d = ctes[parts[0].lower()]
            plan = self._cte_reference(d)
            qualifier = alias or d.name
        else:
            name = ".".join(parts)
            schema = self.catalog.lookup(name)
            attrs = tuple(E.Attribute(c.name, c.data_type, c.nullable, E.new_id()) for c in schema.columns)
            plan = L.Relation(schema.name, attrs)
            qualifier = alias or parts[-1]
        plan = self._rename(plan, columns, f"table {qualifier}")
        plan = L.SubqueryAlias(qualifier, plan)
        if alias:
            qual = (alias.lower(),)
        elif len(parts) == 1 and parts[0].lower() in ctes:
            qual = (parts[0].lower(),)
        else:
            full = [p.lower() for p in parts]
            if len(full) == 1:
                full = ["spark_catalog", "default"] + full
            elif len(full) == 2:
                full = ["spark_catalog"] + full
            qual = tuple(full)
        return plan, Scope.of(qual, list(plan.output), qualifier)

    def _values(self, node: exp.Values) -> tuple[L.Plan, Scope]:
        rows_ast = node.expressions
        rows: list[list[E.Literal]] = []
        for r in rows_ast:
            values = r.expressions if isinstance(r, exp.Tuple) else [r]
            lits = [self.exprs.analyze(v, Ctx(Scope(), clause="VALUES")) for v in values]
            if not all(isinstance(v, E.Literal) for v in lits):
                raise NotModelled("VALUES with non-literal values")
            rows.append(lits)
        width = len(rows[0])
        if any(len(r) != width for r in rows):
            raise AnalysisError("VALUES rows have different numbers of columns")
        alias_node = node.args.get("alias")
        names = [c.name for c in alias_node.columns] if alias_node is not None and alias_node.columns \
            else [f"col{i + 1}" for i in range(width)]
        if len(names) != width:
            raise AnalysisError(f"VALUES has {width} columns but {len(names)} names were given")
        attrs, out_rows = [], [list() for _ in rows]
        for i in range(width):
            t = T.wider_type_of(r[i].data_type for r in rows)
            if t is None or t == T.UNKNOWN:
                raise NotModelled("VALUES column types we do not model")
            if t == T.NULL:
                pass
            for j, r in enumerate(rows):
                out_rows[j].append(_convert_literal(r[i], t))
            nullable = any(r[i].value is None for r in rows)
            attrs.append(E.Attribute(names[i], t, nullable, E.new_id()))
        plan: L.Plan = L.LocalRelation(tuple(attrs), tuple(tuple(r) for r in out_rows))
        name = node.alias
        if name:
            plan = L.SubqueryAlias(name, plan)
            return plan, Scope.of((name.lower(),), list(plan.output), name)
        return plan, Scope.of((), list(plan.output))

    def _join(self, left, lscope: Scope, right, rscope: Scope, j: exp.Join, outer, ctes):
        side = (j.side or "").upper()
        kind = (j.kind or "").upper()
        method = (j.method or "").upper()
        if j.args.get("match_condition") or j.args.get("directed") or j.args.get("nearest"):
            raise NotModelled("special join")
        if kind in ("SEMI", "ANTI"):
            if side not in ("", "LEFT"):
                raise NotModelled(f"{side} {kind} JOIN")
            join_type = L.LEFT_SEMI if kind == "SEMI" else L.LEFT_ANTI
        elif side == "LEFT":
            join_type = L.LEFT_OUTER
        elif side == "RIGHT":
            join_type = L.RIGHT_OUTER
        elif side == "FULL":
            join_type = L.FULL_OUTER
        elif kind == "CROSS":
            join_type = L.CROSS
        elif kind in ("", "INNER", "OUTER"):
            join_type = L.INNER
        else:
            raise NotModelled(f"{kind} JOIN")
        combined = lscope.combine(rscope).with_parent(outer, ctes)
        using = j.args.get("using")
        if method == "NATURAL" or using:
            if method == "NATURAL":
                rnames = {_cname(c).lower() for c in rscope.star}
                names = [_cname(c) for c in lscope.star if _cname(c).lower() in rnames]
            else:
                names = [u.name for u in using]
            return self._using_join(left, lscope, right, rscope, join_type, names, outer)
        on = j.args.get("on")
        condition = None
        if on is not None:
            if calls_nondeterministic(on):
                # Spark rejects it (INVALID_NON_DETERMINISTIC_EXPRESSIONS); pruning the join
                # (an empty side) would hide that error
                raise NotModelled("a non-deterministic JOIN condition")
            condition = require_boolean(self.exprs.analyze(on, Ctx(combined, clause="JOIN ON")), "JOIN ON")
            if join_type == L.CROSS:
                join_type = L.INNER
        plan = L.Join(left, right, join_type, condition)
        return plan, self._join_scope(plan, lscope, rscope, outer)

    def _join_scope(self, plan: L.Join, lscope: Scope, rscope: Scope, outer) -> Scope:
        mapping = {a.expr_id: a for a in plan.output}
        if plan.join_type in (L.LEFT_SEMI, L.LEFT_ANTI):
            return lscope.remap(mapping).with_parent(outer)
        return lscope.combine(rscope).remap(mapping).with_parent(outer)

    def _using_join(self, left, lscope, right, rscope, join_type, names, outer):
        lkeys, rkeys = [], []
        for n in names:
            lk, _ = lscope.lookup_local((n,), n)
            rk, _ = rscope.lookup_local((n,), n)
            if lk is None or rk is None:
                raise AnalysisError(f"USING column `{n}` must be in both sides of the join")
            lkeys.append(lk)
            rkeys.append(rk)
        condition = E.conjunction(E.EqualTo(a, b) for a, b in zip(lkeys, rkeys)) if names else None
        plan = L.Join(left, right, join_type if names or join_type != L.INNER else L.INNER, condition)
        scope = self._join_scope(plan, lscope, rscope, outer)
        if join_type in (L.LEFT_SEMI, L.LEFT_ANTI):
            return plan, scope
        mapping = {a.expr_id: a for a in plan.output}
        lkeys = [_remap(k, mapping) for k in lkeys]
        rkeys = [_remap(k, mapping) for k in rkeys]
        merged = []
        for n, lk, rk in zip(names, lkeys, rkeys):
            if join_type == L.RIGHT_OUTER:
                merged.append(rk)
            elif join_type == L.FULL_OUTER:
                merged.append(E.Alias(E.Coalesce((lk, rk)), _cname(lk), E.new_id()))
            else:
                merged.append(lk)
        key_ids = {id(k) for k in lkeys + rkeys}
        key_attr_ids = {k.expr_id for k in lkeys + rkeys if isinstance(k, (E.Attribute, E.Alias))}
        rest_left = [c for c in scope.star[:len(lscope.star)]
                     if not (isinstance(c, (E.Attribute, E.Alias)) and c.expr_id in key_attr_ids)]
        rest_right = [c for c in scope.star[len(lscope.star):]
                      if not (isinstance(c, (E.Attribute, E.Alias)) and c.expr_id in key_attr_ids)]
        del key_ids
        return plan, Scope(scope.entries, merged + rest_left + rest_right, outer)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def surely_deterministic(plan: L.Plan) -> bool:
    """Deterministic for certain: unmodelled (opaque) expressions count when they only call
    built-in deterministic functions (window functions included), not user functions."""
    from ..ir.functions import NONDETERMINISTIC_NAMES
    from .builtins import BUILTIN_FUNCTIONS

    for p in plan.walk():
        if isinstance(p, L.OpaqueRelation):
            return False
        for e in p.expressions:
            for n in e.walk():
                if isinstance(n, E.Opaque):
                    for f in n.template.find_all(exp.Func):
                        name = function_name(f)
                        if name not in BUILTIN_FUNCTIONS or name in NONDETERMINISTIC_NAMES:
                            return False
                elif isinstance(n, E.SubqueryExpr):
                    if not surely_deterministic(n.plan):
                        return False
                elif not n._self_deterministic():
                    return False
    return True


def _has_modifiers(node: exp.Expression) -> bool:
    return any(node.args.get(k) for k in ("order", "limit", "offset", "with_"))


def _cname(c: E.Expr) -> str:
    return c.name  # type: ignore[attr-defined]


def _remap(e: E.Expr, mapping) -> E.Expr:
    if isinstance(e, E.Attribute):
        return mapping.get(e.expr_id, e)
    return e


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
        for c in en.columns:
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


class _AggRewriter:
    """Rewrites an expression over the FROM columns into one over the Aggregate's
    output, adding hidden aggregate outputs as needed (Spark's
    ResolveAggregateFunctions)."""

    def __init__(self, grouping, agg_list, hidden, scope):
        self.grouping = grouping
        self.agg_list = agg_list
        self.hidden = hidden
        self.scope = scope

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

    def __call__(self, e: E.Expr) -> E.Expr:
        out_ids = {E.to_attribute(x).expr_id for x in self.agg_list + self.hidden}
        group_set = set(self.grouping)

        def fn(x: E.Expr) -> E.Expr:
            if isinstance(x, E.Attribute) and x.expr_id in out_ids:
                return x
            if isinstance(x, E.Agg) or (isinstance(x, E.Opaque) and x.kind == "aggregate"):
                return self._add_hidden(x)
            if x in group_set:
                return self._add_hidden(x)
            if isinstance(x, E.Attribute):
                if _local(x, self.scope):
                    raise AnalysisError(f"column `{x.name}` must be in GROUP BY or inside an "
                                        f"aggregate function")
                return x
            return x

        return transform_down(e, fn)


def _convert_literal(lit: E.Literal, t: T.DataType):
    """A VALUES cell as a Python value of the column's type."""
    v = lit.value
    if v is None or lit.data_type == t:
        return v
    if isinstance(t, T.DecimalType) and isinstance(v, (int, Decimal)) and not isinstance(v, bool):
        return Decimal(v).quantize(Decimal(1).scaleb(-t.scale))
    if t in (T.DOUBLE, T.FLOAT) and isinstance(v, (int, float, Decimal)) and not isinstance(v, bool):
        return float(v)
    if T.is_integral(t) and isinstance(v, int) and not isinstance(v, bool):
        return v
    raise NotModelled(f"VALUES cell {v!r} of type {lit.data_type} in a {t} column")


__all__ = ["Analyzer", "NotModelled", "UnsupportedError", "Entry", "replace"]
