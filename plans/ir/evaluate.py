"""Evaluate constant expressions with Spark 4's semantics, not Python's.

`evaluate(e, ansi)` computes the value of an expression built from literals, as Spark
would at run time, and returns it as a Python value of `e.data_type` (int for the
integral types, float for float/double, Decimal quantized to the type's scale, str,
bool, date, None for NULL).  What it cannot decide exactly is never guessed:

- `EvaluationError`: evaluating the expression raises (ANSI overflow, division by
  zero, a malformed cast).  Callers must not fold it: the error is the result.
- `CannotEvaluate`: the evaluator does not model this case exactly (a function it does
  not know, a value whose text form differs between Java 17 and Python...).

The semantics modelled, all checked on PySpark 4.3 (tests/test_evaluate.py compares
with Spark): three-valued logic; NaN = NaN and NaN largest, -0.0 = 0.0; integral
overflow raises under ANSI and wraps otherwise; decimal results rounded HALF_UP to the
result type, overflow raises under ANSI (NULL otherwise); `/` on integers is double;
division and remainder by zero raise under ANSI (NULL otherwise), for doubles too;
casts between numbers, strings and booleans as Spark's Cast does; And/Or/If/CASE/
coalesce/IN evaluate lazily, left to right, so an error in a branch not taken is no error.

Evaluation is iterative (`plans.ir.tree.fold`): an error or an unknown value is carried up
as a marker, and the lazy operators drop it when the branch holding it is not taken.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Context, Decimal, localcontext
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable

from . import expressions as E
from . import types as T
from .naming import java_double
from .quantified_like import quantified_like, quantifier_items
from .tuple_in import tuple_in
from .records import record
from .tree import fold

if TYPE_CHECKING:  # (imported where decimals are divided: `fractions` compiles a regex when loaded)
    from fractions import Fraction


class EvaluationError(Exception):
    """Spark raises an error evaluating this expression (under the given ANSI mode)."""


class CannotEvaluate(Exception):
    """The evaluator does not model this expression (or this value) exactly."""


@record(frozen=True, slots=True)
class _Raised:
    reason: str


@record(frozen=True, slots=True)
class _Unknown:
    reason: str


_MARKERS = (_Raised, _Unknown)
_BIG = Context(prec=400, rounding=ROUND_HALF_UP)
FLOAT_MAX = 3.4028234663852886e38


def evaluate(e: E.Expr, ansi: bool = True) -> Any:
    """The value of a literal-only expression, as Spark computes it (see module doc)."""
    out = fold(e, lambda n, kids: _step(n, kids, ansi))
    if isinstance(out, _Raised):
        raise EvaluationError(out.reason)
    if isinstance(out, _Unknown):
        raise CannotEvaluate(out.reason)
    return out


def fold_to_literal(e: E.Expr, ansi: bool = True) -> E.Literal | None:
    """`Literal(value, e.data_type)`, or None when e raises or cannot be evaluated."""
    if T.contains_unknown(e.data_type):
        return None
    try:
        return E.Literal(evaluate(e, ansi), e.data_type)
    except (EvaluationError, CannotEvaluate):
        return None


@lru_cache(maxsize=4096)
def _raises(e: E.Expr, ansi: bool) -> bool:
    try:
        evaluate(e, ansi)
    except EvaluationError:
        return True
    except CannotEvaluate:
        return False
    return False


def raising_constants(e: E.Expr, ansi: bool) -> int:
    """How many maximal constant (foldable, not literal) subexpressions of e raise when
    evaluated.  Counted in conditional branches too (Spark 4 leaves those unfolded when
    they raise; counting them only makes the check stricter)."""
    count, stack = 0, [e]
    while stack:
        x = stack.pop()
        if not (x.mask & (E.Literal.bit | E.Opaque.bit)) or isinstance(x, E.Literal):
            continue  # a constant is built from literals (or is an unmodelled call of none)
        if x.foldable:
            count += _raises(x, ansi)
            continue
        if isinstance(x, E.Opaque) and x.kind == "scalar" and all(a.foldable for a in x.args):
            # an unmodelled call of constants (`to_date('')`, `date - ''`, `TIME '23:59:59'
            # :: TINYINT`): Spark's ConstantFolding evaluates it if the call is
            # deterministic, and it may raise (an empty relation written over a row of
            # constants under WHERE FALSE feeds the calls above it constants they never
            # saw): counted as raising
            count += 1
            continue
        stack.extend(x.children)
    return count


def _step(n: E.Expr, kids: list, ansi: bool):
    try:
        return _eval_node(n, kids, ansi)
    except EvaluationError as x:
        return _Raised(str(x))
    except CannotEvaluate as x:
        return _Unknown(str(x))
    except (ArithmeticError, ValueError) as x:  # a numeric corner the model does not cover
        return _Unknown(f"{type(x).__name__}: {x}")


def _first_marker(values):
    for v in values:
        if isinstance(v, _MARKERS):
            return v
    return None


def _eval_node(n: E.Expr, kids: list, ansi: bool):
    match n:
        case E.Literal(value):
            return value
        case E.Alias():
            return kids[0]
        case E.And() | E.Or():
            return _logic(n, kids)
        case E.IsNull() | E.IsNotNull():
            if isinstance(kids[0], _MARKERS):
                return kids[0]
            return (kids[0] is None) == isinstance(n, E.IsNull)
        case E.EqualNullSafe(left, right):
            if (m := _first_marker(kids)) is not None:
                return m
            a, b = kids
            for v, t in ((a, left.data_type), (b, right.data_type)):  # both sides are evaluated
                if v is not None:
                    _string_operand(v, t, n.compare_type, ansi)
            if a is None or b is None:
                return a is None and b is None
            return _compare_pair(a, left.data_type, b, right.data_type, ansi) == 0
        case E.If(predicate, then, otherwise):
            if isinstance(kids[0], _MARKERS):
                return kids[0]
            branch, value = (then, kids[1]) if kids[0] is True else (otherwise, kids[2])
            return _as_type(value, branch.data_type, n.data_type, ansi)
        case E.CaseWhen(branches, otherwise):
            for i, (_, value) in enumerate(branches):
                cond = kids[2 * i]
                if isinstance(cond, _MARKERS):
                    return cond
                if cond is True:
                    return _as_type(kids[2 * i + 1], value.data_type, n.data_type, ansi)
            if otherwise is None:
                return None
            return _as_type(kids[-1], otherwise.data_type, n.data_type, ansi)
        case E.Coalesce(args):
            for a, v in zip(args, kids):
                if isinstance(v, _MARKERS) or v is not None:
                    return _as_type(v, a.data_type, n.data_type, ansi)
            return None
        case E.In(value, items):
            return _in(n, kids, ansi)
        case E.Func(name):
            fn = _FUNCTIONS.get(name)
            if fn is None:
                raise CannotEvaluate(f"function {name}() is not modelled")
            if not n.spec.exact_args(n.args):
                raise CannotEvaluate(f"{name}() of arguments Spark casts first (or rejects)")
            return fn(n, kids, ansi)
        case E.Comparison() | E.Arithmetic():
            return _binary(n, kids, ansi)
        case E.Not() | E.Negate() | E.Cast():
            if (m := _first_marker(kids)) is not None:
                return m
            if any(k is None for k in kids):
                return None
            return _null_intolerant(n, kids, ansi)
        case E.Opaque():
            return _opaque(n, kids)
        case _:
            raise CannotEvaluate(f"{type(n).__name__} is not a constant")


def _opaque(n: E.Opaque, kids: list):
    """The Opaques the evaluator reads: a quantified LIKE (plans.ir.quantified_like), and
    its quantifier, whose value is its items' values (read by the LIKE only)."""
    if quantifier_items(n) is not None:
        return _Items(tuple(kids))
    q = quantified_like(n)
    if q is not None:
        return _quantified_like(q, kids)
    t = tuple_in(n)
    if t is not None:
        return _tuple_in(t[0], kids)
    raise CannotEvaluate(f"{n.sql_text or 'an expression'} is not modelled")


