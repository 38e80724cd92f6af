"""sqlglot expressions -> typed expressions, resolved against a scope.

The expression tree mirrors what the user wrote (no implicit casts are inserted), so
generated column names and regenerated SQL stay close to the input.  Constructs the
optimizer does not model become `Opaque` expressions: their column references and
modelled sub-expressions are still analyzed (so renaming works), the rest is kept
as sqlglot text.
"""

from __future__ import annotations

from typing import Callable, Protocol

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir import types as T
from .catalog import Catalog
from .coercion import coerce
from .expr_calls import (
    analyze_anonymous,
    analyze_filter,
    analyze_wrapped_call,
    analyze_window,
    function_or_opaque,
    opaque_call,
)
from .expr_context import Ctx, NotModelled
from .stars import expand_star_arguments, has_star_argument
from .expr_leaves import (
    analyze_bare_call,
    analyze_boolean,
    analyze_column,
    analyze_dot,
    analyze_hex_string,
    analyze_interval,
    analyze_literal,
    analyze_neg,
    analyze_null,
    analyze_parameter,
    analyze_paren,
    analyze_placeholder,
)
from .expr_operators import (
    analyze_add,
    analyze_and,
    analyze_between,
    analyze_case,
    analyze_cast,
    analyze_coalesce,
    analyze_div,
    analyze_dpipe,
    analyze_eq,
    analyze_exists,
    analyze_gt,
    analyze_gte,
    analyze_if,
    analyze_in,
    analyze_int_div,
    analyze_is,
    analyze_like,
    analyze_lt,
    analyze_lte,
    analyze_mod,
    analyze_mul,
    analyze_neq,
    analyze_not,
    analyze_null_safe_eq,
    analyze_null_safe_neq,
    analyze_or,
    analyze_select,
    analyze_sub,
    analyze_subquery,
    analyze_try_cast,
)


class QueryAnalyzer(Protocol):
    """What expression analysis needs of the query analyzer (`analyzer.Analyzer`): the
    SQL text, the catalog's ANSI mode, and the plans of subqueries in expressions."""

    sql: str
    catalog: Catalog
    exprs: "ExprAnalyzer"
    unnamed: set[int]
    star_args: list[E.Expr]
    star_field_args: int
    aggregate_hosts: dict[int, list[E.Expr]]

    def subquery(self, node: exp.Expression, ctx: Ctx) -> L.Plan: ...


