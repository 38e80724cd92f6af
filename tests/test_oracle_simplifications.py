"""The simplification oracle (tests/oracles/simplifications.py): each case of each
expression rule over the columns of a table whose rows hold the edge values, as a
SELECT value and as a WHERE condition, in ANSI and legacy mode.  Spark's answers for
the original expressions are in tests/oracles/golden/simplifications.jsonl.gz (written
by `python -m tests.oracles.simplifications --regenerate`).

- Without Spark, over one share of the cases (all with SPARKFOLD_LONG=1): where a rule
  rewrote an expression, the rewrite evaluated on every row gives Spark's values, type,
  kept rows and errors.  The disagreements not fixed yet are listed in tests/oracles/
  simplifications_open.txt: one not listed fails, and so does one listed that agrees.
- On live Spark, a sample (the whole space with SPARKFOLD_LONG=1): the original and
  sparkfold's optimized SQL side by side.
"""

from __future__ import annotations

import random

import pytest

from tests.oracles import simplifications as S

# the default run checks one share of this many of the cases (about 5 s)
SHARE = 16


@pytest.fixture(scope="module")
def golden():
    g = S.load()
    problems = S.stale(g)
    assert not problems, f"the golden file does not match the space, run " \
                         f"`python -m tests.oracles.simplifications --regenerate`: {problems[:5]}"
    return g


def _explain(mismatches, limit: int = 25) -> str:
    return "\n".join(f"[{c}] {m} {x}: {e}\n    {d}" for c, m, x, e, d in mismatches[:limit])


def _assert_agrees(golden, share: int) -> None:
    report = S.check(golden, share)
    found, known = S.mismatch_keys(report), S.open_keys(share=share)
    new = [x for x in report.mismatches if tuple(x[:4]) not in known]
    fixed = sorted(known - found)
    assert not new, f"{report.summary()}\nnot in {S.OPEN.name}:\n{_explain(new)}"
    assert not fixed, f"fixed (run `python -m tests.oracles.simplifications --write-open`): {fixed[:10]}"
    # not vacuous: the rules rewrite many cases, and most rewrites are evaluated here
    for m, _ in S.MODES:
        for context in ("select", "where"):
            rewritten = report.rewritten[(m, context)]
            assert rewritten >= 500 // share, report.summary()
            assert report.unchecked[(m, context)] <= 0.5 * rewritten, report.summary()


def test_rewrites_agree_with_spark_over_a_share_of_the_cases(golden):
    _assert_agrees(golden, SHARE)


@pytest.mark.slow
def test_rewrites_agree_with_spark_over_all_the_cases(golden):
    _assert_agrees(golden, 1)


def _assert_live(spark, golden, exprs, where_limit: int):
    report = S.live(spark, golden, exprs, where_limit=where_limit)
    known = {e for *_k, e in S.open_keys()}
    new = [x for x in report.mismatches if x[0] == "golden differs" or x[3] not in known]
    assert not new, f"{report.summary()}\n{_explain(new)}"
    return report


def test_a_sample_agrees_on_live_spark(spark, golden):
    exprs = random.Random(35).sample(sorted(golden), 6)
    report = _assert_live(spark, golden, exprs, where_limit=1)
    assert report.checked[("ansi", "select")] >= 3, report.summary()


@pytest.mark.slow
def test_the_whole_space_agrees_on_live_spark(spark, golden):
    _assert_live(spark, golden, sorted(golden), where_limit=10_000)
