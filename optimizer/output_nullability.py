"""The optimized query keeps the original's schema, nullability included.

Spark types a result's columns when it analyzes the query (`df.schema`), from the query
as written: a column is nullable or NOT NULL by what its expression and the operators
under it say (an outer join makes its padded side nullable, a literal is NOT NULL, a
filter proves nothing).  The rules rewrite by what they prove, so the optimized query,
analyzed as written, may type a column otherwise than the original does:
- NOT NULL where the original's is nullable: `false AND NULL` folded to `false`; a LEFT
  JOIN made inner, whose right side's NOT NULL columns are NOT NULL again;
- nullable where the original's is NOT NULL: `greatest(CAST('NaN' AS DOUBLE), 1D)`
  folded to NaN, whose only text is a cast from a string, which Spark types nullable.
For a test that compares schemas (`assertSchemaEqual`) or a writer that will not put a
nullable column in a NOT NULL one, that is another result.  So after the rules, every
output column whose nullability as written (`written_nullability`) is not the
original's is given the original's where it is made:
- nullable: `IF(TRUE, e, NULL)`, which is e and which Spark types nullable (its ELSE is
  NULL);
- NOT NULL: `coalesce(e, v)` with v a value of e's type that Spark types NOT NULL
  (`non_null_value`); e is never NULL, since the original's column is not;
- a column of an empty relation is typed as wanted (no row is read).
The place is the select list that makes the column (through ORDER BY, LIMIT, OFFSET,
DISTINCT, a filter or a subquery alias above it; one input of a UNION, both of an
INTERSECT, the left of an EXCEPT), else a projection added on top.

sparkfold types an expression it does not model (`Opaque`) nullable; Spark may not
(`concat_ws`), so a column whose nullability depends on one is not known: where the
rules changed it, it is made the original's with the wrapper, and where the original's
is the unknown one, they must have left it as it was.  When the original's nullability
cannot be written (that case; a NOT NULL column of an empty relation whose type has no
NOT NULL value to write; a NULL of a type with NOT NULL inside, which no cast gives),
the rules' rewrites are not kept: `keep_output_nullability` returns the analyzed plan,
and the query is kept as written.
"""

from __future__ import annotations

import time
from typing import Sequence

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from ..plans.ir import types as T
from ..plans.ir.tree import transform_up
from ..plans.sql_out.literals import non_null_value, written_nullable
from ..plans.sql_out.relations import local_relation_nullability
from ..rules.base import transform_plan
from .engine import Rewrite, RuleStats, Trace
from .validate import schema_error

NAME = "KeepOutputNullability"
BATCH = "Output schema"


class CannotKeep(Exception):
    """The optimized query cannot be written with the original's nullability."""


def written_nullability(plan: L.Plan, original: bool = False) -> list[bool | None]:
    """Per output column: does Spark type it nullable in the plan's query as written
    (SQL text or DataFrame program)?  None: that depends on an expression sparkfold does
    not model (`Opaque`, which it types nullable for safety; Spark may not).

    The plan's own nullability is what the rules proved; Spark's analyzer proves
    nothing: a reference has the nullability of the column it reads as its operator
    types it, a literal written as a cast from a string is nullable, a VALUES column is
    nullable when one of its values is.  Nullability grows with its inputs', so a
    column that is the same with every unmodelled expression nullable and with every
    one NOT NULL does not depend on them.

    `original`: the plan is the analyzed plan of the user's text, whose literals and
    VALUES are typed as the analyzer read them (`1.5F` is a NOT NULL float there; the
    writer writes a float as a cast from a string)."""
    return _written(plan, original)[0]


def _written(plan: L.Plan, original: bool = False) -> tuple[list[bool | None], list[str]]:
    """`written_nullability`, and the NULLs whose type no text has (see `_AsWritten`)."""
    unmodelled = _reads_unmodelled(plan)
    if original and not unmodelled:
        return [a.nullable for a in plan.output], []  # (the analyzer types a query as Spark does)
    high = _AsWritten(False, original)
    nullable: list[bool | None] = [a.nullable for a in transform_plan(plan, high).output]
    if unmodelled:
        low = [a.nullable for a in transform_plan(plan, _AsWritten(True, original)).output]
        nullable = [h if h == lo else None for h, lo in zip(nullable, low)]
    return nullable, high.untyped


