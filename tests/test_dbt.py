"""dbt through `sparkfold run`: a real dbt project (dbt-core with dbt-spark in session
mode, `tests/dbt_project/`) built twice, as a user would, once with plain `dbt build`
and once with `sparkfold run -- dbt build`, each in a fresh warehouse.

In session mode dbt's own process creates a local SparkSession and sends every
statement (`create table ... using parquet as <model's query>`, the catalog queries...)
through `spark.sql`, where the class-wide hook sits.  Spark is the oracle: the tables the
two builds write must hold the same rows, with the same column names and Spark types;
and the models written to be rewritten must have been sent rewritten.

Nothing lands in the repository: the project is copied to a temporary directory, and
dbt's target/ and logs/, the warehouse and Spark's scratch files all go there."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("dbt.adapters.spark", reason="dbt-spark is not installed (the test extra)")
pq = pytest.importorskip("pyarrow.parquet")

pytestmark = [pytest.mark.spark, pytest.mark.timeout(900)]

PROJECT = Path(__file__).parent / "dbt_project"
SCHEMA = "sparkfold_demo"
MODELS = ("customers", "orders", "big_orders", "customer_regions", "order_summary", "ansi_off", "customer_count")
TABLES = tuple(m for m in MODELS if m != "big_orders")  # big_orders is a view (order_summary reads it)
# what each model was written to show (tests/dbt_project/models/*.sql): a rule that must
# have rewritten its query, and the finding logged for it (if any); the two source models
# (VALUES) have nothing to rewrite
REWRITTEN = {
    "big_orders": ("EliminateOuterJoin", "[outer-join-not-outer]"),
    "customer_regions": ("NullPropagation", "[null-comparison]"),
    # an info finding: logged at INFO, which the default log level does not show
    "order_summary": ("NullPropagation", "-[count-never-null]"),
    "ansi_off": ("ConstantFolding", None),  # only with dbt-spark's ANSI off, read from its session
}

# Chained by `sparkfold run`'s own sitecustomize (which runs the one it hides): records
# what the hook did with each statement dbt sent, through the public `autohook.on_query`.
RECORDER = textwrap.dedent("""
    import json, os
    from sparkfold.optimizer import autohook

    def _record(r, path=os.environ["SPARKFOLD_DBT_RECORDS"]):
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"sql": r.sql, "sent": r.sent, "rewritten": r.rewritten,
                                "rules": list(r.rules), "error": r.error}) + "\\n")

    autohook.on_query(_record)
