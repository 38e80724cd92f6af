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

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir import types as T
from ..ir.errors import AnalysisError, UnknownColumnError, UnsupportedError
from ..ir.records import replace
from .analyze_expr import ExprAnalyzer
from .catalog import Catalog
from .expr_context import Ctx, NotModelled, legacy_widening
from .widening import wider_common
from .parse import BANG_NOT, UNARY_PLUS
from .settings import CORRELATION, first_affecting, plan_affecting
from .from_clause import CTEDef, _has_modifiers, from_items, values_relation
from .precedence import MEANING
from .recursive_cte import reads, recursive_cte
from .regex_columns import regex_items
from .scope import Entry, Scope
from .select import limit_offset, select_block, select_over, sort_orders
from .subquery_places import check_sort


class Analyzer:

    def __init__(self, catalog: Catalog, sql: str = ""):
        self.catalog = catalog
        self.sql = sql
        self.exprs = ExprAnalyzer(self)
        self.root: exp.Expression | None = None
        # hints on a SELECT inside the query (a derived table, a CTE, a set operation's
        # branch): they never change the rows, and the analysis leaves them out; only
        # the kept-layout output has a place for them (optimizer.api)
        self.inner_hints = False
        # (source node, expression) for every node analyzed, when a caller records them
        # (`optimizer.findings.SourceMap`): a CTE's later references add their copies
        self.recorded: list | None = None
        # ids of the select items Spark names with names sparkfold does not know
        # (`naming.name_known`): nothing may refer to them (`expr_context.refuse_unnamed`)
        self.unnamed: set[int] = set()
        # what the columns of stars expanded among a call's arguments are (`stars`), and
        # how many of them were a struct's fields
        self.star_args: list[E.Expr] = []
        self.star_field_args = 0
        # id(scope) of a query whose HAVING is being analyzed -> the aggregates over its
        # columns that its subqueries' WHERE hold (`expr_calls.outer_aggregate`)
        self.aggregate_hosts: dict[int, list[E.Expr]] = {}
        # ids of the select items read as regular expressions over column names
        # (spark.sql.parser.quotedRegexColumnNames: `regex_columns`)
        self.regex: set[int] = set()
        # errors of Spark's checks of the analyzed plan (CheckAnalysis), which come after
        # every name is resolved: raised once the whole query is analyzed, so that an
        # error of resolution met later in the text comes first, as in Spark
        self.checked_later: list[AnalysisError] = []

    def analyze(self, tree: exp.Expression) -> L.Plan:
        try:
            return self._analyze(tree)
        except UnknownColumnError as e:
            if not self.catalog.session_resolves(tuple(e.name.split("."))):
                raise
            # a live session resolves names its schemas do not show: a session variable
            # (DECLARE VARIABLE), a hidden column (`_metadata` of a file source), ... which
            # Spark reads or rejects itself
            raise NotModelled(f"the name `{e.name}`, which the session resolves and sparkfold does not (a session "
                              "variable, a hidden column such as `_metadata`)") from None

    def _analyze(self, tree: exp.Expression) -> L.Plan:
        if not isinstance(tree, (exp.Query, exp.Subquery, exp.Values)):
            raise NotModelled(f"{type(tree).__name__} statement (only queries are optimized)")
        self.root = tree
        self.checked_later = []
        if (misread := tree.meta.get(MEANING)) is not None:
            raise NotModelled(misread)
        if self.catalog.escaped_string_literals and "\\" in self.sql:
            # Spark then reads a backslash in a string literal as itself, where sparkfold's
            # parser (Spark's default) reads an escape
            raise NotModelled("a backslash under spark.sql.parser.escapedStringLiterals")
        if tree.meta.get(UNARY_PLUS):
            raise NotModelled("a unary plus (`+ x`), which sqlglot's parser drops: its column name "
                              "`(+ x)`, and Spark's checks and casts of its operand, would be lost")
        if tree.meta.get(BANG_NOT) and not self.catalog.bang_equals_not:
            raise NotModelled("`!` for NOT after an operand (`x ! IN (...)`, `x IS ! NULL`), which Spark "
                              "rejects unless spark.sql.legacy.bangEqualsNot is true")
        if '"' in self.sql and any(self.sql[i.meta["start"]:i.meta["start"] + 1] == '"'
                                   for i in tree.find_all(exp.Identifier) if i.meta.get("start") is not None):
            # sqlglot's parser takes a double-quoted string for a name in places (`AS "q"`,
            # `WITH "c" AS`) where Spark's reads a string and rejects it (unless
            # spark.sql.ansi.doubleQuotedIdentifiers, whose text comes here in backquotes)
            raise NotModelled("a double-quoted string where a name stands")
        self.regex = regex_items(tree) if self.catalog.quoted_regex_column_names else set()
        unmodelled = self.catalog.unmodelled
        setting = first_affecting(unmodelled, tree, self.sql, correlated=False) if unmodelled else None
        if setting is not None:
            raise _changed_by(setting)
        if self.catalog.legacy_setops_precedence and tree.find(exp.Intersect) is not None \
                and tree.find(exp.Union, exp.Except) is not None:
            # Spark then reads a chain of set operations left to right, INTERSECT with no
            # precedence over UNION and EXCEPT; sqlglot's tree (like Spark's default) has
            # INTERSECT bind tighter, and no longer tells which parentheses were written
            raise NotModelled("INTERSECT with UNION or EXCEPT under "
                              "spark.sql.legacy.setopsPrecedence.enabled (read left to right)")
        with E.id_scope(join=True):  # the caller's run's ids, or the analysis's own
            plan = self.query(tree, None, {})
        setting = plan_affecting(unmodelled, plan) if unmodelled else None
        if setting is not None:
            raise _changed_by(setting)
        if any(key in CORRELATION for key, _ in unmodelled) and L.any_subquery(plan, lambda x: bool(x.outer_references)):
            # such a setting changes how Spark decorrelates the correlated subqueries (which
            # it takes, what an aggregate over no row gives there): they are frozen, kept
            # as analyzed, and written as in the text (optimizer.api)
            plan = _frozen(plan, {})
        if self.unnamed:
            _only_shown(plan, self.unnamed)
        if self.checked_later:
            raise self.checked_later[0]
        return plan

    def subquery(self, node: exp.Expression, ctx: Ctx) -> L.Plan:
        """A subquery inside an expression: correlated with ctx's scope."""
        return self.query(node, ctx.scope, ctx.scope.ctes)

    def query(self, node: exp.Expression, outer: Scope | None, ctes: dict) -> L.Plan:
        if isinstance(node, exp.Subquery) and (node.args.get("joins") or node.args.get("laterals")):
            # a join in parentheses (`((SELECT ...) JOIN y ON ...)`) is a relation of the
            # FROM clause (from_clause.relation); read as a query it would lose the join
            raise NotModelled("a join inside parentheses, read as a query")
        with_ = node.args.get("with_")
        if with_ is None:
            return self._query(node, outer, ctes)
        inner = self._ctes(with_, outer, ctes)
        plan = self._query(node, outer, inner)
        for key in {c.alias.lower() for c in with_.expressions}:
            d = inner[key]
            if d.recursive and not d.uses:
                # it goes from the rewritten query, and with it whatever error Spark finds in it
                raise NotModelled("a recursive CTE no query reads")
            if not d.uses and d.make is None:
                self._unread_cte(d)
        return plan

    def _unread_cte(self, d: CTEDef) -> None:
        """Spark analyzes a CTE that no query reads: its errors are the query's (an unknown
        column or table), and the outer columns it reads name the subquery it stands in
        (`(WITH u AS (SELECT id) SELECT 1)` is `scalarsubquery(id)`).  Analyzed here for
        the errors only (what it recorded is dropped).  One reading outer columns passes
        through, and so does one holding what sparkfold does not model (an opaque call or
        relation), where Spark may find an error sparkfold does not see: a query written
        whole has no CTE no query reads."""
        mark = len(self.recorded) if self.recorded is not None else 0
        unread = self.query(d.node, d.outer, d.ctes)
        if self.recorded is not None:
            del self.recorded[mark:]
        if d.outer is not None and L.outer_references(unread):
            raise NotModelled(f"the CTE `{d.name}`, which no query reads, reads the outer query's columns "
                              f"(Spark names the subquery after them)")
        if _holds_opaque(unread):
            raise NotModelled(f"the CTE `{d.name}`, which no query reads, holds what sparkfold does not model "
                              f"(Spark analyzes it, and may find an error there)")

    def _query(self, node: exp.Expression, outer: Scope | None, ctes: dict) -> L.Plan:
        if isinstance(node, exp.Select):
            return select_block(self, node, outer, ctes)
        if isinstance(node, exp.SetOperation):
            return self._set_operation(node, outer, ctes)
        if isinstance(node, exp.Subquery):
            plan = self.query(node.this, outer, ctes)
            if node.alias:
                plan = L.SubqueryAlias(node.alias, plan)
            return self._modifiers(node, plan, outer, ctes)
        if isinstance(node, exp.Values):
            plan, _ = values_relation(self, node)
            return plan
        if isinstance(node, exp.Paren):
            return self.query(node.this, outer, ctes)
        raise NotModelled(f"query of kind {type(node).__name__}")

    def _ctes(self, with_: exp.With, outer, ctes) -> dict:
        out = dict(ctes)
        names = [cte.alias.lower() for cte in with_.expressions]
        written = [cte.alias for cte in with_.expressions]
        twice = sorted({n for n in written if written.count(n) > 1})
        if twice:  # Spark's parser rejects the WITH clause, even when nothing reads the name
            raise AnalysisError(f"[DUPLICATED_CTE_NAMES] the WITH clause defines "
                                f"{', '.join(f'`{n}`' for n in twice)} more than once")
        if len(set(names)) < len(names):  # (Spark compares the names as written)
            raise NotModelled("a WITH clause with two names that differ in case only")
        for i, cte in enumerate(with_.expressions):
            name = cte.alias
            if with_.args.get("recursive") and reads(cte.this, set(names[i + 1:])):
                raise NotModelled("a CTE reading one defined after it")
            if with_.args.get("recursive") and reads(cte.this, {names[i]}):
                # (WITH RECURSIVE whose CTEs only read earlier ones is an ordinary WITH)
                out[name.lower()] = recursive_cte(self, with_, i, out, ctes)
                continue
            alias = cte.args.get("alias")
            columns = [c.name for c in alias.columns] if alias is not None and alias.columns else []
            out[name.lower()] = CTEDef(name, cte.this, columns, outer, dict(out), [])
        return out

    def _rename(self, plan: L.Plan, columns: list[str], what: str) -> L.Plan:
        if not columns:
            return plan
        if len(columns) != len(plan.output):
            raise AnalysisError(f"{what} has {len(plan.output)} columns but {len(columns)} names were given")
        return L.Project(tuple(E.Alias(a, n, E.new_id()) for a, n in zip(plan.output, columns)), plan)

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
            # (WidenSetOperationTypes: findWiderTypeForTwo, as CASE and coalesce widen;
            # under ANSI an integral beside a float is a double)
            t = wider_common((p.output[i].data_type for p in plans), self.catalog.ansi)
            if not self.catalog.ansi:
                legacy_widening([p.output[i].data_type for p in plans], f"{what} column {i + 1}")
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
            items: list[E.Expr] = []
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
            orders = tuple(sort_orders(self, order, ctx, list(plan.output)))
            out_ids = {a.expr_id for a in plan.output}
            check_sort(orders, out_ids.__contains__, out_ids.__contains__, self.checked_later)
            plan = L.Sort(orders, plan)
        return limit_offset(self, node, plan)

    def from_clause(self, from_: exp.From, joins, outer, ctes) -> tuple[L.Plan, Scope]:
        """The FROM clause's plan and scope (for opaque blocks too: `opaque_select`)."""
        return from_items(self, from_, joins, outer, ctes)

    def select_over(self, sel: exp.Select, plan: L.Plan, scope: Scope) -> L.Plan:
        """The clauses of a SELECT block after its FROM, over that plan (for an opaque
        block's model too: `lateral_join.lateral_model`)."""
        return select_over(self, sel, plan, scope)


