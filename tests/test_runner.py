"""`sparkfold run -- CMD`: sparkfold in every SparkSession a command's Python processes
create, with no change to the program.

The command here is a real program, run as a user would run it, that knows nothing of
sparkfold: it creates its own local SparkSession, registers a view and runs queries
with `spark.sql`.  It prints what Spark returned and, to show what Spark received, the
text the class-wide hook sent.  Spark is the oracle: the rows must be the ones Spark
gives the same queries without sparkfold (asked of the run's own Spark: each program run
here starts a JVM of its own, most of its time)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

ROWS, VIEW_SCHEMA = [(1, "a"), (2, None), (3, "c")], "k int, v string"  # the view `r`
QUERIES = ("SELECT k FROM r WHERE v = NULL OR k > 1", "SELECT count(k) AS n FROM r WHERE k IS NOT NULL")

PROGRAM = f"ROWS, VIEW_SCHEMA, QUERIES = {ROWS!r}, {VIEW_SCHEMA!r}, {QUERIES!r}\n" + textwrap.dedent("""
    import json, sys
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "1").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    records = []
    try:
        from sparkfold.optimizer import autohook
        autohook.on_query(lambda r: records.append([r.rewritten, len(r.findings)]))
    except ImportError:
        pass
    spark.createDataFrame(ROWS, VIEW_SCHEMA).createOrReplaceTempView("r")
    out = {
        "rows": [sorted(map(tuple, spark.sql(q).collect())) for q in QUERIES],
        "patched": hasattr(type(spark), "_sparkfold_original_sql"),
        "records": records,
    }
    try:
        from sparkfold.optimizer import autohook
        out["sent"] = [h.last_sql for h in autohook.hooks()]
    except ImportError:
        pass
    spark.stop()
    print("RESULT " + json.dumps(out))
""")


def _run(args, tmp_path, extra_env=None):
    script = tmp_path / "program.py"
    script.write_text(PROGRAM)
    env = {k: v for k, v in os.environ.items() if k not in ("SPARKFOLD", "SPARKFOLD_REPORT")}
    env["PYSPARK_PYTHON"] = sys.executable
    env.update(extra_env or {})
    proc = subprocess.run([*args, sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, env=env, timeout=300)
    result = next((json.loads(line[7:]) for line in proc.stdout.splitlines() if line.startswith("RESULT ")), None)
    return proc, result


@pytest.fixture(scope="module")
def plain(spark):
    """What Spark returns for the program's queries without sparkfold: the run's Spark
    (in a session of its own, for the view), not a program starting a JVM of its own; the
    program without sparkfold runs in the tests of an unset or unknown SPARKFOLD."""
    session = spark.newSession()
    session.createDataFrame(ROWS, VIEW_SCHEMA).createOrReplaceTempView("r")
    sql = getattr(type(session), "_sparkfold_original_sql", type(session).sql)  # Spark's own, hooked or not
    rows = [sorted(map(tuple, sql(session, q).collect())) for q in QUERIES]
    return {"rows": [[list(row) for row in q] for q in rows]}  # as the program's JSON has them


@pytest.mark.spark  # the program starts a SparkSession
def test_run_optimizes_every_session_of_the_command(plain, tmp_path):
    proc, result = _run([sys.executable, "-m", "sparkfold.optimizer.cli", "run", "--"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert result["patched"] and result["rows"] == plain["rows"]
    assert result["sent"] == ["SELECT count(1) AS n FROM r WHERE k IS NOT NULL"]  # the last query, rewritten
    assert result["records"] == [[True, 1], [True, 1]]  # autohook.on_query saw both queries
    lines = proc.stderr.splitlines()
    assert any("v = NULL" in line and "warning" in line for line in lines), proc.stderr  # the finding, logged
    assert lines[-1] == "sparkfold: 2 queries in 1 process: 2 rewritten, 0 passed through, 2 findings", \
        proc.stderr


@pytest.mark.spark  # the program starts a SparkSession
def test_lint_mode_reports_and_sends_queries_as_written(plain, tmp_path):
    proc, result = _run([sys.executable, "-m", "sparkfold.optimizer.cli", "run", "--lint", "--"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert result["rows"] == plain["rows"]
    assert result["sent"] == ["SELECT count(k) AS n FROM r WHERE k IS NOT NULL"]  # as written
    assert any("v = NULL" in line for line in proc.stderr.splitlines())
    assert "2 could be rewritten (sent as written)" in proc.stderr.splitlines()[-1]


def test_the_command_exit_code_and_a_missing_command(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "sparkfold.optimizer.cli", "run", "--", sys.executable, "-c",
                           "raise SystemExit(7)"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 7
    assert proc.stderr.splitlines()[-1].startswith("sparkfold: no query went through spark.sql")
    proc = subprocess.run([sys.executable, "-m", "sparkfold.optimizer.cli", "run", "--", "no-such-command-sf"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.strip() == "sparkfold: error: command not found: no-such-command-sf"


@pytest.mark.spark  # the program starts a SparkSession
def test_an_unknown_mode_leaves_sparkfold_off_and_says_so(plain, tmp_path):
    proc, result = _run([], tmp_path, {"SPARKFOLD": "maybe",
                                       "PYTHONPATH": os.path.join(os.path.dirname(os.path.dirname(
                                           os.path.abspath(__file__))), "optimizer", "_boot")})
    assert proc.returncode == 0, proc.stderr
    assert not result["patched"] and result["records"] == [] and result["rows"] == plain["rows"]
    assert "SPARKFOLD=maybe is not one of on, lint, off" in proc.stderr


@pytest.fixture(scope="module")
def installed_pth(tmp_path_factory):
    """The `.pth` line the wheel puts at the top of site-packages, from a wheel built as
    pip builds it (setup.py's build_py adds it; a development install has none)."""
    import zipfile

    out = tmp_path_factory.mktemp("wheel")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), root],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    (wheel,) = out.glob("sparkfold-*.whl")
    with zipfile.ZipFile(wheel) as z:
        assert "sparkfold-autohook.pth" in z.namelist()  # at the top, beside the package
        site_dir = tmp_path_factory.mktemp("site-packages")
        z.extract("sparkfold-autohook.pth", site_dir)
    return site_dir