""")


def _dbt_build(tmp: Path, through_sparkfold: bool) -> tuple[subprocess.CompletedProcess, Path]:
    project = tmp / "project"
    shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns("target", "logs"))
    warehouse = tmp / "warehouse"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARKFOLD", "DBT_"))}
    env.update({
        "DBT_PROFILES_DIR": str(project),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "SPARKFOLD_DBT_WAREHOUSE": str(warehouse),
        "PYSPARK_PYTHON": sys.executable,
    })
    dbt = [str(Path(sys.executable).parent / "dbt"), "build", "--project-dir", str(project),
           "--target-path", str(tmp / "target"), "--log-path", str(tmp / "logs")]
    if through_sparkfold:
        boot = tmp / "recorder"
        boot.mkdir()
        (boot / "sitecustomize.py").write_text(RECORDER)
        env["PYTHONPATH"] = os.pathsep.join([str(boot)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        env["SPARKFOLD_DBT_RECORDS"] = str(tmp / "records.jsonl")
        dbt = [sys.executable, "-m", "sparkfold.optimizer.cli", "run", "--", *dbt]
    proc = subprocess.run(dbt, cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-5000:]
    return proc, warehouse


def _tables(warehouse: Path) -> dict[str, dict]:
    """Each table model as Spark wrote it: its Spark schema (names, types, nullability,
    from the Parquet footer) and its rows, sorted."""
    out = {}
    for model in TABLES:
        table = pq.read_table(warehouse / f"{SCHEMA}.db" / model)
        spark_schema = json.loads(table.schema.metadata[b"org.apache.spark.sql.parquet.row.metadata"])
        rows = sorted(table.to_pylist(), key=lambda r: [(v is None, str(v)) for v in r.values()])
        out[model] = {"schema": spark_schema, "rows": rows}
    return out


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    plain = _dbt_build(tmp_path_factory.mktemp("dbt-plain"), through_sparkfold=False)
    tmp = tmp_path_factory.mktemp("dbt-sparkfold")
    optimized = _dbt_build(tmp, through_sparkfold=True)
    records = [json.loads(line) for line in (tmp / "records.jsonl").read_text().splitlines()]
    return plain, optimized, records


def test_the_same_tables_are_built_with_and_without_sparkfold(builds):
    (plain_proc, plain_wh), (proc, wh), _ = builds
    # the plain build knows nothing of sparkfold: no finding, no summary
    assert not [line for line in plain_proc.stderr.splitlines() if "sparkfold:" in line], plain_proc.stderr[-3000:]
    want, got = _tables(plain_wh), _tables(wh)
    assert got == want
    # and the tables are not trivially equal (the rewrites have rows to keep)
    assert [r["id"] for r in want["customer_regions"]["rows"]] == [3, 4, 5]
    assert [(r["id"], r["orders"], r["priced"]) for r in want["order_summary"]["rows"]] == \
        [(1, 1, 1), (3, 1, 1), (4, 1, 1)]
    assert [r["order_id"] for r in want["ansi_off"]["rows"]] == [10, 13, 15]


def _model_statements(records: list[dict]) -> dict[str, dict]:
    """The statement dbt sent to create each model's table or view."""
    out = {}
    for r in records:
        m = re.search(rf"create\s+(?:or\s+replace\s+)?(?:table|view)\s+`?{SCHEMA}`?\.`?(\w+)`?", r["sql"], re.IGNORECASE)
        if m:
            assert m.group(1) not in out, f"two create statements for {m.group(1)}"
            out[m.group(1)] = r
    return out


def test_the_models_written_to_be_rewritten_are_sent_rewritten(builds):
    _, (proc, _), records = builds
    assert not [r for r in records if r["error"]], records  # no internal error, no text Spark refused
    created = _model_statements(records)
    assert sorted(created) == sorted(MODELS)
    for model, (rule, _) in REWRITTEN.items():
        r = created[model]
        assert r["rewritten"] and r["sent"] != r["sql"] and rule in r["rules"], (model, r)
        # only the model's query is rewritten: dbt's comment and `create table ... as` are kept
        head = r["sql"][:re.search(r"^\s*(select|with)\b", r["sql"], re.IGNORECASE | re.MULTILINE).start()]
        assert re.search(r"create (table \S+ using parquet|or replace view \S+) as", " ".join(head.split())), head
        assert r["sent"].startswith(head), (model, r["sent"])
    for model in set(MODELS) - set(REWRITTEN):
        assert not created[model]["rewritten"], (model, created[model])

    # what the user sees: a finding per such model, naming the model's statement, and the
    # runner's closing summary with as many rewrites as the hook recorded
    lines = proc.stderr.splitlines()
    for model, (_, code) in REWRITTEN.items():
        if code is None:
            continue
        shown = any(code.lstrip("-") in line and f"{SCHEMA}.{model}" in line for line in lines)
        assert shown != code.startswith("-"), (model, proc.stderr[-3000:])
    summary = lines[-1]
    m = re.fullmatch(r"sparkfold: (\d+) queries in 1 process: (\d+) rewritten, \d+ passed through(?: \(.*\))?, "
                     r"(\d+) findings(?: \(\d+ repeats not logged again\))?", summary)
    assert m, proc.stderr[-3000:]
    queries, rewritten, _ = map(int, m.groups())
    assert queries == len(records) and rewritten == sum(r["rewritten"] for r in records) >= len(REWRITTEN)
