"""Stars: what `*`, `t.*`, `s.*` (a struct's fields) and `* EXCEPT (...)` expand to, in a
select list and among a function's arguments.

Spark expands a star in the select list (`Project`, `Aggregate`) and in WHERE (`Filter`),
as a select item of its own or as an argument of a call `f(t.*, x)` (any function, its
arguments then being the star's columns in order), of `IN (*)`'s list and of
`struct(...)` (Analyzer's ResolveReferences.expandStarExpression).  `count(*)` is
`count(1)` (the parser's rewrite, for an unqualified star only); `count(t.*)` of a
table's star alone is an error.  Elsewhere (ORDER BY, HAVING, GROUP BY, a join's
condition, an operator's operand) a star is not expanded: Spark rejects it, or reads it
where sparkfold does not model it; such a query passes through.
"""

from __future__ import annotations

import re
from typing import cast

from sqlglot import exp

from ..ir import expressions as E
from ..ir import types as T
from ..ir.dialect import DIALECT
from ..ir.errors import AnalysisError, UnknownColumnError
from .expr_context import STAR_ARG, Ctx, NotModelled, refuse_unnamed
from .expr_leaves import field_access
from .scope import Entry, Scope, column_name

_STAR_MARK = "__sf_star_"
_KEEP_MARK = "__sf_keep_"