class ExprAnalyzer:

    def __init__(self, analyzer: QueryAnalyzer):
        self.analyzer = analyzer
        self.sql = analyzer.sql
        self.ansi = analyzer.catalog.ansi
        self.decimal_precision_loss = analyzer.catalog.decimal_precision_loss
        self.concat_binary_as_string = analyzer.catalog.concat_binary_as_string
        # the type the name TIMESTAMP stands for (spark.sql.timestampType)
        self.timestamp = T.TIMESTAMP_NTZ if analyzer.catalog.timestamp_ntz else T.TIMESTAMP
        # called with each node analyzed and what it became, when a caller wants them
        # (`optimizer.findings.SourceMap`)
        self.observer: Callable[[exp.Expression, E.Expr], None] | None = None

    def analyze(self, node: exp.Expression, ctx: Ctx) -> E.Expr:
        out = self._analyze(node, ctx)
        if self.observer is not None:
            self.observer(node, out)
        return out

    def _analyze(self, node: exp.Expression, ctx: Ctx) -> E.Expr:
        while isinstance(node, exp.Paren):
            # parentheses are only grouping: an opaque made here would carry them (and
            # the qualifiers inside) into the column name, `(- (round(t1.b, -1)))`
            # where Spark says `(- round(b, -1))`
            node = node.this
        if isinstance(node, _STAR_HOSTS) and has_star_argument(node):
            # Spark expands the star into the call's arguments (`coalesce(*)`, `x IN (t.*)`)
            node = expand_star_arguments(self, node, ctx)
        analyze = _ANALYZERS.get(type(node))
        if analyze is not None:
            out = analyze(self, node, ctx)
            if out is not None:
                return self.checked(out, node, ctx)
        return self._fallback(node, ctx)

    def checked(self, e: E.Expr, node, ctx) -> E.Expr:
        """Where Spark's type coercion for known input types is not modelled, Spark may
        reject the query; rules must not be able to drop such an expression and make
        the query valid.  An operator over a pair of types whose coercion is not modelled
        (`date - string`, `interval second / int`, a decimal compared with a boolean) and
        a function whose result type we do not know become opaque: kept as written, of
        a type and name sparkfold does not know, never removed by a rewrite (a rewrite
        that would is not kept: optimizer.validate); others pass the query through."""
        if isinstance(e, (E.Literal, E.Attribute, E.Opaque, E.SubqueryExpr, E.Alias)):
            return e
        kids = e.children
        if any(k.data_type == T.UNKNOWN for k in kids):
            return e
        # (an operator's node: opaque where its operands' types are not modelled)
        operator = isinstance(e, _OPAQUE_PAIRS) and isinstance(node, (exp.Binary, exp.Unary))
        try:
            if not self.ansi:
                e = legacy_string_coercion(e)
            e = coerce(e, self.ansi)
        except NotModelled:
            if operator:
                return self.opaque(node, ctx)
            raise
        if isinstance(e, E.Func) and e.data_type == T.UNKNOWN:
            return self.opaque(node, ctx)
        if isinstance(e, E.Comparison) and e.compare_type is None:
            if operator:
                return self.opaque(node, ctx)
            raise NotModelled(f"comparison of {e.left.data_type} with {e.right.data_type}")
        if e.data_type == T.UNKNOWN:
            if operator:
                return self.opaque(node, ctx)  # (`interval year to month + interval month`)
            raise NotModelled(f"the type of {type(e).__name__} over "
                              f"{', '.join(k.data_type.simple_string() for k in kids)}")
        return e

    def _fallback(self, node: exp.Expression, ctx: Ctx) -> E.Expr:
        if isinstance(node, exp.Func) or isinstance(node, exp.Binary) or isinstance(node, exp.Unary):
            out = function_or_opaque(self, node, ctx)
            return coerce(out if self.ansi else legacy_string_coercion(out), self.ansi)
        if isinstance(node, (exp.Condition, exp.Interval)) or (isinstance(node, exp.Tuple) and _a_value(node)):
            return self.opaque(node, ctx)
        raise NotModelled(f"expression {type(node).__name__}")

    def opaque(self, node: exp.Expression, ctx: Ctx, kind: str = "scalar",
               root_is_structure: bool = False) -> E.Opaque:
        """`node` kept as sqlglot text, its value sub-expressions analyzed as args (see
        `expr_calls.opaque_call`)."""
        return opaque_call(self, node, ctx, kind, root_is_structure)


_STAR_HOSTS = (exp.Func, exp.In)
# operators whose operands' types are a pair Spark's coercion of which is not modelled:
# opaque (`ExprAnalyzer.checked`)
_OPAQUE_PAIRS = (E.Arithmetic, E.Negate, E.Comparison)


def _a_value(node: exp.Tuple) -> bool:
    """Is the tuple a value of its own, Spark's struct of its values (named
    `named_struct(...)` after them: a name sparkfold leaves to Spark)?  Not where Spark
    matches a tuple with a subquery's columns (IN, ANY / ALL, a subquery's select item),
    which sparkfold does not model."""
    up = node.parent
    while isinstance(up, (exp.Paren, exp.Alias)):
        up = up.parent
    if isinstance(up, (exp.In, exp.Any, exp.All)):
        return False
    if isinstance(up, exp.Predicate) and any(isinstance(v, (exp.Any, exp.All)) for v in up.args.values()):
        return False
    return not (isinstance(up, exp.Select) and up.parent is not None)


