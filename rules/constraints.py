"""Constraint propagation: predicates known to be TRUE for every row an operator outputs.

Catalyst's `QueryPlanConstraints`, as data the plan-level rules share (PruneFilters,
InferFiltersFromConstraints, UpdateAttributeNullability).  `constraints(plan)` is an
insertion-ordered mapping from a canonical key to the predicate; every predicate is
deterministic, has no subquery, references only the plan's output, and is TRUE (not
NULL) on every output row.  Per operator (`validConstraints`):

- Filter: the child's constraints and the condition's conjuncts.
- Project / grouped Aggregate: the child's constraints on attributes kept, rewritten to
  aliases (`x AS y` turns `x > 1` into `y > 1`), and `y <=> lit` for literal aliases.
  A global Aggregate keeps only the latter (over empty input it has one row anyway).
- Join: inner/cross: both sides and the condition's conjuncts; left semi: left and
  the conjuncts; left outer and anti: left; right outer: right; full outer: none.
- Union: what every input guarantees (each input's predicates renamed to the output).
- Intersect, Except: the left input's.  Sort, Limit, Offset, Distinct, aliases: the child's.

To that the closure adds (Catalyst's `inferAdditionalConstraints` and
`constructIsNotNullConstraints`): attribute equalities `a = b` / `a <=> b` form
equivalence classes (networkx connected components) and each predicate is rewritten
with every member of its attributes' classes; `IsNotNull(a)` for every attribute a
predicate reaches through null-intolerant expressions (`a + 1 > 2` is TRUE only if a is
not NULL; `IsNotNull` itself is not null-intolerant, SPARK-17897); and `IsNotNull(a)` for
every output attribute that is never NULL.

Soundness notes beyond Catalyst: two doubles can be equal and still differ (-0.0 and
0.0), so a float/double attribute is substituted only where it is a direct operand of a
comparison, IN, IS [NOT] NULL (which cannot tell equal values apart); an equality is
used only between attributes of the same type; predicates that may raise are kept
as constraints (they were evaluated) but never substituted, so an inferred predicate
never raises.
"""

from __future__ import annotations

import itertools
from typing import Mapping

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from ..plans.ir import types as T
from ..plans.ir.tree import data_key, fold, transform_up
from .base import Facts

Constraints = dict  # canonical key -> predicate, insertion ordered; treat as read-only

_MAX_CONSTRAINTS = 128  # per operator: stop inferring beyond this
_MAX_COMBINATIONS = 27  # substitutions per predicate
_MAX_PREDICATE_NODES = 64  # bigger predicates are kept but not substituted into
_MAX_CLASS_FOR_EQUALITIES = 4  # equalities inside a bigger class are not re-derived

# ---------------------------------------------------------------------------
# Canonical keys: equal for predicates that are the same up to attribute naming,
# nullability flags, operand order of commutative operators and > / < flips.
# ---------------------------------------------------------------------------

_COMMUTATIVE = (E.EqualTo, E.EqualNullSafe, E.Add, E.Multiply, E.And, E.Or)


class Key:
    """A canonical key: a tuple with its hash computed once, compared hash first."""

    __slots__ = ("h", "t")

    def __init__(self, t: tuple):
        self.t = t
        self.h = hash(t)

    def __hash__(self) -> int:
        return self.h

    def __eq__(self, other) -> bool:
        return self is other or (isinstance(other, Key) and self.h == other.h and self.t == other.t)



def import_lazy_dependencies() -> None:
    """Import now what the rules import at their first use (networkx, 60-170 ms), for a
    caller that times the rules (explain's rule timeline) and should not charge that to
    whichever rule runs first."""
    import networkx  # noqa: F401

def _canon_node(n: E.Expr, kids: list) -> Key:
    match n:
        case E.Attribute():
            return Key(("attr", n.expr_id))
        case E.Opaque():
            return Key(("opaque", n))
        case E.Cast(c, to, try_, _):
            return Key(("Cast", (to, try_), kids[0]))
        case E.GreaterThan(l, r) if not (l.may_raise or r.may_raise):
            return Key(("LessThan", (), kids[1], kids[0]))
        case E.GreaterThanOrEqual(l, r) if not (l.may_raise or r.may_raise):
            return Key(("LessThanOrEqual", (), kids[1], kids[0]))
        case _ if isinstance(n, _COMMUTATIVE) and not (n.left.may_raise or n.right.may_raise):
            # operand order matters only for errors (the left side is evaluated first)
            a, b = kids
            return Key((type(n).__name__, (), *((a, b) if a.h <= b.h else (b, a))))
        case _:
            data = tuple(data_key(getattr(n, f)) for f in n._data_names)
            return Key((type(n).__name__, data, *kids))