__all__ = ["Analyzer", "NotModelled", "UnsupportedError", "Entry", "replace"]


def _changed_by(setting: str) -> NotModelled:
    return NotModelled(f"the session sets {setting}, which can change what this query means "
                       f"and which sparkfold does not model")


def _frozen(plan: L.Plan, memo: dict) -> L.Plan:
    """The plan with its correlated subqueries frozen (`E.SubqueryExpr`'s `frozen`), at
    any depth; an uncorrelated one keeps its plan, with those inside it frozen."""
    hit = memo.get(id(plan))
    if hit is not None:
        return hit

    def freeze(e: E.Expr) -> E.Expr:
        if isinstance(e, E.SubqueryExpr):
            return e.copy(frozen=True) if e.outer_references else e.with_plan(_frozen(e.plan, memo))
        if not L.subquery_plans(e):
            return e
        return e.with_children([freeze(k) for k in e.children])

    out = plan.with_children([_frozen(c, memo) for c in plan.children]).map_expressions(freeze)
    memo[id(plan)] = out
    return out


def _only_shown(plan: L.Plan, unnamed: set[int]) -> None:
    """Columns named by Spark with names sparkfold does not know may be the query's output
    only as items of its top SELECT that nothing above refers to: written there unaliased
    they are named by Spark again (`plans.sql_out`, `plans.pyspark`)."""
    top = plan
    while isinstance(top, (L.Limit, L.Offset, L.Distinct, L.Sort, L.Filter)) or (
            isinstance(top, L.Project) and all(isinstance(p, E.Attribute) for p in top.projections)):
        if not isinstance(top, L.Project) and any(
                n.expr_id in unnamed for e in top.expressions for n in e.walk() if isinstance(n, E.Attribute)):
            raise NotModelled("an ORDER BY or HAVING of a column Spark names with a name sparkfold does not know")
        top = top.child
    items = top.projections if isinstance(top, L.Project) else top.aggregates if isinstance(top, L.Aggregate) else ()
    shown = {E.to_attribute(p).expr_id for p in items}
    for a in plan.output:
        if a.expr_id in unnamed and a.expr_id not in shown:
            raise NotModelled(f"the column {a.name}, named by Spark with a name sparkfold does not know, "
                              f"outside the query's top SELECT")


def _holds_opaque(plan: L.Plan) -> bool:
    """Does the plan hold an opaque relation or expression, at any depth?"""
    stack = [plan]
    while stack:
        p = stack.pop()
        if isinstance(p, L.OpaqueRelation):
            return True
        stack.extend(p.children)
        for e in p.expressions:
            if e.mask & E.Opaque.bit:
                return True
            stack.extend(x.plan for x in L.subquery_plans(e))
    return False
