"""The FROM clause: tables (and CTE references), VALUES, derived tables, joins (USING and
NATURAL keys merged) into a plan and the `Scope` its names resolve in.  Each takes
the `Analyzer` first."""

from __future__ import annotations

import collections

from collections.abc import Callable
from typing import cast

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir import types as T
from ..ir.dialect import DIALECT, function_name
from ..ir.errors import AnalysisError, UnknownTableError
from ..ir.records import record
from .expr_context import (
    Ctx,
    NotModelled,
    _position,
    calls_nondeterministic,
    require_boolean,
)
from .inline_table import is_inline_table, values_relation
from .scope import Entry, Scope
from .subquery_places import pass_correlated_scalar


@record
class CTEDef:
    name: str
    node: exp.Expression
    columns: list[str]
    outer: Scope | None
    ctes: dict
    uses: list
    # a CTE kept as text (`recursive_cte`): each reference is `make()`, read twice only
    # when `repeatable`
    make: Callable[[], L.Plan] | None = None
    repeatable: bool = False
    recursive: bool = False
    # the first reference's plan, the ids its analysis handed out, and the (source node,
    # expression) pairs it recorded (`Analyzer.recorded`)
    analyzed: tuple | None = None


def from_items(an, from_: exp.From, joins, outer, ctes) -> tuple[L.Plan, Scope]:
    first = _unlateral(from_.this)
    plan, scope = relation(an, first, outer, ctes)
    if first is not from_.this and outer is not None and plan.outer_references:
        raise NotModelled("a LATERAL subquery first in FROM reading an enclosing query's columns")
    for j in joins:
        right, rscope = relation(an, j.this, outer, ctes)
        plan, scope = join(an, plan, scope, right, rscope, j, outer, ctes)
    return plan, scope


def _unlateral(node: exp.Expression) -> exp.Expression:
    """The first FROM item without its LATERAL (`FROM LATERAL (SELECT ...) [AS s]`,
    `FROM LATERAL explode(...)`): with no item before it, Spark reads it as the subquery
    or the table function itself."""
    if not isinstance(node, exp.Lateral) or node.args.get("view") or node.args.get("outer") \
            or node.args.get("ordinality") or node.args.get("cross_apply") is not None:
        return node
    inner, alias = node.this, node.args.get("alias")
    out: exp.Expression
    if isinstance(inner, exp.Subquery) and not inner.args.get("alias"):
        out = inner.copy()
    elif isinstance(inner, exp.Func):
        out = exp.Table(this=inner.copy())
    else:
        return node
    if alias is not None:
        out.set("alias", alias.copy())
    out.meta.update(node.meta)
    return out


def relation(an, node: exp.Expression, outer, ctes, with_joins: bool = True) -> tuple[L.Plan, Scope]:
    if node.args.get("pivots"):
        raise NotModelled("PIVOT / UNPIVOT")
    if node.args.get("laterals"):
        raise NotModelled("LATERAL VIEW inside parentheses")
    if with_joins and isinstance(node, (exp.Table, exp.Subquery)) and node.args.get("joins"):
        # a parenthesized join, `(x JOIN y ON ...)`: sqlglot hangs the joins on its first item
        plan, scope = relation(an, node, outer, ctes, with_joins=False)
        for j in node.args["joins"]:
            right, rscope = relation(an, j.this, outer, ctes)
            plan, scope = join(an, plan, scope, right, rscope, j, outer, ctes)
        return plan, scope
    if isinstance(node, exp.Table):
        return table_reference(an, node, ctes)
    if isinstance(node, exp.Subquery) and _parenthesized_relation(node.this):
        # `(x JOIN y ON ...) [AS t]`: the relation in parentheses; an alias renames it whole
        # (its columns are then t's only, as Spark's aliasedRelation makes them)
        if _has_modifiers(node):
            raise NotModelled("a parenthesized relation with ORDER BY / LIMIT")
        plan, scope = relation(an, node.this, outer, ctes)
        name = node.alias
        if not name:
            return plan, scope
        alias = node.args.get("alias")
        plan = an._rename(plan, [c.name for c in alias.columns] if alias is not None and alias.columns else [],
                          f"subquery {name}")
        plan = L.SubqueryAlias(name, plan)
        return plan, Scope.of((name.lower(),), list(plan.output), name)
    if isinstance(node, exp.Subquery):
        plan = an.query(node.this, outer, ctes)
        plan = an._modifiers(node, plan, outer, ctes) if _has_modifiers(node) else plan
        alias = node.args.get("alias")
        columns = [c.name for c in alias.columns] if alias is not None and alias.columns else []
        name = node.alias
        plan = an._rename(plan, columns, f"subquery {name}")
        if name:
            plan = L.SubqueryAlias(name, plan)
            return plan, Scope.of((name.lower(),), list(plan.output), name)
        return plan, Scope.of((), list(plan.output))
    if isinstance(node, exp.Values):
        return values_relation(an, node)
    raise NotModelled(f"FROM item {type(node).__name__}")