def _tuple_in(value_fields, kids: list):
    """`(a, ...) IN ((x, ...), ...)` as Spark compares structs: field by field, a NULL
    field equal to a NULL field; never NULL (each position of one type here)."""
    if (m := _first_marker(kids)) is not None:
        return m
    n = len(value_fields)
    value, items = kids[:n], [kids[i:i + n] for i in range(n, len(kids), n)]
    types = [f.data_type for f in value_fields]
    for item in items:
        if all((a is None and b is None) or (a is not None and b is not None and spark_compare(a, b, t) == 0)
               for a, b, t in zip(value, item, types)):
            return True
    return False


@record(frozen=True, slots=True)
class _Items:
    values: tuple


def _quantified_like(q, kids: list):
    """`v [NOT] [I]LIKE ANY | ALL (p, ...)` as Spark evaluates it (three-valued); only
    where every pattern is a string or NULL that compiles (a malformed one raises in Spark,
    for a row or for none, as its form decides) and ILIKE's case mapping is ASCII's."""
    value, items = kids
    if not isinstance(items, _Items):
        return items if isinstance(items, _MARKERS) else _Unknown("a quantifier not read")
    if q.value.data_type != T.STRING or any(p.data_type not in (T.STRING, T.NULL) for p in q.patterns):
        raise CannotEvaluate("a quantified LIKE over values Spark casts to strings")
    if (m := _first_marker([value, *items.values])) is not None:
        return m
    patterns = list(items.values)
    if q.ignore_case:
        if not all(s.isascii() for s in [value, *patterns] if s is not None):
            raise CannotEvaluate("ILIKE over non-ASCII text (Java's case mapping)")
        value = value.lower() if value is not None else None
        patterns = [p.lower() if p is not None else None for p in patterns]
    try:
        compiled = [_like_regex(p) for p in patterns if p is not None]
    except EvaluationError as x:
        raise CannotEvaluate(f"a malformed LIKE pattern ({x})") from None
    if value is None:
        return None
    has_null = len(compiled) < len(patterns)
    decides = [(r.fullmatch(value) is None) == q.negated for r in compiled]  # TRUE for the pattern
    if q.all_:
        return False if not all(decides) else None if has_null else True
    return True if any(decides) else None if has_null else False


