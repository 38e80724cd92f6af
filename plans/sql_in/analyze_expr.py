"""sqlglot expressions -> typed expressions, resolved against a scope.

The expression tree mirrors what the user wrote (no implicit casts are inserted), so
generated column names and regenerated SQL stay close to the input.  Constructs the
optimizer does not model become `Opaque` expressions: their column references and
modelled sub-expressions are still analyzed (so renaming works), the rest is kept
as sqlglot text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Callable, Protocol

from sqlglot import exp

from ..ir import expressions as E
from ..ir import functions as F
from ..ir import logical as L
from ..ir import types as T
from ..ir.dialect import ARG_PREFIX, TYPED_LITERAL_PREFIX, function_name
from ..ir.errors import AnalysisError
from .catalog import Catalog
from .scope import Scope


class NotModelled(Exception):
    """Raised for valid SQL the optimizer does not model at all; the query then passes
    through unchanged."""


@dataclass
class Ctx:
    scope: Scope
    # earlier select-list aliases (Spark's lateral column aliases)
    lateral: dict[str, E.Expr] = field(default_factory=dict)
    # select-list outputs that win over FROM columns (HAVING / ORDER BY; see _Column)
    preferred: dict[str, E.Expr] = field(default_factory=dict)
    # ids of the grouping expressions that are FROM columns (HAVING: see _Column)
    grouping: frozenset[int] = frozenset()
    allow_aggregates: bool = False
    allow_windows: bool = False
    in_aggregate: bool = False
    clause: str = "SELECT"


_COMPARISONS = {
    exp.EQ: E.EqualTo, exp.NullSafeEQ: E.EqualNullSafe, exp.LT: E.LessThan,
    exp.LTE: E.LessThanOrEqual, exp.GT: E.GreaterThan, exp.GTE: E.GreaterThanOrEqual,
}
_ARITHMETIC = {exp.Add: E.Add, exp.Sub: E.Subtract, exp.Mul: E.Multiply, exp.Div: E.Divide,
               exp.IntDiv: E.IntegralDivide, exp.Mod: E.Remainder}

_INTERVAL_UNITS = {
    "year": ("ym", 12), "years": ("ym", 12), "month": ("ym", 1), "months": ("ym", 1),
    "week": ("days", 7), "weeks": ("days", 7), "day": ("days", 1), "days": ("days", 1),
    "hour": ("us", 3_600_000_000), "hours": ("us", 3_600_000_000),
    "minute": ("us", 60_000_000), "minutes": ("us", 60_000_000),
    "second": ("us", 1_000_000), "seconds": ("us", 1_000_000),
}

# sqlglot node -> (spark name, how to read its arguments) for modelled scalar functions
_UNARY_FUNCS = (exp.Upper, exp.Lower, exp.Length, exp.Abs, exp.IsNan)


def calls_nondeterministic(node: exp.Expression) -> bool:
    return any(function_name(f) in F.NONDETERMINISTIC_NAMES for f in node.find_all(exp.Func))


def _position(sql: str, node: exp.Expression) -> str:
    target = node.this if isinstance(node, exp.Column) and isinstance(node.this, exp.Expression) else node
    meta = target.meta or {}
    if "line" in meta and "col" in meta:
        col = meta["col"]
        start, end = meta.get("start"), meta.get("end")
        if start is not None and end is not None:
            col = max(1, col - (end - start))
        return f" (line {meta['line']}, column {col})"
    return ""


# Conditions Spark accepts of a non-boolean type by casting it (checked on Spark 4.3):
# NOT / AND / OR a STRING, HAVING anything but a datetime.  Not modelled: passed through.
_CAST_TO_BOOLEAN = {"NOT": (T.STRING,), "AND": (T.STRING,), "OR": (T.STRING,)}


def require_boolean(e: E.Expr, where: str, allow_void: bool = False) -> E.Expr:
    """Spark's type check of a condition: WHERE / ON / CASE WHEN / IF need a BOOLEAN (an
    untyped NULL fails in WHERE / ON / CASE WHEN); NOT / AND / OR / IF / HAVING coerce an
    untyped NULL."""
    t = e.data_type
    if t == T.BOOLEAN or t == T.UNKNOWN or (allow_void and t == T.NULL):
        return e
    if t in _CAST_TO_BOOLEAN.get(where, ()) or (where == "HAVING" and t not in (T.DATE, T.TIMESTAMP,
                                                                                T.TIMESTAMP_NTZ)):
        raise NotModelled(f"{where} over a condition of type {t.simple_string().upper()} (Spark casts it "
                          f"to BOOLEAN): {_expr_name(e)}")
    raise AnalysisError(f"{where} needs a BOOLEAN condition, not {t.simple_string().upper()}: "
                        f"{_expr_name(e)}")


class QueryAnalyzer(Protocol):
    """What expression analysis needs of the query analyzer (`analyzer.Analyzer`): the
    SQL text, the catalog's ANSI mode, and the plans of subqueries in expressions."""

    sql: str
    catalog: Catalog

    def subquery(self, node: exp.Expression, ctx: Ctx) -> L.Plan: ...


