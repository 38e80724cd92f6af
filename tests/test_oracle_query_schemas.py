"""The schema oracle (tests/oracles/query_schemas.py): over ~1,150 queries built from the
rewrites that move nullability (folded projections, empty relations, outer joins made
inner, set operations, aggregates over empty input), each in ANSI mode and out of it,
the optimized query has the original's schema, nullability included, as Spark gives it.

- the whole space, without Spark: sparkfold's model of the optimized query's schema
  (`written_nullability`) against Spark's recorded schema of the original;
- a sample on live Spark, both paths: the optimized SQL's and the DataFrame program's
  `df.schema` (nothing runs), and for a smaller sample the rows too (`verify`);
- the whole space on live Spark with SPARKFOLD_LONG=1."""

from __future__ import annotations

import pytest

from tests.oracles import query_schemas as Q

GOLDEN = Q.load() if Q.GOLDEN.exists() else {}
SAMPLE = 30   # schemas, both paths
ROWS = 4      # rows too


def test_the_golden_file_is_the_generated_space():
    """Regenerate after changing the space: `python -m tests.oracles.query_schemas --regenerate`."""
    assert list(GOLDEN) == Q.cases()
    accepted = [s for s in GOLDEN.values() if not isinstance(s, str)]
    assert len(accepted) >= 1800, "most of the space is SQL Spark accepts"


def test_sparkfold_models_the_optimized_schema_over_the_whole_space():
    wrong = Q.differences(GOLDEN)
    assert not wrong, f"{len(wrong)} of {len(GOLDEN)}:\n" + "\n".join(wrong[:10])


def _spread(items: list, n: int) -> list:
    step = max(1, len(items) // n)
    return items[::step][:n]


@pytest.fixture(scope="module")
def schema_tables(spark):
    """The oracle's tables, cached, with the settings that run tiny jobs fastest
    (tests/fuzz/oracles.py FAST_CONF)."""
    from tests.fuzz.oracles import FAST_CONF

    catalog = Q.register(spark)
    old = {k: spark.conf.get(k, None) for k in (*FAST_CONF, "spark.sql.ansi.enabled")}
    for k, v in FAST_CONF.items():
        spark.conf.set(k, v)
    for name in catalog:
        spark.catalog.cacheTable(name)
    yield catalog
    for name in catalog:
        spark.catalog.uncacheTable(name)
    for k, v in old.items():
        spark.conf.unset(k) if v is None else spark.conf.set(k, v)


def _check_live(spark, cases: list[tuple[str, str]]) -> list[str]:
    from sparkfold import optimize
    from sparkfold.optimizer.verify import schema_differences, schema_of

    wrong = []
    for mode, sql in cases:
        answer = GOLDEN[mode, sql]
        if isinstance(answer, str):
            continue
        Q.set_mode(spark, mode)
        expected = [tuple(f) for f in answer]
        assert schema_of(spark.sql(sql)) == expected, f"the golden file is stale: {mode}: {sql}"
        r = optimize(sql, Q.catalog(mode))
        for path, df in (("SQL", lambda: spark.sql(r.sql)), ("DataFrame", lambda: r.to_dataframe(spark))):
            got = schema_of(df())
            if got != expected:
                wrong.append(f"{path}, {mode}: {sql}\n  {r.sql}\n  " + "; ".join(schema_differences(expected, got)))
    return wrong


def test_a_sample_has_the_original_schema_on_spark_on_both_paths(spark, schema_tables):
    sample = _spread(list(GOLDEN), SAMPLE)
    wrong = _check_live(spark, sample)
    assert not wrong, "\n".join(wrong[:10])


def test_a_sample_returns_the_original_rows_on_both_paths(spark, schema_tables):
    from sparkfold import optimize
    from sparkfold.optimizer.verify import verify_many

    sample = [(m, s) for m, s in _spread(list(GOLDEN)[7:], ROWS) if not isinstance(GOLDEN[m, s], str)]
    bad = []
    for mode in Q.MODES:
        Q.set_mode(spark, mode)
        reports = verify_many([optimize(s, Q.catalog(mode)) for m, s in sample if m == mode], spark, parallel=2)
        bad += [f"{mode}: {r.to_text()}" for r in reports if not r.equal]
    assert not bad, "\n\n".join(bad[:3])


@pytest.mark.slow
def test_the_whole_space_has_the_original_schema_on_spark(spark, schema_tables):
    wrong = _check_live(spark, list(GOLDEN))
    assert not wrong, f"{len(wrong)}:\n" + "\n".join(wrong[:20])
