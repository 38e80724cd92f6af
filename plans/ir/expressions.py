"""Typed expressions of the logical plan.

Each expression knows, from construction on: `data_type`, `nullable` (False only when
the value can never be NULL: rules rely on it, so when in doubt it is True),
`deterministic`, `foldable` (built only from literals and deterministic functions),
`may_raise` (could raise an error under ANSI mode: division by zero, overflow, a bad
cast) and `null_intolerant` (any NULL input gives NULL; a class-level fact).

Field order makes positional patterns read well:
`EqualTo(left, right)`, `Literal(value, data_type)`, `Cast(child, to)`.
"""

from __future__ import annotations

import threading
from contextvars import ContextVar, Token
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Iterator, cast

from . import types as T
from .tree import MANY, ONE, OPT, PAIRS, Node, keyed_as_is, node

if TYPE_CHECKING:
    from typing_extensions import Self

    from .functions import FunctionSpec
    from .logical import Plan

# data types hold names, numbers and other data types: each is its own key
keyed_as_is(T.AtomicType, T.DecimalType, T.ArrayType, T.MapType, T.StructType, T.StructField)

# ---------------------------------------------------------------------------
# Expression ids (attribute identity, shown as `num#3`)
# ---------------------------------------------------------------------------


class IdCounter:
    """A thread-safe source of increasing ids that can be moved past ids already used."""

    def __init__(self, start: int = 1):
        self._next = start
        self._lock = threading.Lock()

    def __next__(self) -> int:
        with self._lock:
            n = self._next
            self._next += 1
            return n

    def peek(self) -> int:
        return self._next

    def take(self, count: int) -> int:
        """The first of `count` fresh consecutive ids."""
        with self._lock:
            n = self._next
            self._next += count
            return n

    def ensure_above(self, used: int) -> None:
        with self._lock:
            if self._next <= used:
                self._next = used + 1


_id_counter: ContextVar = ContextVar("sparkfold_ids", default=None)


def _current() -> IdCounter:
    c = _id_counter.get()
    if c is None:
        raise RuntimeError("expression ids are handed out inside an id_scope(): the one of an "
                           "analysis or an optimizer run, or one the caller opens")
    return c


def new_id() -> int:
    """A fresh expression id, from the active `id_scope()`: each run (an analysis, an
    `optimize()`, the engine) owns its ids, so explain output is stable per query and no
    counter is shared by the process."""
    return next(_current())


def next_id() -> int:
    """The id `new_id()` would hand out now (nothing is taken)."""
    return _current().peek()


def new_ids(count: int) -> int:
    """The first of `count` fresh consecutive ids."""
    return _current().take(count)


def ensure_ids_above(used: int) -> None:
    """Make the ids handed out from now on larger than `used` (the largest id in a plan
    about to be rewritten), so a rule's new attributes never collide with its own."""
    _current().ensure_above(used)


class id_scope:
    """Context manager: number new expression ids from `start` within this context.
    With `join=True`, an active scope is used as it is (a run inside a run)."""

    def __init__(self, start: int = 1, join: bool = False):
        self.start = start
        self.join = join
        self.token: Token | None = None

    def __enter__(self):
        if not (self.join and _id_counter.get() is not None):
            self.token = _id_counter.set(IdCounter(self.start))
        return self

    def __exit__(self, *exc):
        if self.token is not None:
            _id_counter.reset(self.token)


_NO_REFERENCES: frozenset[int] = frozenset()


