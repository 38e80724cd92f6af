"""User errors: clear exceptions from one hierarchy, with positions and names."""

from __future__ import annotations

import pytest
from sparkfold.optimizer import optimize
from sparkfold.optimizer.errors import (
    AmbiguousReferenceError,
    AnalysisError,
    ParseError,
    SparkfoldError,
    UnknownColumnError,
    UnknownTableError,
)

CAT = {"t": {"num": "int", "s": "string"}, "u": {"num": "int", "y": "bigint"}}


@pytest.mark.parametrize("sql,line,column", [
    ("SELECT a FROM WHERE", 1, 15),
    ("SELECT num\nFROM t\nWHERE (num", 3, 8),
    ("SELECT 'abc FROM t", 1, 8),
])
def test_syntax_error_has_line_and_column(sql, line, column):
    with pytest.raises(ParseError) as info:
        optimize(sql, CAT)
    assert (info.value.line, info.value.column) == (line, column)
    assert f"line {line}, column {column}" in str(info.value)


def test_unknown_table_is_named():
    with pytest.raises(UnknownTableError, match="`missing`"):
        optimize("SELECT * FROM missing", CAT)


def test_unknown_column_is_named_with_position_and_candidates():
    with pytest.raises(UnknownColumnError) as info:
        optimize("SELECT num,\n  nmu FROM t", CAT)
    message = str(info.value)
    assert "`nmu`" in message and "line 2, column 3" in message and "t.num" in message


def test_ambiguous_reference():
    with pytest.raises(AmbiguousReferenceError, match="`num`"):
        optimize("SELECT num FROM t JOIN u ON t.num = u.num", CAT)


@pytest.mark.parametrize("sql", [
    "SELECT num, count(*) FROM t",  # num is neither grouped nor aggregated
    "SELECT sum(count(num)) FROM t",
    "SELECT num FROM t WHERE count(*) > 1",
    "SELECT num FROM t GROUP BY 3",
    "SELECT num FROM t ORDER BY 2",
    "SELECT num FROM t UNION SELECT num, s FROM t",
    # conditions must be BOOLEAN (an untyped NULL fails in WHERE, ON and CASE WHEN)
    "SELECT num FROM t WHERE NULL",
    "SELECT num FROM t WHERE 1",
    "SELECT num FROM t WHERE s",
    "SELECT t.num FROM t JOIN u ON NULL",
    "SELECT CASE WHEN NULL THEN 1 ELSE 2 END FROM t",
    "SELECT CASE WHEN 1 THEN 2 END FROM t",
    "SELECT NOT 1 FROM t",
    "SELECT 1 AND TRUE FROM t",
])
def test_invalid_queries_are_analysis_errors(sql):
    with pytest.raises(AnalysisError):
        optimize(sql, CAT)


def test_every_user_error_is_a_sparkfold_error_with_exit_code_2():
    for sql in ("SELECT FROM", "SELECT x FROM t", "SELECT * FROM nope"):
        with pytest.raises(SparkfoldError) as info:
            optimize(sql, CAT)
        assert info.value.exit_code == 2


def test_non_query_statements_pass_through():
    sql = "CREATE TABLE x (a INT)"
    result = optimize(sql, CAT)
    assert result.sql == sql and result.passthrough


@pytest.mark.parametrize("sql", [
    "SELECT num FROM t WHERE NOT NULL",
    "SELECT num FROM t WHERE NULL AND num > 1",
    "SELECT num FROM t GROUP BY num HAVING NULL",
    "SELECT IF(NULL, 1, 2) FROM t",
    "SELECT num FROM t WHERE CAST(NULL AS BOOLEAN)",
])
def test_untyped_null_is_coerced_where_spark_coerces_it(spark, tables, sql):
    from tests.spark_check import assert_same_result

    result = optimize(sql, tables)
    assert_same_result(spark, sql, result.sql)


def test_order_by_aggregate_after_having_is_left_to_spark():
    # Spark rejects some of these (UNRESOLVED_COLUMN) and accepts others; pass them through
    sql = "SELECT num AS g0 FROM t GROUP BY num HAVING count(1) > 0 ORDER BY sum(y)"
    result = optimize(sql, {"t": {"num": "int", "y": "double"}})
    assert result.sql == sql and result.passthrough


