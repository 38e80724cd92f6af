"""SELECT blocks with clauses the optimizer does not model, kept as opaque relations.

`GROUP BY ROLLUP/CUBE/GROUPING SETS`, `LATERAL VIEW`, a generator in the select list
(`explode(xs)`), `PIVOT`, `QUALIFY`, a named `WINDOW` clause, `SORT BY`/`DISTRIBUTE
BY`/`CLUSTER BY`: the block itself is kept as
sqlglot text, but what it reads (its FROM clause, and its WHERE when that comes first)
is analyzed into a plan the rules still optimize.  In the template the FROM clause
becomes the placeholder table `__sf_input_0`, and every column reference the FROM
scope resolves becomes a placeholder `__sf_arg_i` bound to an analyzed expression, so
the SQL generator can put the optimized input back and re-qualify the references.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir import types as T
from ..ir.dialect import ARG_PREFIX, DIALECT, node_span
from ..ir.errors import AnalysisError
from ..ir.naming import name_known, spark_name
from .expr_context import Ctx, NotModelled, require_boolean
from .generator_select import generator_item_columns, is_generator_item
from .lateral_join import first_lateral, lateral_ids, lateral_items
from .lateral_model import filter_input, lateral_model
from .lateral_names import place_input_stars

if TYPE_CHECKING:
    from .analyze_expr import ExprAnalyzer
    from .scope import Scope


class SelectAnalyzer(Protocol):
    """What an opaque SELECT block needs of the query analyzer (`analyzer.Analyzer`): its
    FROM clause analyzed as any other, and expressions analyzed in that scope."""

    exprs: "ExprAnalyzer"

    def from_clause(self, from_: exp.From, joins, outer: "Scope | None", ctes: dict) -> tuple[L.Plan, "Scope"]: ...

    def select_over(self, sel: exp.Select, plan: L.Plan, scope: "Scope") -> L.Plan: ...


INPUT_TABLE = "__sf_input_0"
SHOWN = 200  # characters of an opaque block's text kept for display

GENERATOR_REASON = "a generator in the select list"
TRANSFORM_REASON = "a script transformation (SELECT TRANSFORM(...) USING ...)"
TIME_WINDOW_REASON = "a time window (window / session_window)"
_TIME_WINDOWS = frozenset({"window", "session_window"})

# clauses that make a SELECT block opaque
OPAQUE_CLAUSES = ("laterals", "qualify", "windows", "distribute", "sort", "cluster")


def opaque_reason(sel: exp.Select) -> str | None:
    if first_lateral(sel.args.get("joins") or []) is not None:
        return "a LATERAL subquery"
    for arg in OPAQUE_CLAUSES:
        if sel.args.get(arg):
            return f"SELECT with {arg.rstrip('_')}"
    group = sel.args.get("group")
    if group is not None:
        for arg in ("grouping_sets", "cube", "rollup", "totals"):
            if group.args.get(arg):
                return f"GROUP BY {arg.upper().replace('_', ' ')}"
        for g in group.expressions:
            if isinstance(g, (exp.Rollup, exp.Cube, exp.GroupingSets)):
                return f"GROUP BY {type(g).__name__.upper()}"
    from_ = sel.args.get("from_")
    if from_ is not None and from_.this.args.get("pivots"):
        return "PIVOT / UNPIVOT"
    generators = [item for item in sel.expressions if is_generator_item(item)]
    if generators:
        if len(generators) > 1:
            raise NotModelled("two generators in a select list")
        return GENERATOR_REASON
    return None


def _transform(item: exp.Expression) -> exp.QueryTransform | None:
    body = item.this if isinstance(item, exp.Alias) else item
    return body if isinstance(body, exp.QueryTransform) else None


def transforms(sel: exp.Select) -> bool:
    """Is the block a script transformation (`SELECT TRANSFORM(a, b) USING 'cat' AS (x,
    y) FROM t`)?  Spark runs the script over the rows of the block's input: the block is
    kept as written, its input optimized."""
    return any(_transform(item) is not None for item in sel.expressions)


_QUANTIFIED_TRANSFORM = re.compile(r"(?i)\bTRANSFORM\s*\(\s*(ALL|DISTINCT)\b")


def check_transform(sel: exp.Select, sql: str) -> None:
    """A script transformation sparkfold keeps as written, or NotModelled: not one with
    ALL / DISTINCT (which sqlglot's parser drops; Spark rejects it), nor one under an
    ordering or distribution clause (ORDER BY, SORT BY, CLUSTER BY, DISTRIBUTE BY), whose
    names read the script's output, not the block's input."""
    if _QUANTIFIED_TRANSFORM.search(sql):
        raise NotModelled(f"{TRANSFORM_REASON} with ALL or DISTINCT")
    if any(sel.args.get(k) for k in ("order", "sort", "cluster", "distribute")):
        raise NotModelled(f"{TRANSFORM_REASON} with ORDER BY, SORT BY, CLUSTER BY or DISTRIBUTE BY")


def _transform_columns(item: exp.Expression) -> list[E.Attribute]:
    """The columns of a script transformation, as Spark types them: its AS list's (a
    string where no type is given), a single alias's, else `key` and `value`; nullable."""
    from .data_types import TypeParseError, from_sqlglot

    node = _transform(item)
    assert node is not None
    if any(isinstance(s, exp.Star) or (isinstance(s, exp.Column) and isinstance(s.this, exp.Star))
           for s in node.expressions):
        raise NotModelled(f"{TRANSFORM_REASON} of `*`")
    schema = node.args.get("schema")
    if isinstance(item, exp.Alias):
        if schema is not None:
            raise NotModelled(f"{TRANSFORM_REASON} with an alias and an AS list")
        return [E.Attribute(item.alias, T.STRING, True, E.new_id())]
    if schema is None:
        return [E.Attribute(n, T.STRING, True, E.new_id()) for n in ("key", "value")]
    out = []
    for col in schema.expressions:
        if isinstance(col, exp.Identifier):
            out.append(E.Attribute(col.name, T.STRING, True, E.new_id()))
            continue
        if not isinstance(col, exp.ColumnDef) or not isinstance(col.args.get("kind"), exp.DataType):
            raise NotModelled(f"{TRANSFORM_REASON} with an AS list sparkfold does not read")
        try:
            dt = from_sqlglot(col.args["kind"])
        except TypeParseError:
            raise NotModelled(f"{TRANSFORM_REASON} with a column of a type sparkfold does not know") from None
        out.append(E.Attribute(col.name, dt, True, E.new_id()))
    return out