class Expr(Node):
    __slots__ = ("data_type", "nullable", "deterministic", "foldable", "may_raise", "deep_mask", "references")
    # derived once, at construction (`_derive`)
    data_type: T.DataType
    nullable: bool
    deterministic: bool
    foldable: bool
    may_raise: bool
    deep_mask: int
    references: frozenset[int]
    children: tuple[Expr, ...]  # an expression's children are expressions

    if TYPE_CHECKING:
        def walk(self) -> Iterator[Expr]: ...

    @property
    def null_intolerant(self) -> bool:
        """Any NULL input gives NULL: a fact of the class (of the function, for a call).
        Classes override `_self_null_intolerant`, not this: compiled, a class attribute
        set in subclasses was read from `Expr` through an `Expr`-typed reference, so
        `concat(x, NULL)` was not folded there."""
        return self._self_null_intolerant()

    def _self_null_intolerant(self) -> bool:
        return False

    def _derive(self) -> None:
        # one pass over the children for every fact (this runs for each node built);
        # the facts are set in the order the `_self_*` methods may read them
        kids = self.children
        s = object.__setattr__
        dt, nullable = self._type_and_nullability()
        s(self, "data_type", dt)
        s(self, "nullable", nullable)
        deterministic = foldable = True
        raises = False
        deep = self.mask
        # Expression ids of the attributes referenced (a subquery's outer references too):
        # computed once here from the children's sets, which stay small (the distinct
        # columns an expression reads), so a 10,000-term OR chain costs 10,000 unions of
        # one-element sets.
        refs = _NO_REFERENCES
        for k in kids:
            if not k.deterministic:
                deterministic = False
            if not k.foldable:
                foldable = False
            if k.may_raise:
                raises = True
            deep |= k.deep_mask
            r = k.references
            if r and r is not refs:
                refs = r if not refs else refs | r
        deterministic = deterministic and self._self_deterministic()
        s(self, "deterministic", deterministic)
        s(self, "foldable", bool(kids) and foldable and deterministic and self._self_foldable())
        s(self, "may_raise", raises or self._self_may_raise())
        if isinstance(self, SubqueryExpr):
            deep |= self.plan.mask
            outer = self.plan.outer_references
            if outer:
                refs = refs | outer
        s(self, "deep_mask", deep)
        s(self, "references", refs)

    def _self_deterministic(self) -> bool:
        return True

    def _self_foldable(self) -> bool:
        return True

    def _self_may_raise(self) -> bool:
        return False

    def _type_and_nullability(self) -> tuple[T.DataType, bool]:
        raise NotImplementedError


def _any_nullable(kids) -> bool:
    return any(k.nullable for k in kids)


# ---------------------------------------------------------------------------
# Leaves
# ---------------------------------------------------------------------------


@node
class Literal(Expr):
    """A constant.  Values: None, bool, int, float, Decimal, str, bytes, date,
    datetime, or for intervals a (months, days, microseconds) tuple."""

    value: Any
    data_type_: T.DataType

    def _type_and_nullability(self):
        return self.data_type_, self.value is None

    def _derive(self) -> None:
        s = object.__setattr__
        s(self, "deterministic", True)
        s(self, "foldable", True)
        s(self, "may_raise", False)
        s(self, "data_type", self.data_type_)
        s(self, "nullable", self.value is None)
        s(self, "deep_mask", self.mask)
        s(self, "references", _NO_REFERENCES)


def lit(value: Any, data_type: T.DataType | None = None) -> Literal:
    if data_type is None:
        if value is None:
            data_type = T.NULL
        elif isinstance(value, bool):
            data_type = T.BOOLEAN
        elif isinstance(value, int):
            data_type = T.INT if -(2**31) <= value < 2**31 else T.LONG
        elif isinstance(value, float):
            data_type = T.DOUBLE
        elif isinstance(value, str):
            data_type = T.STRING
        elif isinstance(value, Decimal):
            sign, digits, exp = value.as_tuple()
            scale = max(-cast(int, exp), 0)  # (a literal's decimal is finite)
            data_type = T.DecimalType(max(len(digits), scale, 1), scale)
        else:
            raise TypeError(f"cannot infer a type for {value!r}")
    return Literal(value, data_type)


def null(data_type: T.DataType = T.NULL) -> Literal:
    return Literal(None, data_type)


TRUE = Literal(True, T.BOOLEAN)
FALSE = Literal(False, T.BOOLEAN)
NULL_BOOL = Literal(None, T.BOOLEAN)


@node
class Attribute(Expr):
    """A reference to a column produced by a plan node, identified by `expr_id`.
    `qualifier` is the table alias it was resolved through (for display)."""

    name: str
    data_type_: T.DataType
    nullable_: bool
    expr_id: int
    qualifier: tuple[str, ...] = ()
    # the name is as the reference was written (`X.B` of column b is `B`, as Spark names
    # it): two references to one column are the same expression whatever their case
    _not_compared = ("name",)

    def _derive(self) -> None:
        s = object.__setattr__
        s(self, "deterministic", True)
        s(self, "foldable", False)
        s(self, "may_raise", False)
        s(self, "data_type", self.data_type_)
        s(self, "nullable", self.nullable_)
        s(self, "deep_mask", self.mask)
        s(self, "references", frozenset((self.expr_id,)))

    def with_nullability(self, nullable: bool) -> "Attribute":
        return self if nullable == self.nullable_ else self.copy(nullable_=nullable)

    def with_qualifier(self, qualifier: tuple[str, ...]) -> "Attribute":
        return self if qualifier == self.qualifier else self.copy(qualifier=qualifier)

    def same_ref(self, other: "Attribute") -> bool:
        return self.expr_id == other.expr_id


