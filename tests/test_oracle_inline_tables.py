"""The inline table oracle (tests/oracles/inline_tables.py): VALUES tables whose values are
expressions over Spark's types (pairs of values widened to one column, each value alone,
without parentheses, as a statement, as a struct row, under WHERE FALSE and an empty
join), in ANSI mode and out of it.

- a quarter of the space (the day's), without Spark: sparkfold's schema of the optimized query (names, types,
  nullability as written), the rows of the tables it evaluates, and its rejections, against
  Spark's recorded answers;
- a sample on live Spark, both paths: the optimized SQL's and the DataFrame program's
  schema and rows (`verify`);
- the whole space, without Spark and on live Spark, with SPARKFOLD_LONG=1 (or
  `python -m tests.oracles.inline_tables` for the whole space without Spark)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.oracles import inline_tables as Q

GOLDEN = Q.load() if Q.GOLDEN.exists() else {}
SAMPLE = 8
SHARE = 4  # of the space checked without Spark in the default run


def test_the_golden_file_is_the_generated_space():
    """Regenerate after changing the space: `python -m tests.oracles.inline_tables --regenerate`."""
    assert list(GOLDEN) == Q.cases()
    answers = [s for s, _ in GOLDEN.values()]
    assert sum(not isinstance(s, str) for s in answers) >= 1500, "most of the space is SQL Spark accepts"
    assert sum(isinstance(s, str) for s in answers) >= 300, "and some Spark rejects"


def _assert_models(cases) -> None:
    counts: Counter = Counter()
    wrong = []
    for mode, sql in cases:
        v, detail = Q.verdict(mode, sql, GOLDEN[mode, sql])
        counts[v] += 1
        if v == "wrong":
            wrong.append(f"{mode}: {sql}\n  {detail}")
    assert not wrong, f"{len(wrong)} of {len(cases)}:\n" + "\n".join(wrong[:10])
    # what the space is for: most tables are modelled, few queries passed through
    assert counts["ok"] >= 0.6 * len(cases), counts
    assert counts["passthrough"] <= 0.05 * len(cases), counts


def test_sparkfold_models_inline_tables_over_a_share_of_the_space():
    """The day's share (UTC; SPARKFOLD_ORACLE_SHARE=K replays one): SHARE days cover it all."""
    from tests.oracles.folds import share_of_the_day

    _assert_models(list(GOLDEN)[share_of_the_day(SHARE)::SHARE])


@pytest.mark.slow
def test_sparkfold_models_inline_tables_over_the_whole_space():
    _assert_models(list(GOLDEN))


def _spread(items: list, n: int) -> list:
    step = max(1, len(items) // n)
    return items[::step][:n]


def _check_live(spark, cases) -> list[str]:
    from sparkfold import optimize
    from sparkfold.optimizer.errors import SparkfoldError
    from sparkfold.optimizer.verify import schema_differences, schema_of, verify_many

    Q.register(spark)
    bad = []
    old = spark.conf.get("spark.sql.ansi.enabled")
    try:
        for mode in Q.MODES:
            spark.conf.set("spark.sql.ansi.enabled", Q.MODES[mode])
            results = []
            for m, sql in cases:
                if m != mode:
                    continue
                if isinstance(GOLDEN[m, sql][0], str):
                    bad += _still_rejected(spark, mode, sql)
                    continue
                try:
                    results.append(optimize(sql, Q.catalog(mode)))
                except SparkfoldError as e:
                    bad.append(f"{mode}: {sql}: rejected by sparkfold, accepted by Spark: {e}")
            results = [r for r in results if r.optimized is not None]
            for r in results:  # the schema, nullability included, on both paths
                expected = [tuple(f) for f in GOLDEN[mode, r.original_sql][0]]
                for path, df in (("SQL", lambda: spark.sql(r.sql)), ("DataFrame", lambda: r.to_dataframe(spark))):
                    got = schema_of(df())
                    if got != expected:
                        bad.append(f"{path}, {mode}: {r.original_sql}\n  {r.sql}\n  "
                                   + "; ".join(schema_differences(expected, got)))
            for report in verify_many(results, spark, parallel=2):
                if not report.equal:
                    bad.append(f"{mode}: {report.to_text()}")
    finally:
        spark.conf.set("spark.sql.ansi.enabled", old)
        # (the oracle's empty table `e` replaced the standard tables' `e`, which the
        # session's other tests read: put it back)
        from tests.data import register_standard_tables

        register_standard_tables(spark)
    return bad


def _still_rejected(spark, mode: str, sql: str) -> list[str]:
    """A query Spark rejects, which sparkfold accepts (a table it keeps as written): the
    optimized text and the query written whole are rejected too."""
    from sparkfold import optimize
    from sparkfold.optimizer.errors import SparkfoldError

    bad = []
    for whole in (False, True):
        try:
            text = optimize(sql, Q.catalog(mode), always_regenerate=whole).sql
        except SparkfoldError:
            return []
        try:
            spark.sql(text).collect()
        except Exception:  # noqa: BLE001 - the rejection survives
            continue
        bad.append(f"{mode}: {sql}: Spark rejects it, and accepts {'the query written whole' if whole else 'the optimized text'}: {text}")
    return bad


def test_a_sample_has_spark_s_schema_and_rows_on_both_paths(spark):
    bad = _check_live(spark, _spread(list(GOLDEN), SAMPLE))
    assert not bad, "\n\n".join(bad[:3])


@pytest.mark.slow
def test_the_whole_space_on_spark_on_both_paths(spark):
    bad = _check_live(spark, list(GOLDEN))
    assert not bad, f"{len(bad)}:\n\n" + "\n\n".join(bad[:10])
