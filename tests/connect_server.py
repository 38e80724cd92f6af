"""A local Spark Connect session on a free port, for tests that need one.

`SparkSession.builder.remote("local[n]")` starts its server on the fixed port 15002
(PySpark picks another only under SPARK_TESTING), so a second Spark on the machine makes
it fail.  Here the server is a classic session with the Connect plugin in a child
process, bound to a port the OS just handed out, and the client connects to that port.
(PySpark refuses a remote session in a process that runs a classic one.)"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import sys
import tempfile

_SERVER = r'''
import sys
from pyspark.sql import SparkSession
port, master, warehouse = sys.argv[1], sys.argv[2], sys.argv[3]
(SparkSession.builder.master(master)
 .config("spark.plugins", "org.apache.spark.sql.connect.SparkConnectPlugin")
 .config("spark.connect.grpc.binding.address", "127.0.0.1")
 .config("spark.connect.grpc.binding.port", port)
 .config("spark.ui.enabled", "false")
 .config("spark.sql.shuffle.partitions", "2")
 .config("spark.sql.session.timeZone", "UTC")
 .config("spark.sql.warehouse.dir", warehouse)
 .getOrCreate())
print("READY", flush=True)
sys.stdin.read()  # serve until the parent closes our stdin (or dies)
'''


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def connect_session(master: str = "local[2]", timeout: float = 300):
    """A Spark Connect session on a server this process starts on a free local port; the
    server stops when this process exits.  Tables the session creates go to a warehouse
    folder of its own, removed with the server (not `spark-warehouse/` in the working
    directory, where a second run would find them)."""
    from pyspark.sql import SparkSession

    port = free_port()
    warehouse = tempfile.mkdtemp(prefix="sparkfold-connect-warehouse-")
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    server = subprocess.Popen([sys.executable, "-c", _SERVER, str(port), master, warehouse], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)

    def stop():
        if server.poll() is None:
            server.stdin.close()
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(warehouse, ignore_errors=True)

    atexit.register(stop)
    line = server.stdout.readline()
    if not line.startswith("READY"):
        stop()
        raise RuntimeError(f"the Spark Connect server did not start (exit {server.poll()})")
    global URL
    URL = f"sc://127.0.0.1:{port}"
    return SparkSession.builder.remote(URL).getOrCreate()


URL = ""  # the last server's, for a second client (`sparkfold --schema sc://...`)
