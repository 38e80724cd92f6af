"""Stars and names in a block with a LATERAL subquery (`lateral_join`): a star over an earlier
FROM item written as that item's columns, and the names Spark gives the columns of a
LATERAL subquery that read an earlier item (`least(outer(a.q1), q1)`)."""

from __future__ import annotations

import re

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir.dialect import ARG_PREFIX
from ..ir.naming import spark_name
from ..ir.tree import transform_up
from .expr_context import NotModelled
from .scope import Scope


def place_input_stars(template: exp.Expression, inside: set[int], input_scope: Scope, later_scope: Scope,
                      later: list[exp.Join], wrapped: bool, args: list[E.Expr]) -> None:
    """A star outside the LATERAL subqueries reads the input by its qualifiers, which the
    input written back as one derived table (several FROM items before the LATERAL one, or
    one the rules changed) does not keep, nor its column names when two are alike: a select
    list's `x.*` over an input item becomes that item's columns (placeholders, each keeping
    its name), and where the input is several items, `*` becomes the input's columns and
    each later item's `alias.*`.  A star over the input elsewhere is not modelled."""
    for star in list(template.find_all(exp.Star)):
        if id(star) in inside:
            continue
        col = star.parent if isinstance(star.parent, exp.Column) else None
        if col is not None:
            qual = tuple(p.name.lower() for p in col.parts[:-1])
            if not any(en.matches(qual) for en in input_scope.entries):
                continue  # a LATERAL subquery's or a later table's: stays as written
            if col.parent is not template or _star_modifiers(star) or \
                    any(en.matches(qual) for en in later_scope.entries):
                raise NotModelled("a qualified star over the input of a LATERAL join, other than a select item")
            # `x.*` over an input item: its columns, each a placeholder keeping its name
            items = _placeholders(input_scope.expand_star(qual), args)
            position = template.expressions.index(col)
            template.set("expressions", template.expressions[:position] + items + template.expressions[position + 1:])
            continue
        if not wrapped:
            continue
        if star.parent is not template or _star_modifiers(star):
            raise NotModelled("SELECT * over joins and a LATERAL subquery")
        items = _placeholders(input_scope.star, args)
        for j in later:
            alias = j.this.args.get("alias")
            name = alias.name if isinstance(j.this, exp.Lateral) and alias is not None else \
                (j.this.alias_or_name if isinstance(j.this, exp.Table) else "")
            if not name:
                raise NotModelled("SELECT * over joins and an unaliased LATERAL subquery")
            items.append(exp.Column(this=exp.Star(), table=exp.to_identifier(name)))
        position = template.expressions.index(star)
        template.set("expressions", template.expressions[:position] + items + template.expressions[position + 1:])


def _star_modifiers(star: exp.Star) -> bool:
    return any(star.args.get(k) for k in ("except_", "replace", "rename"))


def _placeholders(columns: list[E.Expr], args: list[E.Expr]) -> list[exp.Expression]:
    items: list[exp.Expression] = []
    for c in columns:
        if not isinstance(c, E.Attribute):
            raise NotModelled("a star over a USING join and a LATERAL subquery")
        args.append(c)
        items.append(exp.column(f"{ARG_PREFIX}{len(args) - 1}"))
    return items


def outer_stars(sub: exp.Subquery, ctes: dict, visible: Scope) -> list[exp.Column]:
    """The stars of a LATERAL subquery over an earlier FROM item (`SELECT x.*`), to be
    written as its columns: select items of its own SELECT only, whose FROM names no item
    like it; elsewhere such a star is not modelled."""
    for table in sub.find_all(exp.Table):
        if not table.db and table.name.lower() in ctes:
            raise NotModelled("a LATERAL subquery reading a CTE")
    body = sub.this
    own = {t.alias_or_name.lower() for t in _from_items(body)} if isinstance(body, exp.Select) else set()
    out = []
    for col in sub.find_all(exp.Column):
        if not (isinstance(col.this, exp.Star) and col.table):
            continue
        qual = tuple(p.name.lower() for p in col.parts[:-1])
        if not any(en.matches(qual) for en in visible.entries):
            continue
        if col.parent is not body or _star_modifiers(col.this) or qual[-1] in own:
            raise NotModelled("a LATERAL subquery with a star over an earlier FROM item, other than a select item")
        out.append(col)
    return out


