"""Columns (name resolution, struct fields) and literals (numbers, typed literals,
intervals, parameters).  Each takes the `ExprAnalyzer` first."""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import cast

from sqlglot import exp

from ..ir import expressions as E
from ..ir import intervals
from ..ir import types as T
from ..ir.dialect import ARG_PREFIX, TYPED_LITERAL_PREFIX, function_name, written_bare
from ..ir.errors import AnalysisError
from ..ir.naming import field_of_column
from .data_types import TypeParseError, from_sqlglot
from .expr_context import STAR_ARG, Ctx, NotModelled, _expr_name, _position, refuse_unnamed


def analyze_paren(ea, node, ctx):
    return ea.analyze(node.this, ctx)


_NILADIC_TIME = frozenset({"current_time", "localtime"})
# Spark's parameterless functions, which a bare name calls when no column of the query's
# FROM has it: before a lateral alias or an outer query's column (Spark's
# parameterless-function-name-precedence.sql)
_PARAMETERLESS = frozenset({"current_date", "current_timestamp", "current_user", "user", "session_user",
                            "current_time", "localtime", "localtimestamp", "current_path", "current_schema",
                            "current_catalog", "current_database"})


def analyze_bare_call(ea, node: exp.Func, ctx: Ctx) -> E.Expr:
    """`current_user`, `current_date`, `current_timestamp`, `session_user` written without
    parentheses (`dialect.written_bare`): a column of the FROM with the name comes first,
    as in Spark (`SELECT current_user FROM v` reads v's column)."""
    name = written_bare(node)
    if name is not None and ctx.scope.lookup_local((name,), name)[0] is not None:
        return analyze_column(ea, exp.Column(this=exp.to_identifier(name)), ctx)
    return ea._fallback(node, ctx)


def analyze_column(ea, node: exp.Column, ctx: Ctx) -> E.Expr:
    bound = node.meta.get(STAR_ARG)
    if bound is not None:  # one of a star's columns among a call's arguments (`stars`)
        return ea.analyzer.star_args[bound]
    parts = tuple(p.name for p in node.parts)
    display = ".".join(parts)
    if isinstance(node.this, exp.Star):
        if isinstance(node.parent, (exp.Func, exp.Distinct)):
            # (not where Spark expands it into the call's arguments: `stars`)
            raise NotModelled(f"`{display}` as a function argument")
        raise AnalysisError(f"`{display}` is not allowed here")
    if id(node) in ea.analyzer.regex:  # (a select item read elsewhere than in `select_items`)
        raise NotModelled(f"the regular expression select item `{display}` here, under "
                          f"spark.sql.parser.quotedRegexColumnNames")
    unnamed = ea.analyzer.unnamed
    if ctx.preferred and parts[0].lower() in ctx.preferred and (len(parts) > 1 or _extracted(node)):
        _refuse_type_directed(ea, parts, ctx, node)
    if len(parts) == 1:
        key = parts[0].lower()
        if key in ctx.preferred and not from_column_first(ea, parts, ctx, node):
            found = ctx.preferred[key]
            refuse_unnamed(ea.analyzer, [found])
            return found
    parameterless = len(parts) == 1 and not node.this.quoted and parts[0].lower() in _PARAMETERLESS
    try:
        found, rest, depth = ctx.scope.resolve(parts, display, _position(ea.sql, node))
        if depth > 0 and parameterless:
            raise NotModelled(f"`{parts[0]}`, which Spark reads as the function {parts[0]}() before an outer "
                              f"query's column")
        if depth > 0 and len(parts) == 1 and parts[0].lower() in ctx.lateral:
            # an earlier select item's alias comes before an outer query's column (Spark
            # resolves the FROM's columns, then lateral aliases, then outer references)
            found = ctx.lateral[parts[0].lower()]
            refuse_unnamed(ea.analyzer, [found])
            return found
    except AnalysisError:
        if parameterless and parts[0].lower() not in _NILADIC_TIME:
            raise NotModelled(f"`{parts[0]}`, which Spark reads as the function {parts[0]}()") from None
        if len(parts) == 1 and parts[0].lower() in ctx.lateral:
            found = ctx.lateral[parts[0].lower()]
            refuse_unnamed(ea.analyzer, [found])
            return found
        alias = ctx.preferred.get(parts[0].lower()) or ctx.lateral.get(parts[0].lower())
        if len(parts) > 1 and alias is not None:
            # a field of a select alias, which no FROM column's name begins (`ORDER BY s.a`)
            refuse_unnamed(ea.analyzer, [alias])
            return field_access(ea, alias, list(parts[1:]), node)
        if len(parts) == 1 and not node.this.quoted and parts[0].lower() in _NILADIC_TIME:
            # Spark 4.1's `current_time` / `localtime` without parentheses, when no
            # column has the name: current_time(6), of the TIME type sparkfold does not model
            raise NotModelled(f"`{parts[0]}` (current_time of Spark's TIME type)") from None
        variable = ea.analyzer.catalog.session_variable(parts)
        if variable is not None:
            # a session variable (DECLARE VARIABLE), after columns, select aliases and outer
            # columns, as Spark resolves it: a value of its type, written as the name, named
            # as the session names it (inside a call, with its current value:
            # `(variablereference(system.session.v=5) + 1)`)
            t, top, inner = variable
            return E.Opaque(node.copy(), (), t, "scalar", inner, variable=top)
        if unnamed:
            # the name may be one of those Spark gives the columns sparkfold cannot name
            raise NotModelled(f"`{display}`, where columns are named by Spark with names sparkfold "
                              f"does not know") from None
        raise
    if unnamed:
        refuse_unnamed(ea.analyzer, [found])
    if rest:
        return field_access(ea, found, rest, node)
    if isinstance(found, E.Attribute) and found.name != parts[-1] and found.name.lower() == parts[-1].lower():
        # Spark names a column after the reference as written (`SELECT X.B` is `B`,
        # `upper(X.B)` is `upper(B)`): the same attribute under the written name
        found = found.copy(name=parts[-1])
    return found


