"""Acceptance on the TPC-H (22) and TPC-DS (99) corpus: every query goes through
optimize() and the optimized SQL has exactly the original's column names and types on
Spark; on small random TPC-H data full of NULLs the rows are the same too."""

from __future__ import annotations

import pytest
from sparkfold.optimizer import optimize

from tests import tpc
from tests.spark_check import schema_of


ALL = tpc.queries("tpch") + tpc.queries("tpcds")
TPCH = tpc.queries("tpch")


@pytest.mark.parametrize("name,sql", ALL, ids=[n for n, _ in ALL])
def test_optimized_sql_keeps_names_and_types(spark, name, sql):
    catalog = tpc.use(spark, name.split("/")[0])
    expected = schema_of(spark.sql(sql))
    for result in (optimize(sql, catalog), optimize(sql, catalog, rules=[], always_regenerate=True)):
        assert schema_of(spark.sql(result.sql)) == expected, result.sql


def test_corpus_is_mostly_modelled():
    """Queries we do not model pass through unchanged; keep that set small."""
    passthrough = [n for n, q in ALL if optimize(q, tpc.schema(n.split("/")[0])).passthrough]
    assert len(passthrough) <= 15, passthrough


@pytest.mark.parametrize("name,sql", TPCH, ids=[n for n, _ in TPCH])
def test_tpch_rows_match_on_random_data(spark, name, sql):
    # through the verifier: the random data has ties on ORDER BY keys at a LIMIT's cut
    # (q18), where any of the tied rows may be kept; verify compares such results by
    # their keys, and everything else exactly
    from sparkfold.optimizer.verify import verify_many

    catalog = tpc.use(spark, "tpch", "random")
    results = [optimize(sql, catalog), optimize(sql, catalog, rules=[], always_regenerate=True)]
    for report in verify_many(results, spark, candidates=("optimized SQL",)):
        assert report.equal, f"{name}\n{report.to_text()}"
        assert report.reference.error is None, f"{name}: {report.reference.error_message}"


def test_a_splice_read_back_as_the_same_plan_is_written_as_the_same_text(monkeypatch):
    """The kept-layout output is accepted without writing its plan again when, read back,
    it is the target plan but for ids and nullability (`same_but_ids`): that must mean
    the writer writes both as one text.  Checked on every splice of the corpus."""
    from sparkfold.plans.ir import dialect
    from sparkfold.plans.ir import logical as L
    from sparkfold.plans.sql_out.to_sql import SqlGenerator

    def text(plan):
        return SqlGenerator().query(plan).sql(dialect=dialect.DIALECT, normalize_functions=False)

    same, accepted = L.same_but_ids, []

    def checked(a, b, renamed=True):
        if not same(a, b, renamed=renamed):
            return False
        if renamed:  # the splice check's question; the other callers only ask about ids
            assert text(a) == text(b)
            accepted.append(a)
        return True

    monkeypatch.setattr(L, "same_but_ids", checked)
    for name, sql in ALL:
        optimize(sql, tpc.schema(name.split("/")[0]))
    # most of the corpus's splices are read back so (those that keep a respelling as
    # written, `ELSE NULL`, are compared as spelled alike: optimizer/splice.py)
    assert len(accepted) >= 45