def canon(e: E.Expr, facts: Facts | None = None) -> Key:
    """The canonical key of e: equal for predicates that are the same up to attribute
    names and nullability, operand order of commutative operators and > / < flips
    (kept in the run's `facts`: constraints are shared upwards)."""
    facts = facts if facts is not None else Facts()
    hit = facts.get("canon", e)
    if hit is not None:
        return hit

    def node(n: E.Expr, kids: list) -> Key:
        known = facts.get("canon", n)
        return known if known is not None else facts.remember("canon", n, _canon_node(n, kids))

    return fold(e, node, children=lambda n: () if isinstance(n, E.Opaque) or
                facts.get("canon", n) is not None else n.children)


# ---------------------------------------------------------------------------
# Facts about single predicates
# ---------------------------------------------------------------------------


def is_null_intolerant(e: E.Expr) -> bool:
    return bool(getattr(e, "null_intolerant", False))


def usable(e: E.Expr) -> bool:
    """Can this predicate be a constraint (deterministic, no subquery, not a literal)?"""
    return (e.deterministic and not isinstance(e, E.Literal)
            and not (e.deep_mask & _SUBQUERY_OR_OPAQUE) and bool(e.references))


_SUBQUERY_OR_OPAQUE = E.ScalarSubquery.bit | E.Exists.bit | E.InSubquery.bit | E.Opaque.bit


def non_null_attributes(e: E.Expr) -> list[E.Attribute]:
    """Attributes that cannot be NULL when predicate e is TRUE: those reached from e
    through null-intolerant expressions (and through the value of a TRUE `IN` or
    `BETWEEN`, which are NULL for a NULL value)."""
    match e:
        case E.IsNotNull(c):
            roots = [c]
        case E.In(v, items) if items:
            roots = [v]
        case E.Func("between", args):
            roots = list(args)
        case _:
            roots = [e]
    out: list[E.Attribute] = []
    stack = roots
    while stack:
        n = stack.pop()
        if isinstance(n, E.Attribute):
            out.append(n)
        elif is_null_intolerant(n):
            stack.extend(n.children)
    return out


def _small(e: E.Expr) -> bool:
    for i, _ in enumerate(e.walk()):
        if i >= _MAX_PREDICATE_NODES:
            return False
    return True


_ORDER_RESPECTING = (E.Comparison, E.In, E.IsNull, E.IsNotNull)


def _equality_safe_positions(e: E.Expr, ids: set[int]) -> bool:
    """Is every occurrence of the attributes `ids` a direct operand of an expression that
    gives the same result for values Spark compares equal (-0.0 and 0.0, NaNs)?"""
    stack: list[tuple[E.Expr, E.Expr | None]] = [(e, None)]
    while stack:
        n, parent = stack.pop()
        if isinstance(n, E.Attribute):
            if n.expr_id in ids and not isinstance(parent, _ORDER_RESPECTING):
                return False
            continue
        stack.extend((c, n) for c in n.children)
    return True


def _has_inexact_equality(t: T.DataType) -> bool:
    """Can two values of this type be equal (=) and still behave differently?"""
    return T.contains(t, lambda x: x in (T.FLOAT, T.DOUBLE, T.UNKNOWN))


def substitute(e: E.Expr, mapping: Mapping[int, E.Expr]) -> E.Expr:
    """Replace attributes by id."""
    if e.references.isdisjoint(mapping):
        return e
    return transform_up(e, lambda n: mapping.get(n.expr_id, n) if isinstance(n, E.Attribute) else n,
                        mask=E.Attribute.bit, opaque=(E.Opaque,))


# ---------------------------------------------------------------------------
# The closure of a set of valid constraints
# ---------------------------------------------------------------------------