@node(children={"child": ONE})
class Alias(Expr):
    """`child AS name`.  `auto` marks a name Spark generated for an unaliased item,
    so the SQL generator may drop `AS` when the expression still prints to it."""

    child: Expr
    name: str
    expr_id: int
    auto: bool = False

    def _type_and_nullability(self):
        return self.child.data_type, self.child.nullable

    def to_attribute(self, qualifier: tuple[str, ...] = ()) -> Attribute:
        return Attribute(self.name, self.child.data_type, self.child.nullable, self.expr_id, qualifier)


def to_attribute(e: Expr) -> Attribute:
    """The output attribute of a named expression (Attribute or Alias)."""
    if isinstance(e, Attribute):
        return e
    if isinstance(e, Alias):
        return e.to_attribute()
    raise TypeError(f"not a named expression: {e!r}")


# ---------------------------------------------------------------------------
# Logic and comparison
# ---------------------------------------------------------------------------


@node(children={"child": ONE})
class Not(Expr):
    child: Expr

    def _self_null_intolerant(self) -> bool:
        return True

    def _type_and_nullability(self):
        return T.BOOLEAN, self.child.nullable


@node(children={"child": ONE})
class IsNull(Expr):
    child: Expr

    def _type_and_nullability(self):
        return T.BOOLEAN, False


@node(children={"child": ONE})
class IsNotNull(Expr):
    child: Expr

    def _type_and_nullability(self):
        return T.BOOLEAN, False


class BinaryExpr(Expr):
    __slots__ = ()
    symbol = "?"
    left: Expr   # (the fields of every subclass: declared here for type checkers)
    right: Expr

    def _type_and_nullability(self):
        return T.BOOLEAN, self.left.nullable or self.right.nullable


@node(children={"left": ONE, "right": ONE})
class And(BinaryExpr):
    left: Expr
    right: Expr
    symbol = "AND"


@node(children={"left": ONE, "right": ONE})
class Or(BinaryExpr):
    left: Expr
    right: Expr
    symbol = "OR"


class Comparison(BinaryExpr):
    """Binary comparison; `compare_type` is the type both sides are cast to (None when
    the optimizer does not know Spark's coercion for the pair)."""

    __slots__ = ()

    def _self_null_intolerant(self) -> bool:
        return True

    @property
    def compare_type(self) -> T.DataType | None:
        return T.comparison_type(self.left.data_type, self.right.data_type)

    def _self_may_raise(self) -> bool:
        # An implicit cast of a string operand can fail under ANSI.
        lt, rt = self.left.data_type, self.right.data_type
        return lt != rt and T.STRING in (lt, rt)

    def _type_and_nullability(self):
        lt, rt = self.left.data_type, self.right.data_type
        t = self.compare_type
        if t is None:
            implicit_cast_null = lt != rt and T.STRING in (lt, rt) and T.NULL not in (lt, rt)
        else:  # (a string compared as a number may be NULL, a date as a timestamp_ntz...)
            implicit_cast_null = cast_may_be_null(lt, t) or cast_may_be_null(rt, t)
        return T.BOOLEAN, self.left.nullable or self.right.nullable or implicit_cast_null


@node(children={"left": ONE, "right": ONE})
class EqualTo(Comparison):
    left: Expr
    right: Expr
    symbol = "="


@node(children={"left": ONE, "right": ONE})
class EqualNullSafe(Comparison):
    left: Expr
    right: Expr
    symbol = "<=>"

    def _self_null_intolerant(self) -> bool:
        return False

    def _type_and_nullability(self):
        return T.BOOLEAN, False


@node(children={"left": ONE, "right": ONE})
class LessThan(Comparison):
    left: Expr
    right: Expr
    symbol = "<"


@node(children={"left": ONE, "right": ONE})
class LessThanOrEqual(Comparison):
    left: Expr
    right: Expr
    symbol = "<="


@node(children={"left": ONE, "right": ONE})
class GreaterThan(Comparison):
    left: Expr
    right: Expr
    symbol = ">"


