"""Logical plan -> a PySpark DataFrame program (Python source), and the live DataFrame.

The plan is lowered to Python source text that uses only the public `pyspark.sql` API
(DataFrame, Column, functions), so the same program runs on a classic session and on a
Spark Connect session.  `to_dataframe` executes that very text, so the code users read
(`to_pyspark_code`) is the code that was verified.

Column resolution: every attribute gets one internal column name for the whole program:
its own name when no other attribute of the plan (any case) has it, else `name#id`,
the way Catalyst prints it.  References are then plain unqualified `F.col(...)`s that
cannot be ambiguous; the last step renames the columns to the plan's output names.

Operators map one to one (`filter`, `select`, `groupBy().agg()`, `join`, `union`,
`intersect[All]`, `subtract`/`exceptAll`, `orderBy`, `limit`, `offset`, `distinct`,
`alias`).  Subqueries: an [NOT] EXISTS / [NOT] IN conjunct of a filter becomes a semi /
anti join (NOT IN with Spark's null-aware condition `a = b OR (a = b) IS NULL`), after
pulling simple correlated predicates up into the join condition; any other subquery
uses `DataFrame.exists()` / `.scalar()` / `Column.isin(DataFrame)` with `Column.outer()`
for correlated references.  What has no exact DataFrame form (unmodelled expressions,
DISTINCT or FILTER aggregates, deeply correlated subqueries, opaque relations) goes
through its SQL text from `plans.to_sql` (`F.expr(...)`, `spark.sql(...)`), so nothing
is refused.
"""

from __future__ import annotations

import keyword
import math
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Callable

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir import types as T
from ..ir.dialect import DIALECT, deep_stack
from ..ir.errors import InternalError
from ..ir.tree import fold, transform_down
from ..sql_out.to_sql import ExprWriter, SqlGenerator, literal_sql, plan_to_sql

# Nesting depth of one Python expression before a sub-expression is hoisted into its own
# variable (CPython's parser allows 200 nested parentheses).
_MAX_DEPTH = 40

_JOIN_HOW = {L.INNER: "inner", L.CROSS: "cross", L.LEFT_OUTER: "left", L.RIGHT_OUTER: "right",
             L.FULL_OUTER: "full", L.LEFT_SEMI: "left_semi", L.LEFT_ANTI: "left_anti"}

# Operators a DataFrame with unresolved outer references can pass through on a classic
# session (the others analyze their input eagerly, which fails on an outer reference).
_LAZY_SAFE = (L.Filter, L.Project, L.SubqueryAlias, L.Sort, L.Limit, L.Relation, L.LocalRelation,
              L.OneRowRelation)

# Types createDataFrame takes from plain Python values exactly.
_SIMPLE_TYPES = (T.BOOLEAN, T.BYTE, T.SHORT, T.INT, T.LONG, T.FLOAT, T.DOUBLE, T.STRING, T.BINARY,
                 T.DATE, T.NULL)


@dataclass
class Frame:
    """A DataFrame of the program: the variable holding it and its columns by position."""

    var: str
    names: list[str]                       # column names, unique within the frame
    ids: dict[int, str] = field(default_factory=dict)  # expr id -> column name

    @staticmethod
    def of(var: str, attrs, names: list[str]) -> "Frame":
        ids: dict[int, str] = {}
        for a, n in zip(attrs, names):
            ids.setdefault(a.expr_id, n)
        return Frame(var, list(names), ids)


@dataclass
class Scope:
    """What an expression may refer to: its frame's columns, and (in a correlated
    subquery) the enclosing frame's columns, written with `.outer()`."""

    frame: Frame
    outer: Frame | None = None


# ---------------------------------------------------------------------------
# Small code helpers
# ---------------------------------------------------------------------------

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def py_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") \
        .replace("\r", "\\r").replace("\t", "\\t") + '"'


def quote_ident(name: str) -> str:
    """A column name as Spark parses it in `F.col` / SQL text (backticks when needed)."""
    if _IDENT.match(name):
        return name
    return "`" + name.replace("`", "``") + "`"


