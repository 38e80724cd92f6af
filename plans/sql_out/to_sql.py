"""Logical plan -> Spark SQL (through sqlglot's generator).

The plan is turned back into SELECT blocks bottom-up.  A block fills its clauses in
SQL's evaluation order (FROM, WHERE, GROUP BY, HAVING, SELECT, DISTINCT, ORDER BY,
OFFSET, LIMIT); an operator that would need an earlier clause of a block already past
it wraps the block as a subquery with a fresh alias.  Column references are always
qualified by their FROM item's alias, and aliases are unique in the whole query, so
references cannot be captured by an inner scope.

Literals are written so Spark reads back exactly the value and type (`0L`, `1.5D`,
`CAST('NaN' AS DOUBLE)`, `CAST(NULL AS INT)`), and every select item gets the name the
plan says (an `AS` is left out only when Spark would generate that very name).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Callable

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir import types as T
from ..ir.dialect import ARG_PREFIX, DIALECT, TYPED_LITERAL_PREFIX, deep_stack
from ..ir.errors import InternalError
from ..ir.naming import spark_name
from ..ir.tree import fold

# ---------------------------------------------------------------------------
# Expressions
# ---------------------------------------------------------------------------

# Binding strength of operators as Spark parses them (higher binds tighter).
_PRECEDENCE = {
    exp.Or: 1, exp.And: 2, exp.Not: 3,
    exp.EQ: 4, exp.NullSafeEQ: 4, exp.NEQ: 4, exp.LT: 4, exp.LTE: 4, exp.GT: 4, exp.GTE: 4,
    exp.Is: 4, exp.In: 4, exp.Between: 4, exp.Like: 4,
    exp.BitwiseOr: 5, exp.BitwiseXor: 6, exp.BitwiseAnd: 7,
    exp.Add: 8, exp.Sub: 8, exp.DPipe: 8,
    exp.Mul: 9, exp.Div: 9, exp.IntDiv: 9, exp.Mod: 9,
    exp.Neg: 10, exp.BitwiseNot: 10,
}


def _prec(node: exp.Expression) -> int:
    return _PRECEDENCE.get(type(node), 100)


def _wrap(child: exp.Expression, parent_prec: int, strict: bool = False) -> exp.Expression:
    p = _prec(child)
    if p < parent_prec or (strict and p == parent_prec and p < 100):
        return exp.Paren(this=child)
    return child


def data_type_sql(t: T.DataType) -> exp.DataType:
    return exp.DataType.build(t.sql(), dialect="spark")


def _typed_number(text: str, suffix_type: str) -> exp.Expression:
    neg = text.startswith("-")
    lit = exp.Anonymous(this=TYPED_LITERAL_PREFIX + suffix_type,
                        expressions=[exp.Literal.number(text.lstrip("-"))])
    return exp.Neg(this=lit) if neg else lit


def _natural_decimal(v: Decimal) -> T.DecimalType:
    _, digits, exponent = v.as_tuple()
    scale = max(-exponent, 0)
    return T.DecimalType(max(len(digits), scale, 1), scale)


def literal_sql(value, t: T.DataType) -> exp.Expression:
    """SQL text that Spark reads back as exactly this value of exactly this type."""
    if value is None:
        if t == T.NULL:
            return exp.Null()
        return exp.Cast(this=exp.Null(), to=data_type_sql(t))
    if t == T.BOOLEAN:
        return exp.true() if value else exp.false()
    if t == T.INT:
        return exp.Literal.number(value) if value >= 0 else exp.Neg(this=exp.Literal.number(-value))
    if t in (T.LONG, T.SHORT, T.BYTE):
        suffix = {T.LONG: "bigint", T.SHORT: "smallint", T.BYTE: "tinyint"}[t]
        return _typed_number(str(value), suffix)
    if t == T.DOUBLE:
        v = float(value)
        if math.isnan(v) or math.isinf(v):
            text = "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
            return exp.Cast(this=exp.Literal.string(text), to=data_type_sql(T.DOUBLE))
        return _typed_number(repr(v), "double")
    if t == T.FLOAT:
        v = float(value)
        text = "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity") if math.isinf(v) \
            else repr(v)
        return exp.Cast(this=exp.Literal.string(text), to=data_type_sql(T.FLOAT))
    if isinstance(t, T.DecimalType):
        d = Decimal(value)
        if _natural_decimal(d) == t:
            text = format(d, "f")
            if d.is_signed() and d == 0:
                text = text.lstrip("-")
            if text.startswith("-"):
                return exp.Neg(this=_decimal_literal(text[1:]))
            return _decimal_literal(text)
        return exp.Cast(this=exp.Literal.string(format(d, "f")), to=data_type_sql(t))
    if t == T.STRING:
        return exp.Literal.string(str(value))
    if t == T.BINARY:
        return exp.HexString(this=bytes(value).hex().upper())
    if t == T.DATE and isinstance(value, date):
        return exp.Anonymous(this=TYPED_LITERAL_PREFIX + "date", expressions=[exp.Literal.string(value.isoformat())])
    if t in (T.TIMESTAMP, T.TIMESTAMP_NTZ) and isinstance(value, datetime):
        kind = "timestamp" if t == T.TIMESTAMP else "timestamp_ntz"
        return exp.Anonymous(this=TYPED_LITERAL_PREFIX + kind,
                             expressions=[exp.Literal.string(value.isoformat(sep=" "))])
    if t in T.INTERVAL_UNITS and isinstance(value, tuple):
        name, field, size = T.INTERVAL_UNITS[t]
        return exp.Interval(this=exp.Literal.string(str(value[field] // size)), unit=exp.Var(this=name))
    raise InternalError(f"cannot write a literal {value!r} of type {t}")


def _decimal_literal(text: str) -> exp.Expression:
    if "." in text:
        return exp.Literal.number(text)
    # an integral decimal literal needs the BD suffix to stay a decimal
    return exp.Anonymous(this=TYPED_LITERAL_PREFIX + "decimal", expressions=[exp.Literal.number(text)])


def literal_is_plain(lit: E.Literal) -> bool:
    """Does the literal's SQL text make Spark name the column as spark_name(lit) does?"""
    v, t = lit.value, lit.data_type
    if v is None:
        return t == T.NULL
    if t == T.DOUBLE:
        return not (math.isnan(v) or math.isinf(v))
    if t == T.FLOAT:
        return False
    if isinstance(t, T.DecimalType):
        return _natural_decimal(Decimal(v)) == t
    return True