class ExprAnalyzer:
    def __init__(self, analyzer: QueryAnalyzer):
        self.analyzer = analyzer
        self.sql = analyzer.sql
        self.ansi = analyzer.catalog.ansi

    # ------------------------------------------------------------------
    def analyze(self, node: exp.Expression, ctx: Ctx) -> E.Expr:
        while isinstance(node, exp.Paren):
            # parentheses are only grouping: an opaque made here would carry them (and
            # the qualifiers inside) into the column name, `(- (round(t1.b, -1)))`
            # where Spark says `(- round(b, -1))`
            node = node.this
        analyze = _ANALYZERS.get(type(node))
        if analyze is not None:
            out = analyze(self, node, ctx)
            if out is not None:
                return self._checked(out, node, ctx)
        return self._fallback(node, ctx)

    def _checked(self, e: E.Expr, node, ctx) -> E.Expr:
        """Where Spark's type coercion for known input types is not modelled, Spark may
        reject the query; rules must not be able to drop such an expression and make
        the query valid, so the whole query passes through.  Functions whose result
        type we do not know become opaque instead."""
        if isinstance(e, (E.Literal, E.Attribute, E.Opaque, E.SubqueryExpr, E.Alias)):
            return e
        kids = e.children
        if any(k.data_type == T.UNKNOWN for k in kids):
            return e
        if not self.ansi and isinstance(e, (E.Arithmetic, E.Comparison)) and \
                T.STRING in (e.left.data_type, e.right.data_type) and e.left.data_type != e.right.data_type:
            # without ANSI, Spark coerces strings next to numbers differently (to double)
            raise NotModelled("string coercion outside ANSI mode")
        if isinstance(e, E.Func) and e.data_type == T.UNKNOWN:
            return self.opaque(node, ctx)
        if isinstance(e, E.Comparison) and e.compare_type is None:
            raise NotModelled(f"comparison of {e.left.data_type} with {e.right.data_type}")
        if isinstance(e, E.In) and T.wider_type_of(k.data_type for k in kids) is None and \
                T.comparison_type(e.value.data_type, kids[1].data_type) is None:
            raise NotModelled("IN list of mixed types")
        if e.data_type == T.UNKNOWN:
            raise NotModelled(f"the type of {type(e).__name__} over "
                              f"{', '.join(k.data_type.simple_string() for k in kids)}")
        return e

    def _fallback(self, node, ctx):
        if isinstance(node, exp.Func) or isinstance(node, exp.Binary) or isinstance(node, exp.Unary):
            return self._function_or_opaque(node, ctx)
        if isinstance(node, (exp.Condition, exp.Interval)):
            return self.opaque(node, ctx)
        raise NotModelled(f"expression {type(node).__name__}")

    # -- leaves --------------------------------------------------------------
    def _Paren(self, node, ctx):
        return self.analyze(node.this, ctx)

    def _Column(self, node: exp.Column, ctx: Ctx) -> E.Expr:
        parts = tuple(p.name for p in node.parts)
        display = ".".join(parts)
        if isinstance(node.this, exp.Star):
            if isinstance(node.parent, (exp.Func, exp.Distinct)):
                # count(t.*), struct(t.*): Spark expands the star into the arguments
                raise NotModelled(f"`{display}` as a function argument")
            raise AnalysisError(f"`{display}` is not allowed here")
        if len(parts) == 1:
            key = parts[0].lower()
            if key in ctx.preferred and not self._from_column_first(parts, ctx, node):
                return ctx.preferred[key]
        try:
            found, rest, _depth = ctx.scope.resolve(parts, display, _position(self.sql, node))
        except AnalysisError:
            if len(parts) == 1 and parts[0].lower() in ctx.lateral:
                return ctx.lateral[parts[0].lower()]
            raise
        if rest:
            return self._field_access(found, rest, node)
        return found

    def _from_column_first(self, parts: tuple, ctx: Ctx, node) -> bool:
        """Does a name that is also a select-list alias mean the FROM column?  In ORDER BY
        the alias wins.  In HAVING (checked on Spark 4.3) the FROM column wins inside an
        aggregate function's arguments, and outside them when the column is itself a
        grouping expression: `SELECT sum(a) AS b ... GROUP BY b HAVING b > 10` filters on
        t.b; with GROUP BY c (or b + 1), b is the alias; `HAVING max(b) > 10` is t.b."""
        if ctx.clause != "HAVING":
            return False
        try:
            found, rest, _depth = ctx.scope.resolve(parts, parts[0], _position(self.sql, node))
        except AnalysisError:
            return False
        if rest or not isinstance(found, E.Attribute):
            return False
        return ctx.in_aggregate or found.expr_id in ctx.grouping

    def _field_access(self, base: E.Expr, fields: list[str], node) -> E.Expr:
        t = base.data_type
        for f in fields:
            if isinstance(t, T.StructType):
                match = [x for x in t.fields if x.name.lower() == f.lower()]
                t = match[0].data_type if match else T.UNKNOWN
            else:
                t = T.UNKNOWN
        template: exp.Expression = exp.column(ARG_PREFIX + "0")
        for f in fields:
            template = exp.Dot(this=template, expression=exp.to_identifier(f))
        name = ".".join([_expr_name(base)] + fields)
        return E.Opaque(template, (base,), t, "scalar", name)

    def _Null(self, node, ctx):
        return E.Literal(None, T.NULL)

    def _Boolean(self, node, ctx):
        return E.TRUE if node.this else E.FALSE

    def _Literal(self, node: exp.Literal, ctx):
        if node.is_string:
            return E.Literal(node.this, T.STRING)
        return number_literal(node.this)

    def _HexString(self, node, ctx):
        try:
            return E.Literal(bytes.fromhex(node.this), T.BINARY)
        except ValueError:
            return self.opaque(node, ctx)

    def _Neg(self, node: exp.Neg, ctx):
        inner = node.this
        if isinstance(inner, exp.Literal) and not inner.is_string:
            return number_literal("-" + inner.this)
        if isinstance(inner, exp.Anonymous) and str(inner.this).lower().startswith(TYPED_LITERAL_PREFIX):
            lit = self._typed_literal(inner, negate=True)
            if lit is not None:
                return lit
        return E.Negate(self.analyze(inner, ctx))

    def _Interval(self, node: exp.Interval, ctx):
        unit = node.args.get("unit")
        value = node.this
        unit_name = unit.name.lower() if isinstance(unit, exp.Expression) else ""
        if isinstance(value, exp.Literal) and unit_name in _INTERVAL_UNITS:
            try:
                n = int(str(value.this).strip())
            except ValueError:
                return self.opaque(node, ctx)
            kind, factor = _INTERVAL_UNITS[unit_name]
            unit = unit_name.rstrip("s")
            if unit == "week":
                return E.Literal((0, n * 7, 0), T.DAY_INTERVAL)
            t = {"year": T.YEAR_INTERVAL, "month": T.MONTH_INTERVAL, "day": T.DAY_INTERVAL,
                 "hour": T.HOUR_INTERVAL, "minute": T.MINUTE_INTERVAL, "second": T.SECOND_INTERVAL}[unit]
            if kind == "ym":
                return E.Literal((n * factor, 0, 0), t)
            if kind == "days":
                return E.Literal((0, n * factor, 0), t)
            return E.Literal((0, 0, n * factor), t)
        return self.opaque(node, ctx)

    def _Placeholder(self, node, ctx):
        # a parameter marker (`?` or `:name`): its value is only known to Spark
        return E.Opaque(node.copy(), (), T.UNKNOWN, "scalar", node.sql())

    def _Parameter(self, node, ctx):
        return E.Opaque(node.copy(), (), T.UNKNOWN, "scalar", node.sql())

    # -- operators ---------------------------------------------------------------
    def _binary(self, node, ctx, cls):
        return cls(self.analyze(node.this, ctx), self.analyze(node.expression, ctx))

    def _ordering(self, node, ctx, cls):
        return integral_decimal_literal(self._binary(node, ctx, cls))

    def _EQ(self, node, ctx):
        return self._binary(node, ctx, E.EqualTo)

    def _NullSafeEQ(self, node, ctx):
        return self._binary(node, ctx, E.EqualNullSafe)

    def _NullSafeNEQ(self, node, ctx):
        return E.Not(self._binary(node, ctx, E.EqualNullSafe))

    def _NEQ(self, node, ctx):
        return E.Not(self._binary(node, ctx, E.EqualTo))

    def _LT(self, node, ctx):
        return self._ordering(node, ctx, E.LessThan)

    def _LTE(self, node, ctx):
        return self._ordering(node, ctx, E.LessThanOrEqual)

    def _GT(self, node, ctx):
        return self._ordering(node, ctx, E.GreaterThan)

    def _GTE(self, node, ctx):
        return self._ordering(node, ctx, E.GreaterThanOrEqual)

    def _And(self, node, ctx):
        return self._chain(node, ctx, exp.And, E.And)

    def _Or(self, node, ctx):
        return self._chain(node, ctx, exp.Or, E.Or)

    def _chain(self, node, ctx, ast_cls, cls):
        # left-deep chains (a OR b OR c ...) are analyzed without recursing per link
        spine = []
        cur = node
        while isinstance(cur, ast_cls):
            spine.append(cur)
            cur = cur.this
        word = "AND" if cls is E.And else "OR"
        result = require_boolean(self.analyze(cur, ctx), word, allow_void=True)
        for link in reversed(spine):
            right = require_boolean(self.analyze(link.expression, ctx), word, allow_void=True)
            result = cls(result, right)
        return result

    def _Add(self, node, ctx):
        return self._binary(node, ctx, E.Add)

    def _Sub(self, node, ctx):
        return self._binary(node, ctx, E.Subtract)

    def _Mul(self, node, ctx):
        return self._binary(node, ctx, E.Multiply)

    def _Div(self, node, ctx):
        return self._binary(node, ctx, E.Divide)

    def _IntDiv(self, node, ctx):
        return self._binary(node, ctx, E.IntegralDivide)

    def _Mod(self, node, ctx):
        return self._binary(node, ctx, E.Remainder)

    def _DPipe(self, node, ctx):
        return E.Func("concat", (self.analyze(node.this, ctx), self.analyze(node.expression, ctx)))

    def _Not(self, node: exp.Not, ctx):
        inner = node.this
        # `x IS NOT NULL` (sqlglot: NOT over IS); `NOT (x IS NULL)` is the same predicate
        # but Spark names it `(NOT (x IS NULL))`, so it stays a NOT
        if isinstance(inner, exp.Is) and isinstance(inner.expression, exp.Null):
            return E.IsNotNull(self.analyze(inner.this, ctx))
        return E.Not(require_boolean(self.analyze(node.this, ctx), "NOT", allow_void=True))

    def _Is(self, node: exp.Is, ctx):
        target = node.expression
        if isinstance(target, exp.Null):
            return E.IsNull(self.analyze(node.this, ctx))
        if isinstance(target, exp.Boolean):
            return E.EqualNullSafe(self.analyze(node.this, ctx), E.TRUE if target.this else E.FALSE)
        return self.opaque(node, ctx)

    def _In(self, node: exp.In, ctx):
        query = node.args.get("query")
        if query is not None:
            values = node.this.expressions if isinstance(node.this, exp.Tuple) else [node.this]
            vals = tuple(self.analyze(v, ctx) for v in values)
            plan = self.analyzer.subquery(query.this if isinstance(query, exp.Subquery) else query, ctx)
            if len(plan.output) != len(vals):
                raise AnalysisError(f"IN subquery returns {len(plan.output)} columns, "
                                    f"expected {len(vals)}")
            return E.InSubquery(vals, plan)
        if node.args.get("unnest") or node.args.get("field"):
            return self.opaque(node, ctx)
        value = self.analyze(node.this, ctx)
        items = tuple(self.analyze(i, ctx) for i in node.expressions)
        if not items:
            raise AnalysisError("IN () needs at least one value")
        return E.In(value, items)

    def _Between(self, node: exp.Between, ctx):
        if node.args.get("symmetric"):
            return self.opaque(node, ctx)
        args = (self.analyze(node.this, ctx), self.analyze(node.args["low"], ctx),
                self.analyze(node.args["high"], ctx))
        return E.Func("between", args)

    def _Like(self, node: exp.Like, ctx):
        if node.args.get("escape") or isinstance(node.expression, (exp.Tuple, exp.Any, exp.All)):
            return self.opaque(node, ctx)
        out = E.Func("like", (self.analyze(node.this, ctx), self.analyze(node.expression, ctx)))
        return E.Not(out) if node.args.get("negate") else out

    def _Case(self, node: exp.Case, ctx):
        operand = node.this
        op = self.analyze(operand, ctx) if operand is not None else None
        branches = []
        for clause in node.args.get("ifs") or []:
            cond = self.analyze(clause.this, ctx)
            if op is not None:
                cond = E.EqualTo(op, cond)
            require_boolean(cond, "CASE WHEN")
            branches.append((cond, self.analyze(clause.args["true"], ctx)))
        default = node.args.get("default")
        otherwise = self.analyze(default, ctx) if default is not None else None
        return E.CaseWhen(tuple(branches), otherwise)

    def _If(self, node: exp.If, ctx):
        false = node.args.get("false")
        if false is None:
            return self.opaque(node, ctx)
        cond = require_boolean(self.analyze(node.this, ctx), "IF", allow_void=True)
        return E.If(cond, self.analyze(node.args["true"], ctx), self.analyze(false, ctx))

    def _Coalesce(self, node: exp.Coalesce, ctx):
        args = [node.this] + list(node.expressions)
        fname = function_name(node)
        if fname not in ("coalesce", "nvl", "ifnull"):
            return self.opaque(node, ctx)
        return E.Coalesce(tuple(self.analyze(a, ctx) for a in args), fname)

    def _TryCast(self, node: exp.TryCast, ctx):
        return self._cast(node, ctx, try_=bool(node.args.get("safe")))

    def _Cast(self, node: exp.Cast, ctx):
        fname = node.meta.get("name") if node.meta else None
        to = _data_type(node.args["to"])
        value = node.this
        if fname is None and isinstance(value, exp.Literal) and value.is_string and to is not None:
            lit = typed_literal(value.this, to)
            if lit is not None:
                return lit
        if fname is not None and str(fname).lower() not in ("cast", "try_cast"):
            # double(x), int(x), ...: a cast Spark does not show in column names
            return self._cast(node, ctx, try_=False, user=False)
        return self._cast(node, ctx, try_=False)

    def _cast(self, node, ctx, try_: bool, user: bool = True):
        if node.args.get("format") or node.args.get("default"):
            return self.opaque(node, ctx)
        to = _data_type(node.args["to"])
        if to is None:
            return self.opaque(node, ctx)
        return E.Cast(self.analyze(node.this, ctx), to, try_, user)

    # -- subqueries ------------------------------------------------------------
    def _Subquery(self, node: exp.Subquery, ctx):
        plan = self.analyzer.subquery(node, ctx)
        if len(plan.output) != 1:
            raise AnalysisError(f"a scalar subquery must return one column, "
                                f"this one returns {len(plan.output)}")
        return E.ScalarSubquery(plan)

    def _Exists(self, node: exp.Exists, ctx):
        return E.Exists(self.analyzer.subquery(node.this, ctx))

    def _Select(self, node, ctx):
        return self._Subquery(exp.Subquery(this=node), ctx)

    # -- functions -------------------------------------------------------------
    def _Anonymous(self, node: exp.Anonymous, ctx):
        name = function_name(node)
        if name.startswith(TYPED_LITERAL_PREFIX):
            lit = self._typed_literal(node)
            if lit is not None:
                return lit
        if name in ("tinyint", "smallint", "bigint", "binary") and len(node.expressions) == 1:
            # bigint(x) is CAST(x AS BIGINT), named like double(x) (sqlglot builds no cast for these)
            cast = exp.Cast(this=node.expressions[0].copy(), to=exp.DataType.build(name.upper()))
            cast.meta["name"] = name
            return self._Cast(cast, ctx)
        return self._function_or_opaque(node, ctx)

    def _typed_literal(self, node: exp.Anonymous, negate: bool = False):
        type_name = function_name(node)[len(TYPED_LITERAL_PREFIX):]
        if len(node.expressions) != 1 or not isinstance(node.expressions[0], exp.Literal):
            return None
        text = ("-" if negate else "") + str(node.expressions[0].this)
        try:
            if type_name in ("bigint", "smallint", "tinyint"):
                t = {"bigint": T.LONG, "smallint": T.SHORT, "tinyint": T.BYTE}[type_name]
                v = int(text)
                lo, hi = T.INTEGRAL_RANGE[t]
                if not lo <= v <= hi:
                    raise AnalysisError(f"literal {text} out of range for {t.simple_string()}")
                return E.Literal(v, t)
            if type_name == "double":
                return E.Literal(float(text), T.DOUBLE)
            if type_name == "float":
                import struct

                v = struct.unpack("f", struct.pack("f", float(text)))[0]
                return E.Literal(v, T.FLOAT)
            if type_name == "decimal":
                d = Decimal(text)
                _, digits, exponent = d.as_tuple()
                scale = max(-exponent, 0)
                precision = max(len(digits), scale, 1)
                if precision > T.MAX_PRECISION:
                    return None
                if d == 0:
                    d = abs(d)  # Spark's decimals have no negative zero: -0.0 is 0.0
                return E.Literal(d, T.DecimalType(precision, scale))
        except (ValueError, InvalidOperation, OverflowError):
            return None
        return None

    def _Window(self, node, ctx):
        if not ctx.allow_windows:
            raise AnalysisError(f"window functions are not allowed in {ctx.clause}")
        fn = node.this
        name = function_name(fn) if isinstance(fn, exp.Expression) else ""
        out = self.opaque(node, ctx, kind="window", root_is_structure=True)
        from ..ir.naming import window_name

        spark_text = window_name(out.template, out.args) or out.sql_text
        return out.copy(data_type_=self._window_type(name, out, fn, ctx), sql_text=spark_text)

    def _window_type(self, name, opaque: E.Opaque, fn, ctx) -> T.DataType:
        if name in ("row_number", "rank", "dense_rank", "ntile"):
            return T.INT
        if name in ("percent_rank", "cume_dist"):
            return T.DOUBLE
        if name in ("lag", "lead", "first_value", "last_value", "nth_value") and opaque.args:
            # the type of the value argument (the first placeholder in the function)
            t = opaque.args[0].data_type
            if name in ("lag", "lead") and len(opaque.args) > 2 and opaque.args[2].data_type not in (t, T.NULL):
                return T.UNKNOWN  # the default widens the type: not modelled
            return t
        spec = F.AGGREGATE_FUNCTIONS.get(name)
        if spec is not None and isinstance(fn, exp.Func):
            args = [a for a in fn.args.values() if isinstance(a, exp.Expression)]
            if isinstance(fn, exp.Count) or not args:
                return T.LONG if name == "count" else T.UNKNOWN
            n_args = len(args)
            fn_args = opaque.args[:n_args]
            if len(fn_args) == n_args:
                t = spec.result_type(fn_args)
                return t if t is not None else T.UNKNOWN
        return T.UNKNOWN

    def _Filter(self, node: exp.Filter, ctx):
        agg = self.analyze(node.this, ctx)
        where = node.expression
        cond = where.this if isinstance(where, exp.Where) else where
        if calls_nondeterministic(cond):
            raise NotModelled("a non-deterministic aggregate FILTER")  # Spark rejects it
        if isinstance(agg, E.Agg) and agg.filter is None:
            return agg.copy(filter=self.analyze(cond, replace(ctx, allow_aggregates=False)))
        return self.opaque(node, ctx)

    def _function_or_opaque(self, node: exp.Expression, ctx: Ctx) -> E.Expr:
        name = function_name(node)
        if name in F.AGGREGATE_FUNCTIONS or name in F.KNOWN_AGGREGATE_NAMES:
            return self._aggregate(node, name, ctx)
        if name in F.WINDOW_ONLY_NAMES:
            raise AnalysisError(f"{name}() needs an OVER clause")
        if name in F.GENERATOR_NAMES:
            raise NotModelled(f"generator {name}() in an expression")
        if name in ("isnull", "isnotnull"):
            args = _positional_args(node)
            if args is not None and len(args) == 1:
                inner = self.analyze(args[0], ctx)
                return E.IsNull(inner) if name == "isnull" else E.IsNotNull(inner)
        spec = F.SCALAR_FUNCTIONS.get(name)
        if spec is not None:
            args = _positional_args(node)
            if args is not None and len(args) >= spec.min_args and \
                    (spec.max_args is None or len(args) <= spec.max_args):
                return E.Func(name, tuple(self.analyze(a, ctx) for a in args))
        kind = "scalar"
        return self.opaque(node, ctx, kind)

    def _aggregate(self, node, name, ctx) -> E.Expr:
        if not ctx.allow_aggregates and ctx.scope.parent is not None:
            # in a subquery, an aggregate of the outer query's columns (`HAVING EXISTS
            # (... WHERE b < min(emp.salary))`) belongs to the outer aggregate
            raise NotModelled(f"aggregate function {name}() in a subquery's {ctx.clause}")
        if not ctx.allow_aggregates:
            raise AnalysisError(f"aggregate function {name}() is not allowed in {ctx.clause}")
        if ctx.in_aggregate:
            raise AnalysisError(f"aggregate function {name}() inside another aggregate")
        if calls_nondeterministic(node):
            # Spark rejects it (AGGREGATE_FUNCTION_WITH_NONDETERMINISTIC_EXPRESSION); a rule
            # folding the aggregate (count -> count(1), empty input) would hide that error
            raise NotModelled(f"a non-deterministic argument of {name}()")
        inner = replace(ctx, in_aggregate=True, allow_windows=False)
        spec = F.AGGREGATE_FUNCTIONS.get(name)
        args = _positional_args(node)
        distinct = False
        if args is not None and len(args) == 1 and isinstance(args[0], exp.Distinct):
            distinct = True
            args = list(args[0].expressions)
        if name == "count" and args is not None and len(args) == 1 and isinstance(args[0], exp.Star):
            args = [exp.Literal.number(1)]
        if spec is not None and args is not None and len(args) >= spec.min_args and \
                (spec.max_args is None or len(args) <= spec.max_args) and \
                not any(isinstance(a, (exp.Star, exp.Distinct)) for a in args):
            return E.Agg(name, tuple(self.analyze(a, inner) for a in args), distinct)
        out = self.opaque(node, inner, kind="aggregate")
        if name in ("grouping", "grouping_id"):
            out = out.copy(data_type_=T.BYTE if name == "grouping" else T.LONG)
        return out

    # -- opaque ----------------------------------------------------------------
    def opaque(self, node: exp.Expression, ctx: Ctx, kind: str = "scalar",
               root_is_structure: bool = False) -> E.Opaque:
        """Keep `node` as sqlglot text, analyzing its value sub-expressions as args."""
        template = node.copy()
        args: list[E.Expr] = []
        sub_ctx = ctx
        if kind == "aggregate":
            sub_ctx = replace(ctx, in_aggregate=True, allow_windows=False)

        unit = _unit_argument(template)

        def is_value(v) -> bool:
            return isinstance(v, (exp.Condition, exp.Interval, exp.Subquery)) and not \
                isinstance(v, exp.Star) and v is not unit

        def visit(n: exp.Expression, this_is_structure: bool):
            # Replace each value sub-expression by a placeholder column and analyze it;
            # descend into structure (window specs, orderings, type names...).  With
            # `this_is_structure`, n's `this` (a window's function) is descended into.
            for key, value in list(n.args.items()):
                items = value if isinstance(value, list) else [value]
                new_items, changed = [], False
                for v in items:
                    if isinstance(v, exp.Lambda):
                        raise NotModelled("lambda function")
                    if not isinstance(v, exp.Expression):
                        new_items.append(v)
                    elif is_value(v) and not (this_is_structure and key == "this"):
                        args.append(self.analyze(v, sub_ctx))
                        new_items.append(exp.column(f"{ARG_PREFIX}{len(args) - 1}"))
                        changed = True
                    else:
                        visit(v, False)
                        new_items.append(v)
                if changed:
                    n.set(key, new_items if isinstance(value, list) else new_items[0])

        visit(template, root_is_structure)
        name = _opaque_name(node, args)
        data_type = T.UNKNOWN
        return E.Opaque(template, tuple(args), data_type, kind, name)


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