@node(children={"left": ONE, "right": ONE})
class GreaterThanOrEqual(Comparison):
    left: Expr
    right: Expr
    symbol = ">="


# ---------------------------------------------------------------------------
# Arithmetic
# ---------------------------------------------------------------------------


def _literal_decimal(e: Expr):
    """DecimalType.fromLiteral: a smallint, int or bigint literal widens to the decimal
    of its digits (a tinyint literal to its type's, decimal(3,0))."""
    if isinstance(e, Literal) and isinstance(e.value, int) and not isinstance(e.value, bool) \
            and e.data_type in (T.SHORT, T.INT, T.LONG):
        return T.literal_decimal_for_int(e.value)
    return None


class Arithmetic(BinaryExpr):
    """`left op right`; `precision_loss` is spark.sql.decimalOperations.allowPrecisionLoss,
    which decides the result type of decimal operands past 38 digits, and `ansi`
    spark.sql.ansi.enabled (without it a decimal result that overflows is NULL)."""

    __slots__ = ()
    op = "?"
    precision_loss: bool  # (fields of every subclass)
    ansi: bool

    def _self_null_intolerant(self) -> bool:
        return True

    def _result_type(self) -> T.DataType:
        lt, rt = self.left.data_type, self.right.data_type
        if T.UNKNOWN in (lt, rt):
            return T.UNKNOWN
        datetime_type = _datetime_arithmetic_type(self.op, lt, rt)
        if datetime_type is not None:
            return datetime_type
        t = T.binary_arithmetic_type(self.op, lt, rt, _literal_decimal(self.left),
                                     _literal_decimal(self.right), self.precision_loss)
        return t if t is not None else T.UNKNOWN

    def _type_and_nullability(self):
        t = self._result_type()
        nullable = self.left.nullable or self.right.nullable
        if not nullable and isinstance(t, T.DecimalType):
            # against a decimal, Spark casts an integral literal to its own digits' decimal
            # (`1 + 3.2`: CAST(1 AS DECIMAL(1,0))), a cast it types nullable
            for x, other in ((self.left, self.right), (self.right, self.left)):
                d = _literal_decimal(x)
                if d is not None and isinstance(other.data_type, T.DecimalType) and cast_may_be_null(x.data_type, d):
                    nullable = True
        overflow_null = not self.ansi and isinstance(t, T.DecimalType)  # (NULL on overflow)
        return t, nullable or overflow_null

    def _self_may_raise(self) -> bool:
        t = self.data_type
        # floating point never raises; integral and decimal overflow does under ANSI
        return not T.is_fractional(t)


def _datetime_arithmetic_type(op, lt, rt):
    """Result types of date/time arithmetic, as read off Spark 4 (ANSI)."""
    intervals = T.INTERVALS
    if op in ("+", "-"):
        if lt == T.DATE and (T.is_integral(rt) or rt == T.DAY_INTERVAL or rt in T.YEAR_MONTH_INTERVALS):
            return T.DATE  # date_add / add_months
        if lt == T.DATE and rt in T.DAY_TIME_INTERVALS:
            return T.TIMESTAMP
        if op == "+" and rt == T.DATE and T.is_integral(lt):
            return T.DATE
        if lt in (T.TIMESTAMP, T.TIMESTAMP_NTZ) and rt in intervals:
            return lt
        if lt == T.STRING and rt in T.DAY_TIME_INTERVALS + T.YEAR_MONTH_INTERVALS:
            return T.STRING
        if op == "-" and lt == T.DATE and rt == T.DATE:
            return T.DAY_INTERVAL
        if op == "-" and T.is_datetime(lt) and T.is_datetime(rt):
            return T.DAY_TIME_INTERVAL
        if lt in intervals or rt in intervals:
            return T.UNKNOWN
    return None


@node(children={"left": ONE, "right": ONE})
class Add(Arithmetic):
    left: Expr
    right: Expr
    precision_loss: bool = True
    ansi: bool = True
    symbol = "+"
    op = "+"


@node(children={"left": ONE, "right": ONE})
class Subtract(Arithmetic):
    left: Expr
    right: Expr
    precision_loss: bool = True
    ansi: bool = True
    symbol = "-"
    op = "-"


@node(children={"left": ONE, "right": ONE})
class Multiply(Arithmetic):
    left: Expr
    right: Expr
    precision_loss: bool = True
    ansi: bool = True
    symbol = "*"
    op = "*"