def _binary(n: E.Comparison | E.Arithmetic, kids: list, ansi: bool):
    """Spark's binary operators evaluate the left operand first (the right first for
    `/ % div`, which may then skip the left), each with the implicit cast of a string
    operand: a NULL operand makes the result NULL without the other (which then cannot
    raise: `NULL <= i + 1` is NULL for the largest i), and a malformed string raises
    (ANSI) even when the other operand is NULL."""
    types = (n.left.data_type, n.right.data_type)
    if isinstance(n, E.Arithmetic) and ansi and set(types) == {T.NULL, T.STRING}:
        raise CannotEvaluate("NULL and a string in arithmetic (ANSI refuses it)")
    target = n.compare_type if isinstance(n, E.Comparison) else T.arithmetic_operand_type(*types)
    for i in ((1, 0) if isinstance(n, (E.Divide, E.IntegralDivide, E.Remainder)) else (0, 1)):
        if isinstance(kids[i], _MARKERS):
            return kids[i]
        if kids[i] is None:
            return None
        _string_operand(kids[i], n.children[i].data_type, target, ansi)
    return _null_intolerant(n, kids, ansi)


def _string_operand(v, t: T.DataType, target: T.DataType | None, ansi: bool) -> None:
    """Raise where Spark's implicit cast of a string operand to `target` raises."""
    if t == T.STRING and target not in (None, T.STRING):
        implicit_cast(v, T.STRING, target, ansi)


def _as_type(value, src: T.DataType, dst: T.DataType, ansi: bool):
    """A value of a branch converted to the expression's type (Spark's implicit cast)."""
    if isinstance(value, _MARKERS) or value is None:
        return value
    return implicit_cast(value, src, dst, ansi)


def implicit_cast(v, src: T.DataType, dst: T.DataType, ansi: bool):
    """The cast Spark's analyzer inserts.  Types here follow ANSI coercion
    (plans.types); legacy coercion treats strings differently (`'1' + 1` is a double
    there), so without ANSI an implicit cast of a string is not evaluated."""
    if not ansi and src == T.STRING and dst != T.STRING:
        raise CannotEvaluate("implicit string cast under legacy coercion")
    return cast_value(v, src, dst, ansi)


# ---------------------------------------------------------------------------
# Logic, comparison, IN
# ---------------------------------------------------------------------------


def _logic(n, kids):
    """Kleene AND / OR, evaluated left to right with short-circuit (Spark's And/Or)."""
    stop = isinstance(n, E.Or)  # the value that decides without the right side
    left, right = kids
    if isinstance(left, _MARKERS):
        return left
    if left is stop:
        return stop
    if isinstance(right, _MARKERS):
        return right
    if right is stop:
        return stop
    if left is None or right is None:
        return None
    return not stop


def spark_compare(a, b, t: T.DataType) -> int:
    """-1, 0 or 1 for two non-NULL values of type t, in Spark's order: NaN equals NaN
    and is larger than everything else (+Infinity included), -0.0 equals 0.0."""
    if t in (T.DOUBLE, T.FLOAT):
        a_nan, b_nan = math.isnan(a), math.isnan(b)
        if a_nan or b_nan:
            return (a_nan > b_nan) - (a_nan < b_nan)
    if t == T.STRING or t == T.BINARY or t == T.BOOLEAN or t == T.DATE or t == T.TIMESTAMP \
            or t == T.TIMESTAMP_NTZ or T.is_numeric(t):
        return (a > b) - (a < b)
    raise CannotEvaluate(f"comparison of {t.simple_string()} values is not modelled")


def _compare_pair(a, at: T.DataType, b, bt: T.DataType, ansi: bool) -> int:
    ct = T.comparison_type(at, bt)
    if ct is None or ct == T.NULL:
        raise CannotEvaluate(f"comparison of {at.simple_string()} with {bt.simple_string()}")
    return spark_compare(implicit_cast(a, at, ct, ansi), implicit_cast(b, bt, ct, ansi), ct)


_COMPARE = {
    E.EqualTo: lambda c: c == 0, E.LessThan: lambda c: c < 0, E.LessThanOrEqual: lambda c: c <= 0,
    E.GreaterThan: lambda c: c > 0, E.GreaterThanOrEqual: lambda c: c >= 0,
}


def _in(n: E.In, kids, ansi):
    value, items = n.value, n.items
    if not items:
        # Spark 4 with ANSI on: `x IN ()` is FALSE without evaluating x; legacy: NULL for NULL x
        if ansi:
            return False
        if isinstance(kids[0], _MARKERS):
            return kids[0]
        return None if kids[0] is None else False
    v = kids[0]
    if isinstance(v, _MARKERS) or v is None:
        return v
    ct = T.wider_type_of([value.data_type] + [i.data_type for i in items])
    if ct is None or ct == T.NULL:
        raise CannotEvaluate("IN over types without a modelled common type")
    v = implicit_cast(v, value.data_type, ct, ansi)
    has_null = False
    for item, iv in zip(items, kids[1:]):
        if isinstance(iv, _MARKERS):
            return iv
        if iv is None:
            has_null = True
            continue
        if spark_compare(v, implicit_cast(iv, item.data_type, ct, ansi), ct) == 0:
            return True
    return None if has_null else False


# ---------------------------------------------------------------------------
# Null-intolerant operators (every child is a non-NULL value here)
# ---------------------------------------------------------------------------


def _null_intolerant(n, kids, ansi):
    match n:
        case E.Not():
            return not kids[0]
        case E.Comparison():
            c = _compare_pair(kids[0], n.left.data_type, kids[1], n.right.data_type, ansi)
            return _COMPARE[type(n)](c)
        case E.Arithmetic():
            return _arithmetic(n, kids[0], n.left.data_type, kids[1], n.right.data_type, ansi)
        case E.Negate(child):
            return _negate(kids[0], child.data_type, ansi)
        case E.Cast(child, to, try_):
            try:
                return cast_value(kids[0], child.data_type, to, ansi, try_)
            except EvaluationError:
                if try_:
                    return None
                raise
    raise CannotEvaluate(f"{type(n).__name__} is not modelled")