# functions whose first argument may be a datetime unit keyword: timestampadd(DAY, 1, ts)

# The analysis of each sqlglot node class with a model of its own (the others go to
# `ExprAnalyzer._fallback`): a table a reader and a type checker can follow.
_ANALYZERS: dict[type, Callable[..., E.Expr | None]] = {
    exp.Paren: ExprAnalyzer._Paren,
    exp.Column: ExprAnalyzer._Column,
    exp.Null: ExprAnalyzer._Null,
    exp.Boolean: ExprAnalyzer._Boolean,
    exp.Literal: ExprAnalyzer._Literal,
    exp.HexString: ExprAnalyzer._HexString,
    exp.Neg: ExprAnalyzer._Neg,
    exp.Interval: ExprAnalyzer._Interval,
    exp.Placeholder: ExprAnalyzer._Placeholder,
    exp.Parameter: ExprAnalyzer._Parameter,
    exp.EQ: ExprAnalyzer._EQ,
    exp.NullSafeEQ: ExprAnalyzer._NullSafeEQ,
    exp.NullSafeNEQ: ExprAnalyzer._NullSafeNEQ,
    exp.NEQ: ExprAnalyzer._NEQ,
    exp.LT: ExprAnalyzer._LT,
    exp.LTE: ExprAnalyzer._LTE,
    exp.GT: ExprAnalyzer._GT,
    exp.GTE: ExprAnalyzer._GTE,
    exp.And: ExprAnalyzer._And,
    exp.Or: ExprAnalyzer._Or,
    exp.Add: ExprAnalyzer._Add,
    exp.Sub: ExprAnalyzer._Sub,
    exp.Mul: ExprAnalyzer._Mul,
    exp.Div: ExprAnalyzer._Div,
    exp.IntDiv: ExprAnalyzer._IntDiv,
    exp.Mod: ExprAnalyzer._Mod,
    exp.DPipe: ExprAnalyzer._DPipe,
    exp.Not: ExprAnalyzer._Not,
    exp.Is: ExprAnalyzer._Is,
    exp.In: ExprAnalyzer._In,
    exp.Between: ExprAnalyzer._Between,
    exp.Like: ExprAnalyzer._Like,
    exp.Case: ExprAnalyzer._Case,
    exp.If: ExprAnalyzer._If,
    exp.Coalesce: ExprAnalyzer._Coalesce,
    exp.TryCast: ExprAnalyzer._TryCast,
    exp.Cast: ExprAnalyzer._Cast,
    exp.Subquery: ExprAnalyzer._Subquery,
    exp.Exists: ExprAnalyzer._Exists,
    exp.Select: ExprAnalyzer._Select,
    exp.Anonymous: ExprAnalyzer._Anonymous,
    exp.Window: ExprAnalyzer._Window,
    exp.Filter: ExprAnalyzer._Filter,
}