def table_function(an, node: exp.Table) -> tuple[L.Plan, Scope]:
    """A table-valued function whose schema sparkfold can derive, kept as text
    (`SELECT ... FROM f(...)`) with Spark's schema: `range(...)` over integer literals
    (one column `id BIGINT NOT NULL`), and `explode` / `posexplode` of a constant array
    or map (`col`; `pos INT NOT NULL` first for posexplode; `key`, `value` for a map);
    any other over constants with the schema the live session gives (`_session_columns`)."""
    fn = node.this
    name = function_name(fn) if isinstance(fn, exp.Func) else ""
    args = list(fn.expressions) if isinstance(fn, exp.Anonymous) else []
    for arg in ("sample", "version", "when", "changes", "partition", "hints", "system_time", "pivots"):
        if node.args.get(arg):
            raise NotModelled(f"table {arg}")

    def integer(a) -> bool:
        inner = a.this if isinstance(a, exp.Neg) else a
        return isinstance(inner, exp.Literal) and not inner.is_string and inner.this.isdigit()

    if name == "range" and 1 <= len(args) <= 4 and all(integer(a) for a in args):
        columns: list[tuple[str, T.DataType, bool]] = [("id", T.LONG, False)]
    elif name in ("explode", "posexplode") and len(args) == 1:
        columns = _generator_columns(an, name, args[0])
    else:
        columns = _session_columns(an, fn)
    outputs = tuple(E.Attribute(n, t, nullable, E.new_id()) for n, t, nullable in columns)
    template = exp.select(*(exp.column(n, quoted=not n.isidentifier()) for n, _, _ in columns)).from_(exp.Table(this=fn.copy()))
    plan: L.Plan = L.OpaqueRelation(template, outputs, (), (), template.sql(dialect=DIALECT))
    alias_node = node.args.get("alias")
    renamed = [c.name for c in alias_node.columns] if alias_node is not None and alias_node.columns else []
    plan = an._rename(plan, renamed, name)
    if node.alias:
        plan = L.SubqueryAlias(node.alias, plan)
        return plan, Scope.of((node.alias.lower(),), list(plan.output), node.alias)
    return plan, Scope.of((), list(plan.output))


def _session_columns(an, fn: exp.Expression) -> list[tuple[str, T.DataType, bool]]:
    """The schema of any other table-valued function (a SQL table function, `inline`,
    `stack`, `json_tuple`, named arguments...) over arguments that read no column and no
    table, as the live session's analysis of the text sparkfold writes for it gives it;
    not modelled without a session."""
    if any(isinstance(n, (exp.Column, exp.Query, exp.Table, exp.Lambda, exp.Star, exp.Placeholder, exp.Parameter))
           for n in fn.walk()):
        # (a table argument, `TABLE(t)`, may name a CTE of the query, which the session
        # does not see)
        raise NotModelled("table-valued function over columns, a table or a query")
    columns = an.catalog.session_relation(exp.Table(this=fn.copy()).sql(dialect=DIALECT))
    if columns is None or len({n.lower() for n, _, _ in columns}) < len(columns):
        raise NotModelled(f"table-valued function {function_name(fn) if isinstance(fn, exp.Func) else ''}".rstrip())
    return columns


def _generator_columns(an, name: str, arg: exp.Expression) -> list[tuple[str, T.DataType, bool]]:
    """Spark's output of explode / posexplode over a constant: an argument that reads no
    column and no table (it stays as written in the text, where no CTE of the query is
    in scope once the writer has inlined them)."""
    if any(isinstance(n, (exp.Column, exp.Query, exp.Lambda, exp.Star)) for n in arg.walk()):
        raise NotModelled("table-valued function over columns or a query")
    pos = [("pos", T.INT, False)] if name == "posexplode" else []
    t = _constructed_type(an, arg)
    if isinstance(t, T.ArrayType):
        return pos + [("col", t.element, t.contains_null)]
    if isinstance(t, T.MapType):
        return pos + [("key", t.key, False), ("value", t.value, t.value_contains_null)]
    raise NotModelled(f"{name} of {t.simple_string()}")