def _faithful(e: E.Expr) -> bool:
    """Would Spark name the regenerated SQL of e as spark_name(e)?"""
    for n in e.walk():
        if isinstance(n, E.Cast) and not n.user:
            return False
        if isinstance(n, E.Alias) and n is not e:
            return False
        if isinstance(n, E.Literal) and not literal_is_plain(n):
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


_AGG_CLASSES = {"count": exp.Count}


class ExprWriter:
    """Writes one expression; `refs` maps attribute ids to their SQL references."""

    def __init__(self, gen: "SqlGenerator", refs: dict[int, exp.Expression]):
        self.gen = gen
        self.refs = refs

    def __call__(self, e: E.Expr) -> exp.Expression:
        return fold(e, self._node)

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
            case E.Not(child) if isinstance(child, E.In):
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
                return exp.Neg(this=_wrap(args[0], 10, strict=True))
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
                col.replace(_wrap(args[i].copy(), 11))
        return template


_BINARY = {
    E.And: exp.And, E.Or: exp.Or, E.EqualTo: exp.EQ, E.EqualNullSafe: exp.NullSafeEQ,
    E.LessThan: exp.LT, E.LessThanOrEqual: exp.LTE, E.GreaterThan: exp.GT,
    E.GreaterThanOrEqual: exp.GTE, E.Add: exp.Add, E.Subtract: exp.Sub, E.Multiply: exp.Mul,
    E.Divide: exp.Div, E.IntegralDivide: exp.IntDiv, E.Remainder: exp.Mod,
}
_COMPARISON_CLASSES = {exp.EQ, exp.NullSafeEQ, exp.LT, exp.LTE, exp.GT, exp.GTE}


# ---------------------------------------------------------------------------
# Blocks
# ---------------------------------------------------------------------------