def _run_with_site(site_dir, tmp_path, env):
    """The program in a Python whose startup processed `site_dir` as a site-packages
    folder (what site.py does with every .pth in site-packages)."""
    script = tmp_path / "program.py"
    script.write_text(PROGRAM)
    boot = f"import site, runpy; site.addsitedir({str(site_dir)!r}); runpy.run_path({str(script)!r})"
    clean = {k: v for k, v in os.environ.items() if k not in ("SPARKFOLD", "SPARKFOLD_REPORT")}
    proc = subprocess.run([sys.executable, "-c", boot], cwd=tmp_path, capture_output=True, text=True,
                          env={**clean, "PYSPARK_PYTHON": sys.executable, **env}, timeout=300)
    result = next((json.loads(line[7:]) for line in proc.stdout.splitlines() if line.startswith("RESULT ")), None)
    return proc, result


@pytest.mark.spark  # the program starts a SparkSession
def test_the_installed_pth_arms_sparkfold_when_the_variable_is_set(plain, installed_pth, tmp_path):
    proc, result = _run_with_site(installed_pth, tmp_path, {"SPARKFOLD": "on"})
    assert proc.returncode == 0, proc.stderr
    assert result["patched"] and result["rows"] == plain["rows"]
    assert result["sent"] == ["SELECT count(1) AS n FROM r WHERE k IS NOT NULL"]
    assert any("v = NULL" in line for line in proc.stderr.splitlines())  # the finding, logged


@pytest.mark.spark  # the program starts a SparkSession
def test_the_installed_pth_does_nothing_when_the_variable_is_unset(plain, installed_pth, tmp_path):
    proc, result = _run_with_site(installed_pth, tmp_path, {})
    assert proc.returncode == 0, proc.stderr
    assert not result["patched"] and result["rows"] == plain["rows"]
    assert result.get("sent") == []


def test_a_report_that_cannot_be_written_is_said(monkeypatch, tmp_path, capsys):
    from sparkfold.optimizer import autohook

    monkeypatch.setenv("SPARKFOLD_REPORT", str(tmp_path))  # a folder: cannot be appended to
    monkeypatch.setattr(autohook, "hooks", lambda: [object()])
    monkeypatch.setattr(autohook, "counts", lambda: {"queries": 1})
    autohook._write_report()
    err = capsys.readouterr().err
    assert err.startswith("sparkfold: could not add this process's counts to the run's summary")
    assert str(tmp_path) in err


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_this_environment_arms_at_start_up_and_loads_nothing_of_the_optimizer():
    """The test run's environment is installed as the README says (`pip install -e`, an
    editable install): with SPARKFOLD=on, every Python start of it arms sparkfold (the
    `.pth` line is there, editable or not), and a process that never imports PySpark
    loads the autohook and a few small modules of the standard library, nothing else (no
    sqlglot, none of the optimizer): starting Python stays as fast."""
    probe = "import sys, json; print(json.dumps(sorted(sys.modules)))"
    clean = {k: v for k, v in os.environ.items() if k not in ("SPARKFOLD", "SPARKFOLD_REPORT", "PYTHONPATH")}
    loaded = {}
    for value in ("on", None):
        env = clean | ({"SPARKFOLD": value} if value else {})
        proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
        assert proc.returncode == 0, proc.stderr
        loaded[value] = set(json.loads(proc.stdout))
    added = loaded["on"] - loaded[None]
    assert "sparkfold.optimizer.autohook" in added, "SPARKFOLD=on did not arm: no sparkfold-autohook.pth here"
    assert added <= {"sparkfold", "sparkfold.optimizer", "sparkfold.optimizer.autohook", "threading",
                     "weakref", "_weakrefset", "atexit"}, sorted(added)


def test_the_runner_says_nothing_in_sparks_python_workers(tmp_path):
    """`sparkfold run` puts its sitecustomize on PYTHONPATH, which Spark's Python workers
    (`python -m pyspark.daemon`) inherit: a Python without sparkfold says it is not
    installed in the user's processes, never in those workers."""
    bare = os.path.join(sys.base_prefix, "bin", "python3")  # a Python without sparkfold
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update({"PYTHONPATH": os.path.join(ROOT, "optimizer", "_boot"), "SPARKFOLD": "on",
                "SPARKFOLD_REPORT": str(tmp_path / "report.jsonl")})
    probe = subprocess.run([bare, "-c", "import sparkfold"], env={**env, "PYTHONPATH": ""}, capture_output=True)
    if probe.returncode == 0:
        pytest.skip(f"{bare} has sparkfold installed: no Python without it here")
    user = subprocess.run([bare, "-c", "pass"], env=env, capture_output=True, text=True, timeout=60)
    assert "sparkfold: not installed for" in user.stderr
    worker = subprocess.run([bare, "-m", "pyspark.daemon"], env=env, capture_output=True, text=True, timeout=60)
    assert "sparkfold" not in worker.stderr, worker.stderr