class _Division(Arithmetic):
    __slots__ = ()

    def _type_and_nullability(self):
        return self._result_type(), True  # NULL on division by zero outside ANSI

    def _self_may_raise(self) -> bool:
        return True


@node(children={"left": ONE, "right": ONE})
class Divide(_Division):
    left: Expr
    right: Expr
    precision_loss: bool = True
    ansi: bool = True
    symbol = "/"
    op = "/"


@node(children={"left": ONE, "right": ONE})
class IntegralDivide(_Division):
    left: Expr
    right: Expr
    precision_loss: bool = True
    ansi: bool = True
    symbol = "div"
    op = "div"


@node(children={"left": ONE, "right": ONE})
class Remainder(_Division):
    left: Expr
    right: Expr
    precision_loss: bool = True
    ansi: bool = True
    symbol = "%"
    op = "%"


@node(children={"child": ONE})
class Negate(Expr):
    child: Expr

    def _self_null_intolerant(self) -> bool:
        return True

    def _type_and_nullability(self):
        t = self.child.data_type
        # -NULL is a double, and so is -s of a string s (Spark casts it)
        return (T.DOUBLE if t in (T.NULL, T.STRING) else t), self.child.nullable

    def _self_may_raise(self) -> bool:
        return not T.is_fractional(self.child.data_type)


# ---------------------------------------------------------------------------
# Casts
# ---------------------------------------------------------------------------


def cast_may_raise(src: T.DataType, dst: T.DataType) -> bool:
    """Could CAST(src AS dst) raise under ANSI?"""
    if src == dst or src == T.NULL or dst == T.STRING:
        return False
    if T.is_integral(src) and T.is_integral(dst):
        return list(T.INTEGRAL).index(src) > list(T.INTEGRAL).index(dst)
    if T.is_integral(src) and (T.is_fractional(dst)):
        return False
    if src == T.FLOAT and dst == T.DOUBLE:
        return False
    if isinstance(dst, T.DecimalType):
        s = T.decimal_for(src)
        if s is not None:
            return (s.precision - s.scale) > (dst.precision - dst.scale) or s.scale > dst.scale \
                and (s.precision - s.scale) > (dst.precision - dst.scale)
        return True
    if isinstance(src, T.DecimalType) and T.is_fractional(dst):
        return False
    if src == T.DATE and dst in (T.TIMESTAMP, T.TIMESTAMP_NTZ):
        return False
    if src == T.BOOLEAN and T.is_numeric(dst):
        return False
    if T.is_numeric(src) and dst == T.BOOLEAN:
        return False
    return True


def cast_may_be_null(src: T.DataType, dst: T.DataType) -> bool:
    """Spark's Cast.forceNullable: can CAST of a non-NULL value give NULL?"""
    if src == T.NULL or src == dst:
        return False
    if src == T.STRING:
        return dst not in (T.BINARY, T.STRING)
    if dst == T.STRING:
        return False
    if src == T.TIMESTAMP and dst in (T.BYTE, T.SHORT, T.INT):
        return True
    if src in (T.FLOAT, T.DOUBLE) and dst == T.TIMESTAMP:
        return True
    if src == T.TIMESTAMP and dst == T.DATE:
        return False
    if dst == T.DATE:
        return True
    if src == T.DATE and dst == T.TIMESTAMP:
        return False
    if src == T.DATE:
        return True
    if dst == T.CALENDAR_INTERVAL:
        return True
    if isinstance(dst, T.DecimalType):
        return not _null_safe_to_decimal(src, dst)
    return (T.is_fractional(src) or isinstance(src, T.DecimalType)) and T.is_integral(dst)


def _null_safe_to_decimal(src: T.DataType, dst: T.DecimalType) -> bool:
    """Cast.canNullSafeCastToDecimal: dst is wider than src (DecimalType.isWiderThan), or
    src a decimal with fewer integer digits (its fraction digits may be rounded off)."""
    if src == T.BOOLEAN:
        return dst.precision - dst.scale >= 1
    wide = T.decimal_for(src)
    if wide is None:
        return False
    if dst.precision - dst.scale >= wide.precision - wide.scale and dst.scale >= wide.scale:
        return True
    return isinstance(src, T.DecimalType) and dst.precision - dst.scale > src.precision - src.scale


