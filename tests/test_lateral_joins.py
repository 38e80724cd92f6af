"""LATERAL subqueries and joins (issue 36, items 1 and 5): the block kept as text, its input
optimized, now without passing the query through for stars over the input (`x.*` in the
select list, `x.*` and an earlier LATERAL subquery's `s.*` inside a LATERAL subquery), and
with the block's WHERE below the join where Catalyst puts it (a conjunct over the input, and
its copy through the columns of an inner LATERAL subquery that equal input columns), so that
EliminateOuterJoin sees the input's rows as Spark does.

The forms are generated: inputs (a table, an inner join, a left join whose outer side the
WHERE may make inner) x LATERAL joins (`,`, JOIN ... ON, LEFT JOIN ... ON, CROSS JOIN) x
bodies (outer columns alone, correlated over a table, an aggregate, over an empty table, with
LIMIT) x select lists (stars, qualified stars, an earlier item's column) x WHERE clauses (over
the input, over the LATERAL columns, both), each run on Spark in ANSI and non-ANSI mode: the
original against the optimized SQL, the query written whole and the DataFrame program (rows,
names, types, errors), and the schemas' nullability.  Three forms in ANSI mode in the default
run, every form in both modes with SPARKFOLD_LONG=1."""

from __future__ import annotations

import itertools
import os

import pytest
from sparkfold import optimize
from sparkfold.plans.pyspark.text_reasons import LATERAL_REASON
from sparkfold.plans.sql_in.catalog import Catalog

from tests.data import local_copy

LONG = os.environ.get("SPARKFOLD_LONG") == "1"

TABLES = {
    "lt": {"a": "int", "b": "string", "c": "int"},
    "lu": {"k": "int", "v": "bigint"},
    "le": {"a": "int"},
}

INPUTS = ["lt", "lt JOIN lu ON lt.a = lu.k", "lt LEFT JOIN lu ON lt.c = lu.k"]
JOINS = [", LATERAL {} AS l", " JOIN LATERAL {} AS l ON lt.a <= l.v", " LEFT JOIN LATERAL {} AS l ON l.v IS NOT NULL",
         " CROSS JOIN LATERAL {} l"]
BODIES = ["(SELECT lt.a AS v, lt.b)",
          "(SELECT lu2.v, lt.c FROM lu AS lu2 WHERE lu2.k = lt.c)",
          "(SELECT max(lu2.v) AS v FROM lu AS lu2 WHERE lu2.k > lt.a)",
          "(SELECT lt.a AS v, lt.* FROM le)",
          "(SELECT lt.a AS v FROM lu AS lu2 ORDER BY lu2.k LIMIT 1)"]
SELECTS = ["*", "lt.*, l.*", "l.*, lt.b"]
WHERES = ["", " WHERE lt.c > 1", " WHERE lt.a = l.v", " WHERE l.v IS NULL OR lt.b IS NULL",
          " WHERE lt.a = l.v AND lt.b IS NOT NULL AND 1 = 1"]

# forms found on the way, each a class of its own
EXTRA = [
    # an earlier LATERAL subquery's star, and its column that is an input column, under LEFT
    "SELECT * FROM lt LEFT JOIN LATERAL (SELECT lt.a FROM le) s1 ON TRUE, LATERAL (SELECT s1.*, s1.a + 1 AS n) s2",
    "SELECT s1.a, lt.a AS a2 FROM lt LEFT JOIN LATERAL (SELECT lt.a FROM le) s1 ON TRUE WHERE s1.a IS NULL",
    # an unaliased input column inside, where the input written back renames it (a_2)
    "SELECT * FROM lt JOIN lt AS y ON lt.a = y.a, LATERAL (SELECT y.a FROM lu LIMIT 1) s",
    "SELECT s.* FROM lt JOIN lu ON lt.a = lu.k, LATERAL (SELECT lu.*, lt.b) s",
    "SELECT y.*, s.* FROM lt JOIN lt AS y ON lt.a = y.a, LATERAL (SELECT y.*) s WHERE y.c > 0",
    # a join after the LATERAL one that is not inner or left: the WHERE stays above
    "SELECT * FROM lt, LATERAL (SELECT lt.a AS v) s RIGHT JOIN lu ON s.v = lu.k WHERE lt.c > 1",
    "SELECT * FROM lt, LATERAL (SELECT lt.a AS v) s FULL JOIN lu ON s.v = lu.k WHERE lt.c IS NULL",
    # a LATERAL join Spark rejects (INVALID_LATERAL_JOIN_TYPE): kept for Spark to say
    "SELECT * FROM lt RIGHT JOIN LATERAL (SELECT lt.a AS v) s ON TRUE",
    # a conjunct that may raise (ANSI): nothing moves
    "SELECT * FROM lt LEFT JOIN lu ON lt.c = lu.k, LATERAL (SELECT lu.k AS c0) s WHERE CAST(lt.b AS INT) > 0 "
    "AND lt.a = s.c0",
    # both outer joins made inner through an inner LATERAL subquery's column (postgreSQL/join.sql)
    "SELECT 1 FROM lt AS t1 JOIN lt AS t2 ON t1.b = 'a' LEFT JOIN lt AS t3 ON t3.b = 'a' "
    "LEFT JOIN lt AS t4 ON t3.b = t4.b, LATERAL (SELECT t4.b AS c0 FROM lt AS t5 LIMIT 1) AS s WHERE t1.b = s.c0",
    # an unaliased column reading the input: Spark names it with outer(<qualifier>.<name>)
    "SELECT * FROM lt AS x LEFT JOIN LATERAL (SELECT lu.k, least(x.a, lu.k), x.c + 1 FROM lu) s ON TRUE",
    "SELECT s.* FROM lt AS p JOIN lu AS q ON p.a = q.k, LATERAL (SELECT p.a + q.v, upper(p.b)) s WHERE p.c > 0",
    # a NULL-typed column read through the LATERAL subquery (held-out selectExcept.sql)
    "SELECT t.* FROM (VALUES (1, 2, NULL)) AS w(x, y, z), LATERAL (SELECT w.*) AS t(c1, c2, c3)",
    "SELECT * FROM (VALUES (1, NULL), (2, 3)) AS w(x, z) CROSS JOIN LATERAL (SELECT w.z, w.x + 1 AS n) AS t",
    # GROUP BY / ORDER BY over the join
    "SELECT lt.b, count(l.v) AS n FROM lt LEFT JOIN LATERAL (SELECT lu.v FROM lu WHERE lu.k = lt.a) l ON TRUE "
    "WHERE lt.c IS NOT NULL GROUP BY lt.b ORDER BY lt.b",
]


