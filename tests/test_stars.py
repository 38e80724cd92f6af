"""Stars where Spark expands them (plans/sql_in/stars.py), checked on Spark in both modes:
among a call's arguments (`coalesce(*)`, `struct(s.*)`, `count(DISTINCT *)`, `x IN (t.*)`)
in the select list and in WHERE; `(*)`; `* EXCEPT` of a struct's field, which rebuilds
the struct without it.  They passed the whole query through (Spark's held-out
selectExcept.sql, struct.sql, count.sql); now the rest of the query is optimized.

Each query makes a rule fire (`WHERE 1 = 1`, `x = NULL OR ...`), so that its text is
written again, and runs as written, as optimized (spliced and written whole) and as the
lowered DataFrame program: rows, names, types and nullability the same."""

from __future__ import annotations

import pytest
from sparkfold import optimize

from tests.spark_check import run_or_error, verify_batched

QUERIES = [
    # a star among a call's arguments, in the select list and in WHERE
    "SELECT coalesce(*) FROM u WHERE 1 = 1",
    "SELECT num, coalesce(*) AS c, greatest(n.*) FROM u JOIN n ON u.num = n.k WHERE s = NULL OR num > 0",
    "SELECT concat(u.s, n.*), hash(*), xxhash64(n.*) FROM u JOIN n ON u.num = n.k WHERE 1 = 1",
    "SELECT num FROM u WHERE coalesce(*) > 1 AND 1 = 1",
    "SELECT k FROM n WHERE 1.0D IN (*) OR k IN (n.*) AND NULL IS NULL",
    "SELECT 1 IN (*), k IN (2, n.*) AS i FROM n WHERE 1 = 1",
    "SELECT array(n.*), struct(*), struct(n.*, 1 AS one) AS st FROM n WHERE 1 = 1",
    "SELECT count(DISTINCT *), count(DISTINCT u.*, y) FROM u WHERE 1 = 1",
    "SELECT s, count(DISTINCT *) FROM u WHERE NULL IS NULL GROUP BY s",
    "SELECT count(u.*, u.*), COUNT(n.*, 1) FROM u JOIN n ON u.num = n.k WHERE 1 = 1",
    "SELECT concat(coalesce(*), 'x'), max(coalesce(*)) OVER () AS m FROM u WHERE 1 = 1",
    "SELECT coalesce(* EXCEPT (num, y)) FROM u WHERE 1 = 1",
    "SELECT coalesce(*) FROM u JOIN n ON u.num = n.k WHERE 1 = 1",
    "SELECT coalesce(u.*) FROM u JOIN (SELECT 1 AS num) w USING (num) WHERE 1 = 1",
    # a struct's fields among a call's arguments (aliased: Spark names them otherwise)
    "SELECT struct(st.*) AS a, concat(st.c.*) AS b, struct(st.*, num AS n) AS c FROM sv WHERE 1 = 1",
    "SELECT struct(st.*).a AS a, count(ns.*) AS k FROM sv WHERE 1 = 1 GROUP BY st",
    # `(*)` is `*`
    "SELECT (*) FROM n WHERE 1 = 1",
    "SELECT (n.*), (* EXCEPT (k)) FROM n WHERE 1 = 1",
    # `* EXCEPT` of a struct's field: the struct without it
    "SELECT * EXCEPT (st.b) FROM sv WHERE 1 = 1",
    "SELECT * EXCEPT (st.c.x, ns.a), num FROM sv WHERE num = NULL OR num > 2",
    "SELECT sv.* EXCEPT (st.c.p, st.a) FROM sv WHERE 1 = 1",
    "SELECT st.* EXCEPT (c.x) FROM sv WHERE 1 = 1",
    "SELECT * EXCEPT (st.a, st.b, st.c) FROM sv WHERE 1 = 1",
    "SELECT q.st.c FROM (SELECT * EXCEPT (st.a) FROM sv) AS q WHERE 1 = 1",
]

# fields of one column left out under two spellings of it: Spark rebuilds the struct per
# spelling and keeps one (one of `c.p` and `a` stays in the first); not modelled, passed
# through
TWO_SPELLINGS = ["SELECT sv.* EXCEPT (ST.C.P, st.a) FROM sv WHERE 1 = 1",
                 "SELECT * EXCEPT (st.a, ST.C.P) FROM sv WHERE 1 = 1"]

