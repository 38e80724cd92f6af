"""The writers of the leaves of a plan: tables, subquery aliases, VALUES, opaque blocks.
Each takes the generator (`SqlGenerator`: fresh aliases, blocks of children, wrapping)
first."""

from __future__ import annotations

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir.dialect import ARG_PREFIX
from .blocks import Block
from .expressions import ATOMIC, ExprWriter, _wrap
from .literals import literal_sql, non_null_value, written_nullable
from .names import _needs_quotes, _unique_names


def write_relation(gen, plan: L.Relation, outer) -> Block:
    return write_table(gen, plan, plan.table.split(".")[-1], outer)


def _identifier(name: str) -> exp.Identifier:
    # a function, not a lambda: compiled (mypyc), the lambda took the type of
    # `to_identifier`'s first overload (None) and failed on every table name
    return exp.to_identifier(name, quoted=_needs_quotes(name))


def write_table(gen, rel: L.Relation, alias: str, outer) -> Block:
    name = gen.fresh_alias(alias)
    parts = rel.table.split(".")
    table = exp.Table(this=_identifier(parts[-1]), db=_identifier(parts[-2]) if len(parts) > 1 else None,
                      catalog=_identifier(parts[-3]) if len(parts) > 2 else None)
    if name.lower() != parts[-1].lower() or name != alias:
        table.set("alias", exp.TableAlias(this=exp.to_identifier(name, quoted=_needs_quotes(name))))
    refs = dict(outer)
    for a in rel.output:
        refs[a.expr_id] = (a.name, name)
    return Block(list(rel.output), refs, from_=table)


def write_subquery_alias(gen, plan: L.SubqueryAlias, outer) -> Block:
    child = plan.child
    if isinstance(child, L.Relation):
        block = write_table(gen, child, plan.alias, outer)
        block.output = list(plan.output)
        return block
    if isinstance(child, L.LocalRelation) and child.rows:
        return write_values(gen, child, plan.alias, outer, list(plan.output))
    inner = gen.block(child, outer)
    return gen.wrap(inner, outer, plan.alias, list(plan.output))


def write_local_relation(gen, plan: L.LocalRelation, outer) -> Block:
    if plan.rows:
        return write_values(gen, plan, "_values", outer, list(plan.output))
    # the empty relation: no rows, no table read; each column a value Spark types as the
    # column is, a typed NULL for a nullable one and a value of its type for a NOT NULL one
    # (`SELECT CAST(NULL AS STRING) AS s, 0 AS num WHERE FALSE`), so that df.schema is the same
    writer = ExprWriter(gen, {})
    select = [(a, exp.alias_(_empty_column(a, writer), a.name, quoted=_needs_quotes(a.name), copy=False))
              for a in plan.output]
    block = Block(list(plan.output), dict(outer), where=[exp.false()])
    block.select = select
    return block


def local_relation_nullability(rel: L.LocalRelation) -> list[bool]:
    """Which columns of the relation, as written, Spark types nullable.  Spark types a
    VALUES column nullable when a value's text is (`written_nullable`: a NULL, a NaN...),
    whatever the plan says; an empty relation's column is what the plan says, unless
    its type has no value Spark types NOT NULL (`non_null_value`).  The DataFrame
    program declares the same (`plans.pyspark`), so both paths agree."""
    if rel.rows:
        return [any(written_nullable(row[i], a.data_type) for row in rel.rows) for i, a in enumerate(rel.output)]
    return [a.nullable or non_null_value(a.data_type) is None for a in rel.output]


def _empty_column(a: E.Attribute, writer: ExprWriter) -> exp.Expression:
    value = None if a.nullable else non_null_value(a.data_type)
    return literal_sql(None, a.data_type) if value is None else writer(value)


def write_values(gen, rel: L.LocalRelation, alias: str, outer, output) -> Block:
    name = gen.fresh_alias(alias)
    names = _unique_names([a.name for a in rel.output])
    rows = [exp.Tuple(expressions=[literal_sql(v, a.data_type) for v, a in zip(row, rel.output)])
            for row in rel.rows]
    values = exp.Values(expressions=rows, alias=exp.TableAlias(
        this=exp.to_identifier(name, quoted=_needs_quotes(name)), columns=[exp.to_identifier(n, quoted=_needs_quotes(n)) for n in names]))
    refs = dict(outer)
    for a, n in zip(output, names):
        refs[a.expr_id] = (n, name)
    return Block(list(output), refs, from_=values)


def write_one_row_relation(gen, plan, outer) -> Block:
    return Block([], dict(outer))