def col(name: str) -> str:
    return f"F.col({py_str(quote_ident(name))})"


def py_value(v: Any, imports: set[str]) -> str:
    """A Python literal for a value of a local relation."""
    if v is None or isinstance(v, (bool, int)):
        return repr(v)
    if isinstance(v, float):
        if math.isnan(v):
            return 'float("nan")'
        if math.isinf(v):
            return 'float("inf")' if v > 0 else 'float("-inf")'
        return repr(v)
    if isinstance(v, str):
        return py_str(v)
    if isinstance(v, Decimal):
        imports.add("from decimal import Decimal")
        return f'Decimal("{v}")'
    if isinstance(v, datetime):
        imports.add("import datetime")
        return "datetime." + repr(v)
    if isinstance(v, date):
        imports.add("import datetime")
        return "datetime." + repr(v)
    if isinstance(v, (bytes, bytearray)):
        return f"bytearray({bytes(v)!r})"
    raise InternalError(f"no Python literal for {v!r}")


def _as_type(v: Any, t: T.DataType) -> Any:
    """The Python value createDataFrame accepts for a column of type t."""
    if v is None:
        return v
    if t in (T.DOUBLE, T.FLOAT) and not isinstance(v, float):
        return float(v)
    if isinstance(t, T.DecimalType) and not isinstance(v, Decimal):
        return Decimal(str(v))
    if T.is_integral(t) and not isinstance(v, int):
        return int(v)
    return v


def _py_tuple(items: list[str]) -> str:
    return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"


def ddl(names: list[str], attrs) -> str:
    parts = []
    for n, a in zip(names, attrs):
        t = a.data_type if a.data_type != T.UNKNOWN else T.NULL
        parts.append(f"`{n.replace('`', '``')}` {t.sql()}{'' if a.nullable else ' NOT NULL'}")
    return ", ".join(parts)


# ---------------------------------------------------------------------------
# Internal column names
# ---------------------------------------------------------------------------


def _all_attributes(plan: L.Plan):
    """Every attribute a plan (subqueries included) produces or references."""
    stack = [plan]
    seen: set[int] = set()
    while stack:
        p = stack.pop()
        if id(p) in seen:
            continue
        seen.add(id(p))
        yield from p.output
        for e in p.expressions:
            for n in e.walk():
                if isinstance(n, E.Attribute):
                    yield n
                elif isinstance(n, E.Alias):
                    yield n.to_attribute()
                elif isinstance(n, E.SubqueryExpr):
                    stack.append(n.plan)
        stack.extend(p.children)


class Names:
    """Internal column names: an attribute's own name when unique in the plan (Spark
    resolves names case-insensitively), else `name#id`; fresh names never collide."""

    def __init__(self, plan: L.Plan):
        ids_by_name: dict[str, set[int]] = {}
        for a in _all_attributes(plan):
            ids_by_name.setdefault(a.name.lower(), set()).add(a.expr_id)
        self.by_id: dict[int, str] = {}
        self.taken: set[str] = set(ids_by_name)
        self._ids_by_name = ids_by_name

    def of(self, a: E.Attribute) -> str:
        n = self.by_id.get(a.expr_id)
        if n is None:
            ids = self._ids_by_name.get(a.name.lower(), set())
            n = a.name if ids == {a.expr_id} and a.name else self.fresh(f"{a.name}#{a.expr_id}")
            self.by_id[a.expr_id] = n
            self.taken.add(n.lower())
        return n

    def fresh(self, base: str) -> str:
        name, k = base, 1
        while name.lower() in self.taken:
            k += 1
            name = f"{base}_{k}"
        self.taken.add(name.lower())
        return name


# ---------------------------------------------------------------------------
# The lowering
# ---------------------------------------------------------------------------