@pytest.mark.parametrize("sql", [
    "SELECT NOT s FROM tcb",
    "SELECT s AND TRUE FROM tcb",
    "SELECT num FROM tcb WHERE s OR num = NULL",
    "SELECT num FROM tcb GROUP BY num HAVING max(num)",
    "SELECT s FROM tcb GROUP BY s HAVING max(s)",
])
def test_conditions_spark_casts_to_boolean_pass_through(spark, sql):
    # valid Spark SQL (Spark casts a STRING under NOT / AND / OR, and a HAVING condition):
    # not modelled, so never rejected; the query passes through unchanged
    from tests.data import register

    register(spark, "tcb", CAT["t"], [(1, "true"), (None, "false"), (2, None)])
    spark.sql(sql).collect()  # Spark accepts it
    result = optimize(sql, {"tcb": CAT["t"]})
    assert result.sql == sql and result.passthrough


# Queries Spark's analysis rejects by a rule about positions and stars (found on Spark's
# own test files kept apart for checking): sparkfold rejects them too, so that no written
# form of them (the query written whole, the DataFrame program) makes them succeed.
POSITION_AND_STAR_ERRORS = [
    ("SELECT * FROM t GROUP BY num, x, s, p, d, dt, b, 1", "STAR_GROUP_BY_POS"),
    ("SELECT * FROM t ORDER BY -1", "ORDER_BY_POS_OUT_OF_RANGE"),
    ("SELECT num FROM t ORDER BY (- 1)", "ORDER_BY_POS_OUT_OF_RANGE"),
    ("SELECT num FROM t GROUP BY -1", "GROUP_BY_POS_OUT_OF_RANGE"),
    ("SELECT * EXCEPT (num, num) FROM t", "EXCEPT_OVERLAPPING_COLUMNS"),
    ("SELECT * EXCEPT num FROM t", "PARSE_SYNTAX_ERROR"),
    ("SELECT num AS a, a + 1 AS c FROM t GROUP BY num, c", "UNSUPPORTED_FEATURE.LATERAL_COLUMN_ALIAS_IN_GROUP_BY"),
    ("SELECT num AS a, a + 1 AS c FROM t GROUP BY ALL", "UNSUPPORTED_FEATURE.LATERAL_COLUMN_ALIAS_IN_GROUP_BY"),
    ("SELECT num AS a, a + 1 AS c FROM t GROUP BY 2", "UNSUPPORTED_FEATURE.LATERAL_COLUMN_ALIAS_IN_GROUP_BY"),
]


@pytest.mark.parametrize("sql, condition", POSITION_AND_STAR_ERRORS)
def test_a_position_or_star_spark_rejects_is_rejected(spark, tables, sql, condition):
    from sparkfold.plans.ir.errors import SparkfoldError
    from tests.data import STANDARD_SCHEMA
    from tests.spark_check import run_or_error

    assert run_or_error(spark, sql) == ("error", condition)
    with pytest.raises(SparkfoldError):
        optimize(sql, STANDARD_SCHEMA)


def test_a_group_by_key_without_the_alias_of_another_item_is_accepted(spark, tables):
    from tests.data import STANDARD_SCHEMA
    from tests.spark_check import assert_same_result

    sql = "SELECT num AS a, a + 1 AS c FROM t WHERE 1 = 1 GROUP BY num, a + 1"
    result = optimize(sql, STANDARD_SCHEMA)
    assert "WHERE" not in result.sql
    assert_same_result(spark, sql, result.sql)


def test_except_of_one_column_written_in_two_cases_is_accepted(spark, tables):
    from tests.data import STANDARD_SCHEMA
    from tests.spark_check import assert_same_result, run_or_error

    sql = "SELECT * EXCEPT (num, NUM) FROM t WHERE 1 = 1"
    result = optimize(sql, STANDARD_SCHEMA)
    assert run_or_error(spark, sql)[0] != "error"
    assert "WHERE" not in result.regenerated_sql
    assert_same_result(spark, sql, result.regenerated_sql)