@dataclass
class Block:
    """A SELECT being assembled (or a finished set operation)."""

    output: list[E.Attribute]
    refs: dict[int, exp.Expression]  # how WHERE/GROUP BY/SELECT refer to FROM columns
    from_: exp.Expression | None = None
    joins: list[exp.Join] = field(default_factory=list)
    where: list[exp.Expression] = field(default_factory=list)
    group: list[exp.Expression] | None = None
    having: list[exp.Expression] = field(default_factory=list)
    select: list[tuple[E.Attribute, exp.Expression]] | None = None
    provisional: bool = False  # the select list of an aggregate, which a Project may replace
    definitions: dict[int, E.Expr] = field(default_factory=dict)  # aggregate outputs' expressions
    distinct: bool = False
    order: list[exp.Expression] | None = None
    order_aliases: set[int] = field(default_factory=set)
    offset: int | None = None
    limit: int | None = None
    setop: exp.Expression | None = None
    union_all: bool = False  # setop is a chain of UNION ALL that DISTINCT may turn into UNION

    @property
    def from_only(self) -> bool:
        return (self.setop is None and not self.where and self.group is None and not self.having
                and self.select is None and not self.distinct and self.order is None
                and self.offset is None and self.limit is None)

    @property
    def closed(self) -> bool:
        """Nothing but a subquery wrapper can sit on top (ordering clauses are set)."""
        return self.order is not None or self.offset is not None or self.limit is not None


