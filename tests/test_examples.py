"""Every example runs, and what it shows is true: the optimized queries it prints give
Spark's own results; and the README stays in step with the code and with CI."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

if __name__ == "__main__":  # run as a script to update the README: import from the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sparkfold.optimizer import optimize
from sparkfold.optimizer.sources import Source, statements
from sparkfold.plans.ir.printer import plan_str

from tests.data import register
from tests.spark_check import assert_same_result, is_ordered

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SCHEMA = json.loads((EXAMPLES / "schema.json").read_text())
README = (ROOT / "README.md").read_text()

ROWS = {
    "orders": [(1, 10, Decimal("25.00"), "open", dt.date(2024, 1, 2)),
               (2, None, Decimal("7.50"), "closed", dt.date(2024, 1, 3)),
               (3, 10, None, None, dt.date(2024, 1, 4)),
               (4, 12, Decimal("120.00"), "open", dt.date(2024, 1, 5)),
               (5, 99, Decimal("300.00"), None, dt.date(2024, 1, 6))],
    "customers": [(10, "Ada", "UK"), (11, "Grace", None), (12, "Edsger", "NL")],
    "t": [(i,) for i in range(10)],  # Spark's (0 to 9).toDF("num")
    "tokens": [(0, None), (1, "hello")],
}


def run_example(*args, env=None, timeout=300):
    bindir = str(Path(sys.executable).parent)
    proc = subprocess.run(list(map(str, args)), capture_output=True, text=True, cwd=ROOT, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": str(ROOT),
                               "PATH": bindir + os.pathsep + os.environ.get("PATH", ""), **(env or {})})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    return proc


@pytest.fixture(scope="module")
def example_spark(spark):
    """A session of its own (temp views are per session): the examples' tables."""
    session = spark.newSession()
    for name, columns in SCHEMA.items():
        register(session, name, columns, ROWS[name])
    return session


def test_optimize_folder_example(tmp_path, example_spark):
    queries = EXAMPLES / "queries"
    before = {p: p.read_bytes() for p in queries.rglob("*.sql")}
    out = tmp_path / "optimized"
    proc = run_example("sh", EXAMPLES / "optimize_folder.sh", out)
    assert "4 files, 5 queries" in proc.stdout and "0 errors" in proc.stdout
    assert "customers_without_country.sql:1:38: warning:" in proc.stderr
    assert {p: p.read_bytes() for p in queries.rglob("*.sql")} == before
    for path in before:
        rel = path.relative_to(queries)
        original = statements(Source(str(path), path.read_text()))
        optimized = statements(Source(str(out / rel), (out / rel).read_text()))
        assert len(original) == len(optimized), rel
        for a, b in zip(original, optimized):
            assert b.text == optimize(a.text, SCHEMA).sql
            assert_same_result(example_spark, a.text, b.text,
                               ordered=is_ordered(optimize(a.text, SCHEMA).analyzed), context=str(rel))


def test_explain_null_propagation_example(example_spark):
    from sparkfold.optimizer.batches import RULES

    from examples.explain_null_propagation import EXAMPLES as SEEDS
    from examples.explain_null_propagation import SCHEMA as SEED_SCHEMA

    proc = run_example(sys.executable, EXAMPLES / "explain_null_propagation.py")
    full = run_example(sys.executable, EXAMPLES / "explain_null_propagation.py", "--full")
    results = []
    for title, sql in SEEDS:
        result = optimize(sql, SEED_SCHEMA)
        results.append(result)
        assert f"### {title}\n{sql}\n" in proc.stdout
        assert f"== Optimized SQL ==\n{result.sql}\n" in proc.stdout
        assert_same_result(example_spark, sql, result.sql, context=title)
    assert full.stdout.count("== Plan Changes ==") == len(SEEDS)
    if "NullPropagation" in RULES:  # Catalyst's outcomes, from seeds/002
        distinct_null, count_num, count_word, where_null = (plan_str(r.optimized) for r in results)
        assert "0 AS count(DISTINCT (num = NULL))" in distinct_null
        assert "count(1) AS count" in count_num
        assert "count(word" in count_word and not results[2].changed
        assert "LocalRelation <empty>" in where_null


