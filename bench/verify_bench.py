"""Benchmark: verify a 10-million-row query without collecting it, against running it once.

    python bench/verify_bench.py [--rows 10000000] [--master local[2]] [--repeat 2]

The table is generated with `spark.range`; the query returns every row (a projection
and a filter), so collecting it would move ~10 million rows to the driver.  Printed:

- `once`: the original query run once, every row materialized and dropped (the `noop`
  data source), the cost of just running it;
- each side of `verify` (reference, optimized SQL, DataFrame): one pass each, computing
  a fingerprint of the rows inside Spark; `pass/once` is the price of fingerprinting;
- `verify`: the whole verification, and `verify/once`.

Verification runs at least two queries (the reference and a candidate), so `verify/once`
is bounded below by the number of sides run; the fingerprinting overhead of one pass
(`pass/once`) is the figure the 1.5x goal is about.  Best of `--repeat` runs each.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

QUERY = """
SELECT id, k, id * 2 AS twice, x / 3 AS third,
       CASE WHEN k % 7 = 0 THEN NULL ELSE coalesce(s, 'none') END AS label,
       nullif(k, 0) AS nz
FROM big
WHERE k <> 13 OR x IS NULL
"""


def session(master: str):
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master(master).appName("sparkfold-verify-bench")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "4").config("spark.driver.memory", "2g")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)

    from sparkfold.optimizer import optimize
    from sparkfold.optimizer.verify import verify

    spark = session(args.master)
    big = spark.range(args.rows).selectExpr(
        "id", "id % 1000 AS k", "CASE WHEN id % 11 = 0 THEN NULL ELSE CAST(id AS DOUBLE) * 0.5 END AS x",
        "CASE WHEN id % 5 = 0 THEN NULL ELSE concat('s', id % 97) END AS s")
    big.createOrReplaceTempView("big")
    result = optimize(QUERY, spark)
    print(f"query over spark.range({args.rows:,}):{QUERY.rstrip()}")
    print(f"optimized SQL: {result.sql}")

    def once():
        spark.sql(QUERY).write.format("noop").mode("overwrite").save()

    once()  # warm-up: code generation, class loading
    t_once = best(once, args.repeat)
    rows = spark.sql(QUERY).count()

    reports = []
    t_verify = best(lambda: reports.append(verify(result, spark)), args.repeat)
    report = reports[-1]
    assert report.equal, report.to_text()
    assert report.reference.rows == rows

    print(f"\nresult rows: {rows:,} (nothing collected: each side returns one fingerprint row)")
    print(f"once (original, all rows written to noop): {t_once:8.2f}s")
    for side in [report.reference] + report.candidates:
        if side.seconds is None:
            print(f"  {side.name:<14} not run ({side.method})")
            continue
        print(f"  {side.name:<14} one pass {side.seconds:8.2f}s   pass/once {side.seconds / t_once:5.2f}x")
    passes = sum(1 for s in [report.reference] + report.candidates if s.seconds is not None)
    print(f"verify (all {passes} passes, comparison included): {t_verify:8.2f}s   verify/once "
          f"{t_verify / t_once:5.2f}x   per pass {t_verify / passes / t_once:5.2f}x")
    print(report.to_text())
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
