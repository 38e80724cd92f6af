"""`FROM t, LATERAL (SELECT ... t.x ...) s` and `t [LEFT] JOIN LATERAL (...) s ON ...`: a
SELECT block with a LATERAL subquery, kept as an opaque block (`opaque_select`) whose input
is its FROM items before the first LATERAL one.

Each LATERAL subquery is analyzed as a correlated subquery of the items before it (Spark's
scoping), which gives its columns' types and tells which of its references read the
input: those become the block's placeholders (`__sf_arg_i`, written back against the
optimized input); a reference to the subquery's own tables, or to an earlier LATERAL
subquery, stays as written.  After the first LATERAL item, the FROM clause may hold more
LATERAL subqueries and tables (no CTE: the text would read it by name, which the writer
does not keep); NATURAL / USING joins, a LATERAL table function and stars over the input's
qualifiers are not modelled.
"""

from __future__ import annotations

from sqlglot import exp

from ..ir import expressions as E
from ..ir.dialect import ARG_PREFIX
from ..ir.errors import AnalysisError
from .expr_context import NotModelled
from .scope import Scope


def first_lateral(joins: list) -> int | None:
    """The position of the first LATERAL join (not LATERAL VIEW), or None."""
    return next((i for i, j in enumerate(joins) if isinstance(j.this, exp.Lateral)), None)


def lateral_items(analyzer, joins: list[exp.Join], input_scope: Scope, outer, ctes,
                  args: list[E.Expr]) -> tuple[Scope, set[int]]:
    """Analyze the FROM items from the first LATERAL one (`joins`, copies placed in the
    block's template): the scope the block's clauses resolve in (the input's, then each
    item's), and the ids of the template's nodes inside LATERAL subqueries (their input
    references are placeholders already, appended to `args`)."""
    from .from_clause import relation

    input_ids = lateral_ids(input_scope)
    enclosing = outer
    while enclosing is not None:  # (the block may itself be a correlated subquery)
        input_ids |= lateral_ids(enclosing)
        enclosing = enclosing.parent
    visible = input_scope
    inside: set[int] = set()
    for j in joins:
        if j.method or j.args.get("using") or (j.kind or "").upper() in ("SEMI", "ANTI"):
            raise NotModelled("a NATURAL, USING, SEMI or ANTI join with a LATERAL subquery")
        item = j.this
        if not isinstance(item, exp.Lateral):
            if not isinstance(item, exp.Table) or item.args.get("joins") or \
                    (not item.db and item.name.lower() in ctes):
                raise NotModelled("a FROM item after a LATERAL subquery other than a table")
            _plan, scope = relation(analyzer, item, outer, ctes)
            visible = visible.combine(scope)
            continue
        sub = item.this
        if not isinstance(sub, exp.Subquery) or item.args.get("view"):
            raise NotModelled("a LATERAL table function" if isinstance(sub, exp.Func) else "LATERAL VIEW in a join")
        _refuse_ctes_and_outer_stars(sub, ctes, visible)
        seen: list[tuple[exp.Expression, E.Expr]] = []
        prev = analyzer.exprs.observer

        def observe(node: exp.Expression, out: E.Expr) -> None:
            seen.append((node, out))

        analyzer.exprs.observer = observe
        try:
            plan = analyzer.query(sub, visible.with_parent(outer, ctes), ctes)
        except AnalysisError as e:
            # (where sparkfold's scoping of a LATERAL subquery and Spark's could part,
            # Spark has the last word on the text: never a rejection of what it reads)
            raise NotModelled(f"a LATERAL subquery sparkfold cannot analyze: {e}") from None
        finally:
            analyzer.exprs.observer = prev
        _refuse_outer_names(plan, lateral_ids(visible) | input_ids)
        inside.update(id(n) for n in sub.walk())
        observed = {id(n) for n, _ in seen}
        if any(id(c) not in observed for c in sub.find_all(exp.Column) if not isinstance(c.this, exp.Star)):
            # (a reference analyzed elsewhere, such as in a block kept as text inside: it
            # could read the input by a qualifier the input written back does not keep)
            raise NotModelled("a LATERAL subquery with a reference sparkfold cannot place")
        replaced: set[int] = set()
        for node, out in seen:
            if not isinstance(node, exp.Column) or id(node) in replaced or not (out.references & input_ids):
                continue
            if not isinstance(out, E.Attribute) or out.expr_id not in input_ids or id(node) not in inside:
                raise NotModelled("a LATERAL subquery reading a field of its input's or an outer query's columns")
            args.append(out)
            replaced.add(id(node))
            node.replace(exp.column(f"{ARG_PREFIX}{len(args) - 1}"))
        alias = item.args.get("alias")
        columns = [c.name for c in alias.columns] if alias is not None and alias.columns else []
        name = alias.name if alias is not None else ""
        plan = analyzer._rename(plan, columns, f"LATERAL subquery {name}")
        visible = visible.combine(Scope.of((name.lower(),) if name else (), list(plan.output), name))
    return visible, inside


