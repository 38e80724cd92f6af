"""Logical operators.

A plan node's plan inputs are its `children`; its expressions are `extra` nodes
(see `plans.ir.tree.node`).  Each node computes its `output` attributes once, with
Spark's nullability: the nullable side of an outer join makes its columns nullable,
a union column is nullable if any input's is.

Join types use Catalyst's names in snake case: inner, cross, left_outer, right_outer,
full_outer, left_semi, left_anti.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from . import types as T
from .expressions import Alias, Attribute, Cast, Expr, Literal, SortOrder, SubqueryExpr, lit, new_ids, to_attribute
from .tree import MANY, ONE, OPT, Node, data_key, node

INNER, CROSS = "inner", "cross"
LEFT_OUTER, RIGHT_OUTER, FULL_OUTER = "left_outer", "right_outer", "full_outer"
LEFT_SEMI, LEFT_ANTI = "left_semi", "left_anti"
JOIN_TYPES = (INNER, CROSS, LEFT_OUTER, RIGHT_OUTER, FULL_OUTER, LEFT_SEMI, LEFT_ANTI)


class Plan(Node):
    __slots__ = ("output", "deterministic")
    # derived once, at construction (`_derive`)
    output: tuple[Attribute, ...]
    deterministic: bool
    children: tuple[Plan, ...]  # a plan's children are plans

    if TYPE_CHECKING:
        def walk(self) -> Iterator[Plan]: ...

    def _derive(self) -> None:
        s = object.__setattr__
        m = self.mask
        deterministic = True
        for e in self._extra:
            m |= e.deep_mask
            if not e.deterministic:
                deterministic = False
        if deterministic:
            for c in self.children:
                if not c.deterministic:
                    deterministic = False
                    break
        s(self, "mask", m)
        s(self, "output", tuple(self._output()))
        s(self, "deterministic", deterministic)

    def _output(self):
        raise NotImplementedError

    @property
    def expressions(self) -> tuple[Expr, ...]:
        return self._extra_nodes()

    def map_expressions(self, fn: Callable[[Expr], Expr]) -> "Plan":
        """Apply fn to each top-level expression; self when none changed."""
        old = self._extra_nodes()
        if not old:
            return self
        return self.with_extra([fn(e) for e in old])

    @property
    def output_ids(self) -> frozenset[int]:
        return frozenset(a.expr_id for a in self.output)

    @property
    def outer_references(self) -> frozenset[int]:
        """Ids the plan references but does not produce (see `outer_references`)."""
        return outer_references(self)


# ---------------------------------------------------------------------------
# Leaves
# ---------------------------------------------------------------------------


@node(extra={"output_": MANY})
class Relation(Plan):
    """A table scan.  `table` is the catalog name (`db.t` or `t`) as resolved."""

    table: str
    output_: tuple[Attribute, ...]

    def _output(self):
        return self.output_


@node(extra={"output_": MANY})
class LocalRelation(Plan):
    """Rows given in the plan (VALUES), or none: the empty relation."""

    output_: tuple[Attribute, ...]
    rows: tuple[tuple[Any, ...], ...] = ()

    def _output(self):
        return self.output_

    @property
    def is_empty(self) -> bool:
        return not self.rows


@node
class OneRowRelation(Plan):
    """The single row with no columns a SELECT without FROM reads."""

    def _output(self):
        return ()


@node(children={"inputs": MANY}, extra={"output_": MANY, "args": MANY})
class OpaqueRelation(Plan):
    """A relation the optimizer does not model (a table-valued function, a PIVOT, a
    LATERAL VIEW, GROUPING SETS...).  `template` is its sqlglot tree, emitted verbatim;
    the i-th entry of `inputs`, if any, replaces the placeholder table `__sf_input_i`
    and `args[j]` the placeholder column `__sf_arg_j`.  `output_` is its schema."""

    template: Any
    output_: tuple[Attribute, ...]
    inputs: tuple["Plan", ...] = ()
    args: tuple[Expr, ...] = ()
    sql_text: str = ""
    # the block as operators, for a writer whose target has them (a LATERAL join: the
    # DataFrame API's lateralJoin), over `inputs[0]` as analyzed (the left of its innermost
    # LateralJoin); the rules never see it, and its output is `output_` by position
    model: "Plan | None" = None
    # the ids of output columns Spark names with names sparkfold does not know (an
    # unaliased call of a persistent function): a writer leaves their naming to Spark
    # (`naming.unnamed_output`)
    unnamed: frozenset = frozenset()
    _not_compared = ("model",)

    def _output(self):
        return self.output_

    def _derive(self) -> None:
        Plan._derive(self)
        object.__setattr__(self, "deterministic", False)


# ---------------------------------------------------------------------------
# Unary operators
# ---------------------------------------------------------------------------


@node(children={"child": ONE}, extra={"projections": MANY})
class Project(Plan):
    projections: tuple[Expr, ...]
    child: Plan

    def _output(self):
        return [to_attribute(e) for e in self.projections]


@node(children={"child": ONE}, extra={"condition": ONE})
class Filter(Plan):
    condition: Expr
    child: Plan

    def _output(self):
        return self.child.output


@node(children={"child": ONE}, extra={"grouping": MANY, "aggregates": MANY})
class Aggregate(Plan):
    """GROUP BY `grouping`, producing `aggregates` (named expressions).  With no
    grouping it is a global aggregate: exactly one row, even over empty input."""

    grouping: tuple[Expr, ...]
    aggregates: tuple[Expr, ...]
    child: Plan

    def _output(self):
        return [to_attribute(e) for e in self.aggregates]

    @property
    def is_global(self) -> bool:
        return not self.grouping


@node(children={"child": ONE}, extra={"orders": MANY})
class Sort(Plan):
    orders: tuple[SortOrder, ...]
    child: Plan

    def _output(self):
        return self.child.output


@node(children={"child": ONE})
class Limit(Plan):
    count: int
    child: Plan

    def _output(self):
        return self.child.output


@node(children={"child": ONE})
class Offset(Plan):
    count: int
    child: Plan

    def _output(self):
        return self.child.output


@node(children={"child": ONE})
class Distinct(Plan):
    child: Plan

    def _output(self):
        return self.child.output


@node(children={"child": ONE})
class SubqueryAlias(Plan):
    """`(child) AS alias` or a table's alias: output attributes qualified by `alias`."""

    alias: str
    child: Plan

    def _output(self):
        # the alias qualifies names in scope (plans.scope), not the attributes themselves
        return self.child.output


