"""Operators: comparisons, AND / OR / NOT, arithmetic, IS, IN, BETWEEN, LIKE, CASE,
IF, COALESCE, casts, and subquery expressions.  Each takes the `ExprAnalyzer` first."""

from __future__ import annotations

import re

from sqlglot import exp

from ..ir import expressions as E
from ..ir import types as T
from ..ir.dialect import TYPED_LITERAL, function_name
from ..ir.errors import AnalysisError
from .castable import can_cast
from .data_types import is_bare_timestamp
from .expr_context import NotModelled, require_boolean
from .expr_leaves import _data_type, integral_decimal_literal, outside_bigint, typed_literal
from .parse import IS_UNKNOWN
from .widening import wider


def binary_operator(ea, node, ctx, cls):
    return cls(ea.analyze(node.this, ctx), ea.analyze(node.expression, ctx))


def arithmetic(ea, node, ctx, cls):
    return cls(ea.analyze(node.this, ctx), ea.analyze(node.expression, ctx), ea.decimal_precision_loss, ea.ansi)


def ordering_comparison(ea, node, ctx, cls):
    return integral_decimal_literal(binary_operator(ea, node, ctx, cls))


def analyze_eq(ea, node, ctx):
    return binary_operator(ea, node, ctx, E.EqualTo)


def analyze_null_safe_eq(ea, node, ctx):
    return binary_operator(ea, node, ctx, E.EqualNullSafe)


def analyze_null_safe_neq(ea, node, ctx):
    return E.Not(ea.checked(binary_operator(ea, node, ctx, E.EqualNullSafe), node, ctx))


def analyze_neq(ea, node, ctx):
    # the comparison under the NOT is coerced and checked as `=` is (Spark reads `a != b`
    # as NOT (a = b)): outside ANSI mode `s != 1` casts s to int like `s = 1`
    return E.Not(ea.checked(binary_operator(ea, node, ctx, E.EqualTo), node, ctx))


def analyze_lt(ea, node, ctx):
    return ordering_comparison(ea, node, ctx, E.LessThan)


def analyze_lte(ea, node, ctx):
    return ordering_comparison(ea, node, ctx, E.LessThanOrEqual)


def analyze_gt(ea, node, ctx):
    return ordering_comparison(ea, node, ctx, E.GreaterThan)


def analyze_gte(ea, node, ctx):
    return ordering_comparison(ea, node, ctx, E.GreaterThanOrEqual)


def analyze_and(ea, node, ctx):
    return logical_chain(ea, node, ctx, exp.And, E.And)


def analyze_or(ea, node, ctx):
    return logical_chain(ea, node, ctx, exp.Or, E.Or)


def logical_chain(ea, node, ctx, ast_cls, cls):
    # left-deep chains (a OR b OR c ...) are analyzed without recursing per link
    spine: list[exp.Expression] = []
    cur = node
    while isinstance(cur, ast_cls):
        spine.append(cur)
        cur = cur.this
    word = "AND" if cls is E.And else "OR"
    result = require_boolean(ea.analyze(cur, ctx), word, allow_void=True)
    for link in reversed(spine):
        right = require_boolean(ea.analyze(link.expression, ctx), word, allow_void=True)
        result = cls(result, right)
    return result


def analyze_add(ea, node, ctx):
    return arithmetic(ea, node, ctx, E.Add)


def analyze_sub(ea, node, ctx):
    return arithmetic(ea, node, ctx, E.Subtract)


def analyze_mul(ea, node, ctx):
    return arithmetic(ea, node, ctx, E.Multiply)


def analyze_div(ea, node, ctx):
    return arithmetic(ea, node, ctx, E.Divide)


def analyze_int_div(ea, node, ctx):
    return arithmetic(ea, node, ctx, E.IntegralDivide)


def analyze_mod(ea, node, ctx):
    return arithmetic(ea, node, ctx, E.Remainder)


def analyze_dpipe(ea, node, ctx):
    return concat_call(ea, (ea.analyze(node.this, ctx), ea.analyze(node.expression, ctx)))