def _forms() -> list[str]:
    out = []
    for k, (i, j, b, s, w) in enumerate(itertools.product(INPUTS, JOINS, BODIES, SELECTS, WHERES)):
        out.append(f"SELECT {s} FROM {i}{j.format(b)}{w}")
    return out


ALL_FORMS = _forms() + EXTRA
# the default run: three forms of their own class (outer joins made inner through the
# LATERAL subquery, a star over the input inside it, a name Spark gives with outer(...)),
# ANSI on; with SPARKFOLD_LONG=1 every form, both modes (on Spark under load: 340 s)
SAMPLE = [q for q in EXTRA if q.startswith(("SELECT 1 FROM", "SELECT y.*", "SELECT * FROM lt AS x LEFT"))]
FORMS = ALL_FORMS if LONG else SAMPLE


@pytest.fixture(scope="module")
def lateral_tables(spark):
    local_copy(spark.createDataFrame([(1, "a", 3), (2, None, 1), (None, "a", 2), (1, "7", 5), (3, "c", None)],
                                     "a int, b string, c int")).createOrReplaceTempView("lt")
    local_copy(spark.createDataFrame([(1, 10), (3, None), (None, 30), (3, 31)], "k int, v bigint")) \
        .createOrReplaceTempView("lu")
    local_copy(spark.createDataFrame([], "a int")).createOrReplaceTempView("le")
    return TABLES


def _fields(df) -> list:
    return [(f.name, f.dataType, f.nullable) for f in df.schema]


@pytest.mark.parametrize("ansi", [True, pytest.param(False, marks=pytest.mark.slow)])
def test_lateral_forms_give_sparks_results(spark, lateral_tables, ansi):
    from sparkfold.optimizer.verify import verify_many

    catalog = Catalog.from_mapping(lateral_tables, ansi=ansi)
    old = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", str(ansi).lower())
    try:
        results, passed = [], []
        for sql in FORMS:
            result = optimize(sql, catalog, always_regenerate=True)
            (passed if result.passthrough is not None else results).append((sql, result))
        assert not passed, passed
        reports = verify_many([r for _, r in results], spark, timed=False)
    finally:
        spark.conf.set("spark.sql.ansi.enabled", old)
    wrong = [r.to_text() for r in reports if not r.equal]
    assert not wrong, "\n".join(wrong)
    schemas = []
    for (sql, _), rep in zip(results, reports):
        ref = rep.reference
        for side in rep.candidates:
            if ref.df is not None and side.df is not None and ref.error is None and side.error is None \
                    and _fields(ref.df) != _fields(side.df):
                schemas.append(f"{sql}\n  {side.name}: {_fields(side.df)}\n  original: {_fields(ref.df)}")
    assert not schemas, "\n".join(schemas)
    assert sum(r.reference.error is None for r in reports) >= len(reports) - 3


def test_outer_joins_under_a_lateral_join_are_made_inner_as_catalyst_does():
    from tests.corpus.check import _outer_joins

    result = optimize(next(q for q in EXTRA if q.startswith("SELECT 1 FROM")), TABLES)
    assert result.passthrough is None
    assert (_outer_joins(result.analyzed), _outer_joins(result.optimized)) == (2, 0)
    assert " LEFT " not in result.sql.upper()


@pytest.mark.parametrize("sql", [
    "SELECT x.*, l.v FROM lt AS x, LATERAL (SELECT x.a AS v) AS l",
    "SELECT * FROM lt, LATERAL (SELECT a AS q) s1, LATERAL (SELECT s1.* FROM lu) s2",
    "SELECT * FROM lt, LATERAL (SELECT lt.*) AS s(p, q, r)",
])
def test_stars_over_earlier_from_items_are_modelled(sql):
    assert optimize(sql, TABLES).passthrough is None


def test_lateral_joins_lower_to_lateral_join_with_no_sql_text():
    """Every generated form's DataFrame program joins with `lateralJoin` (or selects the
    columns of a subquery without FROM beside the input's), no SQL text; a join after the
    LATERAL one that is not LATERAL keeps the block as text, and says so."""
    from sparkfold.plans.pyspark.to_pyspark import to_pyspark_code

    texts = {}
    for sql in (ALL_FORMS if LONG else ALL_FORMS[::9]) + EXTRA:
        program = to_pyspark_code(optimize(sql, TABLES), header=False)
        reasons = [ln for ln in program.splitlines() if ln.startswith("# SQL text")]
        if reasons:
            texts[sql] = reasons
        elif " FROM " in sql.split("LATERAL", 1)[1].split(")")[0].upper():
            assert ".lateralJoin(" in program, program
    assert set(texts) == {q for q in EXTRA if " RIGHT JOIN " in q or " FULL JOIN " in q}, texts
    assert all(r == ["# SQL text (spark.sql): " + LATERAL_REASON] for r in texts.values()), texts