def can_up_cast(src: T.DataType, dst: T.DataType) -> bool:
    """Spark's UpCastRule.canUpCast: a cast that never loses a value (TRY_CAST of such a
    cast is NULL only for a NULL input)."""
    if src == dst or src == T.NULL:
        return True
    if dst == T.STRING:
        return src != T.UNKNOWN
    if any(src in kind and dst in kind for kind in (T.DAY_TIME_INTERVALS, T.YEAR_MONTH_INTERVALS)):
        return True
    if T.is_numeric(src) and isinstance(dst, T.DecimalType) and not isinstance(src, T.DecimalType):
        wide = T.decimal_for(src)
        return wide is not None and dst.precision - dst.scale >= wide.precision - wide.scale \
            and dst.scale >= wide.scale
    if isinstance(src, T.DecimalType):
        if isinstance(dst, T.DecimalType):
            return src.precision - src.scale <= dst.precision - dst.scale and src.scale <= dst.scale
        wide = T.decimal_for(dst)
        return wide is not None and src.precision - src.scale <= wide.precision - wide.scale \
            and src.scale <= wide.scale
    order = (T.BYTE, T.SHORT, T.INT, T.LONG, T.FLOAT, T.DOUBLE)
    if src in order and dst in order:
        return order.index(src) < order.index(dst)
    if (src, dst) in ((T.DATE, T.TIMESTAMP), (T.DATE, T.TIMESTAMP_NTZ), (T.TIMESTAMP_NTZ, T.TIMESTAMP),
                      (T.TIMESTAMP, T.TIMESTAMP_NTZ), (T.TIMESTAMP, T.LONG), (T.LONG, T.TIMESTAMP)):
        return True
    return False


@node(children={"child": ONE})
class Cast(Expr):
    """CAST(child AS to).  `try_` for TRY_CAST; `user` is False for a cast the analyzer
    inserted (Spark omits those from generated column names)."""

    child: Expr
    to: T.DataType
    try_: bool = False
    user: bool = True

    def _self_null_intolerant(self) -> bool:
        return True

    def _type_and_nullability(self):
        src = self.child.data_type
        # (Spark's Cast.nullable: TRY_CAST is NULL where a value does not fit the type,
        # a string's bytes always fit a binary; a decimal to an integral is taken to
        # overflow, even where canUpCast says it cannot)
        if not self.try_:
            maybe_null = cast_may_be_null(src, self.to)
        elif isinstance(src, T.DecimalType) and T.is_integral(self.to):
            maybe_null = True
        else:
            maybe_null = not (can_up_cast(src, self.to) or (src, self.to) == (T.STRING, T.BINARY))
        nullable = self.child.nullable or maybe_null
        return self.to, nullable

    def _self_may_raise(self) -> bool:
        return not self.try_ and cast_may_raise(self.child.data_type, self.to)


# ---------------------------------------------------------------------------
# Conditionals and NULL handling
# ---------------------------------------------------------------------------


def _common_type(values) -> T.DataType:
    t = T.wider_type_of(v.data_type for v in values)
    return t if t is not None else T.UNKNOWN


@node(children={"predicate": ONE, "then": ONE, "otherwise": ONE})
class If(Expr):
    predicate: Expr
    then: Expr
    otherwise: Expr

    def _type_and_nullability(self):
        return _common_type((self.then, self.otherwise)), self.then.nullable or self.otherwise.nullable


@node(children={"branches": PAIRS, "otherwise": OPT})
class CaseWhen(Expr):
    """CASE WHEN c1 THEN v1 ... [ELSE e] END (a CASE with an operand is analyzed into
    `operand = value` conditions, as Spark does)."""

    branches: tuple[tuple[Expr, Expr], ...]
    otherwise: Expr | None = None

    def _type_and_nullability(self):
        values = [v for _, v in self.branches]
        if self.otherwise is not None:
            values.append(self.otherwise)
        # Spark's CaseWhen.nullable: a branch whose condition is the literal TRUE ends the
        # CASE (the values up to it count, the ELSE does not)
        first_true = next((i for i, (c, _) in enumerate(self.branches) if c == TRUE), None)
        if first_true is not None:
            nullable = _any_nullable(values[:first_true + 1])
        else:
            nullable = self.otherwise is None or _any_nullable(values)
        return _common_type(values), nullable


@node(children={"args": MANY})
class Coalesce(Expr):
    """coalesce(args...); `fname` is how it was spelled (nvl and ifnull are the same
    function, but Spark names the column after the spelling)."""

    args: tuple[Expr, ...]
    fname: str = "coalesce"

    def _type_and_nullability(self):
        return _common_type(self.args), all(a.nullable for a in self.args)


