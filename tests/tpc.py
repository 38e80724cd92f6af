"""The TPC-H / TPC-DS corpus (bench/corpus, carried by the repository; SPARKFOLD_BENCH points
elsewhere), and small random data for it."""

from __future__ import annotations

import glob
import json
import os
import random
import re

BENCH = os.environ.get("SPARKFOLD_BENCH", os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "bench", "corpus"))


def schema(corpus: str) -> dict:
    with open(os.path.join(BENCH, corpus, "schema.json")) as f:
        return json.load(f)


def queries(corpus: str) -> list[tuple[str, str]]:
    out = []
    for path in sorted(glob.glob(os.path.join(BENCH, corpus, "queries", "*.sql"))):
        with open(path) as f:
            out.append((f"{corpus}/{os.path.basename(path)[:-4]}", f.read()))
    return out


_registered: dict[int, tuple] = {}


def use(spark, corpus: str, kind: str = "empty") -> dict:
    """Register the corpus's tables (TPC-H and TPC-DS share table names, so only one
    corpus is registered at a time); returns its catalog mapping."""
    key = (corpus, kind)
    if _registered.get(id(spark)) != key:
        (register_empty if kind == "empty" else register_random)(spark, corpus)
        _registered[id(spark)] = key
    return schema(corpus)


def register_empty(spark, corpus: str) -> dict:
    from tests.data import register

    sch = schema(corpus)
    for table, cols in sch.items():
        register(spark, table, cols, [])
    return sch


KEY_RANGE = int(os.environ.get("SPARKFOLD_TPC_KEY_RANGE", "12"))


def register_random(spark, corpus: str, rows: int = 150, seed: int = 7) -> dict:
    """Random rows full of NULLs; strings and numbers drawn from the literals the queries
    use, so filters and joins select something."""
    from tests.data import register

    rnd = random.Random(seed)
    sch = schema(corpus)
    text = "\n".join(q for _, q in queries(corpus))
    strings = sorted(set(re.findall(r"'([^']*)'", text)))
    dates = [s for s in strings if re.fullmatch(r"\d{4}-\d{2}-\d{2}", s)]
    words = [s for s in strings if s not in dates] or ["x"]
    for table, cols in sch.items():
        data = []
        for _ in range(rows):
            row = []
            for name, typ in cols.items():
                if rnd.random() < 0.2:
                    row.append(None)
                elif typ in ("bigint", "int"):
                    # keys drawn from a wider range than other numbers: joins of 8 tables
                    # (q08) stay small enough to run in seconds, yet still match rows
                    row.append(rnd.randint(1, KEY_RANGE if name.endswith("key") else 6))
                elif typ == "double":
                    # mostly distinct values, so ORDER BY ... LIMIT has no ties at the cut
                    row.append(rnd.choice([0.0, 0.05, 0.07, round(rnd.uniform(0, 1000), 3)]))
                elif name.endswith("date"):
                    row.append(rnd.choice(dates))
                else:
                    row.append(rnd.choice(words))
            data.append(tuple(row))
        register(spark, table, cols, data)
    return sch