def _add(out: Constraints, e: E.Expr, facts: Facts) -> None:
    if len(out) < _MAX_CONSTRAINTS:
        out.setdefault(canon(e, facts), e)


def _add_not_null(out: Constraints, a: E.Attribute, facts: Facts) -> None:
    """`_add(out, IsNotNull(a))` with the predicate and its key built once per attribute
    in the run's facts: every constraint and non-nullable output column implies one, in
    every closure above it, and most are there already."""
    if len(out) < _MAX_CONSTRAINTS:
        hit = facts.get("is-not-null", a)
        if hit is None:
            e = E.IsNotNull(a)
            hit = facts.remember("is-not-null", a, (canon(e, facts), e))
        out.setdefault(*hit)


def _is_trivial(e: E.Expr) -> bool:
    return isinstance(e, (E.EqualTo, E.EqualNullSafe)) and isinstance(e.left, E.Attribute) \
        and isinstance(e.right, E.Attribute) and e.left.expr_id == e.right.expr_id


def _equated_class_size(e: E.Expr, classes) -> int:
    """The size of the equivalence class whose two members e equates, else 0."""
    if isinstance(e, (E.EqualTo, E.EqualNullSafe)) and isinstance(left := e.left, E.Attribute) \
            and isinstance(right := e.right, E.Attribute) and left.expr_id in classes \
            and classes[left.expr_id] is classes.get(right.expr_id):
        return len(classes[left.expr_id])
    return 0


def equivalence_classes(preds) -> tuple[dict[int, list[E.Attribute]], dict[int, E.Attribute]]:
    """Attribute id -> the attributes known equal to it (itself included, by id order),
    from equalities between attributes of the same type."""
    attrs: dict[int, E.Attribute] = {}
    edges = []
    for e in preds:
        if isinstance(e, (E.EqualTo, E.EqualNullSafe)) and isinstance(e.left, E.Attribute) \
                and isinstance(e.right, E.Attribute) and e.left.data_type == e.right.data_type \
                and e.left.expr_id != e.right.expr_id:
            attrs.setdefault(e.left.expr_id, e.left)
            attrs.setdefault(e.right.expr_id, e.right)
            edges.append((e.left.expr_id, e.right.expr_id))
    if not edges:
        return {}, attrs
    import networkx as nx  # here, not at import: 60 ms of start-up most queries never need

    graph = nx.Graph(edges)
    classes: dict[int, list[E.Attribute]] = {}
    for comp in nx.connected_components(graph):
        members = [attrs[i] for i in sorted(comp)]
        for i in comp:
            classes[i] = members
    return classes, attrs


def close(valid, output: tuple[E.Attribute, ...], facts: Facts | None = None) -> Constraints:
    """Catalyst's `constraints`: the valid predicates, what equalities imply, the
    IS NOT NULL they imply, filtered to deterministic predicates on the output."""
    facts = facts if facts is not None else Facts()
    out: Constraints = {}
    for e in valid:
        if usable(e):
            _add(out, e, facts)
    classes, _ = equivalence_classes(out.values())
    if classes:
        for e in list(out.values()):
            if len(out) >= _MAX_CONSTRAINTS:
                break
            for new in _substitutions_of(e, classes, facts):
                _add(out, new, facts)
    for e in list(out.values()):
        for a in non_null_attributes(e):
            _add_not_null(out, a, facts)
    for a in output:
        if not a.nullable:
            _add_not_null(out, a, facts)
    ids = {a.expr_id for a in output}
    return {k: e for k, e in out.items() if e.references <= ids}


def _substitutions_of(e: E.Expr, classes, facts: Facts) -> list[E.Expr]:
    """`_substitutions`, kept in the run's facts: it depends on e and the classes of the
    attributes e reads only, and a constraint is inherited, with its classes, by every
    operator above the one that made it.  The same substituted predicates (objects) come
    back, so their canonical keys are not computed again either."""
    if e.references.isdisjoint(classes):
        return []
    kind = ("substitutions", tuple((i, tuple(classes[i])) for i in sorted(i for i in e.references if i in classes)))
    hit = facts.get(kind, e)
    return hit if hit is not None else facts.remember(kind, e, _substitutions(e, classes))


