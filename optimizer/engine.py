"""The rule executor: batches of rules run once or to a fixed point, with a trace.

Like Catalyst's RuleExecutor: a batch runs its rules in order, each on the previous
rule's output; one pass over all of them is an iteration.  A `FixedPoint(n)` batch
repeats until an iteration changes nothing (an identity test: rules return the same
object when they change nothing) or n iterations ran; hitting the limit is recorded
as a warning in the trace, never raised.  Every rule application that changed the
plan becomes a `Rewrite` record.  Each change is checked once, here (`validate.py`, like
Catalyst's `validatePlanChanges`): a rule that raises or breaks the output schema is an
internal error naming the rule and its batch; a change Spark would reject (an Aggregate
no longer grouped) is not kept, with a trace warning naming the rule.
"""

from __future__ import annotations

import time
from dataclasses import field
from typing import Iterable

from ..plans.ir import logical as L
from ..plans.ir.errors import InternalError
from ..plans.ir.expressions import ensure_ids_above, id_scope
from ..plans.ir.records import record
from ..rules.base import Rule, RuleContext
from .validate import Checks, rejection, schema_error


@record(frozen=True)
class Once:
    def __str__(self) -> str:
        return "Once"


@record(frozen=True)
class FixedPoint:
    max_iterations: int = 100

    def __str__(self) -> str:
        return f"FixedPoint({self.max_iterations})"


@record(frozen=True)
class Batch:
    name: str
    strategy: Once | FixedPoint
    rules: tuple[Rule, ...]


@record(frozen=True)
class Rewrite:
    """One effective rule application."""

    batch: str
    iteration: int
    rule: str
    before: L.Plan
    after: L.Plan
    seconds: float


@record
class BatchRun:
    name: str
    strategy: str
    iterations: int = 0
    converged: bool = True
    seconds: float = 0.0


@record
class RuleStats:
    runs: int = 0
    effective: int = 0
    seconds: float = 0.0


@record
class Trace:
    rewrites: list[Rewrite] = field(default_factory=list)
    batches: list[BatchRun] = field(default_factory=list)
    rules: dict[str, RuleStats] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def __iter__(self):
        return iter(self.rewrites)

    def __len__(self) -> int:
        return len(self.rewrites)

    def __getitem__(self, i):
        return self.rewrites[i]

    @property
    def effective_rules(self) -> list[str]:
        return [name for name, s in self.rules.items() if s.effective]


def execute(plan: L.Plan, batches: Iterable[Batch], ctx: RuleContext | None = None,
            excluded: Iterable[str] = (), trace: Trace | None = None) -> tuple[L.Plan, Trace]:
    """Run the batches on the plan; the run's new expression ids come from the caller's
    id scope (an `optimize()` call's), or from one of its own above the plan's ids."""
    top = L.max_expr_id(plan)
    with id_scope(top + 1, join=True):
        ensure_ids_above(top)
        return _execute(plan, batches, ctx, excluded, trace)


def _execute(plan: L.Plan, batches: Iterable[Batch], ctx: RuleContext | None,
             excluded: Iterable[str], trace: Trace | None) -> tuple[L.Plan, Trace]:
    ctx = ctx or RuleContext()
    trace = trace if trace is not None else Trace()
    skip = {e.lower() for e in excluded}
    checks = Checks(ctx.ansi, ctx.row_sources)
    # A rule is a pure function of the plan: once it left a plan unchanged it would leave
    # that very plan unchanged again, so it is not rerun until something changed it
    # (the last, confirming iteration of a fixed point costs almost nothing).
    unchanged_by: dict[str, L.Plan] = {}
    for batch in batches:
        rules = [r for r in batch.rules if r.name.lower() not in skip]
        if not rules:
            continue
        limit = 1 if isinstance(batch.strategy, Once) else batch.strategy.max_iterations
        run = BatchRun(batch.name, str(batch.strategy))
        start = time.perf_counter()
        iteration = 0
        while True:
            iteration += 1
            last = plan
            for rule in rules:
                if unchanged_by.get(rule.name) is plan:
                    continue
                t0 = time.perf_counter()
                try:
                    new = rule.apply(plan, ctx)
                except Exception as e:
                    raise InternalError(f"rule {rule.name} (batch {batch.name}) failed: {type(e).__name__}: "
                                        f"{e}; please report this as a bug") from e
                dt = time.perf_counter() - t0
                stats = trace.rules.setdefault(rule.name, RuleStats())
                stats.runs += 1
                stats.seconds += dt
                if new is plan or new == plan:
                    # (rebuilt but structurally equal is not a rewrite either)
                    unchanged_by[rule.name] = plan
                    continue
                broken = schema_error(plan, new)
                if broken:
                    raise InternalError(f"rule {rule.name} (batch {batch.name}) {broken}; please report "
                                        f"this as a bug")
                reason = rejection(plan, new, ctx.ansi, checks)
                if reason:
                    trace.warnings.append(f"rule {rule.name} (batch {batch.name}) {reason}; its rewrite "
                                          f"is not kept")
                    unchanged_by[rule.name] = plan
                    continue
                stats.effective += 1
                trace.rewrites.append(Rewrite(batch.name, iteration, rule.name, plan, new, dt))
                plan = new
            if plan is last:
                break
            if iteration >= limit:
                if isinstance(batch.strategy, FixedPoint):
                    run.converged = False
                    trace.warnings.append(
                        f"Max iterations ({limit}) reached for batch {batch.name}; the plan "
                        f"so far is kept")
                break
        run.iterations = iteration
        run.seconds = time.perf_counter() - start
        trace.batches.append(run)
    return plan, trace