def is_time_window(node) -> bool:
    """Is the node a call of Spark's time window functions (`window(ts, '5 minutes')`,
    `session_window(ts, '10 minutes')`)?"""
    return isinstance(node, exp.Anonymous) and str(node.this).lower() in _TIME_WINDOWS


def time_windowed(sel: exp.Select) -> bool:
    """Does the block call a time window function, in its select list or GROUP BY (where
    Spark's TimeWindowing rule places the window column)?  One in another of its clauses
    is not modelled; the blocks of its subqueries are their own."""
    found = False
    for key, value in sel.args.items():
        for part in value if isinstance(value, list) else [value]:
            if not isinstance(part, exp.Expression) or key in ("from_", "joins", "with_"):
                continue
            if any(is_time_window(n) for n in part.walk(prune=lambda n: isinstance(n, exp.Query))):
                if key not in ("expressions", "group"):
                    raise NotModelled(f"{TIME_WINDOW_REASON} in {key.rstrip('_').upper()}")
                found = True
    return found


def opaque_select(analyzer: SelectAnalyzer, sel: exp.Select, outer: "Scope | None", ctes: dict,
                  reason: str, is_root: bool) -> L.Plan:
    from .scope import Scope

    if sel.args.get("qualify") is not None and not _qualifies_by_window(sel):
        # Spark raises QUALIFY_REQUIRES_WINDOW_FUNCTION; the text sqlglot writes for it
        # (a WHERE over a subquery) reads a name it does not define
        raise NotModelled("QUALIFY whose condition reads no window function")
    from_ = sel.args.get("from_")
    joins = sel.args.get("joins") or []
    lateral_at = first_lateral(joins)
    later = joins[lateral_at:] if lateral_at is not None else []
    joins = joins[:lateral_at] if lateral_at is not None else joins
    pivots = from_.this.args.get("pivots") if from_ is not None else None
    if pivots and joins:
        raise NotModelled("PIVOT over a join")
    template = _copy_but(sel, ("from_", "joins", "with_") if from_ is not None else ("with_",))
    if from_ is not None:
        # (its spans placed first, that the copy analyzed carries them: with sqlglotc
        # they are set on demand, for the nodes of the parsed tree only)
        node_span(from_.this)
        source = from_.this.copy()
        source.set("pivots", None)
        plan, scope = analyzer.from_clause(exp.From(this=source), joins, outer, ctes)
        placeholder = exp.Table(this=exp.to_identifier(INPUT_TABLE))
        if pivots:
            placeholder.set("pivots", [p.copy() for p in pivots])
        template.set("from_", exp.From(this=placeholder))
        template.set("joins", None)
    else:
        plan, scope = L.OneRowRelation(), Scope()
        template.set("from_", exp.From(this=exp.Table(this=exp.to_identifier(INPUT_TABLE))))
    scope = scope.with_parent(outer, ctes)
    if reason == TIME_WINDOW_REASON and any(isinstance(c, (E.Attribute, E.Alias)) and c.name.lower() in _TIME_WINDOWS
                                            for c in scope.star):
        # (the block's `window.start` would read the FROM column, or Spark's new one)
        raise NotModelled(f"{TIME_WINDOW_REASON} over a column named window or session_window")
    template.set("with_", None)
    args: list[E.Expr] = []
    inside: set[int] = set()
    input_scope = scope
    if later:
        # the FROM items from the first LATERAL subquery stay in the text, analyzed for
        # their columns (`lateral_join`)
        template.set("joins", [j.copy() for j in later])
        aliases = {i.alias for i in [from_.this, *(j.this for j in joins)] if i.alias} if from_ is not None else set()
        items = lateral_items(analyzer, template.args["joins"], scope, outer, ctes, args, aliases)
        scope, inside = items.scope, items.inside
        plan = filter_input(analyzer, template, plan, scope, template.args["joins"], items.equal)
        later_scope = Scope(scope.entries[len(input_scope.entries):])
        place_input_stars(template, inside, input_scope, later_scope, template.args["joins"], bool(joins), args)
    # WHERE runs before all these clauses except LATERAL VIEW, a LATERAL subquery and
    # PIVOT, whose columns it may use: then it stays in the template.  (Its
    # subqueries are analyzed as any WHERE's.)
    where = sel.args.get("where")
    if where is not None and not sel.args.get("laterals") and not pivots and not later:
        cond = analyzer.exprs.analyze(where.this, Ctx(scope, clause="WHERE"))
        plan = L.Filter(require_boolean(cond, "WHERE"), plan)
        template.set("where", None)
    # subqueries in the FROM clause are part of the input; an uncorrelated scalar one
    # in the select list, HAVING or ORDER BY is a value, a placeholder bound to its
    # analysis; any other would have to be analyzed inside the text, which we do not do
    _uncorrelated_scalars(analyzer, template, inside, args, ctes)
    if any(id(n) not in inside and (isinstance(n, (exp.Subquery, exp.Exists)) or
                                    (isinstance(n, exp.In) and n.args.get("query")))
           for n in template.find_all(exp.Subquery, exp.Exists, exp.In)):
        raise NotModelled(f"{reason} with a subquery")
    if any(id(n) not in inside for n in template.find_all(exp.Lambda)):
        raise NotModelled(f"{reason} with a lambda function")

    later_ids = lateral_ids(scope) - lateral_ids(input_scope) if later else set()
    for col in list(template.find_all(exp.Column)):
        if isinstance(col.this, exp.Star) or col.name.startswith(ARG_PREFIX) or id(col) in inside:
            continue
        parts = tuple(p.name for p in col.parts)
        try:
            found, rest, _ = scope.resolve(parts, ".".join(parts))
        except AnalysisError:
            continue  # a select alias, a LATERAL VIEW or PIVOT column: stays as text
        if rest:
            continue
        if found.references & later_ids:
            continue  # a LATERAL subquery's column, or a table's after it: stays as text
        args.append(found)
        col.replace(exp.column(f"{ARG_PREFIX}{len(args) - 1}"))

    unnamed: set[int] = set()
    output = _output(analyzer, sel, scope, bool(pivots or sel.args.get("laterals")), is_root, unnamed)
    if later or reason == GENERATOR_REASON:
        _refuse_shadowed_names(analyzer, sel, input_scope, scope)
    model = lateral_model(analyzer, sel, plan, scope, items.steps, output) if later else None
    if model is not None:  # the block's columns as nullable as its operators make them
        output = [o.with_nullability(o.nullable and m.nullable) if o.data_type == m.data_type else o
                  for o, m in zip(output, model.output)]
    return L.OpaqueRelation(template, tuple(output), (plan,), tuple(args), _shown(analyzer, sel), model,
                            frozenset(output[i].expr_id for i in unnamed))


