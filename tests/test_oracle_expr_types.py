"""The type, nullability and name oracle (tests/oracles/expr_types.py): over the whole
grid of expression forms x Spark's types x operand kinds x modes, sparkfold's analyzed
output column (name, type, nullability) is Spark's, recorded in the golden file; a
sample is checked against live Spark in every run (a Spark version that answers
otherwise is caught), the whole grid with SPARKFOLD_LONG=1."""

from __future__ import annotations

import pytest

from tests.oracles import expr_types as X
from tests.oracles.spark_items import analyze_items

REGENERATE = "python -m tests.oracles.expr_types --regenerate"
WRITE_OPEN = "python -m tests.oracles.expr_types --write-open"


@pytest.fixture(scope="module")
def golden() -> X.Golden:
    return X.load()


def test_the_golden_file_is_of_this_grid(golden):
    assert golden.header["grid"] == X.grid_hash(), f"the grid changed: {REGENERATE}"
    assert golden.header["table"] == X.catalog_mapping()


def test_sparkfold_gives_sparks_names_types_and_nullability_over_the_grid(golden):
    report = X.compare(golden, X.sparkfold_answers(golden))
    found, known = X.bad_counts(report), X.open_counts()
    more = {k for k, n in found.items() if n > known.get(k, 0)}
    new = X.Report(report.counts, [b for b in report.bad if (b[0], b[1], b[2]) in more])
    assert not new.bad, "disagreements with Spark:\n" + new.summary()
    fewer = {k: (n, found.get(k, 0)) for k, n in known.items() if found.get(k, 0) < n}
    assert not fewer, f"fewer disagreements than {X.OPEN.name} lists ({WRITE_OPEN}): {sorted(fewer.items())[:5]}"


class _Settings:
    """The test session's settings, set for a mode and put back after."""

    def __init__(self, spark):
        self.spark = spark
        self.saved = {k: spark.conf.get(k, None) for k in X.MODES["ansi"]}

    def set(self, mode: str) -> None:
        for k, v in X.MODES[mode].items():
            self.spark.conf.set(k, v)

    def restore(self) -> None:
        for k, v in self.saved.items():
            if v is None:
                self.spark.conf.unset(k)
            else:
                self.spark.conf.set(k, v)


def test_spark_still_gives_the_golden_answers_on_a_sample(spark, golden):
    cases = X.sample(golden)
    assert len(cases) > 300
    aggregates = {e for f, e, _ in golden.entries if f in X.AGGREGATE_FORMS}
    X.register_table(spark)
    settings = _Settings(spark)
    differ = []
    try:
        for mode in X.MODES:
            settings.set(mode)
            for aggregate in (False, True):
                part = [(e, a) for m, e, a in cases if m == mode and (e in aggregates) == aggregate]
                for rejected in (False, True):
                    items = [(e, a) for e, a in part if bool(a.error) == rejected]
                    live = analyze_items(spark, [e for e, _ in items], X.TABLE, 1 if rejected else 250)
                    differ += [(mode, e, a, b) for (e, a), b in zip(items, live) if a != b]
    finally:
        settings.restore()
    assert not differ, f"Spark answers otherwise now ({REGENERATE}): {differ[:10]}"


@pytest.mark.slow
def test_spark_gives_the_golden_answers_over_the_whole_grid(spark, golden):
    X.register_table(spark)
    settings = _Settings(spark)
    try:
        for mode in X.MODES:
            live = X.record_mode(spark, mode)
            recorded = {e: a[mode] for _f, e, a in golden.entries if mode in a}
            assert live == recorded, f"{mode}: Spark answers otherwise now ({REGENERATE})"
    finally:
        settings.restore()