@node(children={"value": ONE, "items": MANY})
class In(Expr):
    """value IN (items...).  Not null-intolerant: `1 IN (1, NULL)` is TRUE."""

    value: Expr
    items: tuple[Expr, ...]

    def _type_and_nullability(self):
        return T.BOOLEAN, self.value.nullable or _any_nullable(self.items)

    def _self_may_raise(self) -> bool:
        types = {self.value.data_type, *(i.data_type for i in self.items)} - {T.NULL}
        return len(types) > 1 and T.STRING in types


# ---------------------------------------------------------------------------
# Functions
# ---------------------------------------------------------------------------


@node(children={"args": MANY})
class Func(Expr):
    """A scalar Spark function the optimizer models; facts come from the registry in
    `plans.functions` (keyed by Spark's lower-case function name)."""

    name: str
    args: tuple[Expr, ...]

    @property
    def spec(self) -> FunctionSpec:
        from .functions import SCALAR_FUNCTIONS

        return SCALAR_FUNCTIONS[self.name]

    def _self_null_intolerant(self) -> bool:
        return self.spec.null_intolerant

    def _self_deterministic(self) -> bool:
        return self.spec.deterministic

    def _self_may_raise(self) -> bool:
        return self.spec.may_raise(self.args)

    def _self_foldable(self) -> bool:
        return self.spec.foldable

    def _type_and_nullability(self):
        spec = self.spec
        t = spec.result_type(self.args)
        return (t if t is not None else T.UNKNOWN), spec.nullable(self.args)


AGGREGATE_FUNCTIONS_DUPLICATE_AGNOSTIC = frozenset({"max", "min", "bit_and", "bit_or", "first",
                                                    "last", "collect_set", "any_value", "bool_and",
                                                    "bool_or", "every", "some", "any"})


@node(children={"args": MANY, "filter": OPT})
class Agg(Expr):
    """An aggregate function call: count, sum, avg, min, max and the others registered
    in `plans.ir.functions.AGGREGATE_FUNCTIONS`.  `count(*)` is `count(1)`."""

    name: str
    args: tuple[Expr, ...]
    distinct: bool = False
    filter: Expr | None = None

    @property
    def spec(self) -> FunctionSpec:
        from .functions import AGGREGATE_FUNCTIONS

        return AGGREGATE_FUNCTIONS[self.name]

    def _self_foldable(self) -> bool:
        return False

    def _self_deterministic(self) -> bool:
        return self.spec.deterministic

    def _self_may_raise(self) -> bool:
        return self.spec.may_raise(self.args)

    def _type_and_nullability(self):
        spec = self.spec
        t = spec.result_type(self.args)
        return (t if t is not None else T.UNKNOWN), spec.nullable(self.args)


@node(children={"args": MANY})
class Opaque(Expr):
    """An expression the optimizer does not model (an unknown function, a window
    expression, a lambda...).  `template` is its sqlglot tree in which the i-th
    argument was replaced by a placeholder `__sf_arg_i`; `args` are the analyzed
    arguments, so column references follow any renaming.  It is treated as
    non-deterministic and possibly raising, and nothing rewrites it.

    `kind` is "scalar", "aggregate" (an unknown aggregate function) or "window";
    `function` is a window's function name, lower case (`row_number`).  `sql_text` is
    its column name as Spark generates it, when `name_known`; else sparkfold's best
    guess, which names nothing Spark shows (see `naming.name_known`).  It is nullable
    unless `not_null` (a value constructor, `count(...) OVER w`, typed as Spark types it).

    The expression rules rewrite its arguments as anywhere (the call sees the same
    values), when its name is known: `rewritten` says they did, so that the writer
    names the column `sql_text` (Spark would name the call written with the new
    arguments otherwise)."""

    template: Any
    args: tuple[Expr, ...]
    data_type_: T.DataType = T.UNKNOWN
    kind: str = "scalar"
    sql_text: str = ""
    function: str = ""
    name_known: bool = True
    rewritten: bool = False
    # never NULL (a value constructor, `array(...)`: plans/sql_in/constructors.py)
    not_null: bool = False
    # nullable, always, as Spark types it (`sum(x) OVER w`: Sum is nullable whatever x is),
    # so its nullability is known as not_null's is, where any other unmodelled
    # expression's is not (optimizer.output_nullability)
    nullable_known: bool = False
    # a session variable (DECLARE VARIABLE; plans/sql_in/expr_leaves.py): one value
    # throughout the query, read without error.  This is its column name at the top of a
    # select list (`v`); `sql_text` is how Spark shows it inside another expression's name
    # (`variablereference(system.session.v=5)`)
    variable: str = ""

    def _self_deterministic(self) -> bool:
        return bool(self.variable)

    def _self_foldable(self) -> bool:
        return False

    def _self_may_raise(self) -> bool:
        return not self.variable

    def _type_and_nullability(self):
        return self.data_type_, not self.not_null