class Lowering:
    def __init__(self, plan: L.Plan, spark_var: str = "spark"):
        self.plan = plan
        self.spark = spark_var
        self.names = Names(plan)
        self.lines: list[str] = []
        self.imports: set[str] = set()
        self.vars: set[str] = {"F", "spark", spark_var, "result", "Decimal", "datetime"}
        self.n_expr = 0

    # -- program ---------------------------------------------------------------
    def emit(self, code: str, base: str = "df") -> str:
        var = self.fresh_var(base)
        self.lines.append(f"{var} = {code}")
        return var

    def fresh_var(self, base: str) -> str:
        base = re.sub(r"\W", "_", base).strip("_").lower() or "df"
        if base[0].isdigit() or keyword.iskeyword(base):
            base = "df_" + base
        if base == "df":
            k = 1
            while f"df{k}" in self.vars:
                k += 1
            name = f"df{k}"
        else:
            name, k = base, 1
            while name in self.vars:
                k += 1
                name = f"{base}_{k}"
        self.vars.add(name)
        return name

    def chain(self, frame: Frame, suffix: str) -> Frame:
        """Append a short method call to the statement that defined the frame when that
        statement is the last one (nothing used the variable yet), else a new step."""
        head = f"{frame.var} = "
        if self.lines and self.lines[-1].startswith(head) and len(self.lines[-1]) + len(suffix) < 100:
            self.lines[-1] += suffix
            return Frame(frame.var, frame.names, frame.ids)
        return Frame(self.emit(frame.var + suffix), frame.names, frame.ids)

    def frame(self, code: str, attrs, names: list[str], base: str = "df") -> Frame:
        return Frame.of(self.emit(code, base), attrs, names)

    def column_names(self, attrs) -> list[str]:
        """Names for a new frame's columns: per attribute, repeated ids get fresh names."""
        out, used = [], set()
        for a in attrs:
            n = self.names.of(a)
            if n.lower() in used:
                n = self.names.fresh(n)
            used.add(n.lower())
            out.append(n)
        return out

    def program(self, result_var: str = "result", header: str = "") -> str:
        top = self.lower(self.plan, None)
        out_names = [a.name for a in self.plan.output]
        if top.names == out_names or top.names == ["*"]:
            self.lines.append(f"{result_var} = {top.var}")
        else:
            items = [col(n) if n == o else f"{col(n)}.alias({py_str(o)})"
                     for n, o in zip(top.names, out_names)]
            self.lines.append(f"{result_var} = {top.var}.select({', '.join(items)})")
        head = [header] if header else []
        imports = ["from pyspark.sql import functions as F"] + sorted(self.imports)
        return "\n".join(head + imports + [""] + self.lines) + "\n"

    # -- plans -----------------------------------------------------------------
    def lower(self, p: L.Plan, outer: Frame | None) -> Frame:
        lower = _LOWERINGS.get(type(p))
        if lower is None:
            return self.via_sql(p)
        return lower(self, p, outer)

    def via_sql(self, p: L.Plan) -> Frame:
        """Any (uncorrelated) subtree through its SQL text; columns renamed by position."""
        text = plan_to_sql(p)
        if any(a.name == "*" for a in p.output):  # a schema only Spark knows (PIVOT...)
            return Frame(self.emit(f"{self.spark}.sql({py_str(text)})"), ["*"], {})
        names = self.column_names(p.output)
        code = f"{self.spark}.sql({py_str(text)}).toDF({', '.join(py_str(n) for n in names)})"
        return self.frame(code, p.output, names)

    def _Relation(self, p: L.Relation, outer) -> Frame:
        names = self.column_names(p.output)
        table = ".".join(quote_ident(part) for part in p.table.split("."))
        code = f"{self.spark}.table({py_str(table)})"
        if names != [a.name for a in p.output]:
            items = [col(a.name) if a.name == n else f"{col(a.name)}.alias({py_str(n)})"
                     for a, n in zip(p.output, names)]
            code += f".select({', '.join(items)})"
        return self.frame(code, p.output, names, p.table.split(".")[-1])

    def _LocalRelation(self, p: L.LocalRelation, outer) -> Frame:
        names = self.column_names(p.output)
        if p.rows and not all(a.data_type in _SIMPLE_TYPES or isinstance(a.data_type, T.DecimalType)
                              for a in p.output):
            return self.via_sql(p)
        types = [a.data_type for a in p.output]
        rows = ", ".join(_py_tuple([py_value(_as_type(v, t), self.imports) for v, t in zip(r, types)])
                         for r in p.rows)
        code = f"{self.spark}.createDataFrame([{rows}], {py_str(ddl(names, p.output))})"
        return self.frame(code, p.output, names, "values" if p.rows else "empty")

    def _OneRowRelation(self, p, outer) -> Frame:
        return self.frame(f"{self.spark}.range(1).select()", [], [], "one_row")

    def _OpaqueRelation(self, p, outer) -> Frame:
        return self.via_sql(p)

    def _SubqueryAlias(self, p: L.SubqueryAlias, outer) -> Frame:
        child = self.lower(p.child, outer)
        return self.chain(child, f".alias({py_str(p.alias)})")

    def _Project(self, p: L.Project, outer) -> Frame:
        child = self.lower(p.child, outer)
        scope = Scope(child, outer)
        names = self.column_names(p.output)
        items = []
        for e, n in zip(p.projections, names):
            if isinstance(e, E.Attribute) and child.ids.get(e.expr_id) == n:
                items.append(col(n))
            else:
                body = e.child if isinstance(e, E.Alias) else e
                items.append(f"{self.expr(body, scope, True)}.alias({py_str(n)})")
        return self.frame(f"{child.var}.select({', '.join(items)})", p.output, names)

    def _Filter(self, p: L.Filter, outer) -> Frame:
        child = self.lower(p.child, outer)
        conjuncts = E.split_conjuncts(p.condition)
        joins, rest = [], []
        for c in conjuncts:
            spec = None if _ordered(p.child) else self.subquery_join(c, child, outer)
            (joins if spec is not None else rest).append(spec if spec is not None else c)
        frame = child
        if rest:
            cond = self.expr(E.conjunction(rest), Scope(child, outer))
            frame = Frame(self.emit(f"{child.var}.filter({cond})"), child.names, child.ids)
        for make in joins:
            frame = make(frame)
        return frame

    def _Aggregate(self, p: L.Aggregate, outer) -> Frame:
        child = self.lower(p.child, outer)
        scope = Scope(child, outer)
        names = self.column_names(p.output)
        grouping: list[E.Expr] = []
        for g in p.grouping:
            if g not in grouping:
                grouping.append(g)
        gcode, gnames = [], []
        for g in grouping:
            if isinstance(g, E.Attribute) and g.expr_id in child.ids:
                n = child.ids[g.expr_id]
                gcode.append(col(n))
            else:
                n = self.names.fresh("_group")
                gcode.append(f"{self.expr(g, scope, True)}.alias({py_str(n)})")
            gnames.append(n)
        grouped_ids = {g.expr_id: n for g, n in zip(grouping, gnames) if isinstance(g, E.Attribute)}
        aggs, agg_names = [], []
        out_names = []
        for e, n in zip(p.aggregates, names):
            if isinstance(e, E.Attribute) and grouped_ids.get(e.expr_id) == n:
                out_names.append(n)  # the grouping column groupBy keeps
                continue
            body = e.child if isinstance(e, E.Alias) else e
            aggs.append(f"{self.expr(body, scope, True)}.alias({py_str(n)})")
            agg_names.append(n)
            out_names.append(n)
        if not aggs:
            dummy = self.names.fresh("_rows")
            aggs.append(f"F.count(F.lit(1)).alias({py_str(dummy)})")
            agg_names.append(dummy)
        if not p.grouping:
            # a correlated global aggregate is written as a select: on a classic session
            # agg() analyzes its input eagerly, which fails on an outer reference
            method = "select" if outer is not None and L.outer_references(p) else "agg"
            code = f"{child.var}.{method}({', '.join(aggs)})"
        else:
            code = f"{child.var}.groupBy({', '.join(gcode)}).agg({', '.join(aggs)})"
        produced = (gnames if p.grouping else []) + agg_names
        if produced != out_names:
            code += f".select({', '.join(col(n) for n in out_names)})"
        return self.frame(code, p.output, out_names)

    def _Sort(self, p: L.Sort, outer) -> Frame:
        child = self.lower(p.child, outer)
        scope = Scope(child, outer)
        orders = ", ".join(self.expr(o, scope) for o in p.orders)
        return self.chain(child, f".orderBy({orders})")

    def _Limit(self, p: L.Limit, outer) -> Frame:
        child = self.lower(p.child, outer)
        return self.chain(child, f".limit({int(p.count)})")

    def _Offset(self, p: L.Offset, outer) -> Frame:
        child = self.lower(p.child, outer)
        return self.chain(child, f".offset({int(p.count)})")

    def _Distinct(self, p: L.Distinct, outer) -> Frame:
        child = self.lower(p.child, outer)
        return self.chain(child, ".distinct()")

    def _Join(self, p: L.Join, outer) -> Frame:
        left = self.lower(p.left, outer)
        right = self.lower(p.right, outer)
        if set(left.names) & set(right.names):
            raise InternalError("join sides share attribute ids; cannot lower unambiguously")
        both = Frame(left.var, left.names + right.names, {**right.ids, **left.ids})
        how = _JOIN_HOW[p.join_type]
        if p.condition is None and p.join_type in (L.INNER, L.CROSS):
            code = f"{left.var}.crossJoin({right.var})"
        else:
            cond = "F.lit(True)" if p.condition is None else self.expr(p.condition, Scope(both, outer))
            code = f"{left.var}.join({right.var}, {cond}, {py_str(how)})"
        if p.join_type in (L.LEFT_SEMI, L.LEFT_ANTI):
            return Frame(self.emit(code), left.names, left.ids)
        return Frame(self.emit(code), both.names, both.ids)

    def _Union(self, p: L.Union, outer) -> Frame:
        frames = [self.lower(c, outer) for c in p.inputs]
        first = frames[0]
        code = first.var + "".join(f".union({f.var})" for f in frames[1:])
        if len(frames) > 50:  # keep each statement short
            var = first.var
            for i in range(1, len(frames), 50):
                var = self.emit(var + "".join(f".union({f.var})" for f in frames[i:i + 50]))
            return Frame.of(var, p.output, first.names)
        return Frame.of(self.emit(code), p.output, first.names)

    def _Intersect(self, p: L.Intersect, outer) -> Frame:
        left, right = self.lower(p.left, outer), self.lower(p.right, outer)
        method = "intersectAll" if p.all else "intersect"
        return Frame.of(self.emit(f"{left.var}.{method}({right.var})"), p.output, left.names)

    def _Except(self, p: L.Except, outer) -> Frame:
        left, right = self.lower(p.left, outer), self.lower(p.right, outer)
        method = "exceptAll" if p.all else "subtract"
        return Frame.of(self.emit(f"{left.var}.{method}({right.var})"), p.output, left.names)

    # -- subqueries as joins -------------------------------------------------------
    def subquery_join(self, c: E.Expr, frame: Frame, outer: Frame | None):
        """For a filter conjunct [NOT] EXISTS / [NOT] IN (subquery): a function making
        the semi / anti join, or None to keep the conjunct as an expression."""
        negated = isinstance(c, E.Not)
        sub = c.child if negated else c
        if not isinstance(sub, (E.Exists, E.InSubquery)):
            return None
        plan = sub.plan
        if negated and L.is_empty_relation(plan):
            # an anti join with an empty side keeps every row, and Spark drops it unevaluated
            # (PropagateEmptyRelation) when it runs the SQL; as a DataFrame join it also trips
            # a Spark bug (`key not found` under a correlated scalar subquery and INTERSECT ALL)
            return lambda left: left
        corr_ids = L.outer_references(plan)
        if not corr_ids <= set(frame.ids):
            return None
        if _nested_reach(plan, set(frame.ids)):
            return None
        if isinstance(sub, E.InSubquery) and (any(v.deep_mask & _SUBQUERY_MASK for v in sub.values)
                                              or len(sub.values) != len(plan.output)):
            return None
        correlated: list[E.Expr] = []
        if corr_ids:
            pulled = _pull_up_correlated(plan, corr_ids)
            if pulled is None:
                return None
            plan, correlated = pulled
        conds: list[E.Expr] = []
        if isinstance(sub, E.InSubquery):
            for v, o in zip(sub.values, plan.output):
                eq = E.EqualTo(v, o)
                # NOT IN is null-aware: a NULL on either side makes the row match
                conds.append(E.Or(eq, E.IsNull(eq)) if negated else eq)
        conds += correlated
        how = "left_anti" if negated else "left_semi"

        def make(left: Frame) -> Frame:
            right = self.lower(plan, None)
            both = Frame(left.var, left.names + right.names, {**right.ids, **left.ids})
            cond = self.expr(E.conjunction(conds), Scope(both, outer)) if conds else "F.lit(True)"
            var = self.emit(f"{left.var}.join({right.var}, {cond}, {py_str(how)})")
            return Frame(var, left.names, left.ids)

        return make

    # -- expressions -------------------------------------------------------------
    def expr(self, e: E.Expr, scope: Scope, receiver: bool = False) -> str:
        """Python code of a Column computing e (sub-expressions nested deeper than
        _MAX_DEPTH are hoisted into variables); parenthesized when it is an operator
        expression and `receiver` (a method is called on it)."""

        def node(x: E.Expr, args: list[tuple[str, bool, int]]) -> tuple[str, bool, int]:
            code, atomic = self._expr_node(x, [(c, a) for c, a, _ in args], scope)
            depth = 1 + max((d for _, _, d in args), default=0)
            if depth > _MAX_DEPTH:
                self.n_expr += 1
                var = self.fresh_var(f"c{self.n_expr}")
                self.lines.append(f"{var} = {code}")
                return var, True, 1
            return code, atomic, depth

        if _too_big(e) and not (scope.outer is not None and e.references & set(scope.outer.ids)):
            # thousands of Column calls are slow (each records its Python call site) and a
            # deep Column tree overflows the JVM's stack: one F.expr of the SQL text instead
            return self.sql_expr(e, scope)
        code, atomic, _ = fold(_balanced(e), node)
        return f"({code})" if receiver and not atomic else code

    def _ref(self, a: E.Attribute, scope: Scope) -> str:
        n = scope.frame.ids.get(a.expr_id)
        if n is not None:
            return col(n)
        if scope.outer is not None and a.expr_id in scope.outer.ids:
            return col(scope.outer.ids[a.expr_id]) + ".outer()"
        raise InternalError(f"no column for {a.name}#{a.expr_id} while lowering to PySpark")

    def _expr_node(self, e: E.Expr, args: list[tuple[str, bool]], scope: Scope) -> tuple[str, bool]:
        """(code, atomic): atomic code needs no parentheses as an operand."""
        a = [c for c, _ in args]
        w = [c if atomic else f"({c})" for c, atomic in args]  # as operands / receivers
        match e:
            case E.Literal(value, dt):
                return _lit(value, dt), True
            case E.Attribute():
                return self._ref(e, scope), True
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
                return f'{w[0]}.{"try_cast" if try_ else "cast"}({py_str(to.sql())})', True
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
            case E.SortOrder(_, asc, nulls_first):
                return f"{w[0]}.{'asc' if asc else 'desc'}_nulls_{'first' if nulls_first else 'last'}()", True
            case E.Exists() | E.ScalarSubquery() | E.InSubquery():
                return self.subquery_expr(e, w, scope), True
            case _:  # Opaque, DISTINCT / FILTER aggregates: through SQL text
                return self.sql_expr(e, scope), True

    def sql_expr(self, e: E.Expr, scope: Scope) -> str:
        refs: dict[int, exp.Expression] = {}
        for frame in (scope.outer, scope.frame):
            if frame is not None:
                for i, n in frame.ids.items():
                    refs[i] = exp.column(n, quoted=True)
        text = ExprWriter(SqlGenerator(), refs)(e).sql(dialect=DIALECT, normalize_functions=False)
        return f"F.expr({py_str(text)})"

    def subquery_expr(self, e: E.SubqueryExpr, args: list[str], scope: Scope) -> str:
        plan = e.plan
        corr = L.outer_references(plan)
        ok = corr <= set(scope.frame.ids) and not _nested_reach(plan, set(scope.frame.ids))
        if ok and corr:
            ok = _lazy_safe(plan, corr)
        if ok and isinstance(e, E.InSubquery) and len(e.values) != 1:
            ok = False
        if not ok:
            return self.sql_expr(e, scope)
        sub = self.lower(plan, scope.frame if corr else None)
        if isinstance(e, E.Exists):
            return f"{sub.var}.exists()"
        if isinstance(e, E.ScalarSubquery):
            return f"{sub.var}.scalar()"
        return f"{args[0]}.isin({sub.var})"