def test_group_by_spark_s_name_of_an_item_sparkfold_cannot_name_is_not_rejected(spark, tables):
    """`GROUP BY` a backquoted name that Spark gives an unaliased select item
    (spark.sql.groupByAliases): where sparkfold does not know that name, the query is
    passed through, never rejected."""
    from tests.data import STANDARD_SCHEMA

    item = "concat_ws(' ', num, b)"
    name = spark.sql(f"SELECT {item} FROM t").columns[0]
    sql = f"SELECT {item} FROM t GROUP BY `{name}`"
    spark.sql(sql).collect()  # Spark accepts it
    result = optimize(sql, STANDARD_SCHEMA)
    assert result.sql == sql and result.passthrough is not None, result.passthrough


@pytest.mark.parametrize("key, sql", [
    ("spark.sql.orderByOrdinal", "SELECT num FROM t ORDER BY -1"),
    ("spark.sql.orderByOrdinal", "SELECT num FROM t ORDER BY (2)"),
    ("spark.sql.groupByOrdinal", "SELECT num FROM t GROUP BY num, -1"),
])
def test_a_position_under_ordinals_off_is_a_constant(spark, tables, key, sql):
    """With the session's ordinals off, `-1` and `(2)` are constants Spark accepts: read as
    constants (not rejected as a position out of range), the optimized query giving
    Spark's rows."""
    from collections import Counter

    from sparkfold import Catalog

    spark.conf.set(key, "false")
    try:
        expected = spark.sql(sql)
        result = optimize(sql, Catalog.from_spark(spark))
        got = spark.sql(result.sql)
        assert result.passthrough is None
        assert got.schema == expected.schema
        assert Counter(map(tuple, got.collect())) == Counter(map(tuple, expected.collect()))
    finally:
        spark.conf.unset(key)


# calls sqlglot reads with a syntax of its own, written as plain calls with a number of
# arguments Spark does not take: Spark's parser reads a call, its analyzer raises
# WRONG_NUM_ARGS (sqlglot raised a syntax error); with a real syntax error beside, or the
# call's own syntax, Spark's parser raises
WRONG_ARITY = [
    ("SELECT trim() AS v FROM t", "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"),
    ("SELECT upper(trim(s, 'a', 'b')) AS v FROM t", "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"),
    ("SELECT if(num > 1, 1, 2, 3) AS v FROM t", "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"),
    ("SELECT cast(num) AS v FROM t", "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"),
    ("SELECT overlay(s) AS v FROM t", "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"),
    ("SELECT 1 AS a,\n  coalesce(overlay(s, 'x'), s) AS v FROM t", "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"),
    ("SELECT cast() AS v FROM t", "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"),
    ("SELECT extract() AS v FROM t", "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"),
    ("SELECT extract(num, dt, s) AS v FROM t", "WRONG_NUM_ARGS.WITHOUT_SUGGESTION"),
    ("SELECT cast('10' AS int, '10' AS int) AS v FROM t", None),
    ("SELECT trim() +* 2 AS v FROM t", None),
    ("SELECT trim(BOTH FROM) AS v FROM t", None),
]


@pytest.mark.parametrize("sql, condition", WRONG_ARITY)
def test_a_wrong_number_of_arguments_is_spark_s_error(spark, tables, sql, condition):
    """sparkfold rejects each with the class Spark raises (None: sparkfold's syntax error,
    where Spark's parser raises PARSE_SYNTAX_ERROR), at the call's position."""
    from sparkfold.plans.ir.errors import ParseError
    from tests.data import STANDARD_SCHEMA
    from tests.spark_check import run_or_error

    assert run_or_error(spark, sql) == ("error", condition or "PARSE_SYNTAX_ERROR")
    with pytest.raises(ParseError) as raised:
        optimize(sql, STANDARD_SCHEMA)
    assert raised.value.error_class == condition
    if condition is not None:
        name = raised.value.detail.split("`")[1]
        assert sql.splitlines()[raised.value.line - 1][raised.value.column - 1:].lower().startswith(name)
