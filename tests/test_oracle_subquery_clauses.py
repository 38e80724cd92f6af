"""The subquery-clause oracle (tests/oracles/subquery_clauses.py): which subquery forms
Spark takes in which clause.  Spark's answers are in tests/oracles/golden/
subquery_clauses.jsonl.gz (written by `python -m tests.oracles.subquery_clauses --regenerate`).

Without Spark, over half the space in both modes (the whole with SPARKFOLD_LONG=1):
where Spark's analysis rejects a query, sparkfold rejects it with Spark's error class or
passes it through; where Spark takes it, sparkfold does not reject it.  On live Spark,
a sample (the whole space with SPARKFOLD_LONG=1): Spark still gives the recorded
answers, and where sparkfold reads a query Spark takes, the SQL it writes (spliced and
whole) gives the original's rows.
"""

from __future__ import annotations

import random

import pytest

from tests.oracles import subquery_clauses as S


@pytest.fixture(scope="module")
def golden():
    g = S.load()
    problems = S.stale(g)
    assert not problems, f"the golden file does not match the space, run " \
                         f"`python -m tests.oracles.subquery_clauses --regenerate`: {problems[:5]}"
    return g


# the default run checks one share of this many of the space (about 2 s)
SHARE = 2


def _assert_as_spark(golden, share: int) -> None:
    report = S.check(golden, share)
    shown = "\n".join(f"[{c}] {m}: {q}\n    {d}" for c, m, q, d in report.mismatches[:25])
    assert not report.mismatches, f"{report.summary()}\n{shown}"
    # not vacuous: Spark takes many and rejects many, and sparkfold reads and rejects some
    for m, _ in S.MODES:
        assert report.verdicts[(m, "taken", "read")] >= 50 // share, report.summary()
        assert report.verdicts[(m, "rejected", "rejected")] >= 50 // share, report.summary()


def test_sparkfold_rejects_what_spark_rejects_with_its_class(golden):
    _assert_as_spark(golden, SHARE)


@pytest.mark.slow
def test_sparkfold_takes_the_whole_space_as_spark_does(golden):
    _assert_as_spark(golden, 1)


def _live(spark, golden, queries, modes) -> None:
    from sparkfold import optimize
    from sparkfold.plans.sql_in.catalog import Catalog

    from tests.spark_check import verify_batched

    S.register(spark)
    old = spark.conf.get("spark.sql.ansi.enabled")
    try:
        for m, ansi in modes:
            spark.conf.set("spark.sql.ansi.enabled", str(ansi).lower())
            changed = [(q, golden[q][m], o) for q in queries if (o := S.spark_outcome(spark, q)) != golden[q][m]]
            assert not changed, f"{m}: Spark's answers changed, regenerate: {changed[:5]}"
            catalog = Catalog.from_mapping(S.TABLES, ansi=ansi)
            read = [q for q in queries if golden[q][m] == "ok" and S.sparkfold_outcome(q, ansi) == "read"]
            results = [optimize(q, catalog, always_regenerate=whole) for q in read for whole in (False, True)]
            bad = [f"{r.original_sql}\n  -> {r.optimized_sql}\n  {r.to_dict()['comparisons']}"
                   for r in verify_batched(results, spark) if not r.equal]
            assert not bad, f"{m}:\n" + "\n".join(bad)
    finally:
        spark.conf.set("spark.sql.ansi.enabled", old)


def test_a_sample_agrees_on_live_spark(spark, golden):
    rng = random.Random(35)
    taken = sorted(q for q in golden if golden[q]["ansi"] == "ok" and S.sparkfold_outcome(q, True) == "read")
    rejected = sorted(q for q in golden if golden[q]["ansi"] != "ok")
    _live(spark, golden, rng.sample(taken, 2) + rng.sample(rejected, 3), S.MODES[:1])


@pytest.mark.slow
def test_the_whole_space_agrees_on_live_spark(spark, golden):
    _live(spark, golden, sorted(golden), S.MODES)