def _constructed_type(an, arg: exp.Expression) -> T.DataType:
    """The type of `array(a, ...)` / `map(k, v, ...)` whose arguments are of one type each
    (NULLs aside): Spark's, with no coercion to model (anything else is not modelled)."""
    call = function_name(arg) if isinstance(arg, exp.Func) else ""
    items = list(arg.expressions) if isinstance(arg, (exp.Anonymous, exp.Array)) else []
    if call not in ("array", "map") or not items or (call == "map" and len(items) % 2):
        raise NotModelled(f"table-valued function over {call or type(arg).__name__}")
    try:
        typed = [an.exprs.analyze(a, Ctx(Scope(), clause="FROM")) for a in items]
    except AnalysisError:
        raise NotModelled("table-valued function") from None

    def one_type(es, null_ok: bool) -> tuple[T.DataType, bool]:
        types = {e.data_type for e in es if e.data_type != T.NULL}
        if len(types) != 1 or (not null_ok and len(types) != len({e.data_type for e in es})):
            raise NotModelled("table-valued function over values of several types")
        return types.pop(), any(e.nullable for e in es)

    if call == "array":
        element, contains_null = one_type(typed, True)
        return T.ArrayType(element, contains_null)
    key, key_null = one_type(typed[0::2], False)
    value, value_null = one_type(typed[1::2], True)
    if key_null:
        raise NotModelled("map with a NULL key")
    return T.MapType(key, value, value_null)


def table_reference(an, node: exp.Table, ctes) -> tuple[L.Plan, Scope]:
    if not isinstance(node.this, exp.Identifier):
        return table_function(an, node)
    for arg in ("version", "when", "changes", "partition", "hints", "system_time"):
        if node.args.get(arg):
            raise NotModelled(f"table {arg}")
    parts = [p.name for p in node.parts]
    alias_node = node.args.get("alias")
    alias = node.alias
    columns = [c.name for c in alias_node.columns] if alias_node is not None and alias_node.columns else []
    hidden: tuple[E.Attribute, ...] = ()
    if len(parts) == 1 and parts[0].lower() in ctes:
        if node.args.get("sample"):
            raise NotModelled("TABLESAMPLE of a CTE")
        d = ctes[parts[0].lower()]
        plan = cte_reference(an, d)
        qualifier = alias or d.name
    else:
        name = ".".join(parts)
        try:
            schema = an.catalog.lookup(name)
        except UnknownTableError as e:  # said where the table is named
            if len(parts) == 2 and parts[0].lower() in _FILE_FORMATS:
                raise NotModelled(f"a query on files (`{parts[0]}.`...``)") from None
            raise UnknownTableError(e.name, e.known, _position(an.sql, node)) from None
        attrs = tuple(E.Attribute(c.name, c.data_type, c.nullable, E.new_id()) for c in schema.columns)
        hidden = () if node.args.get("sample") or columns else hidden_metadata(an, schema)
        plan = L.Relation(schema.name, attrs + hidden)
        if node.args.get("sample"):
            plan = sampled_table(node, attrs)
        qualifier = alias or parts[-1]
    plan = an._rename(plan, columns, f"table {qualifier}")
    plan = L.SubqueryAlias(qualifier, plan)
    if alias:
        qual: tuple[str, ...] = (alias.lower(),)
    elif len(parts) == 1 and parts[0].lower() in ctes:
        qual = (parts[0].lower(),)
    elif schema.qualifier:  # the session's: its current database, a temporary view's own name
        qual = schema.qualifier
    else:
        full = [p.lower() for p in parts]
        if len(full) == 1:
            full = ["spark_catalog", "default"] + full
        elif len(full) == 2:
            full = ["spark_catalog"] + full
        qual = tuple(full)
    if hidden:
        shown: list[E.Expr] = [a for a in plan.output if a.expr_id not in {h.expr_id for h in hidden}]
        return plan, Scope([Entry(qual, shown, qualifier, list(hidden))], shown)
    return plan, Scope.of(qual, list(plan.output), qualifier)


METADATA = "_metadata"


def hidden_metadata(an, schema) -> tuple[E.Attribute, ...]:
    """The hidden column `_metadata` of a table the query reads, when its text names one
    and the session says the table has it (a file source: Spark's metadata column, read
    by name and never by `*`), as an attribute of the relation; else none."""
    if METADATA not in an.sql.lower() or any(c.name.lower() == METADATA for c in schema.columns):
        return ()
    found = an.catalog.hidden_metadata(schema.name)
    if found is None:
        return ()
    return (E.Attribute(METADATA, found[0], found[1], E.new_id()),)