class SqlGenerator:
    def __init__(self):
        self.aliases: set[str] = set()
        self.counter = 0

    # -- entry points ------------------------------------------------------
    def query(self, plan: L.Plan, outer: dict[int, exp.Expression] | None = None) -> exp.Expression:
        block = self.block(plan, outer or {})
        return self.finish(block, exact_names=True)[0]

    def fresh_alias(self, base: str) -> str:
        base = base or "_q"
        name = base
        n = 1
        while name.lower() in self.aliases:
            n += 1
            name = f"{base}_{n}"
        self.aliases.add(name.lower())
        return name

    # -- blocks ---------------------------------------------------------------
    def block(self, plan: L.Plan, outer: dict[int, exp.Expression]) -> Block:
        return _BLOCK_WRITERS[type(plan)](self, plan, outer)

    def expr(self, e: E.Expr, refs: dict[int, exp.Expression]) -> exp.Expression:
        return ExprWriter(self, refs)(e)

    def _Relation(self, plan: L.Relation, outer) -> Block:
        return self._table(plan, plan.table.split(".")[-1], outer)

    def _table(self, rel: L.Relation, alias: str, outer) -> Block:
        name = self.fresh_alias(alias)
        parts = rel.table.split(".")
        ident = lambda n: exp.to_identifier(n, quoted=_needs_quotes(n))  # noqa: E731
        table = exp.Table(this=ident(parts[-1]), db=ident(parts[-2]) if len(parts) > 1 else None,
                          catalog=ident(parts[-3]) if len(parts) > 2 else None)
        if name.lower() != parts[-1].lower() or name != alias:
            table.set("alias", exp.TableAlias(this=exp.to_identifier(name, quoted=_needs_quotes(name))))
        refs = dict(outer)
        for a in rel.output:
            refs[a.expr_id] = (a.name, name)
        return Block(list(rel.output), refs, from_=table)

    def _SubqueryAlias(self, plan: L.SubqueryAlias, outer) -> Block:
        child = plan.child
        if isinstance(child, L.Relation):
            block = self._table(child, plan.alias, outer)
            block.output = list(plan.output)
            return block
        if isinstance(child, L.LocalRelation) and child.rows:
            return self._values(child, plan.alias, outer, list(plan.output))
        inner = self.block(child, outer)
        return self.wrap(inner, outer, plan.alias, list(plan.output))

    def _LocalRelation(self, plan: L.LocalRelation, outer) -> Block:
        if plan.rows:
            return self._values(plan, "_values", outer, list(plan.output))
        # the empty relation: typed NULLs, no rows, no table read
        select = [(a, exp.alias_(literal_sql(None, a.data_type), a.name, quoted=_needs_quotes(a.name)))
                  for a in plan.output]
        block = Block(list(plan.output), dict(outer), where=[exp.false()])
        block.select = select
        return block

    def _values(self, rel: L.LocalRelation, alias: str, outer, output) -> Block:
        name = self.fresh_alias(alias)
        names = _unique_names([a.name for a in rel.output])
        rows = [exp.Tuple(expressions=[literal_sql(v, a.data_type) for v, a in zip(row, rel.output)])
                for row in rel.rows]
        values = exp.Values(expressions=rows, alias=exp.TableAlias(
            this=exp.to_identifier(name, quoted=_needs_quotes(name)), columns=[exp.to_identifier(n, quoted=_needs_quotes(n)) for n in names]))
        refs = dict(outer)
        for a, n in zip(output, names):
            refs[a.expr_id] = (n, name)
        return Block(list(output), refs, from_=values)

    def _OneRowRelation(self, plan, outer) -> Block:
        return Block([], dict(outer))

    def _OpaqueRelation(self, plan: L.OpaqueRelation, outer) -> Block:
        """A SELECT block kept as text: its input goes back in place of the placeholder
        table, its placeholders become references to the input's columns."""
        template = plan.template.copy()
        refs = dict(outer)
        needed = set()
        for a in plan.args:
            needed |= a.references
        for i, child in enumerate(plan.inputs):
            if isinstance(child, (L.SubqueryAlias, L.Relation)):
                # a table or an aliased subquery is a FROM item as it is (and regenerating
                # the output does not add a wrapper each time)
                inner = self.block(child, outer)
            else:
                used = [a for a in child.output if a.expr_id in needed]
                if used and len(used) < len(child.output) and _reads_only_its_args(plan.template):
                    child = L.Project(tuple(used), child)  # read only the columns the block uses
                inner = self.wrap(self.block(child, outer), outer, "_in")
            refs.update(inner.refs)
            for table in list(template.find_all(exp.Table)):
                if table.name == f"__sf_input_{i}":
                    item = inner.from_.copy()
                    if table.args.get("pivots"):
                        item.set("pivots", table.args["pivots"])
                    table.replace(item)
        writer = ExprWriter(self, refs)
        for col in list(template.find_all(exp.Column)):
            name = col.name
            if name.startswith(ARG_PREFIX) and not col.table:
                value = writer(plan.args[int(name[len(ARG_PREFIX):])])
                parent = col.parent
                if isinstance(template, exp.Select) and parent is template and isinstance(value, exp.Column) \
                        and value.name != col.name:
                    # a bare column in the select list: keep the name it had
                    arg = plan.args[int(name[len(ARG_PREFIX):])]
                    if isinstance(arg, E.Attribute) and value.name != arg.name:
                        value = exp.alias_(value, arg.name, quoted=_needs_quotes(arg.name))
                col.replace(_wrap(value, 11))
        return Block(list(plan.output), dict(outer), setop=template)

    # -- unary operators --------------------------------------------------------
    def _Filter(self, plan: L.Filter, outer) -> Block:
        b = self.block(plan.child, outer)
        if b.setop is None and b.group is None and b.select is None and not b.distinct and not b.closed:
            b.where.append(self.expr(plan.condition, b.refs))
            b.output = list(plan.output)
            return b
        if b.group is not None and b.provisional and not b.distinct and not b.closed and \
                self._substitutable(plan.condition, b):
            b.having.append(self.expr(plan.condition, self._definition_refs(b)))
            return b
        b = self.wrap(b, outer)
        b.where.append(self.expr(plan.condition, b.refs))
        return b

    def _Project(self, plan: L.Project, outer) -> Block:
        b = self.block(plan.child, outer)
        if b.setop is None and not b.distinct and not b.closed:
            if b.select is None:
                b.select = [(E.to_attribute(p), self._item(p, b.refs)) for p in plan.projections]
                b.output = list(plan.output)
                return b
            if b.provisional and all(self._substitutable(p, b) for p in plan.projections):
                refs = self._definition_refs(b)
                existing = {a.expr_id: (a, item) for a, item in b.select}
                b.select = [existing[p.expr_id] if isinstance(p, E.Attribute) and p.expr_id in existing
                            and existing[p.expr_id][0].name == p.name
                            else (E.to_attribute(p), self._item(p, refs)) for p in plan.projections]
                if b.group == [] and not b.having and not any(
                        E.contains_aggregate(b.definitions[i]) for p in plan.projections
                        for i in p.references if i in b.definitions):
                    # `SELECT 1 FROM (SELECT count(*) FROM t)`: still one aggregated row
                    b.having.append(exp.true())
                b.provisional = False
                b.output = list(plan.output)
                return b
        if b.select is not None and b.setop is None and all(isinstance(p, E.Attribute) for p in plan.projections):
            # a subset of the select list (dropping ORDER BY's hidden columns)
            by_id = {a.expr_id: (a, item) for a, item in b.select}
            if all(p.expr_id in by_id and by_id[p.expr_id][0].name == p.name for p in plan.projections) \
                    and not (b.order_aliases - {p.expr_id for p in plan.projections}) and not b.distinct:
                b.select = [by_id[p.expr_id] for p in plan.projections]
                b.provisional = False
                b.output = list(plan.output)
                return b
        b = self.wrap(b, outer)
        b.select = [(E.to_attribute(p), self._item(p, b.refs)) for p in plan.projections]
        b.output = list(plan.output)
        return b

    def _item(self, p: E.Expr, refs) -> exp.Expression:
        """A select item producing attribute p's name."""
        if isinstance(p, E.Attribute):
            ref = self.expr(p, refs)
            if isinstance(ref, exp.Column) and ref.name == p.name:
                return ref
            return exp.alias_(ref, p.name, quoted=_needs_quotes(p.name))
        assert isinstance(p, E.Alias)
        body = self.expr(p.child, refs)
        if p.auto and _faithful(p.child) and _names_kept(p.child, refs) and spark_name(p.child) == p.name:
            return body
        if isinstance(body, exp.Column) and body.name == p.name and not isinstance(p.child, E.Opaque):
            return body
        return exp.alias_(body, p.name, quoted=_needs_quotes(p.name))

    def _Aggregate(self, plan: L.Aggregate, outer) -> Block:
        b = self.block(plan.child, outer)
        if not (b.setop is None and b.group is None and b.select is None and not b.distinct and not b.closed):
            b = self.wrap(b, outer)
        b.group = [_not_ordinal(self.expr(g, b.refs), g) for g in plan.grouping]
        b.select = [(E.to_attribute(p), self._item(p, b.refs)) for p in plan.aggregates]
        if not plan.grouping and not any(E.contains_aggregate(a) for a in plan.aggregates):
            # without GROUP BY and aggregate functions Spark would read a projection:
            # HAVING keeps it one aggregated row (also over an empty input)
            b.having.append(exp.true())
        b.provisional = True
        b.definitions = {E.to_attribute(p).expr_id: (p.child if isinstance(p, E.Alias) else p)
                         for p in plan.aggregates}
        b.output = list(plan.output)
        return b

    def _substitutable(self, e: E.Expr, b: Block) -> bool:
        """Can e's references to aggregate outputs be replaced by their definitions?"""
        for n in e.walk():
            if isinstance(n, E.Attribute) and n.expr_id in b.definitions:
                if not b.definitions[n.expr_id].deterministic:
                    return False
        return True

    def _definition_refs(self, b: Block) -> dict[int, exp.Expression]:
        refs = dict(b.refs)
        writer = ExprWriter(self, b.refs)
        for i, d in b.definitions.items():
            refs[i] = exp.Paren(this=writer(d)) if not isinstance(d, (E.Attribute, E.Literal, E.Agg)) \
                else writer(d)
        return refs

    def _Distinct(self, plan: L.Distinct, outer) -> Block:
        b = self.block(plan.child, outer)
        if b.setop is not None and b.union_all and not b.closed:
            b.setop = _union_distinct(b.setop)
            b.union_all = False
            return b
        if b.setop is None and not b.distinct and not b.closed:
            if b.select is None:
                b.select = [(a, self._item(a, b.refs)) for a in b.output]
            b.provisional = False
            b.distinct = True
            return b
        b = self.wrap(b, outer)
        b.select = [(a, self._item(a, b.refs)) for a in b.output]
        b.distinct = True
        return b

    def _Sort(self, plan: L.Sort, outer) -> Block:
        b = self.block(plan.child, outer)
        if b.closed:
            b = self.wrap(b, outer)
        refs, aliases = self._order_refs(b)
        if refs is None:
            b = self.wrap(b, outer)
            refs, aliases = self._order_refs(b)
        used = {n.expr_id for o in plan.orders for n in o.walk() if isinstance(n, E.Attribute)}
        b.order = [_not_ordinal(self.expr(o, refs), o.child) for o in plan.orders]
        b.order_aliases = used & aliases
        return b

    def _order_refs(self, b: Block):
        """How ORDER BY refers to the block's outputs: by select alias (unqualified) when
        the output is an aliased item with a unique name, else by its FROM reference."""
        if b.setop is not None:
            names = [a.name.lower() for a in b.output]
            if len(set(names)) != len(names):
                return None, set()
            return {a.expr_id: exp.column(a.name, quoted=_needs_quotes(a.name)) for a in b.output}, \
                {a.expr_id for a in b.output}
        if b.select is None:
            return b.refs, set()
        refs = dict(b.refs)
        aliases = set()
        names = [a.name.lower() for a, _ in b.select]
        for a, item in b.select:
            if isinstance(item, exp.Column) and a.expr_id in b.refs:
                continue  # a plain column: its FROM reference works in ORDER BY
            # Spark resolves aggregate expressions in ORDER BY, except past a HAVING or a
            # DISTINCT (UNRESOLVED_COLUMN): there the select alias is used.
            if a.expr_id in b.definitions and b.definitions[a.expr_id].deterministic and not b.having \
                    and not b.distinct:
                refs[a.expr_id] = self._definition_refs(b)[a.expr_id]
            elif names.count(a.name.lower()) == 1:
                refs[a.expr_id] = exp.column(a.name, quoted=_needs_quotes(a.name))
                aliases.add(a.expr_id)
            else:
                return None, set()
        return refs, aliases

    def _Limit(self, plan: L.Limit, outer) -> Block:
        b = self.block(plan.child, outer)
        if b.limit is not None:
            b = self.wrap(b, outer)
        b.limit = plan.count
        return b

    def _Offset(self, plan: L.Offset, outer) -> Block:
        b = self.block(plan.child, outer)
        if b.limit is not None or b.offset is not None:
            b = self.wrap(b, outer)
        b.offset = plan.count
        return b

    # -- joins and set operations ---------------------------------------------------
    def _Join(self, plan: L.Join, outer) -> Block:
        left = self.block(plan.left, outer)
        if not left.from_only or left.from_ is None:
            left = self.wrap(left, outer)
        right = self.block(plan.right, outer)
        if not right.from_only or right.joins or right.from_ is None:
            right = self.wrap(right, outer)
        refs = {**left.refs, **right.refs}
        jt = plan.join_type
        kwargs: dict = {}
        if jt in (L.LEFT_OUTER, L.RIGHT_OUTER, L.FULL_OUTER):
            kwargs["side"] = {L.LEFT_OUTER: "LEFT", L.RIGHT_OUTER: "RIGHT", L.FULL_OUTER: "FULL"}[jt]
        elif jt == L.LEFT_SEMI:
            kwargs.update(side="LEFT", kind="SEMI")
        elif jt == L.LEFT_ANTI:
            kwargs.update(side="LEFT", kind="ANTI")
        condition = plan.condition
        if condition is None and jt in (L.INNER, L.CROSS):
            kwargs["kind"] = "CROSS"
        elif condition is None:
            kwargs["on"] = exp.true()
        else:
            kwargs["on"] = self.expr(condition, refs)
        join = exp.Join(this=right.from_, **kwargs)
        out_refs = left.refs if jt in (L.LEFT_SEMI, L.LEFT_ANTI) else refs
        return Block(list(plan.output), dict(out_refs), from_=left.from_, joins=left.joins + [join])

    def _Union(self, plan: L.Union, outer) -> Block:
        queries = []
        for i, child in enumerate(plan.inputs):
            b = self.block(child, outer)
            q, _ = self.finish(b, exact_names=(i == 0))
            queries.append(_setop_operand(q))
        ast = queries[0]
        for q in queries[1:]:
            ast = exp.Union(this=ast, expression=q, distinct=False)
        return Block(list(plan.output), dict(outer), setop=ast, union_all=len(queries) > 1)

    def _Intersect(self, plan, outer) -> Block:
        return self._binary_setop(plan, outer, exp.Intersect)

    def _Except(self, plan, outer) -> Block:
        return self._binary_setop(plan, outer, exp.Except)

    def _binary_setop(self, plan, outer, cls) -> Block:
        lq, _ = self.finish(self.block(plan.left, outer), exact_names=True)
        rq, _ = self.finish(self.block(plan.right, outer), exact_names=False)
        ast = cls(this=_setop_operand(lq), expression=_setop_operand(rq), distinct=not plan.all)
        return Block(list(plan.output), dict(outer), setop=ast)

    # -- finishing --------------------------------------------------------------------
    def wrap(self, b: Block, outer, alias: str = "_q", output: list[E.Attribute] | None = None) -> Block:
        """Turn a block into a FROM item `(SELECT ...) AS alias`."""
        query, names = self.finish(b, exact_names=False)
        name = self.fresh_alias(alias)
        out = output if output is not None else b.output
        sub = exp.Subquery(this=query, alias=exp.TableAlias(this=exp.to_identifier(name, quoted=_needs_quotes(name))))
        refs = dict(outer)
        for a, n in zip(out, names):
            refs[a.expr_id] = (n, name)
        return Block(list(out), refs, from_=sub)

    def finish(self, b: Block, exact_names: bool) -> tuple[exp.Expression, list[str]]:
        """The block as a query; returns it and the names of its columns.  Without
        `exact_names` (a subquery) duplicate names are made unique."""
        if b.setop is not None:
            q = b.setop
            if b.order is not None or b.limit is not None or b.offset is not None:
                q = q.copy()
                if b.order is not None:
                    q.set("order", exp.Order(expressions=b.order))
                if b.offset is not None:
                    q.set("offset", exp.Offset(expression=literal_sql(b.offset, T.INT)))
                if b.limit is not None:
                    q.set("limit", exp.Limit(expression=literal_sql(b.limit, T.INT)))
            names = [a.name for a in b.output]
            if not exact_names and len({n.lower() for n in names}) != len(names):
                # a set operation takes its first input's names: rename the duplicates
                # positionally, `SELECT _q.* FROM (<setop>) AS _q(y, c1, y_2)` (wrapping
                # the block again would meet the same duplicates, forever)
                unique = _unique_names(names)
                alias = self.fresh_alias("_q")
                sub = exp.Subquery(this=q, alias=exp.TableAlias(
                    this=exp.to_identifier(alias, quoted=_needs_quotes(alias)),
                    columns=[exp.to_identifier(n, quoted=_needs_quotes(n)) for n in unique]))
                sel = exp.Select(expressions=[column_ref(n, alias) for n in unique]).from_(sub, copy=False)
                return sel, unique
            return q, names
        select = b.select
        if select is None:
            select = [(a, self._item(a, b.refs)) for a in b.output]
        names = [a.name for a, _ in select]
        items = [item for _, item in select]
        if not exact_names:
            unique = _unique_names(names)
            fixed = []
            for (a, item), n in zip(select, unique):
                if n != a.name:
                    body = item.this if isinstance(item, exp.Alias) else item
                    item = exp.alias_(body.copy(), n, quoted=_needs_quotes(n))
                fixed.append(item)
            items, names = fixed, unique
        q = exp.Select(expressions=items or [exp.Literal.number(1)])
        if not items:
            names = []
        if b.distinct:
            q.set("distinct", exp.Distinct())
        if b.from_ is not None:
            q.set("from_", exp.From(this=b.from_))
        if b.joins:
            q.set("joins", list(b.joins))
        if b.where:
            q.set("where", exp.Where(this=_conjoin(b.where)))
        if b.group is not None and b.group:
            q.set("group", exp.Group(expressions=b.group))
        if b.having:
            q.set("having", exp.Having(this=_conjoin(b.having)))
        if b.order is not None:
            q.set("order", exp.Order(expressions=b.order))
        if b.offset is not None:
            q.set("offset", exp.Offset(expression=literal_sql(b.offset, T.INT)))
        if b.limit is not None:
            q.set("limit", exp.Limit(expression=literal_sql(b.limit, T.INT)))
        return q, names


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

