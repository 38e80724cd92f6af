"""How rules are declared and applied.

A rule is a pure function of a plan (plus an explicit `RuleContext`, never a global).
Two decorators cover the common shapes:

- `expression_rule(name, needs=...)`: `fn(e, ctx) -> Expr` applied bottom-up to every
  expression of every operator (subquery plans included).  `needs` names the node
  kinds the rule can match; subtrees without them are skipped via the kind mask.
- `plan_rule(name, needs=...)`: `fn(plan, ctx) -> Plan` applied bottom-up to every
  operator (subquery plans included).

Both return the very same object when nothing matched, so the engine's fixed-point
test is an identity check.  Expression rules enter the arguments of an `Opaque`
expression (an unmodelled call sees the same values); the rules with traversals of
their own (propagation, constraints) do not.
"""

from __future__ import annotations

import contextvars
from dataclasses import field
from typing import Callable, Hashable, Mapping

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from ..plans.ir import types as T
from ..plans.ir.records import record
from ..plans.ir.tree import mask_of, transform_up


class Facts:
    """Facts rules derive about immutable nodes during one run (an operator's constraints,
    a predicate's canonical key), by node identity.  The run owns it (through its
    `RuleContext`), so nothing is ever written into a frozen node; it holds each node it
    keeps a fact for, so an id is never reused while the run lasts."""

    __slots__ = ("_by_id", "_stable")

    def __init__(self) -> None:
        self._by_id: dict[tuple[Hashable, int], tuple[object, object]] = {}
        self._stable: dict[str, dict] = {}

    def stable(self, rule: str) -> dict:
        """The subtrees (id -> node) the rule is known to leave unchanged: a rule is a
        pure function of the plan, so it leaves them unchanged again wherever they
        reappear, in a later iteration, batch or run sharing these facts."""
        out = self._stable.get(rule)
        if out is None:
            out = self._stable[rule] = {}
        return out

    def get(self, kind: Hashable, node: object):
        hit = self._by_id.get((kind, id(node)))
        return hit[1] if hit is not None and hit[0] is node else None

    def remember(self, kind: Hashable, node: object, value):
        self._by_id[(kind, id(node))] = (node, value)
        return value


@record(frozen=True)
class RuleContext:
    """What rules may know about the session: ANSI mode (errors instead of NULLs),
    spark.sql.legacy.nullInEmptyListBehavior set to true; the views the session defined
    whose definitions are proved empty (by their relations' `table`, see rules.views),
    and those whose definitions are proved to be rows (`view_rows`: the relation's
    `table` -> its rows, in the view's column order; see rules.local_relation); the
    relations Spark may read as rows in its first optimizer batch (`row_sources`: views,
    see optimizer.views.row_sources); and the facts cache of the run (a fresh one for
    each context)."""

    ansi: bool = True
    legacy_null_in_empty: bool = False
    empty_views: frozenset[str] = frozenset()
    view_rows: Mapping[str, tuple[tuple, ...]] = field(default_factory=dict, compare=False)
    row_sources: frozenset[str] = frozenset()

    @property
    def null_in_empty_is_false(self) -> bool:
        """Is `NULL IN (empty list or subquery)` FALSE?  With ANSI on unless the legacy
        setting says otherwise; with ANSI off it is NULL (Spark's default there)."""
        return self.ansi and not self.legacy_null_in_empty
    facts: Facts = field(default_factory=Facts, compare=False, repr=False)


@record(frozen=True)
class Rule:
    name: str
    apply: Callable[[L.Plan, RuleContext], L.Plan]
    description: str = ""
    catalyst: str = ""  # the Catalyst rule it corresponds to
    # False for a rule that only prepares the ground for others (moves a filter, narrows
    # nullability): when no other rule changed the plan, the query's text is kept
    rewrites: bool = True

    def __call__(self, plan: L.Plan, ctx: RuleContext | None = None) -> L.Plan:
        return self.apply(plan, ctx or RuleContext())


_SUBQUERY_MASK = mask_of(E.ScalarSubquery, E.Exists, E.InSubquery)


def transform_plan(plan: L.Plan, fn: Callable[[L.Plan], L.Plan], mask: int = -1,
                   stable: dict | None = None) -> L.Plan:
    """Apply fn bottom-up to every operator, also inside subquery expressions.
    `stable`: see `transform_up` (fn must then be a pure function of the operator)."""
    return _PlanTransform(fn, mask, stable).run(plan)


class _PlanTransform:
    """`transform_plan`'s walk.  (Its steps are methods of one object, not closures that
    call each other: compiled with mypyc, such closures share an environment that refers
    to them, a reference cycle that kept the run's facts for the garbage collector.)"""

    __slots__ = ("fn", "mask", "stable")

    def __init__(self, fn: Callable[[L.Plan], L.Plan], mask: int, stable: dict | None):
        self.fn, self.mask, self.stable = fn, mask, stable

    def run(self, plan: L.Plan) -> L.Plan:
        mask = self.mask
        return transform_up(plan, self.visit, mask | _SUBQUERY_MASK if mask != -1 else -1, stable=self.stable)

    def visit(self, p: L.Plan) -> L.Plan:
        if p.mask & _SUBQUERY_MASK:
            p = p.map_expressions(self.subqueries_in)
        return self.fn(p)

    def subqueries_in(self, e: E.Expr) -> E.Expr:
        if not (e.deep_mask & _SUBQUERY_MASK):
            return e
        return transform_up(e, self.subquery, opaque=(E.Opaque,))

    def subquery(self, x: E.Expr) -> E.Expr:
        return x.with_plan(self.run(x.plan)) if isinstance(x, E.SubqueryExpr) and not x.frozen else x


