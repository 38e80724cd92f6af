"""The engine's one check of a rule's output (Catalyst's `validatePlanChanges`).

After every rule application that changed the plan, `plan_change_error` says why the new
plan may not replace the old one, or None:
- the output schema: names, types and arity stay (a rule that breaks this has a bug: the
  engine raises an internal error naming it).  Nullability is left out, as Catalyst's
  `DataType.equalsIgnoreNullability` leaves it out: a rewrite keeps the values, and an
  expression rebuilt by a rule may be typed nullable where the original was proven
  never NULL (UpdateAttributeNullability narrows it again);
- every Aggregate stays grouped (Spark's MISSING_AGGREGATION): a rewrite that takes a
  grouping expression apart in a select list is equal in value but rejected by Spark,
  so the engine does not keep it (a trace warning names the rule);
- no new constant that Spark's optimizer evaluates to an error (`spark_fold_errors`):
  folding `count(*)` over an empty input to `0` under a HAVING that keeps no row hands
  Spark a `0L AS c` that its FoldablePropagation carries into `c % c` above and its
  ConstantFolding evaluates at planning, raising REMAINDER_BY_ZERO where the query
  returned no row.  Such a rewrite is not kept (a trace warning names the rule).  Over
  rows (VALUES, a view Spark may read as VALUES) Spark's first batch evaluates a
  constant row by row, and not at all when no row is left, so its errors there are not
  counted: a rewrite that puts such a constant over sparkfold's written empty relation,
  where ConstantFolding raises, is not kept (`Checks._evaluated_by_rows`);
- no call or relation sparkfold does not model is removed (`unmodelled`): Spark analyzes
  the whole query before it optimizes, so it rejects `WHERE FALSE AND abs(1, 2) > 0`
  (WRONG_NUM_ARGS), `... AND my_udf(x)` when no such function is registered
  (UNRESOLVED_ROUTINE), `... AND soundex(array(1)) = ''` (DATATYPE_MISMATCH), although
  no row ever reaches them.  Only Spark knows whether such a call is valid, so a rewrite
  that leaves one out would turn Spark's error into a result: it is not kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from ..plans.ir import types as T
from ..plans.ir.evaluate import CannotEvaluate, EvaluationError, evaluate, raising_constants
from ..plans.ir.opaque_values import unmodelled_in as _unmodelled_in
from ..plans.ir.tree import transform_up

_SUBQUERY_MASK = E.ScalarSubquery.bit | E.Exists.bit | E.InSubquery.bit


def schema_error(before: L.Plan, after: L.Plan) -> str | None:
    """Why `after`'s output is not `before`'s (names, types, arity), or None."""
    a, b = before.output, after.output
    if len(a) != len(b) or any(x.name != y.name or x.data_type != y.data_type for x, y in zip(a, b)):
        return (f"changed the output schema from {[(x.name, x.data_type.simple_string()) for x in a]} "
                f"to {[(y.name, y.data_type.simple_string()) for y in b]}")
    return None


def aggregate_is_grouped(agg: L.Aggregate) -> bool:
    """Spark's MISSING_AGGREGATION check on an Aggregate: outside aggregate functions, a
    column of the input may only appear inside a (whole) grouping expression.  A rewrite
    may take such a subtree apart: with GROUP BY NOT (c >= c), the select item
    `(NOT (c >= c)) <=> NULL` simplifies to `c IS NULL`, equal in value but no longer
    over the grouping expression, and Spark rejects the written SQL.  Equality here is
    structural (stricter than Spark's canonical form), so in doubt the rewrite is kept out."""
    local = {a.expr_id for a in agg.child.output}
    group_set = set(agg.grouping)
    group_ids = {g.expr_id for g in agg.grouping if isinstance(g, E.Attribute)}
    for e in agg.aggregates:
        stack = [e.child if isinstance(e, E.Alias) else e]
        while stack:
            x = stack.pop()
            if x in group_set or isinstance(x, E.Agg) or (isinstance(x, E.Opaque) and x.kind == "aggregate"):
                continue
            if isinstance(x, E.Attribute):
                if x.expr_id in local:
                    return False
                continue
            if isinstance(x, E.SubqueryExpr) and any(r in local and r not in group_ids for r in x.outer_references):
                return False
            stack.extend(x.children)
    return True


def ungrouped_aggregates(plan: L.Plan) -> int:
    """How many Aggregates (subquery plans included) Spark would reject with
    MISSING_AGGREGATION (see `aggregate_is_grouped`)."""
    return Checks(ansi=True).of(plan)[0]


# Operators FoldablePropagation carries a child's constant columns through (Spark 4's
# `canPropagateFoldables`, and Distinct, which is an Aggregate by then); a join carries
# the sides whose rows it keeps unchanged.  A set operation's column is one of its
# inputs' values: Spark pushes projections and filters into each input of a union (and
# into the left of an EXCEPT or INTERSECT), where that input's constant is folded in.
_PASS_THROUGH = (L.Filter, L.Sort, L.Limit, L.Offset, L.Distinct, L.SubqueryAlias)
_JOIN_SIDES = {L.INNER: (0, 1), L.CROSS: (0, 1), L.LEFT_SEMI: (0, 1), L.LEFT_ANTI: (0, 1),
               L.LEFT_OUTER: (0,), L.RIGHT_OUTER: (1,)}
_MAX_COMBINATIONS = 16

# column id -> the constants it may hold (one per set-operation input it comes from)
Constants = dict[int, tuple[E.Literal, ...]]


def _is_null(e: E.Expr) -> bool:
    if isinstance(e, E.Literal):
        return e.value is None
    try:
        return e.foldable and evaluate(e) is None
    except (EvaluationError, CannotEvaluate):
        return False


def _count_of_nulls(n: E.Expr) -> E.Expr:
    """Spark's NullPropagation: `count(NULL, ...)` is the constant 0."""
    if isinstance(n, E.Agg) and n.name == "count" and n.args and all(_is_null(a) for a in n.args):
        return E.Literal(0, n.data_type)
    return n


def _combinations(e: E.Expr, values: Constants) -> list[dict[int, E.Literal]]:
    """The combinations of constants e's constant columns may hold (at most
    _MAX_COMBINATIONS, the first ones); [{}] when e reads none."""
    combos: list[dict[int, E.Literal]] = [{}]
    for i in sorted(i for i in e.references if i in values):
        combos = [{**c, i: v} for c in combos for v in values[i]][:_MAX_COMBINATIONS]
    return combos


def _substituted(e: E.Expr, combo: dict[int, E.Literal]) -> E.Expr:
    """e with the columns of `combo` replaced by their constants, then `count(NULL)` by 0."""
    x = transform_up(e, cast("Callable[[E.Expr], E.Expr]",
                             lambda n: combo.get(n.expr_id, n) if isinstance(n, E.Attribute) else n),
                     E.Attribute.bit)
    return transform_up(x, _count_of_nulls, E.Agg.bit)


def _substitutions(e: E.Expr, values: Constants) -> list[E.Expr]:
    """e with its constant columns replaced, once per combination of their constants."""
    if e.references.isdisjoint(values):
        return [e]
    return [_substituted(e, c) for c in _combinations(e, values)]


def _substituted_errors(e: E.Expr, values: Constants, ansi: bool) -> int:
    """The most raising constants among e's substitutions (`_substitutions`), counted part
    by part.  A subtree that still reads a column that is not a constant is not foldable
    after any substitution, so `raising_constants` counts its children one by one: the
    parts are the largest subtrees that read only constant columns or none of them.  A
    part that reads none counts the same in every combination, and one that reads some
    is counted once per combination of its own columns' constants (a large filter whose
    few conjuncts read a union's constant columns is not substituted whole 16 times)."""
    fixed, varying, stack = 0, [], [e]
    while stack:
        n = stack.pop()
        if n.references.isdisjoint(values):
            fixed += raising_constants(transform_up(n, _count_of_nulls, E.Agg.bit), ansi)
        elif all(i in values for i in n.references):
            varying.append((n, sorted(n.references)))
        else:
            stack.extend(n.children)
    counted: dict[tuple, int] = {}
    most = 0
    for combo in _combinations(e, values):
        total = fixed
        for k, (n, used) in enumerate(varying):
            key = (k, *(id(combo[i]) for i in used))
            count = counted.get(key)
            if count is None:
                count = counted[key] = raising_constants(_substituted(n, combo), ansi)
            total += count
        most = max(most, total)
    return most


def _constant_columns(named: tuple[E.Expr, ...], values: Constants, ansi: bool) -> Constants:
    out: Constants = {}
    for n in named:
        if isinstance(n, E.Attribute) and n.expr_id in values:
            out[n.expr_id] = values[n.expr_id]
        elif isinstance(n, E.Alias) and (n.child.foldable or not n.child.references.isdisjoint(values)):
            found = []
            for v in _substitutions(n.child, values):
                if isinstance(v, E.Literal):
                    found.append(v)
                elif v.foldable and not T.contains_unknown(v.data_type):
                    try:
                        found.append(E.Literal(evaluate(v, ansi), v.data_type))
                    except (EvaluationError, CannotEvaluate):
                        pass
            if found:
                out[n.expr_id] = tuple(found)
    return out


def _by_position(target: L.Plan, inputs: list[tuple[L.Plan, Constants]]) -> Constants:
    out: Constants = {}
    for i, a in enumerate(target.output):
        found = tuple(v for p, c in inputs for v in c.get(p.output[i].expr_id, ()))
        if found:
            out[a.expr_id] = found
    return out


def _carried(p: L.Plan, kids: list[Constants]) -> tuple[Constants, Constants]:
    """(the constants p's expressions see, the constants p passes up) before p's own."""
    if isinstance(p, L.Join):
        seen = {**kids[0], **kids[1]}
        return seen, {k: v for i in _JOIN_SIDES.get(p.join_type, ()) for k, v in kids[i].items()}
    if isinstance(p, L.Union):
        return {}, _by_position(p, list(zip(p.children, kids)))
    if isinstance(p, (L.Except, L.Intersect)):
        return {}, _by_position(p, [(p.left, kids[0])])
    if len(kids) == 1 and isinstance(p, (*_PASS_THROUGH, L.Project, L.Aggregate)):
        return kids[0], kids[0]
    if L.is_empty_relation(p):  # written as `SELECT CAST(NULL AS t) AS c, ... WHERE FALSE`
        return {}, {a.expr_id: (E.Literal(None, a.data_type),) for a in p.output}
    return {}, {}


def spark_fold_errors(plan: L.Plan, ansi: bool) -> int:
    """How many expressions of the plan (subquery plans included) Spark's optimizer
    would evaluate to an error before reading a row.

    FoldablePropagation replaces a column that a Project or Aggregate defines as a
    constant by the constant in the operators above it (through filters, sorts, limits,
    aliases and the kept sides of joins; Spark pushes what is above a set operation
    into its inputs); NullPropagation makes `count(NULL)` the constant 0 (an empty
    relation is written as a row of NULLs under WHERE FALSE); ConstantFolding then
    evaluates every constant subexpression and raises what evaluation raises, whatever
    the rows (on Spark 4, `SELECT c % c FROM (SELECT 0L AS c) t WHERE false` fails with
    REMAINDER_BY_ZERO).
    Modelled as far as `plans.evaluate` goes (an expression it cannot evaluate is not
    counted), which is what a rewrite's constants are built from; tests/test_fold_errors
    checks the model against Spark."""
    return Checks(ansi).of(plan)[1]


class Checks:
    """The counts `rejection` compares (ungrouped aggregates, constants Spark's optimizer
    would fold to an error), per plan node.  Both are sums over a node's subtree, and the
    constants a node passes up depend on its subtree only, so a node a rewrite left in
    place (rules share unchanged subtrees) is counted once per engine run, not once per
    rewrite.  Nodes are remembered by identity and kept alive while remembered."""

    def __init__(self, ansi: bool, row_sources: frozenset[str] = frozenset()):
        self.ansi = ansi
        self.row_sources = row_sources
        self._memo: dict[int, tuple[L.Plan, int, int, Constants, frozenset[int]]] = {}
        # ids of the nodes Spark's first optimizer batch may turn into rows, or drop, before
        # its ConstantFolding reads them (`_evaluated_by_rows`)
        self._by_rows: set[int] = set()

    def of(self, plan: L.Plan) -> tuple[int, int]:
        _, ungrouped, errors, _, _ = self._node(plan)
        return ungrouped, errors

    def _evaluated_by_rows(self, p: L.Plan) -> bool:
        """May Spark's first optimizer batch ("LocalRelation early": ConvertToLocalRelation,
        PropagateEmptyRelation) turn p into rows, or drop it, before its ConstantFolding
        reads p's expressions?  p is rows (VALUES), a relation Spark may read as rows (a
        view: `row_sources`), or an operator over such a part (a global aggregate gives
        its row whatever it reads, and is folded).  Such a p's constants are evaluated
        row by row, and not at all when no row is left (`SELECT CAST(300 AS TINYINT)
        FROM v WHERE 1 = 0`, v a view over VALUES, returns no row on Spark; over `(SELECT
        ... WHERE FALSE)`, the empty relation as sparkfold writes it, it raises
        CAST_OVERFLOW): their errors are not counted, so a rewrite that moves such a
        constant above sparkfold's written empty relation is not kept."""
        if isinstance(p, L.LocalRelation):
            by_rows = bool(p.rows)  # (an empty one is written `SELECT ... WHERE FALSE`)
        elif isinstance(p, L.Relation):
            by_rows = p.table in self.row_sources
        elif isinstance(p, (L.OpaqueRelation, L.OneRowRelation)) or (isinstance(p, L.Aggregate) and not p.grouping):
            by_rows = False
        else:
            by_rows = any(id(c) in self._by_rows for c in p.children)
        if by_rows:
            self._by_rows.add(id(p))
        return by_rows

    def unmodelled(self, plan: L.Plan) -> frozenset[int]:
        """The unmodelled calls and relations of the plan (subquery plans included), by
        the identity of their templates (which rules keep when they rewrite arguments)."""
        return self._node(plan)[4]

    def _node(self, root: L.Plan) -> tuple[L.Plan, int, int, Constants, frozenset[int]]:
        memo, ansi = self._memo, self.ansi
        stack: list = [(root, False)]
        while stack:
            p, expanded = stack.pop()
            done = memo.get(id(p))
            if done is not None and done[0] is p:
                continue
            if not expanded:
                stack.append((p, True))
                stack.extend((c, False) for c in p.children)
                continue
            kids = [memo[id(c)] for c in p.children]
            ungrouped = sum(k[1] for k in kids) + (isinstance(p, L.Aggregate) and not aggregate_is_grouped(p))
            errors = sum(k[2] for k in kids)
            by_rows = self._evaluated_by_rows(p)
            seen, values = _carried(p, [k[3] for k in kids])
            unmodelled = _NONE.union(*(k[4] for k in kids if k[4]))
            if isinstance(p, L.OpaqueRelation) and not _modelled_block(p):
                unmodelled |= {id(p.template)}
            for e in p.expressions:
                if e.deep_mask & E.Opaque.bit:
                    unmodelled |= _unmodelled_in(e)
                if by_rows:
                    pass  # (evaluated row by row, if a row is left: see `_evaluated_by_rows`)
                elif seen and not e.references.isdisjoint(seen):
                    errors += _substituted_errors(e, seen, ansi)
                elif e.mask & (E.Literal.bit | E.Opaque.bit):
                    errors += raising_constants(e, ansi)
                if e.deep_mask & _SUBQUERY_MASK:
                    for x in e.walk():
                        if isinstance(x, E.SubqueryExpr):
                            _, u, f, _, o = self._node(x.plan)
                            ungrouped, errors, unmodelled = ungrouped + u, errors + f, unmodelled | o
                            if x.frozen:  # (Spark decides whether it takes it: it may not go)
                                unmodelled |= {id(x.plan)}
            if isinstance(p, L.Project):
                values = _constant_columns(p.projections, values, ansi)
            elif isinstance(p, L.Aggregate):
                values = _constant_columns(p.aggregates, values, ansi)
            memo[id(p)] = (p, ungrouped, errors, values, unmodelled)
        return memo[id(root)]


_NONE: frozenset[int] = frozenset()

def _modelled_block(p: L.OpaqueRelation) -> bool:
    """Is the opaque block one sparkfold analyzed whole into operators (a LATERAL join's
    `model`), with no unmodelled expression, relation or subquery in them?  Spark's
    analysis accepts it as sparkfold's did."""
    if p.model is None:
        return False
    for n in p.model.walk():
        if isinstance(n, L.OpaqueRelation):
            return False
        for e in n.expressions:
            if e.deep_mask & _SUBQUERY_MASK or _unmodelled_in(e):
                return False
    return True


def _text(template) -> str:
    from ..plans.ir.dialect import DIALECT  # (sqlglot: loaded by then, not at start-up)

    return template.sql(dialect=DIALECT)


def _unmodelled_name(plan: L.Plan, template_ids: frozenset[int]) -> str:
    """The text of one of the unmodelled calls or relations (by template id) in plan."""
    stack: list[L.Plan] = [plan]
    while stack:
        p = stack.pop()
        if isinstance(p, L.OpaqueRelation) and id(p.template) in template_ids:
            return p.sql_text or _text(p.template)
        for e in p.expressions:
            for x in e.walk():
                if isinstance(x, E.Opaque) and id(x.template) in template_ids:
                    return x.sql_text or _text(x.template)
                if isinstance(x, E.SubqueryExpr):
                    if id(x.plan) in template_ids:
                        return "a correlated subquery"
                    stack.append(x.plan)
        stack.extend(p.children)
    return "an unmodelled call"


def rejection(before: L.Plan, after: L.Plan, ansi: bool = True, checks: Checks | None = None) -> str | None:
    """Why a valid-schema rewrite is not kept, or None.  `checks`: the counts of the run
    so far (an engine run passes one, so unchanged subtrees are not counted again)."""
    checks = checks if checks is not None and checks.ansi == ansi else Checks(ansi)
    (ungrouped, errors), (ungrouped_after, errors_after) = checks.of(before), checks.of(after)
    if ungrouped_after > ungrouped:
        return "took a grouping expression apart in a select list (Spark's MISSING_AGGREGATION)"
    if errors_after > errors:
        return ("made a constant that Spark's optimizer would evaluate to an error before reading "
                "a row (its FoldablePropagation and ConstantFolding)")
    gone = checks.unmodelled(before) - checks.unmodelled(after)
    if gone:
        text = _unmodelled_name(before, gone)
        return (f"removed `{text[:60]}`, which sparkfold does not model: only Spark knows whether it is "
                f"valid (Spark analyzes it even where no row reaches it)")
    return None
