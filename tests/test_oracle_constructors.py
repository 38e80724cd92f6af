"""The constructor oracle (tests/oracles/constructors.py): `array(...)`, `struct(...)`,
`named_struct(...)`, arrays concatenated, `array_contains`, and VALUES columns, struct
stars and recursive CTEs built of them, in ANSI mode and out of it.

- an eighth of the space (the day's), without Spark: the type (nested nullability
  included) and nullability of every column sparkfold types, against Spark's recorded
  schemas; Spark's rejections not modelled as accepted;
- a sample on live Spark, both paths: the optimized SQL's and the DataFrame program's
  schema and rows against the original's (`verify`);
- the whole space without Spark with SPARKFOLD_LONG=1 (or `python -m tests.oracles.constructors`)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.oracles import constructors as Q

GOLDEN = Q.load() if Q.GOLDEN.exists() else {}
SHARE = 8


def test_the_golden_file_is_the_generated_space():
    """Regenerate after changing the space: `python -m tests.oracles.constructors --regenerate`."""
    assert list(GOLDEN) == Q.cases()


def _assert_models(cases) -> Counter:
    counts: Counter = Counter()
    wrong = []
    for mode, sql in cases:
        v, detail = Q.verdict(mode, sql, GOLDEN[mode, sql])
        counts[v] += 1
        if v == "wrong":
            wrong.append(f"{mode}: {sql}\n  {detail}")
    assert not wrong, f"{len(wrong)} of {len(cases)}:\n" + "\n".join(wrong[:10])
    # what the space is for: most queries typed as Spark types them
    assert counts["ok"] >= 0.5 * len(cases), counts
    return counts


def test_constructors_typed_as_spark_over_a_share_of_the_space():
    """The day's share (UTC; SPARKFOLD_ORACLE_SHARE=K replays one): SHARE days cover it all."""
    from tests.oracles.folds import share_of_the_day

    _assert_models(list(GOLDEN)[share_of_the_day(SHARE)::SHARE])


def test_recursive_ctes_of_arrays_are_modelled():
    """Spark's postgreSQL/with.sql forms: the recursive CTE typed, not passed through."""
    recursive = [(m, q) for m, q in GOLDEN if q.startswith("WITH RECURSIVE t(id, path)") or q.startswith("WITH RECURSIVE g(")]
    assert len(recursive) == 6
    assert _assert_models(recursive)["ok"] == 6


@pytest.mark.slow
def test_constructors_typed_as_spark_over_the_whole_space():
    _assert_models(list(GOLDEN))


SAMPLE = ["SELECT array(n, i) AS c, i FROM ct WHERE i > 1 OR 1 = 1",
          "SELECT named_struct('k', st, 'K2', NULL) FROM ct WHERE 1 = 1",
          "SELECT array(struct(i, n), struct(n, i)) FROM ct WHERE 1 = 1",
          "SELECT concat(array(s), array(ns), array(s)) FROM ct WHERE 1 = 1",
          "SELECT array_contains(ar, ct.I) AS c, i FROM ct WHERE i > 1 OR 1 = 1",
          "SELECT * FROM VALUES (named_struct('a', 1, 'b', 'x')), (named_struct('a', NULL, 'b', 'y')) AS v(c) WHERE 1 = 1",
          "SELECT col1.field, field FROM VALUES (named_struct('field', 1)) WHERE 1 = 1"]


def test_a_sample_agrees_with_spark_on_both_paths(spark):
    from sparkfold import optimize

    from tests.spark_check import verify_batched

    # (a recursive CTE runs a Spark job per level: one in the default run, 30 s -> about 15)
    recursive = [q for _, q in GOLDEN if q.startswith("WITH RECURSIVE")][:1]
    queries = SAMPLE[::2] + recursive
    Q.register(spark)
    results = [optimize(q, Q.catalog("ansi")) for q in queries]
    assert all(r.passthrough is None and r.sql != q for q, r in zip(queries, results)), \
        [(q, r.passthrough) for q, r in zip(queries, results)]
    reports = verify_batched(results, spark)
    bad = [f"{r.original_sql}\n  -> {r.optimized_sql}\n  {[c.to_dict() for c in r.comparisons if not c.equal]}"
           for r in reports if not r.equal]
    assert not bad, "\n".join(bad)
    assert all(len(r.comparisons) == 2 for r in reports)  # the optimized SQL and the DataFrame
