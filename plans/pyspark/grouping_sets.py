"""A SELECT block with GROUP BY GROUPING SETS / CUBE / ROLLUP (kept as an opaque relation,
`sql_in.opaque_select`) as DataFrame calls: `groupingSets(sets, *keys)`, `cube(*keys)`,
`rollup(*keys)`, then `.agg(...)` of the select items, each translated from the template
(`opaque.template_code`).  Spark builds the same Aggregate over the same grouping sets
as its parser does for the text, so the columns it makes nullable and grouping() /
grouping_id() (whose bits follow the keys' order) are the same.

Taken: the block `SELECT items FROM input GROUP BY <one form>` where every grouping key is a
column of the input, each ROLLUP / CUBE element one key (no composite `(a, b)`), and the
forms `GROUPING SETS (...)`, `ROLLUP (...)`, `CUBE (...)`, `a, b WITH ROLLUP | WITH CUBE`,
`a, b GROUPING SETS (...)`.  Anything more (HAVING, ORDER BY, a window, a mix such as
`GROUP BY a, ROLLUP (b)`, an outer reference) stays as text (`Lowering.via_sql`)."""

from __future__ import annotations

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir.dialect import ARG_PREFIX
from .expressions import lower_expr
from .frames import Frame, Scope
from .opaque import receiver, template_code
from .values import col, py_str

INPUT_TABLE = "__sf_input_0"


def lower_grouping_analytics(low, p: L.OpaqueRelation, outer) -> Frame | None:
    form = _form(p)
    if form is None:
        return None
    kind, keys, sets = form
    items = [i.this if isinstance(i, exp.Alias) else i for i in p.template.expressions]
    # a dry run: is every item translatable (before anything is emitted)?
    dummy = [f"a{i}" for i in range(len(p.args))]
    if any(isinstance(i, (exp.Aliases, exp.Star)) for i in items) \
            or any(template_code(i, dummy, p.args, set(), grouping=True) is None for i in items):
        return None
    child = low.lower(p.inputs[0], outer)
    scope = Scope(child, outer)
    args = [lower_expr(low, a, scope, True) for a in p.args]
    names = low.column_names(p.output)
    aggs = []
    for item, n in zip(items, names):
        code = template_code(item, args, p.args, low.imports, grouping=True)
        if code is None:
            return None
        aggs.append(f"{receiver(code)}.alias({py_str(n)})")
    key_code = [args[k] for k in keys]
    if kind == "sets":
        set_code = ", ".join("[" + ", ".join(args[k] for k in s) + "]" for s in sets)
        grouped = f"{child.var}.groupingSets([{set_code}], {', '.join(key_code)})"
    else:
        grouped = f"{child.var}.{kind}({', '.join(key_code)})"
    code = f"{grouped}.agg({', '.join(aggs)}).select({', '.join(col(n) for n in names)})"
    return low.frame(code, p.output, names)


def _form(p: L.OpaqueRelation):
    """(kind, keys, sets): kind is rollup | cube | sets, keys the placeholders' numbers of
    the grouping keys in Spark's order, sets (for sets) each set's; None when not taken."""
    t = p.template
    if not isinstance(t, exp.Select) or len(p.inputs) != 1 or L.outer_references(p):
        return None
    if any(v for k, v in t.args.items() if k not in ("expressions", "from_", "group")):
        return None
    from_ = t.args.get("from_")
    source = from_.this if from_ is not None else None
    if not isinstance(source, exp.Table) or source.name != INPUT_TABLE \
            or any(v for k, v in source.args.items() if k != "this"):
        return None
    group = t.args.get("group")
    if group is None or any(v for k, v in group.args.items()
                            if k not in ("expressions", "rollup", "cube", "grouping_sets")):
        return None
    exprs = list(group.expressions)
    with_rollup, with_cube, sets_arg = group.args.get("rollup"), group.args.get("cube"), group.args.get("grouping_sets")
    if sum(bool(x) for x in (with_rollup, with_cube, sets_arg)) > 1:
        return None
    if with_rollup or with_cube:
        # `a, b WITH ROLLUP`: the keys as written
        if not _is_simple(with_rollup or with_cube):
            return None
        keys = _keys(p, exprs)
        return None if keys is None else ("rollup" if with_rollup else "cube", keys, [])
    if sets_arg:
        # `a, b GROUPING SETS (...)`: the keys as written, then the sets
        if len(sets_arg) != 1 or not isinstance(sets_arg[0], exp.GroupingSets):
            return None
        keys = _keys(p, exprs)
        sets = _sets(p, sets_arg[0])
        if keys is None or sets is None or not all(any(_same(p, k, j) for j in keys) for s in sets for k in s):
            return None
        return "sets", keys, sets
    if len(exprs) != 1:
        return None
    g = exprs[0]
    if isinstance(g, (exp.Rollup, exp.Cube)) and type(g) in (exp.Rollup, exp.Cube):
        keys = _keys(p, list(g.expressions))
        return None if keys is None else ("rollup" if isinstance(g, exp.Rollup) else "cube", keys, [])
    if isinstance(g, exp.GroupingSets):
        sets = _sets(p, g)
        if sets is None:
            return None
        keys = []
        for s in sets:  # Spark's keys: the sets' expressions, each once, in order
            for k in s:
                if not any(_same(p, k, j) for j in keys):
                    keys.append(k)
        return "sets", keys, sets
    return None


def _is_simple(flag) -> bool:
    """`WITH ROLLUP` as sqlglot holds it (a flag, or a list of one node without arguments)."""
    if flag is True:
        return True
    if isinstance(flag, list):
        return len(flag) == 1 and isinstance(flag[0], (exp.Rollup, exp.Cube)) and not flag[0].expressions
    return False


def _key(p: L.OpaqueRelation, e: exp.Expression) -> int | None:
    """The placeholder number of a grouping key that is an input column, else None."""
    while isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, exp.Column) and e.name.startswith(ARG_PREFIX) and not e.table:
        i = int(e.name[len(ARG_PREFIX):])
        if isinstance(p.args[i], E.Attribute):
            return i
    return None


def _keys(p, exprs) -> list[int] | None:
    keys = [_key(p, e) for e in exprs]
    if not keys or None in keys:
        return None
    out: list[int] = []
    for k in keys:
        assert k is not None
        if any(_same(p, k, j) for j in out):
            return None  # a key written twice: left to Spark's text
        out.append(k)
    return out


def _same(p, i: int, j: int) -> bool:
    a, b = p.args[i], p.args[j]
    return isinstance(a, E.Attribute) and isinstance(b, E.Attribute) and a.expr_id == b.expr_id


def _sets(p, g: exp.GroupingSets) -> list[list[int]] | None:
    sets: list[list[int]] = []
    for s in g.expressions:
        members = list(s.expressions) if isinstance(s, exp.Tuple) else [s]
        keys = [_key(p, m) for m in members]
        if None in keys:
            return None
        sets.append([k for k in keys if k is not None])
    return sets
