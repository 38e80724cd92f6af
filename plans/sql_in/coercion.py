"""Spark's type coercion of an analyzed expression, in the session's mode.

Spark's analyzer puts casts into an expression whose operands differ in type (the rules
of AnsiTypeCoercion under spark.sql.ansi.enabled, of TypeCoercion without), and rejects
what no cast reconciles.  Here the casts that change a type the IR would compute by itself
(or a nullability: a string cast to a number may be NULL) are made explicit, as casts
Spark does not name (`user=False`), so that every rule and the evaluator work with the
types Spark computes with; what Spark rejects, or what is not modelled, raises
NotModelled (the query passes through and Spark decides).  `coerce` is called on each
expression as it is built, its children coerced already.
"""

from __future__ import annotations

from ..ir import expressions as E
from ..ir import functions as F
from ..ir import types as T
from .expr_context import NotModelled
from .widening import interval_kind, is_ansi_interval, string_promotion, tightest, wider_common, \
    wider_for_decimal, wider_without_strings


def coerce(e: E.Expr, ansi: bool) -> E.Expr:
    match e:
        case E.Arithmetic():
            return arithmetic(e, ansi)
        case E.Negate(child):
            return negate(e, child, ansi)
        case E.Comparison():
            return comparison(e, ansi)
        case E.If(_, then, otherwise):
            t = _common([then, otherwise], ansi, e)
            return e.with_children([e.predicate, _widened(then, t), _widened(otherwise, t)])
        case E.CaseWhen(branches, otherwise):
            values = [v for _, v in branches] + ([otherwise] if otherwise is not None else [])
            t = _common(values, ansi, e)
            kids = []
            for cond, value in branches:
                kids += [cond, _widened(value, t)]
            if otherwise is not None:
                kids.append(_widened(otherwise, t))
            return e.with_children(kids)
        case E.Coalesce(args):
            t = _common(list(args), ansi, e)
            return e.with_children([_widened(a, t) for a in args])
        case E.In(value, items):
            t = _common([value, *items], ansi, e)
            return e.with_children([_widened(value, t), *(_widened(i, t) for i in items)])
        case E.Func():
            return function_arguments(e, ansi)
        case E.And(left, right) | E.Or(left, right) if left.data_type == right.data_type == T.NULL:
            # void operands only: Spark makes each a boolean NULL (`(NULL AND NULL)`)
            return e.with_children([_promoted(left, T.BOOLEAN), _promoted(right, T.BOOLEAN)])
        case _:
            return e


def _widened(e: E.Expr, t: T.DataType) -> E.Expr:
    """A value of IF, CASE, coalesce or IN cast to their common type t; a void one (NULL)
    is left as it is: the IR types them the same without its cast, and written without
    it, the query reads back as the same plan."""
    return e if e.data_type == T.NULL else _to(e, t)


def _to(e: E.Expr, t: T.DataType) -> E.Expr:
    """e cast to t (a cast Spark inserts: not named), unless it is of t."""
    return e if e.data_type == t else E.Cast(e, t, user=False)


def _promoted(e: E.Expr, t: T.DataType) -> E.Expr:
    """Spark's string promotion of an operand: a void one becomes a NULL of the type
    (a literal, so Spark names it NULL: `(s = NULL)` for s = <void column>)."""
    if e.data_type == T.NULL and t != T.NULL:
        return E.Literal(None, t)
    return _to(e, t)


def _common(values: list[E.Expr], ansi: bool, e: E.Expr) -> T.DataType:
    t = wider_common((v.data_type for v in values), ansi)
    if t is None:
        raise NotModelled(f"no common type of {', '.join(v.data_type.simple_string() for v in values)}")
    return t


# ---------------------------------------------------------------------------
# Arithmetic
# ---------------------------------------------------------------------------


def _numeric_or_void(t: T.DataType) -> bool:
    return t == T.NULL or T.is_numeric(t)


_DATETIME_LIKE = (T.DATE, T.TIMESTAMP, T.TIMESTAMP_NTZ, T.CALENDAR_INTERVAL)


