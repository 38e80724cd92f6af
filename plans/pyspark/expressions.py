"""IR expressions -> PySpark column expressions (`F.` calls), falling back to
`F.expr(<SQL>)` where a function has no DataFrame counterpart.  Each takes the
`Lowering` first."""

from __future__ import annotations

import math

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir import types as T
from ..ir.dialect import DIALECT
from ..ir.errors import InternalError
from ..ir.naming import UnknownName, field_of_column, spark_name
from ..ir.tree import fold, transform_down
from ..sql_out.expressions import _faithful, _names_kept
from ..sql_out.to_sql import ExprWriter, SqlGenerator
from .frames import _MAX_DEPTH, Scope, _lazy_safe, _nested_reach
from .literals import literal_code
from .opaque import opaque_code, operator_code
from .text_reasons import expression_reason
from .values import _lit, _plain_literal, col, py_str

# Nesting depth of one Python expression before a sub-expression is hoisted into its own
# variable (CPython's parser allows 200 nested parentheses).


def lower_expr(low, e: E.Expr, scope: Scope, receiver: bool = False) -> str:
    """Python code of a Column computing e (sub-expressions nested deeper than
    _MAX_DEPTH are hoisted into variables); parenthesized when it is an operator
    expression and `receiver` (a method is called on it)."""

    def node(x: E.Expr, args: list[tuple[str, bool, int]]) -> tuple[str, bool, int]:
        code, atomic = expr_node_code(low, x, [(c, a) for c, a, _ in args], scope)
        depth = 1 + max((d for _, _, d in args), default=0)
        if depth > _MAX_DEPTH:
            low.n_expr += 1
            var = low.fresh_var(f"c{low.n_expr}")
            low.lines.append(f"{var} = {code}")
            return var, True, 1
        return code, atomic, depth

    if _too_big(e) and not (scope.outer is not None and e.references & set(scope.outer.ids)):
        # thousands of Column calls are slow (each records its Python call site) and a
        # deep Column tree overflows the JVM's stack: one F.expr of the SQL text instead
        return sql_expr_code(low, e, scope, "an expression of over 400 nodes")
    code, atomic, _ = fold(_balanced(e), node)
    return f"({code})" if receiver and not atomic else code


def column_code(low, a: E.Attribute, scope: Scope) -> str:
    n = scope.frame.ids.get(a.expr_id)
    if n is not None:
        return col(n)
    if scope.outer is not None and a.expr_id in scope.outer.ids:
        return col(scope.outer.ids[a.expr_id]) + ".outer()"
    raise InternalError(f"no column for {a.name}#{a.expr_id} while lowering to PySpark")


def expr_node_code(low, e: E.Expr, args: list[tuple[str, bool]], scope: Scope) -> tuple[str, bool]:
    """(code, atomic): atomic code needs no parentheses as an operand."""
    a = [c for c, _ in args]
    w = [c if atomic else f"({c})" for c, atomic in args]  # as operands / receivers
    match e:
        case E.Literal(value, dt):
            return literal_expr_code(low, value, dt), True
        case E.Attribute():
            return column_code(low, e, scope), True
        case E.Alias():
            return args[0]
        case E.Not():
            return f"~{w[0]}", False
        case E.IsNull():
            return f"{w[0]}.isNull()", True
        case E.IsNotNull():
            return f"{w[0]}.isNotNull()", True
        case E.Negate():
            return f"-{w[0]}", False
        case E.EqualNullSafe():
            return f"{w[0]}.eqNullSafe({a[1]})", True
        case E.IntegralDivide():
            return f'F.call_function("div", {a[0]}, {a[1]})', True
        case E.And() | E.Or() | E.Comparison() | E.Arithmetic():
            op = _OPERATORS[type(e)]
            right = _plain_literal(e.right) or w[1]
            return f"{w[0]} {op} {right}", False
        case E.Cast(_, to, try_):
            return f'{w[0]}.{"try_cast" if try_ else "cast"}({py_str(to.written())})', True
        case E.If():
            return f'F.call_function("if", {a[0]}, {a[1]}, {a[2]})', True
        case E.CaseWhen(branches, otherwise):
            code = "F"
            for i in range(len(branches)):
                code += f".when({a[2 * i]}, {a[2 * i + 1]})"
            if otherwise is not None:
                code += f".otherwise({a[-1]})"
            return code, True
        case E.Coalesce(_, fname):
            if fname == "coalesce":
                return f"F.coalesce({', '.join(a)})", True
            return f"F.call_function({py_str(fname)}, {', '.join(a)})", True
        case E.In():
            return f"{w[0]}.isin({', '.join(a[1:])})", True
        case E.Func(name):
            return f"F.call_function({py_str(name)}{''.join(', ' + x for x in a)})", True
        case E.Agg(name, fargs, False, None):
            if name in ("count", "sum", "avg", "min", "max") and len(fargs) == 1:
                return f"F.{name}({a[0]})", True
            return f"F.call_function({py_str(name)}{''.join(', ' + x for x in a)})", True
        case E.Agg("count", _, True, None):
            return f"F.count_distinct({', '.join(a)})", True
        case E.Agg(name, fargs, distinct, cond) if (agg := filtered_aggregate(name, distinct, cond, a)) is not None:
            return agg, True
        case E.SortOrder(_, asc, nulls_first):
            return f"{w[0]}.{'asc' if asc else 'desc'}_nulls_{'first' if nulls_first else 'last'}()", True
        case E.Opaque(template) if field_of_column(template):
            # `s.f.g` as getField calls: F.expr("`s`.f") would read s as a table alias
            # when the DataFrame has one named s (a struct column named as its table)
            fields, t = [], template
            while isinstance(t, exp.Dot):
                fields.append(t.name)
                t = t.this
            return w[0] + "".join(f".getField({py_str(f)})" for f in reversed(fields)), True
        case E.Exists() | E.ScalarSubquery() | E.InSubquery():
            return subquery_expr_code(low, e, w, scope), True
        case E.Opaque() if (call := opaque_code(e, w, low.imports)) is not None:
            return call, not operator_code(e.template)
        case _:  # Opaque, DISTINCT / FILTER aggregates: through SQL text
            return sql_expr_code(low, e, scope), True


