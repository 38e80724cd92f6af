"""Constants Spark's optimizer evaluates to an error before reading a row.

Spark's FoldablePropagation carries a column that a Project or Aggregate defines as a
constant into the operators above, and its ConstantFolding evaluates what became
constant, raising at planning: `SELECT c % c FROM (SELECT 0L AS c) t WHERE false`
fails.  A rewrite that makes such a constant (`count(*)` over an empty input folded to
0 under a HAVING that keeps no row) would turn a query that returns nothing into one
that fails; the engine does not keep it (optimizer/validate.py, `spark_fold_errors`).

The model is checked against Spark itself: for each shape, Spark raises on it exactly
when the model counts an error (every shape reads no row, so only planning can raise).
"""

from __future__ import annotations

import os

import pytest
from sparkfold.optimizer import optimize
from sparkfold.optimizer.validate import spark_fold_errors

from tests.rule_helpers import SCHEMA, fired, spark_agrees
from tests.spark_check import run_or_error

NO_ROW = "(SELECT * FROM t WHERE false)"
LONG = os.environ.get("SPARKFOLD_LONG") == "1"

# (sql, does Spark raise at planning?)
SHAPES = [
    ("SELECT c % c FROM (SELECT 0L AS c) s WHERE false", True),
    ("SELECT c % c FROM (SELECT 0L AS c, num FROM t) s WHERE false", True),
    ("SELECT c % c FROM (SELECT 0L AS c) s WHERE rand() > 2", True),
    ("SELECT a.c % a.c FROM (SELECT 0L AS c) a LEFT JOIN t b ON false WHERE false", True),
    ("SELECT max(c % c) FROM (SELECT 0L AS c) s WHERE false", True),
    ("SELECT c % c FROM (SELECT 0L AS c) s WHERE false ORDER BY 1 LIMIT 3", True),
    ("SELECT c DIV c FROM (SELECT DISTINCT 0L AS c FROM t) s WHERE false", True),
    # a NULL constant never raises; count(*) is not a constant to Spark
    ("SELECT c % c FROM (SELECT CAST(NULL AS BIGINT) AS c) s WHERE false", False),
    (f"SELECT c % c FROM (SELECT count(*) AS c FROM {NO_ROW}) s WHERE false", False),
    # the right side of a LEFT JOIN is not carried up
    ("SELECT b.c % b.c FROM t a LEFT JOIN (SELECT 0L AS c) b ON false WHERE false", False),
    # Spark pushes projections and filters into each input of a union, where they fold,
    # and into the left of an EXCEPT or INTERSECT (joins by then), not into the right
    ("SELECT c % c FROM (SELECT 1L AS c UNION ALL SELECT 0L) s WHERE false", True),
    ("SELECT c % c FROM (SELECT 1L AS c UNION ALL SELECT 2L) s WHERE false", False),
    ("SELECT c % c FROM (SELECT 0L AS c EXCEPT SELECT 1L) s WHERE false", True),
    ("SELECT c % c FROM (SELECT 0L AS c INTERSECT SELECT num FROM t) s WHERE false", True),
    ("SELECT c % c FROM (SELECT 1L AS c INTERSECT SELECT 0L) s WHERE false", False),
    # in a filter, a grouping expression, an aggregate's argument
    ("SELECT c FROM (SELECT 0L AS c) s WHERE c % c = 0 AND false", True),
    ("SELECT c FROM (SELECT 0L AS c, num FROM t) s GROUP BY c HAVING max(c % c) > 1", True),
    ("SELECT c % c FROM (SELECT 0L AS c) s GROUP BY c % c", True),
    # NullPropagation: count(NULL) is 0 (an empty relation is written as NULLs, WHERE FALSE)
    ("SELECT c % c FROM (SELECT count(x) AS c FROM (SELECT CAST(NULL AS DOUBLE) AS x WHERE false) e) s",
     True),
    ("SELECT c % c FROM (SELECT count(DISTINCT x + 1) AS c FROM (SELECT CAST(NULL AS DOUBLE) AS x) e) s",
     True),
    ("SELECT c % c FROM (SELECT count(x) AS c FROM t WHERE false) s WHERE false", False),
    # a constant that is not a divisor of zero
    ("SELECT c % c FROM (SELECT 2L AS c) s WHERE false", False),
    # a condition that also reads other columns: its conjuncts are counted one by one
    ("SELECT c FROM (SELECT 0L AS c, num FROM t) s WHERE num > 1 AND c % c = 0 AND false", True),
    ("SELECT c FROM (SELECT 1L AS c, 0L AS d, num FROM t UNION ALL SELECT 0L, 1L, num FROM t) s "
     "WHERE num > 1 AND c % d = 1 AND false", True),
    ("SELECT c FROM (SELECT 1L AS c, 2L AS d, num FROM t UNION ALL SELECT 2L, 1L, num FROM t) s "
     "WHERE num > 1 AND c % d = 1 AND num % c = 0 AND false", False),
]


@pytest.mark.parametrize("sql,raises", SHAPES)
def test_model_counts_what_spark_raises(spark, tables, sql, raises):
    analyzed = optimize(sql, SCHEMA).analyzed
    assert (spark_fold_errors(analyzed, ansi=True) > 0) == raises
    assert (run_or_error(spark, sql)[0] == "error") == raises, sql


