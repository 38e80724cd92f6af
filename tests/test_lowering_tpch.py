"""The whole TPC-H corpus (bench/corpus/tpch) lowered with to_pyspark_code(): the
program runs and returns what Spark returns for the original query, over empty tables
and over small random tables whose values come from the queries' own literals (so joins
and filters keep rows), with some NULLs."""

from __future__ import annotations

import json
import os
import random
import re

import pytest
from sparkfold.optimizer import optimize
from sparkfold.optimizer.verify import verify_many
from sparkfold.plans.pyspark.to_pyspark import run_code, to_pyspark_code

from tests.test_verify import fast_small_jobs  # noqa: F401  (module fixture)

TPCH = os.path.join(os.path.dirname(__file__), "..", "bench", "corpus", "tpch")


def _load():
    schema = json.load(open(os.path.join(TPCH, "schema.json")))
    folder = os.path.join(TPCH, "queries")
    queries = {f[:-4]: open(os.path.join(folder, f)).read() for f in sorted(os.listdir(folder))
               if f.endswith(".sql")}
    return schema, queries


SCHEMA, QUERIES = _load()


NATIONS = [(0, "FRANCE", 0), (1, "GERMANY", 0), (2, "BRAZIL", 1), (3, "CANADA", 1), (4, "SAUDI ARABIA", 4)]
REGIONS = [(0, "EUROPE"), (1, "AMERICA"), (2, "ASIA"), (3, "AFRICA"), (4, "MIDDLE EAST")]


def _column_literals(text: str) -> dict[str, list[str]]:
    """Literals the queries compare each column with (`c = 'x'`, `c in ('x', ...)`, LIKE)."""
    pools: dict[str, set] = {}
    for col, lit in re.findall(r"(\w+)\s*(?:=|<>|not like|like)\s*'([^']*)'", text, re.I):
        pools.setdefault(col.lower(), set()).add(lit)
    for col, items in re.findall(r"(\w+)\s+in\s*\(([^()]*)\)", text, re.I):
        pools.setdefault(col.lower(), set()).update(re.findall(r"'([^']*)'", items))
    return {c: sorted(v) for c, v in pools.items()}


def _random_rows(table: str, columns: dict, rnd: random.Random, pool: dict, n: int) -> list:
    if table == "nation":
        return [(k, name, r, "comment") for k, name, r in NATIONS]
    if table == "region":
        return [(k, name, "comment") for k, name in REGIONS]
    rows = []
    for _ in range(n):
        row = []
        for name, typ in columns.items():
            if rnd.random() < 0.04 and not name.endswith("key"):
                row.append(None)
            elif name.endswith("key"):
                row.append(rnd.randint(0, 4))
            elif typ == "string" and "date" in name:
                row.append(f"{rnd.randint(1992, 1998)}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}")
            elif name == "c_phone":
                row.append(f"{rnd.choice(['13', '31', '23', '29', '30', '18', '17', '11'])}-555-0101")
            elif typ == "string":
                choices = pool["col"].get(name) if rnd.random() < 0.8 else None
                s = rnd.choice(choices or pool["str"])
                row.append(s.replace("%", rnd.choice(["", "x", "green ", "special requests"])))
            elif typ in ("int", "bigint"):
                row.append(rnd.choice(pool["int"]))
            else:
                row.append(round(rnd.choice([rnd.uniform(0, 0.1), rnd.uniform(1, 100), rnd.uniform(100, 10000)]), 2))
        rows.append(tuple(row))
    return rows


def _register(spark, empty: bool) -> None:
    from tests.data import register

    text = " ".join(QUERIES.values())
    pool = {"str": sorted(set(re.findall(r"'([^']*)'", text))) + ["other"],
            "int": sorted(int(x) for x in set(re.findall(r"\b(\d{1,2})\b", text))) or [1],
            "col": _column_literals(text)}
    rnd = random.Random(7)
    for table, cols in SCHEMA.items():
        rows = [] if empty else _random_rows(table, cols, rnd, pool, 60)
        register(spark, table, cols, rows)
        spark.catalog.cacheTable(table)


@pytest.mark.parametrize("data", ["empty", "random"])
def test_tpch_programs_run_and_match(spark, data):
    _register(spark, empty=(data == "empty"))
    try:
        results = [optimize(q, SCHEMA) for q in QUERIES.values()]
        reports = verify_many(results, spark, parallel=4)
        rows = {name: r.reference.rows for name, r in zip(QUERIES, reports)}
        bad = [f"{name}:\n{r.to_text()}\n{r.candidates[1].text}" for name, r in zip(QUERIES, reports)
               if not r.equal]
        print(f"TPC-H, {data} tables: {len(QUERIES) - len(bad)} of {len(QUERIES)} agree; rows {rows}")
        assert not bad, "\n\n".join(bad[:3])
        assert all(r.reference.error is None for r in reports)
        if data == "random":  # the data exercise the queries: most return rows
            assert sum(1 for n in rows.values() if n) >= 15, rows
    finally:
        for table in SCHEMA:
            spark.catalog.uncacheTable(table)


def test_tpch_code_is_standalone_python(spark):
    """The text alone (imports included) runs with only `spark` bound."""
    _register(spark, empty=True)
    try:
        code = to_pyspark_code(optimize(QUERIES["q18"], SCHEMA))
        namespace = {"spark": spark}
        exec(compile(code, "q18.py", "exec"), namespace)
        assert namespace["result"].columns == spark.sql(QUERIES["q18"]).columns
        assert run_code(code, spark).count() == 0
    finally:
        for table in SCHEMA:
            spark.catalog.uncacheTable(table)