_UNIT_FIRST = frozenset({"timestampadd", "timestampdiff", "dateadd", "datediff", "date_diff", "date_add",
                         "timestamp_add", "timestamp_diff"})
_DATETIME_UNITS = frozenset({"YEAR", "YEARS", "QUARTER", "QUARTERS", "MONTH", "MONTHS", "WEEK", "WEEKS", "DAY",
                             "DAYS", "DAYOFYEAR", "HOUR", "HOURS", "MINUTE", "MINUTES", "SECOND", "SECONDS",
                             "MILLISECOND", "MILLISECONDS", "MICROSECOND", "MICROSECONDS"})


def _unit_argument(node: exp.Expression) -> exp.Expression | None:
    """The unit keyword of a call written as `timestampadd(DAY, 1, ts)` (a structure
    argument, not a column), or None."""
    if isinstance(node, exp.Anonymous) and function_name(node) in _UNIT_FIRST and node.expressions:
        first = node.expressions[0]
        if isinstance(first, (exp.Column, exp.Var)) and not (isinstance(first, exp.Column) and first.table) \
                and first.name.upper() in _DATETIME_UNITS:
            return first
    return None


def _positional_args(node: exp.Expression):
    """Arguments of a function node in Spark's order, or None if it has extra options."""
    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    if isinstance(node, exp.Substring):
        args = [node.this, node.args.get("start")]
        if node.args.get("length") is not None:
            args.append(node.args["length"])
        return None if args[1] is None or node.args.get("zero_start") else args
    if isinstance(node, (exp.Nullif, exp.Nanvl)):
        return [node.this, node.expression]
    if isinstance(node, exp.TsOrDsAdd) and function_name(node) == "date_add" \
            and str(node.args.get("unit") or "DAY").upper() == "DAY":
        # date_add(d, n) (sqlglot's TsOrDsAdd with unit DAY): Spark names it `date_add(d, n)`
        return [node.this, node.expression]
    if isinstance(node, exp.Round):
        if node.args.get("truncate"):
            return None
        return [node.this] + ([node.args["decimals"]] if node.args.get("decimals") is not None else [])
    if isinstance(node, (exp.Greatest, exp.Least)):
        # sqlglot marks Spark's greatest/least as ignoring NULLs, which is what they do
        return [node.this] + list(node.expressions)
    if isinstance(node, exp.Concat):
        return list(node.expressions)
    if isinstance(node, exp.Trim):
        if any(node.args.get(k) for k in ("expression", "position", "collation")):
            return None
        return [node.this]
    if isinstance(node, exp.Count):
        this = node.this
        if this is None:
            return list(node.expressions) or None
        return [this] + list(node.expressions)
    if isinstance(node, exp.Func):
        values = []
        for key in node.arg_types:
            v = node.args.get(key)
            if v is None or v is False:
                continue
            if key in ("this", "expression", "expressions"):
                if isinstance(v, list):
                    values.extend(v)
                else:
                    values.append(v)
            else:
                return None
        return values
    return None


