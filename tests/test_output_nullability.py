"""The optimized query keeps the original's nullability (optimizer/output_nullability.py):
Spark types the columns of a query as written, so a rewrite that makes a column NOT NULL
(or the reverse) changes `df.schema`; the last step of the optimizer gives each output
column the original's nullability back, where it is made.  The texts below are what users
see; the oracle over the whole space is tests/test_oracle_query_schemas.py."""

from __future__ import annotations

import pytest
from sparkfold import optimize
from sparkfold.optimizer.output_nullability import NAME, written_nullability

from tests.data import STANDARD_SCHEMA
from tests.spark_check import assert_same_result, schema_of


def _kept(sql: str, schema=None):
    r = optimize(sql, schema or STANDARD_SCHEMA)
    assert written_nullability(r.optimized) == written_nullability(r.analyzed, original=True), r.sql
    return r


def test_spark_types_a_column_as_written_not_as_proven():
    """A filter proves `x` never NULL above it (the rules use that); Spark's analyzer does
    not, so the written query's `x` is nullable, as the original's."""
    r = optimize("SELECT x FROM t WHERE x IS NOT NULL AND num > 0", STANDARD_SCHEMA)
    assert r.optimized.output[0].nullable is False
    assert written_nullability(r.optimized) == [True]


@pytest.mark.parametrize("sql, expected", [
    # a nullable expression folded to a NOT NULL literal
    ("SELECT false AND CAST(NULL AS BOOLEAN) AS a FROM t", "SELECT IF(TRUE, false, NULL) AS a FROM t"),
    # unaliased: the name Spark gave the original
    ("SELECT NULL OR TRUE FROM t", "SELECT IF(TRUE, TRUE, NULL) AS `(NULL OR true)` FROM t"),
    # the right side of a LEFT JOIN made inner: u.y is NOT NULL in its table
    ("SELECT t.num, u.y FROM t LEFT JOIN u ON t.num = u.num WHERE u.y > 1 ORDER BY y",
     "SELECT t.num, IF(TRUE, u.y, NULL) AS y FROM t JOIN u ON t.num = u.num WHERE u.y > 1 ORDER BY y"),
    # a NOT NULL expression folded to NaN, whose only text (a cast from a string) is nullable
    ("SELECT greatest(CAST('NaN' AS DOUBLE), 1D) AS g FROM t",
     "SELECT coalesce(CAST('NaN' AS DOUBLE), 0.0D) AS g FROM t"),
    # an empty relation: a value of its type for a NOT NULL column, a typed NULL otherwise
    ("SELECT num, x FROM t WHERE num = NULL", "SELECT 0 AS num, CAST(NULL AS DOUBLE) AS x WHERE FALSE"),
    ("SELECT count(*) AS c, s FROM t WHERE FALSE GROUP BY s", "SELECT 0L AS c, CAST(NULL AS STRING) AS s WHERE FALSE"),
    # a union is nullable where one input is: the first input takes the wrapper
    ("SELECT false AND CAST(NULL AS BOOLEAN) AS c FROM t UNION ALL SELECT p IS NULL FROM t",
     "SELECT IF(TRUE, false, NULL) AS c FROM t UNION ALL SELECT p IS NULL FROM t"),
])
def test_the_written_query_is_typed_as_the_original(spark, tables, sql, expected):
    r = _kept(sql)
    assert r.sql == expected
    assert_same_result(spark, sql, r.sql, ordered="ORDER BY" in sql)
    assert schema_of(r.to_dataframe(spark)) == schema_of(spark.sql(sql))
    assert optimize(r.sql, STANDARD_SCHEMA).sql == r.sql  # a fixed point


def test_the_wrapper_is_a_step_of_the_trace_and_can_be_left_out():
    sql = "SELECT false AND CAST(NULL AS BOOLEAN) AS a FROM t"
    r = optimize(sql, STANDARD_SCHEMA)
    assert r.trace.rewrites[-1].rule == NAME and NAME in r.explain()
    bare = optimize(sql, STANDARD_SCHEMA, exclude=[NAME])
    # (the folded value is the input's own `false`, kept as written: optimizer/splice.py)
    assert bare.sql == "SELECT false AS a FROM t" and NAME not in bare.trace.effective_rules


