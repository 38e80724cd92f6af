"""Sessions with ANSI off (dbt-spark's mode) and Spark's legacy set-operation order.

Outside ANSI mode Spark coerces a string next to another type with its legacy rules: a
string compared with an int is cast to int, one in arithmetic is a double, IN, CASE and
coalesce widen to string, and a failed cast is NULL.  These queries used to pass
through; they are optimized now, with the casts Spark inserts made explicit.  Every
query runs on a non-ANSI session as written and as optimized (with Catalyst's own
folding on and off), on data whose strings are not all numbers; the types of the output
columns are Spark's.  Mixes whose legacy coercion is not modelled still pass through.
"""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from sparkfold import optimize
from sparkfold.optimizer.hooks import install
from sparkfold.plans.ir import types as T
from sparkfold.plans.sql_in.catalog import Catalog

from tests.rule_helpers import text
from tests.spark_check import names_and_types, run_or_error
from tests.test_ansi_errors import literal_spark, same_outcome

COLUMNS = {"s": "string", "i": "int", "d": "double", "z": "string", "w": "string", "b": "boolean",
           "m": "decimal(5,2)"}
ROWS = [("1", 1, 1.5, " 2", "1.5", True, D("1.5")), ("01", 2, -0.0, "x", None, False, D("2")),
        ("abc", None, None, "2", "1e1", None, None), (None, 0, 2.0, "", "-0", True, D("0")),
        ("1.9", 3, 3.0, "3 ", "9999999999", False, D("-1.25")), (" 1", 1, 0.0, "1", "1", True, D("1"))]


@pytest.fixture(scope="module")
def lt_rows(spark):
    """The rows of `lt`, made once for the module (kept in the JVM: tests/data.py, local_copy)."""
    from tests.data import local_copy

    return local_copy(spark.createDataFrame(ROWS, ", ".join(f"{c} {t}" for c, t in COLUMNS.items())))


@pytest.fixture
def legacy(spark, lt_rows):
    lt_rows.createOrReplaceTempView("lt")
    old = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        yield Catalog.from_mapping({"lt": COLUMNS}, ansi=False)
    finally:
        spark.conf.set("spark.sql.ansi.enabled", old)


EXPRESSIONS = [
    "s = i", "s = 1", "'01' = 1", "s < d", "s = 1.5", "s = m", "s + i > 2", "s + z", "s * 2", "'1' + 1",
    "s / 0", "s % i", "-s", "s + NULL", "s = b", "s <=> i", "w = 1e1", "w < 10", "s - d = 0", "'1.5' = 1",
    "s IN (1, 2)", "i IN ('1', 2)", "s IN (1)", "coalesce(s, i) = '1'", "CASE WHEN b THEN s ELSE i END",
    "IF(b, i, w) = '1'", "s = i AND s = i + 1", "s = i OR s IS NULL", "CAST(s AS INT) IS NULL",
    # a boolean equal to a number (Spark's BooleanEquality)
    "b = 1", "b = 0", "1 = b", "b = -1", "b <=> 1", "b <=> 0", "b != 2", "b = i", "d = b", "NOT (b = 1)",
    "b = 1L", "b = CAST(0 AS TINYINT)", "b = 1.0D", "b = NULL + i", "b = -0.0D", "b <=> -0.0D", "b = 0.0F",
    # `!=` is NOT (=): coerced as `=` is
    "w != 1", "s <> i", "NOT (s <=> 1)", "b != i",
]


@pytest.mark.parametrize("e", EXPRESSIONS)
def test_string_coercion_outside_ansi_is_optimized_and_agrees(spark, legacy, e):
    for sql in (f"SELECT {e} AS r, i FROM lt WHERE 1 = 1",
                f"SELECT count(*) AS c FROM lt WHERE ({e}) IS NULL OR NOT NULL"):
        r = optimize(sql, legacy)
        assert r.passthrough is None, r.passthrough
        assert r.sql != sql  # a rule fired (1 = 1, NOT NULL): the query was rewritten
        same_outcome(spark, r)
        with literal_spark(spark):
            same_outcome(spark, r)
        names_types = [(a.name, a.data_type.simple_string()) for a in r.optimized.output]
        assert names_types == names_and_types(spark.sql(sql))


@pytest.mark.parametrize("e,t", [("s + i", T.DOUBLE), ("-s", T.DOUBLE), ("s + z", T.DOUBLE),
                                 ("coalesce(s, i)", T.STRING), ("s + NULL", T.DOUBLE)])