def _extracted(node: exp.Column) -> bool:
    """Is the column the base of a subscript or a field access (`c[0]`, `(c).a`)?"""
    return isinstance(node.parent, (exp.Bracket, exp.Dot)) and node.parent.this is node


def _refuse_type_directed(ea, parts: tuple, ctx: Ctx, node) -> None:
    """In ORDER BY or HAVING, a field or an element of a name that is a select alias and
    also another column of the FROM: Spark picks one by their types (`col1.a` reads the
    alias when the column has no field `a`; `col1[0]` the column when the alias is no
    array), and not alike in both clauses (Spark's
    having-and-order-by-recursive-type-name-resolution.sql): passed through."""
    alias = ctx.preferred[parts[0].lower()]
    try:
        found, _rest, _depth = ctx.scope.resolve(parts[:1], parts[0], _position(ea.sql, node))
    except AnalysisError:
        return
    if isinstance(found, E.Attribute) and isinstance(alias, E.Attribute) and found.expr_id == alias.expr_id:
        return
    raise NotModelled(f"a field or an element of `{parts[0]}` in {ctx.clause}, which names both a select "
                      f"alias and a column (Spark chooses by their types)")


def from_column_first(ea, parts: tuple, ctx: Ctx, node) -> bool:
    """Does a name that is also a select-list alias mean the FROM column?  In ORDER BY
    the alias wins.  In HAVING (checked on Spark 4.3) the FROM column wins inside an
    aggregate function's arguments, and outside them when the column is itself a
    grouping expression: `SELECT sum(a) AS b ... GROUP BY b HAVING b > 10` filters on
    t.b; with GROUP BY c (or b + 1), b is the alias; `HAVING max(b) > 10` is t.b."""
    if ctx.clause != "HAVING":
        return False
    try:
        found, rest, _depth = ctx.scope.resolve(parts, parts[0], _position(ea.sql, node))
    except AnalysisError:
        return False
    if rest or not isinstance(found, E.Attribute):
        return False
    return ctx.in_aggregate or found.expr_id in ctx.grouping


