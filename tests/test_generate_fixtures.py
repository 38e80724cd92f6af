"""The SQL the generator writes, pinned by input/expected fixture pairs (readable output
close to the input), and each pair checked on Spark to mean the same thing."""

from __future__ import annotations

import os

import pytest
from sparkfold.optimizer import optimize

from tests.spark_check import assert_same_result, is_ordered

HERE = os.path.dirname(__file__)


def load_pairs(name: str) -> list[tuple[str, str]]:
    text = open(os.path.join(HERE, "fixtures", name)).read()
    lines = [ln for ln in text.splitlines() if not ln.startswith("--")]
    blocks = [b.strip() for b in "\n".join(lines).split("\n\n") if b.strip()]
    pairs = []
    for block in blocks:
        stmts = [s.strip() for s in block.split(";\n")]
        stmts = [s[:-1] if s.endswith(";") else s for s in stmts if s]
        assert len(stmts) == 2, block
        pairs.append((stmts[0], stmts[1]))
    return pairs


PAIRS = load_pairs("generate.sql")


@pytest.mark.parametrize("source,expected", PAIRS)
def test_generator_output(tables, source, expected):
    assert optimize(source, tables, rules=[], always_regenerate=True).sql == expected


@pytest.mark.parametrize("source,expected", PAIRS)
def test_generator_fixture_means_the_same_on_spark(spark, tables, source, expected):
    ordered = is_ordered(optimize(source, tables, rules=[]).analyzed)
    assert_same_result(spark, source, expected, ordered=ordered)