def concat_call(ea, args) -> E.Func:
    """concat(args) (`a || b` too).  Under spark.sql.function.concatBinaryAsString, Spark
    casts each argument of a concat of binaries only to a string (a cast its column name
    does not show)."""
    if ea.concat_binary_as_string and args and all(a.data_type == T.BINARY for a in args):
        args = tuple(E.Cast(a, T.STRING, user=False) for a in args)
    return E.Func("concat", tuple(args))


def analyze_not(ea, node: exp.Not, ctx):
    inner = node.this
    # `x IS NOT NULL` (sqlglot: NOT over IS); `NOT (x IS NULL)` is the same predicate
    # but Spark names it `(NOT (x IS NULL))`, so it stays a NOT
    if isinstance(inner, exp.Is) and isinstance(inner.expression, exp.Null):
        return E.IsNotNull(_null_tested(ea, inner, ctx))
    return E.Not(require_boolean(ea.analyze(node.this, ctx), "NOT", allow_void=True))


def analyze_is(ea, node: exp.Is, ctx):
    target = node.expression
    if isinstance(target, exp.Null):
        return E.IsNull(_null_tested(ea, node, ctx))
    if isinstance(target, exp.Boolean):
        return E.EqualNullSafe(ea.analyze(node.this, ctx), E.TRUE if target.this else E.FALSE)
    return ea.opaque(node, ctx)


def _null_tested(ea, node: exp.Is, ctx) -> E.Expr:
    """The operand of `x IS [NOT] NULL`, or of `x IS [NOT] UNKNOWN` (a NULL marked by
    the parser, `parse.IS_UNKNOWN`).  Spark's `IS UNKNOWN` takes a boolean and is named
    so; but once its operand is resolved (a column in it) or cast (void) it is `IS NULL`
    of any type, named so.  Of other operands (a literal, an expression of literals)
    the analysis is not modelled."""
    operand = ea.analyze(node.this, ctx)
    if node.expression.meta.get(IS_UNKNOWN) and node.this.find(exp.Column) is None:
        inner = operand.child if isinstance(operand, E.Cast) else operand
        if not (isinstance(inner, E.Literal) and inner.value is None):
            raise NotModelled("IS UNKNOWN of an expression without a column")
    return operand


def analyze_in(ea, node: exp.In, ctx):
    query = node.args.get("query")
    if isinstance(query, exp.Subquery) and isinstance(query.this, exp.Subquery):
        # `x IN ((SELECT ...))`: to Spark a list of one scalar subquery (an error when
        # it returns more than one row), not an IN subquery
        raise NotModelled("IN of a parenthesized subquery (a scalar subquery in a list)")
    if query is not None:
        values = node.this.expressions if isinstance(node.this, exp.Tuple) else [node.this]
        vals = tuple(ea.analyze(v, ctx) for v in values)
        plan = ea.analyzer.subquery(query.this if isinstance(query, exp.Subquery) else query, ctx)
        if len(plan.output) != len(vals):
            raise AnalysisError(f"[DATATYPE_MISMATCH.IN_SUBQUERY_LENGTH_MISMATCH] IN subquery returns "
                                f"{len(plan.output)} columns, expected {len(vals)}")
        for v, o in zip(vals, plan.output):
            a, b = v.data_type, o.data_type
            if T.UNKNOWN not in (a, b) and a != b and (wider(a, b, ea.ansi) is None or T.STRING in (a, b)):
                # Spark rejects most pairs without a wider type (IN_SUBQUERY_DATA_TYPE_MISMATCH),
                # which a rule folding the IN over an empty subquery would drop; a string
                # beside another type it compares otherwise than a comparison would (as
                # strings without ANSI, `1.0 IN (SELECT '1')` false), or rejects: Spark decides
                raise NotModelled(f"an IN subquery comparing {a.simple_string()} with {b.simple_string()}")
        return E.InSubquery(vals, plan)
    if node.args.get("unnest") or node.args.get("field"):
        return ea.opaque(node, ctx)
    if isinstance(node.this, exp.Tuple):
        # `(a, b) IN ((1, 2), (3, 4))` compares structs; Spark names it after
        # named_struct(...): kept as text where no name is needed
        if not ctx.unnamed_ok:
            raise NotModelled("a tuple IN list")
        if not all(isinstance(i, exp.Tuple) and len(i.expressions) == len(node.this.expressions)
                   for i in node.expressions):
            raise NotModelled("a tuple IN list of other arities")
        return ea.opaque(node, ctx).copy(data_type_=T.BOOLEAN)
    value = ea.analyze(node.this, ctx)
    items = tuple(ea.analyze(i, ctx) for i in node.expressions)
    if not items:
        raise AnalysisError("IN () needs at least one value")
    return E.In(value, items)