def star_of(node: exp.Expression) -> exp.Expression | None:
    """The star node (`*`, or the column `t.*`) that node is, in parentheses or not
    (Spark's parser keeps none: `(*)` is `*`); None for anything else."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star)):
        return node
    return None


def star_columns(an, node: exp.Expression, scope: Scope) -> tuple[list[E.Expr], bool]:
    """The columns a star node expands to, and whether they are a struct's fields (Spark's
    UnresolvedStar.expand: a FROM item's columns, else a struct column's fields; with
    EXCEPT, less those named)."""
    star, qual = node, None
    if isinstance(node, exp.Column):
        star, qual = node.this, tuple(p.name for p in node.parts[:-1])
    if star.args.get("replace") or star.args.get("rename"):
        raise NotModelled("SELECT * REPLACE/RENAME")
    fields = False
    try:
        columns = scope.expand_star(qual)
    except UnknownColumnError:
        if not qual:
            raise
        try:
            columns = struct_fields(an, node, qual, scope)
        except UnknownColumnError:
            if scope.parent is not None:
                # Spark then expands it over the enclosing query's FROM when the subquery
                # stands in its select list (and rejects it elsewhere): not modelled
                raise NotModelled(f"`{'.'.join(qual)}.*` naming an outer query's FROM item") from None
            raise
        fields = True
    refuse_unnamed(an, columns)
    before = {c.expr_id for c in columns if isinstance(c, (E.Attribute, E.Alias))}
    if star.args.get("except_"):
        columns = star_except(an, columns, star.args["except_"], scope)
        fields = fields or any(isinstance(c, E.Alias) and c.expr_id not in before for c in columns)
    return columns, fields


def star_except(an, columns: list[E.Expr], excepted: list[exp.Expression], scope: Scope) -> list[E.Expr]:
    """`* EXCEPT (a, t.b, s.f)`: the star's columns less those named, each resolved as
    Spark does, among the star's own columns under their FROM qualifiers (unknown or
    ambiguous is an error; `y.b` of a USING join's key is not among them).  Leaving out a
    field of a struct (`s.f`, `s.g.h`) rebuilds the struct without it, named as the column
    (`struct(s.a AS a, struct(s.g.i AS i) AS g) AS s`).  Leaving out every column makes a
    result with none, which is not modelled."""
    def key(c):
        return c.expr_id if isinstance(c, (E.Attribute, E.Alias)) else id(c)

    keys = {key(c) for c in columns}
    scope = Scope([Entry(en.qualifier, [c for c in en.columns if key(c) in keys], en.display)
                   for en in scope.entries], list(columns))
    paths: dict[object, list[tuple[str, ...]]] = {}  # column -> the field paths left out of it
    written: list[tuple[tuple[str, ...], object, tuple[str, ...]]] = []
    for named in excepted:
        if not isinstance(named, exp.Column):
            raise NotModelled("SELECT * EXCEPT of an expression")
        parts = tuple(p.name for p in named.parts)
        found, rest, _depth = scope.resolve(parts, ".".join(parts))
        paths.setdefault(key(found), []).append(tuple(rest))
        written.append((parts, key(found), tuple(rest)))
    _refuse_other_spellings(written)
    _refuse_overlaps(written)
    kept: list[E.Expr] = []
    for c in columns:
        left_out = paths.get(key(c))
        if left_out is None:
            kept.append(c)
        elif not any(p == () for p in left_out):
            kept.append(E.Alias(_without(an, c.child if isinstance(c, E.Alias) else c, left_out, scope),
                                column_name(c), E.new_id()))
    if not kept:
        raise NotModelled("SELECT * EXCEPT of every column")
    return kept


def _refuse_other_spellings(written) -> None:
    """Fields of one column left out under two spellings of it (`EXCEPT (ST.C.P, st.a)`):
    Spark rebuilds the struct once per spelling and keeps one of them, not the same one
    from one session to another (checked on Spark 4.3: `sv.* EXCEPT (ST.C.P, st.a)` left
    `c.p` in in one session, `a` in another; `EXCEPT (st.c.p, st.a)` leaves both out): not
    modelled."""
    spelled: dict[object, tuple[str, ...]] = {}
    for parts, root, rest in written:
        column = parts[:len(parts) - len(rest)]
        if rest and spelled.setdefault(root, column) != column:
            raise NotModelled("SELECT * EXCEPT of fields of one struct column written two ways")


def _refuse_overlaps(written) -> None:
    """Spark's EXCEPT_OVERLAPPING_COLUMNS: a name written twice, or a column's field
    written after the column (`EXCEPT (s, s.f)`), compared as written: `EXCEPT (a, A)` is
    accepted (checked on Spark 4.3).  Two names of one column or field written otherwise
    (qualified, a field in another case) are not modelled."""
    for i, (parts, root, rest) in enumerate(written):
        for other_parts, other_root, other_rest in written[i + 1:]:
            n = min(len(parts), len(other_parts))
            if root != other_root:
                if parts[:n] == other_parts[:n]:
                    raise NotModelled("SELECT * EXCEPT naming a column and a field of another of that name")
                continue
            if parts[:n] == other_parts[:n]:
                raise AnalysisError("[EXCEPT_OVERLAPPING_COLUMNS] a column (or a field of it) named twice "
                                    "in SELECT * EXCEPT (...)")
            m = min(len(rest), len(other_rest))
            if [p.lower() for p in rest[:m]] != [p.lower() for p in other_rest[:m]]:
                continue
            if len(parts) != len(other_parts) or [p.lower() for p in parts] != [p.lower() for p in other_parts]:
                raise NotModelled("SELECT * EXCEPT naming a column (or a field of it) twice, written otherwise")


def _without(an, column: E.Expr, left_out: list[tuple[str, ...]], scope: Scope) -> E.Expr:
    """`struct(column.a AS a, ...)` of column's fields less the paths left out (Spark's
    CreateStruct over its fields, recursively), analyzed as if so written."""
    node = _struct_without(an, column, [], left_out)
    return an.exprs.analyze(node, Ctx(scope))


def _struct_without(an, column: E.Expr, prefix: list[str], left_out: list[tuple[str, ...]]) -> exp.Expression:
    struct = field_access(an.exprs, column, prefix, None).data_type if prefix else column.data_type
    if not isinstance(struct, T.StructType):
        raise NotModelled("SELECT * EXCEPT of a field of a column that is no struct (or of a type "
                          "sparkfold does not know)")
    names = {f.name.lower() for f in struct.fields}
    if any(p[0].lower() not in names for p in left_out):
        raise NotModelled("SELECT * EXCEPT of a struct field that does not exist")
    items: list[exp.Expression] = []
    for f in struct.fields:
        inner = [p[1:] for p in left_out if p[0].lower() == f.name.lower()]
        if any(p == () for p in inner):
            continue
        value: exp.Expression
        if inner:
            value = _struct_without(an, column, [*prefix, f.name], inner)
        else:
            value = _bound(an, field_access(an.exprs, column, [*prefix, f.name], None), f.name)
        items.append(exp.Alias(this=value, alias=exp.to_identifier(f.name, quoted=True)))
    return exp.Anonymous(this="struct", expressions=items)


def _bound(an, e: E.Expr, name: str) -> exp.Column:
    """A column node that the expression analysis reads as e (`STAR_ARG`)."""
    node = exp.column(exp.to_identifier(name, quoted=True))
    an.star_args.append(e)
    node.meta[STAR_ARG] = len(an.star_args) - 1
    return node


def struct_fields(an, node: exp.Expression, qual: tuple[str, ...], scope: Scope) -> list[E.Expr]:
    """`s.*` where no FROM item is named `s`: the fields of the struct column `s`, each
    named after its field (Spark's UnresolvedStar.expand: a relation's name first, then a
    column of this query's FROM, never an outer query's)."""
    display = ".".join(qual)
    found, rest = scope.lookup_local(qual, display)
    if found is None:
        raise UnknownColumnError(display + ".*", scope.visible_names())
    refuse_unnamed(an, [found])
    struct = field_access(an.exprs, found, rest, node).data_type if rest else found.data_type
    if not isinstance(struct, T.StructType):
        if struct == T.UNKNOWN:
            raise NotModelled(f"`{display}.*` over a column of a type sparkfold does not know")
        raise AnalysisError(f"`{display}.*`: only a struct's fields can be expanded with `*`, "
                            f"and `{display}` is {struct.simple_string()}")
    return [E.Alias(field_access(an.exprs, found, [*rest, f.name], node), f.name, E.new_id())
            for f in struct.fields]


# -- a star among a call's arguments ---------------------------------------------------

# sqlglot nodes that are functions (exp.Func) to sqlglot and no call `name(args)` to
# Spark's parser: a star inside is not expanded there
_NOT_CALLS = (exp.Cast, exp.TryCast, exp.Case, exp.Extract, exp.Trim, exp.Interval, exp.Window,
              exp.Filter, exp.Lambda, exp.Bracket, exp.Dot)


def has_star_argument(node: exp.Expression) -> bool:
    """Is a star (in parentheses or not) among node's own arguments (a DISTINCT's too)?
    `count(*)` is not: Spark's parser reads it as `count(1)`."""
    if isinstance(node, exp.Count) and _count_star(node):
        return False
    for value in node.args.values():
        for v in (value if isinstance(value, list) else (value,)):
            if isinstance(v, exp.Expression):
                if star_of(v) is not None:
                    return True
                if isinstance(v, exp.Distinct) and any(star_of(x) is not None for x in v.expressions):
                    return True
    return False


