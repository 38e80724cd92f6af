"""Spark's analysis of many select items at once: each item's column name, type and
nullability, or the error class Spark rejects it with.

One `SELECT item, item, ... FROM table` checks hundreds of items in one analysis.  When
Spark rejects it, the error's query context points at the item it failed on: that item's
answer is the error, and the others are analyzed again without it (an error without a
position splits the batch in two).  An answer is `Answer(name, type, nullable)` or
`Answer(error=CLASS)`."""

from __future__ import annotations

from typing import NamedTuple, Sequence


class Answer(NamedTuple):
    name: str = ""
    type: str = ""
    nullable: bool = True
    error: str = ""

    def encoded(self):
        """The answer as JSON: `[name, type, nullable]`, or `"!ERROR_CLASS"`."""
        return "!" + self.error if self.error else [self.name, self.type, self.nullable]

    @classmethod
    def decoded(cls, value) -> "Answer":
        if isinstance(value, str):
            return cls(error=value[1:])
        name, type_, nullable = value
        return cls(name, type_, bool(nullable))


def error_class(e: Exception) -> str:
    for getter in ("getCondition", "getErrorClass"):
        get = getattr(e, getter, None)
        try:
            c = get() if get else None
        except Exception:  # (a Connect error without it)
            c = None
        if c:
            return str(c)
    return type(e).__name__


def _select(items: Sequence[str], source: str) -> tuple[str, list[int]]:
    """The SELECT text and the offset each item starts at."""
    starts, parts, pos = [], [], len("SELECT ")
    for it in items:
        starts.append(pos)
        parts.append(it)
        pos += len(it) + 2
    return "SELECT " + ", ".join(parts) + f" FROM {source}", starts


def _failed_item(e: Exception, starts: list[int]) -> int | None:
    """The index of the item the error's query context points into, if it has one."""
    try:
        contexts = e.getQueryContext()  # type: ignore[attr-defined]
    except Exception:
        return None
    for c in contexts or ():
        try:
            at = c.startIndex()
        except Exception:
            continue
        if at is None or at < starts[0]:
            continue
        i = max(k for k, s in enumerate(starts) if s <= at)
        return i
    return None


def analyze_items(spark, items: Sequence[str], source: str, batch: int = 250) -> list[Answer]:
    """Spark's answer for each item of `SELECT <item> FROM <source>` (session settings as
    they are), analyzing up to `batch` items at a time."""
    out: list[Answer | None] = [None] * len(items)

    def solve(idxs: list[int]) -> None:
        while idxs:
            sql, starts = _select([items[i] for i in idxs], source)
            try:
                fields = spark.sql(sql).schema.fields
            except Exception as e:  # Spark's error is the answer (an ArithmeticException too:
                # the analyzer evaluates some constant arguments, `round(x, CAST(2^40 AS INT))`)
                if len(idxs) == 1:
                    out[idxs[0]] = Answer(error=error_class(e))
                    return
                k = _failed_item(e, starts)
                if k is None:
                    half = len(idxs) // 2
                    solve(idxs[:half])
                    solve(idxs[half:])
                    return
                out[idxs[k]] = Answer(error=error_class(e))
                idxs = idxs[:k] + idxs[k + 1:]
                continue
            assert len(fields) == len(idxs), sql
            for i, f in zip(idxs, fields):
                out[i] = Answer(f.name, f.dataType.simpleString(), bool(f.nullable))
            return

    for lo in range(0, len(items), batch):
        solve(list(range(lo, min(lo + batch, len(items)))))
    missing = sum(a is None for a in out)
    assert not missing, f"{missing} items without an answer"
    return out  # type: ignore[return-value]
