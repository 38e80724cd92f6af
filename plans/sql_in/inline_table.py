"""VALUES: an inline table, as Spark reads it (AstBuilder.visitInlineTable, then
ResolveInlineTables and EvaluateUnresolvedInlineTable), checked on PySpark 4.3 by the
inline table oracle (tests/oracles/inline_tables.py).

- Rows: `VALUES (a, b), ...` or `VALUES a, ...`; a row written as one `struct(...)` is
  that struct's fields, as `(a, b)` is (Spark's parser makes both a struct and takes its
  fields); an alias inside a row is dropped.  Columns are `col1`, `col2`, ... unless the
  table alias names them.  Rows or names of another width: NUM_COLUMNS_MISMATCH.
- A value must be foldable: a non-deterministic call (`rand()`, `uuid()`) is rejected
  (CANNOT_EVALUATE_EXPRESSION_IN_INLINE_TABLE), `current_timestamp()` and the like are not.
- Each column's type is the widening of its values' types by the legacy (non-ANSI)
  `findWiderTypeWithoutStringPromotion`, in both modes: no string promotion (`1` next to
  `'a'` is INCOMPATIBLE_TYPES_IN_INLINE_TABLE), a float next to a bigint stays a float;
  each value is cast to it.  A column is nullable when one of its values is, as an
  expression before that cast (`CAST('1' AS INT)` makes it nullable though its value is
  1; a date next to a TIMESTAMP_NTZ does not, though its cast would be).
- The rows are evaluated when the query is analyzed (before any optimization), so a row
  that raises fails the query whatever reads it (FAILED_SQL_EXPRESSION_EVALUATION, even
  under `WHERE FALSE`); with a `current_timestamp()` among the values, in the optimizer's
  first batch instead.

sparkfold evaluates the rows itself when it models every value (`plans.ir.evaluate`):
the table is then a `LocalRelation` of those values, typed and nullable as Spark types
the columns.  Otherwise it stays as written, an opaque relation with the schema sparkfold
derives (a column of a value it does not type is of type UNKNOWN, and nullable); like
every unmodelled relation, no rewrite may drop it (`optimizer.validate.rejection`), so a
row that raises still fails the query.
"""

from __future__ import annotations

import re
from decimal import Decimal

from sqlglot import exp

from ..ir import evaluate as V
from ..ir import expressions as E
from ..ir import functions as F
from ..ir import logical as L
from ..ir import types as T
from ..ir.dialect import function_name, node_span
from ..ir.errors import AnalysisError
from .constructors import is_constructor
from .expr_context import Ctx, NotModelled, _position, legacy_widening
from .scope import Scope
from .widening import tightest, wider_for_decimal

SHOWN = 200  # characters of an opaque table's text kept for display


def values_relation(an, node: exp.Values) -> tuple[L.Plan, Scope]:
    name, columns, rows_ast = _shape(an, node)
    width = len(rows_ast[0])
    if any(len(r) != width for r in rows_ast) or (columns and len(columns) != width):
        raise AnalysisError(f"[INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH] VALUES rows have {width} values, "
                            f"but a row or the alias list has another number{_position(an.sql, node)}")
    names = columns or [f"col{i + 1}" for i in range(width)]
    rows = [[_value(an, v) for v in r] for r in rows_ast]
    plan = _evaluated(an, names, rows) or _kept(an, names, rows, rows_ast)
    if name:
        plan = L.SubqueryAlias(name, plan)
        return plan, Scope.of((name.lower(),), list(plan.output), name)
    return plan, Scope.of((), list(plan.output))


