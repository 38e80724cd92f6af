"""Shrinking a failing case: delta debugging over its choice record.

A case is a pure function of its record (choices.py), and the choice 0 is always the
simplest option, so a smaller failing case is found by editing the record and
replaying it: cut the tail, zero out runs of choices (halving the run length down to
single choices), and lower single choices.  An edit is kept when the replayed case
still fails the same way and its SQL is no longer than before.  Each try costs a Spark
run, so the number of tries is bounded.
"""

from __future__ import annotations

from typing import Callable

from .oracles import Case, replay_case


def shrink(case: Case, fails: Callable[[Case], bool], max_tries: int = 150,
           log: Callable[[str], None] | None = None) -> Case:
    """The smallest case found that still `fails` (the given case when none is)."""
    best = case
    tries = 0

    def size(c: Case) -> int:
        return len(c.sql) + sum(len(p) for p in c.parts)

    def attempt(record: list[int]) -> bool:
        nonlocal best, tries
        if tries >= max_tries:
            return False
        tries += 1
        try:
            cand = replay_case(best.oracle, best.world, record, best.shape)
        except Exception:  # noqa: BLE001 - a record the generator cannot replay
            return False
        if size(cand) > size(best) or (cand.sql == best.sql and cand.parts == best.parts):
            return False
        try:
            bad = fails(cand)
        except Exception:  # noqa: BLE001
            bad = False
        if bad:
            best = cand
            if log:
                log(f"  shrunk to {size(cand)} characters ({tries} tries)")
        return bad

    changed = True
    while changed and tries < max_tries:
        changed = False
        rec = list(best.record)
        # 1. cut the tail (past the end every choice is the simplest)
        n = len(rec) // 2
        while n >= 1 and tries < max_tries:
            if attempt(list(best.record)[:-n] if n < len(best.record) else []):
                changed = True
            else:
                n //= 2
        # 2. zero out runs of choices, long runs first
        n = max(1, len(best.record) // 4)
        while n >= 1 and tries < max_tries:
            i = 0
            while i < len(best.record) and tries < max_tries:
                rec = list(best.record)
                if any(rec[i:i + n]):
                    rec[i:i + n] = [0] * len(rec[i:i + n])
                    if attempt(rec):
                        changed = True
                        continue
                i += n
            n //= 2
        # 3. lower single choices
        for i in range(len(best.record)):
            if tries >= max_tries:
                break
            v = best.record[i] if i < len(best.record) else 0
            if v > 1:
                rec = list(best.record)
                rec[i] = v // 2
                if attempt(rec):
                    changed = True
    return best
