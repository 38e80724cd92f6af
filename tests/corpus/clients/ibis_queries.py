"""ibis's PySpark backend, run for real: a workload typical of ibis users
(ibis_workload.py), the TPC-H and TPC-DS queries ibis's own test suite writes with ibis
(ibis/backends/tests/tpc/{h,ds}/test_queries.py, installed with ibis), each executed on
Spark over the corpus's small random tables (tests/tpc.py), and the query of
tests/test_ibis_backend.py.  ibis compiles each to Spark SQL and sends it
through `spark.sql`, where sparkfold's hook sits."""

from __future__ import annotations

import importlib
import inspect
import sys


def _queries(suite: str):
    """(name, function building the ibis expression from its tables) of ibis's TPC suite."""
    mod = importlib.import_module(f"ibis.backends.tests.tpc.{suite}.test_queries")
    for name in sorted(n for n in dir(mod) if n[5:].isdigit() and n.startswith("test_")):
        fn = getattr(mod, name)
        yield f"tpc{suite}/{name[5:]}", getattr(fn, "__wrapped__", fn)


def _workload(spark) -> None:
    import ibis

    from . import ibis_workload

    ibis_workload.register(spark)
    con = ibis.pyspark.connect(spark)
    failed = []
    for name, expr in ibis_workload.queries(*(con.table(t) for t in ibis_workload.SCHEMAS)):
        try:
            con.execute(expr)
        except Exception as e:  # noqa: BLE001 - ibis or Spark cannot run it: what was sent is kept
            failed.append(f"{name}: {type(e).__name__}: {str(e).strip().splitlines()[0][:120] if str(e).strip() else ''}")
    if failed:
        print(f"ibis workload: {len(failed)} queries did not run:\n  " + "\n  ".join(failed), file=sys.stderr)


def run(spark, budget: float = 300.0) -> None:
    """The workload, then ibis's TPC queries until `budget` seconds have gone (those left
    are said, not run: a capture on a loaded machine stays within its time)."""
    import time

    import ibis

    from tests import tpc

    t0 = time.time()
    _workload(spark)
    spark.createDataFrame([(1, 10, 5), (2, 11, 7), (3, 99, 1), (4, None, 2)],
                          "id int, cust int, amount int").createOrReplaceTempView("ib_orders")
    spark.createDataFrame([(10, "a", 3), (11, "b", None), (12, "c", -1)],
                          "cid int, name string, score int").createOrReplaceTempView("ib_customers")
    con = ibis.pyspark.connect(spark)
    o, c = con.table("ib_orders"), con.table("ib_customers")
    (o.left_join(c, o.cust == c.cid).filter(c.score > 0).select("id", "name", "score").order_by("id")).to_pandas()
    o.group_by("cust").aggregate(total=o.amount.sum(), n=o.count()).filter(lambda t: t.total > 1).to_pandas()

    for suite, corpus in (("h", "tpch"), ("ds", "tpcds")):
        for table, columns in tpc.register_random(spark, corpus, rows=60).items():
            # the corpus keeps dates as strings; ibis's queries compare them with dates
            dates = [c for c, t in columns.items() if c.endswith("date") and t == "string"]
            if dates:
                df = spark.table(table)
                df = df.withColumns({c: df[c].cast("date") for c in dates})
                spark.createDataFrame(df.collect(), df.schema).createOrReplaceTempView(table)
        con = ibis.pyspark.connect(spark)
        failed, left = [], []
        for name, build in _queries(suite):
            if time.time() - t0 > budget:
                left.append(name)
                continue
            try:
                tables = {p: con.table(p) for p in inspect.signature(build).parameters}
                con.to_pandas(build(**tables))
            except Exception as e:  # noqa: BLE001 - ibis or Spark cannot run it: what was sent is kept
                failed.append(f"{name}: {type(e).__name__}: {str(e).strip().splitlines()[0][:120] if str(e).strip() else ''}")
        if failed:
            print(f"ibis {corpus}: {len(failed)} queries did not run:\n  " + "\n  ".join(failed), file=sys.stderr)
        if left:
            print(f"ibis {corpus}: {len(left)} queries left out (over {budget:.0f} s): {', '.join(left)}",
                  file=sys.stderr)
