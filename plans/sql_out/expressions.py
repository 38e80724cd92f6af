"""IR expressions -> sqlglot expressions, with Spark's operator precedence and the
column names the plan says."""

from __future__ import annotations

from typing import Protocol

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir.dialect import ARG_PREFIX
from ..ir.errors import InternalError
from ..ir.naming import struct_field_name
from ..ir.tree import fold
from .literals import data_type_sql, literal_is_plain, literal_sql
from .names import column_ref

# Binding strength of operators as Spark parses them (higher binds tighter).
_PRECEDENCE: dict[type[exp.Expr], int] = {
    exp.Or: 1, exp.And: 2, exp.Not: 3,
    exp.EQ: 4, exp.NullSafeEQ: 4, exp.NEQ: 4, exp.LT: 4, exp.LTE: 4, exp.GT: 4, exp.GTE: 4,
    exp.Is: 4, exp.In: 4, exp.Between: 4, exp.Like: 4,
    exp.BitwiseOr: 5, exp.BitwiseXor: 6, exp.BitwiseAnd: 7,
    exp.BitwiseLeftShift: 8, exp.BitwiseRightShift: 8,
    exp.Add: 9, exp.Sub: 9, exp.DPipe: 9,
    exp.Mul: 10, exp.Div: 10, exp.IntDiv: 10, exp.Mod: 10,
    exp.Neg: 11, exp.BitwiseNot: 11,
}
# binds tighter than any operator
ATOMIC = 12


def _prec(node: exp.Expr) -> int:
    return _PRECEDENCE.get(type(node), 100)


def _wrap(child: exp.Expr, parent_prec: int, strict: bool = False) -> exp.Expr:
    p = _prec(child)
    if p < parent_prec or (strict and p == parent_prec and p < 100):
        return exp.Paren(this=child)
    return child


def _faithful(e: E.Expr) -> bool:
    """Would Spark name the regenerated SQL of e as spark_name(e)?"""
    for n in e.walk():
        if isinstance(n, E.Cast) and not n.user:
            return False
        if isinstance(n, E.Alias) and n is not e:
            return False
        if isinstance(n, E.Literal) and not literal_is_plain(n):
            return False
        if isinstance(n, E.Opaque) and n.rewritten:  # Spark names it after its arguments as written
            return False
    return True


def _names_kept(e: E.Expr, refs) -> bool:
    """Is every column of e written under its own name?  (A column of a FROM item
    renamed to be unique, `_q.y_2` for y, makes Spark name `y * a` as `(y_2 * a)`, and a
    subquery after its outer references, `scalarsubquery(k_2)`.)"""
    for n in _with_outer_references(e):
        if isinstance(n, E.Attribute):
            ref = refs.get(n.expr_id)
            if type(ref) is tuple:
                if ref[0] != n.name:
                    return False
            elif isinstance(ref, exp.Column):
                if ref.name != n.name:
                    return False
            elif ref is not None:
                return False
    return True


def _with_outer_references(e: E.Expr):
    """The nodes of e, and the outer references inside its subqueries' plans."""
    from ..ir.logical import outer_references

    for n in e.walk():
        yield n
        if isinstance(n, E.SubqueryExpr):
            outer = outer_references(n.plan)
            if outer:
                for op in n.plan.walk():
                    for x in op.expressions:
                        yield from (a for a in x.walk() if isinstance(a, E.Attribute) and a.expr_id in outer)


WRITTEN_FROM = "sparkfold_written_from"  # meta: which plan expression a node was written from

_AGG_CLASSES = {"count": exp.Count}


class QueryWriter(Protocol):
    """What writing an expression needs of the generator (`to_sql.SqlGenerator`): the
    SQL of a subquery's plan, with the outer query's references."""

    def query(self, plan: L.Plan, outer: dict[int, exp.Expression] | None = None) -> exp.Expression: ...