# The writer of each logical operator: a table a reader (and a type checker) can follow.
_BLOCK_WRITERS: dict[type, Callable[..., Block]] = {
    L.Relation: SqlGenerator._Relation,
    L.SubqueryAlias: SqlGenerator._SubqueryAlias,
    L.LocalRelation: SqlGenerator._LocalRelation,
    L.OneRowRelation: SqlGenerator._OneRowRelation,
    L.OpaqueRelation: SqlGenerator._OpaqueRelation,
    L.Filter: SqlGenerator._Filter,
    L.Project: SqlGenerator._Project,
    L.Aggregate: SqlGenerator._Aggregate,
    L.Distinct: SqlGenerator._Distinct,
    L.Sort: SqlGenerator._Sort,
    L.Limit: SqlGenerator._Limit,
    L.Offset: SqlGenerator._Offset,
    L.Join: SqlGenerator._Join,
    L.Union: SqlGenerator._Union,
    L.Intersect: SqlGenerator._Intersect,
    L.Except: SqlGenerator._Except,
}


def _reads_only_its_args(template: exp.Expression) -> bool:
    """Does an opaque block read no input column but those its args name?  A PIVOT
    groups by every input column it does not pivot (so pruning its input changes the
    rows: one row instead of one per year), and `*`, LATERAL VIEW and UNPIVOT read
    columns the text does not name either; their input keeps all its columns."""
    if any(t.args.get("pivots") for t in template.find_all(exp.Table)):
        return False
    return not any(True for _ in template.find_all(exp.Star, exp.Lateral, exp.Pivot))  # (UNPIVOT is a Pivot)