def _substitutions(e: E.Expr, classes) -> list[E.Expr]:
    if isinstance(e, E.IsNotNull) or e.may_raise or not _small(e):
        return []
    if _equated_class_size(e, classes) > _MAX_CLASS_FOR_EQUALITIES:
        return []  # n^2 equalities the class already stands for
    ids = sorted(i for i in e.references if i in classes)
    if not ids:
        return []
    options = []
    for i in ids:
        members = classes[i]
        if _has_inexact_equality(members[0].data_type) and not _equality_safe_positions(e, {i}):
            members = [m for m in members if m.expr_id == i]
        options.append(members)
    out = []
    for count, combo in enumerate(itertools.product(*options)):
        if count >= _MAX_COMBINATIONS:
            break
        mapping = {i: a for i, a in zip(ids, combo) if a.expr_id != i}
        if mapping:
            new = substitute(e, mapping)
            if not _is_trivial(new):
                out.append(new)
    return out


# ---------------------------------------------------------------------------
# Per operator
# ---------------------------------------------------------------------------

def constraints(plan: L.Plan, facts: Facts | None = None) -> Constraints:
    """The constraints of `plan` (kept per operator in the run's `facts`; iterative over
    the plan)."""
    facts = facts if facts is not None else Facts()
    hit = facts.get("constraints", plan)
    if hit is not None:
        return hit
    stack: list[tuple[L.Plan, bool]] = [(plan, False)]
    while stack:
        p, ready = stack.pop()
        if facts.get("constraints", p) is not None:
            continue
        if not ready:
            stack.append((p, True))
            stack.extend((c, False) for c in p.children if facts.get("constraints", c) is None)
        else:
            facts.remember("constraints", p, _compute(p, facts))
    return facts.get("constraints", plan)


def not_null_ids(plan: L.Plan, facts: Facts | None = None) -> frozenset[int]:
    """Ids of the output attributes proven never NULL.

    Computed directly per operator (kept per operator in the run's `facts`): what the
    full constraint closure proves about NULLs follows from null-intolerant conjuncts,
    join conditions and non-nullable expressions alone, without the equivalence-class
    substitutions."""
    facts = facts if facts is not None else Facts()
    hit = facts.get("not_null", plan)
    if hit is not None:
        return hit
    stack: list[tuple[L.Plan, bool]] = [(plan, False)]
    while stack:
        p, ready = stack.pop()
        if facts.get("not_null", p) is not None:
            continue
        if not ready:
            stack.append((p, True))
            stack.extend((c, False) for c in p.children)
        else:
            facts.remember("not_null", p, frozenset(_not_null(p, facts)) & p.output_ids)
    return facts.get("not_null", plan)


def _from_conjuncts(cond: E.Expr | None) -> set[int]:
    ids: set[int] = set()
    if cond is not None:
        for c in E.split_conjuncts(cond):
            if c.deterministic or isinstance(c, E.IsNotNull):
                ids.update(a.expr_id for a in non_null_attributes(c))
    return ids


def _not_null(p: L.Plan, facts: Facts) -> set[int]:
    declared = {a.expr_id for a in p.output if not a.nullable}
    kids = [facts.get("not_null", c) for c in p.children]
    match p:
        case L.Filter(cond, _):
            return declared | kids[0] | _from_conjuncts(cond)
        case L.Project(projections, _) | L.Aggregate(_, projections, _):
            inherited = kids[0] if not isinstance(p, L.Aggregate) or p.grouping else set()
            out = set(declared)
            for n in projections:
                if isinstance(n, E.Attribute) and n.expr_id in inherited:
                    out.add(n.expr_id)
                elif isinstance(n, E.Alias) and isinstance(n.child, E.Attribute) \
                        and n.child.expr_id in inherited:
                    out.add(n.expr_id)
            return out
        case L.Join(_, _, jt, cond):
            left, right = kids
            if jt in (L.INNER, L.CROSS):
                return declared | left | right | _from_conjuncts(cond)
            if jt == L.LEFT_SEMI:
                return declared | left | _from_conjuncts(cond)
            if jt in (L.LEFT_OUTER, L.LEFT_ANTI):
                return declared | left
            if jt == L.RIGHT_OUTER:
                return declared | right
            return declared
        case L.Union(inputs):
            out = set(declared)
            for i, a in enumerate(p.output):
                if all(inp.output[i].expr_id in k for inp, k in zip(inputs, kids)):
                    out.add(a.expr_id)
            return out
        case L.Intersect() | L.Except():
            mapping = {b.expr_id: a.expr_id for a, b in zip(p.output, p.left.output)}
            return declared | {mapping[i] for i in kids[0] if i in mapping}
        case L.Sort() | L.Limit() | L.Offset() | L.Distinct() | L.SubqueryAlias():
            return declared | kids[0]
        case L.LocalRelation(output, rows) if rows:
            return declared | {a.expr_id for i, a in enumerate(output) if all(r[i] is not None for r in rows)}
        case _:
            return declared