# The lowering of each logical operator (anything else goes through its SQL text).
_LOWERINGS: dict[type, Callable[..., Frame]] = {
    L.Relation: Lowering._Relation,
    L.LocalRelation: Lowering._LocalRelation,
    L.OneRowRelation: Lowering._OneRowRelation,
    L.OpaqueRelation: Lowering._OpaqueRelation,
    L.SubqueryAlias: Lowering._SubqueryAlias,
    L.Project: Lowering._Project,
    L.Filter: Lowering._Filter,
    L.Aggregate: Lowering._Aggregate,
    L.Sort: Lowering._Sort,
    L.Limit: Lowering._Limit,
    L.Offset: Lowering._Offset,
    L.Distinct: Lowering._Distinct,
    L.Join: Lowering._Join,
    L.Union: Lowering._Union,
    L.Intersect: Lowering._Intersect,
    L.Except: Lowering._Except,
}


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


def _plain_literal(e: E.Expr) -> str | None:
    """A right operand written as a plain Python value where F.lit gives the same type
    (int, finite double, string), for readability: `F.col("num") > 5`."""
    if isinstance(e, E.Literal) and e.value is not None:
        v, t = e.value, e.data_type
        if t == T.INT and not isinstance(v, bool):
            return repr(int(v))
        if t == T.DOUBLE and isinstance(v, float) and math.isfinite(v):
            return repr(v)
        if t == T.STRING:
            return py_str(v)
    return None