def _uncorrelated_scalars(analyzer, template: exp.Expression, inside: set[int], args: list[E.Expr],
                          ctes: dict) -> None:
    """Each scalar subquery of the block's select list, HAVING and ORDER BY that reads
    nothing of the block (`(SELECT count(*) FROM u) AS n` beside a ROLLUP) replaced by a
    placeholder bound to its analysis, appended to `args`: Spark computes it once, as a
    value, wherever it stands.  One that reads the block's columns stays (not modelled)."""
    from .scope import Scope as _Scope

    for key in ("expressions", "having", "order"):
        value = template.args.get(key)
        for part in value if isinstance(value, list) else [value]:
            if not isinstance(part, exp.Expression):
                continue
            for node in list(part.find_all(exp.Subquery)):
                if id(node) in inside or not isinstance(node.parent, (exp.Alias, exp.Binary, exp.Func, exp.Paren,
                                                                       exp.Ordered, exp.Select, exp.Having,
                                                                       exp.Order, exp.Unary, exp.Case, exp.If)) \
                        or node.find_ancestor(exp.Subquery) is not None:
                    continue
                try:
                    e = analyzer.exprs.analyze(node, Ctx(_Scope().with_parent(None, ctes), clause="SELECT"))
                except (AnalysisError, NotModelled):
                    continue  # (a correlated one: it reads the block's columns)
                if not isinstance(e, E.ScalarSubquery) or e.outer_references:
                    continue
                args.append(e)
                node.replace(exp.column(f"{ARG_PREFIX}{len(args) - 1}"))