def _not_ordinal(node: exp.Expression, e: E.Expr) -> exp.Expression:
    """An INT literal in GROUP BY / ORDER BY is read as a column position: cast it.
    Checked on the written SQL too: a key that refers to a select item may be written
    as the item's expression (`ORDER BY max(k), -1` for `SELECT max(k), -1 ... ORDER BY
    1, 2`), and Spark reads that `-1` as position -1 (ORDER_BY_POS_OUT_OF_RANGE)."""
    if (isinstance(e, E.Literal) and e.data_type == T.INT and e.value is not None) or _ordinal_sql(node):
        target = node.this if isinstance(node, exp.Ordered) else node
        cast = exp.Cast(this=target.copy(), to=data_type_sql(T.INT))
        if isinstance(node, exp.Ordered):
            node.set("this", cast)
            return node
        return cast
    return node


def _ordinal_sql(node: exp.Expression) -> bool:
    """Whether Spark's parser reads `node` as an INT literal (an ordinal in GROUP BY /
    ORDER BY): digits in the INT range, parenthesized or not, `-` folded into the literal
    (`-(1)` is a negation, not a literal)."""
    if isinstance(node, exp.Ordered):
        node = node.this
    while isinstance(node, exp.Paren):
        node = node.this
    sign = 1
    if isinstance(node, exp.Neg):
        node, sign = node.this, -1
    if not (isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit()):
        return False
    return -(2 ** 31) <= sign * int(node.this) < 2 ** 31