def arithmetic(e: E.Arithmetic, ansi: bool) -> E.Expr:
    left, right = e.left, e.right
    lt, rt = left.data_type, right.data_type
    if lt in _DATETIME_LIKE or rt in _DATETIME_LIKE or is_ansi_interval(lt) or is_ansi_interval(rt):
        return datetime_arithmetic(e, ansi)
    if T.STRING in (lt, rt):
        if ansi:
            to = string_promotion(lt, rt, True)
            if to is None or not T.is_numeric(to):
                raise NotModelled(f"{lt.simple_string()} {e.symbol} {rt.simple_string()}")
            left, right = _promoted(left, to), _promoted(right, to)
        else:  # the legacy system makes a string operand a double
            if not all(t == T.STRING or _numeric_or_void(t) for t in (lt, rt)) or lt == rt:
                raise NotModelled(f"{lt.simple_string()} {e.symbol} {rt.simple_string()} outside ANSI mode")
            left, right = (_to(k, T.DOUBLE) if k.data_type == T.STRING else k for k in (left, right))
        lt, rt = left.data_type, right.data_type
    if not (_numeric_or_void(lt) and _numeric_or_void(rt)):
        raise NotModelled(f"{lt.simple_string()} {e.symbol} {rt.simple_string()}")
    if isinstance(e, E.IntegralDivide) and (T.is_fractional(lt) or T.is_fractional(rt)):
        raise NotModelled(f"{lt.simple_string()} div {rt.simple_string()}")  # Spark rejects it
    if lt == rt == T.NULL:
        return e.with_children([left, right])
    if isinstance(lt, T.DecimalType) or isinstance(rt, T.DecimalType):
        if T.is_fractional(lt) or T.is_fractional(rt):
            # a decimal next to a float or double is a double
            return e.with_children([_to(left, T.DOUBLE), _to(right, T.DOUBLE)])
        # an integral next to a decimal is cast to the decimal of its type, a literal to
        # the decimal of its digits (DecimalType.fromLiteral; a NULL of the other side's)
        return e.with_children([_integral_as_decimal(left), _integral_as_decimal(right)])
    if isinstance(e, E.Divide) and T.FLOAT in (lt, rt) and lt != rt and T.NULL not in (lt, rt):
        # Spark's Division rule: each operand straight to double, not first to the wider
        # of the two (`2147483647 / 1.5F` is 1431655764.666..., not the float 2^31's
        # quotient).  (Next to anything but a float the wider type holds the value exactly.)
        return e.with_children([_to(left, T.DOUBLE), _to(right, T.DOUBLE)])
    t = tightest(lt, rt, ansi)
    if t is None:
        raise NotModelled(f"{lt.simple_string()} {e.symbol} {rt.simple_string()}")
    return e.with_children([_to(left, t), _to(right, t)])


def _integral_as_decimal(e: E.Expr) -> E.Expr:
    t = e.data_type
    if not T.is_integral(t):
        return e
    if isinstance(e, E.Literal) and isinstance(e.value, int) and t in (T.SHORT, T.INT, T.LONG):
        return _to(e, T.literal_decimal_for_int(e.value))
    return _to(e, T.decimal_for(t))  # type: ignore[arg-type]


def negate(e: E.Expr, child: E.Expr, ansi: bool) -> E.Expr:
    t = child.data_type
    if t == T.STRING:
        return e.with_children([_to(child, T.DOUBLE)])
    if not (_numeric_or_void(t) or is_ansi_interval(t)):
        raise NotModelled(f"- {t.simple_string()}")
    return e


def datetime_arithmetic(e: E.Arithmetic, ansi: bool) -> E.Expr:
    """The date, timestamp and interval arithmetic modelled (the node's own type and
    Spark's name, see `naming`): a date plus or minus days; a date, timestamp or
    timestamp_ntz plus or minus an ANSI interval; the difference of two of them;
    intervals of one kind added or subtracted.  Anything else is not modelled."""
    lt, rt = e.left.data_type, e.right.data_type
    days = (T.BYTE, T.SHORT, T.INT)
    kl, kr = interval_kind(lt), interval_kind(rt)
    if isinstance(e, (E.Add, E.Subtract)):
        if lt == T.DATE and rt in days:
            return e
        if isinstance(e, E.Add) and lt in days and rt == T.DATE:
            return e
        if lt in (T.DATE, T.TIMESTAMP, T.TIMESTAMP_NTZ) and kr is not None:
            return e
        if kl is not None and kr is not None and kl[0] == kr[0]:
            return e
        if isinstance(e, E.Subtract) and T.is_datetime(lt) and T.is_datetime(rt):
            t = tightest(lt, rt, ansi)  # both cast to the wider one (a date to timestamp_ntz may be NULL)
            return e if t is None else e.with_children([_to(e.left, t), _to(e.right, t)])
    raise NotModelled(f"{lt.simple_string()} {e.symbol} {rt.simple_string()}")