def _lit(value: Any, dt: T.DataType) -> str:
    """A literal of exactly this type: F.lit where Python's value maps to it, else the
    SQL text `plans.to_sql` writes for it (`5L`, `1.25`, `CAST(NULL AS INT)`...)."""
    if value is None and dt == T.NULL:
        return "F.lit(None)"
    if value is not None:
        if dt == T.BOOLEAN:
            return f"F.lit({bool(value)!r})"
        if dt == T.INT and not isinstance(value, bool):
            return f"F.lit({int(value)!r})"
        if dt == T.STRING:
            return f"F.lit({py_str(value)})"
        if dt == T.DOUBLE and isinstance(value, float):
            if math.isnan(value):
                return 'F.lit(float("nan"))'
            if math.isinf(value):
                return f'F.lit(float("{"inf" if value > 0 else "-inf"}"))'
            return f"F.lit({value!r})"
    text = literal_sql(value, dt).sql(dialect=DIALECT)
    return f"F.expr({py_str(text)})"


def _ordered(p: L.Plan) -> bool:
    """Does p end in a Sort through order-preserving operators only?"""
    while isinstance(p, (L.Project, L.Filter, L.Limit, L.Offset, L.SubqueryAlias)):
        p = p.child
    return isinstance(p, L.Sort)