def _by_arguments(plan: L.Plan, original: bool) -> list[bool]:
    """Per output column, its nullability as written with every unmodelled expression
    nullable exactly when one of its arguments is (as written): a third reading beside
    `_written`'s two, which tells a rewrite of an unmodelled call's arguments."""
    return [a.nullable for a in transform_plan(plan, _AsWritten(None, original)).output]


def _reads_unmodelled(plan: L.Plan) -> bool:
    stack = [plan]
    while stack:
        p = stack.pop()
        if p.mask & E.Opaque.bit:
            return True
        stack.extend(p.children)
        if p.mask & _SUBQUERY_MASK:
            stack.extend(s.plan for e in p.expressions for s in e.walk() if isinstance(s, E.SubqueryExpr))
    return False


_SUBQUERY_MASK = E.ScalarSubquery.bit | E.Exists.bit | E.InSubquery.bit


class _AsWritten:
    """An operator typed as Spark types it written, every unmodelled expression NOT NULL
    when `opaque_not_null`, nullable when False, and nullable as its arguments are when
    None (a class, not a closure: see `rules.base._PlanTransform`).

    `untyped` collects the NULLs no text can type: a typed NULL (or an empty relation's
    column) of a type with something NOT NULL inside (`collect_list`'s array<int> has
    no NULL elements), where `CAST(NULL AS ARRAY<INT>)` says they may be."""

    __slots__ = ("opaque_not_null", "original", "untyped")

    def __init__(self, opaque_not_null: bool | None, original: bool):
        self.opaque_not_null = opaque_not_null
        self.original = original
        self.untyped: list[str] = []

    def __call__(self, p: L.Plan) -> L.Plan:
        if isinstance(p, L.LocalRelation) and not self.original:
            if not p.rows:
                self.untyped.extend(a.data_type.simple_string() for a in p.output_ if _inner_not_null(a.data_type))
            attrs = tuple(a.with_nullability(n) for a, n in zip(p.output_, local_relation_nullability(p)))
            return p if all(a is b for a, b in zip(attrs, p.output_)) else p.copy(output_=attrs)
        if isinstance(p, (L.Relation, L.OneRowRelation, L.OpaqueRelation)) or not p.expressions:
            return p
        nullable = {a.expr_id: a.nullable for c in p.children for a in c.output}
        return p.map_expressions(_Written(nullable, self).expression)


_inner_not_null = T.inner_not_null


_WRITTEN_MASK = E.Attribute.bit | E.Literal.bit | E.Opaque.bit


class _Written:
    """An expression whose references have the nullability of the columns they read
    (`nullable`: expr id -> nullable) and whose literals are as nullable as their text."""

    __slots__ = ("nullable", "opaque_not_null", "original", "untyped")

    def __init__(self, nullable: dict[int, bool], pass_: _AsWritten):
        self.nullable = nullable
        self.opaque_not_null = pass_.opaque_not_null
        self.original = pass_.original
        self.untyped = pass_.untyped

    def expression(self, e: E.Expr) -> E.Expr:
        return transform_up(e, self.node, mask=_WRITTEN_MASK, opaque=(E.Opaque,))

    def node(self, e: E.Expr) -> E.Expr:
        if isinstance(e, E.Attribute):
            want = self.nullable.get(e.expr_id)
            return e if want is None else e.with_nullability(want)
        if isinstance(e, E.Literal) and not self.original:
            if e.value is None:
                if _inner_not_null(e.data_type):
                    self.untyped.append(e.data_type.simple_string())
            elif written_nullable(e.value, e.data_type):
                return _nullable(e)  # (a stand-in as nullable as the literal's text)
        if isinstance(e, E.Opaque) and e.nullable_known:
            return e  # (nullable, as Spark types it)
        if isinstance(e, E.Opaque) and self.opaque_not_null:
            return E.Attribute("opaque", e.data_type, False, -1)  # (a NOT NULL stand-in)
        if isinstance(e, E.Opaque) and self.opaque_not_null is None:
            nullable = any(self.expression(a).nullable for a in e.args)
            return E.Attribute("opaque", e.data_type, nullable, -1)  # (a stand-in as nullable as its arguments)
        return e