def test_an_intersect_needs_both_inputs_nullable_and_an_except_its_left():
    r = _kept("SELECT num FROM t WHERE 1 = 1 INTERSECT SELECT coalesce(num, 0) + 0 FROM u")
    assert r.sql.count("IF(TRUE") == 0  # NOT NULL on both sides, as the original
    r = _kept("SELECT false AND CAST(NULL AS BOOLEAN) AS c FROM t INTERSECT SELECT NULL OR TRUE FROM u")
    assert r.sql.count("IF(TRUE") == 2
    r = _kept("SELECT false AND CAST(NULL AS BOOLEAN) AS c FROM t EXCEPT SELECT NULL OR TRUE FROM u")
    assert r.sql.count("IF(TRUE") == 1 and r.sql.index("IF(TRUE") < r.sql.index("EXCEPT")


def test_an_unmodelled_function_is_made_as_nullable_as_the_original():
    """sparkfold does not know whether Spark types `concat_ws(...)` nullable (it does not):
    the folded CASE was nullable, so its remains are made so."""
    r = _kept("SELECT CASE WHEN 1 > 2 THEN NULL ELSE concat_ws('-', s) END AS c FROM t")
    assert r.sql == "SELECT IF(TRUE, concat_ws('-', s), NULL) AS c FROM t"


def test_a_query_whose_original_nullability_is_not_known_is_kept_as_written():
    """The original's column is as nullable as `rand(7)`, which sparkfold does not know;
    the rewrite makes it TRUE, NOT NULL: the query is kept as written.  (A call whose
    validity only Spark knows, such as `concat_ws(...)`, is not dropped at all:
    optimizer/validate.py.)"""
    sql = "SELECT IF(1 > 2, rand(7) > 0.5, TRUE) AS c FROM t"
    r = optimize(sql, STANDARD_SCHEMA)
    assert r.sql == sql and r.optimized is r.analyzed
    assert any(NAME in w for w in r.trace.warnings)


@pytest.mark.parametrize("sql", [
    "SELECT dayname(DATE('2008-02-20')) AS d",
    # the outer join made inner: u.y, NOT NULL in u, is NOT NULL again as written
    "SELECT hex(u.y) AS h, u.num FROM t LEFT JOIN u ON u.num = t.num WHERE u.num > 0",
    # (optimized: the call reads the join's other side)
    "SELECT dayname(dt) AS d, u.num FROM t LEFT JOIN u ON u.num = t.num WHERE u.num > 0",
])
def test_an_unmodelled_call_whose_arguments_the_rules_retyped_is_kept_as_written(spark, tables, sql):
    """Spark types many a call nullable as its arguments are: `dayname(DATE('2008-02-20'))`
    is nullable (the cast is), `dayname(DATE '2008-02-20')` NOT NULL (found by Spark's
    function documentation, tests/oracles/function_docs.py).  sparkfold does not know which
    calls do, so where the rules changed how nullable an unmodelled call's arguments are as
    written and the column's nullability rests on that call, the query is kept as written;
    where they did not, it is optimized."""
    r = optimize(sql, STANDARD_SCHEMA)
    kept = r.optimized is r.analyzed
    assert kept == (r.sql == sql)
    assert kept == any("whose arguments the rules made" in w for w in r.trace.warnings), r.trace.warnings
    assert schema_of(spark.sql(r.sql)) == schema_of(spark.sql(sql))
    assert kept == ("dayname(dt)" not in sql)


def test_an_empty_relation_with_a_type_without_a_not_null_value_is_kept_as_written(spark):
    schema = {"ta": {"a": "array<int> not null", "k": "int"}}
    sql = "SELECT a, k FROM ta WHERE FALSE"
    r = optimize(sql, schema)
    assert r.sql == sql and any("array<int>" in w for w in r.trace.warnings)


def test_a_bare_column_in_a_select_list_is_spliced_where_it_stands():
    """`u.y` stands in the select list and in the WHERE: the wrapper goes to the select
    list only, and the rest of the text stays as written."""
    sql = "SELECT u.num, u.y\nFROM t\nLEFT JOIN u ON t.num = u.num\nWHERE u.y > 0"
    r = _kept(sql)
    assert r.sql == "SELECT u.num, IF(TRUE, u.y, NULL) AS y\nFROM t\nJOIN u ON t.num = u.num\nWHERE u.y > 0"