# The analysis of each sqlglot node class with a model of its own (the others go to
# `ExprAnalyzer._fallback`): a table a reader and a type checker can follow.
_ANALYZERS: dict[type, Callable[..., E.Expr | None]] = {
    exp.Paren: analyze_paren,
    exp.Column: analyze_column,
    exp.Dot: analyze_dot,
    exp.Null: analyze_null,
    exp.Boolean: analyze_boolean,
    exp.Literal: analyze_literal,
    exp.HexString: analyze_hex_string,
    exp.Neg: analyze_neg,
    exp.Interval: analyze_interval,
    exp.Placeholder: analyze_placeholder,
    exp.Parameter: analyze_parameter,
    exp.EQ: analyze_eq,
    exp.NullSafeEQ: analyze_null_safe_eq,
    exp.NullSafeNEQ: analyze_null_safe_neq,
    exp.NEQ: analyze_neq,
    exp.LT: analyze_lt,
    exp.LTE: analyze_lte,
    exp.GT: analyze_gt,
    exp.GTE: analyze_gte,
    exp.And: analyze_and,
    exp.Or: analyze_or,
    exp.Add: analyze_add,
    exp.Sub: analyze_sub,
    exp.Mul: analyze_mul,
    exp.Div: analyze_div,
    exp.IntDiv: analyze_int_div,
    exp.Mod: analyze_mod,
    exp.DPipe: analyze_dpipe,
    exp.Not: analyze_not,
    exp.Is: analyze_is,
    exp.In: analyze_in,
    exp.Between: analyze_between,
    exp.Like: analyze_like,
    exp.Case: analyze_case,
    exp.If: analyze_if,
    exp.Coalesce: analyze_coalesce,
    exp.TryCast: analyze_try_cast,
    exp.Cast: analyze_cast,
    exp.Subquery: analyze_subquery,
    exp.Exists: analyze_exists,
    exp.Select: analyze_select,
    exp.Anonymous: analyze_anonymous,
    exp.CurrentUser: analyze_bare_call,
    exp.SessionUser: analyze_bare_call,
    exp.CurrentDate: analyze_bare_call,
    exp.CurrentTimestamp: analyze_bare_call,
    exp.Window: analyze_window,
    exp.Filter: analyze_filter,
    exp.WithinGroup: analyze_wrapped_call,
    exp.IgnoreNulls: analyze_wrapped_call,
    exp.RespectNulls: analyze_wrapped_call,
}


# Outside ANSI mode Spark coerces a string next to another type with its legacy rules
# (TypeCoercion's PromoteStrings and findCommonTypeForBinaryComparison, read off Spark 4
# with spark.sql.ansi.enabled=false): the casts it inserts are made explicit here, as
# casts Spark does not name (`user=False`), so that every rule sees the operand types
# Spark computes with.  A failed cast is NULL there, which the casts' nullability covers.
_LEGACY_COMPARED_AS_OTHER = (T.BYTE, T.SHORT, T.INT, T.LONG, T.FLOAT, T.DOUBLE, T.BOOLEAN, T.DATE,
                             T.TIMESTAMP, T.TIMESTAMP_NTZ, T.BINARY)
# the types a string next to them in IN, CASE, IF and coalesce makes strings
_LEGACY_AS_STRINGS = (T.DATE, T.TIMESTAMP, T.TIMESTAMP_NTZ, *T.DAY_TIME_INTERVALS, *T.YEAR_MONTH_INTERVALS)
_LEGACY_ARITHMETIC = (E.Add, E.Subtract, E.Multiply, E.Divide, E.Remainder)


def _implicit(e: E.Expr, to: T.DataType) -> E.Expr:
    return e if e.data_type == to else E.Cast(e, to, user=False)