# Runs scripts one after the other in one Python process, each as `python SCRIPT ARGS...`
# runs it (its own sys.argv, run as __main__, its folder first on sys.path), and prints
# what each printed, as JSON.  Each script builds its own SparkSession and stops it; the
# JVM PySpark started for the first is kept by the process (as in any PySpark program
# that stops a session and builds another), so the scripts after it start a new Spark
# context but no JVM: a JVM start is most of such a script's time.
SCRIPTS = """
import contextlib, io, json, runpy, sys
outputs = []
for script, *args in json.loads(sys.argv[1]):
    sys.argv, path = [script, *args], list(sys.path)
    sys.path.insert(0, script.rsplit("/", 1)[0])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            runpy.run_path(script, run_name="__main__")
            code = 0
        except SystemExit as e:
            code = e.code or 0
    sys.path[:] = path
    outputs.append([code, out.getvalue()])
print(json.dumps(outputs))
"""


@pytest.fixture(scope="module")
def spark_scripts(tmp_path_factory):
    """The examples that start a SparkSession, run in one Python process (`SCRIPTS`):
    (exit code, stdout) per script, and the data folder verify_parquet.py wrote to."""
    data = tmp_path_factory.mktemp("verify-parquet")
    scripts = [[str(EXAMPLES / "verify_parquet.py"), str(data)], [str(EXAMPLES / "spark_sql_hook.py")]]
    proc = run_example(sys.executable, "-c", SCRIPTS, json.dumps(scripts), timeout=600)
    verify_parquet, spark_sql_hook = json.loads(proc.stdout.splitlines()[-1])
    return {"verify_parquet": verify_parquet, "spark_sql_hook": spark_sql_hook, "data": data}


@pytest.mark.spark  # the script starts a SparkSession
def test_verify_parquet_example(spark_scripts):
    code, stdout = spark_scripts["verify_parquet"]
    data = spark_scripts["data"]
    assert code == 0, stdout
    assert stdout.count("verification: EQUAL") == 5 and stdout.rstrip().endswith("all equal")
    assert (data / "orders.parquet").is_dir() and (data / "customers.parquet").is_dir()


@pytest.mark.spark  # the script starts a SparkSession
def test_spark_sql_hook_example(spark_scripts):
    code, stdout = spark_scripts["spark_sql_hook"]
    assert code == 0, stdout
    assert stdout.count("(same)") == 4 and "DIFFERENT" not in stdout
    assert "sent:     SELECT /* sparkfold:off */ count(id) AS n FROM orders" in stdout
    assert "__sf_p" not in stdout


def test_sqlglot_builder_example():
    proc = run_example(sys.executable, EXAMPLES / "sqlglot_builder.py")
    built, optimized = proc.stdout.split("\noptimized:\n")
    assert "LEFT JOIN" in built and optimized.strip()


def test_sqlalchemy_example(spark):
    """Run as a user would (no URL: the example starts and stops a Spark Thrift server); the
    rows it prints through the rewritten statements are Spark's rows of the original ones."""
    import ast
    import socket

    from examples.sqlalchemy_hook import ORDERS, QUERIES
    from sparkfold.optimizer.hooks import sql_rewriter

    proc = run_example(sys.executable, EXAMPLES / "sqlalchemy_hook.py")
    port = int(re.match(r"no URL given: starting a Spark Thrift server on localhost:(\d+) ", proc.stdout).group(1))
    with pytest.raises(OSError):  # the server was stopped
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    shown = re.findall(r"query:  (.*)\nsent:   (.*)\nparams: (.*)\nrows:   (.*)\n", proc.stdout)
    assert [(q, ast.literal_eval(p)) for q, _, p, _ in shown] == QUERIES

    session = spark.newSession()  # the example's view, in a session of its own
    session.sql(ORDERS)
    rewrite = sql_rewriter(SCHEMA)
    rewritten = 0
    for (query, sent, _, rows), (_, params) in zip(shown, QUERIES):
        pyformat = re.sub(r":(\w+)", r"%(\1)s", query)  # what SQLAlchemy hands PyHive
        assert sent == rewrite(pyformat) and "%(" in sent, query
        rewritten += sent != pyformat
        expected = [tuple(r) for r in session.sql(query, args=params).collect()]
        assert ast.literal_eval(rows) == expected, query
    assert rewritten >= 1
    assert any("0.5D" in q and "0L" in q and ast.literal_eval(r) for q, _, _, r in shown)  # Spark-only SQL ran


# -- the README -------------------------------------------------------------------------------