def _data_type(node) -> T.DataType | None:
    if not isinstance(node, exp.DataType):
        return None
    text = node.sql(dialect="spark")
    try:
        return T.parse_type(text)
    except T.TypeParseError:
        return None


_INT_RE = re.compile(r"^-?\d+$")


def number_literal(text: str) -> E.Literal:
    """Spark's type for an unsuffixed numeric literal: int, bigint, decimal, or double
    with an exponent."""
    t = text.strip()
    if _INT_RE.match(t):
        v = int(t)
        if -(2**31) <= v < 2**31:
            return E.Literal(v, T.INT)
        if -(2**63) <= v < 2**63:
            return E.Literal(v, T.LONG)
        d = Decimal(v)
        digits = len(str(abs(v)))
        if digits > T.MAX_PRECISION:
            raise AnalysisError(f"numeric literal {t} is out of range")
        return E.Literal(d, T.DecimalType(digits, 0))
    if "e" in t.lower():
        return E.Literal(float(t), T.DOUBLE)
    d = Decimal(t)
    _, digits, exponent = d.as_tuple()
    scale = max(-exponent, 0)
    precision = max(len(digits), scale, 1)
    if precision > T.MAX_PRECISION:
        return E.Literal(float(t), T.DOUBLE)
    return E.Literal(d, T.DecimalType(precision, scale))