# Counted although Spark does not raise: stricter than Spark (a fold not kept), never laxer.
# (Spark's OptimizeLimitZero empties a LIMIT 0 in an earlier batch; a UNION DISTINCT is
# an aggregate over the union by then, which the projection is not pushed through.)
STRICTER = ["SELECT c % c FROM (SELECT 0L AS c) s ORDER BY 1 LIMIT 0",
            "SELECT c % c FROM (SELECT 0L AS c UNION SELECT 1L) s WHERE false"]


@pytest.mark.parametrize("sql", STRICTER)
def test_model_is_stricter_than_spark(spark, tables, sql):
    assert spark_fold_errors(optimize(sql, SCHEMA).analyzed, ansi=True) > 0
    assert run_or_error(spark, sql)[0] != "error"


def test_ansi_off_remainder_by_zero_is_null():
    analyzed = optimize(SHAPES[0][0], SCHEMA).analyzed
    assert spark_fold_errors(analyzed, ansi=False) == 0


# Found by the fuzzer (world 1126): a global aggregate over no row folded to constants,
# under a HAVING the rules could not fold, below `c1 % c1`.
HAVING_SHAPES = [
    f"SELECT c % c FROM (SELECT count(*) AS c FROM {NO_ROW} HAVING max(num) > 0) s",
    f"SELECT c % c, m FROM (SELECT count(*) AS c, max(num) AS m FROM {NO_ROW} HAVING max(num) > 0) s",
    f"SELECT sum(c % c) FROM (SELECT count(num) AS c FROM {NO_ROW} HAVING max(x) > 1) s",
    f"SELECT 10 / c FROM (SELECT count(*) AS c FROM {NO_ROW} HAVING max(num) > 0) s",
]


@pytest.mark.parametrize("sql", HAVING_SHAPES)
def test_empty_aggregate_is_not_folded_into_a_planning_error(spark, tables, sql):
    r = optimize(sql, SCHEMA)
    assert spark_fold_errors(r.optimized, ansi=True) == 0
    assert any("FoldEmptyAggregate" in w and "error before reading" in w for w in r.trace.warnings)
    spark_agrees(spark, r)


def test_empty_aggregate_without_raising_use_is_still_folded(spark, tables):
    r = optimize(f"SELECT c + 1 FROM (SELECT count(*) AS c FROM {NO_ROW} HAVING max(num) > 0) s", SCHEMA)
    assert fired(r, "FoldEmptyAggregate")
    spark_agrees(spark, r)


@pytest.mark.parametrize("ansi,expected", [(True, 2), (False, 0)])
def test_a_condition_is_counted_part_by_part(ansi, expected):
    """`a % a = 0 AND x > 1L % 0L AND x > 3 AND 1L % (a - 1L) = 0` with a a union's
    column of constants 0 and 1: `1L % 0L` raises whatever a is, and one of the two
    conjuncts that read a raises for each of a's constants (under ANSI; without it a
    remainder by zero is NULL).  Counted part by part, as substituted whole: 2."""
    from sparkfold.optimizer import validate as V
    from sparkfold.plans.ir import expressions as E
    from sparkfold.plans.ir import types as T

    a, x = E.Attribute("a", T.LONG, False, 1), E.Attribute("x", T.LONG, True, 2)

    def long(v):
        return E.Literal(v, T.LONG)

    by_zero = E.EqualTo(E.Remainder(a, a), long(0))
    by_one = E.EqualTo(E.Remainder(long(1), E.Subtract(a, long(1))), long(0))
    always = E.GreaterThan(x, E.Remainder(long(1), long(0)))
    e = E.And(E.And(by_zero, always), E.And(E.GreaterThan(x, long(3)), by_one))
    values = {1: (long(0), long(1))}
    whole = max(V.raising_constants(s, ansi) for s in V._substitutions(e, values))
    assert V._substituted_errors(e, values, ansi) == whole == expected


def test_counted_part_by_part_as_if_substituted_whole(monkeypatch):
    """The count for an expression that reads constant columns is taken part by part
    (`_substituted_errors`: a large filter whose few conjuncts read a union's constants is
    not substituted whole once per combination); it must be exactly the most raising
    constants among the whole expression's substitutions.  Checked on every count the
    engine takes over TPC-DS and fuzzed queries, ANSI on and off: one fuzzed world of 200
    queries in the default run, five with SPARKFOLD_LONG=1."""
    from sparkfold.optimizer import validate as V
    from sparkfold.plans.sql_in.catalog import Catalog

    from tests import tpc
    from tests.fuzz.queries import random_queries
    from tests.fuzz.world import make_world

    part_by_part, counts = V._substituted_errors, []

    def checked(e, values, ansi):
        whole = max(V.raising_constants(x, ansi) for x in V._substitutions(e, values))
        assert part_by_part(e, values, ansi) == whole, repr(e)
        counts.append(whole)
        return whole

    monkeypatch.setattr(V, "_substituted_errors", checked)
    runs = [(Catalog.from_mapping(tpc.schema("tpcds")), [q for _, q in tpc.queries("tpcds")])]
    seeds = range(1, 6) if LONG else range(1, 2)
    for seed in seeds:
        world = make_world(seed)
        runs += [(world.catalog, [q for q, _ in random_queries(world, seed, 200)])]
    for catalog, queries in runs:
        for ansi in (True, False):
            cat = catalog.with_settings(ansi=ansi, legacy_setops_precedence=False)
            for q in queries:
                try:
                    optimize(q, cat)
                except Exception:  # a query the optimizer reports on: its counts were checked
                    pass
    # 3,441 counts, 7 of them raising, in the default run
    assert len(counts) > (5000 if LONG else 3000) and sum(c > 0 for c in counts) >= (10 if LONG else 5)
