"""PIVOT's aggregates written as expressions (`PIVOT (ceil(sum(e)), avg(e) + 1 AS a1 FOR
...)`): Spark's grammar takes any named expression there, sqlglot's parser a call only
(plans/sql_in/pivot_aggregates.py).  The space: aggregates of the standard table u, each
as a call and in the forms an expression of aggregates takes (arithmetic, a unary minus,
a call around it, CASE, a cast, FILTER, parentheses, a literal first), unaliased, aliased
with and without AS, alone and beside another aggregate.  Without Spark, every form is
read and none rejected; on Spark (a sample; the whole space with SPARKFOLD_LONG=1), the
optimized SQL, the query written whole and the DataFrame program give the original's
names, types, nullability and rows."""

from __future__ import annotations

import pytest

from sqlglot import exp

from sparkfold import optimize
from sparkfold.plans.sql_in.parse import parse_query
from sparkfold.plans.sql_in.pivot_aggregates import MARKER

from tests.data import STANDARD_SCHEMA
from tests.spark_check import verify_batched

AGGREGATES = ["sum(y)", "avg(z)", "count(*)", "max(num)"]
FORMS = ["{a}", "{a} + 1", "-{a}", "ceil({a})", "({a})", "{a} * {b}", "1 + {a}", "CAST({a} AS STRING)",
         "CASE WHEN {a} > 1 THEN 'big' ELSE 'small' END", "coalesce({a}, 0) / 2", "{a} FILTER (WHERE num > 1)",
         "{a} FILTER (WHERE num > 1) + 1", "abs({a} - {b})"]
ALIASES = ["", " AS a1", " a1"]


def space() -> list[str]:
    items = [f.format(a=a, b=b) + alias for f in FORMS
             for a, b in zip(AGGREGATES, AGGREGATES[1:] + AGGREGATES[:1]) for alias in ALIASES]
    # alone, and beside another aggregate (first and second)
    lists = items + [f"{i}, sum(y) AS s" for i in items[::5]] + [f"max(z) m, {i}" for i in items[2::5]]
    return [f"SELECT * FROM (SELECT s, num, y, z FROM u WHERE 1 = 1) PIVOT ({aggs} FOR s IN ('a', 'b' AS bee, ''))"
            for aggs in lists]


SPACE = space()


def _read(sqls) -> None:
    for sql in sqls:
        tree = parse_query(sql)
        assert not any(isinstance(n, exp.Anonymous) and str(n.this) == MARKER for n in tree.walk()), sql
        result = optimize(sql, STANDARD_SCHEMA)  # (raises on a rejection)
        assert MARKER not in result.sql and result.passthrough is None, (sql, result.passthrough)


def test_every_form_is_read_and_none_rejected():
    assert len(SPACE) > 200
    _read(SPACE[::4])


@pytest.mark.slow
def test_the_whole_space_is_read_and_none_rejected():
    _read(SPACE)


def _agree(spark, sqls, tables):
    results = [optimize(sql, tables) for sql in sqls] + [optimize(sql, tables, always_regenerate=True)
                                                         for sql in sqls]
    reports = verify_batched(results, spark, candidates=("optimized SQL", "DataFrame"))
    bad = [r.to_text() for r in reports if not r.equal]
    assert not bad, "\n\n".join(bad[:10])
    return reports


def test_a_sample_agrees_on_spark(spark, tables):
    _agree(spark, [SPACE[i] for i in range(7, len(SPACE), len(SPACE) // 6)], tables)


@pytest.mark.slow
def test_the_whole_space_agrees_on_spark(spark, tables):
    _agree(spark, SPACE, tables)
