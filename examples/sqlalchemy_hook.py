"""Optimize every statement a SQLAlchemy engine sends to Spark SQL, bind parameters untouched.

    python examples/sqlalchemy_hook.py [URL]

URL is the SQLAlchemy URL of a Spark Thrift server (a HiveServer2 endpoint), for example
`hive://localhost:10000/default` (PyHive's dialect: `pip install pyhive thrift thrift-sasl pure-sasl`).
Without a URL, the example starts a Spark Thrift server from the installed PySpark
(`spark-submit`, local[1], a free port, a temporary warehouse and metastore) for the run,
which takes 20 to 40 seconds, and stops it at the end.

The engine's event listener is the whole pattern: `sql_rewriter(catalog)` is a plain
`str -> str` function that returns its input unchanged when it cannot or need not optimize
it (DDL, INSERT, ...).  PyHive's paramstyle is pyformat, so SQLAlchemy turns `:min` into
`%(min)s` before the listener sees the statement; sparkfold keeps the marker, and PyHive
fills in the escaped value.  The queries are Spark SQL (`0.5D`, `0L`).  The orders table
is a temporary view: it lives in the connection's Spark session (each Thrift connection
has its own) and leaves nothing behind on the endpoint.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import sqlalchemy as sa
from sparkfold.optimizer.hooks import sql_rewriter

SCHEMA = json.loads((Path(__file__).parent / "schema.json").read_text())

ORDERS = """CREATE OR REPLACE TEMPORARY VIEW orders AS
SELECT CAST(id AS BIGINT) AS id, CAST(customer_id AS BIGINT) AS customer_id,
       CAST(amount AS DECIMAL(15,2)) AS amount, status, CAST(placed_on AS DATE) AS placed_on
FROM VALUES (1, 10, 25.0, 'open', '2024-01-02'), (2, NULL, 7.5, 'closed', '2024-01-03'),
            (3, 10, NULL, NULL, '2024-01-04'), (4, 12, 120.0, 'open', '2024-01-05')
  AS t(id, customer_id, amount, status, placed_on)"""

QUERIES = [
    ("SELECT status, count(id) AS orders FROM orders WHERE amount > :min "
     "GROUP BY status ORDER BY status", {"min": 10}),
    ("SELECT id FROM orders WHERE customer_id = :c AND amount = NULL", {"c": 10}),
    ("SELECT id, amount * 0.5D AS half, coalesce(customer_id, 0L) AS customer FROM orders "
     "WHERE placed_on IS NOT NULL AND amount > :min ORDER BY id", {"min": 5}),
]


def run(url: str) -> None:
    engine = sa.create_engine(url)
    rewrite = sql_rewriter(SCHEMA)
    sent: list[str] = []

    @sa.event.listens_for(engine, "before_cursor_execute", retval=True)
    def optimize_statement(conn, cursor, statement, parameters, context, executemany):
        statement = rewrite(statement)
        sent.append(statement)
        return statement, parameters  # the bind parameters go through as they are

    with engine.connect() as conn:  # one connection: one Spark session, which holds the view
        conn.execute(sa.text(ORDERS))
        for sql, params in QUERIES:
            rows = conn.execute(sa.text(sql), params).fetchall()
            print(f"query:  {sql}")
            print(f"sent:   {sent[-1]}")
            print(f"params: {params}")
            print(f"rows:   {[tuple(r) for r in rows]}\n")
    engine.dispose()


# -- not part of the pattern: a Spark Thrift server for this run, from the installed PySpark --

@contextlib.contextmanager
def local_thrift_server(timeout: float = 300):
    """Yield the URL of a Spark Thrift server started on a free port; stop it on the way out."""
    import pyspark

    spark_home = Path(pyspark.__file__).parent
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    print(f"no URL given: starting a Spark Thrift server on localhost:{port} for this run", flush=True)
    with tempfile.TemporaryDirectory(prefix="sparkfold-thrift-") as tmp:
        command = [
            spark_home / "bin" / "spark-submit", "--master", "local[1]",
            "--class", "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2",
            "--conf", f"spark.sql.warehouse.dir={tmp}/warehouse", "--conf", "spark.ui.enabled=false",
            "--driver-java-options", "-XX:TieredStopAtLevel=1",  # starts in half the time
            "--hiveconf", f"hive.server2.thrift.port={port}",
            "--hiveconf", "hive.server2.thrift.bind.host=127.0.0.1",
            "--hiveconf", f"javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName={tmp}/metastore_db;create=true",
            "spark-internal",
        ]
        with open(Path(tmp) / "server.log", "wb") as log:
            server = subprocess.Popen(command, cwd=tmp,  # Derby writes derby.log in the cwd
                                      stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                      start_new_session=True, env={**os.environ, "SPARK_HOME": str(spark_home)})
        try:
            deadline = time.monotonic() + timeout
            while True:  # until it accepts connections
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        log_tail = (Path(tmp) / "server.log").read_text(errors="replace")[-3000:]
                        raise RuntimeError(f"the Spark Thrift server did not start:\n{log_tail}") from None
                    time.sleep(1)
            yield f"hive://localhost:{port}/default"
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()


def main(argv: list[str]) -> None:
    if argv:
        run(argv[0])
    else:
        with local_thrift_server() as url:
            run(url)


if __name__ == "__main__":
    main(sys.argv[1:])
