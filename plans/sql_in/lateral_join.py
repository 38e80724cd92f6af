"""`FROM t, LATERAL (SELECT ... t.x ...) s` and `t [LEFT] JOIN LATERAL (...) s ON ...`: a
SELECT block with a LATERAL subquery, kept as an opaque block (`opaque_select`) whose input
is its FROM items before the first LATERAL one.

Each LATERAL subquery is analyzed as a correlated subquery of the items before it (Spark's
scoping), which gives its columns' types and names and tells which of its references read
the input: those become the block's placeholders (`__sf_arg_i`, written back against the
optimized input); a reference to the subquery's own tables, or to an earlier LATERAL
subquery, stays as written.  A star over an earlier FROM item, in the block's select list
or a LATERAL subquery's, is written as that item's columns (`place_input_stars`,
`expand_outer_stars`); an unaliased column Spark names with `outer(...)` gets that name as
its alias (`outer_names`).  The block's WHERE goes below the join where Catalyst puts it
(`filter_input`), and the block as operators (`lateral_model`, an `L.LateralJoin` per
LATERAL subquery) is what the DataFrame writer lowers to `lateralJoin`.  After the first
LATERAL item, the FROM clause may hold more LATERAL subqueries and tables (no CTE: the
text would read it by name, which the writer does not keep); NATURAL / USING joins are not
modelled.  A generator as a LATERAL table function (`LATERAL explode(t.xs) g(v)`) is kept as
written, its columns those the generator makes (`_generator_item`); other table functions
are not modelled.
"""

from __future__ import annotations

from typing import cast

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir.dialect import ARG_PREFIX
from ..ir.errors import AnalysisError
from ..ir.records import record
from .expr_context import NotModelled
from .generator_select import generator_item_columns, is_generator_item
from .lateral_model import inner_join, input_values, join_step
from .lateral_names import expand_outer_stars, outer_names, outer_stars
from .scope import Scope


def first_lateral(joins: list) -> int | None:
    """The position of the first LATERAL join (not LATERAL VIEW), or None."""
    return next((i for i, j in enumerate(joins) if isinstance(j.this, exp.Lateral)), None)


@record
class LateralItems:
    """What `lateral_items` finds: the scope the block's clauses resolve in (the input's,
    then each item's), the ids of the template's nodes inside LATERAL subqueries (their
    input references are placeholders already), the columns of inner LATERAL subqueries
    that equal an input column on every row they make (`SELECT x.a AS c`: the id of c ->
    x.a), and each item as a join over the input (`LateralJoin`), or None where an item is
    not a LATERAL subquery or its join is not modelled."""

    scope: Scope
    inside: set[int]
    equal: dict[int, E.Attribute]
    steps: list[tuple[str, L.Plan, E.Expr | None]] | None


