"""The expressions sparkfold keeps as written but evaluates where a Filter over rows it
holds keeps none of them (plans.ir.opaque_values): the quantified LIKE
(tests/oracles/quantified_like.py) and the tuple IN (tests/oracles/tuple_in.py), against
Spark's recorded values.

- without Spark: every value sparkfold gives is Spark's (three-valued, NULL patterns and
  NULL fields included), where Spark raises it gives none, and it gives one wherever the
  patterns compile and the text is ASCII (quantified LIKE: the day's eighth of the space;
  tuple IN: all of it);
- on live Spark, a spread sample as Filters over inline tables, both paths (the optimized
  SQL and the DataFrame program against the original: rows, errors, schema);
- the whole space without Spark with SPARKFOLD_LONG=1."""

from __future__ import annotations

import pytest

from tests.oracles import quantified_like as QL
from tests.oracles import tuple_in as TI

LIKE = QL.load() if QL.GOLDEN.exists() else {}
TUPLES = TI.load() if TI.GOLDEN.exists() else {}
SHARE = 8  # of the quantified LIKE space checked without Spark in the default run


def test_the_golden_files_are_the_generated_spaces():
    """Regenerate after changing a space: `python -m tests.oracles.quantified_like --regenerate`
    (`tuple_in` likewise)."""
    assert list(LIKE) == [(m, QL.query(*c)) for m in QL.MODES for c in QL.cases()]
    assert list(TUPLES) == [(m, TI.query(*c)) for m in TI.MODES for c in TI.cases()]
    raised = [sql for (_, sql), (schema, _) in LIKE.items() if isinstance(schema, str)]
    assert raised and len(raised) < len(LIKE) / 2, "malformed patterns raise, the rest do not"


def _assert_like(cases) -> None:
    counts, wrong = QL.verdicts(LIKE, cases)
    assert not wrong, f"{len(wrong)} wrong:\n" + "\n".join(wrong[:10])
    # every value whose patterns compile and whose text is ASCII is evaluated
    expected_unknown = sum(
        1 for form, ps in cases for v in QL.VALUES
        if any(p is not None and QL.malformed(p) for p in ps)
        or ("ILIKE" in form and not all(s.isascii() for s in (v, *ps) if s is not None))) * len(QL.MODES)
    assert counts["unknown"] == expected_unknown, counts
    assert counts["ok"] > 0


def test_quantified_like_over_a_share_of_the_space():
    """The day's share (UTC; SPARKFOLD_ORACLE_SHARE=K replays one): SHARE days cover it all."""
    from tests.oracles.folds import share_of_the_day

    _assert_like(QL.cases()[share_of_the_day(SHARE)::SHARE])


@pytest.mark.slow
def test_quantified_like_over_the_whole_space():
    _assert_like(QL.cases())


def test_tuple_in_over_the_whole_space():
    counts, wrong = TI.verdicts(TUPLES)
    assert not wrong, f"{len(wrong)} wrong:\n" + "\n".join(wrong[:10])
    assert counts["ok"] >= counts["unknown"], counts  # what the space is for: most are read


LIVE_LIKE = [("LIKE ANY", ("microsoft", "%yoo%")), ("ILIKE ALL", ("%OO%", None)), ("NOT ILIKE ALL", (None, None)),
             ("LIKE ANY", (None, None)), ("NOT LIKE ANY", ("%", None)), ("ILIKE SOME", ("É%",)),
             ("LIKE ALL", ("a%", "\\")), ("NOT LIKE ALL", ("%b%", "ABC")), ("ILIKE ANY", ("a\\%c", "x")),
             ("LIKE ANY", ("z%",)), ("NOT ILIKE SOME", ("%",))]
LIVE_TUPLES = [("t1", "(2, 3.0)"), ("t1", "(CAST(NULL AS INT), 1.0)"), ("t2", "(double('NaN'), 'x')"),
               ("t1", "(7, 7.0)")]


ASCII = tuple(v for v in QL.VALUES if v is None or v.isascii())  # (ILIKE evaluated over each)


def _live_queries() -> list:
    """(query, whether sparkfold evaluates its Filter)"""
    out = []
    for form, ps in LIVE_LIKE:
        evaluable = not any(p is not None and QL.malformed(p) for p in ps) and \
            ("ILIKE" not in form or all(p is None or p.isascii() for p in ps))
        out.append(pytest.param(f"SELECT i, v FROM {QL.table(ASCII)} WHERE v {form} ({', '.join(map(QL.literal, ps))})",
                                evaluable, id=f"{form} {ps}"))
    for name, items in LIVE_TUPLES:
        out += [pytest.param(f"SELECT i FROM {TI.table(name)} WHERE (a, b) NOT IN ({items}) AND a IS NULL", True,
                             id=f"{name} NOT IN {items}"),
                pytest.param(f"SELECT i FROM {TI.table(name)} WHERE (a, b) IN ({items}) AND i > 1", True,
                             id=f"{name} IN {items}")]
    return out


@pytest.mark.spark
@pytest.mark.parametrize("sql, evaluable", _live_queries())
def test_filters_over_inline_tables_on_spark(spark, sql, evaluable):
    """The Filter is the empty relation exactly where Spark's answer is no row and the
    condition is one sparkfold evaluates; both paths give Spark's answer (or its error)."""
    from sparkfold import optimize
    from sparkfold.plans.sql_in.catalog import Catalog

    result = optimize(sql, Catalog({}))
    assert result.passthrough is None, result.passthrough
    report = result.verify(spark)
    assert report.equal, report.to_text()
    try:
        original = spark.sql(sql)
        empty = original.count() == 0
    except Exception:  # noqa: BLE001 - a malformed pattern: Spark raises, sparkfold keeps the Filter
        empty = False
    else:
        fields = [(f.name, f.dataType, f.nullable) for f in spark.sql(result.sql).schema.fields]
        assert fields == [(f.name, f.dataType, f.nullable) for f in original.schema.fields]
    folded = "ConvertToLocalRelation" in {s.rule for s in result.trace}
    assert folded == (empty and evaluable), result.sql
