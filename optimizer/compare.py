"""Comparing query results the way Spark compares values.

NULL matches NULL, NaN matches NaN, -0.0 matches 0.0, and floating-point values match
within a relative tolerance (aggregates over doubles may sum in another order).
Rows compare as multisets, or as sequences when order matters.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import field
from decimal import Decimal
from typing import Any, Iterable, Sequence

from ..plans.ir.records import record

REL_TOL = 1e-9
_SIG_DIGITS = 9


def normalize(v: Any) -> Any:
    """A hashable, order-independent key for a value under Spark's equality."""
    if v is None:
        return ("null",)
    if isinstance(v, bool):
        return ("b", v)
    if isinstance(v, float):
        if math.isnan(v):
            return ("nan",)
        if math.isinf(v):
            return ("inf", v > 0)
        if v == 0:
            return ("f", 0.0)
        # round to significant digits so equal-within-tolerance sums usually collide
        return ("f", float(f"{v:.{_SIG_DIGITS}g}"))
    if isinstance(v, Decimal):
        return ("d", v.normalize() if v != 0 else Decimal(0))
    if isinstance(v, (list, tuple)):
        return ("l", tuple(normalize(x) for x in v))
    if isinstance(v, dict):
        return ("m", tuple(sorted((repr(normalize(k)), normalize(x)) for k, x in v.items())))
    if hasattr(v, "asDict"):
        return ("r", tuple(normalize(x) for x in v))
    if isinstance(v, bytearray):
        return ("y", bytes(v))
    return ("v", v)


def values_equal(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if a == b:
            return True
        return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=1e-12)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b))
    return normalize(a) == normalize(b)


def rows_equal(a: Sequence, b: Sequence) -> bool:
    return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b))


@record
class RowDiff:
    equal: bool
    only_left: list = field(default_factory=list)
    only_right: list = field(default_factory=list)
    left_count: int = 0
    right_count: int = 0


def compare_rows(left: Iterable[Sequence], right: Iterable[Sequence], ordered: bool = False,
                 sample: int = 10) -> RowDiff:
    """Compare two row collections (tuples of Python values)."""
    left = [tuple(r) for r in left]
    right = [tuple(r) for r in right]
    if ordered:
        diffs_l, diffs_r = [], []
        for x, y in zip(left, right):
            if not rows_equal(x, y):
                diffs_l.append(x)
                diffs_r.append(y)
        diffs_l += left[len(right):]
        diffs_r += right[len(left):]
        return RowDiff(not diffs_l and not diffs_r, diffs_l[:sample], diffs_r[:sample], len(left), len(right))
    kl = Counter(tuple(normalize(v) for v in r) for r in left)
    kr = Counter(tuple(normalize(v) for v in r) for r in right)
    if kl == kr:
        return RowDiff(True, [], [], len(left), len(right))
    # exact keys differ: fall back to tolerant matching of the leftovers (the rows a
    # side has more of than the other, as many as it has more)
    rest_l = _excess(left, kl, kr)
    rest_r = _excess(right, kr, kl)
    unmatched_r = list(rest_r)
    only_l = []
    for r in rest_l:
        for i, s in enumerate(unmatched_r):
            if rows_equal(r, s):
                del unmatched_r[i]
                break
        else:
            only_l.append(r)
    equal = not only_l and not unmatched_r and len(left) == len(right)
    return RowDiff(equal, only_l[:sample], unmatched_r[:sample], len(left), len(right))


def _excess(rows: list, mine: Counter, theirs: Counter) -> list:
    extra = {k: n - theirs.get(k, 0) for k, n in mine.items() if n > theirs.get(k, 0)}
    out = []
    for r in rows:
        k = tuple(normalize(v) for v in r)
        if extra.get(k, 0) > 0:
            extra[k] -= 1
            out.append(r)
    return out


def _key(row: Sequence, positions: Sequence[int]) -> tuple:
    return tuple(normalize(row[i]) for i in positions)


def _groups(rows: list, positions: Sequence[int]) -> list[tuple[tuple, list]]:
    """Consecutive runs of rows with equal sort keys."""
    out: list[tuple[tuple, list]] = []
    for r in rows:
        k = _key(r, positions)
        if out and out[-1][0] == k:
            out[-1][1].append(r)
        else:
            out.append((k, [r]))
    return out


def compare_ordered(left: Iterable[Sequence], right: Iterable[Sequence], key_positions: Sequence[int],
                    loose_first: bool = False, loose_last: bool = False, sample: int = 10) -> RowDiff:
    """Compare two results of the same ORDER BY.  Rows whose sort keys (the columns at
    `key_positions`) are equal may come in any order, so the results must have the same
    sequence of keys and, per run of equal keys, the same multiset of rows.

    A LIMIT (OFFSET) over the sort may cut the last (first) run of ties at a different
    row: with `loose_last` (`loose_first`) that run only needs the same key and length.
    Without key positions the rows are compared in sequence."""
    left = [tuple(r) for r in left]
    right = [tuple(r) for r in right]
    if not key_positions:
        return compare_rows(left, right, ordered=True, sample=sample)
    gl, gr = _groups(left, key_positions), _groups(right, key_positions)
    diffs_l: list = []
    diffs_r: list = []
    for i in range(max(len(gl), len(gr))):
        if i >= len(gl) or i >= len(gr):
            diffs_l += gl[i][1] if i < len(gl) else []
            diffs_r += gr[i][1] if i < len(gr) else []
            continue
        (_, rl), (_, rr) = gl[i], gr[i]
        if not rows_equal(rl[0], rr[0]) and not _keys_close(rl[0], rr[0], key_positions):
            diffs_l += rl
            diffs_r += rr
            continue
        loose = (loose_first and i == 0) or (loose_last and i == len(gl) - 1 and i == len(gr) - 1)
        if loose:
            if len(rl) != len(rr):
                diffs_l += rl
                diffs_r += rr
            continue
        d = compare_rows(rl, rr, sample=len(rl) + len(rr))
        if not d.equal:
            diffs_l += d.only_left
            diffs_r += d.only_right
    equal = not diffs_l and not diffs_r and len(left) == len(right)
    return RowDiff(equal, diffs_l[:sample], diffs_r[:sample], len(left), len(right))


def _keys_close(a: Sequence, b: Sequence, positions: Sequence[int]) -> bool:
    return all(values_equal(a[i], b[i]) for i in positions)
