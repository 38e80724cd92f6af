"""Functions the optimizer does not model keep their text, and get Spark's result type.

Such a call is opaque (no rule reasons about its value), but the operators around it
and explain need its type: `to_date(s)` is a date, not `unknown`.  Every function of
the table is called here and its type compared with the one Spark gives the column;
window functions too (their own arguments, not the window's PARTITION BY, decide)."""

from __future__ import annotations

import pytest
from sparkfold import optimize
from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import types as T
from sparkfold.plans.ir.functions import OPAQUE_RESULT_TYPES
from sparkfold.plans.sql_in.catalog import Catalog

from tests.spark_check import names_and_types

COLUMNS = {"s": "string", "d": "date", "ts": "timestamp", "i": "int", "x": "double", "a": "array<int>"}
CALLS = {
    "to_date": "to_date(s)", "trunc": "trunc(d, 'MM')", "last_day": "last_day(d)", "add_months": "add_months(d, 2)",
    "next_day": "next_day(d, 'Mon')", "date_trunc": "date_trunc('MONTH', ts)", "to_timestamp": "to_timestamp(s)",
    "date_format": "date_format(d, 'yyyy')", "from_unixtime": "from_unixtime(i)", "concat_ws": "concat_ws('-', s, s)",
    "regexp_replace": "regexp_replace(s, 'a', 'b')", "regexp_extract": "regexp_extract(s, '(a)', 1)",
    "lpad": "lpad(s, 5, '*')", "rpad": "rpad(s, 5, '*')", "md5": "md5(s)", "sha1": "sha1(s)", "sha2": "sha2(s, 256)",
    "initcap": "initcap(s)", "translate": "translate(s, 'a', 'b')", "format_number": "format_number(x, 2)",
    "base64": "base64(s)", "hex": "hex(i)", "dayofweek": "dayofweek(d)", "weekofyear": "weekofyear(d)",
    "quarter": "quarter(d)", "hour": "hour(ts)", "minute": "minute(ts)", "second": "second(ts)", "size": "size(a)",
    "instr": "instr(s, 'a')", "locate": "locate('a', s)", "months_between": "months_between(ts, ts)",
    "unix_timestamp": "unix_timestamp(ts)", "split": "split(s, ',')", "array_contains": "array_contains(a, i)",
}
WINDOWS = ["lag(x) OVER (PARTITION BY i ORDER BY d)", "lead(s, 2) OVER (PARTITION BY i ORDER BY d)",
           "lag(x, 1, 0D) OVER (PARTITION BY s ORDER BY d)", "row_number() OVER (PARTITION BY s ORDER BY d)"]


def test_every_function_of_the_table_is_called_here():
    assert set(CALLS) == set(OPAQUE_RESULT_TYPES)


@pytest.fixture(scope="module")
def view(spark):
    spark.sql("SELECT 'a,b' AS s, DATE'2024-01-31' AS d, TIMESTAMP'2024-01-31 10:00:00' AS ts, 3 AS i, "
              "1.5D AS x, array(1, 2) AS a").createOrReplaceTempView("ot")
    return {"ot": COLUMNS}


@pytest.mark.parametrize("call", list(CALLS.values()) + WINDOWS)
def test_opaque_call_has_sparks_type(spark, view, call):
    sql = f"SELECT {call} AS v FROM ot"
    r = optimize(sql, view)
    out = r.analyzed.output[0]
    assert out.data_type != T.UNKNOWN
    assert out.data_type.simple_string() == names_and_types(spark.sql(sql))[0][1]
    assert any(isinstance(n, E.Opaque) for n in r.analyzed.expressions[0].walk()) or "OVER" in call


# Under spark.sql.timestampType=TIMESTAMP_NTZ the name TIMESTAMP and to_timestamp's result
# are TIMESTAMP_NTZ; the other functions' types, and TIMESTAMP_LTZ, stay as they were
NTZ_CALLS = [CALLS["to_timestamp"], "to_timestamp(s, 'yyyy')", CALLS["date_trunc"], CALLS["unix_timestamp"],
             "CAST(s AS TIMESTAMP)", "CAST(s AS TIMESTAMP_LTZ)", "TIMESTAMP '2020-01-01 10:00:00'",
             "CAST(array(d) AS ARRAY<TIMESTAMP>)", "coalesce(CAST(NULL AS TIMESTAMP), CAST(d AS TIMESTAMP))"]


@pytest.mark.parametrize("call", NTZ_CALLS)
def test_types_under_a_session_whose_timestamp_is_ntz(spark, view, call):
    sql = f"SELECT {call} AS v FROM ot"
    spark.conf.set("spark.sql.timestampType", "TIMESTAMP_NTZ")
    try:
        expected = names_and_types(spark.sql(sql))[0][1]
    finally:
        spark.conf.unset("spark.sql.timestampType")
    catalog = Catalog.from_mapping(view).with_settings(timestamp_ntz=True)
    assert optimize(sql, catalog).analyzed.output[0].data_type.simple_string() == expected