def lateral_items(analyzer, joins: list[exp.Join], input_scope: Scope, outer, ctes,
                  args: list[E.Expr], aliases: set[str]) -> LateralItems:
    """Analyze the FROM items from the first LATERAL one (`joins`, copies placed in the
    block's template); the input references inside LATERAL subqueries become placeholders,
    appended to `args`.  `aliases`: the input items' aliases as written."""
    from .from_clause import relation

    input_ids = lateral_ids(input_scope)
    enclosing = outer
    while enclosing is not None:  # (the block may itself be a correlated subquery)
        input_ids |= lateral_ids(enclosing)
        enclosing = enclosing.parent
    visible = input_scope
    inside: set[int] = set()
    equal: dict[int, E.Attribute] = {}
    steps: list[tuple[str, L.Plan, E.Expr | None]] | None = []
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
            steps = None
            continue
        sub = item.this
        if isinstance(sub, exp.Func) and not item.args.get("view") and is_generator_item(cast(exp.Expression, sub)):
            visible = _generator_item(analyzer, item, visible, input_ids, args, inside)
            aliases = aliases | {item.alias}
            steps = None  # (its join is not modelled: the DataFrame program runs the block as SQL)
            continue
        if not isinstance(sub, exp.Subquery) or item.args.get("view"):
            raise NotModelled("a LATERAL table function" if isinstance(sub, exp.Func) else "LATERAL VIEW in a join")
        expand_outer_stars(outer_stars(sub, ctes, visible), visible)
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
        alias = item.args.get("alias")
        columns = [c.name for c in alias.columns] if alias is not None and alias.columns else []
        named = {} if columns else outer_names(sub, plan, lateral_ids(visible) | input_ids, visible, aliases)
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
        name = alias.name if alias is not None else ""
        aliases = aliases | {name}
        values = input_values(plan, lateral_ids(input_scope)) if inner_join(j) else []
        plan = analyzer._rename(plan, columns, f"LATERAL subquery {name}")
        # a column that is an earlier item's (`SELECT x.a`) is the subquery's own: NULL
        # where a LEFT JOIN LATERAL found no row, and never a placeholder of the input
        earlier = lateral_ids(visible) | input_ids
        output = [E.Attribute(named.get(k, a.name), a.data_type, True, E.new_id())
                  if a.expr_id in earlier or k in named else a for k, a in enumerate(plan.output)]
        equal.update((a.expr_id, v) for a, v in zip(output, values) if v is not None)
        visible = visible.combine(Scope.of((name.lower(),) if name else (), output, name))
        if steps is not None:
            steps = join_step(analyzer, j, plan, output, visible.with_parent(outer, ctes), steps)
    return LateralItems(visible, inside, equal, steps)


def _generator_item(analyzer, item: exp.Lateral, visible: Scope, input_ids: set[int], args: list[E.Expr],
                    inside: set[int]) -> Scope:
    """`LATERAL explode(t.xs) [AS] g(v)`, a generator as a LATERAL table function: its
    columns as the same generator in a select list makes them (`col`, `pos`, `key` and
    `value`, a struct's fields...), renamed by the alias's columns, all nullable; its
    arguments' references to the input become placeholders, the call stays as written.
    Returns the scope with its columns added."""
    call = item.this
    alias = item.args.get("alias")
    columns = generator_item_columns(analyzer, call, visible)
    names = [c.name for c in alias.columns] if alias is not None and alias.columns else [n for n, _ in columns]
    if len(names) != len(columns):
        raise NotModelled("a LATERAL generator whose alias does not name each of its columns")  # Spark's error
    for col in list(call.find_all(exp.Column)):
        if isinstance(col.this, exp.Star):
            raise NotModelled("a LATERAL generator over a star")
        parts = tuple(p.name for p in col.parts)
        try:
            found, rest, _ = visible.resolve(parts, ".".join(parts))
        except AnalysisError:
            raise NotModelled("a LATERAL generator with a reference sparkfold cannot place") from None
        if rest or not isinstance(found, E.Attribute) or found.expr_id not in input_ids:
            raise NotModelled("a LATERAL generator reading a field, an earlier LATERAL item or an outer query")
        args.append(found)
        col.replace(exp.column(f"{ARG_PREFIX}{len(args) - 1}"))
    inside.update(id(n) for n in call.walk())
    name = alias.name if alias is not None else ""
    output: list[E.Expr] = [E.Attribute(n, t, True, E.new_id()) for n, (_, t) in zip(names, columns)]
    return visible.combine(Scope.of((name.lower(),) if name else (), output, name))


def lateral_ids(scope: Scope) -> set[int]:
    """The ids of the attributes a scope's columns read (its own entries, not its parent's)."""
    out: set[int] = set()
    for en in scope.entries:
        for c in en.columns:
            out |= {n.expr_id for n in c.walk() if isinstance(n, E.Attribute)}
    out |= {n.expr_id for c in scope.star for n in c.walk() if isinstance(n, E.Attribute)}
    return out


