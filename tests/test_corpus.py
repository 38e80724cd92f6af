"""A corpus of SQL that nobody here wrote (tests/corpus: the query fixtures of sqlglot's
optimizer tests, from its source distribution on PyPI): a sample spread over every
fixture file runs on Spark, the original against sparkfold's optimized SQL and its
DataFrame program, over tables full of NULL, NaN, ±Infinity and -0.0.

The whole corpus, with the summary and Catalyst's reach beside sparkfold's:
`python -m tests.corpus.run` (or SPARKFOLD_LONG=1 for test_whole_corpus here)."""

from __future__ import annotations

import os

import pytest

from tests.corpus.check import check, summary
from tests.corpus.run import sample
from tests.corpus.source import statements

SAMPLE = int(os.environ.get("SPARKFOLD_CORPUS_SAMPLE", "60"))


def _failures(outcomes):
    return [f"[{o.status} / SQL {o.sql_verdict or '-'} / DataFrame {o.df_verdict or '-'}] {o.name}\n"
            f"  {o.sql}\n  {o.detail}\n  {o.report}"
            for o in outcomes if o.status in ("rejected", "bug") or o.sql_verdict == "wrong"
            or o.df_verdict in ("wrong", "lowering-failed")]


@pytest.fixture(scope="module")
def outcomes(spark):
    # a session of its own: the corpus's tables (x, y, t, ...) stay out of the other tests' views
    return check(spark.newSession(), sample(statements(), SAMPLE))


def test_the_sample_is_real_spark_sql_from_every_file(outcomes):
    s = summary(outcomes)
    assert s["statements"] == SAMPLE
    assert s["accepted"] >= SAMPLE // 2, s           # most of it is Spark SQL
    assert s["compared"] >= SAMPLE // 3, s           # and ran on Spark both ways
    assert len({o.name.split(":")[0] for o in outcomes}) >= 8


def test_original_and_optimized_agree_on_spark(outcomes):
    assert _failures(outcomes) == []


@pytest.mark.slow
def test_whole_corpus(spark):
    outcomes = check(spark.newSession(), statements())
    s = summary(outcomes)
    assert _failures(outcomes) == []
    assert s["passthrough_share"] < 0.02, s
