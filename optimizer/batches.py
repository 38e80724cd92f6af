"""The default batches, modelled on Catalyst's `Optimizer.defaultBatches`.

Batches are data: a name, a strategy and the rule objects in order, as in Catalyst's
`Optimizer.defaultBatches`.  `RULES`, every rule by its display name (for exclusion by
name, `sparkfold rules` and the verifier), is derived from them.  The order, and why:

1. "LocalRelation early" (fixed point): empty relations are propagated before anything
   else, so later batches work on smaller plans (Catalyst runs ConvertToLocalRelation,
   PropagateEmptyRelation and UpdateAttributeNullability here).  EliminateView comes
   first: a view whose definition the session gave and is proved empty is an empty
   relation (Catalyst has read the definition into the plan by then).
   ConvertToLocalRelation empties a Filter that keeps none of the rows below it (VALUES,
   a view over VALUES).  A global aggregate over an empty input is folded right after
   (FoldEmptyAggregate, beyond Catalyst), and
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
6. "Cleanup" (once): drop the IS NOT NULL predicates inference added where other
   predicates already imply them (they have served nullability narrowing; in SQL they
   are noise).
"""

from __future__ import annotations

from ..rules.base import Rule
from ..rules.boolean_simplification import boolean_simplification
from ..rules.cleanup import remove_redundant_is_not_null
from ..rules.comparisons import simplify_binary_comparison
from ..rules.conditionals import simplify_conditionals
from ..rules.constant_folding import constant_folding
from ..rules.constant_propagation import constant_propagation
from ..rules.foldable_propagation import foldable_propagation
from ..rules.empty_relation import (
    fold_constant_aggregate,
    fold_empty_aggregate,
    propagate_empty_relation,
)
from ..rules.infer_filters import infer_filters_from_constraints
from ..rules.local_relation import convert_to_local_relation, set_operation_of_rows
from ..rules.null_down_propagation import null_down_propagation
from ..rules.null_propagation import null_propagation
from ..rules.nullability import update_attribute_nullability
from ..rules.optimize_in import optimize_in
from ..rules.outer_join import eliminate_outer_join
from ..rules.prune_filters import prune_filters
from ..rules.pushdown import push_down_predicates
from ..rules.replace_null_with_false import replace_null_with_false
from ..rules.subqueries import optimize_subqueries
from ..rules.views import eliminate_view
from .engine import Batch, FixedPoint, Once

FIXED_POINT = FixedPoint(100)

LOCAL_RELATION = (eliminate_view, convert_to_local_relation, set_operation_of_rows, propagate_empty_relation, fold_empty_aggregate,
                  update_attribute_nullability)

OPERATOR_OPTIMIZATION = (
    push_down_predicates,
    constant_propagation,
    foldable_propagation,
    eliminate_outer_join,
    null_propagation,
    null_down_propagation,
    optimize_in,
    constant_folding,
    boolean_simplification,
    simplify_conditionals,
    simplify_binary_comparison,
    replace_null_with_false,
    prune_filters,
    optimize_subqueries,
    propagate_empty_relation,
    fold_empty_aggregate,
    fold_constant_aggregate,
    update_attribute_nullability,
)

BATCHES: tuple[Batch, ...] = (
    Batch("LocalRelation early", FIXED_POINT, LOCAL_RELATION),
    Batch("Operator Optimization before Inferring Filters", FIXED_POINT, OPERATOR_OPTIMIZATION),
    Batch("Infer Filters", Once(), (infer_filters_from_constraints,)),
    Batch("Operator Optimization after Inferring Filters", FIXED_POINT, OPERATOR_OPTIMIZATION),
    Batch("LocalRelation", FIXED_POINT, LOCAL_RELATION),
    Batch("Cleanup", Once(), (remove_redundant_is_not_null,)),
)


def _rules_by_name(batches: tuple[Batch, ...]) -> dict[str, Rule]:
    """Every rule of the batches by its display name, in the order they first run."""
    out: dict[str, Rule] = {}
    for batch in batches:
        for rule in batch.rules:
            if out.setdefault(rule.name, rule) is not rule:
                raise ValueError(f"two rules named {rule.name}")
    return out


RULES: dict[str, Rule] = _rules_by_name(BATCHES)


def default_batches() -> tuple[Batch, ...]:
    return BATCHES