def _overflow(value: int, t: T.DataType, ansi: bool, what: str) -> int:
    lo, hi = T.INTEGRAL_RANGE[t]
    if lo <= value <= hi:
        return value
    if ansi:
        raise EvaluationError(f"{what} overflows {t.simple_string()}")
    span = hi - lo + 1
    return (value - lo) % span + lo  # Java's two's-complement wrap-around


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _java_rem(a: int, b: int) -> int:
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def _arithmetic(n, a, at, b, bt, ansi):
    rt = n.data_type
    op = n.op
    x: Any  # a Decimal, an int or a float, by the result type
    y: Any
    if T.STRING in (at, bt):  # a string is cast to the other operand's kind first (`1 / '2'`: bigint)
        ot = T.arithmetic_operand_type(at, bt)
        if ot is None or ot == T.STRING:
            raise CannotEvaluate(f"arithmetic of {at.simple_string()} and {bt.simple_string()}")
        if at == T.STRING:
            a, at = implicit_cast(a, T.STRING, ot, ansi), ot
        if bt == T.STRING:
            b, bt = implicit_cast(b, T.STRING, ot, ansi), ot
    if isinstance(rt, T.DecimalType):
        x, y = _to_decimal(a, at), _to_decimal(b, bt)
    elif op == "div":
        x, y = _div_operand(a, at), _div_operand(b, bt)
    elif T.is_integral(rt) or rt in (T.DOUBLE, T.FLOAT):
        x, y = implicit_cast(a, at, rt, ansi), implicit_cast(b, bt, rt, ansi)
    else:
        raise CannotEvaluate(f"arithmetic of type {rt.simple_string()}")
    if op in ("/", "%", "div") and y == 0:
        if ansi:
            raise EvaluationError("division by zero")
        return None
    if isinstance(rt, T.DecimalType):
        return _decimal_arithmetic(op, x, y, rt, ansi)
    if op == "div":
        if isinstance(x, Decimal) or isinstance(y, Decimal):
            from fractions import Fraction

            quotient = int(Fraction(x) / Fraction(y))  # truncation toward zero
            lo, hi = T.INTEGRAL_RANGE[T.LONG]
            if not lo <= quotient <= hi:
                raise CannotEvaluate("decimal div beyond bigint")
            return quotient
        return _overflow(_trunc_div(x, y), T.LONG, ansi, "div")
    if T.is_integral(rt):
        if op == "+":
            return _overflow(x + y, rt, ansi, "+")
        if op == "-":
            return _overflow(x - y, rt, ansi, "-")
        if op == "*":
            return _overflow(x * y, rt, ansi, "*")
        if op == "%":
            return _java_rem(x, y)
        raise CannotEvaluate(f"integral {op}")
    if op == "+":
        r = x + y
    elif op == "-":
        r = x - y
    elif op == "*":
        r = x * y
    elif op == "/":
        r = x / y
    elif op == "%":
        r = math.nan if math.isnan(x) or math.isnan(y) or math.isinf(x) else math.fmod(x, y)
    else:
        raise CannotEvaluate(f"fractional {op}")
    return _to_float32(r) if rt == T.FLOAT else r


def _div_operand(v, t: T.DataType):
    if T.is_integral(t) or isinstance(t, T.DecimalType):
        return v
    raise CannotEvaluate(f"div of a {t.simple_string()} operand")


def _decimal_arithmetic(op, x: Decimal, y: Decimal, rt: T.DecimalType, ansi):
    """Decimal + - * / % as Spark computes them: BigDecimal arithmetic (products with 38
    significant digits, quotients with 38 decimal places, both HALF_UP), then rounded
    HALF_UP to the result type.  Where that double rounding could differ from a single
    rounding of the exact value we do not guess."""
    from fractions import Fraction

    with localcontext(_BIG):
        if op == "+":
            return _to_precision(x + y, rt, ansi)
        if op == "-":
            return _to_precision(x - y, rt, ansi)
        if op == "*":
            product = x * y
            spark = _BIG.copy()
            spark.prec = T.MAX_PRECISION
            rounded = spark.multiply(x, y)
            a, b = _round_scale(Fraction(product), rt.scale), _round_scale(Fraction(rounded), rt.scale)
            if a != b:
                raise CannotEvaluate("decimal product rounds twice")
            return _to_precision(a, rt, ansi)
        if op == "/":
            q = Fraction(x) / Fraction(y)
            single = _round_scale(q, rt.scale)
            double = _round_scale(Fraction(_round_scale(q, T.MAX_PRECISION)), rt.scale)
            if single != double:
                raise CannotEvaluate("decimal quotient rounds twice")
            return _to_precision(single, rt, ansi)
        if op == "%":
            quotient = abs(Fraction(x) / Fraction(y))
            if quotient >= 10 ** T.MAX_PRECISION:
                raise CannotEvaluate("decimal remainder of a huge quotient")
            return _to_precision(x % y, rt, ansi)
    raise CannotEvaluate(f"decimal {op}")


