"""The spark.sql hook in a PySpark job: every query is optimized before Spark sees it.

    python examples/spark_sql_hook.py

`install(spark)` replaces `spark.sql` on this one session; schemas and nullability are
read from the session.  Parameter markers (`:name`, `?`) and `{name}` formatting keep
working.  If sparkfold fails on a query, the original SQL runs and a warning is logged
(`strict=True` raises instead); a query with the comment /* sparkfold:off */ is left alone.
"""

from __future__ import annotations

import logging
import os
import sys
from decimal import Decimal

from pyspark.sql import SparkSession
from sparkfold.optimizer.hooks import install

QUERIES = [
    ("SELECT status, count(id) AS orders FROM orders WHERE amount > :min GROUP BY status",
     {"min": 0}),
    ("SELECT id FROM orders WHERE status = ? OR customer_id = NULL", ["open"]),
    ("SELECT count(DISTINCT (customer_id = NULL)) AS n FROM orders", None),
    ("SELECT /* sparkfold:off */ count(id) AS n FROM orders", None),
]


def main() -> None:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    spark = (SparkSession.builder.master("local[2]").appName("sparkfold hook example")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    rows = [(1, 10, Decimal("25.00"), "open"), (2, None, Decimal("7.50"), "closed"),
            (3, 10, None, None), (4, 12, Decimal("120.00"), "open")]
    spark.createDataFrame(rows, "id bigint not null, customer_id bigint, amount decimal(15,2), "
                                "status string").createOrReplaceTempView("orders")

    before = [sorted(spark.sql(sql, args=args).collect()) for sql, args in QUERIES]
    with install(spark) as hook:  # uninstalled when the block ends
        for (sql, args), expected in zip(QUERIES, before):
            got = sorted(spark.sql(sql, args=args).collect())
            print(f"query:    {sql}")
            print(f"sent:     {hook.last_sql}")
            print(f"rules:    {', '.join(r.rule for r in hook.trace or []) or 'none'}")
            print(f"result:   {[tuple(r) for r in got]} ({'same' if got == expected else 'DIFFERENT'})\n")
            assert got == expected
    assert "sql" not in vars(spark)  # the session's own spark.sql is back
    spark.stop()


if __name__ == "__main__":
    main()