def _grouping_analytics(sel: exp.Select) -> bool:
    """Does the block group by GROUPING SETS, ROLLUP or CUBE?"""
    reason = opaque_reason(sel)
    return reason is not None and reason.startswith("GROUP BY")


def _qualifies_by_window(sel: exp.Select) -> bool:
    """Does the QUALIFY condition hold a window function, itself or through a select
    item's alias?"""
    condition = sel.args["qualify"]
    if condition.find(exp.Window) is not None:
        return True
    windowed = {item.alias.lower() for item in sel.expressions
                if isinstance(item, exp.Alias) and item.find(exp.Window) is not None}
    return any(not c.table and c.name.lower() in windowed for c in condition.find_all(exp.Column))


def _refuse_shadowed_names(analyzer, sel: exp.Select, input_scope: "Scope", scope: "Scope") -> None:
    """ORDER BY (HAVING, SORT BY...) may name a select alias or a generator's column, which
    Spark prefers to a FROM column of that name, where the text's placeholders would read
    the input's: a block with both is not modelled."""
    if not any(sel.args.get(k) for k in ("order", "having", "sort", "distribute", "cluster", "qualify")):
        return
    named: set[str] = set()
    for item in sel.expressions:
        if isinstance(item, exp.Aliases):
            named |= {a.name.lower() for a in item.expressions}
        elif isinstance(item, exp.Alias):
            named.add(item.alias.lower())
        elif is_generator_item(item):
            named |= {n.lower() for n, _ in generator_item_columns(analyzer, item, scope)}
    columns = {c.name.lower() for c in input_scope.star if isinstance(c, (E.Attribute, E.Alias))}
    if named & columns:
        raise NotModelled("ORDER BY / HAVING in a block kept as text, with a select alias named as a FROM column")


