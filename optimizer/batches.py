"""The default batches, modelled on Catalyst's `Optimizer.defaultBatches`.

Batches are data: a name, a strategy and rule names in order.  Rules register
themselves by name when their module under `rules/` is imported; `default_batches()`
resolves the names.  The order, and why:

1. "LocalRelation early" (fixed point): empty relations are propagated before anything
   else, so later batches work on smaller plans (Catalyst runs ConvertToLocalRelation,
   PropagateEmptyRelation and UpdateAttributeNullability here).  A global aggregate
   over an empty input is folded right after (FoldEmptyAggregate, beyond Catalyst), and
   UpdateAttributeNullability comes last because the other two can narrow the
   nullability of an output (a dropped union input, a removed join side).
2. "Operator Optimization before Inferring Filters" (fixed point): the expression
   simplifications feed each other within one iteration (NullPropagation's NULLs are
   folded by ConstantFolding, whose FALSE is used by BooleanSimplification, which lets
   PruneFilters turn a Filter into an empty relation, which PropagateEmptyRelation
   pushes up).  EliminateOuterJoin comes first, as in Catalyst, so that later rules see
   inner joins.  After PruneFilters come the rules that need an empty relation to
   exist: OptimizeSubqueries (IN / EXISTS / scalar subqueries over an empty plan),
   PropagateEmptyRelation, then FoldEmptyAggregate and FoldConstantAggregate (a global
   aggregate that needs no input, e.g. once NullPropagation made `count(NULL)` a 0).
   UpdateAttributeNullability is last: it publishes what filters, inner joins and the
   rules before it proved non-null, which NullPropagation uses in the next iteration
   (`count(x)` under `WHERE x IS NOT NULL` becomes `count(1)`).
3. "Infer Filters" (once): IS NOT NULL and equalities inferred from constraints are
   added to filters and join sides.  It runs once because inference can produce
   predicates the simplifications rewrite back and forth.
4. "Operator Optimization after Inferring Filters" (fixed point): the same rule set,
   to simplify what inference added (and prune what it made redundant).
5. "LocalRelation" (fixed point): a last propagation of empty relations, and folding
   of a global aggregate over an empty input into a one-row constant.

Every name that is not registered (yet) is skipped; `default_batches(strict=True)`
raises instead.
"""

from __future__ import annotations

from .engine import Batch, FixedPoint, Once

FIXED_POINT = FixedPoint(100)

LOCAL_RELATION = ("PropagateEmptyRelation", "FoldEmptyAggregate", "UpdateAttributeNullability")

OPERATOR_OPTIMIZATION = (
    "EliminateOuterJoin",
    "NullPropagation",
    "NullDownPropagation",
    "OptimizeIn",
    "ConstantFolding",
    "BooleanSimplification",
    "SimplifyConditionals",
    "SimplifyBinaryComparison",
    "ReplaceNullWithFalseInPredicate",
    "PruneFilters",
    "OptimizeSubqueries",
    "PropagateEmptyRelation",
    "FoldEmptyAggregate",
    "FoldConstantAggregate",
    "UpdateAttributeNullability",
)

INFER_FILTERS = ("InferFiltersFromConstraints",)

LOCAL_RELATION_LATE = ("PropagateEmptyRelation", "FoldEmptyAggregate", "UpdateAttributeNullability")

BATCHES = (
    ("LocalRelation early", FIXED_POINT, LOCAL_RELATION),
    ("Operator Optimization before Inferring Filters", FIXED_POINT, OPERATOR_OPTIMIZATION),
    ("Infer Filters", Once(), INFER_FILTERS),
    ("Operator Optimization after Inferring Filters", FIXED_POINT, OPERATOR_OPTIMIZATION),
    ("LocalRelation", FIXED_POINT, LOCAL_RELATION_LATE),
    # Last, once: drop the IS NOT NULL predicates inference added where other predicates
    # already imply them (they have served nullability narrowing; in SQL they are noise).
    ("Cleanup", Once(), ("RemoveRedundantIsNotNull",)),
)


def all_rule_names() -> list[str]:
    seen: list[str] = []
    for _, _, names in BATCHES:
        for n in names:
            if n not in seen:
                seen.append(n)
    return seen


def default_batches(strict: bool = False) -> tuple[Batch, ...]:
    """The batches with their rules resolved.  Names of rules that are not (yet)
    registered are skipped, unless `strict`."""
    from rules.registry import load_all

    registry = load_all()
    out = []
    for name, strategy, names in BATCHES:
        missing = [n for n in names if n not in registry]
        if missing and strict:
            raise KeyError(f"batch {name!r} names unknown rules: {missing}")
        rules = tuple(registry[n] for n in names if n in registry)
        if rules:
            out.append(Batch(name, strategy, rules))
    return tuple(out)
