"""The default batches, modelled on Catalyst's `Optimizer.defaultBatches`.

Batches are data: a name, a strategy and rules in order.  The rule families register
themselves in `rules/`; this module only decides the order, and says why.
"""

from __future__ import annotations

from .engine import Batch, FixedPoint, Once

FIXED_POINT = FixedPoint(100)


def default_batches() -> tuple[Batch, ...]:
    # Filled in as the rule families land (see rules/).
    return ()
