"""Forms sparkfold used to pass through whole, now modelled (issue 36, item 1): `ORDER BY
ALL`, `GROUP BY ALL` and a column named `all`, GROUP BY a select alias (Spark's
spark.sql.groupByAliases, on or off), generators in a select list and LATERAL subqueries
(the block kept as text, typed as Spark types it, the query around it optimized).

The forms are generated over typed columns (directions and null orderings of ORDER BY
ALL; each generator over arrays, maps and arrays of structs; each LATERAL join kind over
correlated bodies; alone and under a query that reads their columns; one in seven in the
default run, all of them and every ORDER BY ALL option with SPARKFOLD_LONG=1) and run
on Spark in one batch: the original against the optimized SQL written whole and the
DataFrame program (rows, column names and types, errors), and each side's schema against
the original's, nullability included."""

from __future__ import annotations

import itertools
import os

import pytest
from sparkfold import optimize
from sparkfold.plans.sql_in.catalog import Catalog

from tests.data import local_copy

LONG = os.environ.get("SPARKFOLD_LONG") == "1"

TABLES = {
    "rt": {"a": "int", "b": "string", "c": "int"},
    "ru": {"all": "int", "a": "int"},
    "rg": {"id": "int", "xs": "array<int>", "m": "map<string,int>",
           "ss": "array<struct<x:int,y:string>>", "j": "string"},
}


def _order_by_all() -> list[str]:
    directions = ["", " ASC", " DESC"]
    nulls = ["", " NULLS FIRST", " NULLS LAST"]
    shapes = ["SELECT a, b FROM rt ORDER BY ALL{}",
              "SELECT b, a + c AS s FROM rt WHERE 1 = 1 ORDER BY all{}",
              "SELECT DISTINCT b FROM rt ORDER BY ALL{}",
              "SELECT b, count(*) AS n FROM rt GROUP BY ALL ORDER BY ALL{}",
              "SELECT a FROM rt UNION ALL SELECT c FROM rt ORDER BY ALL{}",
              "SELECT a FROM ru ORDER BY ALL{}",              # the column `all`
              "SELECT c AS all, a FROM rt ORDER BY ALL{}"]    # a select alias `all`
    combos = list(itertools.product(directions, nulls))
    out = [shape.format(d + n) for k, shape in enumerate(shapes) for i, (d, n) in enumerate(combos)
           if LONG or i % 3 == k % 3]  # (three of the nine per shape, each option among them)
    return out + ["SELECT * FROM rt ORDER BY `all` DESC LIMIT 2",
                  "SELECT * FROM (SELECT a, b FROM rt ORDER BY ALL DESC LIMIT 3) WHERE 1 = 1"]


GROUP_BY = [
    "SELECT a, b, count(*) AS n FROM rt GROUP BY ALL",
    "SELECT a, b, count(*) AS n FROM rt GROUP BY `all`",
    "SELECT a AS all, b, count(*) AS n FROM rt GROUP BY all",
    "SELECT a, sum(`all`) AS s FROM ru GROUP BY all, a",
    "SELECT a, sum(`all`) AS s FROM ru GROUP BY all",
    "SELECT a + 1 AS k, count(*) AS n FROM rt GROUP BY k",
    "SELECT a + 1 AS c, count(*) AS n FROM rt GROUP BY c, a",     # the FROM column wins
    "SELECT a + 1 AS k, count(*) AS n FROM rt GROUP BY `k`",
    "SELECT upper(b), count(*) AS n FROM rt GROUP BY `upper(b)`",
    "SELECT a + 1 AS k, a + 2 AS k2, count(*) AS n FROM rt GROUP BY k, k2 HAVING k > 1",
    "SELECT b AS g, max(c) AS m FROM rt WHERE 1 = 1 GROUP BY g ORDER BY g",
]


