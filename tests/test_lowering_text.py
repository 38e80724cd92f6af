"""What a DataFrame program still runs as SQL text is named, by construct, in its comment
(plans/pyspark/text_reasons.py), which the sql-tests harness counts (no Spark here; the
lowerings that replaced text are checked on Spark in tests/test_lowering.py)."""

from __future__ import annotations

import pytest
from sparkfold.optimizer import optimize
from sparkfold.plans.pyspark.to_pyspark import to_pyspark_code

from tests.data import STANDARD_SCHEMA
from tests.sqltests.check import _text_reasons

# and what stays text is named in the program's comment
STILL_TEXT = {
    "SELECT s, max(b) AS m FROM t GROUP BY s, ROLLUP (p)": "# SQL text (spark.sql): GROUP BY ROLLUP",
    "SELECT max(x) OVER (ORDER BY num RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) AS m FROM t":
        "# SQL text (F.expr): window function max() OVER",
    "SELECT avg(DISTINCT x) AS a FROM t": "# SQL text (F.expr): aggregate avg(DISTINCT)",
    # (the DataFrame API checks this frame itself, with another error than Spark's for the text)
    "SELECT count(x) OVER (PARTITION BY s ROWS BETWEEN UNBOUNDED FOLLOWING AND 1 FOLLOWING) AS c FROM t":
        "# SQL text (F.expr): window function count() OVER",
    # three arguments: a syntax of Spark's grammar (timestampadd / timestampdiff), which a
    # call of the registry's function does not give (its error is WRONG_NUM_ARGS)
    "SELECT date_add(s, 1, 1) AS d, datediff(s, s, s) AS e, dateadd(s, 1) AS f FROM t":
        "# SQL text (F.expr): date_add(); datediff()",
    # an inline table of maps (createDataFrame would need their types spelled out)
    "SELECT count(*) AS c FROM VALUES (map(1, 2)), (map(2, 3)) AS v(a) GROUP BY a":
        "# SQL text (spark.sql): VALUES kept as text (a value sparkfold does not type or evaluate, or a column of "
        "an array, map, struct or interval type)",
}


@pytest.mark.parametrize("sql", STILL_TEXT, ids=range(len(STILL_TEXT)))
def test_what_stays_text_is_named(sql):
    assert STILL_TEXT[sql] in to_pyspark_code(optimize(sql, STANDARD_SCHEMA)).splitlines()



def test_harness_counts_the_constructs_named():
    code = to_pyspark_code(optimize("SELECT s, max(b) AS m, avg(DISTINCT x) AS a FROM t GROUP BY s, ROLLUP (p)",
                                    STANDARD_SCHEMA))
    assert _text_reasons(code) == ["spark.sql: GROUP BY ROLLUP"]
    code = to_pyspark_code(optimize("SELECT max(x) OVER (ORDER BY num RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) AS m, "
                                    "1.5 AS d FROM t", STANDARD_SCHEMA))
    assert _text_reasons(code) == ["F.expr: window function max() OVER", "F.expr: literal: a DECIMAL value"]