def _copy_but(node: exp.Expression, keys: tuple) -> exp.Expression:
    """`node.copy()` with the args `keys` left out (None): the template's FROM, joins
    and CTEs are replaced at once, and copying them (a FROM with a union of subqueries
    under an opaque ROLLUP) was most of the block's analysis.  The input is not
    changed: its args are set aside for the copy and put back, children untouched."""
    saved = {k: node.args[k] for k in keys if node.args.get(k) is not None}
    for k in saved:
        node.args[k] = None
    try:
        out = node.copy()
    finally:
        node.args.update(saved)
    out._hash = None  # a hash the input had cached counted what was left out
    return out


def _shown(analyzer, sel: exp.Select) -> str:
    """The start of the block's text, for display (`SHOWN` characters).  A long block is
    shown as the input writes it, from its SELECT keyword: printing it would print every
    subquery of its FROM clause for those few characters.  A short one is printed, since
    its span can end before trailing keywords (`WITH ROLLUP`, a LATERAL VIEW)."""
    span = node_span(sel)
    source = getattr(analyzer, "sql", "")
    if span is not None and source:
        with_ = sel.args.get("with_")
        if with_ is None:  # the span starts at the first item, after SELECT and any hint
            start = source.lower().rfind("select", 0, span[0] + len("select"))
        else:  # the span starts at WITH: the block's SELECT is the first after the CTEs
            ctes = node_span(with_)
            start = source.lower().find("select", ctes[1] + 1, span[1]) if ctes is not None else -1
        if start >= 0 and span[1] - start >= SHOWN:
            return source[start:start + SHOWN]
    return sel.sql(dialect=DIALECT)[:SHOWN]


def _output(analyzer, sel, scope, generated_columns: bool, is_root: bool,
            unnamed: set[int]) -> list[E.Attribute]:
    """The block's output columns: names from aliases (or Spark's generated names) and
    types where the select item can be analyzed; nullable throughout.  The ids of those
    whose generated name sparkfold does not know (`naming.name_known`: a call of a
    persistent function is `spark_catalog.default.f(x)`) go into `unnamed`: at the root,
    Spark names them; inside a query, nothing could refer to them (not modelled)."""
    out: list[E.Attribute] = []
    for item in sel.expressions:
        if isinstance(item, exp.Star) or (isinstance(item, exp.Column) and isinstance(item.this, exp.Star)):
            if generated_columns:
                if is_root:
                    return _unknown_output(sel)
                pivoted = _pivot_star(analyzer, sel, item, scope)
                if pivoted is None:
                    raise NotModelled("SELECT * over LATERAL VIEW or PIVOT inside a query")
                out.extend(pivoted)
                continue
            qual = None if isinstance(item, exp.Star) else tuple(p.name for p in item.parts[:-1])
            for c in scope.expand_star(qual):
                a = E.to_attribute(c) if isinstance(c, (E.Attribute, E.Alias)) else None
                if a is not None:
                    out.append(E.Attribute(a.name, a.data_type, True, E.new_id()))
            continue
        if is_generator_item(item):
            out.extend(E.Attribute(n, t, True, E.new_id()) for n, t in generator_item_columns(analyzer, item, scope))
            continue
        if _transform(item) is not None:
            out.extend(_transform_columns(item))
            continue
        name = item.alias if isinstance(item, exp.Alias) else None
        body = item.this if isinstance(item, exp.Alias) else item
        if name is None and sel.args.get("windows"):
            body = _inline_windows(body, sel.args["windows"])
        try:
            e = analyzer.exprs.analyze(body, Ctx(scope, allow_aggregates=True, allow_windows=True,
                                                 grouping_analytics=_grouping_analytics(sel)))
            dt = e.data_type
            if name is None:
                name = e.name if isinstance(e, E.Attribute) else spark_name(e)
                if not name_known(e) or any(is_time_window(n) for n in body.walk()):
                    unnamed.add(len(out))  # (Spark names a time window's column `window`)
        except (AnalysisError, NotModelled):
            if name is None and isinstance(body, exp.Column):
                # a column the scope does not know (a LATERAL VIEW's): Spark names it as
                # the reference is written, its last part (`v.x` is `x`)
                name = body.name
            if name is None:
                if not is_root:
                    raise NotModelled("an unaliased select item we cannot name")
                name = body.sql(dialect=DIALECT)
                unnamed.add(len(out))
            dt = T.UNKNOWN
        out.append(E.Attribute(name, dt, True, E.new_id()))
    if unnamed and not is_root:
        raise NotModelled(f"an unaliased select item Spark names as sparkfold does not know "
                          f"({', '.join(out[i].name for i in sorted(unnamed))})")
    return out