def _generators() -> list[str]:
    calls = ["explode(xs)", "explode_outer(xs)", "posexplode(xs)", "posexplode_outer(xs)",
             "explode(m)", "explode_outer(m)", "posexplode(m)", "inline(ss)", "inline_outer(ss)",
             "json_tuple(j, 'a', 'b')", "stack(2, id, b2, id + 1, NULL)"]
    out = []
    for call in calls:
        src = "(SELECT rg.*, CAST(id AS STRING) AS b2 FROM rg)" if "b2" in call else "rg"
        out.append(f"SELECT id, {call} FROM {src} WHERE id > 0 AND 1 = 1")
        # the query above reads the generator's columns: typed as Spark types them
        out.append(f"SELECT * FROM (SELECT id AS k, {call} FROM {src}) AS g WHERE k IS NOT NULL OR 1 = 1")
    return out + [
        "SELECT g.x + 0 AS y, g.id FROM (SELECT id, explode(xs) AS x FROM rg) AS g WHERE g.id > 1 + 1",
        "WITH p AS (SELECT id, posexplode(m) AS (i, k, v) FROM rg) SELECT k, v + i AS w FROM p WHERE 1 = 1",
        "SELECT explode(collect_list(id)) AS e FROM rg",
        "SELECT id, explode(xs) AS x, 1 AS one FROM rg ORDER BY id, x",
        # over an array or map built of values sparkfold does not type (ibis's pivot_longer)
        "SELECT g.id, g.col.f, g.col.v FROM (SELECT id, explode(array(struct('x' AS f, j AS v), "
        "struct('y' AS f, j AS v))) FROM rg) AS g WHERE g.id > 0 AND 1 = 1",
        "SELECT k, p.value.id FROM (SELECT id AS k, posexplode_outer(map('a', struct(id, j))) AS (i, key, value) "
        "FROM rg) AS p WHERE k > 1 OR 1 = 2",
    ]


def _laterals() -> list[str]:
    joins = [", LATERAL {} AS l", " JOIN LATERAL {} AS l ON rt.a <= l.v", " LEFT JOIN LATERAL {} AS l ON TRUE",
             " CROSS JOIN LATERAL {} l"]
    bodies = ["(SELECT a + c AS v)",
              "(SELECT ru.a AS v FROM ru WHERE ru.`all` = rt.a)",
              "(SELECT count(*) AS v FROM ru WHERE ru.a >= rt.c)",
              "(SELECT rt.a AS v UNION ALL SELECT c)"]
    out = [f"SELECT * FROM rt{j.format(b)}" for j, b in itertools.product(joins, bodies)]
    return out + [
        "SELECT rt.b, l.* FROM rt, LATERAL (SELECT a * 2 AS d, b AS e) AS l WHERE l.d > 1",
        "SELECT x.b, y.d FROM rt AS x, LATERAL (SELECT x.a * 2 AS d) AS y WHERE 1 = 1 AND y.d IS NOT NULL",
        "SELECT * FROM rt JOIN ru ON rt.a = ru.a, LATERAL (SELECT rt.c + ru.`all` AS z) AS l",
        "SELECT * FROM (SELECT * FROM rt JOIN ru ON rt.a = ru.a, LATERAL (SELECT rt.c + ru.`all` AS z) AS l) AS q "
        "WHERE 1 = 1",
        "SELECT * FROM rt, LATERAL (SELECT a AS q) s1, LATERAL (SELECT s1.q + 1 AS r) s2",
        "SELECT s.d + 0 AS d FROM (SELECT * FROM rt AS x, LATERAL (SELECT x.a * 2 AS d) AS y) AS s "
        "WHERE s.d > 1 AND 1 = 1",
        "WITH w AS (SELECT rt.b, l.v FROM rt LEFT JOIN LATERAL (SELECT max(ru.a) AS v FROM ru WHERE ru.a > rt.a) l "
        "ON TRUE) SELECT b, v FROM w WHERE v IS NULL OR 2 > 1",
    ]


ALL_QUERIES = _order_by_all() + GROUP_BY + _generators() + _laterals()
# the default run: one in seven, spread over the families (all with SPARKFOLD_LONG=1)
QUERIES = ALL_QUERIES if LONG else ALL_QUERIES[::7]