def _nested_reach(plan: L.Plan, ids: set[int]) -> bool:
    """Does a subquery nested inside `plan` reference one of `ids` (two levels out)?"""
    for n in plan.walk():
        for e in n.expressions:
            for s in L.subquery_plans(e):
                if L.outer_references(s.plan) & ids:
                    return True
    return False


def _lazy_safe(plan: L.Plan, corr: frozenset[int]) -> bool:
    """Can a correlated subquery plan be built with the DataFrame API on a classic
    session?  Every operator above an outer reference must be lazy (see _LAZY_SAFE),
    a global aggregate must compute an aggregate (it is written as a select), and
    expressions with outer references must not need SQL text (F.expr cannot say outer)."""
    for n in plan.walk():
        refs = L.outer_references(n) & corr
        if not refs:
            continue
        if isinstance(n, L.Aggregate):
            if n.grouping or not any(E.contains_aggregate(a) for a in n.aggregates):
                return False
        elif not isinstance(n, _LAZY_SAFE):
            return False
        for e in n.expressions:
            if e.references & refs and _needs_sql(e):
                return False
    return True


def _needs_sql(e: E.Expr) -> bool:
    for n in e.walk():
        if isinstance(n, (E.Opaque, E.SubqueryExpr)):
            return True
        if isinstance(n, E.Agg) and (n.filter is not None or (n.distinct and n.name != "count")):
            return True
    return False