def _round_scale(q: Fraction, scale: int) -> Decimal:
    """q rounded HALF_UP (away from zero on ties) to `scale` decimal places, exactly."""
    num = q.numerator * 10 ** scale
    den = q.denominator
    whole, rest = divmod(abs(num), den)
    if 2 * rest >= den:
        whole += 1
    if num < 0:
        whole = -whole
    return Decimal(whole).scaleb(-scale, _BIG)


def _to_precision(d: Decimal, t: T.DecimalType, ansi: bool):
    """Decimal.changePrecision(p, s) with HALF_UP: None or an error on overflow."""
    with localcontext(_BIG):
        q = d.quantize(Decimal(1).scaleb(-t.scale), rounding=ROUND_HALF_UP)
    if q == 0:
        q = abs(q)
    digits = len(q.as_tuple().digits) if q != 0 else 0
    if digits > t.precision or (q != 0 and q.adjusted() + 1 > t.precision - t.scale):
        if ansi:
            raise EvaluationError(f"{d} does not fit {t.simple_string()}")
        return None
    return q


# Spark negates a decimal through Scala's BigDecimal, whose MathContext keeps 34 digits:
# -(99999999999999999999999999999999999999BD) is rounded to 1E+38, which its type cannot
# hold (NUMERIC_VALUE_OUT_OF_RANGE, ANSI or not).  Longer values are left to Spark.
_NEGATED_DIGITS = 34


def _decimal_negated(v: Decimal) -> Decimal:
    if len(v.as_tuple().digits) > _NEGATED_DIGITS:
        raise CannotEvaluate("negation of a decimal of more than 34 digits")
    return v.copy_negate() if v != 0 else v


def _negate(v, t, ansi):
    if T.is_integral(t):
        return _overflow(-v, t, ansi, "negation")
    if isinstance(t, T.DecimalType):
        return _decimal_negated(v)
    if t in (T.DOUBLE, T.FLOAT):
        return -v
    raise CannotEvaluate(f"negation of {t.simple_string()}")


# ---------------------------------------------------------------------------
# Casts
# ---------------------------------------------------------------------------