class _WithContext:
    """`fn(x, ctx)` as a function of x (a class, not a closure: see `_PlanTransform`)."""

    __slots__ = ("fn", "ctx")

    def __init__(self, fn: Callable, ctx: "RuleContext"):
        self.fn, self.ctx = fn, ctx

    def __call__(self, x):
        return self.fn(x, self.ctx)


class _EachExpression:
    """An operator with an expression function applied bottom-up to each of its
    expressions (a class, not a closure: see `_PlanTransform`)."""

    __slots__ = ("fn", "mask")

    def __init__(self, fn: Callable[[E.Expr], E.Expr], mask: int):
        self.fn, self.mask = fn, mask

    def __call__(self, p: L.Plan) -> L.Plan:
        return p.map_expressions(self.expression)

    def expression(self, e: E.Expr) -> E.Expr:
        # (an expression the optimizer does not model keeps its arguments, which are
        # rewritten as anywhere: the call sees the same values; see `_typed_rebuild`)
        return transform_up_typed(e, self.fn, self.mask)


def transform_expressions(plan: L.Plan, fn: Callable[[E.Expr], E.Expr], mask: int = -1,
                          stable: dict | None = None) -> L.Plan:
    """Apply an expression function bottom-up to every expression of every operator."""
    return transform_plan(plan, _EachExpression(fn, mask), mask, stable)


# Are the arguments of an unmodelled expression whose name only Spark knows rewritten?
# Yes, but for a query in which such an expression is an unaliased output column: Spark
# must name that from the text as written, so the optimizer runs it again without.
UNNAMED_OPAQUE_ARGUMENTS: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "sparkfold_unnamed_opaque_arguments", default=True)


def transform_up_typed(root: E.Expr, fn: Callable[[E.Expr], E.Expr], mask: int = -1,
                       opaque: tuple = ()) -> E.Expr:
    """`transform_up` for expression rules that also keeps every operator's type.

    Rules keep the type of what they rewrite, but an operator's type can depend on the
    form of its operands: Spark types `d + 1` after the literal's digits (decimal(p+1,s)
    for a decimal d) and `d + (0 + 1)` after int's decimal(10,0), fixed at analysis.
    Where rewritten operands would change an operator's type, the operator keeps its
    original operands (their rewrites are undone there), so no type drifts unseen."""
    return transform_up(root, fn, mask, opaque, rebuild=_typed_rebuild)


def _typed_rebuild(n: E.Expr, kids: list) -> E.Expr:
    """`n` over its children's results, or `n` itself where they would change its type."""
    if n.data_type == T.UNKNOWN:
        kids = [old if _becomes_integral_literal(old, new) else new for old, new in zip(n.children, kids)]
    rebuilt = n.with_children(kids)
    if rebuilt is n:
        return n
    if isinstance(n, E.Opaque):
        # an unmodelled expression's arguments rewritten, marked for the writer; one
        # whose name only Spark knows, unless the run is told not to (see
        # `UNNAMED_OPAQUE_ARGUMENTS`)
        return rebuilt.copy(rewritten=True) if n.name_known or UNNAMED_OPAQUE_ARGUMENTS.get() else n
    return n if rebuilt.data_type != n.data_type else rebuilt


def _becomes_integral_literal(old: E.Expr, new: E.Expr) -> bool:
    """Whether a rewrite turned an integral expression into an integral literal.  Under
    an operator whose type is not modelled (UNKNOWN, so the type check above cannot see
    a change), that may change Spark's type: decimal arithmetic types an integral
    literal after its own digits (`round(1.25, 0) + 1` is decimal(3,0)) and any other
    integral expression as decimal(10,0) or (20,0) (`round(1.25, 0) + length('a')` is
    decimal(11,0)).  Such an operand keeps its unrewritten form."""
    return (new is not old and isinstance(new, E.Literal) and new.value is not None
            and T.is_integral(new.data_type) and not isinstance(old, E.Literal))


def expression_rule(name: str, needs=(), catalyst: str = "", description: str = ""):
    mask = mask_of(*needs) if needs else -1

    def deco(fn: Callable[[E.Expr, RuleContext], E.Expr]) -> Rule:
        def apply(plan: L.Plan, ctx: RuleContext) -> L.Plan:
            return transform_expressions(plan, _WithContext(fn, ctx), mask, ctx.facts.stable(name))

        return Rule(name, apply, description or (fn.__doc__ or "").strip(), catalyst or name)

    return deco


def plan_rule(name: str, needs=(), catalyst: str = "", description: str = "", rewrites: bool = True):
    mask = mask_of(*needs) if needs else -1

    def deco(fn: Callable[[L.Plan, RuleContext], L.Plan]) -> Rule:
        def apply(plan: L.Plan, ctx: RuleContext) -> L.Plan:
            return transform_plan(plan, _WithContext(fn, ctx), mask, ctx.facts.stable(name))

        return Rule(name, apply, description or (fn.__doc__ or "").strip(), catalyst or name, rewrites)

    return deco


__all__ = ["Facts", "Rule", "RuleContext", "expression_rule", "plan_rule", "transform_plan",
           "transform_expressions", "transform_up_typed", "field"]