def has_star(items: list) -> bool:
    """Is a star anywhere in these select items, outside their subqueries (Spark's
    containsStar, after its parser read `count(*)` as `count(1)`)?"""
    stack = list(items)
    while stack:
        n = stack.pop()
        if isinstance(n, exp.Star) or (isinstance(n, exp.Column) and isinstance(n.this, exp.Star)):
            return True
        if isinstance(n, (exp.Subquery, exp.Query)) or (isinstance(n, exp.Count) and _count_star(n)):
            continue
        stack.extend(n.iter_expressions())
    return False


def _count_star(node: exp.Count) -> bool:
    """`count(*)`: one unqualified star, no DISTINCT, no EXCEPT (Spark's parser's `count(1)`)."""
    return isinstance(node.this, exp.Star) and not node.expressions and not node.this.args.get("except_")


def expand_star_arguments(ea, node: exp.Expression, ctx: Ctx) -> exp.Expression:
    """node (a call, `IN (...)`) as if its star arguments were written as the star's
    columns (the expression analyzed in its place).  Each column is a column node bound
    to what the star expands to (`STAR_ARG`), named as the column (a struct's field is
    named after it, as Spark names it).  The call is written again around placeholders
    and parsed, so that its node is the one its expanded text parses to."""
    if not ctx.stars or not _a_call(node):
        raise NotModelled(f"`*` as an argument of {_what(node)} in {ctx.clause}")
    an = ea.analyzer
    call = node.copy()
    keep: list[exp.Expression] = []
    expanded: list[list[exp.Expression]] = []

    def marker(prefix: str, i: int) -> exp.Column:
        return exp.column(f"{prefix}{i}")

    def shell(n: exp.Expression) -> None:
        for key, value in list(n.args.items()):
            items = value if isinstance(value, list) else [value]
            new: list[object] = []
            for v in items:
                star = star_of(v) if isinstance(v, exp.Expression) else None
                if star is not None:
                    if isinstance(n, exp.In) and key != "expressions":
                        raise NotModelled("`*` as the value of IN")
                    expanded.append(_columns(an, call, star, ctx))
                    new.append(marker(_STAR_MARK, len(expanded) - 1))
                elif isinstance(v, exp.Distinct) and n is call:
                    shell(v)
                    new.append(v)
                elif isinstance(v, (exp.Condition, exp.Subquery)):
                    keep.append(cast(exp.Expression, v))
                    new.append(marker(_KEEP_MARK, len(keep) - 1))
                else:
                    new.append(v)
            n.set(key, new if isinstance(value, list) else new[0])

    shell(call)
    text = call.sql(dialect=DIALECT, normalize_functions=False)
    for i, columns in enumerate(expanded):
        names = ", ".join(f"{_STAR_MARK}{i}_{j}" for j in range(len(columns)))
        text, count = re.subn(rf"\b{_STAR_MARK}{i}\b", names, text)
        if count != 1:
            raise NotModelled(f"`*` as an argument of {_what(node)}")
    from .parse import ParseError, parse_query

    try:
        parsed = parse_query(f"SELECT {text}", placed=False)
    except (ParseError, Exception):  # noqa: BLE001 - Spark decides what the expanded call is
        raise NotModelled(f"`*` as an argument of {_what(node)}") from None
    if not isinstance(parsed, exp.Select) or len(parsed.expressions) != 1:
        raise NotModelled(f"`*` as an argument of {_what(node)}")
    out = parsed.expressions[0]
    used: set[str] = set()
    for col in list(out.find_all(exp.Column)):
        name = col.name
        if col.table or name in used:
            continue
        if name.startswith(_KEEP_MARK) and name[len(_KEEP_MARK):].isdigit():
            used.add(name)
            col.replace(keep[int(name[len(_KEEP_MARK):])])
        elif name.startswith(_STAR_MARK):
            i, _, j = name[len(_STAR_MARK):].partition("_")
            if i.isdigit() and j.isdigit() and int(i) < len(expanded) and int(j) < len(expanded[int(i)]):
                used.add(name)
                col.replace(expanded[int(i)][int(j)])
    if len(used) != len(keep) + sum(len(c) for c in expanded):
        raise NotModelled(f"`*` as an argument of {_what(node)}")
    return out