def place_input_stars(template: exp.Expression, inside: set[int], input_scope: Scope, later: list[exp.Join],
                      wrapped: bool, args: list[E.Expr]) -> None:
    """A star outside the LATERAL subqueries reads the input by its qualifiers, which the
    input written back as one derived table (several FROM items before the LATERAL one)
    does not keep, nor its column names when two are alike: there a select list's `*`
    becomes the input's columns (placeholders, each keeping its name) and each later
    item's `alias.*`.  `x.*` over an input item, or a star elsewhere, is not modelled."""
    for star in list(template.find_all(exp.Star)):
        if id(star) in inside:
            continue
        col = star.parent if isinstance(star.parent, exp.Column) else None
        if col is not None:
            qual = tuple(p.name.lower() for p in col.parts[:-1])
            if any(en.matches(qual) for en in input_scope.entries):
                raise NotModelled("a qualified star over the input of a LATERAL join")
            continue
        if not wrapped:
            continue
        if star.parent is not template or any(star.args.get(k) for k in ("except_", "replace", "rename")):
            raise NotModelled("SELECT * over joins and a LATERAL subquery")
        items: list[exp.Expression] = []
        for c in input_scope.star:
            if not isinstance(c, E.Attribute):
                raise NotModelled("SELECT * over a USING join and a LATERAL subquery")
            args.append(c)
            items.append(exp.column(f"{ARG_PREFIX}{len(args) - 1}"))
        for j in later:
            alias = j.this.args.get("alias")
            name = alias.name if isinstance(j.this, exp.Lateral) and alias is not None else \
                (j.this.alias_or_name if isinstance(j.this, exp.Table) else "")
            if not name:
                raise NotModelled("SELECT * over joins and an unaliased LATERAL subquery")
            items.append(exp.Column(this=exp.Star(), table=exp.to_identifier(name)))
        position = template.expressions.index(star)
        template.set("expressions", template.expressions[:position] + items + template.expressions[position + 1:])


def _refuse_ctes_and_outer_stars(sub: exp.Expression, ctes: dict, visible: Scope) -> None:
    for table in sub.find_all(exp.Table):
        if not table.db and table.name.lower() in ctes:
            raise NotModelled("a LATERAL subquery reading a CTE")
    for col in sub.find_all(exp.Column):
        if isinstance(col.this, exp.Star) and col.table:
            qual = tuple(p.name.lower() for p in col.parts[:-1])
            if any(en.matches(qual) for en in visible.entries):
                raise NotModelled("a LATERAL subquery with a star over an earlier FROM item")


def lateral_ids(scope: Scope) -> set[int]:
    """The ids of the attributes a scope's columns read (its own entries, not its parent's)."""
    out: set[int] = set()
    for en in scope.entries:
        for c in en.columns:
            out |= {n.expr_id for n in c.walk() if isinstance(n, E.Attribute)}
    out |= {n.expr_id for c in scope.star for n in c.walk() if isinstance(n, E.Attribute)}
    return out


def _refuse_outer_names(plan, outer_ids: set[int]) -> None:
    """Spark names an unaliased column of a LATERAL subquery that reads an earlier FROM
    item with `outer(...)` and that reference's qualifier (`least(outer(a.q1), q1)`), a
    name sparkfold does not give: not modelled."""
    from ..ir import logical as L

    top = plan
    while isinstance(top, (L.Sort, L.Limit, L.Offset, L.Distinct, L.Filter)):
        top = top.children[0]
    items = top.projections if isinstance(top, L.Project) else \
        top.aggregates if isinstance(top, L.Aggregate) else ()
    for e in items:
        if isinstance(e, E.Alias) and e.auto and \
                any(isinstance(n, E.Attribute) and n.expr_id in outer_ids for n in e.child.walk()):
            raise NotModelled("an unaliased column of a LATERAL subquery reading an earlier FROM item "
                              "(Spark names it with outer(...))")