# Aggregates that skip NULL inputs and give for no input what they give for only NULLs:
# `f(x) FILTER (WHERE c)` is `f(CASE WHEN c THEN x END)` (x evaluated only where c holds,
# as under FILTER).  min / max of distinct values are min / max.
_NULL_SKIPPING = {"count": "count", "sum": "sum", "avg": "avg", "min": "min", "max": "max"}


def filtered_aggregate(name: str, distinct: bool, cond, a: list[str]) -> str | None:
    """An aggregate with DISTINCT or FILTER as DataFrame calls (the API has neither
    clause), or None.  `a`: its arguments' code, then the filter's."""
    if name not in _NULL_SKIPPING or (cond is None and not distinct):
        return None
    args = a[:-1] if cond is not None else list(a)
    if cond is not None:
        args = [f"F.when({a[-1]}, {x})" for x in args] or [f"F.when({a[-1]}, F.lit(1))"]
    if distinct and name in ("count", "sum"):
        fn = "count_distinct" if name == "count" else "sum_distinct"
        return f"F.{fn}({', '.join(args)})" if name == "count" or len(args) == 1 else None
    if distinct and name not in ("min", "max"):
        return None
    return f"F.call_function({py_str(name)}, {', '.join(args)})"


def literal_expr_code(low, value, dt) -> str:
    code = literal_code(value, dt, low.imports)
    if code is None:
        code = _lit(value, dt)
        if code.startswith("F.expr("):
            what = "NULL" if value is None else "NaN or an infinity" if dt in (T.DOUBLE, T.FLOAT) and \
                not math.isfinite(float(value)) else "value"
            low.expr_reasons.append(f"literal: a {dt.sql().split('(')[0]} {what}")
    return code


def sql_expr_code(low, e: E.Expr, scope: Scope, why: str = "") -> str:
    low.expr_reasons.append(expression_reason(e, why))
    return f"F.expr({py_str(_sql_text(e, _refs(scope)))})"


def _refs(scope: Scope) -> dict[int, exp.Expression]:
    refs: dict[int, exp.Expression] = {}
    for frame in (scope.outer, scope.frame):
        if frame is not None:
            for i, n in frame.ids.items():
                refs[i] = exp.column(n, quoted=True)
    return refs


def _sql_text(e: E.Expr, refs) -> str:
    return ExprWriter(SqlGenerator(whole_query=False), refs)(e).sql(dialect=DIALECT, normalize_functions=False)


# the frame name of a column Spark names (never a column name: `\0` and its id)
_UNNAMED = "\0"


def unnamed(a: E.Alias) -> str:
    return f"{_UNNAMED}{a.expr_id}"


def is_unnamed(name: str) -> bool:
    return name.startswith(_UNNAMED)