# ---------------------------------------------------------------------------
# Comparisons
# ---------------------------------------------------------------------------


def comparison_type(lt: T.DataType, rt: T.DataType, ansi: bool) -> T.DataType | None:
    """The type Spark compares a and b as, or None where it rejects the comparison."""
    if lt == rt:
        return lt
    if T.STRING in (lt, rt):
        other = rt if lt == T.STRING else lt
        if ansi:
            to = string_promotion(lt, rt, True)
            return to
        if other == T.NULL:
            return T.STRING
        if isinstance(other, T.DecimalType):
            return T.DOUBLE
        if other in (T.BINARY, T.BOOLEAN) or T.is_numeric(other) or other in (T.DATE, T.TIMESTAMP, T.TIMESTAMP_NTZ):
            return other
        return None
    t = tightest(lt, rt, ansi)
    if t is None:
        t = wider_for_decimal(lt, rt)
    return t


def comparison(e: E.Comparison, ansi: bool) -> E.Expr:
    left, right = e.left, e.right
    if (isinstance(left.data_type, T.DecimalType) or isinstance(right.data_type, T.DecimalType)) \
            and not (left.nullable or right.nullable):
        # an integral literal next to a decimal is cast to the decimal of its digits, as
        # in arithmetic (`1 = 1.5` casts 1 to decimal(1,0), which Spark types nullable);
        # made explicit only where that nullability shows (`amount > 0` stays as written)
        left, right = (_integral_as_decimal(k) if isinstance(k, E.Literal) else k for k in (left, right))
        e = e.with_children([left, right])
    lt, rt = left.data_type, right.data_type
    t = comparison_type(lt, rt, ansi)
    if t is None or t == T.CALENDAR_INTERVAL:
        raise NotModelled(f"comparison of {lt.simple_string()} with {rt.simple_string()}")
    if t == T.comparison_type(lt, rt):
        return e
    promote = _promoted if T.STRING in (lt, rt) else _to
    return e.with_children([promote(left, t), promote(right, t)])


# ---------------------------------------------------------------------------
# Function arguments
# ---------------------------------------------------------------------------


def function_arguments(e: E.Func, ansi: bool) -> E.Expr:
    """The casts Spark puts on a modelled function's arguments: greatest and least widen
    theirs to one type (findWiderTypeWithoutStringPromotion: a string next to another
    type is rejected); nanvl makes both a double unless both are floats; the others cast
    each argument to the type their input kind takes (ImplicitTypeCasts: a string to a
    date, a double to an int)."""
    types = [a.data_type for a in e.args]
    if T.UNKNOWN in types:
        return e
    if e.name in ("greatest", "least"):
        t = wider_without_strings(types, ansi)
        if t is None:
            raise NotModelled(f"{e.name} of {', '.join(x.simple_string() for x in types)}")
        return e.with_children([_to(a, t) for a in e.args])
    if e.name == "nanvl":
        return e.with_children([_to(a, t) for a, t in zip(e.args, _nanvl_types(types))])
    targets = F.input_types(e.spec.inputs, types, ansi)
    if not targets:
        return e
    # (date_add and date_sub make a void argument a NULL of the type, named NULL:
    # `date_add(NULL, 1)`; the others keep its name)
    cast = _promoted if e.name in ("date_add", "date_sub") else _to
    return e.with_children([cast(a, t) for a, t in zip(e.args, targets)] + list(e.args[len(targets):]))


def _nanvl_types(types: list[T.DataType]) -> list[T.DataType]:
    """nanvl takes a double or a float (another number, a string or void is cast to a
    double; a void second argument after a float to a float); a double next to a float
    makes both doubles."""
    for t in types:
        if not (T.is_numeric(t) or t in (T.STRING, T.NULL)):
            raise NotModelled(f"nanvl of {t.simple_string()}")
    first = T.FLOAT if types[0] == T.FLOAT else T.DOUBLE
    second = T.FLOAT if types[1] == T.FLOAT or (types[1] == T.NULL and first == T.FLOAT) else T.DOUBLE
    both = T.FLOAT if first == second == T.FLOAT else T.DOUBLE
    return [both, both]
