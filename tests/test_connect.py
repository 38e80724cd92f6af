"""Lowering and verification through a Spark Connect session.

`tests.connect_server.connect_session` starts a local Spark Connect server from the
installed package, on a free port (not the fixed 15002 of `remote("local[2]")`, which
fails when another Spark runs on the machine).  A classic session (the test suite's) and a Connect session do not mix
in one process (pyspark picks the Column implementation per process), so the Connect
side runs in a subprocess that prints its findings as JSON."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.connect]  # a Spark Connect server, in a subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = r'''
import json, sys
sys.path.insert(0, ROOT)
from tests.connect_server import connect_session
spark = connect_session("local[2]")
out = {"session": type(spark).__module__}
try:
    from sparkfold import optimize
    from sparkfold.plans.ir import expressions as E
    from sparkfold.plans.pyspark.to_pyspark import run_code, to_pyspark_code
    from sparkfold.rules.base import Rule, transform_expressions
    from tests.data import register_standard_tables

    tables = register_standard_tables(spark)
    queries = [
        "SELECT s, count(*) AS c, sum(x) AS sx FROM t WHERE num > 2 GROUP BY s ORDER BY c DESC, s NULLS FIRST",
        "SELECT t.num, u.y FROM t FULL JOIN u ON t.num <=> u.num",
        "SELECT num FROM t WHERE num NOT IN (SELECT num FROM u) OR EXISTS (SELECT 1 FROM u WHERE u.num = t.num)",
        "SELECT num, (SELECT max(y) FROM u WHERE u.num = t.num) AS m FROM t WHERE num IN (SELECT k FROM n)",
        "SELECT s FROM t INTERSECT ALL SELECT s FROM u",
    ]
    out["queries"] = []
    for q in queries:
        report = optimize(q, tables, always_regenerate=True).verify(spark)
        out["queries"].append({"sql": q, "equal": report.equal, "rows": report.reference.rows,
                               "candidates": [[s.name, s.rows, s.error, s.method] for s in report.candidates],
                               "text": report.to_text()})
    flip = Rule("FlipComparison", lambda plan, ctx: transform_expressions(
        plan, lambda e: E.LessThanOrEqual(e.left, e.right) if isinstance(e, E.GreaterThan) else e))
    wrong = optimize("SELECT num, s FROM t WHERE num > 7", tables, rules=[flip]).verify(spark)
    out["wrong"] = {"equal": wrong.equal,
                    "only_in_reference": [sorted(map(repr, c.only_in_reference)) for c in wrong.comparisons]}
    df = run_code(to_pyspark_code(optimize(queries[2], tables)), spark)
    out["dataframe_module"] = type(df).__module__
    out["dataframe_rows"] = df.count()
    # --schema sc://...: another client (the CLI, in its own process) reads a table's
    # schema from the server; temp views are per session, so a table
    import subprocess
    from tests import connect_server
    spark.sql("CREATE TABLE sf_remote USING parquet AS SELECT id, CAST(id AS STRING) AS label FROM range(3)")
    out["remote_location"] = [r[1] for r in spark.sql("DESCRIBE TABLE EXTENDED sf_remote").collect()
                              if r[0] == "Location"]
    cli = [sys.executable, "-m", "sparkfold.optimizer.cli"]
    runs = {}
    for key, q in {"ok": "SELECT count(label) FROM sf_remote WHERE label = NULL OR id > 1",
                   "unknown": "SELECT nope FROM sf_remote"}.items():
        p = subprocess.run(cli + ["optimize", q, "--schema", connect_server.URL], capture_output=True,
                           text=True, timeout=300)
        runs[key] = {"code": p.returncode, "out": p.stdout, "err": p.stderr[-2000:]}
    bad = subprocess.run(cli + ["optimize", "SELECT 1", "--schema", "sc://127.0.0.1:1"], capture_output=True,
                         text=True, timeout=300)
    runs["unreachable"] = {"code": bad.returncode, "out": bad.stdout, "err": bad.stderr[-2000:]}
    out["remote"] = runs
finally:
    spark.stop()
print("RESULT " + json.dumps(out))
'''


@pytest.fixture(scope="module")
def connect_run():
    env = dict(os.environ, PYTHONPATH=ROOT, PYSPARK_PYTHON=sys.executable)
    # Spark Connect's default port is held during the run, as another Spark on the
    # machine would: the session must not depend on it.
    with contextlib.ExitStack() as stack:
        blocker = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
        with contextlib.suppress(OSError):
            blocker.bind(("127.0.0.1", 15002))
            blocker.listen(1)
        proc = subprocess.run([sys.executable, "-c", f"ROOT = {ROOT!r}\n" + SCRIPT], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=900)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert lines, f"the Connect run printed no result (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
    return json.loads(lines[-1][len("RESULT "):])


def test_runs_on_a_spark_connect_session(connect_run):
    assert connect_run["session"].startswith("pyspark.sql.connect")
    assert connect_run["dataframe_module"].startswith("pyspark.sql.connect")


def test_lowering_and_verification_agree_through_connect(connect_run, spark, tables):
    for q in connect_run["queries"]:
        assert q["equal"], q["text"]
        run = [(rows, err) for _, rows, err, method in q["candidates"] if method != "same text as the original"]
        assert len(run) >= 1 and all(err is None and rows == q["rows"] for rows, err in run), q["text"]
        assert q["rows"] == spark.sql(q["sql"]).count()  # what the classic session says


def test_wrong_rule_is_caught_through_connect(connect_run):
    assert connect_run["wrong"]["equal"] is False
    for rows in connect_run["wrong"]["only_in_reference"]:
        assert rows == ["(10, 'd')", "(8, 'b')", "(9, None)"]


def test_lowered_program_runs_on_connect(connect_run):
    assert connect_run["dataframe_rows"] == 3


def test_schema_from_a_spark_connect_url(connect_run):
    """`--schema sc://host:port` reads the tables' schemas from the server."""
    runs = connect_run["remote"]
    assert runs["ok"]["code"] == 0, runs["ok"]["err"]
    assert "label = NULL" not in runs["ok"]["out"] and "sf_remote" in runs["ok"]["out"], runs["ok"]["out"]
    assert runs["unknown"]["code"] == 2 and "nope" in runs["unknown"]["err"], runs["unknown"]
    assert runs["unreachable"]["code"] == 2, runs["unreachable"]
    assert "sc://127.0.0.1:1" in runs["unreachable"]["err"] and "Traceback" not in runs["unreachable"]["err"]


def test_connect_tables_stay_out_of_the_checkout(connect_run):
    """The server's table lives in a warehouse of its own, removed with the server: one
    in `spark-warehouse/` under the checkout made every later run fail at CREATE TABLE."""
    [location] = connect_run["remote_location"]
    path = location.removeprefix("file:")
    assert "sparkfold-connect-warehouse-" in path and not path.startswith(ROOT), location
    assert not os.path.exists(path), f"{path} outlived the server"