def legacy_string_coercion(e: E.Expr) -> E.Expr:
    """e with the casts Spark's legacy (non-ANSI) coercion puts around string operands:
    a string compared with a number, boolean, date or timestamp is cast to that type
    (both sides to double next to a decimal with a fraction); a string in `+ - * / %`, or negated, is a
    double; next to a string, the values of IN, CASE, IF and coalesce are strings; a
    boolean equal (`=`, `<=>`, `!=`) to a number is cast to the number's type.
    Mixes whose coercion is not modelled raise NotModelled."""
    match e:
        case E.Negate(child) if child.data_type == T.STRING:
            return e.with_children([_implicit(child, T.DOUBLE)])
        case E.Comparison(left=left, right=right) if left.data_type != right.data_type \
                and T.STRING in (left.data_type, right.data_type) and T.NULL not in (left.data_type, right.data_type):
            other = right.data_type if left.data_type == T.STRING else left.data_type
            if isinstance(other, T.DecimalType):
                # to the decimal itself when it has no fraction (`9BD = 'NaN'` is NULL),
                # else both to double (`1.5BD = ' 1.5 '`); read off Spark 4.3 by the
                # folding oracle (tests/oracles/folds.py)
                to = other if other.scale == 0 else T.DOUBLE
            elif other in _LEGACY_COMPARED_AS_OTHER:
                to = other
            else:
                raise NotModelled(f"comparison of a string with {other.simple_string()} outside ANSI mode")
            return e.with_children([_implicit(left, to), _implicit(right, to)])
        case E.EqualTo(left=left, right=right) | E.EqualNullSafe(left=left, right=right) \
                if _boolean_and_number(left.data_type, right.data_type):
            # Spark's BooleanEquality.  Next to a literal 1 or 0 (1.0D too: Scala's `==`)
            # the comparison becomes the boolean itself, so that `b = 1` is named `b`,
            # `b <=> 0` `((b IS NOT NULL) AND (NOT b))`; else the boolean is cast to the
            # number's type (true 1, false 0).  Not next to a decimal: the cast may not fit
            # it (decimal(1,1)).
            boolean, number = (left, right) if left.data_type == T.BOOLEAN else (right, left)
            if isinstance(number, E.Literal) and number.value is not None and number.value in (0, 1):
                truth = boolean if number.value == 1 else E.Not(boolean)
                return truth if isinstance(e, E.EqualTo) else E.And(E.IsNotNull(boolean), truth)
            return e.with_children([_implicit(left, number.data_type), _implicit(right, number.data_type)])
        case E.Arithmetic(left=left, right=right) if T.STRING in (left.data_type, right.data_type):
            if not isinstance(e, _LEGACY_ARITHMETIC) or not all(t in (T.STRING, T.NULL) or T.is_numeric(t) or isinstance(t, T.DecimalType)
                       for t in (left.data_type, right.data_type)):
                raise NotModelled(f"{left.data_type.simple_string()} {e.symbol} {right.data_type.simple_string()} "
                                  f"outside ANSI mode")
            return e.with_children([_implicit(k, T.DOUBLE) if k.data_type == T.STRING else k
                                    for k in (left, right)])
        case E.In() | E.If() | E.CaseWhen() | E.Coalesce():
            values = _widened_values(e)
            types = {v.data_type for v in values} - {T.NULL}
            if T.STRING not in types or len(types) == 1:
                return e
            if not all(t == T.STRING or T.is_numeric(t) or isinstance(t, T.DecimalType)
                       or t in _LEGACY_AS_STRINGS for t in types):
                raise NotModelled(f"a string next to {', '.join(sorted(t.simple_string() for t in types))} "
                                  f"outside ANSI mode")
            as_strings = {id(v): _implicit(v, T.STRING) for v in values if v.data_type != T.NULL}
            return e.with_children([as_strings.get(id(k), k) for k in e.children])
        case E.Func() if len({a.data_type for a in e.args} - {T.NULL}) > 1 and \
                T.STRING in {a.data_type for a in e.args} and e.name in _LEGACY_WIDENING_FUNCTIONS:
            raise NotModelled(f"{e.name} of a string and other types outside ANSI mode")
        case _:
            return e


_LEGACY_WIDENING_FUNCTIONS = frozenset({"greatest", "least", "nullif"})


def _boolean_and_number(a: T.DataType, b: T.DataType) -> bool:
    """One side boolean, the other a non-decimal number."""
    return T.BOOLEAN in (a, b) and (a if b == T.BOOLEAN else b) in (T.BYTE, T.SHORT, T.INT, T.LONG, T.FLOAT, T.DOUBLE)


def _widened_values(e: E.Expr) -> list[E.Expr]:
    """The operands Spark widens to one type in e (not CASE's conditions)."""
    match e:
        case E.In(value, items):
            return [value, *items]
        case E.If(_, then, otherwise):
            return [then, otherwise]
        case E.CaseWhen(branches, otherwise):
            return [v for _, v in branches] + ([otherwise] if otherwise is not None else [])
        case _:
            return list(e.children)