@pytest.fixture(scope="module")
def reach_tables(spark):
    local_copy(spark.createDataFrame([(1, "b", 3), (2, None, 1), (None, "a", 2), (1, "a", 5), (2, "c", None)],
                                     "a int, b string, c int")).createOrReplaceTempView("rt")
    local_copy(spark.createDataFrame([(1, 5), (2, 3), (None, 3)], "`all` int, a int")).createOrReplaceTempView("ru")
    local_copy(spark.createDataFrame(
        [(1, [1, None], {"k": 2}, [(1, "p"), None], '{"a": 1, "b": "x"}'),
         (2, [], None, [], "not json"), (3, None, {}, None, None),
         (4, [7], {"k": 3, "l": None}, [(None, None)], '{"a": [1]}')],
        "id int, xs array<int>, m map<string,int>, ss array<struct<x:int,y:string>>, j string",
    )).createOrReplaceTempView("rg")
    return TABLES


def test_the_forms_are_modelled_and_give_sparks_results(spark, reach_tables):
    from sparkfold.optimizer.verify import verify_many

    from sparkfold.optimizer.errors import SparkfoldError

    results, rejected, queries = [], [], []
    for sql in QUERIES:
        try:
            result = optimize(sql, reach_tables, always_regenerate=True)
        except SparkfoldError:
            rejected.append(sql)
            continue
        assert result.passthrough is None, (sql, result.passthrough)
        results.append(result)
        queries.append(sql)
    accepted_by_spark = []
    for sql in rejected:  # (Spark's analysis only)
        try:
            spark.sql(sql)
        except Exception:  # noqa: BLE001 - Spark rejects it too
            continue
        accepted_by_spark.append(sql)
    assert not accepted_by_spark and len(rejected) <= 4, (accepted_by_spark, rejected)
    reports = verify_many(results, spark, timed=False)
    wrong = [r.to_text() for r in reports if not r.equal]
    assert not wrong, "\n".join(wrong)
    schemas = []
    for sql, rep in zip(queries, reports):
        ref = rep.reference
        for side in rep.candidates:
            if ref.df is not None and side.df is not None and ref.error is None and side.error is None:
                if _fields(ref.df) != _fields(side.df):
                    schemas.append(f"{sql}\n  {side.name}: {side.df.schema.simpleString()} "
                                   f"{[f.nullable for f in side.df.schema]}\n  original: "
                                   f"{ref.df.schema.simpleString()} {[f.nullable for f in ref.df.schema]}")
    assert not schemas, "\n".join(schemas)
    assert sum(r.reference.error is None for r in reports) >= len(reports) - 2


def _fields(df) -> list:
    """(name, type, nullability) of each column (a field's metadata, such as Spark's mark of
    a generated alias, aside)."""
    return [(f.name, f.dataType, f.nullable) for f in df.schema]


@pytest.mark.parametrize("sql", ["SELECT a + 1 AS k, count(*) AS n FROM rt GROUP BY k",
                                 "SELECT upper(b), count(*) AS n FROM rt GROUP BY `upper(b)`"])
def test_group_by_aliases_off_rejects_an_alias_as_spark_does(spark, reach_tables, sql):
    from sparkfold.optimizer.errors import SparkfoldError

    catalog = Catalog.from_mapping(reach_tables).with_settings(group_by_aliases=False)
    with pytest.raises(SparkfoldError):
        optimize(sql, catalog)
    spark.conf.set("spark.sql.groupByAliases", "false")
    try:
        with pytest.raises(Exception):
            spark.sql(sql).collect()
    finally:
        spark.conf.unset("spark.sql.groupByAliases")
    assert optimize(sql, reach_tables).passthrough is None


@pytest.mark.parametrize("sql, reason", [
    # (stars over earlier FROM items, and Spark's `(outer(x.a) + 1)` names, are modelled now:
    # tests/test_lateral_joins.py; a generator as a LATERAL table function too:
    # tests/sqltests/classes.py lateral_generator_files)
    ("SELECT * FROM rt, LATERAL range(a)", "LATERAL table function"),
    ("SELECT * FROM rt, LATERAL explode(array(a, c)) AS e(x, y)", "alias does not name each of its columns"),
])
def test_a_lateral_form_not_modelled_passes_through_named_never_rejected(sql, reason):
    result = optimize(sql, TABLES)
    assert result.passthrough is not None and reason in result.passthrough, result.passthrough