def field_access(ea, base: E.Expr, fields: list[str], node) -> E.Expr:
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


def analyze_dot(ea, node: exp.Dot, ctx):
    """`(s).a`, `((s).b).c`: a field of a parenthesized struct value, the same field
    access as `s.a` (typed, matched with a GROUP BY `s.a`, named `a`); None (an opaque
    expression) for anything else."""
    base_node = node.this
    if not isinstance(node.expression, exp.Identifier) or not isinstance(base_node, (exp.Paren, exp.Dot)):
        return None
    base = ea.analyze(base_node, ctx)
    t = base.data_type
    if not (isinstance(t, T.StructType) and any(f.name.lower() == node.expression.name.lower() for f in t.fields)):
        return None
    fields = [node.expression.name]
    if isinstance(base, E.Opaque) and base.args and isinstance(base.args[0], E.Attribute) and not base.variable \
            and field_of_column(base.template):
        # (`((s).b).c` is `s.b.c`, named `c`)
        inner = base.template
        while isinstance(inner, exp.Dot):
            fields.insert(0, inner.name)
            inner = inner.this
        base = base.args[0]
    return field_access(ea, base, fields, node)


def analyze_null(ea, node, ctx):
    return E.Literal(None, T.NULL)


def analyze_boolean(ea, node, ctx):
    return E.TRUE if node.this else E.FALSE


def analyze_literal(ea, node: exp.Literal, ctx):
    if node.is_string:
        return E.Literal(node.this, T.STRING)
    return number_literal(node.this)


def analyze_hex_string(ea, node, ctx):
    try:
        return E.Literal(bytes.fromhex(node.this), T.BINARY)
    except ValueError:
        return ea.opaque(node, ctx)


def analyze_neg(ea, node: exp.Neg, ctx):
    inner = node.this
    if isinstance(inner, exp.Literal) and not inner.is_string:
        return number_literal("-" + inner.this)
    if isinstance(inner, exp.Anonymous) and str(inner.this).lower().startswith(TYPED_LITERAL_PREFIX):
        lit = typed_literal_call(ea, inner, negate=True)
        if lit is not None:
            return lit
    return E.Negate(ea.analyze(inner, ctx))


def analyze_interval(ea, node: exp.Interval, ctx):
    """`INTERVAL '1-2' YEAR TO MONTH`, `INTERVAL '1 02:03' DAY TO MINUTE`, `INTERVAL 3
    DAYS`...: an ANSI interval literal (a week is 7 days); any other spelling, or text
    Spark's syntax does not read, is kept as written."""
    unit = node.args.get("unit")
    value = node.this
    if isinstance(unit, exp.IntervalSpan):
        start, end = unit.this.name, unit.expression.name
    elif isinstance(unit, (exp.Var, exp.Column)):
        start = end = unit.name
    elif unit is None:
        # `INTERVAL '3 days'`, or sqlglot's reading of `INTERVAL '1' DAY + 'a'` as a sum
        # of intervals: Spark's meaning (and name) is not modelled
        raise NotModelled("an interval literal without its fields")
    else:
        return ea.opaque(node, ctx)
    if not isinstance(value, exp.Literal) or (not value.is_string and not re.fullmatch(r"-?\d+", str(value.this))):
        return ea.opaque(node, ctx)
    text = str(value.this)
    if start.lower() in ("week", "weeks") and start == end:
        if not re.fullmatch(r"\s*[+-]?\d+\s*", text):
            return ea.opaque(node, ctx)
        text, start, end = str(int(text) * 7), "day", "day"
    t = intervals.interval_type(start, end)
    v = intervals.parse(text, t) if t is not None else None
    if t is None or v is None:
        return ea.opaque(node, ctx)
    return E.Literal(v, t)


def analyze_placeholder(ea, node, ctx):
    # a parameter marker (`?` or `:name`): its value is only known to Spark
    return E.Opaque(node.copy(), (), T.UNKNOWN, "scalar", node.sql())


def analyze_parameter(ea, node, ctx):
    return E.Opaque(node.copy(), (), T.UNKNOWN, "scalar", node.sql())