# ---------------------------------------------------------------------------
# Subquery expressions
# ---------------------------------------------------------------------------


class SubqueryExpr(Expr):
    """An expression holding a query plan (`plan`, compared structurally, not walked
    by expression traversals, not counted in the expression's kind mask)."""

    __slots__ = ()
    _extra_in_mask = False
    plan: Plan  # (the field of every subclass)
    frozen: bool  # (likewise: see below)

    @property
    def outer_references(self) -> frozenset[int]:
        """Ids of attributes the subquery plan references but does not produce."""
        return self.plan.outer_references

    def _self_foldable(self) -> bool:
        return False

    def _self_deterministic(self) -> bool:
        return self.plan.deterministic

    def _self_may_raise(self) -> bool:
        return True

    def with_plan(self, plan: Plan) -> Self:
        return self if plan is self.plan else self.copy(plan=plan)


# `frozen` (each subclass's last field): a correlated subquery no rule may rewrite or
# remove, under a session setting that changes how Spark decorrelates it (the analyzer
# sets it: see plans.sql_in.settings.CORRELATION); Spark then evaluates its text as it
# would the original's


@node(extra={"plan": ONE})
class ScalarSubquery(SubqueryExpr):
    plan: Plan
    frozen: bool = False

    def _self_may_raise(self) -> bool:
        return True  # more than one row raises

    def _type_and_nullability(self):
        out = self.plan.output
        return (out[0].data_type if out else T.UNKNOWN), True


@node(extra={"plan": ONE})
class Exists(SubqueryExpr):
    plan: Plan
    frozen: bool = False

    def _type_and_nullability(self):
        return T.BOOLEAN, False


@node(children={"values": MANY}, extra={"plan": ONE})
class InSubquery(SubqueryExpr):
    """(values...) IN (plan).  Nullable when a value or the subquery output is (SPARK-43413)."""

    values: tuple[Expr, ...]
    plan: Plan
    frozen: bool = False

    def _type_and_nullability(self):
        return T.BOOLEAN, _any_nullable(self.values) or any(a.nullable for a in self.plan.output)


# ---------------------------------------------------------------------------
# Sort order
# ---------------------------------------------------------------------------


@node(children={"child": ONE})
class SortOrder(Expr):
    child: Expr
    ascending: bool = True
    nulls_first: bool | None = None

    def __post_init__(self) -> None:
        if self.nulls_first is None:
            object.__setattr__(self, "nulls_first", self.ascending)
        self._node_init()

    def _type_and_nullability(self):
        return self.child.data_type, self.child.nullable


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def split_conjuncts(e: Expr) -> list[Expr]:
    out, stack = [], [e]
    while stack:
        x = stack.pop()
        if isinstance(x, And):
            stack.append(x.right)
            stack.append(x.left)
        else:
            out.append(x)
    return out


def split_disjuncts(e: Expr) -> list[Expr]:
    out, stack = [], [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Or):
            stack.append(x.right)
            stack.append(x.left)
        else:
            out.append(x)
    return out


def conjunction(parts) -> Expr:
    parts = list(parts)
    if not parts:
        return TRUE
    out = parts[0]
    for p in parts[1:]:
        out = And(out, p)
    return out


def disjunction(parts) -> Expr:
    parts = list(parts)
    if not parts:
        return FALSE
    out = parts[0]
    for p in parts[1:]:
        out = Or(out, p)
    return out


def is_null_literal(e: Expr) -> bool:
    return isinstance(e, Literal) and e.value is None


def contains_aggregate(e: Expr) -> bool:
    return bool(e.mask & Agg.bit) or any(isinstance(n, Opaque) and n.kind == "aggregate"
                                         for n in e.walk() if e.mask & Opaque.bit)