def analyze_between(ea, node: exp.Between, ctx):
    if node.args.get("symmetric"):
        return ea.opaque(node, ctx)
    value, low, high = (ea.analyze(node.this, ctx), ea.analyze(node.args["low"], ctx),
                        ea.analyze(node.args["high"], ctx))
    if T.UNKNOWN in (value.data_type, low.data_type, high.data_type):
        return E.Func("between", (value, low, high))
    if T.is_integral(value.data_type) and any(outside_bigint(b) for b in (low, high)):
        # Spark's analyzer makes such a bound's comparison a boolean literal
        # (`integral_decimal_literal`): the BETWEEN keeps its name but is FALSE, not NULL,
        # for a NULL value, which the call cannot say
        return ea.opaque(node, ctx)
    # Spark's BETWEEN is `value >= low AND value <= high`: each comparison coerced (or
    # rejected) as such; modelled where both compare the value as one type.  The value
    # is one expression both read (With), not a literal: an integral one next to decimal
    # bounds is cast to the decimal of its type, not of its digits (see coercion)
    if isinstance(value, E.Literal) and T.is_integral(value.data_type) and \
            any(isinstance(b.data_type, T.DecimalType) for b in (low, high)):
        value = E.Cast(value, T.decimal_for(value.data_type), user=False)  # type: ignore[arg-type]
    ge = ea.checked(E.GreaterThanOrEqual(value, low), node, ctx)
    le = ea.checked(E.LessThanOrEqual(value, high), node, ctx)
    if not (isinstance(ge, E.Comparison) and isinstance(le, E.Comparison)) or ge.left != le.left:
        raise NotModelled("BETWEEN whose bounds compare the value as different types")
    args: tuple[E.Expr, ...] = (ge.left, ge.right, le.right)
    if E.And(ge, le).nullable and not any(a.nullable for a in args):
        # a cast the comparisons make may be NULL (a string compared as a date): made
        # explicit, so that the call is as nullable as they are
        t = ge.compare_type
        if t is None or t != le.compare_type:
            raise NotModelled("BETWEEN whose bounds compare the value as different types")
        args = tuple(a if a.data_type == t else E.Cast(a, t, user=False) for a in args)
    return E.Func("between", args)


def analyze_like(ea, node: exp.Like, ctx):
    if node.args.get("escape") or isinstance(node.expression, (exp.Tuple, exp.Any, exp.All)):
        return ea.opaque(node, ctx)
    out = E.Func("like", (ea.analyze(node.this, ctx), ea.analyze(node.expression, ctx)))
    return E.Not(out) if node.args.get("negate") else out


def analyze_case(ea, node: exp.Case, ctx):
    operand = node.this
    op = ea.analyze(operand, ctx) if operand is not None else None
    branches = []
    for clause in node.args.get("ifs") or []:
        cond = ea.analyze(clause.this, ctx)
        if op is not None:
            cond = ea.checked(E.EqualTo(op, cond), clause.this, ctx)  # (coerced as `op = value`)
        require_boolean(cond, "CASE WHEN")
        branches.append((cond, ea.analyze(clause.args["true"], ctx)))
    default = node.args.get("default")
    otherwise = ea.analyze(default, ctx) if default is not None else None
    return E.CaseWhen(tuple(branches), otherwise)