def typed_literal_call(ea, node: exp.Anonymous, negate: bool = False):
    type_name = function_name(node)[len(TYPED_LITERAL_PREFIX):]
    if len(node.expressions) != 1 or not isinstance(node.expressions[0], exp.Literal):
        return None
    if type_name == "interval":
        # `INTERVAL '1 year 2 months'` (parse._fix_tokens keeps the text as written): the
        # literal Spark's parser makes of the string, typed by the units it names; any
        # other form (`INTERVAL 1 YEAR 2 MONTHS`, a string with escapes) is kept as written
        quoted = re.fullmatch(r"'([^'\\]*)'|\"([^\"\\]*)\"", str(node.expressions[0].this))
        found = intervals.quoted_literal(quoted.group(1) if quoted.group(1) is not None else quoted.group(2)) \
            if quoted and not negate else None
        return E.Literal(*found) if found else None
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
            return E.Literal(float(_in_range(text, _DOUBLE_MAX, "double")), T.DOUBLE)
        if type_name == "float":
            import struct

            v = struct.unpack("f", struct.pack("f", float(_in_range(text, _FLOAT_MAX, "float"))))[0]
            return E.Literal(v, T.FLOAT)
        if type_name == "decimal":
            d = Decimal(text)
            if not d.is_finite():  # a marker written by hand (`__sf_lit_decimal('NaN')`): not a literal
                return None
            _, digits, exponent = d.as_tuple()
            exponent = cast(int, exponent)
            scale = max(-exponent, 0)
            # a positive exponent adds integral digits: 1.5E2BD is decimal(3,0), as Spark types it
            precision = max(len(digits) + max(exponent, 0), scale, 1)
            if precision > T.MAX_PRECISION:
                return None
            if d == 0:
                d = abs(d)  # Spark's decimals have no negative zero: -0.0 is 0.0
            return E.Literal(d, T.DecimalType(precision, scale))
    except (ValueError, InvalidOperation, OverflowError):
        return None
    return None


def _data_type(node, timestamp: T.DataType = T.TIMESTAMP) -> T.DataType | None:
    if not isinstance(node, exp.DataType):
        return None
    try:
        return from_sqlglot(node, timestamp=timestamp)
    except TypeParseError:
        return None


_INT_RE = re.compile(r"^-?\d+$")
# Double.MaxValue and Float.MaxValue as Spark's parser compares a literal with them (Scala's
# BigDecimal of the value as a double: a float literal of 3.4028235E38 is out of range)
_DOUBLE_MAX = Decimal("1.7976931348623157E308")
_FLOAT_MAX = Decimal("3.4028234663852886E38")


def _in_range(text: str, limit: Decimal, type_name: str) -> str:
    """The literal's text, when Spark's parser takes it for a `type_name` (it compares the
    exact value with the type's largest one: 1E309 is an error, 1E-400 is 0.0)."""
    if abs(Decimal(text)) > limit:
        raise AnalysisError(f"[INVALID_NUMERIC_LITERAL_RANGE] the numeric literal {text} is outside the "
                            f"range of {type_name}")
    return text


def number_literal(text: str) -> E.Literal:
    """Spark's type for an unsuffixed numeric literal: int, bigint, decimal, or double
    with an exponent.  A value Spark's parser rejects (a double past Double.MaxValue, a
    decimal of more than 38 digits) is an error, as in Spark."""
    t = text.strip()
    if _INT_RE.match(t):
        v = int(t)
        if -(2**31) <= v < 2**31:
            return E.Literal(v, T.INT)
        if -(2**63) <= v < 2**63:
            return E.Literal(v, T.LONG)
        d = Decimal(v)
        precision = len(str(abs(v)))
        if precision > T.MAX_PRECISION:
            raise AnalysisError(f"[DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION] the numeric literal {t} has "
                                f"precision {precision}, more than the maximum of {T.MAX_PRECISION}")
        return E.Literal(d, T.DecimalType(precision, 0))
    if "e" in t.lower():
        return E.Literal(float(_in_range(t, _DOUBLE_MAX, "double")), T.DOUBLE)
    d = Decimal(t)
    _, digits, exponent = d.as_tuple()
    scale = max(-cast(int, exponent), 0)
    precision = max(len(digits), scale, 1)
    if precision > T.MAX_PRECISION:
        raise AnalysisError(f"[DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION] the decimal literal {t} has precision "
                            f"{precision}, more than the maximum of {T.MAX_PRECISION}")
    return E.Literal(d, T.DecimalType(precision, scale))