def typed_literal(text: str, to: T.DataType) -> E.Literal | None:
    """DATE 'yyyy-mm-dd' and TIMESTAMP '...' literals; None if not a clean value."""
    s = text.strip()
    try:
        if to == T.DATE:
            return E.Literal(date.fromisoformat(s), T.DATE)
        if to in (T.TIMESTAMP, T.TIMESTAMP_NTZ):
            if re.match(r"^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$", s):
                return E.Literal(datetime.fromisoformat(s), to)
            return None
    except ValueError:
        return None
    return None


def _expr_name(e: E.Expr) -> str:
    from ..ir.naming import spark_name

    return spark_name(e)


# unmodelled operators and Spark's names for them (checked on Spark 4.3)
_OPERATOR_NAMES = {exp.BitwiseAnd: "({} & {})", exp.BitwiseOr: "({} | {})", exp.BitwiseXor: "({} ^ {})",
                   exp.RegexpLike: "RLIKE({}, {})", exp.ILike: "ilike({}, {})"}


def _opaque_name(node: exp.Expression, args) -> str:
    """Best-effort Spark name for an unmodelled expression: `name(arg, ...)` with the
    argument names, or its SQL text."""
    from ..ir.naming import call_name, spark_name

    if _unit_argument(node) is not None:
        # `datediff(DAY, a, b)` is Spark's timestampdiff, `dateadd(DAY, n, d)` its timestampadd
        name = "timestampdiff" if "diff" in function_name(node) else "timestampadd"
        unit = node.expressions[0].name  # as written
        return f"{name}({unit}, {', '.join(spark_name(a) for a in args)})"
    if isinstance(node, exp.Extract) and len(args) == 1 and isinstance(node.this, (exp.Var, exp.Column)):
        return f"extract({node.this.name} FROM {spark_name(args[0])})"
    if isinstance(node, exp.Trim) and 1 <= len(args) <= 2 and not node.args.get("collation"):
        position = str(node.args.get("position") or "BOTH").upper()
        names = [spark_name(a) for a in args]
        if len(args) == 1:
            return {"LEADING": "ltrim", "TRAILING": "rtrim"}.get(position, "trim") + f"({names[0]})"
        return f"TRIM({position} {names[1]} FROM {names[0]})"
    if len(args) == 2 and type(node) in _OPERATOR_NAMES:
        text = _OPERATOR_NAMES[type(node)].format(*(spark_name(a) for a in args))
        return f"(NOT {text})" if node.args.get("negate") else text
    if isinstance(node, (exp.Anonymous, exp.Func)) and not isinstance(node, exp.Window):
        positional = _positional_args(node)
        if positional is not None and len(positional) == len(args):
            return call_name(function_name(node), [spark_name(a) for a in args])
    from ..ir.dialect import DIALECT

    return node.sql(dialect=DIALECT, normalize_functions=False)