def _pull_up_correlated(plan: L.Plan, corr: frozenset[int]):
    """Split `[Project | SubqueryAlias]* Filter(cond, X)` with X uncorrelated into the plan
    without cond's correlated conjuncts (projections extended to pass through the columns
    they use) and those conjuncts; None when the plan has another shape."""
    chain = []
    p = plan
    while isinstance(p, (L.Project, L.SubqueryAlias)):
        chain.append(p)
        p = p.child
    if not isinstance(p, L.Filter) or L.outer_references(p.child):
        return None
    conjuncts = E.split_conjuncts(p.condition)
    correlated = [c for c in conjuncts if c.references & corr]
    rest = [c for c in conjuncts if not (c.references & corr)]
    if any(c.deep_mask & _SUBQUERY_MASK or not c.deterministic for c in correlated):
        return None
    base_ids = p.child.output_ids
    needed = {i for c in correlated for i in c.references if i in base_ids}
    needed_attrs = [a for a in p.child.output if a.expr_id in needed]
    new: L.Plan = L.Filter(E.conjunction(rest), p.child) if rest else p.child
    for layer in reversed(chain):
        if isinstance(layer, L.Project):
            have = {a.expr_id for a in layer.output}
            extra = []
            for a in needed_attrs:
                if a.expr_id not in have:
                    extra.append(a)
                    have.add(a.expr_id)
            new = L.Project(layer.projections + tuple(extra), new)
        else:
            new = L.SubqueryAlias(layer.alias, new)
    if L.outer_references(new):
        return None
    return new, correlated


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------