def test_legacy_result_types_are_sparks(spark, legacy, e, t):
    r = optimize(f"SELECT {e} FROM lt", legacy)
    assert r.analyzed.output[0].data_type == t
    assert names_and_types(spark.sql(f"SELECT {e} FROM lt"))[0][1] == t.simple_string()


def test_boolean_equal_to_a_number_keeps_sparks_names(spark, legacy):
    """Spark's coercion makes `b = 1` just `b` and `b <=> 0` `b IS NOT NULL AND NOT b`
    before the column is named: the unaliased columns are named so here too."""
    sql = "SELECT b = 1, 0 = b, b <=> 0, b <=> 1, b = i, b = 2, b = 1L, b = 1.0D, b != 1, NOT (b = 0), " \
          "b = CAST(1 AS TINYINT), b = -0.0D, b <=> CAST('NaN' AS DOUBLE), i FROM lt WHERE 1 = 1"
    r = optimize(sql, legacy)
    assert r.passthrough is None and r.sql != sql
    same_outcome(spark, r)
    assert [(a.name, a.data_type.simple_string()) for a in r.optimized.output] == names_and_types(spark.sql(sql))


@pytest.mark.parametrize("sql", ["SELECT b = m FROM lt WHERE 1 = 1", "SELECT b = 0.5 FROM lt WHERE 1 = 1",
                                 "SELECT s div i FROM lt WHERE 1 = 1"])
def test_an_operator_over_a_mix_not_modelled_is_kept_as_written(spark, legacy, sql):
    """A boolean equal to a decimal (the cast of the boolean to the decimal's type may not
    fit it, decimal(1,1)), `s div i` (an error in Spark): the operator is kept as written,
    opaque, and the query around it optimized; Spark's answer (rows or error) is the
    original's."""
    r = optimize(sql, legacy)
    assert r.passthrough is None and r.sql == sql.replace(" WHERE 1 = 1", "")
    same_outcome(spark, r)


@pytest.mark.parametrize("sql", [
    "SELECT coalesce(s, b) FROM lt WHERE 1 = 1",  # string and boolean: no common type there
    "SELECT greatest(s, i) FROM lt WHERE 1 = 1",  # an error in Spark
    "SELECT s FROM lt UNION SELECT i FROM lt WHERE 1 = 1",  # string wins outside ANSI
    "SELECT * FROM VALUES (1), ('a') AS v(x) WHERE 1 = 1",
])
def test_legacy_mixes_not_modelled_pass_through(spark, legacy, sql):
    r = optimize(sql, legacy)
    assert r.passthrough and "outside ANSI mode" in r.passthrough
    assert r.sql == sql
    assert run_or_error(spark, sql) is not None  # Spark's answer (rows or error) is the original's


def test_the_hook_reads_ansi_mode_from_the_session_with_an_explicit_catalog(spark, legacy):
    """A schema given to the hook gives the tables; the session still gives the mode."""
    sql = "SELECT i FROM lt WHERE s = i AND 1 = 1"
    with install(spark, {"lt": COLUMNS}) as hook:
        rows = sorted(spark.sql(sql).collect())
        assert hook.last is not None and not hook.last.catalog.ansi
        # the legacy cast (s to an int; ANSI's would be to a bigint), which the text keeps
        # implicit, as written
        assert "cast(s as int)" in text(hook.last.optimized)
    assert rows == sorted(spark.sql(sql).collect())


SETOPS = ("SELECT a FROM VALUES (1), (2), (3) AS t(a) EXCEPT SELECT a FROM VALUES (1) AS u(a) "
          "UNION ALL SELECT a FROM VALUES (1), (5) AS v(a) INTERSECT SELECT a FROM VALUES (5) AS w(a)")


def test_legacy_set_operation_order_passes_through(spark):
    """With spark.sql.legacy.setopsPrecedence.enabled, INTERSECT does not bind tighter:
    such chains are read left to right there, and pass through."""
    default = optimize(SETOPS, Catalog({}))
    assert default.passthrough is None
    spark.conf.set("spark.sql.legacy.setopsPrecedence.enabled", "true")
    try:
        legacy = optimize(SETOPS, spark)
        assert legacy.passthrough and "setopsPrecedence" in legacy.passthrough
        left_to_right = sorted(spark.sql(SETOPS).collect())
    finally:
        spark.conf.unset("spark.sql.legacy.setopsPrecedence.enabled")
    assert left_to_right != sorted(spark.sql(SETOPS).collect())  # the setting matters here