def _from_items(sel: exp.Select) -> list[exp.Expression]:
    from_ = sel.args.get("from_")
    items = [from_.this] if from_ is not None else []
    return items + [j.this for j in sel.args.get("joins") or []]


def expand_outer_stars(stars: list[exp.Column], visible: Scope) -> None:
    """`x.*` in a LATERAL subquery's select list: `x.c AS c` for each of x's columns (a
    reference to the input then becomes a placeholder as any other); Spark names an
    outer reference's column by its name."""
    for col in stars:
        qual = tuple(p.name.lower() for p in col.parts[:-1])
        items = []
        for c in visible.expand_star(qual):
            if not isinstance(c, E.Attribute):
                raise NotModelled("a star over a USING join and a LATERAL subquery")
            ref = exp.Column(this=exp.to_identifier(c.name, quoted=True), table=col.args.get("table"),
                             db=col.args.get("db"), catalog=col.args.get("catalog"))
            items.append(exp.alias_(ref.copy(), c.name, quoted=True))
        body = col.parent
        if not isinstance(body, exp.Select):
            raise NotModelled("a star in a LATERAL subquery other than a select item")
        position = body.expressions.index(col)
        body.set("expressions", body.expressions[:position] + items + body.expressions[position + 1:])


def outer_names(sub: exp.Subquery, plan: L.Plan, outer_ids: set[int], visible: Scope,
                aliases: set[str]) -> dict[int, str]:
    """Spark names an unaliased column of a LATERAL subquery that reads an earlier FROM
    item with `outer(...)` around each such reference, qualified by the item's alias as
    written there and the column as written here (`least(outer(A.Q1), q1)`; checked on
    Spark 4.3): those names by position, each written as the select item's alias in the
    text (which no longer reads the input by that qualifier).  Not modelled where the
    column's item is not plain, or the item has no alias (`aliases`: Spark qualifies a
    table by its catalog and database, a view or a CTE by a name whose case sparkfold
    does not keep)."""
    top = plan
    while isinstance(top, (L.Sort, L.Limit, L.Offset, L.Distinct, L.Filter)):
        top = top.children[0]
    items = top.projections if isinstance(top, L.Project) else \
        top.aggregates if isinstance(top, L.Aggregate) else ()
    out: dict[int, str] = {}
    for k, e in enumerate(items):
        if not (isinstance(e, E.Alias) and e.auto and e.child.references & outer_ids):
            continue
        body = sub.this
        if not isinstance(top, L.Project) or not isinstance(body, exp.Select) or \
                len(body.expressions) != len(items) or isinstance(body.expressions[k], exp.Alias) or \
                any(isinstance(x, exp.Star) or (isinstance(x, exp.Column) and isinstance(x.this, exp.Star))
                    for x in body.expressions):
            raise NotModelled("an unaliased column of a LATERAL subquery reading an earlier FROM item "
                              "(Spark names it with outer(...)), beside a star or in an aggregate")
        shown: dict[int, E.Attribute] = {}
        for a in e.child.walk():
            if isinstance(a, E.Attribute) and a.expr_id in outer_ids:
                qualifier = _qualifier(a, visible, aliases)
                if qualifier is None or not _PLAIN.match(a.name):
                    raise NotModelled("an unaliased column of a LATERAL subquery reading an earlier FROM item "
                                      "(Spark names it with outer(...)) by a qualifier that is not plain")
                shown[a.expr_id] = a.copy(name=f"outer({qualifier}.{a.name})")
        text = spark_name(transform_up(e.child, lambda x: shown.get(x.expr_id, x) if isinstance(x, E.Attribute)
                                       else x))
        item = body.expressions[k]
        wrapper = exp.Alias(alias=exp.to_identifier(text, quoted=True))
        item.replace(wrapper)
        wrapper.set("this", item)
        out[k] = text
    return out


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _qualifier(a: E.Attribute, visible: Scope, aliases: set[str]) -> str | None:
    """The alias of the FROM item giving `a` (in the scope or an enclosing one), when it
    has one of `aliases`, plain."""
    scope: Scope | None = visible
    while scope is not None:
        for en in scope.entries:
            if any(isinstance(c, E.Attribute) and c.expr_id == a.expr_id for c in en.columns):
                text = en.display
                return text if len(en.qualifier) == 1 and text in aliases and _PLAIN.match(text) else None
        scope = scope.parent
    return None