def _conjoin(parts: list[exp.Expression]) -> exp.Expression:
    out = parts[0]
    for p in parts[1:]:
        out = exp.And(this=_wrap(out, 2), expression=_wrap(p, 2, strict=True))
    return out


def _setop_operand(q: exp.Expression) -> exp.Expression:
    if any(q.args.get(k) for k in ("order", "limit", "offset")) or isinstance(q, exp.SetOperation):
        return exp.Subquery(this=q) if not isinstance(q, exp.SetOperation) or q.args.get("order") \
            or q.args.get("limit") or q.args.get("offset") else q
    return q


def _union_distinct(ast: exp.Expression) -> exp.Expression:
    out = ast.copy()
    node = out
    while isinstance(node, exp.Union) and node.args.get("distinct") is False:
        node.set("distinct", True)
        node = node.this
    return out


def _unique_names(names: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for n in names:
        cand, k = n, 1
        while cand.lower() in seen:
            k += 1
            cand = f"{n}_{k}"
        seen.add(cand.lower())
        out.append(cand)
    return out


_PLAIN = __import__("re").compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_RESERVED = {"select", "from", "where", "group", "by", "order", "having", "limit", "offset", "and",
             "or", "not", "null", "true", "false", "join", "on", "as", "case", "when", "then", "else",
             "end", "union", "all", "distinct", "in", "is", "between", "like", "exists", "cross",
             "inner", "outer", "left", "right", "full", "semi", "anti", "using", "natural", "with",
             "table", "values", "intersect", "except", "minus", "cast", "interval", "date",
             "timestamp", "array", "map", "struct", "any", "some", "to", "window", "over",
             "partition", "rows", "range", "lateral", "create", "insert", "into", "div", "asc", "desc",
             "nulls", "first", "last", "for", "fetch", "only", "user", "current_date",
             "current_timestamp", "current_user", "primary", "references", "unique", "check",
             "constraint", "foreign", "column", "grant", "revoke", "both", "leading", "trailing",
             "position", "escape", "collate", "at", "time", "zone", "global", "local", "of",
             "authorization", "external", "union", "describe", "drop", "alter", "delete", "update",
             "set", "rollup", "cube", "grouping", "sets", "qualify", "pivot", "unpivot"}


@functools.lru_cache(maxsize=8192)
def _needs_quotes(name: str) -> bool:
    return not _PLAIN.match(name) or name.lower() in _RESERVED or name.lower().startswith(ARG_PREFIX)


def column_ref(name: str, table: str) -> exp.Column:
    """`table.name`, each part quoted when it needs to be."""
    return exp.Column(this=exp.Identifier(this=name, quoted=_needs_quotes(name)),
                      table=exp.Identifier(this=table, quoted=_needs_quotes(table)))


def plan_to_ast(plan: L.Plan) -> exp.Expression:
    return SqlGenerator().query(plan)


def plan_to_sql(plan: L.Plan, pretty: bool = False) -> str:
    """Spark SQL text for a plan (runs on a deep stack: sqlglot's printer recurses)."""

    def run():
        ast = plan_to_ast(plan)
        return ast.sql(dialect=DIALECT, pretty=pretty, normalize_functions=False)

    return deep_stack(run)