def _shape(an, node: exp.Values) -> tuple[str, list[str], list[list[exp.Expression]]]:
    """The table alias, its column names, and the rows' values as Spark's parser reads them."""
    alias = node.args.get("alias")
    name = alias.name if alias is not None else ""
    columns = [c.name for c in alias.columns] if alias is not None and alias.columns else []
    rows = [list(r.expressions) if isinstance(r, exp.Tuple) else [r] for r in node.expressions]
    last = rows[-1][-1] if rows and rows[-1] else None
    if isinstance(last, exp.Alias) and not name:
        # `VALUES now(), now() AS t(c)`: sqlglot takes `AS t` for the last value's alias,
        # Spark's grammar (no alias in a row without parentheses) for the table's
        written = _parenthesized(an.sql, node.expressions[-1])
        if written is None:
            raise NotModelled("VALUES whose last value has an alias")
        if not written:
            name = last.alias
            rows[-1][-1] = last.this
    first = node.expressions[0] if node.expressions else None
    if first is not None and _parenthesized(an.sql, first) is False and _alias_like(an.sql, first):
        # `FROM VALUES TRUE, ...`, `FROM VALUES array(NULL), ...`: Spark's grammar reads a
        # table `VALUES` aliased `TRUE`, or `array` with a column `NULL`
        raise NotModelled("VALUES without parentheses whose first value reads as a table alias")
    out = []
    for row in rows:
        if len(row) == 1 and isinstance(row[0], exp.Tuple):
            raise NotModelled("a VALUES row in double parentheses")
        if len(row) == 1 and _is_struct_call(row[0]):
            row = list(row[0].expressions)  # `(struct(a, b))` is the row (a, b)
        out.append([v.this if isinstance(v, exp.Alias) else v for v in row])
    if not out or any(not r for r in out):
        raise NotModelled("an empty VALUES row")
    return name, columns, out


def _is_struct_call(e: exp.Expression) -> bool:
    return isinstance(e, exp.Struct) or (isinstance(e, exp.Func) and function_name(e) == "struct")


def _parenthesized(sql: str, row: exp.Expression) -> bool | None:
    """Was the row written in parentheses?  None: the text does not say."""
    span = node_span(row)
    if span is None or not sql:
        return None
    before = sql[:span[0]].rstrip()
    return before.endswith("(")


_WORD = r"[A-Za-z_][A-Za-z0-9_]*"
# a word, or a word and a list of words in parentheses: what Spark's grammar can read as
# a table alias with column names
_ALIAS_LIKE = re.compile(rf"\s*{_WORD}(\s*\(\s*{_WORD}(\s*,\s*{_WORD})*\s*\))?\s*")


def _alias_like(sql: str, row: exp.Expression) -> bool:
    span = node_span(row)
    return span is not None and _ALIAS_LIKE.fullmatch(sql[span[0]:span[1] + 1]) is not None


def _value(an, v: exp.Expression) -> E.Expr | None:
    """The analyzed value, or None for one sparkfold does not type (left for Spark)."""
    if any(True for _ in v.find_all(exp.Query)):
        raise AnalysisError("[UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.SCALAR_SUBQUERY_IN_VALUES] a subquery "
                            f"in a VALUES row{_position(an.sql, v)}")
    nondeterministic = [function_name(f) for f in v.find_all(exp.Func) if function_name(f) in F.NONDETERMINISTIC_NAMES]
    if nondeterministic:
        raise AnalysisError("[INVALID_INLINE_TABLE.CANNOT_EVALUATE_EXPRESSION_IN_INLINE_TABLE] a VALUES row calls "
                            f"{nondeterministic[0]}(), which is not deterministic{_position(an.sql, v)}")
    try:
        e = an.exprs.analyze(v, Ctx(Scope(), clause="VALUES"))
    except NotModelled:
        return None
    if T.contains_unknown(e.data_type) or not _modelled(e):
        return None
    if _has_year_month_interval(e.data_type):
        return None  # (Spark 4.3 fails such a table: NOT_IMPLEMENTED; left for Spark to say)
    return e


def _modelled(e: E.Expr) -> bool:
    """Deterministic, and nothing unmodelled in it but value constructors (`array(...)`,
    `named_struct(...)`), which sparkfold types as Spark does."""
    for n in e.walk():
        if isinstance(n, E.Opaque):
            if not is_constructor(n):
                return False
        elif not n._self_deterministic():
            return False
    return True


def _has_year_month_interval(t: T.DataType) -> bool:
    return T.contains(t, lambda x: x in T.YEAR_MONTH_INTERVALS)