# Spark rejects these; sparkfold says so
REJECTED = [
    "SELECT count(u.*) FROM u",                               # INVALID_USAGE_OF_STAR_WITH_TABLE_IDENTIFIER_IN_COUNT
    "SELECT Count(DISTINCT u.*) FROM u",
    "SELECT COUNT(u.*) FROM u",
    "SELECT * EXCEPT (st.c, st.c.x) FROM sv",                # EXCEPT_OVERLAPPING_COLUMNS
    "SELECT * EXCEPT (st.a, st.a) FROM sv",
    "SELECT s, count(DISTINCT *) FROM u GROUP BY 1",          # STAR_GROUP_BY_POS
]


@pytest.fixture(scope="module")
def stars(spark, tables):
    spark.sql("CREATE OR REPLACE TEMP VIEW sv AS SELECT num, named_struct('a', num, 'b', s, "
              "'c', if(num > 8, NULL, named_struct('x', x, 'p', p))) AS st, "
              "if(p, named_struct('a', 1, 'b', s), NULL) AS ns FROM t")
    yield
    spark.catalog.dropTempView("sv")


SV = {"num": "int not null", "ns": "struct<a:int,b:string>",
      "st": "struct<a:int,b:string,c:struct<x:double,p:boolean>> not null"}

# a sample of each kind, checked live in the default run (the whole list: SPARKFOLD_LONG=1)
SAMPLE = [QUERIES[i] for i in (1, 4, 7, 14, 16, 18, 19, 20, 21)]


def _modelled(catalog, queries):
    results = [optimize(q, catalog) for q in queries] + \
        [optimize(q, catalog, always_regenerate=True) for q in queries]
    for q, r in zip(list(queries) * 2, results):
        assert r.passthrough is None, (q, r.passthrough)
        assert r.sql != q, q  # a rule fired: the text is written again
    return results


def _agree(spark, queries, ansi):
    from sparkfold.plans.sql_in.catalog import Catalog

    old = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", str(ansi).lower())
    try:
        reports = verify_batched(_modelled(Catalog.from_spark(spark), queries), spark)
    finally:
        spark.conf.set("spark.sql.ansi.enabled", old)
    bad = [f"{r.original_sql}\n  -> {r.optimized_sql}\n  {[c.to_dict() for c in r.comparisons if not c.equal]}"
           for r in reports if not r.equal]
    assert not bad, "\n".join(bad)
    assert all(len(r.comparisons) == 2 for r in reports)  # the optimized SQL and the DataFrame


@pytest.mark.parametrize("ansi", [True, False])
def test_stars_are_modelled(ansi):
    from sparkfold.plans.sql_in.catalog import Catalog

    from tests.data import STANDARD_SCHEMA

    schema = {**STANDARD_SCHEMA, "sv": SV}
    _modelled(Catalog.from_mapping(schema, ansi=ansi), QUERIES)


def test_a_sample_agrees_with_spark(spark, stars):
    _agree(spark, SAMPLE, True)


@pytest.mark.slow
@pytest.mark.parametrize("ansi", [True, False])
def test_stars_agree_with_spark(spark, stars, ansi):
    _agree(spark, QUERIES, ansi)


@pytest.mark.parametrize("sql", REJECTED)
def test_stars_spark_rejects_are_rejected(spark, stars, sql):
    from sparkfold.optimizer.errors import SparkfoldError
    from sparkfold.plans.sql_in.catalog import Catalog

    assert run_or_error(spark, sql)[0] == "error"
    with pytest.raises(SparkfoldError):
        optimize(sql, Catalog.from_spark(spark))


def test_fields_of_one_column_spelled_two_ways_pass_through():
    from sparkfold.plans.sql_in.catalog import Catalog

    from tests.data import STANDARD_SCHEMA

    catalog = Catalog.from_mapping({**STANDARD_SCHEMA, "sv": SV})
    assert all(optimize(q, catalog).passthrough for q in TWO_SPELLINGS)


def test_spark_leaves_a_field_in_when_a_column_is_spelled_two_ways(spark, stars):
    """Why they pass through: Spark leaves one of the two fields in, where both are named
    (which one is not the same from one session to another: `c.p` in one, `a` in another)."""
    from tests.spark_check import run

    schema = run(spark, TWO_SPELLINGS[0])[0]
    st = dict(schema)["st"]
    assert ("p:boolean" in st) + ("a:int" in st) == 1, schema