def _block_after(heading: str) -> str:
    section = README.split(heading, 1)[1]
    return re.search(r"```(?:bash|console|sh)?\n(.*?)```", section, re.S).group(1)


def test_readme_test_command_is_what_ci_runs():
    readme_cmd = _block_after("## Run the tests").strip()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert readme_cmd in ci, (readme_cmd, ci)


def test_readme_quick_start_command_runs_an_example():
    cmd = _block_after("## Quick start").strip()
    assert cmd.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install -q -e .")
    sparkfold_part = cmd.split("&& sparkfold ", 1)[1].split()
    proc = run_example("sparkfold", *sparkfold_part)
    assert proc.stdout.strip()


# -- the quick tour: outputs pasted from real runs ---------------------------------------------

TOUR_START, TOUR_END = "## A quick tour", "## Examples"
CONSOLE = re.compile(r"(<!-- not run: [^>]*-->\n)?```console\n(.*?)```", re.S)
ECHO_STATUS = "echo $?"  # in a console block: prints the exit code of the command before it


def _tour_span(readme: str) -> tuple[int, int]:
    start = readme.index(TOUR_START)
    return start, readme.index(TOUR_END, start)


def run_tour_command(command: str, cwd: Path) -> tuple[str, int]:
    """What a user sees on a terminal (stdout, then stderr), without colors, and the exit code."""
    import shlex

    args = shlex.split(command)
    assert args[0] == "sparkfold", command
    proc = subprocess.run([sys.executable, "-m", "sparkfold.optimizer.cli", *args[1:]], capture_output=True,
                          text=True, cwd=cwd, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"})
    assert "Traceback" not in proc.stderr and proc.returncode != 3, proc.stderr
    return proc.stdout + proc.stderr, proc.returncode


def copy_examples(cwd: Path) -> None:
    import shutil

    if not (cwd / "examples").exists():
        shutil.copytree(EXAMPLES, cwd / "examples")


def rerun_console(text: str, cwd: Path) -> str:
    """`text` with every console block's commands re-run in `cwd` (which gets a copy of
    examples/): each `$ sparkfold ...` line is followed by what it prints.  A command
    must exit 0 unless the next line is `$ echo $?`, which shows its exit code.  A block
    after `<!-- not run: REASON -->` is left as written."""
    copy_examples(cwd)

    def block(m: re.Match) -> str:
        if m.group(1):
            return m.group(0)
        commands = [line[2:] for line in m.group(2).splitlines() if line.startswith("$ ")]
        body, status = [], None
        for i, command in enumerate(commands):
            if command == ECHO_STATUS:
                assert status is not None, f"`$ {ECHO_STATUS}` with no command before it"
                body.append(f"$ {command}\n{status}\n")
                continue
            out, status = run_tour_command(command, cwd)
            said = i + 1 < len(commands) and commands[i + 1] == ECHO_STATUS
            assert status == 0 or said, f"`{command}` exits {status}: say so with `$ {ECHO_STATUS}` after it\n{out}"
            body.append(f"$ {command}\n{out}")
        return f"```console\n{''.join(body)}```"

    return CONSOLE.sub(block, text)


def rerun_tour(readme: str, cwd: Path) -> str:
    """The README with every console block of the tour re-run in `cwd`."""
    start, end = _tour_span(readme)
    return readme[:start] + rerun_console(readme[start:end], cwd) + readme[end:]


def _without_timings(text: str) -> str:
    """Explain's summary (run counts and times) and times vary from run to run."""
    text = re.sub(r"== Summary ==\n.*?(?=\n== |\n\$ |\Z)", "== Summary ==\n...", text, flags=re.S)
    return re.sub(r"\d+\.\d+ (ms|seconds)", r"<time> \1", text)


def test_readme_tour_outputs_are_current(tmp_path):
    start, end = _tour_span(README)
    fresh = rerun_tour(README, tmp_path)
    fstart, fend = _tour_span(fresh)
    assert _without_timings(README[start:end]) == _without_timings(fresh[fstart:fend]), \
        "README's tour is stale: run `python tests/test_examples.py --update-readme`"


if __name__ == "__main__":
    import tempfile

    if sys.argv[1:] != ["--update-readme"]:
        sys.exit("usage: python tests/test_examples.py --update-readme")
    with tempfile.TemporaryDirectory() as tmp:
        (ROOT / "README.md").write_text(rerun_tour(README, Path(tmp)))
    print("README.md updated: review with `git diff README.md`")
