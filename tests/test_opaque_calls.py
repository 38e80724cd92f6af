"""A function sparkfold does not model is opaque where it stands: its arguments are
still rewritten (issue 36, item 1).  A generated query such as splink's
`POWER(2D, -(CAST(-0.92 AS DOUBLE) + x))` or a UDF over `coalesce(x, NULL)` gets its
arguments folded; the call itself, its name and its type stay Spark's.  Each query runs
on Spark as written and as optimized, on the SQL and the DataFrame paths (`verify`)."""

from __future__ import annotations

import pytest
from sparkfold import optimize

from tests.data import STANDARD_SCHEMA

# (query, a piece of the optimized SQL that shows the arguments rewritten)
CASES = [
    ("SELECT num, power(2D, -(CAST(-0.92 AS DOUBLE) + x)) AS p FROM t", "power(2D, -(-0.92D + x))"),
    ("SELECT num, soundex(coalesce(s, NULL)) AS code FROM t", "soundex(s)"),
    # (an argument folded to an integral literal keeps its form: Spark may type the call
    # after the literal's digits, `rules/base.py` _typed_rebuild)
    ("SELECT num, nvl2(x, 1 + 1, NULL + 1) AS v FROM t", "nvl2(x, 1 + 1, CAST(NULL AS INT))"),
    ("SELECT num, try_add(b, 2 * 3) AS v, bit_count(b + (10 - 10)) AS w FROM t", "bit_count(b + 0L)"),
    ("SELECT s, max_by(num, coalesce(x, NULL)) AS m FROM t GROUP BY s", "max_by(num, x)"),
    ("SELECT num, percent_rank() OVER (PARTITION BY coalesce(s, NULL) ORDER BY num) AS r FROM t",
     "PARTITION BY s"),
    ("SELECT num FROM t WHERE levenshtein(s, 'a' || 'b') < 1 + 1", "levenshtein(s, 'ab') < 2"),
]


@pytest.mark.parametrize("sql, shown", CASES)
def test_an_unmodelled_calls_arguments_are_rewritten_and_the_results_stay_sparks(spark, tables, sql, shown):
    result = optimize(sql, STANDARD_SCHEMA)
    assert result.passthrough is None and shown in result.sql, result.sql
    report = result.verify(spark)
    assert report.equal, report.to_text()


@pytest.mark.parametrize("sql, optimized", [
    # a name sparkfold knows: the column keeps it
    ("SELECT soundex(coalesce(s, NULL)), num FROM t WHERE num > 1 + 1",
     "SELECT soundex(s) AS `soundex(coalesce(s, NULL))`, num FROM t WHERE num > 2"),
    # a name only Spark knows: that call is kept as written, the rest of the query is
    # still optimized
    ("SELECT aes_encrypt(coalesce(s, NULL), s), num FROM t WHERE num > 1 + 1",
     "SELECT aes_encrypt(coalesce(s, NULL), s), num FROM t WHERE num > 2"),
    ("SELECT num FROM t WHERE aes_encrypt(coalesce(s, NULL), s) IS NOT NULL",
     "SELECT num FROM t WHERE aes_encrypt(s, s) IS NOT NULL"),
])
def test_an_unmodelled_call_unaliased_keeps_sparks_column_name(spark, tables, sql, optimized):
    """Spark names `soundex(coalesce(s, NULL))` after the text as written: its argument
    rewritten, the column keeps that name."""
    result = optimize(sql, STANDARD_SCHEMA)
    assert result.sql == optimized
    def columns(q):  # (name, type, nullability: a field's metadata, such as Spark's mark
        return [(f.name, f.dataType, f.nullable) for f in spark.sql(q).schema]  # of a generated alias, aside)

    assert columns(result.sql) == columns(sql)
    report = result.verify(spark)
    assert report.equal, report.to_text()


# Spark analyzes a whole query before it optimizes: a call it rejects (the wrong number
# of arguments, an argument of the wrong type, a function that does not exist) fails the
# query even where no row reaches it.  sparkfold does not model these calls, so it cannot
# know; a rewrite that would leave one out is not kept (optimizer/validate.py), and the
# rest of the query is still optimized.
SPARK_REJECTS = [
    "SELECT num FROM t WHERE FALSE AND abs(1, 2) > 0 AND num > 1 + 1",
    "SELECT num FROM t WHERE num IS NULL AND ascii(array(num)) > 0",
    "SELECT num FROM t WHERE TRUE OR no_such_function(num) > 0",
    "SELECT CASE WHEN 1 = 1 THEN num ELSE length(s, s) END AS c FROM t",
    "SELECT num FROM t WHERE s = NULL AND soundex(array(s)) = 'a'",
]


@pytest.mark.parametrize("sql", SPARK_REJECTS)
def test_a_call_spark_rejects_is_not_optimized_away(spark, tables, sql):
    from tests.spark_check import run_or_error

    result = optimize(sql, STANDARD_SCHEMA)
    original, optimized = run_or_error(spark, sql), run_or_error(spark, result.sql)
    assert original[0] == "error", original  # (the space: queries Spark rejects)
    assert optimized == original, result.sql


def test_an_error_inside_an_unmodelled_calls_argument_survives(spark, tables):
    """Under ANSI the cast of 'n/a' raises inside soundex's argument, which the rules
    rewrite around it (`1 = 1` goes); the optimized query raises the same error."""
    from tests.spark_check import run_or_error

    sql = "SELECT num, soundex(CAST(CAST('n/a' AS INT) + (1 - 1) AS STRING)) AS c FROM t WHERE 1 = 1"
    result = optimize(sql, STANDARD_SCHEMA)
    assert "WHERE" not in result.sql, result.sql
    original, optimized = run_or_error(spark, sql), run_or_error(spark, result.sql)
    assert original == ("error", "CAST_INVALID_INPUT") and optimized == original, result.sql
