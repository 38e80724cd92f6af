"""`SELECT <constants>, explode(array(1, 2)) AS b`: a SELECT block without FROM whose
select list has one generator of constants, kept as an opaque relation with Spark's schema.

A generator in a select list multiplies the rows; the optimizer does not model it, but
with no FROM clause the block reads nothing, so it is a relation like `range(...)`
(`from_clause.table_function`): its text is the block as written, and the query around
it is optimized.  The generators with a schema we can derive, as Spark gives it:
- `explode` / `posexplode` of a constant array or map (`from_clause._generator_columns`):
  `col` (nullable as the array's elements), `pos INT NOT NULL` first, `key`, `value`;
- `stack(n, v1, ...)` of constants: `ceil(#v / n)` columns `col0, col1...`, each of the
  one type of its values (NULLs aside: Spark casts them; values of two types are its
  error, `STACK_COLUMN_DIFF_TYPES`), every column nullable (Spark's schema says so);
- any other generator of constants: the block's schema as the live session gives it
  (`Catalog.session_relation`; not modelled without a session).
The other select items must be constants (no column, subquery or lambda); a multi-alias
`AS (a, b)` renames the generator's columns and must name each one.
"""

from __future__ import annotations

import math
from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir import types as T
from ..ir.dialect import DIALECT, function_name, is_aggregate_call
from ..ir.errors import AnalysisError
from ..ir.naming import spark_name
from .expr_context import Ctx, NotModelled
from .from_clause import _generator_columns
from .scope import Scope


_GENERATORS = ("explode", "posexplode", "stack")


def _body(item: exp.Expression) -> exp.Expression:
    return item.this if isinstance(item, (exp.Alias, exp.Aliases)) else item


def _is_generator(item: exp.Expression) -> bool:
    from ..ir.functions import GENERATOR_NAMES

    body = _body(item)
    return isinstance(body, exp.Func) and function_name(body) in GENERATOR_NAMES


def generator_select(an, sel: exp.Select) -> L.Plan | None:
    """The block as an opaque relation, or None when it is not such a block (a generator
    we cannot type raises NotModelled)."""
    if any(v for k, v in sel.args.items() if k != "expressions"):
        return None
    generators = [item for item in sel.expressions if _is_generator(item)]
    if len(generators) != 1:
        return None
    if any(isinstance(n, (exp.Column, exp.Query, exp.Lambda, exp.Star, exp.Window)) or is_aggregate_call(n)
           for item in sel.expressions for n in _body(item).walk()):
        raise NotModelled("a generator's SELECT reading columns or queries")
    columns: list[tuple[str, T.DataType, bool]] = []
    for item in sel.expressions:
        body = _body(item)
        if item is not generators[0]:
            if isinstance(item, exp.Aliases):
                raise NotModelled("multi-alias select item")
            e = _constant(an, body)
            columns.append((item.alias if isinstance(item, exp.Alias) else spark_name(e), e.data_type, e.nullable))
            continue
        name = function_name(body)
        if name not in _GENERATORS or not isinstance(body, exp.Anonymous):
            # any other generator of constants (`inline`, `json_tuple`, the `_outer`
            # ones): the block's schema as the live session gives it
            session = an.catalog.session_relation(f"({sel.sql(dialect=DIALECT)})")
            if session is None:
                raise NotModelled(f"generator {name}() in a select list")
            columns = session
            break
        args = list(body.expressions)
        out = _stack_columns(an, args) if name == "stack" else \
            _generator_columns(an, name, _one(args, name))
        if isinstance(item, exp.Aliases):
            names = [a.name for a in item.expressions]
        elif isinstance(item, exp.Alias):
            names = [item.alias]
        else:
            names = [n for n, _, _ in out]
        if len(names) != len(out):
            raise NotModelled("a generator's aliases that do not name each column")  # Spark's error
        columns.extend((n, t, nullable) for n, (_, t, nullable) in zip(names, out))
    if len({n.lower() for n, _, _ in columns}) != len(columns):
        raise NotModelled("a generator's SELECT with twice a name")
    outputs = tuple(E.Attribute(n, t, nullable, E.new_id()) for n, t, nullable in columns)
    template = sel.copy()
    return L.OpaqueRelation(template, outputs, (), (), template.sql(dialect=DIALECT)[:200])


def _one(args: list, name: str) -> exp.Expression:
    if len(args) != 1:
        raise NotModelled(f"{name}() of {len(args)} arguments")
    return args[0]


def _constant(an, node: exp.Expression) -> E.Expr:
    try:
        e = an.exprs.analyze(node, Ctx(Scope(), clause="SELECT"))
    except AnalysisError:
        raise NotModelled("a generator's SELECT with an item we cannot analyze") from None
    if e.data_type == T.UNKNOWN:
        raise NotModelled("a generator's SELECT with an item of a type we do not know")
    return e


