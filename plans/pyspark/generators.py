"""Generators kept as opaque relations (`sql_in.from_clause.table_function`,
`sql_in.generator_select`, a generator in an opaque select list) as DataFrame calls: the
generator selected (`F.call_function("explode", ...)`, which Spark resolves to the same
Generate as the text) with one alias per column it makes (a multi-alias for `posexplode`,
`inline`, `stack`...), over the block's input or, without one, over one row
(`spark.range(1).select()`, as a SELECT without FROM or a table-valued `explode(...)` reads).

Taken: `explode`, `explode_outer`, `posexplode`, `posexplode_outer`, `inline`,
`inline_outer`, `stack`, one per block, the other select items translated from the
template (`opaque.template_code`), no other clause."""

from __future__ import annotations

from sqlglot import exp

from ..ir import logical as L
from ..ir.dialect import function_name
from .expressions import lower_expr
from .frames import Frame, Scope
from .opaque import receiver, template_code
from .values import py_str

INPUT_TABLE = "__sf_input_0"
GENERATORS = frozenset({"explode", "explode_outer", "posexplode", "posexplode_outer", "inline", "inline_outer",
                        "stack"})


def lower_generator(low, p: L.OpaqueRelation, outer) -> Frame | None:
    t = p.template
    if not isinstance(t, exp.Select) or L.outer_references(p) or len(p.inputs) > 1 or "*" in [a.name for a in p.output]:
        return None
    if any(v for k, v in t.args.items() if k not in ("expressions", "from_")):
        return None
    from_ = t.args.get("from_")
    source = from_.this if from_ is not None else None
    items = list(t.expressions)
    if source is not None and any(v for k, v in source.args.items() if k != "this"):
        return None
    if isinstance(source, exp.Table) and isinstance(source.this, exp.Func):
        # a table-valued generator: `SELECT col FROM explode(...)`, its columns in order
        if p.inputs or not all(isinstance(i, exp.Column) for i in items):
            return None
        items = [exp.Alias(this=source.this.copy(), alias=exp.to_identifier("_"))] if items else []
    elif source is not None and not (isinstance(source, exp.Table) and source.name == INPUT_TABLE and p.inputs):
        return None
    bodies = [i.this if isinstance(i, (exp.Alias, exp.Aliases)) else i for i in items]
    generators = [k for k, b in enumerate(bodies) if _is_generator(b)]
    if len(generators) != 1 or any(isinstance(b, exp.Star) for b in bodies):
        return None
    width = len(p.output) - (len(items) - 1)
    if width < 1:
        return None
    dummy = [f"a{i}" for i in range(len(p.args))]
    if any(template_code(b, dummy, p.args, set(), generator=k in generators) is None for k, b in enumerate(bodies)):
        return None
    if p.inputs:
        child = low.lower(p.inputs[0], outer)
        scope = Scope(child, outer)
        args = [lower_expr(low, a, scope, True) for a in p.args]
        base = child.var
    else:
        args, base = [], f"{low.spark}.range(1)"
    names = low.column_names(p.output)
    codes, at = [], 0
    for k, b in enumerate(bodies):
        code = template_code(b, args, p.args, low.imports, generator=k in generators)
        if code is None:
            return None
        n = width if k in generators else 1
        codes.append(f"{receiver(code)}.alias({', '.join(py_str(x) for x in names[at:at + n])})")
        at += n
    return low.frame(f"{base}.select({', '.join(codes)})", p.output, names)


def _is_generator(b: exp.Expression) -> bool:
    return isinstance(b, exp.Func) and function_name(b) in GENERATORS