def _compute(p: L.Plan, facts: Facts) -> Constraints:
    match p:
        case L.Sort(_, child) | L.Limit(_, child) | L.Offset(_, child) | L.Distinct(child) \
                | L.SubqueryAlias(_, child):
            return constraints(child, facts)
        case L.Filter(cond, child):
            return close([*constraints(child, facts).values(), *E.split_conjuncts(cond)], p.output, facts)
        case L.Project(projections, child):
            return close(_through_aliases(projections, constraints(child, facts).values(), facts), p.output, facts)
        case L.Aggregate(grouping, aggregates, child):
            inherited = constraints(child, facts).values() if grouping else ()
            return close(_through_aliases(aggregates, inherited, facts), p.output, facts)
        case L.Join(left, right, jt, cond):
            conj = E.split_conjuncts(cond) if cond is not None else []
            lc, rc = constraints(left, facts).values(), constraints(right, facts).values()
            if jt in (L.INNER, L.CROSS):
                valid = [*lc, *rc, *conj]
            elif jt == L.LEFT_SEMI:
                valid = [*lc, *conj]
            elif jt in (L.LEFT_OUTER, L.LEFT_ANTI):
                valid = list(lc)
            elif jt == L.RIGHT_OUTER:
                valid = list(rc)
            else:
                valid = []
            return close(valid, p.output, facts)
        case L.Union(inputs):
            return close(_union_constraints(p, inputs, facts), p.output, facts)
        case L.Intersect(left, _) | L.Except(left, _):
            return close(constraints(left, facts).values(), p.output, facts)
        case L.LocalRelation(output, rows) if rows:
            never_null = [E.IsNotNull(a) for i, a in enumerate(output)
                          if all(r[i] is not None for r in rows)]
            return close(never_null, p.output, facts)
        case _:
            return close((), p.output, facts)


def _through_aliases(named, inherited, facts: Facts) -> list[E.Expr]:
    """Constraints above a Project/Aggregate: the inherited ones (filtered to the output
    later), rewritten for each deterministic alias, and `alias <=> literal`."""
    out = list(inherited)
    for n in named:
        if not isinstance(n, E.Alias):
            continue
        child, attr = n.child, n.to_attribute()
        if isinstance(child, E.Literal):
            out.append(E.EqualNullSafe(attr, child))
            continue
        if not child.deterministic or child.deep_mask & (_SUBQUERY_OR_OPAQUE | E.Agg.bit):
            continue
        if isinstance(child, E.Attribute):
            out.extend(substitute(e, {child.expr_id: attr}) for e in list(out)
                       if child.expr_id in e.references)
            continue
        key = canon(child, facts)
        kind = type(child)

        def swap(x, key=key, kind=kind, attr=attr):
            return attr if type(x) is kind and canon(x, facts) == key else x

        for e in list(out):
            if e.deep_mask & kind.bit:
                new = transform_up(e, swap, opaque=(E.Opaque,))
                if new is not e:
                    out.append(new)
    return out


def _union_constraints(p: L.Union, inputs, facts: Facts) -> list[E.Expr]:
    first = p.output
    common: Constraints | None = None
    for inp in inputs:
        mapping = {a.expr_id: b for a, b in zip(inp.output, first)}
        renamed: dict[Key, E.Expr] = {}
        for e in constraints(inp, facts).values():
            r = substitute(e, mapping)
            renamed.setdefault(canon(r, facts), r)
        if common is None:
            common = renamed
        else:
            common = {k: e for k, e in common.items() if k in renamed}
        if not common:
            return []
    return list(common.values()) if common else []