def _a_call(node: exp.Expression) -> bool:
    """Is node a call `name(args)` to Spark's parser, or `x IN (...)`?  (`IF` in a CASE is
    a branch; sqlglot reads `count(DISTINCT ...)` with its DISTINCT as an argument.)"""
    if isinstance(node, exp.In):
        return not node.args.get("query") and not node.args.get("unnest")
    if isinstance(node, exp.If) and isinstance(node.parent, exp.Case):
        return False
    return isinstance(node, exp.Func) and not isinstance(node, _NOT_CALLS)


def _columns(an, call: exp.Expression, star: exp.Expression, ctx: Ctx) -> list[exp.Expression]:
    """Column nodes for the columns `star` expands to, each bound to its expression."""
    columns, fields = star_columns(an, star, ctx.scope)
    if not columns:
        raise NotModelled("`*` of no column as a function argument")
    if isinstance(call, exp.Count) and _one_argument(call) and isinstance(star, exp.Column) and not fields \
            and not star.this.args.get("except_"):
        # SPARK-34747: count(t.*) counts the rows without a NULL in t, where count(*) counts
        # every row; Spark rejects a table's star alone, DISTINCT or not, in any case of
        # `count` (checked on Spark 4.3; unless
        # spark.sql.legacy.allowStarWithSingleTableIdentifierInCount)
        raise AnalysisError(f"[INVALID_USAGE_OF_STAR_WITH_TABLE_IDENTIFIER_IN_COUNT] "
                            f"count({star.sql(dialect=DIALECT)}): a table's star alone cannot be counted; "
                            f"count(*) counts every row")
    out: list[exp.Expression] = []
    for c in columns:
        name = column_name(c)
        if fields and isinstance(c, E.Alias):
            # a struct's field, or a struct rebuilt by EXCEPT: Spark names the call after
            # the alias (`concat(s.a AS a)`), which the select item must not show (`select`)
            an.star_field_args += 1
            c = c.child
        out.append(_bound(an, c, name))
    return out


def _one_argument(call: exp.Count) -> bool:
    """count(x) or count(DISTINCT x): one argument."""
    if call.expressions:
        return False
    return not isinstance(call.this, exp.Distinct) or len(call.this.expressions) == 1


def _what(node: exp.Expression) -> str:
    if isinstance(node, exp.In):
        return "IN"
    if isinstance(node, exp.Anonymous):
        return f"{node.name}()"
    if isinstance(node, exp.Func):
        return f"{node.sql_name().lower()}()"
    return f"an expression {type(node).__name__}"
