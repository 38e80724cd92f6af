"""Expressions Spark's analysis may reject, kept where they stand (issue 35's errors that
rewrites drop, issue 36's opacity at the smallest scope): an operator over a pair of types
whose coercion sparkfold does not model is opaque, not a reason to pass the query
through; an unmodelled expression is never dropped by the SQL writer (a column nothing
reads is still analyzed by Spark); and an unmodelled call is never fed the constants of
an empty relation's row (Spark's ConstantFolding would evaluate it).  Each form is run on
Spark, in both modes, by `opaque_operator_files` (tests/test_sqltests_classes.py)."""

from __future__ import annotations

import pytest
from sparkfold import optimize

CATALOG = {"t": {"d": "date not null", "s": "string not null", "i": "interval second", "n": "int",
                 "m": "decimal(2,1)", "b": "boolean"}}


@pytest.mark.parametrize("e", ["d - s", "s - d", "i / n", "i * s", "m = b", "d + NULL"])
def test_an_operator_over_an_unmodelled_type_pair_is_opaque_and_the_query_optimized(e):
    r = optimize(f"SELECT {e} AS x, n FROM t WHERE n > 0 OR 1 = 0", CATALOG)
    assert r.passthrough is None
    assert r.sql == f"SELECT {e} AS x, n FROM t WHERE n > 0"


@pytest.mark.parametrize("e", ["nosuch(d)", "aes_encrypt(d)", "m = b", "d - s"])
def test_a_column_nothing_reads_keeps_its_unmodelled_expression(e):
    r = optimize(f"SELECT n FROM (SELECT {e} AS x, n FROM t) WHERE 1 = 1", CATALOG)
    assert r.sql == f"SELECT n FROM (SELECT {e} AS x, n FROM t)"


def test_a_modelled_column_nothing_reads_still_goes():
    assert optimize("SELECT n FROM (SELECT upper(s) AS x, n FROM t) WHERE 1 = 1", CATALOG).sql == "SELECT t.n FROM t"


@pytest.mark.parametrize("e", ["to_date(s)", "d - s", "make_date(n, n, n)"])
def test_an_unmodelled_call_is_not_fed_an_empty_relations_constants(e):
    r = optimize(f"SELECT {e} AS x FROM t WHERE false AND n > 0", CATALOG)
    assert "1970-01-01" not in r.sql and "''" not in r.sql, r.sql