# ---------------------------------------------------------------------------
# Binary and n-ary operators
# ---------------------------------------------------------------------------


@node(children={"left": ONE, "right": ONE}, extra={"condition": OPT})
class Join(Plan):
    left: Plan
    right: Plan
    join_type: str = INNER
    condition: Expr | None = None

    def _output(self):
        jt = self.join_type
        left: Sequence[Attribute] = self.left.output
        right: Sequence[Attribute] = self.right.output
        if jt in (LEFT_SEMI, LEFT_ANTI):
            return left
        if jt in (RIGHT_OUTER, FULL_OUTER):
            left = [a.with_nullability(True) for a in left]
        if jt in (LEFT_OUTER, FULL_OUTER):
            right = [a.with_nullability(True) for a in right]
        return list(left) + list(right)


@node(children={"left": ONE, "right": ONE}, extra={"condition": OPT})
class LateralJoin(Plan):
    """`left, LATERAL (right)`, `left [INNER | CROSS | LEFT] JOIN LATERAL (right) [ON
    condition]`: `right` is evaluated for each row of `left`, whose columns it reads as
    outer references (Spark's LateralJoin; join types inner, cross and left_outer).  Only
    in an opaque block's `model`: no rule rewrites it."""

    left: Plan
    right: Plan
    join_type: str = INNER
    condition: Expr | None = None

    def _output(self):
        right: Sequence[Attribute] = self.right.output
        if self.join_type == LEFT_OUTER:
            right = [a.with_nullability(True) for a in right]
        return list(self.left.output) + list(right)


def _merged_nullability(first, others):
    out = []
    for i, a in enumerate(first):
        nullable = a.nullable or any(o[i].nullable for o in others if i < len(o))
        out.append(a.with_nullability(nullable))
    return out