def column_type(types: list[T.DataType]) -> T.DataType | None:
    """A column's type from its values' (TypeCoercion.findWiderTypeWithoutStringPromotion,
    the legacy system's in both modes); None: Spark rejects the column
    (INCOMPATIBLE_TYPES_IN_INLINE_TABLE).  Arrays, maps and structs only where their
    element types are the same up to NULLs (a void element, nullability): `NotModelled`
    for other widenings of nested types."""
    out: T.DataType = T.NULL
    for t in types:
        wider = _wider(out, t)
        if wider is None:
            return None
        out = wider
    return out


def _wider(a: T.DataType, b: T.DataType) -> T.DataType | None:
    nested = (T.ArrayType, T.MapType, T.StructType)
    if isinstance(a, nested) or isinstance(b, nested):
        if a == T.NULL or b == T.NULL:
            return b if a == T.NULL else a
        return _merged(a, b)
    t = tightest(a, b, False)
    return t if t is not None else wider_for_decimal(a, b)


def _merged(a: T.DataType, b: T.DataType) -> T.DataType | None:
    """Nested types alike but for NULLs: the type holding both (nullability or-ed, a void
    element taking the other's type).  None where Spark rejects (an array next to a map,
    structs with other field names or counts)."""
    if a == b:
        return a
    if a == T.NULL or b == T.NULL:
        return b if a == T.NULL else a
    if isinstance(a, T.ArrayType) and isinstance(b, T.ArrayType):
        element = _merged(a.element, b.element)
        # (`array()`, of void elements, holds no NULL: checked by the constructor oracle)
        return None if element is None else T.ArrayType(element, a.contains_null or b.contains_null)
    if isinstance(a, T.MapType) and isinstance(b, T.MapType):
        if a.key != b.key:
            _differ(a.key, b.key)
            return None
        value = _merged(a.value, b.value)
        return None if value is None else T.MapType(a.key, value, a.value_contains_null or b.value_contains_null
                                                    or T.NULL in (a.value, b.value))
    if isinstance(a, T.StructType) and isinstance(b, T.StructType):
        if len(a.fields) != len(b.fields) or any(x.name.lower() != y.name.lower() for x, y in zip(a.fields, b.fields)):
            return None
        fields = []
        for x, y in zip(a.fields, b.fields):
            if x.name != y.name:
                raise NotModelled("VALUES structs whose field names differ in case")
            t = _merged(x.data_type, y.data_type)
            if t is None:
                return None
            fields.append(T.StructField(x.name, t, x.nullable or y.nullable or T.NULL in (x.data_type, y.data_type)))
        return T.StructType(tuple(fields))
    kinds = (T.ArrayType, T.MapType, T.StructType)
    if any(isinstance(a, k) != isinstance(b, k) for k in kinds) and (isinstance(a, kinds) or isinstance(b, kinds)):
        return None  # an array next to a map, a struct next to a number...
    _differ(a, b)
    return None


def _differ(a: T.DataType, b: T.DataType) -> None:
    raise NotModelled(f"VALUES of nested types that widen {a.simple_string()} and {b.simple_string()}")


def _cast(e: E.Expr, t: T.DataType) -> E.Expr:
    return e if e.data_type == t or T.NULL == t else E.Cast(e, t, False, False)


def _evaluated(an, names: list[str], rows: list[list[E.Expr | None]]) -> L.Plan | None:
    """The table as a LocalRelation, when sparkfold types every value and evaluates every
    row (None otherwise); a row that raises fails the query, as it does in Spark."""
    if any(v is None for r in rows for v in r):
        return None
    types = []
    for i in range(len(names)):
        t = _typed(an, names[i], [r[i].data_type for r in rows])  # type: ignore[union-attr]
        if not _plain(t):
            return None
        types.append(t)
    cast_rows = [[_cast(v, t) for v, t in zip(r, types)] for r in rows]  # type: ignore[arg-type]
    values: list[list] = []
    for r in cast_rows:
        out = []
        for v in r:
            try:
                out.append(V.evaluate(v, an.catalog.ansi))
            except V.CannotEvaluate:
                widened = _widened_literal(v)
                if widened is None:
                    return None
                out.append(widened[0])
            except V.EvaluationError as err:
                if any(_current_like(w) for row in cast_rows for w in row):
                    raise NotModelled("a VALUES row that raises, beside current_timestamp()") from None
                raise AnalysisError(f"[INVALID_INLINE_TABLE.FAILED_SQL_EXPRESSION_EVALUATION] a VALUES row "
                                    f"fails: {err}") from None
        values.append(out)
    attrs = tuple(E.Attribute(n, t, any(r[i].nullable for r in rows), E.new_id())  # type: ignore[union-attr]
                  for i, (n, t) in enumerate(zip(names, types)))
    return L.LocalRelation(attrs, tuple(tuple(r) for r in values))