def named_by_spark(low, a: E.Alias, scope: Scope) -> str:
    """An output column Spark names with a name sparkfold does not know
    (`naming.unnamed_output`): its SQL text as the input wrote it, unaliased, for Spark to
    name (raises UnknownName when it cannot be so written)."""
    refs = _refs(scope)
    if not (_faithful(a.child) and _names_kept(a.child, refs) and spark_name(a.child) == a.name):
        raise UnknownName(a.name)
    call = _unaliased_call(low, a.child, scope)
    if call is not None:
        return call
    low.expr_reasons.append("a column only Spark can name: " + expression_reason(a.child))
    return f"F.expr({py_str(_sql_text(a.child, refs))})"


def _unaliased_call(low, e: E.Expr, scope: Scope) -> str | None:
    """A call sparkfold does not model (scalar or aggregate) of columns and literals, as
    DataFrame calls left unaliased: `F.call_function` builds the node Spark's parser builds
    for the text, and Spark names both from the resolved expression, so alike (the columns
    keep their names: `_names_kept`).  None when a part would go as SQL text."""
    if not isinstance(e, E.Opaque) or e.kind == "window" or not isinstance(e.template, exp.Func) or \
            not all(isinstance(x, (E.Attribute, E.Literal)) for x in e.args):
        # (a field of a parenthesized column, `(st).z`, is `z` to Spark's SQL and
        # `st.z` as getField: it goes as SQL text)
        return None
    lines, reasons = len(low.lines), len(low.expr_reasons)
    code = lower_expr(low, e, scope)
    if "F.expr(" in code or len(low.expr_reasons) != reasons or len(low.lines) != lines:
        del low.lines[lines:], low.expr_reasons[reasons:]
        return None
    return code


def subquery_expr_code(low, e: E.SubqueryExpr, args: list[str], scope: Scope) -> str:
    plan = e.plan
    corr = L.outer_references(plan)
    kind = type(e).__name__
    why = ""
    if not corr <= set(scope.frame.ids):
        why = f"{kind} reading a query two levels out"
    elif _nested_reach(plan, set(scope.frame.ids)):
        why = f"{kind} whose own subquery reads this query"
    elif corr and not _lazy_safe(plan, corr):
        why = f"correlated {kind} with an outer reference under an operator a classic session analyzes " \
              f"at once (a join, a grouping, SQL text)"
    elif isinstance(e, E.InSubquery) and len(e.values) != 1:
        why = "IN subquery of several values"
    if why:
        return sql_expr_code(low, e, scope, why)
    sub = low.lower(plan, scope.frame if corr else None)
    if isinstance(e, E.Exists):
        return f"{sub.var}.exists()"
    if isinstance(e, E.ScalarSubquery):
        return f"{sub.var}.scalar()"
    return f"{args[0]}.isin({sub.var})"


_SUBQUERY_MASK = E.Exists.bit | E.InSubquery.bit | E.ScalarSubquery.bit


_OPERATORS = {
    E.And: "&", E.Or: "|", E.EqualTo: "==", E.LessThan: "<", E.LessThanOrEqual: "<=",
    E.GreaterThan: ">", E.GreaterThanOrEqual: ">=", E.Add: "+", E.Subtract: "-",
    E.Multiply: "*", E.Divide: "/", E.Remainder: "%",
}


_BIG = 400  # expression nodes


def _too_big(e: E.Expr) -> bool:
    n = 0
    for _ in e.walk():
        n += 1
        if n > _BIG:
            return True
    return False


_CHAIN_MASK = E.And.bit | E.Or.bit


_LONG_CHAIN = 32


def _balanced(e: E.Expr) -> E.Expr:
    """Long AND / OR chains as balanced trees, as Spark's SQL parser builds them: a
    10,000-term chain nested 10,000 deep overflows the JVM's stack when a classic session
    converts the Column.  AND and OR are associative, evaluation order included."""
    if not (e.deep_mask & _CHAIN_MASK):
        return e

    def build(cls, parts):
        while len(parts) > 1:
            parts = [cls(parts[i], parts[i + 1]) if i + 1 < len(parts) else parts[i]
                     for i in range(0, len(parts), 2)]
        return parts[0]

    def fn(x):
        if isinstance(x, (E.And, E.Or)):
            parts = E.split_conjuncts(x) if isinstance(x, E.And) else E.split_disjuncts(x)
            if len(parts) > _LONG_CHAIN:
                return build(type(x), parts)
        return x

    return transform_down(e, fn, opaque=(E.Opaque,))