def _nullable(e: E.Expr) -> E.Expr:
    """e, typed nullable: `IF(TRUE, e, NULL)`."""
    return E.If(E.TRUE, e, E.null())


def _not_null(e: E.Expr) -> E.Expr:
    """e (never NULL), typed NOT NULL: `coalesce(e, v)`."""
    v = non_null_value(e.data_type)
    if v is None:
        raise CannotKeep(f"no value of type {e.data_type.simple_string()} that Spark types NOT NULL")
    return E.Coalesce((e, v))


def restored(plan: L.Plan, analyzed: L.Plan) -> L.Plan:
    """The plan with its output typed, as written, nullable as the analyzed plan's (the
    plan itself when it is already).  A column whose nullability as written is not
    known (None) is made so (`IF(TRUE, e, NULL)`, `coalesce(e, v)`) when the analyzed
    plan's is known; when the analyzed plan's is not known, it must be not known in the
    same way (the same unmodelled expression, unchanged by the rules).  The analyzed plan
    itself may need it: the writers have no NOT NULL text for some of the literals Spark
    reads (`1.5F` is written `CAST('1.5' AS FLOAT)`), and a query written whole
    (`always_regenerate`, the DataFrame program) is written from the plan."""
    target = written_nullability(analyzed, original=True)
    written, untyped = _written(plan)
    if untyped:
        raise CannotKeep(f"no text types a NULL as {untyped[0]} (NOT NULL inside)")
    want: dict[int, bool] = {}
    by_arguments: tuple[list[bool], list[bool]] | None = None
    for i, (t, w) in enumerate(zip(target, written)):
        if t is None:
            if w is not None:
                raise CannotKeep(f"the nullability of column {i + 1} in the original query depends on an "
                                 f"expression sparkfold does not model")
            if by_arguments is None:
                by_arguments = (_by_arguments(analyzed, True), _by_arguments(plan, False))
            if by_arguments[0][i] != by_arguments[1][i]:
                # (Spark types many a call nullable as its arguments are: `dayname(DATE('...'))`
                # is nullable, as the cast is, and `dayname(DATE '...')` NOT NULL)
                raise CannotKeep(f"the nullability of column {i + 1} depends on an expression sparkfold does not "
                                 f"model, whose arguments the rules made otherwise nullable")
        elif t != w:
            want[i] = t
    if not want:
        return plan
    out = _at(plan, want)
    broken = schema_error(plan, out)
    if broken:
        raise CannotKeep(f"keeping the nullability {broken}")
    if any(w != t for w, t in zip(written_nullability(out), target) if t is not None):
        raise CannotKeep("the nullability as written is still not the original's")
    return out


# Operators whose output is their child's, column by column
_THROUGH = (L.Sort, L.Limit, L.Offset, L.Distinct, L.Filter, L.SubqueryAlias)


def _at(p: L.Plan, want: dict[int, bool]) -> L.Plan:
    """`p` with output column i typed nullable as `want[i]` (as written)."""
    if isinstance(p, _THROUGH):
        return _over(p, [_at(p.children[0], want)])
    if isinstance(p, L.Project):
        return L.Project(_items(p.projections, want), p.child)
    if isinstance(p, L.Aggregate):
        return L.Aggregate(p.grouping, _items(p.aggregates, want), p.child)
    if isinstance(p, L.LocalRelation) and not p.rows:
        for i, n in want.items():
            if not n and non_null_value(p.output_[i].data_type) is None:
                raise CannotKeep(f"no value of type {p.output_[i].data_type.simple_string()} that Spark "
                                 f"types NOT NULL")
        return p.copy(output_=tuple(a.with_nullability(want.get(i, a.nullable)) for i, a in enumerate(p.output_)))
    if isinstance(p, (L.Union, L.Intersect, L.Except)):
        return _set_operation(p, want)
    # anything else (a join, an opaque relation, VALUES): a projection on top
    items: list[E.Expr] = []
    for i, a in enumerate(p.output):
        items.append(E.Alias(_nullable(a) if want[i] else _not_null(a), a.name, E.new_id()) if i in want else a)
    return L.Project(tuple(items), p)


