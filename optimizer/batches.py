"""The default batches, modelled on Catalyst's `Optimizer.defaultBatches`.

Batches are data: a name, a strategy and rule names in order.  Rules register
themselves by name when their module under `rules/` is imported; `default_batches()`
resolves the names.  The order, and why:

1. "LocalRelation early" (fixed point): empty relations are propagated before anything
   else, so later batches work on smaller plans (Catalyst runs ConvertToLocalRelation,
   PropagateEmptyRelation and UpdateAttributeNullability here).
2. "Operator Optimization before Inferring Filters" (fixed point): the expression
   simplifications feed each other within one iteration (NullPropagation's NULLs are
   folded by ConstantFolding, whose FALSE is used by BooleanSimplification, which lets
   PruneFilters turn a Filter into an empty relation, which PropagateEmptyRelation
   pushes up).  EliminateOuterJoin comes first, as in Catalyst, so that later rules see
   inner joins.
3. "Infer Filters" (once): IS NOT NULL and equalities inferred from constraints are
   added to filters and join sides.  It runs once because inference can produce
   predicates the simplifications rewrite back and forth.
4. "Operator Optimization after Inferring Filters" (fixed point): the same rule set,
   to simplify what inference added (and prune what it made redundant).
5. "LocalRelation" (fixed point): a last propagation of empty relations, and folding
   of a global aggregate over an empty input into a one-row constant.
"""

from __future__ import annotations

from .engine import Batch, FixedPoint, Once

FIXED_POINT = FixedPoint(100)

LOCAL_RELATION = ("PropagateEmptyRelation", "UpdateAttributeNullability")

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
