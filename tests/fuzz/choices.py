"""Where the generators' decisions come from.

Every generator in this package takes a `Chooser` and asks it for small integers; the
query it builds is a pure function of that sequence of integers (and of the world).
Three choosers:

- `RandomChooser(seed)`: seeded random decisions, recorded in `.record`, for bulk runs.
- `ReplayChooser(record)`: replays a recorded sequence; past its end (or where a value
  is out of range) every decision is the smallest one.  The shrinker (`shrink.py`)
  edits recorded sequences and replays them.
- `HypothesisChooser(draw)`: decisions drawn from hypothesis, so that hypothesis
  shrinks failing examples itself.

Convention, which makes shrinking work: the choice 0 is always the simplest option (a
column rather than an expression, no join rather than a join, FALSE for `chance`).
"""

from __future__ import annotations

import random
from typing import Sequence, TypeVar

X = TypeVar("X")


class Chooser:
    """Base: everything is built on `_draw(n)`, an integer in [0, n)."""

    def _draw(self, n: int) -> int:
        raise NotImplementedError

    def below(self, n: int) -> int:
        """An integer in [0, n)."""
        return 0 if n <= 1 else self._draw(n)

    def between(self, lo: int, hi: int) -> int:
        return lo + self.below(hi - lo + 1)

    def pick(self, options: Sequence[X]) -> X:
        """One of `options`; the first is the simplest."""
        return options[self.below(len(options))]

    def chance(self, p: float) -> bool:
        """True with probability p (a draw of 0 is False)."""
        return self._draw(1000) >= round(1000 * (1 - p)) if p > 0 else False

    def weighted(self, options: Sequence[tuple[float, X]]) -> X:
        """One of `options` (weight, value), by weight; the first is the simplest."""
        total = sum(round(w * 100) for w, _ in options)
        r = self.below(total)
        for w, v in options:
            r -= round(w * 100)
            if r < 0:
                return v
        return options[-1][1]


class RandomChooser(Chooser):
    def __init__(self, seed: int | random.Random):
        self.rnd = seed if isinstance(seed, random.Random) else random.Random(seed)
        self.record: list[int] = []

    def _draw(self, n: int) -> int:
        v = self.rnd.randrange(n)
        self.record.append(v)
        return v


class ReplayChooser(Chooser):
    def __init__(self, record: Sequence[int]):
        self.source = list(record)
        self.pos = 0
        self.record: list[int] = []

    def _draw(self, n: int) -> int:
        v = self.source[self.pos] if self.pos < len(self.source) else 0
        self.pos += 1
        v = v if 0 <= v < n else 0
        self.record.append(v)
        return v


class HypothesisChooser(Chooser):
    def __init__(self, draw):
        from hypothesis import strategies as st

        self.draw = draw
        self.st = st

    def _draw(self, n: int) -> int:
        return self.draw(self.st.integers(0, n - 1))
