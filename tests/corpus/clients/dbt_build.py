"""dbt, run for real: tests/dbt_project built with `sparkfold run -- dbt build` in
dbt-spark's session mode (as tests/test_dbt.py builds it), in a temporary directory.
dbt's process creates its own SparkSession and sends every statement through
`spark.sql`, where sparkfold's hook sits; a `sitecustomize` chained by `sparkfold run`
hands each to a Recorder (record.py), which writes them when dbt's process ends."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
PROJECT = REPO / "tests" / "dbt_project"

RECORDER = textwrap.dedent("""
    import atexit, os, sys
    sys.path.insert(0, {repo!r})
    from sparkfold.optimizer import autohook
    from tests.corpus.clients.record import Recorder

    _recorder = autohook.on_query(Recorder("dbt"))
    atexit.register(lambda: _recorder.write(os.environ["SPARKFOLD_CLIENT_RECORDS"]))
""")


def capture(out: str) -> int:
    """Build the project through the hook; append its statements to `out`; how many."""
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        project = tmp / "project"
        shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns("target", "logs"))
        boot = tmp / "recorder"
        boot.mkdir()
        (boot / "sitecustomize.py").write_text(RECORDER.format(repo=str(REPO)))
        records = tmp / "records.jsonl"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARKFOLD", "DBT_"))}
        env.update({
            "DBT_PROFILES_DIR": str(project), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
            "SPARKFOLD_DBT_WAREHOUSE": str(tmp / "warehouse"), "PYSPARK_PYTHON": sys.executable,
            "SPARKFOLD_CLIENT_RECORDS": str(records),
            "PYTHONPATH": os.pathsep.join([str(boot)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])),
        })
        dbt = [sys.executable, "-m", "sparkfold.optimizer.cli", "run", "--",
               str(Path(sys.executable).parent / "dbt"), "build", "--project-dir", str(project),
               "--target-path", str(tmp / "target"), "--log-path", str(tmp / "logs")]
        proc = subprocess.run(dbt, cwd=tmp, env=env, capture_output=True, text=True, timeout=900)
        if proc.returncode != 0 or not records.is_file():
            raise RuntimeError("dbt build failed:\n" + proc.stdout[-3000:] + proc.stderr[-3000:])
        text = records.read_text(encoding="utf-8")
    with open(out, "a", encoding="utf-8") as f:
        f.write(text)
    return len(text.splitlines())
