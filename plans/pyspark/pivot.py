"""`SELECT * FROM input PIVOT (agg FOR k IN (v1, v2, ...))` (kept as an opaque relation,
`sql_in.opaque_select`) as DataFrame calls: `groupBy(<the input's other columns>)
.pivot(k, [v1, v2, ...]).agg(agg)`, the form Spark's analyzer gives the PIVOT clause
(ResolvePivot groups by the input's columns that neither the aggregates nor the pivot
column read, and casts the values to the pivot column's type, on both paths).

Taken: one pivot column of the input, string or integer values (their aliases only where
the program renames the columns by position anyway), aggregates the template translates
(`opaque.template_code`).  The block's columns are renamed by position to the plan's names
when it knows them; at the top of a query whose schema only Spark knows (`*`), Spark's
names stand, so aliased values or aggregates, and more than one aggregate, stay text."""

from __future__ import annotations

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir.dialect import ARG_PREFIX
from .expressions import lower_expr
from .frames import Frame, Scope
from .opaque import template_code
from .values import py_str

INPUT_TABLE = "__sf_input_0"
_INT = 2 ** 31


def lower_pivot(low, p: L.OpaqueRelation, outer) -> Frame | None:
    pivot = _pivot(p)
    if pivot is None:
        return None
    aggs = list(pivot.expressions)
    field = pivot.args["fields"][0]
    key = field.this
    unknown = any(a.name == "*" for a in p.output)
    values = []
    for v in field.expressions:
        aliased = isinstance(v, exp.PivotAlias)
        v = v.this if aliased else v
        if aliased and unknown:
            return None
        if not isinstance(v, exp.Literal):
            return None
        if v.is_string:
            s = v.this
            if "\\" in s or not s.isprintable():
                return None
            values.append(py_str(s))
        elif str(v.this).isdigit() and int(str(v.this)) < _INT:
            values.append(str(int(str(v.this))))
        else:
            return None
    if unknown and (len(aggs) != 1 or isinstance(aggs[0], exp.Alias)):
        return None
    bodies = [a.this if isinstance(a, exp.Alias) else a for a in aggs]
    dummy = [f"a{i}" for i in range(len(p.args))]
    if any(template_code(b, dummy, p.args, set()) is None for b in bodies):
        return None
    k = _placeholder(key)
    if k is None:
        return None
    child = low.lower(p.inputs[0], outer)
    key_attr = p.args[k]
    key_name = child.ids.get(key_attr.expr_id) if isinstance(key_attr, E.Attribute) else None
    if key_name is None:
        return None
    scope = Scope(child, outer)
    args = [lower_expr(low, a, scope, True) for a in p.args]
    read: set[str] = set()
    for a in p.args:
        read |= {child.ids[i] for i in a.references if i in child.ids}
    groups = [n for n in child.names if n not in read]
    if unknown and [n for n in groups] != [a.name for a in p.inputs[0].output if child.ids.get(a.expr_id) in groups]:
        return None  # (Spark's names stand: the program's own names must not show)
    agg_code = []
    for b in bodies:
        code = template_code(b, args, p.args, low.imports)
        if code is None:
            return None
        agg_code.append(code)
    group_code = ", ".join(py_str(f"`{n.replace('`', '``')}`") for n in groups)
    code = (f"{child.var}.groupBy({group_code}).pivot({py_str('`' + key_name.replace('`', '``') + '`')}, "
            f"[{', '.join(values)}]).agg({', '.join(agg_code)})")
    if unknown:
        return Frame(low.emit(code), ["*"], {})
    names = low.column_names(p.output)
    code += f".toDF({', '.join(py_str(n) for n in names)})"
    return low.frame(code, p.output, names)


def _placeholder(e: exp.Expression) -> int | None:
    if isinstance(e, exp.Column) and e.name.startswith(ARG_PREFIX) and not e.table:
        return int(e.name[len(ARG_PREFIX):])
    return None


def _pivot(p: L.OpaqueRelation):
    t = p.template
    if not isinstance(t, exp.Select) or len(p.inputs) != 1 or L.outer_references(p):
        return None
    if any(v for k, v in t.args.items() if k not in ("expressions", "from_")):
        return None
    if len(t.expressions) != 1 or not isinstance(t.expressions[0], exp.Star) or \
            any(t.expressions[0].args.get(k) for k in ("except_", "replace", "rename")):
        return None
    from_ = t.args.get("from_")
    source = from_.this if from_ is not None else None
    if not isinstance(source, exp.Table) or source.name != INPUT_TABLE:
        return None
    if any(v for k, v in source.args.items() if k not in ("this", "pivots")):
        return None
    pivots = source.args.get("pivots") or []
    if len(pivots) != 1:
        return None
    pv = pivots[0]
    fields = pv.args.get("fields") or []
    if pv.args.get("unpivot") or pv.args.get("alias") or pv.args.get("default_on_null") or pv.args.get("group") \
            or len(fields) != 1 or not isinstance(fields[0], exp.In) or not pv.expressions:
        return None
    return pv