_SPACE = " \t\n\r"
_INT_RE = re.compile(r"^[+-]?[0-9]+$")
_DOUBLE_RE = re.compile(r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[dDfF]?$")
_DECIMAL_RE = re.compile(r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$")
_DATE_RE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_SPECIAL_DOUBLES = {"inf": math.inf, "+inf": math.inf, "infinity": math.inf, "+infinity": math.inf,
                    "-inf": -math.inf, "-infinity": -math.inf, "nan": math.nan}
_JAVA_SPECIALS = {"nan", "+nan", "-nan", "infinity", "+infinity", "-infinity"}
_TRUE_STRINGS = {"t", "true", "y", "yes", "1"}
_FALSE_STRINGS = {"f", "false", "n", "no", "0"}
# Java 17's Double.toString (which Spark's casts and BigDecimal(double) use) is the shortest
# round-trip form, as Python's repr, only in this range (checked on 150,000 doubles).
_SAFE_DOUBLE_TEXT = (1e-300, 1e15)


def _trimmed(s: str) -> str:
    t = s.strip(_SPACE)
    if t and (ord(t[0]) < 32 or ord(t[-1]) < 32 or ord(t[0]) == 127):
        raise CannotEvaluate("string with control characters at its ends")
    return t


def _bad_cast(s: str, t: T.DataType, ansi: bool):
    if ansi:
        raise EvaluationError(f"{s!r} is not a valid {t.sql()}")
    return None


def double_text(v: float) -> str:
    """CAST(v AS STRING) for a double, where Java and Python agree on the digits."""
    if math.isnan(v) or math.isinf(v) or v == 0 or _SAFE_DOUBLE_TEXT[0] <= abs(v) < _SAFE_DOUBLE_TEXT[1]:
        return java_double(v)
    raise CannotEvaluate(f"Java's text for {v!r} may differ from the shortest form")


def _to_float32(x: float) -> float:
    import struct

    if math.isnan(x) or math.isinf(x):
        return x
    if abs(x) > FLOAT_MAX:
        return math.copysign(math.inf if abs(x) >= FLOAT_MAX + 2.0 ** 103 else FLOAT_MAX, x)
    return struct.unpack("f", struct.pack("f", x))[0]


def _to_decimal(v, t: T.DataType) -> Decimal:
    if isinstance(t, T.DecimalType):
        return v
    if T.is_integral(t):
        return Decimal(v)
    raise CannotEvaluate(f"{t.simple_string()} as a decimal operand")


def _to_int(v, t: T.DataType) -> int:
    if T.is_integral(t):
        return v
    raise CannotEvaluate(f"{t.simple_string()} as an integral operand")


def cast_value(v, src: T.DataType, dst: T.DataType, ansi: bool = True, try_: bool = False):
    """CAST(v AS dst) for a non-NULL value v of type src, as Spark's Cast (ANSI or legacy;
    TRY_CAST with `try_`).  Raises EvaluationError where Spark raises, CannotEvaluate
    where not modelled."""
    if v is None or src == dst:
        return v
    if src == T.NULL:
        return None
    if dst == T.STRING:
        return _to_string(v, src, plain_decimal=ansi or try_)
    if src == T.STRING:
        return _from_string(v, dst, ansi)
    if src == T.BOOLEAN:
        if T.is_integral(dst):
            return int(v)
        if dst in (T.DOUBLE, T.FLOAT):
            return float(v)
        if isinstance(dst, T.DecimalType):
            return _to_precision(Decimal(int(v)), dst, ansi)
    if dst == T.BOOLEAN and T.is_numeric(src):
        return v != 0
    if T.is_integral(src):
        if T.is_integral(dst):
            return _cast_overflow(v, dst, ansi)
        if dst == T.DOUBLE:
            return float(v)
        if dst == T.FLOAT:
            if abs(v) > 2 ** 53:
                raise CannotEvaluate("bigint to float rounds twice")
            return _to_float32(float(v))
        if isinstance(dst, T.DecimalType):
            return _to_precision(Decimal(v), dst, ansi)
    if src in (T.DOUBLE, T.FLOAT):
        if T.is_integral(dst):
            if math.isnan(v) or math.isinf(v):
                if ansi:
                    raise EvaluationError(f"{v} is out of the range of {dst.sql()}")
                raise CannotEvaluate("legacy cast of NaN/Infinity to an integral type")
            whole = math.trunc(v)
            if dst == T.LONG and whole == 2 ** 63:
                # Spark checks the range in doubles, where Long.MaxValue is 2^63: in range,
                # and Java's conversion gives Long.MaxValue (with ANSI too)
                return T.INTEGRAL_RANGE[T.LONG][1]
            return _cast_overflow(whole, dst, ansi)
        if dst == T.DOUBLE:
            return v  # float -> double is exact
        if dst == T.FLOAT:
            return _to_float32(v)
        if isinstance(dst, T.DecimalType):
            if src == T.FLOAT or math.isnan(v) or math.isinf(v):
                raise CannotEvaluate("float/NaN/Infinity to decimal")
            return _to_precision(Decimal(double_text(v)), dst, ansi)
    if isinstance(src, T.DecimalType):
        if dst == T.DOUBLE:
            return float(v) if v != 0 else 0.0  # no negative zero: CAST(-0.0 AS DOUBLE) is 0.0
        if dst == T.LONG:
            return _cast_overflow(int(v), dst, ansi)  # truncation toward zero
        if T.is_integral(dst):
            exact = int(v)
            via_double = math.trunc(float(v))
            if exact != via_double:
                raise CannotEvaluate("decimal to integral near a rounding edge")
            return _cast_overflow(exact, dst, ansi)
        if isinstance(dst, T.DecimalType):
            return _to_precision(v, dst, ansi)
    raise CannotEvaluate(f"CAST from {src.simple_string()} to {dst.simple_string()}")


def _cast_overflow(v: int, dst: T.DataType, ansi: bool) -> int:
    lo, hi = T.INTEGRAL_RANGE[dst]
    if lo <= v <= hi:
        return v
    if ansi:
        raise EvaluationError(f"{v} is out of the range of {dst.sql()}")
    raise CannotEvaluate("legacy narrowing cast")


# The days between Julian 1582-10-04 and Gregorian 1582-10-15, which the hybrid calendar
# of Spark's legacy formatter lacks: under spark.sql.legacy.timeParserPolicy=LEGACY Spark
# shows them as 1582-10-15, in a cast to a string and in a literal's column name
# (`DATE '1582-10-15'` for `DATE '1582-10-10'`).  Every other date and timestamp reads the
# same under every policy.
_CUTOVER_GAP = (date(1582, 10, 5), date(1582, 10, 14))


def in_cutover_gap(value: object) -> bool:
    """Is the value a date, or a timestamp, on a day of the 1582 cutover gap?"""
    day = value.date() if isinstance(value, datetime) else value
    return isinstance(day, date) and _CUTOVER_GAP[0] <= day <= _CUTOVER_GAP[1]


def _to_string(v, src: T.DataType, plain_decimal: bool = True) -> str:
    if src == T.BOOLEAN:
        return "true" if v else "false"
    if T.is_integral(src):
        return str(v)
    if src == T.DOUBLE:
        return double_text(v)
    if isinstance(src, T.DecimalType):
        with localcontext(_BIG):
            v = v.quantize(Decimal(1).scaleb(-src.scale))  # a literal may carry fewer digits
        v = abs(v) if v == 0 else v
        return format(v, "f") if plain_decimal else _java_decimal_text(v)
    # (not the days of the 1582 cutover, which Spark's legacy formatter shows as 1582-10-15)
    if src == T.DATE and 1 <= v.year <= 9999 and not in_cutover_gap(v):
        return v.isoformat()
    raise CannotEvaluate(f"CAST of {src.simple_string()} to string")


def _java_decimal_text(v: Decimal) -> str:
    """Java's BigDecimal.toString, which Spark's CAST of a decimal to a string uses without
    ANSI: plain, unless the exponent of the first digit is below -6 (`1E-18`, `0E-18`)."""
    sign, digits, exponent = v.as_tuple()
    exponent = int(exponent)
    adjusted = exponent + len(digits) - 1
    if exponent <= 0 and adjusted >= -6:
        return format(v, "f")
    if exponent > 0:
        raise CannotEvaluate("a decimal of negative scale")
    coefficient = "".join(map(str, digits))
    mantissa = coefficient[0] + ("." + coefficient[1:] if len(coefficient) > 1 else "")
    return ("-" if sign else "") + mantissa + f"E{adjusted:+d}"


def _from_string(s: str, dst: T.DataType, ansi: bool):
    t = _trimmed(s)
    if T.is_integral(dst):
        if _INT_RE.match(t):
            lo, hi = T.INTEGRAL_RANGE[dst]
            return int(t) if lo <= int(t) <= hi else _bad_cast(s, dst, ansi)
        if not t or any(c not in "0123456789+-." for c in t):
            return _bad_cast(s, dst, ansi)
        raise CannotEvaluate(f"CAST({s!r} AS {dst.sql()})")
    if dst in (T.DOUBLE, T.FLOAT):
        low = t.lower()
        if low in _SPECIAL_DOUBLES:
            return _SPECIAL_DOUBLES[low]
        if _DOUBLE_RE.match(t):
            core = t[:-1] if t[-1] in "dDfF" else t
            value = float(core)
            return _to_float32(value) if dst == T.FLOAT else value
        if not any(c.isdigit() for c in t) and low not in _JAVA_SPECIALS:
            return _bad_cast(s, dst, ansi)
        raise CannotEvaluate(f"CAST({s!r} AS {dst.sql()})")
    if isinstance(dst, T.DecimalType):
        if _DECIMAL_RE.match(t):
            d = Decimal(t)
            if d.adjusted() + 1 > T.MAX_PRECISION:
                raise CannotEvaluate("decimal string beyond 38 digits")
            return _to_precision(d, dst, ansi)
        if not any(c.isdigit() for c in t):
            return _bad_cast(s, dst, ansi)
        raise CannotEvaluate(f"CAST({s!r} AS {dst.sql()})")
    if dst == T.BOOLEAN:
        low = t.lower()
        if low in _TRUE_STRINGS:
            return True
        if low in _FALSE_STRINGS:
            return False
        return _bad_cast(s, dst, ansi)
    if dst == T.DATE and _DATE_RE.match(t):
        try:
            return date.fromisoformat(t)
        except ValueError:
            raise CannotEvaluate(f"CAST({s!r} AS DATE)")
    raise CannotEvaluate(f"CAST of a string to {dst.simple_string()}")


# ---------------------------------------------------------------------------
# Functions
# ---------------------------------------------------------------------------


def _strict(fn: Callable) -> Callable:
    """A null-intolerant function: markers propagate, any NULL argument gives NULL."""

    def run(n, kids, ansi):
        m = _first_marker(kids)
        if m is not None:
            return m
        if any(k is None for k in kids):
            return None
        return fn(n, kids, ansi)

    return run


def _string_args(n, count=None):
    args = n.args if count is None else n.args[:count]
    if any(a.data_type != T.STRING for a in args):
        raise CannotEvaluate(f"{n.name}() of non-string arguments")


def _nullif(n, kids, ansi):
    """nullif(a, b) is IF(a = b, NULL, a): `a = b` casts a string a first, even when b
    is NULL (nullif('x', CAST(NULL AS INT)) raises under ANSI)."""
    a, b = kids
    if isinstance(a, _MARKERS) or a is None:
        return a
    if isinstance(b, _MARKERS):
        return b
    at, bt = n.args[0].data_type, n.args[1].data_type
    _string_operand(a, at, T.comparison_type(at, bt), ansi)
    if b is None:
        return a
    equal = _compare_pair(a, at, b, bt, ansi) == 0
    return None if equal else a


def _nanvl(n, kids, ansi):
    a, b = kids
    t = n.data_type
    if isinstance(a, _MARKERS) or a is None:
        return a
    a = implicit_cast(a, n.args[0].data_type, t, ansi)
    if not math.isnan(a):
        return a
    return _as_type(b, n.args[1].data_type, t, ansi)


def _isnan(n, kids, ansi):
    v, t = kids[0], n.args[0].data_type
    if isinstance(v, _MARKERS):
        return v
    if t == T.STRING:  # cast to double first: isnan('NaN') is TRUE, isnan('x') raises (ANSI)
        v = v if v is None else implicit_cast(v, T.STRING, T.DOUBLE, ansi)
    elif not (T.is_numeric(t) or t == T.NULL):
        raise CannotEvaluate(f"isnan() of {t.simple_string()}")
    return isinstance(v, float) and math.isnan(v)


def _extreme(sign: int):
    def run(n, kids, ansi):
        m = _first_marker(kids)
        if m is not None:
            return m
        t = n.data_type
        best = None
        for a, v in zip(n.args, kids):
            if v is None:
                continue
            v = implicit_cast(v, a.data_type, t, ansi)
            if best is None or spark_compare(v, best, t) * sign > 0:
                best = v
        return best

    return run


@_strict
def _abs(n, kids, ansi):
    t = n.data_type
    v = kids[0]
    if T.is_integral(t):
        return _overflow(abs(v), t, ansi, "abs")
    if t in (T.DOUBLE, T.FLOAT):
        return abs(v)
    if isinstance(t, T.DecimalType):
        return _decimal_negated(v) if v < 0 else v
    raise CannotEvaluate("abs")


def _case_mapping(upper: bool):
    @_strict
    def run(n, kids, ansi):
        _string_args(n)
        s = kids[0]
        if not s.isascii():
            raise CannotEvaluate("case mapping of non-ASCII text")
        return s.upper() if upper else s.lower()

    return run


@_strict
def _length(n, kids, ansi):
    _string_args(n)
    return len(kids[0])


@_strict
def _substring(n, kids, ansi):
    _string_args(n, 1)
    if any(a.data_type != T.INT for a in n.args[1:]):
        raise CannotEvaluate("substring with non-int positions")
    s, pos = kids[0], kids[1]
    length = kids[2] if len(kids) > 2 else 2 ** 31 - 1
    n_chars = len(s)
    start = pos - 1 if pos > 0 else (n_chars + pos if pos < 0 else 0)
    end = max(min(start + length, 2 ** 31 - 1), -(2 ** 31))
    start = max(start, 0)
    if start >= end:
        return ""
    return s[start:end]


def _trim(which: str):
    @_strict
    def run(n, kids, ansi):
        _string_args(n)
        s = kids[0]
        return s.strip(" ") if which == "both" else (s.lstrip(" ") if which == "left" else s.rstrip(" "))

    return run


@_strict
def _concat(n, kids, ansi):
    _string_args(n)
    return "".join(kids)


@_strict
def _round(n, kids, ansi):
    t = n.data_type
    if len(n.args) > 1 and n.args[1].data_type != T.INT:
        raise CannotEvaluate("round with a non-int scale")
    scale = kids[1] if len(kids) > 1 else 0
    v = kids[0]
    if T.is_integral(t) and scale >= 0:
        return v
    if t == T.DOUBLE and 0 <= scale <= 30:
        if math.isnan(v) or math.isinf(v):
            return v
        with localcontext(_BIG):
            d = Decimal(double_text(v)).quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
        return float(d) if d != 0 else 0.0  # (through BigDecimal: round(-0.0D) is 0.0)
    raise CannotEvaluate("round")


def _like_regex(pattern: str) -> re.Pattern:
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if i + 1 >= len(pattern):
                raise EvaluationError("LIKE pattern ends with the escape character")
            nxt = pattern[i + 1]
            if nxt not in "_%\\":
                raise EvaluationError("the escape character is not allowed to precede " + nxt)
            out.append(re.escape(nxt))
            i += 2
            continue
        out.append(".*" if c == "%" else "." if c == "_" else re.escape(c))
        i += 1
    return re.compile("".join(out), re.DOTALL)


@_strict
def _like(n, kids, ansi):
    _string_args(n)
    return _like_regex(kids[1]).fullmatch(kids[0]) is not None


def _between(n, kids, ansi):
    v, lo, hi = n.args
    vv, lv, hv = kids
    if isinstance(vv, _MARKERS):
        return vv

    def side(other, ov, ok):
        if vv is None:  # (`v >= lo` reads v first: a NULL v leaves lo unread)
            return None
        if isinstance(ov, _MARKERS):
            return ov
        if ov is None:
            return None
        c = _compare_pair(vv, v.data_type, ov, other.data_type, ansi)
        return ok(c)

    ge = _beyond_bigint(v, lo, True)
    if ge is None:
        ge = side(lo, lv, lambda c: c >= 0)
    if isinstance(ge, _MARKERS) or ge is False:
        return ge
    le = _beyond_bigint(v, hi, False)
    if le is None:
        le = side(hi, hv, lambda c: c <= 0)
    if isinstance(le, _MARKERS) or le is False:
        return le
    return None if ge is None or le is None else True


def _beyond_bigint(v: E.Expr, bound: E.Expr, lower: bool) -> bool | None:
    """Spark's analyzer makes `v >= d` (`v <= d`) over an integral v and a decimal literal
    d past the bigint range a boolean literal, for a NULL v too (integralAndDecimalLiteral):
    `CAST(NULL AS INT) BETWEEN 1E20BD AND 1E20BD` is FALSE, not NULL."""
    if not (T.is_integral(v.data_type) and isinstance(bound, E.Literal) and isinstance(bound.value, Decimal)
            and isinstance(bound.data_type, T.DecimalType)):
        return None
    lo, hi = T.INTEGRAL_RANGE[T.LONG]
    if bound.value > hi:
        return not lower
    if bound.value < lo:
        return lower
    return None


def _date_part(part: str):
    @_strict
    def run(n, kids, ansi):
        if n.args[0].data_type != T.DATE:
            raise CannotEvaluate(f"{n.name}() of a non-date")
        return getattr(kids[0], part)

    return run


def _date_shift(sign: int):
    @_strict
    def run(n, kids, ansi):
        if n.args[0].data_type != T.DATE or not T.is_integral(n.args[1].data_type):
            raise CannotEvaluate(f"{n.name}() argument types")
        try:
            return kids[0] + timedelta(days=sign * kids[1])
        except OverflowError:
            raise CannotEvaluate("date out of Python's range")

    return run


@_strict
def _datediff(n, kids, ansi):
    if any(a.data_type != T.DATE for a in n.args):
        raise CannotEvaluate("datediff() of non-dates")
    return (kids[0] - kids[1]).days


_FUNCTIONS: dict[str, Callable] = {
    "nullif": _nullif, "nanvl": _nanvl, "isnan": _isnan,
    "greatest": _extreme(1), "least": _extreme(-1), "abs": _abs,
    "upper": _case_mapping(True), "ucase": _case_mapping(True),
    "lower": _case_mapping(False), "lcase": _case_mapping(False),
    "length": _length, "char_length": _length, "character_length": _length,
    "substring": _substring, "substr": _substring,
    "trim": _trim("both"), "ltrim": _trim("left"), "rtrim": _trim("right"),
    "concat": _concat, "round": _round, "like": _like, "between": _between,
    "year": _date_part("year"), "month": _date_part("month"), "dayofmonth": _date_part("day"),
    "date_add": _date_shift(1), "date_sub": _date_shift(-1), "datediff": _datediff,
}