def analyze_if(ea, node: exp.If, ctx):
    false = node.args.get("false")
    if false is None:
        return ea.opaque(node, ctx)
    cond = require_boolean(ea.analyze(node.this, ctx), "IF", allow_void=True)
    return E.If(cond, ea.analyze(node.args["true"], ctx), ea.analyze(false, ctx))


def analyze_coalesce(ea, node: exp.Coalesce, ctx):
    args = [node.this] + list(node.expressions)
    fname = function_name(node)
    if fname not in ("coalesce", "nvl", "ifnull"):
        return ea.opaque(node, ctx)
    return E.Coalesce(tuple(ea.analyze(a, ctx) for a in args), fname)


def analyze_try_cast(ea, node: exp.TryCast, ctx):
    return cast_expression(ea, node, ctx, try_=bool(node.args.get("safe")))


def analyze_cast(ea, node: exp.Cast, ctx):
    fname = node.meta.get("name") if node.meta else None
    to = _data_type(node.args["to"], ea.timestamp)
    value = node.this
    if fname is None and isinstance(value, exp.Literal) and value.is_string:
        # a typed literal, `DATE '2020-01-01'`, `TIME '10:00'`: a literal when its text is
        # a clean value of a modelled type, else kept as written (Spark names and reads
        # `TIMESTAMP '2020-01-01 10:00:00.5'` as a literal, not as a CAST; with more than
        # six digits of a second its type depends on spark.sql.timestampNanosTypes.enabled)
        lit = typed_literal(value.this, to) if to is not None else None
        if lit is not None:
            return lit
        node.meta[TYPED_LITERAL] = True
        out = ea.opaque(node, ctx)
        nanos = re.search(r"\.\d{7}", value.this) is not None
        # (`TIMESTAMP '... +01:00'` under spark.sql.timestampType=TIMESTAMP_NTZ is a
        # TIMESTAMP_LTZ, for its time zone: such a text is not read here)
        by_setting = to == T.TIMESTAMP_NTZ and is_bare_timestamp(node.args["to"])
        return out.copy(data_type_=to) if to is not None and not nanos and not by_setting else out
    if fname is not None and str(fname).lower() not in ("cast", "try_cast"):
        # double(x), int(x), ...: a cast Spark does not show in column names
        return cast_expression(ea, node, ctx, try_=False, user=False)
    return cast_expression(ea, node, ctx, try_=False)


def cast_expression(ea, node, ctx, try_: bool, user: bool = True):
    if node.args.get("format") or node.args.get("default"):
        return ea.opaque(node, ctx)
    to = _data_type(node.args["to"], ea.timestamp)
    if to is None:
        return ea.opaque(node, ctx)
    value = ea.analyze(node.this, ctx)
    if value.data_type != T.UNKNOWN and can_cast(value.data_type, to, ea.ansi or try_) is False:
        raise NotModelled(f"a cast of {value.data_type.simple_string()} to {to.simple_string()}")  # Spark rejects it
    return E.Cast(value, to, try_, user)


def analyze_subquery(ea, node: exp.Subquery, ctx):
    plan = ea.analyzer.subquery(node, ctx)
    if len(plan.output) != 1:
        raise AnalysisError(f"a scalar subquery must return one column, "
                            f"this one returns {len(plan.output)}")
    return E.ScalarSubquery(plan)


def analyze_exists(ea, node: exp.Exists, ctx):
    return E.Exists(ea.analyzer.subquery(node.this, ctx))


def analyze_select(ea, node, ctx):
    return analyze_subquery(ea, exp.Subquery(this=node), ctx)


_COMPARISONS = {
    exp.EQ: E.EqualTo, exp.NullSafeEQ: E.EqualNullSafe, exp.LT: E.LessThan,
    exp.LTE: E.LessThanOrEqual, exp.GT: E.GreaterThan, exp.GTE: E.GreaterThanOrEqual,
}


_ARITHMETIC = {exp.Add: E.Add, exp.Sub: E.Subtract, exp.Mul: E.Multiply, exp.Div: E.Divide,
               exp.IntDiv: E.IntegralDivide, exp.Mod: E.Remainder}