def plan_to_pyspark_code(plan: L.Plan, result_var: str = "result", spark_var: str = "spark",
                         header: str = "") -> str:
    """Python source that builds the plan's result as DataFrame `result_var` from a
    SparkSession bound to `spark_var`."""
    return deep_stack(lambda: Lowering(plan, spark_var).program(result_var, header))


def _header(result) -> str:
    lines = ["# sparkfold: the optimized query as PySpark DataFrame calls.",
             "# Needs a SparkSession named `spark`; the result is the DataFrame `result`."]
    for ln in (result.original_sql or "").strip().splitlines():
        lines.append("#   " + ln)
    return "\n".join(lines)


def to_pyspark_code(result, result_var: str = "result", spark_var: str = "spark",
                    header: bool = True) -> str:
    """The optimized plan of an `OptimizeResult` as a Python program (see module doc).
    A query sparkfold passed through (unmodelled) becomes one `spark.sql(...)` call."""
    head = _header(result) if header else ""
    if result.optimized is None:
        body = f"{result_var} = {spark_var}.sql({py_str(result.query_original_sql)})\n"
        return (head + "\n" if head else "") + body
    return plan_to_pyspark_code(result.optimized, result_var, spark_var, head)


def run_code(code: str, spark, result_var: str = "result"):
    """Execute generated code with `spark` bound; returns the DataFrame it builds."""
    namespace: dict[str, Any] = {"spark": spark}
    exec(compile(code, "<sparkfold lowering>", "exec"), namespace)
    return namespace[result_var]


def to_dataframe(result, spark):
    """The optimized plan as a live DataFrame on `spark` (classic or Spark Connect)."""
    return run_code(to_pyspark_code(result, header=False), spark)


def plan_to_dataframe(plan: L.Plan, spark):
    return run_code(plan_to_pyspark_code(plan), spark)