def _items(items: tuple[E.Expr, ...], want: dict[int, bool]) -> tuple[E.Expr, ...]:
    out = list(items)
    for i, n in want.items():
        e = items[i]
        inner = e.child if isinstance(e, E.Alias) else e
        value = _nullable(inner) if n else _not_null(inner)
        if isinstance(e, E.Alias):
            out[i] = E.Alias(value, e.name, e.expr_id, e.auto)
        else:
            out[i] = E.Alias(value, E.to_attribute(e).name, E.new_id())
    return tuple(out)


def _set_operation(p: L.Plan, want: dict[int, bool]) -> L.Plan:
    """A UNION column is nullable when an input's is, an INTERSECT column when both
    inputs' are, an EXCEPT column when its left input's is: the inputs to change."""
    inputs = list(p.children)
    written = [written_nullability(c) for c in inputs]
    wants: list[dict[int, bool]] = [{} for _ in inputs]
    for i, n in want.items():
        if isinstance(p, L.Except):
            chosen = [0]
        elif isinstance(p, L.Union) == n:  # one input nullable makes a UNION column so, one NOT NULL an INTERSECT's
            chosen = [0] if not any(w[i] == n for w in written) else []
        else:  # every input must be
            chosen = [k for k, w in enumerate(written) if w[i] != n]
        for k in chosen:
            wants[k][i] = n
    return _over(p, [_at(c, w) if w else c for c, w in zip(inputs, wants)])


def _over(p: L.Plan, children: list[L.Plan]) -> L.Plan:
    """`p` over new children whose output columns may have new ids and nullability:
    its references to them follow (the first column with an id, when two share one)."""
    remap: dict[int, E.Attribute] = {}
    for old, new in zip(p.children, children):
        for a, b in zip(old.output, new.output):
            if a.expr_id != b.expr_id or a.nullable != b.nullable:
                remap.setdefault(a.expr_id, b)
    q = p.with_children(children)
    if remap and q.expressions:
        q = q.map_expressions(_Renamed(remap).expression)
    return q


class _Renamed:
    __slots__ = ("remap",)

    def __init__(self, remap: dict[int, E.Attribute]):
        self.remap = remap

    def expression(self, e: E.Expr) -> E.Expr:
        return transform_up(e, self.node, mask=E.Attribute.bit, opaque=(E.Opaque,))

    def node(self, e: E.Expr) -> E.Expr:
        if isinstance(e, E.Attribute):
            b = self.remap.get(e.expr_id)
            if b is not None:
                return b.with_qualifier(e.qualifier) if b.expr_id == e.expr_id else b
        return e


def keep_output_nullability(analyzed: L.Plan, optimized: L.Plan, trace: Trace,
                            exclude: Sequence[str] = ()) -> L.Plan:
    """The optimized plan with the analyzed plan's output nullability as written (a step
    of the trace, `KeepOutputNullability`, when that changed it); the analyzed plan, with
    a warning in the trace, when it cannot have it."""
    if NAME.lower() in {x.lower() for x in exclude}:
        return optimized
    t0 = time.perf_counter()
    try:
        out = restored(optimized, analyzed)
    except CannotKeep as e:
        if optimized is analyzed:  # (nothing rewritten: the text as written is kept anyway)
            return analyzed
        trace.warnings.append(f"{NAME}: the optimized query cannot be written with the original's nullability "
                              f"({e}): the query is kept as written")
        return analyzed
    dt = time.perf_counter() - t0
    stats = trace.rules.setdefault(NAME, RuleStats())
    stats.runs += 1
    stats.seconds += dt
    if out is not optimized:
        stats.effective += 1
        trace.rewrites.append(Rewrite(BATCH, 1, NAME, optimized, out, dt))
    return out