_LONG_MIN, _LONG_MAX = -(2 ** 63), 2 ** 63 - 1


def integral_decimal_literal(e: E.Expr) -> E.Expr:
    """Spark's analyzer (DecimalPrecision.integralAndDecimalLiteral) rewrites an ordering
    comparison of an integral expression with a decimal literal to a bigint literal:
    `k <= 1.5` is `k <= 1` (floor), `k < 1.5` is `k < 2` (ceil), `1.5 > k` is `2 > k`,
    and a literal past the bigint range makes the comparison a boolean literal (`TRUE`
    even for a NULL k).  The name, and that NULL case, follow the rewritten form."""
    import math

    left, right = e.left, e.right
    if T.is_integral(left.data_type) and _decimal_value(right) is not None:
        v, lit_left = _decimal_value(right), False
    elif T.is_integral(right.data_type) and _decimal_value(left) is not None:
        v, lit_left = _decimal_value(left), True
    else:
        return e
    # (rounding, literal below the bigint range, above it) with the integral side on the left
    rounding, below, above = {
        E.GreaterThan: (math.floor, True, False), E.GreaterThanOrEqual: (math.ceil, True, False),
        E.LessThan: (math.ceil, False, True), E.LessThanOrEqual: (math.floor, False, True),
    }[type(e)] if not lit_left else {
        E.GreaterThan: (math.ceil, False, True), E.GreaterThanOrEqual: (math.floor, False, True),
        E.LessThan: (math.floor, True, False), E.LessThanOrEqual: (math.ceil, True, False),
    }[type(e)]
    if v < _LONG_MIN:
        return E.TRUE if below else E.FALSE
    if v > _LONG_MAX:
        return E.TRUE if above else E.FALSE
    bound = E.Literal(int(rounding(v)), T.LONG)
    return type(e)(bound, right) if lit_left else type(e)(left, bound)


def _decimal_value(e: E.Expr) -> Decimal | None:
    if isinstance(e, E.Literal) and isinstance(e.data_type, T.DecimalType) and isinstance(e.value, Decimal):
        return e.value
    return None
