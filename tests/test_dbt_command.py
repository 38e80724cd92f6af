"""`sparkfold dbt`: a real dbt project (tests/dbt_project, dbt-core with dbt-spark in session
mode) is built and documented as a user would (`dbt build`, then `dbt docs generate`, in
one process: the session's in-memory catalog holds the tables for the docs), then linted
and pre-optimized from dbt's own artifacts: the compiled models and the not_null tests
in manifest.json, the column types in catalog.json.

Spark is the oracle: each model's optimized SQL returns what its compiled SQL returns,
over the tables the build wrote (registered from the warehouse's Parquet files) with
ANSI off, as dbt-spark runs.  Nothing lands in the repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("dbt.adapters.spark", reason="dbt-spark is not installed (the test extra)")

from tests.spark_check import assert_same_result  # noqa: E402
from tests.test_cli import sparkfold  # noqa: E402

pytestmark = [pytest.mark.spark, pytest.mark.timeout(900)]

PROJECT = Path(__file__).parent / "dbt_project"
SCHEMA = "sparkfold_demo"
BUILD_AND_DOCS = textwrap.dedent("""
    import sys
    from dbt.cli.main import dbtRunner

    args = ["--project-dir", "project", "--log-path", "logs"]
    runner = dbtRunner()
    for command in (["build"], ["docs", "generate"]):
        if not runner.invoke([*command, *args]).success:
            sys.exit(f"dbt {' '.join(command)} failed")
""")


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("dbt-docs")
    shutil.copytree(PROJECT, tmp / "project", ignore=shutil.ignore_patterns("target", "logs"))
    (tmp / "build.py").write_text(BUILD_AND_DOCS)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARKFOLD", "DBT_"))}
    env.update({"DBT_PROFILES_DIR": str(tmp / "project"), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
                "SPARKFOLD_DBT_WAREHOUSE": str(tmp / "warehouse"), "PYSPARK_PYTHON": sys.executable})
    proc = subprocess.run([sys.executable, "build.py"], cwd=tmp, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-5000:]
    return tmp / "project"


def test_models_are_linted_with_the_projects_facts(project, tmp_path):
    out = tmp_path / "optimized"
    proc = sparkfold("dbt", project, "--out", out)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # warnings at the default --fail-on
    compiled = f"target/compiled/{SCHEMA}/models"
    lines = proc.stdout.splitlines()
    # each finding at its place in the compiled model dbt wrote
    assert any(line.startswith(f"{compiled}/big_orders.sql:") and "[outer-join-not-outer]" in line for line in lines)
    assert any(line.startswith(f"{compiled}/customer_regions.sql:") and "[null-comparison]" in line for line in lines)
    assert any(line.startswith(f"{compiled}/customer_count.sql:3:8:") and "[count-never-null]" in line
               for line in lines), proc.stdout
    # NOT NULL from the not_null tests that fail the build; not from the severity: warn one
    summary = proc.stderr
    assert f"{SCHEMA}.customers.id (not_null test)" in summary and f"{SCHEMA}.orders.order_id (not_null test)" in summary
    assert "customer_id" not in summary
    # customers.id has a not_null test, name has none: only count(id) counts rows
    counted = (out / "models" / "customer_count.sql").read_text()
    assert "count(1) as customers, count(name) as named" in counted, counted
    # the models as written, the rewritten ones with just the rewrite applied
    joined = (out / "models" / "big_orders.sql").read_text()
    assert "\njoin sparkfold_demo.orders o on o.customer_id = c.id" in joined, joined
    for name in ("customers.sql", "orders.sql"):
        assert (out / "models" / name).read_text() == (project / compiled / name).read_text()


def test_optimized_models_return_what_the_compiled_ones_return(project, tmp_path, spark):
    out = tmp_path / "optimized"
    proc = sparkfold("dbt", project, "--out", out, "--fail-on", "never", "-q")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    manifest = json.loads((project / "target" / "manifest.json").read_text())
    models = {n["name"]: n for n in manifest["nodes"].values() if n["resource_type"] == "model"}
    warehouse = project.parent / "warehouse" / f"{SCHEMA}.db"
    old_ansi = spark.conf.get("spark.sql.ansi.enabled")
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {SCHEMA}")
    try:
        spark.conf.set("spark.sql.ansi.enabled", "false")  # dbt-spark's sessions
        for name in ("customers", "orders"):  # the tables the build wrote
            spark.sql(f"CREATE TABLE {SCHEMA}.{name} USING parquet LOCATION '{warehouse / name}'")
        spark.sql(f"CREATE OR REPLACE VIEW {SCHEMA}.big_orders AS {models['big_orders']['compiled_code']}")
        compared = 0
        for name, node in models.items():
            optimized = (out / node["original_file_path"]).read_text()
            if optimized != node["compiled_code"]:
                assert_same_result(spark, node["compiled_code"], optimized, context=name)
                compared += 1
        assert compared >= 5
    finally:
        spark.conf.set("spark.sql.ansi.enabled", old_ansi)
        spark.sql(f"DROP DATABASE IF EXISTS {SCHEMA} CASCADE")


def test_a_missing_manifest_is_compiled_by_dbt_in_process(project, tmp_path):
    """Without manifest.json, `sparkfold dbt` runs dbt's own compile (dbt-core's runner, in
    its process) and lints what it wrote: the same records as after `dbt build`."""
    built = sparkfold("dbt", project, "--fail-on", "never", "-q")
    copy = tmp_path / "project"
    shutil.copytree(project, copy, ignore=shutil.ignore_patterns("logs", "run_results.json", "manifest.json"))
    env = {"SPARKFOLD_DBT_WAREHOUSE": str(tmp_path / "warehouse"), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
           "PYSPARK_PYTHON": sys.executable}
    proc = subprocess.run([sys.executable, "-m", "sparkfold.optimizer.cli", "dbt", str(copy), "--fail-on", "never",
                           "-q"], capture_output=True, text=True, timeout=600,
                          env={k: v for k, v in os.environ.items() if not k.startswith("DBT_")} | env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "running `dbt compile`" in proc.stderr and (copy / "target" / "manifest.json").exists()
    assert proc.stdout.replace(f"{copy}/", "") == built.stdout and proc.stdout  # (paths from the project)


def test_missing_artifacts_are_an_input_error_named_once(tmp_path, monkeypatch):
    """A project with no target/ (dbt cannot compile it here: no warehouse set): the
    error names the project's own path once (it doubled a relative one)."""
    shutil.copytree(PROJECT, tmp_path / "project")
    proc = sparkfold("dbt", "project", cwd=tmp_path, env={"SPARKFOLD_DBT_WAREHOUSE": ""})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "project/project" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("sparkfold: error: ")