def sampled_table(node: exp.Table, attrs: tuple[E.Attribute, ...]) -> L.Plan:
    """`x TABLESAMPLE (...)`, kept as text: `SELECT * FROM x TABLESAMPLE (...)`, with the
    table's columns (a sample only drops rows).  Opaque, so no rule moves a filter below
    it, reads it twice or drops it; PERCENT and BUCKET sample at random (a seed Spark
    draws when it parses the query), ROWS takes the first rows it reads."""
    table = node.copy()
    table.set("alias", None)
    template = exp.select(exp.Star()).from_(table)
    return L.OpaqueRelation(template, attrs, (), (), template.sql(dialect=DIALECT)[:200])


def cte_reference(an, d: CTEDef) -> L.Plan:
    if d.make is not None:
        plan = d.make()
        d.uses.append(plan)
        if len(d.uses) > 1 and not d.repeatable:
            raise NotModelled(f"non-deterministic CTE {d.name} referenced more than once")
        return plan
    # Each reference is the definition with fresh attribute ids, so a CTE can be joined
    # with itself: analyzed at the first reference, copied with new ids at the others
    # (what analyzing it again gives, source nodes and all).  Spark inlines deterministic
    # CTEs the same way; a non-deterministic CTE used twice must be computed once, which
    # we do not model.
    if not d.uses:
        recorded = an.recorded
        mark, first_id = len(recorded) if recorded is not None else 0, E.next_id()
        plan = an.query(d.node, d.outer, d.ctes)
        d.analyzed = (plan, range(first_id, E.next_id()), recorded[mark:] if recorded is not None else [])
    else:
        first, ids, pairs = cast(tuple, d.analyzed)
        plan, renumbered = L.with_fresh_ids(first, ids)
        if an.recorded is not None:
            an.recorded.extend((node, renumbered(e)) for node, e in pairs)
    d.uses.append(plan)
    if len(d.uses) > 1 and not surely_deterministic(plan, an.catalog):
        raise NotModelled(f"non-deterministic CTE {d.name} referenced more than once")
    return an._rename(plan, d.columns, d.name)


def join(an, left, lscope: Scope, right, rscope: Scope, j: exp.Join, outer, ctes):
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
            # the left's names that the right has, as a multiset (Scala's `Seq.intersect`,
            # ResolveNaturalAndUsingJoin): a name twice on the left and once on the right
            # is one key (`(t a JOIN t b ON ...) NATURAL JOIN t c`)
            rnames = collections.Counter(_cname(c).lower() for c in rscope.star)
            names = []
            for c in lscope.star:
                if rnames[_cname(c).lower()] > 0:
                    rnames[_cname(c).lower()] -= 1
                    names.append(_cname(c))
        else:
            names = [u.name for u in cast("list[exp.Expression]", using)]
        return using_join(an, left, lscope, right, rscope, join_type, names, outer)
    on = j.args.get("on")
    condition = None
    if on is not None:
        if calls_nondeterministic(on):
            # Spark rejects it (INVALID_NON_DETERMINISTIC_EXPRESSIONS); pruning the join
            # (an empty side) would hide that error
            raise NotModelled("a non-deterministic JOIN condition")
        condition = require_boolean(an.exprs.analyze(on, Ctx(combined, clause="JOIN ON", unnamed_ok=True)), "JOIN ON")
        sides = {a.expr_id for a in left.output} | {a.expr_id for a in right.output}
        pass_correlated_scalar(condition, sides.__contains__, "a join condition")
        if join_type == L.CROSS:
            join_type = L.INNER
    plan = L.Join(left, right, join_type, condition)
    return plan, join_scope(an, plan, lscope, rscope, outer)


def join_scope(an, plan: L.Join, lscope: Scope, rscope: Scope, outer) -> Scope:
    mapping = {a.expr_id: a for a in plan.output}
    if plan.join_type in (L.LEFT_SEMI, L.LEFT_ANTI):
        return lscope.remap(mapping).with_parent(outer)
    return lscope.combine(rscope).remap(mapping).with_parent(outer)


# the data sources Spark reads a path of as a table (`SELECT * FROM parquet.`/data``)
_FILE_FORMATS = frozenset({"parquet", "orc", "csv", "json", "text", "avro", "binaryfile", "xml", "delta"})