# The forms of DATE and TIMESTAMP literals read here, as Spark reads them (stringToDate,
# stringToTimestamp): a DATE ignores what follows its day after a space or a T; a time
# may leave out its seconds; a fraction of a second is cut to microseconds
_DATE_RE = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2})(?:[ T].*)?)?)?$", re.DOTALL | re.ASCII)
_TIMESTAMP_RE = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2})"
                           r"(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,6}))?)?)?)?)?$", re.ASCII)
_SPARK_TRIMMED = "".join(chr(c) for c in range(0x21))  # what Spark trims from a datetime string


def typed_literal(text: str, to: T.DataType) -> E.Literal | None:
    """DATE 'yyyy[-[m]m[-[d]d[( |T)...]]]' and TIMESTAMP 'yyyy[-[m]m[-[d]d[( |T)[h]h:[m]m[:[s]s
    [.ffffff]]]]]' literals (and TIMESTAMP_NTZ), forms Spark reads the same way; None for
    any other text (a time zone, a sign, a week date...), which Spark's own parser decides
    on (Python's date.fromisoformat takes forms Spark rejects)."""
    m = (_DATE_RE if to == T.DATE else _TIMESTAMP_RE).match(text.strip(_SPARK_TRIMMED)) \
        if to in (T.DATE, T.TIMESTAMP, T.TIMESTAMP_NTZ) else None
    if m is None:
        return None
    year, month, day, hour, minute, second, fraction = (m.groups() + (None,) * 4)[:7]
    try:
        if to == T.DATE:
            return E.Literal(date(int(year), int(month or 1), int(day or 1)), T.DATE)
        return E.Literal(datetime(int(year), int(month or 1), int(day or 1), int(hour or 0), int(minute or 0),
                                  int(second or 0), int((fraction or "")[:6].ljust(6, "0"))), to)
    except ValueError:  # no such day or time: Spark's error, which it raises itself
        return None


_LONG_MIN, _LONG_MAX = -(2 ** 63), 2 ** 63 - 1


def integral_decimal_literal(e: E.LessThan | E.LessThanOrEqual | E.GreaterThan | E.GreaterThanOrEqual) -> E.Expr:
    """Spark's analyzer (DecimalPrecision.integralAndDecimalLiteral) rewrites an ordering
    comparison of an integral expression with a decimal literal to a bigint literal:
    `k <= 1.5` is `k <= 1` (floor), `k < 1.5` is `k < 2` (ceil), `1.5 > k` is `2 > k`,
    and a literal past the bigint range makes the comparison a boolean literal (`TRUE`
    even for a NULL k).  The name, and that NULL case, follow the rewritten form."""
    import math

    left, right = e.left, e.right
    if T.is_integral(left.data_type) and _decimal_value(right) is not None:
        v, lit_left = cast(Decimal, _decimal_value(right)), False
    elif T.is_integral(right.data_type) and _decimal_value(left) is not None:
        v, lit_left = cast(Decimal, _decimal_value(left)), True
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


def outside_bigint(e: E.Expr) -> bool:
    """Is `e` a decimal literal past the bigint range (compared with an integral
    expression, Spark's analyzer folds the comparison: `integral_decimal_literal`)?"""
    v = _decimal_value(e)
    return v is not None and not _LONG_MIN <= v <= _LONG_MAX


def _decimal_value(e: E.Expr) -> Decimal | None:
    if isinstance(e, E.Literal) and isinstance(e.data_type, T.DecimalType) and isinstance(e.value, Decimal):
        return e.value
    return None