class ExprWriter:
    """Writes one expression; `refs` maps attribute ids to their SQL references."""

    def __init__(self, gen: "QueryWriter", refs: dict[int, exp.Expression]):
        self.gen = gen
        self.refs = refs

    def __call__(self, e: E.Expr) -> exp.Expression:
        written = getattr(self.gen, "written", None)
        if written is None:
            return fold(e, self._node)

        def recorded(x: E.Expr, args: list[exp.Expression]) -> exp.Expression:
            out = self._node(x, args)
            if WRITTEN_FROM not in out.meta:  # an alias is its child's node: the child's
                out.meta[WRITTEN_FROM] = len(written)
                written.append(x)
            return out

        return fold(e, recorded)

    def _ref(self, a: E.Attribute) -> exp.Expression:
        ref = self.refs.get(a.expr_id)
        if ref is None:
            raise InternalError(f"no reference for {a.name}#{a.expr_id} while writing SQL")
        if type(ref) is tuple:  # a column of a FROM item, built when first written
            return column_ref(*ref)
        return ref.copy()

    def _node(self, e: E.Expr, args: list[exp.Expression]) -> exp.Expression:
        match e:
            case E.Literal(value, dt):
                return literal_sql(value, dt)
            case E.Attribute():
                return self._ref(e)
            case E.Alias():
                return args[0]
            case E.Not(child) if isinstance(child, (E.In, E.IsNull)):
                # NOT (a IS NULL) is not written `a IS NOT NULL` (sqlglot prints NOT over IS
                # so): that is Spark's IsNotNull, which no longer holds a grouping
                # expression `a IS NULL` (MISSING_AGGREGATION)
                return exp.Not(this=exp.Paren(this=args[0]))
            case E.Not():
                return exp.Not(this=_wrap(args[0], 4))
            case E.IsNull():
                return exp.Is(this=_wrap(args[0], 5), expression=exp.Null())
            case E.IsNotNull():
                return exp.Not(this=exp.Is(this=_wrap(args[0], 5), expression=exp.Null()))
            case E.Negate(child) if isinstance(child, E.Literal):
                # -(0) is a negation (typed as its operand's type), but -0 a literal (typed
                # by its digits: d + -0 is decimal(11,2), d + -(0) decimal(13,2))
                return exp.Neg(this=exp.Paren(this=args[0]))
            case E.Negate():
                return exp.Neg(this=_wrap(args[0], _PRECEDENCE[exp.Neg], strict=True))
            case E.And() | E.Or() | E.Comparison() | E.Arithmetic():
                cls = _BINARY[type(e)]
                prec = _PRECEDENCE[cls]
                left_strict = cls in _COMPARISON_CLASSES
                return cls(this=_wrap(args[0], prec, strict=left_strict),
                           expression=_wrap(args[1], prec, strict=True))
            case E.Cast(_, to, try_):
                target = data_type_sql(to)
                if try_:
                    return exp.TryCast(this=args[0], to=target, safe=True)
                return exp.Cast(this=args[0], to=target)
            case E.If():
                return exp.If(this=args[0], true=args[1], false=args[2])
            case E.CaseWhen(branches, otherwise):
                ifs = [exp.If(this=args[2 * i], true=args[2 * i + 1]) for i in range(len(branches))]
                return exp.Case(ifs=ifs, default=args[-1] if otherwise is not None else None)
            case E.Coalesce(_, fname):
                return exp.Anonymous(this=fname, expressions=args)
            case E.In():
                return exp.In(this=_wrap(args[0], 5), expressions=args[1:])
            case E.Func("between"):
                return exp.Between(this=_wrap(args[0], 5), low=_wrap(args[1], 5), high=_wrap(args[2], 5))
            case E.Func("like"):
                return exp.Like(this=_wrap(args[0], 5), expression=_wrap(args[1], 5))
            case E.Func(name):
                return exp.Anonymous(this=name, expressions=args)
            case E.Agg(name, fargs, distinct, flt):
                n = len(fargs)
                inner = args[:n]
                if distinct:
                    inner = [exp.Distinct(expressions=inner)]
                call: exp.Expression = exp.Anonymous(this=name, expressions=inner)
                if flt is not None:
                    call = exp.Filter(this=call, expression=exp.Where(this=args[n]))
                return call
            case E.Opaque():
                return self._opaque(e, args)
            case E.ScalarSubquery(plan):
                return exp.Subquery(this=self.gen.query(plan, self.refs))
            case E.Exists(plan):
                return exp.Exists(this=self.gen.query(plan, self.refs))
            case E.InSubquery(values, plan):
                value = args[0] if len(args) == 1 else exp.Tuple(expressions=args)
                return exp.In(this=_wrap(value, 5), query=exp.Subquery(this=self.gen.query(plan, self.refs)))
            case E.SortOrder(_, asc, nulls_first):
                return exp.Ordered(this=args[0], desc=True if not asc else None, nulls_first=nulls_first)
            case _:
                raise InternalError(f"cannot write {type(e).__name__} as SQL")

    def _opaque(self, e: E.Opaque, args: list[exp.Expression]) -> exp.Expression:
        template = e.template.copy()
        if not args:
            return template
        if isinstance(template, exp.Column) and template.name.startswith(ARG_PREFIX):
            return args[int(template.name[len(ARG_PREFIX):])]
        for col in list(template.find_all(exp.Column)):
            name = col.name
            if name.startswith(ARG_PREFIX) and not col.table:
                i = int(name[len(ARG_PREFIX):])
                # (an argument of a call stands between its commas; anywhere else in
                # the template, parenthesized)
                call_argument = isinstance(col.parent, exp.Anonymous) and col.arg_key == "expressions"
                arg: exp.Expr = args[i].copy() if call_argument else _wrap(args[i].copy(), ATOMIC)
                written = col.meta.get("written_name")
                if written is not None and _struct_field(col) \
                        and struct_field_name(arg, col.parent.expressions.index(col)) != written:
                    # struct(c) names its field after the column as written, struct(f(x))
                    # `col1`: keep that name when the argument is written otherwise (`x.a`
                    # for `X.A`, `x` for `coalesce(x, NULL)`, `id#2` in a DataFrame program)
                    arg = exp.alias_(arg, written, quoted=True, copy=False)
                col.replace(arg)
        return template


def _struct_field(node: exp.Expression) -> bool:
    """Is node an argument of struct(...) or of a tuple (a struct) as written?"""
    parent = node.parent
    if isinstance(parent, (exp.Struct, exp.Tuple)):
        return True
    return isinstance(parent, exp.Anonymous) and parent.name.lower() == "struct" and node.arg_key == "expressions"


_BINARY: dict[type[E.Expr], type[exp.Expression]] = {
    E.And: exp.And, E.Or: exp.Or, E.EqualTo: exp.EQ, E.EqualNullSafe: exp.NullSafeEQ,
    E.LessThan: exp.LT, E.LessThanOrEqual: exp.LTE, E.GreaterThan: exp.GT,
    E.GreaterThanOrEqual: exp.GTE, E.Add: exp.Add, E.Subtract: exp.Sub, E.Multiply: exp.Mul,
    E.Divide: exp.Div, E.IntegralDivide: exp.IntDiv, E.Remainder: exp.Mod,
}


_COMPARISON_CLASSES = {exp.EQ, exp.NullSafeEQ, exp.LT, exp.LTE, exp.GT, exp.GTE}