def _widened_literal(v: E.Expr) -> tuple | None:
    """(value,) of a literal cast to a wider number type, where the evaluator does not
    cast it; None for anything else."""
    if not (isinstance(v, E.Cast) and isinstance(v.child, E.Literal)):
        return None
    lit, t = v.child.value, v.to
    if lit is None or isinstance(lit, bool):
        return None if lit is not None else (None,)
    if isinstance(t, T.DecimalType) and isinstance(lit, (int, Decimal)):
        return (Decimal(lit).quantize(Decimal(1).scaleb(-t.scale)),)
    if t == T.DOUBLE and isinstance(lit, (int, float, Decimal)):
        return (float(lit),)
    if T.is_integral(t) and isinstance(lit, int):
        return (lit,)
    return None


def _plain(t: T.DataType) -> bool:
    """A type whose values a LocalRelation holds (and the writers write as literals)."""
    return not isinstance(t, (T.ArrayType, T.MapType, T.StructType)) and t not in (T.UNKNOWN, T.CALENDAR_INTERVAL)


def _current_like(e: E.Expr) -> bool:
    return any(isinstance(n, E.Func) and n.name.startswith(("current_", "now", "localtimestamp"))
               for n in e.walk())


def _typed(an, name: str, types: list[T.DataType]) -> T.DataType:
    """The column's type, or Spark's rejection.  Outside ANSI mode a string beside another
    type is passed through, as it was before inline tables were modelled (Spark rejects
    it in both modes: tests/test_legacy_mode.py still expects the pass-through)."""
    if not an.catalog.ansi:
        legacy_widening(types, "VALUES column")
    t = column_type(types)
    if t is None:
        raise _incompatible(name)
    return t


def _incompatible(name: str) -> AnalysisError:
    return AnalysisError(f"[INVALID_INLINE_TABLE.INCOMPATIBLE_TYPES_IN_INLINE_TABLE] the values of VALUES column "
                         f"`{name}` have no common type")


def _kept(an, names: list[str], rows: list[list[E.Expr | None]], rows_ast) -> L.Plan:
    """The table as written, an opaque relation with the schema sparkfold derives."""
    attrs = []
    for i, n in enumerate(names):
        column = [v for r in rows if (v := r[i]) is not None]
        if len(column) < len(rows):  # (a value sparkfold does not type)
            attrs.append(E.Attribute(n, T.UNKNOWN, True, E.new_id()))
            continue
        t = _typed(an, n, [v.data_type for v in column])
        attrs.append(E.Attribute(n, t, any(v.nullable for v in column), E.new_id()))
    values = exp.Values(expressions=[exp.Tuple(expressions=[v.copy() for v in r]) for r in rows_ast],
                        alias=exp.TableAlias(this=exp.to_identifier("_values"),
                                             columns=[exp.to_identifier(n, quoted=True) for n in names]))
    template = exp.select(exp.Star()).from_(values)
    return L.OpaqueRelation(template, tuple(attrs), (), (), _shown(an, rows_ast))


def is_inline_table(p: L.OpaqueRelation) -> bool:
    """Is the opaque relation a VALUES table kept as written (`_kept`)?"""
    t = p.template
    return isinstance(t, exp.Select) and not p.inputs and isinstance(t.args.get("from_"), exp.From) \
        and isinstance(t.args["from_"].this, exp.Values)


def _shown(an, rows_ast) -> str:
    """`VALUES ...` as written, for display (SHOWN characters)."""
    first, last = node_span(rows_ast[0][0]), node_span(rows_ast[-1][-1])
    if first is None or last is None or not an.sql:
        return "VALUES ..."
    text = " ".join(an.sql[first[0]:last[1] + 1].split())
    return f"VALUES ({text[:SHOWN]}{'...' if len(text) > SHOWN else ''})"
