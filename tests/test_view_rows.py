"""Filters over rows the plan holds, as Catalyst's ConvertToLocalRelation evaluates them
(issue 36): an inline table (VALUES), and a view whose definition is rows (VALUES, a
Project or Filter over them, one row of constants), which Catalyst reads in place of the
view.  A Filter true on none of the rows is the empty relation; one that raises on a row,
or keeps one, stays.  Each query is checked against Spark in both ANSI modes (without
ANSI, in the default run, only where the mode changes the answer: NULLs of NOT IN and of
a division by zero, a global aggregate, the joins; all with SPARKFOLD_LONG=1): the
optimized SQL and the DataFrame program against the original (rows, errors), and the
optimized query's schema, nullability included, against the original's."""

from __future__ import annotations

import pytest
from sparkfold import optimize
from sparkfold.plans.sql_in.catalog import Catalog

pytestmark = pytest.mark.spark

VIEWS = [
    "CREATE OR REPLACE TEMPORARY VIEW vr_data AS SELECT * FROM VALUES "
    "(1, 1), (1, 2), (2, 1), (3, NULL), (NULL, 1), (NULL, NULL) AS vr_data(a, b)",
    "CREATE OR REPLACE TEMPORARY VIEW vr_m AS SELECT * FROM VALUES (NULL, 1.0), (2, 3.0), (4, 5.0) AS m(a, b)",
    "CREATE OR REPLACE TEMPORARY VIEW vr_one AS SELECT 1 AS a, 'x' AS s",
    "CREATE OR REPLACE TEMPORARY VIEW vr_proj AS SELECT a * 2 AS d, b FROM vr_data WHERE b IS NOT NULL",
    "CREATE OR REPLACE TEMPORARY VIEW vr_t AS SELECT * FROM VALUES (1, 'p'), (5, 'q') AS vr_t(k, s)",
]


@pytest.fixture(scope="module")
def sessions(spark):
    """A session per ANSI mode, its views made under that mode."""
    out = {}
    for mode in ("ansi", "legacy"):
        s = spark.newSession()  # its own views and settings
        s.conf.set("spark.sql.ansi.enabled", str(mode == "ansi").lower())
        for sql in VIEWS:
            s.sql(sql)
        out[mode] = s
    return out


def _modes(cases, legacy_too):
    """Each case in ANSI mode; without ANSI those where the mode changes something in the
    default run, the others with SPARKFOLD_LONG=1."""
    out = []
    for sql in cases:
        out.append(pytest.param("ansi", sql, id=f"ansi-{sql}"))
        out.append(pytest.param("legacy", sql, id=f"legacy-{sql}",
                                marks=() if sql in legacy_too else pytest.mark.slow))
    return out


def _fields(df):
    return [(f.name, f.dataType, f.nullable) for f in df.schema.fields]


def _checked(session, sql):
    result = optimize(sql, Catalog.from_spark(session))
    assert result.passthrough is None, result.passthrough
    report = result.verify(session)  # the optimized SQL and the DataFrame program
    assert report.equal, report.to_text()
    original, optimized = session.sql(sql), session.sql(result.sql)
    assert _fields(optimized) == _fields(original)  # nullability included
    return result


EMPTIED = [
    "SELECT 'foo' FROM vr_data WHERE a = 0 GROUP BY 1",
    "SELECT * FROM vr_m WHERE b = 1.0 AND a NOT IN (2)",  # NULL NOT IN (2): NULL
    "SELECT count(*) AS n, max(a) AS m FROM vr_data WHERE a + b > 100",
    "SELECT s FROM vr_one WHERE a = 2",
    "SELECT d FROM vr_proj WHERE d = 3",
    "SELECT v, count(*) AS c FROM VALUES (10), (20), (30) AS t(v) WHERE v > 100 GROUP BY v",
    "SELECT x.k, y.a FROM vr_t x LEFT JOIN (SELECT a FROM vr_data WHERE b > 7) y ON x.k = y.a",
    "SELECT x.a FROM vr_data x WHERE x.b IN (SELECT k FROM vr_t WHERE s = 'z')",
    "SELECT 'foo', APPROX_COUNT_DISTINCT(a) FILTER (WHERE b >= 0) FROM vr_data WHERE a = 0 GROUP BY 1",
    "SELECT approx_count_distinct(a) AS n FROM vr_data WHERE a + b > 100",
    "SELECT s FROM vr_t WHERE s LIKE ANY ('x%', NULL) OR s NOT ILIKE ALL ('%', NULL)",
    "SELECT * FROM vr_m WHERE b = 3.0 AND (a, b) NOT IN ((2, 3.0))",
    "SELECT 1 FROM vr_t t1 JOIN vr_t t2 ON t1.s = 'z' LEFT JOIN vr_t t3 ON t3.s = 'z', "
    "LATERAL (SELECT t3.k AS c0 FROM vr_t LIMIT 1) ss WHERE t1.k = ss.c0",
]
KEPT = [
    "SELECT a FROM vr_data WHERE a = 1",                     # keeps rows
    "SELECT a FROM vr_data WHERE 10 / (b - 1) > 100",        # raises under ANSI (b = 1)
    "SELECT a FROM vr_data WHERE CAST(a AS STRING) = 'x' OR rand() > 2",  # not deterministic
]


@pytest.mark.parametrize("mode, sql", _modes(EMPTIED, legacy_too=(EMPTIED[1], EMPTIED[2], EMPTIED[6], EMPTIED[7])))
def test_a_filter_true_on_no_row_is_empty(sessions, mode, sql):
    result = _checked(sessions[mode], sql)
    assert "ConvertToLocalRelation" in {s.rule for s in result.trace}, result.sql
    assert "VALUES (1, 1)" not in result.sql  # a view's text is never written out


@pytest.mark.parametrize("mode, sql", _modes(KEPT, legacy_too=(KEPT[1],)))
def test_a_filter_that_keeps_a_row_or_raises_stays(sessions, mode, sql):
    session, ansi = sessions[mode], mode == "ansi"
    result = optimize(sql, Catalog.from_spark(session))
    fires = "ConvertToLocalRelation" in {s.rule for s in result.trace}
    # without ANSI, 10 / 0 is NULL: no row passes, the query is empty
    assert fires == (not ansi and "10 /" in sql), result.sql
    report = result.verify(session)
    assert report.equal, report.to_text()
