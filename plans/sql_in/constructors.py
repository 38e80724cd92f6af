"""The types of Spark's value constructors, `array(...)`, `struct(...)` and
`named_struct(...)`, which stay opaque calls (their text kept, their arguments analyzed)
but are typed as Spark's analyzer types them, so that what is built of them (a VALUES
column, a recursive CTE's column, `s.*` over such a column) is typed too:

- `array(e1, ...)` (CreateArray): `array<T>` where T is the arguments' type once their
  nullability flags are merged (findCommonTypeDifferentOnlyInNullFlags; a NULL among
  them takes that type), `containsNull` when an argument is nullable; `array()` is
  `array<void>`.  Arguments of other types (which Spark coerces to a wider one) are not
  modelled.
- `named_struct('a', e1, ...)` (CreateNamedStruct): a field per pair, named by the string
  literal, of its value's type and nullability.
- `struct(e1, ...)` (CreateStruct): a field per argument, named as Spark's parser names
  it (`struct(t.a)` `a` as written, `struct(x AS k)` `k`, else `col<i>`: see
  `naming.struct_field_name`), of its type and nullability.

None of them is NULL.  Two fields of one name (in any case) are not modelled.  The
concatenation of arrays (`a || b`, `concat(a, b)`) is typed likewise (`functions`'s concat,
`types.merged_null_flags`).
"""

from __future__ import annotations

from sqlglot import exp

from ..ir import expressions as E
from ..ir import types as T
from ..ir.dialect import ARG_PREFIX

CONSTRUCTORS = frozenset({"array", "struct", "named_struct"})


def constructor_type(name: str, template: exp.Expression, args: tuple[E.Expr, ...]) -> T.DataType | None:
    """The type Spark gives the constructor call `name(...)` whose opaque template is
    `template` (each argument a placeholder for `args[i]`), or None where it is not
    modelled (an unknown type among the arguments, a coercion, a name not written)."""
    if name not in CONSTRUCTORS or not isinstance(template, exp.Anonymous):
        return None
    items = []
    for node in template.expressions:
        alias = None
        if isinstance(node, exp.Alias):
            alias, node = node.alias, node.this
        i = _placeholder(node)
        if i is None or i >= len(args) or T.contains_unknown(args[i].data_type):
            return None
        items.append((alias, node, args[i]))
    if name == "array":
        if any(alias is not None for alias, _, _ in items):
            return None
        typed = [a.data_type for _, _, a in items if a.data_type != T.NULL]
        element = T.merged_null_flags(typed) if typed else T.NULL
        if element is None:
            return None
        return T.ArrayType(element, any(a.nullable for _, _, a in items))
    if name == "named_struct":
        if not items or len(items) % 2 or any(alias is not None for alias, _, _ in items):
            return None
        fields = []
        for (_, _, key), (_, _, value) in zip(items[0::2], items[1::2]):
            if not (isinstance(key, E.Literal) and key.data_type == T.STRING and isinstance(key.value, str)):
                return None
            fields.append(T.StructField(key.value, value.data_type, value.nullable))
        return _struct(fields)
    fields = []
    for alias, node, value in items:
        field = alias if alias is not None else node.meta.get("written_name")
        if not isinstance(field, str):
            return None
        fields.append(T.StructField(field, value.data_type, value.nullable))
    return _struct(fields)


def _struct(fields: list[T.StructField]) -> T.DataType | None:
    if len({f.name.lower() for f in fields}) != len(fields):
        return None
    return T.StructType(tuple(fields))


def _placeholder(node: exp.Expression) -> int | None:
    if isinstance(node, exp.Column) and not node.table and node.name.startswith(ARG_PREFIX):
        rest = node.name[len(ARG_PREFIX):]
        return int(rest) if rest.isdigit() else None
    return None


def is_constructor(e: E.Expr) -> bool:
    """Is e an opaque constructor call typed by `constructor_type`?"""
    return isinstance(e, E.Opaque) and e.not_null and e.kind == "scalar"