def _inline_windows(body: exp.Expression, windows: list) -> exp.Expression:
    """body with `OVER w` written out as the WINDOW clause defines w, as Spark names the
    column (`count(1) OVER (PARTITION BY s ORDER BY ...)`, not `count(*) OVER w`)."""
    defined = {d.name.lower(): d for d in windows if isinstance(d, exp.Window)}
    body = body.copy()
    for w in list(body.find_all(exp.Window)):
        d = defined.get(w.alias.lower()) if w.alias else None
        if d is None or w.args.get("partition_by") or w.args.get("order"):
            continue
        if isinstance(d.this, exp.Identifier) and d.this.name.lower() != w.alias.lower():
            continue  # w AS (v ...): defined through another window
        for arg in ("partition_by", "order"):
            if d.args.get(arg):
                w.set(arg, d.args[arg].copy() if isinstance(d.args[arg], exp.Expression)
                      else [x.copy() for x in d.args[arg]])
        if d.args.get("spec") and not w.args.get("spec"):
            w.set("spec", d.args["spec"].copy())
        w.set("alias", None)
    return body


def _pivot_star(analyzer, sel, star, scope) -> list[E.Attribute] | None:
    """`*` over `PIVOT(agg FOR k IN ('v1', 'v2' AS w, ...))`, as Spark expands it: the input's
    columns that neither the aggregate nor `k` reads (in order), then one column per value,
    named by the string (or its alias) and of the aggregate's type, all nullable.  Only one
    unaliased aggregate over a string column and string values; None for anything else."""
    if not isinstance(star, exp.Star) or any(star.args.get(k) for k in ("except_", "replace", "rename")) \
            or sel.args.get("laterals"):
        return None
    pivots = sel.args["from_"].this.args.get("pivots") or []
    if len(pivots) != 1:
        return None
    pivot = pivots[0]
    fields = pivot.args.get("fields") or []
    if pivot.args.get("unpivot") or len(pivot.expressions) != 1 or len(fields) != 1 \
            or not isinstance(fields[0], exp.In) or not isinstance(fields[0].this, exp.Column) \
            or isinstance(pivot.expressions[0], exp.Alias):
        return None
    names = []
    for v in fields[0].expressions:
        name = v.alias if isinstance(v, exp.PivotAlias) else None
        v = v.this if isinstance(v, exp.PivotAlias) else v
        if not (isinstance(v, exp.Literal) and v.is_string):
            return None
        names.append(name or v.this)
    try:
        agg = analyzer.exprs.analyze(pivot.expressions[0], Ctx(scope, allow_aggregates=True))
        key = analyzer.exprs.analyze(fields[0].this, Ctx(scope))
    except (AnalysisError, NotModelled):
        return None
    if key.data_type != T.STRING or not E.contains_aggregate(agg) or agg.data_type == T.UNKNOWN:
        return None
    read = agg.references | key.references
    grouping = [E.to_attribute(c) for c in scope.expand_star(None) if isinstance(c, (E.Attribute, E.Alias))]
    out = [E.Attribute(a.name, a.data_type, True, E.new_id()) for a in grouping if a.expr_id not in read]
    out += [E.Attribute(n, agg.data_type, True, E.new_id()) for n in names]
    if len({a.name.lower() for a in out}) != len(out):
        return None
    return out


def _unknown_output(sel) -> list[E.Attribute]:
    return [E.Attribute("*", T.UNKNOWN, True, E.new_id())]