def using_join(an, left, lscope, right, rscope, join_type, names, outer):
    lkeys, rkeys = [], []
    for n in names:
        # the first column of the name in each side's output, as Spark's join takes it
        # (no ambiguity check: `(x JOIN y USING (b)) JOIN z USING (c)` takes x.c)
        lk = next((c for c in lscope.star if _cname(c).lower() == n.lower()), None)
        rk = next((c for c in rscope.star if _cname(c).lower() == n.lower()), None)
        if lk is None or rk is None:
            raise AnalysisError(f"USING column `{n}` must be in both sides of the join")
        lkeys.append(lk)
        rkeys.append(rk)
    condition = E.conjunction(E.EqualTo(a, b) for a, b in zip(lkeys, rkeys)) if names else None
    plan = L.Join(left, right, join_type if names or join_type != L.INNER else L.INNER, condition)
    scope = join_scope(an, plan, lscope, rscope, outer)
    if join_type in (L.LEFT_SEMI, L.LEFT_ANTI):
        # the left side only, its USING keys first (Spark's project for a semi / anti join)
        first: dict[int | None, int] = {k.expr_id: i for i, k in enumerate(lkeys)
                                        if isinstance(k, (E.Attribute, E.Alias))}
        star = sorted((c for c in scope.star if _key_of(c) in first), key=lambda c: first[_key_of(c)]) \
            + [c for c in scope.star if _key_of(c) not in first]
        return plan, Scope(_keys_first(scope.entries, first), star, outer)
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
    key_attr_ids = {k.expr_id for k in lkeys + rkeys if isinstance(k, (E.Attribute, E.Alias))}
    rest_left = [c for c in scope.star[:len(lscope.star)]
                 if not (isinstance(c, (E.Attribute, E.Alias)) and c.expr_id in key_attr_ids)]
    rest_right = [c for c in scope.star[len(lscope.star):]
                  if not (isinstance(c, (E.Attribute, E.Alias)) and c.expr_id in key_attr_ids)]
    # `t.*` lists the USING keys first (in USING order), then t's other columns, as Spark's
    # join project orders them (and keeps them, through later joins)
    order: dict[int | None, int] = {k.expr_id: i for i, k in enumerate(lkeys + rkeys)
                                    if isinstance(k, (E.Attribute, E.Alias))}
    return plan, Scope(_keys_first(scope.entries, order), merged + rest_left + rest_right, outer)


def _key_of(c: E.Expr) -> int | None:
    return c.expr_id if isinstance(c, (E.Attribute, E.Alias)) else None


def _keys_first(entries: list[Entry], order: dict[int | None, int]) -> list[Entry]:
    """Each FROM item's columns with its USING keys first, in USING order (`t.*`)."""
    return [Entry(en.qualifier, sorted((c for c in en.columns if _key_of(c) in order), key=lambda c: order[_key_of(c)])
                  + [c for c in en.columns if _key_of(c) not in order], en.display)  # (no hidden column after USING)
            for en in entries]


def _cname(c: E.Expr) -> str:
    return c.name  # type: ignore[attr-defined]


def surely_deterministic(plan: L.Plan, catalog=None) -> bool:
    """Deterministic for certain: unmodelled (opaque) expressions count when they only call
    built-in deterministic functions (window functions included), or functions the
    session says are deterministic (`builtins.surely_deterministic_call`)."""
    from .builtins import surely_deterministic_call

    for p in plan.walk():
        if isinstance(p, L.OpaqueRelation) and not is_inline_table(p):
            return False  # (Spark rejects an inline table that is not deterministic)
        for e in p.expressions:
            for n in e.walk():
                if isinstance(n, E.Opaque):
                    for f in n.template.find_all(exp.Func):
                        if not surely_deterministic_call(f, catalog):
                            return False
                elif isinstance(n, E.SubqueryExpr):
                    if not surely_deterministic(n.plan, catalog):
                        return False
                elif not n._self_deterministic():
                    return False
    return True


def _parenthesized_relation(inner: exp.Expression) -> bool:
    """Is `inner`, in parentheses in a FROM clause, a relation rather than a query: a table,
    a join, or an aliased derived table (the first item of a join)?"""
    if isinstance(inner, exp.Table):
        return True
    return isinstance(inner, exp.Subquery) and (bool(inner.alias) or bool(inner.args.get("joins"))
                                                or _parenthesized_relation(inner.this))


def _has_modifiers(node: exp.Expression) -> bool:
    return any(node.args.get(k) for k in ("order", "limit", "offset", "with_"))


def _remap(e: E.Expr, mapping) -> E.Expr:
    if isinstance(e, E.Attribute):
        return mapping.get(e.expr_id, e)
    return e