@node(children={"inputs": MANY})
class Union(Plan):
    """UNION [ALL] of `inputs` (by position); the output takes the first input's names
    and ids, nullable where any input's column is."""

    inputs: tuple[Plan, ...]
    all: bool = True

    def _output(self):
        first = self.inputs[0].output
        return _merged_nullability(first, [c.output for c in self.inputs[1:]])


@node(children={"left": ONE, "right": ONE})
class Intersect(Plan):
    left: Plan
    right: Plan
    all: bool = False

    def _output(self):
        return [a.with_nullability(a.nullable and b.nullable)
                for a, b in zip(self.left.output, self.right.output)]


@node(children={"left": ONE, "right": ONE})
class Except(Plan):
    left: Plan
    right: Plan
    all: bool = False

    def _output(self):
        return self.left.output


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def is_empty_relation(p: Plan) -> bool:
    return isinstance(p, LocalRelation) and not p.rows


def empty_like(p: Plan) -> LocalRelation:
    return LocalRelation(tuple(p.output), ())


def produced_ids(plan: Plan) -> set[int]:
    """Ids of every attribute some operator inside `plan` produces.  A bare column in a
    select list is produced by whatever produces it below (or not at all: a correlated
    `(SELECT c)` outputs the outer query's column)."""
    ids: set[int] = set()
    for n in plan.walk():
        if isinstance(n, (Project, Aggregate)):
            ids.update(e.expr_id for e in n.expressions if isinstance(e, Alias))
        else:
            ids.update(a.expr_id for a in n.output)
    return ids


def outer_references(plan: Plan) -> frozenset[int]:
    """Ids the plan's expressions (or its nested subqueries) reference but no operator
    inside it produces: the correlation with an enclosing query."""
    produced = produced_ids(plan)
    referenced: set[int] = set()
    for n in plan.walk():
        if isinstance(n, (Relation, LocalRelation)):
            continue
        for e in n.expressions:
            referenced |= e.references
    return frozenset(referenced - produced)


def with_fresh_ids(plan: Plan, ids: range) -> tuple[Plan, Callable[[Expr], Expr]]:
    """A copy of `plan`, which was built while the ids `ids` were handed out, with each of
    those ids moved to a fresh one in the same order; other ids (correlation with an
    outer query) stay.  Analyzing the plan's query again gives exactly this: Spark inlines
    a CTE so at each of its references.  Returns the copy and the function that renumbers
    an expression of `plan` alike."""
    shift = new_ids(len(ids)) - ids.start
    memo: dict[int, Any] = {}  # (expressions and operators)

    def expr(e: Expr) -> Expr:
        hit = memo.get(id(e))
        if hit is not None:
            return hit
        new: Expr
        if isinstance(e, Attribute):
            new = e.copy(expr_id=e.expr_id + shift) if e.expr_id in ids else e
        else:
            new = e.with_children([expr(k) for k in e.children])
            if isinstance(new, Alias) and new.expr_id in ids:
                new = new.copy(expr_id=new.expr_id + shift)
            elif isinstance(new, SubqueryExpr):
                new = new.with_plan(operator(new.plan))
        memo[id(e)] = new  # (e lives in `plan`: its id is not reused meanwhile)
        return new

    def operator(p: Plan) -> Plan:
        hit = memo.get(id(p))
        if hit is not None:
            return hit
        new = p.with_children([operator(c) for c in p.children])
        extra = new._extra_nodes()
        if extra:
            new = new.with_extra([expr(x) for x in extra])
        if isinstance(new, OpaqueRelation) and new.model is not None:
            new = new.copy(model=operator(new.model))
        memo[id(p)] = new
        return new

    return operator(plan), expr