def _stack_columns(an, args: list) -> list[tuple[str, T.DataType, bool]]:
    first = args[0] if args else None
    if not (isinstance(first, exp.Literal) and not first.is_string and first.this.isdigit()
            and int(first.this) > 0 and len(args) > 1):
        raise NotModelled("stack() without a positive row count and values")
    rows = int(first.this)
    values = [_constant(an, a) for a in args[1:]]
    width = math.ceil(len(values) / rows)
    out = []
    for j in range(width):
        types = {v.data_type for v in values[j::width] if v.data_type != T.NULL}
        if len(types) != 1:
            raise NotModelled("stack() column of several types, or of NULLs only")
        out.append((f"col{j}", types.pop(), True))
    return out


def is_generator_item(item: exp.Expression) -> bool:
    """Is a select item a generator call (`explode(xs)`, `posexplode(m) AS (p, k, v)`)?"""
    return _is_generator(item)


def generator_item_columns(an, item: exp.Expression, scope: Scope) -> list[tuple[str, T.DataType]]:
    """The columns a generator in a select list adds, as Spark names and types them, over
    the block's FROM scope: `explode` / `explode_outer` of an array (`col`, its element
    type) or a map (`key`, `value`); `posexplode[_outer]` with `pos INT` first; `inline[_outer]`
    of an array of structs (the struct's fields); `json_tuple(j, f1, ...)` (`c0, c1...`,
    strings); `stack(n, v1, ...)` (`col0, col1...`, each of its values' one type).  An
    alias names the one column, `AS (a, b)` each.  A type sparkfold cannot derive is
    UNKNOWN; names it cannot derive, or aliases that do not match, are not modelled."""
    body = _body(item)
    name = function_name(body)
    args = list(body.expressions) if isinstance(body, exp.Anonymous) else \
        [a for a in (body.args.get("this"), *(body.args.get("expressions") or [])) if a is not None]
    ctx = Ctx(scope, clause="SELECT", allow_aggregates=True)

    def typed(node: exp.Expression) -> T.DataType:
        try:
            return an.exprs.analyze(node, ctx).data_type
        except AnalysisError:
            raise NotModelled(f"generator {name}() over an argument sparkfold cannot analyze") from None

    out: list[tuple[str, T.DataType]]
    if name in ("explode", "explode_outer", "posexplode", "posexplode_outer"):
        t = typed(_one(args, name))
        pos: list[tuple[str, T.DataType]] = [("pos", T.INT)] if name.startswith("pos") else []
        arg = _one(args, name)
        maker = function_name(arg) if isinstance(arg, exp.Func) else ""
        if isinstance(t, T.ArrayType):
            out = pos + [("col", t.element)]
        elif isinstance(t, T.MapType):
            out = pos + [("key", t.key), ("value", t.value)]
        elif t == T.UNKNOWN and maker == "array":
            # `array(struct(...), ...)` (ibis's pivot_longer): an array whatever its
            # elements, which sparkfold may not type; the column is opaque
            out = pos + [("col", T.UNKNOWN)]
        elif t == T.UNKNOWN and maker == "map":
            out = pos + [("key", T.UNKNOWN), ("value", T.UNKNOWN)]
        else:  # (which columns depends on the argument's type)
            raise NotModelled(f"generator {name}() over {t.simple_string()}")
    elif name in ("inline", "inline_outer"):
        t = typed(_one(args, name))
        if not (isinstance(t, T.ArrayType) and isinstance(t.element, T.StructType)):
            raise NotModelled(f"generator {name}() over {t.simple_string()}")
        out = [(f.name, f.data_type) for f in t.element.fields]
    elif name == "json_tuple":
        if len(args) < 2:
            raise NotModelled("json_tuple() without fields")
        out = [(f"c{i}", T.STRING) for i in range(len(args) - 1)]
    elif name == "stack":
        first = args[0] if args else None
        if not (isinstance(first, exp.Literal) and not first.is_string and first.this.isdigit()
                and int(first.this) > 0 and len(args) > 1):
            raise NotModelled("stack() without a positive row count and values")
        values = [typed(a) for a in args[1:]]
        width = math.ceil(len(values) / int(first.this))
        out = []
        for j in range(width):
            types = {v for v in values[j::width] if v != T.NULL}
            out.append((f"col{j}", types.pop() if len(types) == 1 else T.UNKNOWN))
    else:
        raise NotModelled(f"generator {name}() in a select list")
    if isinstance(item, exp.Aliases):
        names = [a.name for a in item.expressions]
    elif isinstance(item, exp.Alias):
        names = [item.alias]
    else:
        names = [n for n, _ in out]
    if len(names) != len(out):
        raise NotModelled("a generator's aliases that do not name each column")  # Spark's error
    return [(n, t) for n, (_, t) in zip(names, out)]
