"""Verify optimized queries on Parquet data.

    python examples/verify_parquet.py [DATA_DIR]

Writes a small orders/customers dataset (with NULLs) as Parquet files into DATA_DIR (a
temporary folder by default), then, for every query in examples/queries/, optimizes it
against examples/schema.json and lets Spark run the original and the optimized query
and compare the results.  The same check from the command line:

    sparkfold verify -f examples/queries --schema examples/schema.json \\
        --table orders=DATA_DIR/orders.parquet --table customers=DATA_DIR/customers.parquet
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
import tempfile
from decimal import Decimal
from pathlib import Path

from pyspark.sql import SparkSession
from sparkfold.optimizer import optimize
from sparkfold.optimizer.verify import declare_not_null
from sparkfold.plans.sql_in.catalog import Catalog

HERE = Path(__file__).parent
SCHEMA = json.loads((HERE / "schema.json").read_text())

ORDERS = [(1, 10, Decimal("25.00"), "open", dt.date(2024, 1, 2)),
          (2, None, Decimal("7.50"), "closed", dt.date(2024, 1, 3)),
          (3, 10, None, None, dt.date(2024, 1, 4)),
          (4, 12, Decimal("120.00"), "open", dt.date(2024, 1, 5)),
          (5, 11, Decimal("300.00"), None, dt.date(2024, 1, 6))]
CUSTOMERS = [(10, "Ada", "UK"), (11, "Grace", None), (12, "Edsger", "NL")]


def ddl(table: str) -> str:
    return ", ".join(f"{c} {t}" for c, t in SCHEMA[table].items())


def main(argv: list[str]) -> int:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    data = Path(argv[0]) if argv else Path(tempfile.mkdtemp(prefix="sparkfold-data-"))
    spark = (SparkSession.builder.master("local[2]").appName("sparkfold verify example")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    for name, rows in (("orders", ORDERS), ("customers", CUSTOMERS)):
        path = data / f"{name}.parquet"
        spark.createDataFrame(rows, ddl(name)).write.mode("overwrite").parquet(str(path))
        spark.read.parquet(str(path)).createOrReplaceTempView(name)
    # Spark types every column of a file nullable; the schema's NOT NULLs (which the
    # optimizer rests on, and types the optimized query by) are given to the views
    declare_not_null(spark, Catalog.from_mapping(SCHEMA), SCHEMA)
    print(f"data: {data}\n")

    differences = 0
    for path in sorted((HERE / "queries").rglob("*.sql")):
        for sql in filter(str.strip, path.read_text().split(";")):
            result = optimize(sql.strip(), SCHEMA)
            report = result.verify(spark)
            differences += not report.equal
            print(f"-- {path.relative_to(HERE)}\n{result.original_sql}\n=> {result.sql}")
            print(report.to_text() + "\n")
    spark.stop()
    print("all equal" if not differences else f"{differences} difference(s)")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
