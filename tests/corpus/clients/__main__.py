"""Capture the statements real clients send to Spark, through sparkfold's hook.

    python -m tests.corpus.clients [--out FILE.jsonl] [--only splink|ibis|dbt]...

Runs each client for real on a local Spark: splink (a deduplication model trained and
applied end to end), ibis's PySpark backend (TPC-H and TPC-DS queries written with ibis,
as its own test suite writes them), and dbt (tests/dbt_project built in dbt-spark's
session mode through `sparkfold run`).  Each statement is recorded with the schemas of
the tables it reads, the session functions it calls and the session's settings
(record.py), one line per distinct statement (`--only` replaces that client's lines and
keeps the others'); the repository carries the result
(statements.jsonl here), which `python -m tests.corpus.run --clients` checks without the
clients installed.  Needs the `clients` extra (`pip install -e ".[test,clients]"`)."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

from . import STATEMENTS

CLIENTS = ("splink", "ibis", "dbt")


def spark_session():
    """The test run's local session (tests/fuzz/run.py's settings), with splink's jar of
    Java UDFs (jaro_winkler, ...) when splink is installed, as splink's guide sets it up."""
    from tests.oracles.session import quiet

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from tests.fuzz.oracles import FAST_CONF

    b = (SparkSession.builder.master("local[2]").appName("sparkfold-clients")
         .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
         .config("spark.default.parallelism", "2").config("spark.sql.shuffle.partitions", "2")
         .config("spark.sql.session.timeZone", "UTC").config("spark.driver.memory", "2g"))
    try:
        from splink.backends.spark import similarity_jar_location

        b = b.config("spark.jars", similarity_jar_location())
    except ImportError:
        pass
    for k, v in FAST_CONF.items():
        b = b.config(k, v)
    quiet()
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("OFF")
    return spark


def _through_hook(spark, client: str, run) -> "Recorder":
    from sparkfold.optimizer.hooks import install

    from .record import Recorder

    recorder = Recorder(client, spark)
    hook = install(spark, on_query=recorder, report=False, history=0)
    t0 = time.time()
    try:
        run()
    except Exception as e:  # noqa: BLE001 - said; what was sent until then is kept
        print(f"{client}: {type(e).__name__}: {e}", file=sys.stderr)
    finally:
        hook.uninstall()
    print(f"{client}: {hook.queries} statements sent, {len(recorder.records)} distinct, "
          f"{time.time() - t0:.0f} s; sparkfold: {hook.summary()}", file=sys.stderr)
    return recorder


def _keep_others(path: str, clients) -> None:
    """Empty the file of the clients about to be captured, keeping the others' lines
    (`--only ibis` adds ibis's statements to splink's and dbt's)."""
    import json

    kept = []
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            kept = [line for line in f if json.loads(line)["client"] not in clients]
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(kept)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=STATEMENTS)
    ap.add_argument("--only", action="append", choices=CLIENTS)
    args = ap.parse_args(argv)
    clients = args.only or CLIENTS
    _keep_others(args.out, clients)
    if "dbt" in clients:  # in its own process (dbt makes its own session)
        from .dbt_build import capture as dbt_capture

        try:
            print(f"dbt: {dbt_capture(args.out)} distinct statements", file=sys.stderr)
        except Exception as e:  # noqa: BLE001 - said; the other clients still run
            print(f"dbt: {type(e).__name__}: {e}", file=sys.stderr)
    if set(clients) - {"dbt"}:
        spark = spark_session()
        with tempfile.TemporaryDirectory() as tmp:
            spark.sparkContext.setCheckpointDir(tmp)
            if "splink" in clients:
                from . import splink_model

                failed: list[str] = []
                _through_hook(spark, "splink", lambda: failed.extend(splink_model.run(spark))).write(args.out)
                if failed:  # the same steps without sparkfold: do they fail there too?
                    print("splink: steps that failed through the hook:\n  " + "\n  ".join(failed), file=sys.stderr)
                    plain = splink_model.run(spark)
                    print("splink: and without sparkfold:\n  " + "\n  ".join(plain or ["none"]), file=sys.stderr)
            if "ibis" in clients:
                from . import ibis_queries

                _through_hook(spark, "ibis", lambda: ibis_queries.run(spark)).write(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