def write_opaque_relation(gen, plan: L.OpaqueRelation, outer) -> Block:
    """A SELECT block kept as text: its input goes back in place of the placeholder
    table, its placeholders become references to the input's columns."""
    template = plan.template.copy()
    refs = dict(outer)
    needed: set[int] = set()
    for a in plan.args:
        needed |= a.references
    for i, child in enumerate(plan.inputs):
        if isinstance(child, (L.SubqueryAlias, L.Relation)):
            # a table or an aliased subquery is a FROM item as it is (and regenerating
            # the output does not add a wrapper each time)
            inner = gen.block(child, outer)
        else:
            used = [a for a in child.output if a.expr_id in needed]
            if used and len(used) < len(child.output) and _reads_only_its_args(plan.template):
                child = L.Project(tuple(used), child)  # read only the columns the block uses
            inner = gen.wrap(gen.block(child, outer), outer, "_in")
        refs.update(inner.refs)
        placed = False
        for table in list(template.find_all(exp.Table)):
            if table.name == f"__sf_input_{i}":
                # the input was written for this block: its first place takes it as it
                # is (copying a written union of subqueries cost more than writing it)
                item = inner.from_.copy() if placed else inner.from_
                placed = True
                if table.args.get("pivots"):
                    item.set("pivots", table.args["pivots"])
                table.replace(item)
    renamed = _renamed_items(gen, plan, template, refs)
    writer = ExprWriter(gen, refs)
    for col in list(template.find_all(exp.Column)):
        name = col.name
        if name.startswith(ARG_PREFIX) and not col.table:
            value: exp.Expr = writer(plan.args[int(name[len(ARG_PREFIX):])])
            parent = col.parent
            if isinstance(parent, exp.Select) and col.arg_key == "expressions" and isinstance(value, exp.Column) \
                    and value.name != col.name:
                # a bare column in a select list (the block's, or a LATERAL subquery's):
                # keep the name it had
                arg = plan.args[int(name[len(ARG_PREFIX):])]
                if isinstance(arg, E.Attribute) and value.name != arg.name:
                    value = exp.alias_(value, arg.name, quoted=_needs_quotes(arg.name), copy=False)
            col.replace(_wrap(value, ATOMIC))
    for k in renamed:
        item = template.expressions[k]
        if not isinstance(item, exp.Alias):
            name = plan.output[k].name
            template.expressions[k].replace(exp.alias_(item, name, quoted=_needs_quotes(name)))
    return Block(list(plan.output), dict(outer), setop=template)


def _cast_call(node: exp.Expression) -> bool:
    """A cast spelled as a call (`string(x)`, `int(x)`), which the text writes `CAST(x AS
    STRING)`: Spark leaves the former out of a name, not the latter."""
    return isinstance(node, exp.Cast) and str(node.meta.get("name") or "cast").lower() not in ("cast", "try_cast")


def _renamed_items(gen, plan: L.OpaqueRelation, template: exp.Expression, refs) -> list[int]:
    """The positions of the block's unaliased select items whose name Spark would no
    longer give them as written: an argument written under another name (`max(t2.a)` is
    `max(_in.a_2)` over a renamed input) or in another form (`string(x)` as `CAST(x AS
    STRING)`).  Each is aliased with the name the block's column has; one only Spark
    can name cannot be written (UnknownName)."""
    from ..ir.naming import UnknownName
    from .expressions import _faithful, _names_kept

    if not isinstance(template, exp.Select) or len(template.expressions) != len(plan.output) \
            or any(True for e in template.expressions for _ in e.find_all(exp.Star)):
        return []
    out = []
    for k, item in enumerate(template.expressions):
        if isinstance(item, exp.Alias):
            continue
        args = [plan.args[int(c.name[len(ARG_PREFIX):])] for c in item.find_all(exp.Column)
                if c.name.startswith(ARG_PREFIX) and not c.table]
        if any(not (_faithful(a) and _names_kept(a, refs)) for a in args) or any(_cast_call(n) for n in item.walk()):
            if plan.output[k].expr_id in gen.unnamed:
                raise UnknownName(plan.output[k].name)
            out.append(k)
    return out


def _reads_only_its_args(template: exp.Expression) -> bool:
    """Does an opaque block read no input column but those its args name?  A PIVOT
    groups by every input column it does not pivot (so pruning its input changes the
    rows: one row instead of one per year), and `*`, LATERAL VIEW and UNPIVOT read
    columns the text does not name either; their input keeps all its columns."""
    if any(t.args.get("pivots") for t in template.find_all(exp.Table)):
        return False
    return not any(True for _ in template.find_all(exp.Star, exp.Lateral, exp.Pivot))  # (UNPIVOT is a Pivot)