def same_but_ids(a: Plan, b: Plan, renamed: bool = True) -> bool:
    """Are two plans the same query but for their attribute and alias ids (renamed one to
    one; with `renamed=False` the ids must be equal too), the nullability and qualifiers
    of their attributes, and `CAST(NULL AS t)` against the typed NULL of t?  Names,
    types, values, the text of unmodelled expressions and relations, and the shape must
    match exactly.

    The SQL writer prints none of what is left out (ids only pair a reference with its
    definition; a typed NULL is written as that cast), so two plans for which this holds
    are written as the same text."""
    from .dialect import DIALECT

    forward: dict[int, int] = {}
    backward: dict[int, int] = {}

    def paired(x: int, y: int) -> bool:
        if not renamed:
            return x == y
        return forward.setdefault(x, y) == y and backward.setdefault(y, x) == x

    def as_written(e: Node) -> Node:
        """What the writer's text for `e` reads back as (`sql_out.literals.literal_sql`)."""
        if isinstance(e, Cast) and isinstance(e.child, Literal) and e.child.value is None:
            return Literal(None, e.to)
        if isinstance(e, Literal) and isinstance(e.data_type, T.DecimalType) and e.value is not None \
                and lit(Decimal(e.value)).data_type != e.data_type:
            # a decimal of a type other than its digits' (0 as decimal(7,2)) is written as
            # its digits to the type's scale, cast: CAST(0.00 AS DECIMAL(7,2))
            digits = T.decimal_digits(Decimal(e.value), e.data_type)
            return e if digits is None else Cast(lit(digits), e.data_type)
        return e

    stack: list[tuple[Any, Any]] = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            x, y = as_written(x), as_written(y)
            if type(x) is not type(y):
                return False
        if isinstance(x, Attribute):
            if x.name != y.name or x.data_type_ != y.data_type_ or not paired(x.expr_id, y.expr_id):
                return False
            continue
        for name in x._eq_names:
            if name == "expr_id":
                if not paired(x.expr_id, y.expr_id):
                    return False
            elif name == "template":  # sqlglot's own equality ignores case: compare the text
                if x.template is not y.template and \
                        x.template.sql(dialect=DIALECT) != y.template.sql(dialect=DIALECT):
                    return False
            elif data_key(getattr(x, name)) != data_key(getattr(y, name)):
                return False
        xs, ys = x.children + x._extra_nodes(), y.children + y._extra_nodes()
        if len(xs) != len(ys):
            return False
        stack.extend(zip(xs, ys))
    return True


def relations(plan: Plan) -> list["Relation"]:
    """Every table scan of the plan, its subqueries' included."""
    out, stack = [], [plan]
    while stack:
        for node in stack.pop().walk():
            if isinstance(node, Relation):
                out.append(node)
            for e in node.expressions:
                stack.extend(s.plan for s in subquery_plans(e))
    return out


def subquery_plans(e: Expr) -> list:
    """The subquery expressions inside an expression tree (not nested deeper)."""
    if not (e.mask & _SUBQUERY_MASK):
        return []
    return [n for n in e.walk() if isinstance(n, SubqueryExpr)]


def any_subquery(plan: Plan, test) -> bool:
    """Does `test` hold for a subquery expression anywhere in the plan, at any depth
    (inside subqueries' plans too)?"""
    stack = [plan]
    while stack:
        p = stack.pop()
        stack.extend(p.children)
        for e in p.expressions:
            for x in subquery_plans(e):
                if test(x):
                    return True
                stack.append(x.plan)
    return False


from .expressions import Exists, InSubquery, ScalarSubquery  # noqa: E402
from .tree import mask_of  # noqa: E402

_SUBQUERY_MASK = mask_of(Exists, InSubquery, ScalarSubquery)


def max_expr_id(plan: Plan) -> int:
    """The largest attribute or alias id anywhere in the plan (subqueries included)."""
    top = 0
    stack = [plan]
    while stack:
        p = stack.pop()
        for a in p.output:
            if a.expr_id > top:
                top = a.expr_id
        # only the subtrees that hold an id or a subquery are walked
        found = [e for e in p.expressions if e.mask & _IDS_MASK]
        while found:
            n = found.pop()
            if isinstance(n, _WITH_IDS):
                if n.expr_id > top:
                    top = n.expr_id
            elif isinstance(n, SubqueryExpr):
                stack.append(n.plan)
            found.extend(k for k in n.children if k.mask & _IDS_MASK)
        stack.extend(p.children)
    return top


_WITH_IDS = (Attribute, Alias)  # the expressions that carry an `expr_id`
_IDS_MASK = mask_of(*_WITH_IDS) | _SUBQUERY_MASK
