"""The `sparkfold` command, driven as a user would: a subprocess, real files.

What the command prints is checked against the library's own answer (`optimize`), so
these tests hold whichever rules exist; the rules are checked against Spark elsewhere.

`verify` runs on Spark: a subprocess would start a JVM of its own each time (20-50 s
a test on 2 busy cores), so most verify tests run the command in this process
(`verify_here`: `main()` with its own stdout and stderr) on a new session of the test
run's Spark; test_verify_exits_1_on_a_difference starts its own Spark in a subprocess,
as a user's command does."""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sparkfold.optimizer import optimize

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = {"t": {"num": "int not null", "x": "double", "s": "string"},
          "u": {"num": "int", "y": "bigint not null"}}
QUERIES = {
    "a.sql": "SELECT count(num) AS c FROM t WHERE num IS NOT NULL AND false",
    "b.sql": "SELECT t.num, u.y FROM t LEFT JOIN u ON t.num = u.num WHERE u.y > 1",
    "sub/c.sql": "SELECT count(DISTINCT (num = NULL)) FROM t",
    "sub/deeper/d.sql": "SELECT s FROM t WHERE num = NULL",
}


def sparkfold(*args, input: str | None = None, cwd: Path | None = None, env: dict | None = None):
    proc = subprocess.run([sys.executable, "-m", "sparkfold.optimizer.cli", *map(str, args)], input=input,
                          capture_output=True, text=True, timeout=120, cwd=cwd or ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    assert "Traceback" not in proc.stderr or "--debug" in args, proc.stderr
    return proc


@pytest.fixture
def verify_here(spark, monkeypatch):
    """`sparkfold verify ARGS` run by `main()` in this process, on a new session of the
    test run's Spark (its own temp views and settings; stopping it would stop the run's
    Spark, so it is left to the run).  Returns what a subprocess gives: returncode,
    stdout and stderr (with `merged`, both in one stream, in the order written)."""
    import contextlib
    import io
    import types

    from sparkfold.optimizer import cli

    def session(master, remote, conf):
        assert remote is None, "verify_here runs on a classic session"
        new = spark.newSession()
        for key, value in conf:
            new.conf.set(key, value)
        return new

    monkeypatch.setattr(cli, "start_session", session)
    monkeypatch.setattr(cli, "stop_session", lambda s: None)

    def run(*args, merged: bool = False):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out if merged else err):
            code = cli.main(["verify", *map(str, args)])
        assert "Traceback" not in out.getvalue() + err.getvalue(), out.getvalue() + err.getvalue()
        return types.SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())

    return run


@pytest.fixture
def schema(tmp_path) -> Path:
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(SCHEMA))
    return path


@pytest.fixture
def folder(tmp_path) -> Path:
    root = tmp_path / "queries"
    for rel, sql in QUERIES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(sql + "\n")
    return root


def snapshot(root: Path) -> dict:
    """Bytes and modification times of every file under root (to prove nothing changed)."""
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(root.rglob("*")) if p.is_file()}


def expected(sql: str) -> str:
    return optimize(sql, SCHEMA).sql


# -- the basics ------------------------------------------------------------------------

def test_version_and_help_for_every_command():
    proc = sparkfold("--version")
    assert proc.returncode == 0 and "sparkfold" in proc.stdout and "0." in proc.stdout
    for cmd in ([], ["optimize"], ["explain"], ["verify"], ["rules"]):
        proc = sparkfold(*cmd, "--help")
        assert proc.returncode == 0, proc.stderr
        assert "Usage: sparkfold" in proc.stdout and "Examples:" in proc.stdout, cmd


def test_optimize_sql_argument_prints_the_optimized_sql(schema):
    for sql in QUERIES.values():
        proc = sparkfold("optimize", sql, "--schema", schema)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == expected(sql) + "\n"


def test_optimize_reads_stdin(schema):
    sql = QUERIES["b.sql"]
    proc = sparkfold("optimize", "--schema", schema, input=sql)
    assert proc.returncode == 0 and proc.stdout == expected(sql) + "\n"
    proc = sparkfold("optimize", "-", "--schema", schema, input=sql)
    assert proc.returncode == 0 and proc.stdout == expected(sql) + "\n"


def test_optimize_pretty_writes_rewritten_queries_on_several_lines(schema):
    sql = QUERIES["b.sql"]
    proc = sparkfold("optimize", sql, "--schema", schema, "--pretty")
    assert proc.returncode == 0
    assert proc.stdout == optimize(sql, SCHEMA, pretty=True).sql + "\n"


def test_optimize_one_file_prints_and_leaves_it_untouched(schema, folder):
    before = snapshot(folder)
    proc = sparkfold("optimize", "-f", folder / "a.sql", "--schema", schema)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected(QUERIES["a.sql"]) + "\n"
    assert snapshot(folder) == before


def test_exclude_rule_applies_to_optimization(schema):
    sql = QUERIES["b.sql"]
    proc = sparkfold("rules", "--format", "markdown")
    names = [line.split("`")[1] for line in proc.stdout.splitlines() if line.startswith("| `")]
    proc = sparkfold("optimize", sql, "--schema", schema, *sum((["--exclude-rule", n] for n in names), []))
    assert proc.returncode == 0
    assert proc.stdout == sql + "\n"  # no rule ran: the text is kept as it was
    assert proc.stdout == optimize(sql, SCHEMA, exclude=names).sql + "\n"


def test_several_statements_are_optimized_one_by_one(schema):
    a, b = QUERIES["a.sql"], QUERIES["b.sql"]
    text = f"-- first\n{a};\n\n/* sparkfold:off */ {b};\nSET x = 1;\n-- end\n"
    proc = sparkfold("optimize", "--schema", schema, input=text)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"-- first\n{expected(a)};\n\n/* sparkfold:off */ {b};\nSET x = 1;\n-- end\n"


# -- folders and --out -------------------------------------------------------------------

def test_folder_is_written_to_out_with_the_same_relative_names(schema, folder, tmp_path):
    before = snapshot(folder)
    out = tmp_path / "optimized"
    proc = sparkfold("optimize", "-f", folder, "--schema", schema, "--out", out)
    assert proc.returncode == 0, proc.stderr
    for rel, sql in QUERIES.items():
        assert (out / rel).read_text() == expected(sql) + "\n", rel
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.sql")) == sorted(QUERIES)
    results = [optimize(sql, SCHEMA) for sql in QUERIES.values()]
    rewritten = sum(r.sql != r.original_sql for r in results)
    rewrites = sum(len(r.trace) for r in results)
    assert f"4 files, 4 queries: {rewritten} rewritten ({rewrites} rewrite" in proc.stdout
    assert "0 errors" in proc.stdout and str(out) in proc.stdout
    assert snapshot(folder) == before


def test_several_files_are_written_to_out(schema, folder, tmp_path):
    before = snapshot(folder)
    out = tmp_path / "o"
    proc = sparkfold("optimize", "-f", folder / "a.sql", "-f", folder / "sub" / "c.sql",
                     "--schema", schema, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert (out / "a.sql").read_text() == expected(QUERIES["a.sql"]) + "\n"
    assert (out / "c.sql").read_text() == expected(QUERIES["sub/c.sql"]) + "\n"
    assert snapshot(folder) == before


def test_many_files_in_several_processes_give_the_same_output(schema, tmp_path):
    queries = list(QUERIES.values()) + ["SELECT nope FROM t"]
    src = tmp_path / "many"
    src.mkdir()
    for i in range(24):  # enough files for the process pool (it starts at 16)
        (src / f"q{i:02d}.sql").write_text(";\n".join(queries[(i + k) % len(queries)] for k in range(2)))
    runs = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}"
        proc = sparkfold("optimize", "-f", src, "--schema", schema, "--out", out, "--jobs", jobs)
        assert proc.returncode == 2, proc.stderr  # the files with `nope` are reported
        runs[jobs] = (proc.stdout.replace(str(out), "OUT"), proc.stderr,
                      {p.name: p.read_text() for p in sorted(out.iterdir())})
    assert runs["1"] == runs["2"]
    assert len(runs["1"][2]) == 24 - sum("nope" in (src / f).read_text() for f in os.listdir(src))


def test_several_files_without_out_is_refused(schema, folder):
    proc = sparkfold("optimize", "-f", folder, "--schema", schema)
    assert proc.returncode == 2 and "-o DIR" in proc.stderr
    proc = sparkfold("optimize", "-f", folder / "a.sql", "-f", folder / "b.sql", "--schema", schema)
    assert proc.returncode == 2 and "-o DIR" in proc.stderr


@pytest.mark.parametrize("how", ["argument", "stdin"])
def test_sql_without_a_file_name_goes_to_o_file_not_under_a_folder(schema, tmp_path, how):
    """-o names the output: a file, for one input (SQL given as text too); a folder (an
    existing one, or a path ending in /) writes files under their names, which SQL given
    as text or on stdin has not."""
    args, text = (["SELECT num FROM t WHERE num IS NULL"], None) if how == "argument" \
        else ([], "SELECT num FROM t WHERE num IS NULL")
    printed = sparkfold("optimize", *args, "--schema", schema, input=text).stdout
    out = tmp_path / "q.sql"
    proc = sparkfold("optimize", *args, "--schema", schema, "-o", out, input=text)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text() == printed and "IS NULL" not in printed and proc.stdout.endswith(f"-> {out}\n")
    folder = tmp_path / "out"
    proc = sparkfold("optimize", *args, "--schema", schema, "-o", f"{folder}/", input=text)
    assert proc.returncode == 2, proc.stderr
    assert "-o DIR" in proc.stderr and "Traceback" not in proc.stderr
    assert not folder.exists()


@pytest.mark.parametrize("where", ["same", "inside", "file-dir", "overwrites-a-file"])
def test_out_that_could_overwrite_an_input_is_refused(schema, folder, where):
    before = snapshot(folder)
    args = {
        "same": ["-f", folder, "--out", folder],
        "inside": ["-f", folder, "--out", folder / "sub"],
        "file-dir": ["-f", folder / "a.sql", "-f", folder / "b.sql", "--out", folder],
        "overwrites-a-file": ["-f", folder / "a.sql", "-f", folder / "sub" / "deeper" / "d.sql",
                      "-f", folder / "sub" / "c.sql", "--out", folder / "sub"],
    }[where]
    proc = sparkfold("optimize", *args, "--schema", schema)
    assert proc.returncode == 2, proc.stdout
    assert "sparkfold: error:" in proc.stderr
    assert snapshot(folder) == before  # nothing written, nothing changed


def test_links_in_out_never_lead_to_writing_an_input(schema, folder, tmp_path):
    before = snapshot(folder)
    out = tmp_path / "out"
    out.mkdir()
    os.link(folder / "a.sql", out / "a.sql")  # a hard link: replaced, not written through
    proc = sparkfold("optimize", "-f", folder / "a.sql", "--schema", schema, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert (out / "a.sql").read_text() == expected(QUERIES["a.sql"]) + "\n"
    umask = os.umask(0)
    os.umask(umask)
    assert (out / "a.sql").stat().st_mode & 0o777 == 0o666 & ~umask  # as any new file
    (out / "b.sql").symlink_to(folder / "b.sql")  # a symbolic link to an input: refused
    proc = sparkfold("optimize", "-f", folder / "b.sql", "--schema", schema, "--out", out)
    assert proc.returncode == 2 and "would overwrite the input" in proc.stderr
    assert snapshot(folder) == before


def test_one_bad_file_in_a_folder_is_reported_and_the_rest_written(schema, folder, tmp_path):
    (folder / "bad.sql").write_text("SELECT num FROM t\nWHERE (\n")
    (folder / "unknown.sql").write_text("SELECT nope FROM t\n")
    out = tmp_path / "out"
    proc = sparkfold("optimize", "-f", folder, "--schema", schema, "--out", out)
    assert proc.returncode == 2
    assert re.search(r"bad\.sql:2:\d+: error: syntax error", proc.stderr), proc.stderr
    assert re.search(r"unknown\.sql:\d+:\d+: error: unknown column `nope`", proc.stderr), proc.stderr
    assert "2 errors" in proc.stdout
    assert (out / "a.sql").exists() and not (out / "bad.sql").exists()


# -- bad input: exit 2, a message, never a traceback ---------------------------------------

def test_syntax_error_names_line_and_column(schema):
    proc = sparkfold("optimize", "--schema", schema, input="SELECT 1;\nSELECT num\nFROM t WHERE (\n")
    assert proc.returncode == 2
    assert proc.stderr.startswith("<stdin>:3:14: error: syntax error: ")


def test_syntax_error_in_a_file_names_the_file(schema, tmp_path):
    f = tmp_path / "q.sql"
    f.write_text("SELECT num FROM t WHERE num = 'abc\n")
    proc = sparkfold("optimize", "-f", f, "--schema", schema)
    assert proc.returncode == 2
    assert f"{f}:1:31: error: syntax error: unterminated quoted text" in proc.stderr


@pytest.mark.parametrize("sql,message", [
    ("SELECT num FROM nowhere", "unknown table `nowhere`"),
    ("SELECT nope FROM t", "unknown column `nope`"),
    ("", "no SQL statement"),
])
def test_analysis_errors_name_what_is_wrong(schema, sql, message):
    proc = sparkfold("optimize", sql, "--schema", schema)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_unknown_table_without_schema_hints_at_schema():
    proc = sparkfold("optimize", "SELECT num FROM t")
    assert proc.returncode == 2 and "unknown table `t`" in proc.stderr and "--schema" in proc.stderr


@pytest.mark.parametrize("content,message", [
    (None, "cannot read schema file"),
    ("{not json", "not valid JSON"),
    ('["t"]', "map table names"),
    ('{"t": {"num": "integr"}}', "column 'num'"),
])
def test_bad_schema_file(tmp_path, content, message):
    path = tmp_path / "schema.json"
    if content is not None:
        path.write_text(content)
    proc = sparkfold("optimize", "SELECT num FROM t", "--schema", path)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_missing_file_and_bad_options(schema, tmp_path):
    for args in (["optimize", "-f", tmp_path / "missing.sql"],
                 ["optimize", "SELECT 1", "-f", schema],
                 ["optimize", "SELECT 1", "--exclude-rule", "NoSuchRule"],
                 ["explain", "SELECT 1", "--rule", "NoSuchRule"],
                 ["explain", "SELECT 1", "--format", "yaml"],
                 ["nosuchcommand"]):
        proc = sparkfold(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stderr.strip(), args


def test_not_utf8_file(tmp_path):
    f = tmp_path / "q.sql"
    f.write_bytes(b"SELECT '\xff'")
    proc = sparkfold("optimize", "-f", f)
    assert proc.returncode == 2 and "not UTF-8" in proc.stderr


# -- internal errors: exit 3, one line and a hint ------------------------------------------

BUG = """
import sys
import sparkfold.optimizer.api, sparkfold.optimizer.cli
def broken(*a, **k):
    raise ZeroDivisionError("simulated bug")
sparkfold.optimizer.api._optimize = broken
sys.exit(sparkfold.optimizer.cli.main(sys.argv[1:]))
"""


def test_utf8_byte_order_mark_is_not_sql(schema, tmp_path):
    # editors on Windows put U+FEFF first; it is no SQL and shifts no column
    path = tmp_path / "bom.sql"
    path.write_bytes("\ufeffSELECT count(num) AS c FROM t WHERE num = NULL".encode("utf-8"))
    proc = sparkfold("optimize", "-f", path, "--schema", schema)
    assert proc.returncode == 0, proc.stderr
    assert "bom.sql:1:37: warning" in proc.stderr
    proc = sparkfold("optimize", "--schema", schema, input="\ufeffSELECT count(num) AS c FROM t")
    assert proc.returncode == 0 and "count(1)" in proc.stdout, proc.stderr


def test_file_dash_is_standard_input(schema):
    proc = sparkfold("optimize", "-f", "-", "--schema", schema, input="SELECT count(num) AS c FROM t")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "SELECT count(1) AS c FROM t"


def test_unwritable_out_is_bad_input_not_a_bug(schema, folder, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    # a file where a folder of the output must go (root can write read-only folders, so
    # this is the unwritable output a test can make anywhere)
    proc = sparkfold("optimize", "-f", folder, "--schema", schema, "--out", blocker / "out")
    assert proc.returncode == 2, proc.stderr
    assert "internal error" not in proc.stderr and "bug" not in proc.stderr
    assert f"cannot write {blocker / 'out'}" in proc.stderr
    assert blocker.read_text() == "not a folder"


def test_internal_error_exits_3_with_a_hint_and_no_traceback(schema):
    cmd = [sys.executable, "-c", BUG, "optimize", "SELECT num FROM t", "--schema", str(schema)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 3
    lines = proc.stderr.strip().splitlines()
    assert lines[0] == "sparkfold: internal error: ZeroDivisionError: simulated bug"
    assert "bug" in lines[1] and "report" in lines[1] and len(lines) == 2
    assert "Traceback" not in proc.stderr
    proc = subprocess.run(cmd + ["--debug"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 3 and "Traceback" in proc.stderr


# -- rules ----------------------------------------------------------------------------------

def test_rules_lists_every_registered_rule():
    from sparkfold.optimizer.batches import RULES

    proc = sparkfold("rules", "--format", "markdown")
    assert proc.returncode == 0
    listed = [line.split("`")[1] for line in proc.stdout.splitlines() if line.startswith("| `")]
    assert sorted(listed) == sorted(RULES)
    proc = sparkfold("rules")  # piped: one whole line a rule, names never cut
    assert proc.returncode == 0
    assert [line.split()[0] for line in proc.stdout.splitlines()] == listed
    assert all(RULES[line.split()[0]].description.split()[-1] in line for line in proc.stdout.splitlines())


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["rules"], ["optimize", "--help"], ["lint", "--help"],
                                  ["lsp", "--help"]])
def test_help_version_and_rules_start_without_the_analysis(args):
    """They read no SQL, so they load neither sqlglot nor the optimizer (start-up time), nor
    the language server's pygls (the lsp extra)."""
    probe = ("import sys\nfrom sparkfold.optimizer.cli import main\nmain(sys.argv[1:])\n"
             "heavy = [m for m in sys.modules if m.split('.')[0] in ('sqlglot', 'networkx', 'pygls', 'lsprotocol')\n"
             "         or m.startswith(('sparkfold.optimizer.api', 'sparkfold.plans.sql_in'))]\n"
             "print('HEAVY', sorted(heavy)[:5], file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=60)
    assert proc.returncode == 0 and "HEAVY []" in proc.stderr, proc.stderr


def test_one_line_optimize_loads_only_what_it_uses():
    """`sparkfold optimize "SELECT 1"` (nothing to rewrite) reads SQL, but loads neither
    the spark.sql hook's machinery (its caches) nor the splice (for a query left as it
    is), nor json (JSON formats, schema files) or fractions (decimal arithmetic folded):
    start-up time, held to 1.5x `import sqlglot`."""
    probe = ("import sys\nfrom sparkfold.optimizer.cli import main\nmain(sys.argv[1:])\n"
             "extra = [m for m in sys.modules if m in ('sparkfold.optimizer.hooks',\n"
             "         'sparkfold.optimizer.hook_cache', 'sparkfold.optimizer.splice', 'json', 'fractions')]\n"
             "print('EXTRA', sorted(extra), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", probe, "optimize", "SELECT 1"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert proc.returncode == 0 and proc.stdout == "SELECT 1\n" and "EXTRA []" in proc.stderr, proc.stderr


# -- explain ---------------------------------------------------------------------------------

def _stable(doc: dict) -> dict:
    """An explain document without its timings."""
    return {k: doc[k] for k in ("original_sql", "sql", "changed", "passthrough", "plans", "schema",
                                "findings", "filters")} | {
        "rewrites": [{k: v for k, v in r.items() if k != "seconds"} for r in doc["rewrites"]]}


def test_explain_json_is_the_library_explain(schema):
    for sql in QUERIES.values():
        proc = sparkfold("explain", sql, "--schema", schema, "--format", "json")
        assert proc.returncode == 0, proc.stderr
        doc = json.loads(proc.stdout)
        assert doc["format_version"] == 1 and len(doc["statements"]) == 1
        assert _stable(doc["statements"][0]["explain"]) == \
            _stable(json.loads(optimize(sql, SCHEMA).explain(format="json")))


def test_explain_text_has_plans_rewrites_sql_and_findings(schema):
    sql = "SELECT count(num) AS c FROM t WHERE num IS NOT NULL AND x = NULL"
    proc = sparkfold("explain", "--schema", schema, input=sql)
    assert proc.returncode == 0, proc.stderr
    for section in ("== Analyzed Logical Plan ==", "== Optimized Logical Plan ==", "== Plan Changes ==",
                    "== Optimized SQL ==", "== Findings =="):
        assert section in proc.stdout
    assert expected(sql) in proc.stdout and "null-comparison" in proc.stdout
    assert "\x1b[" not in proc.stdout  # not a terminal: no colors
    colored = sparkfold("explain", "--schema", schema, "--color", input=sql)
    assert colored.returncode == 0 and "\x1b[" in colored.stdout


def test_explain_rule_filter_and_exclusion(schema):
    sql = QUERIES["a.sql"]
    rewrites = json.loads(optimize(sql, SCHEMA).explain(format="json"))["rewrites"]
    assert rewrites, "the example query is meant to be rewritten"
    rule = rewrites[0]["rule"]
    doc = json.loads(sparkfold("explain", sql, "--schema", schema, "--format", "json",
                               "--rule", rule).stdout)["statements"][0]["explain"]
    assert doc["filters"]["rule"] == [rule] and {r["rule"] for r in doc["rewrites"]} == {rule}
    doc = json.loads(sparkfold("explain", sql, "--schema", schema, "--format", "json",
                               "--exclude-rule", rule).stdout)["statements"][0]["explain"]
    assert rule not in {r["rule"] for r in doc["rewrites"]}
    assert doc["sql"] == optimize(sql, SCHEMA, exclude=[rule]).sql


def test_explain_of_several_files_and_statements(schema, folder):
    (folder / "two.sql").write_text("SELECT 1;\nSELECT s FROM t")
    proc = sparkfold("explain", "-f", folder, "--schema", schema, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    docs = json.loads(proc.stdout)["statements"]
    assert len(docs) == len(QUERIES) + 2
    assert [(Path(d["source"]).name, d["statement"]) for d in docs if "two" in d["source"]] == \
        [("two.sql", 1), ("two.sql", 2)]
    proc = sparkfold("explain", "-f", folder / "two.sql", "--schema", schema)
    assert proc.stdout.count("== Optimized SQL ==") == 2 and "statement 2 <==" in proc.stdout


# -- findings ---------------------------------------------------------------------------------

def test_explain_positions_count_from_the_start_of_the_file(schema, tmp_path):
    # the second statement starts on line 3: its finding is at line 4 of the file, as
    # optimize and lint report it
    path = tmp_path / "two.sql"
    path.write_text("SELECT 1;\n\nSELECT s\n  FROM t WHERE num = NULL;\n")
    text = sparkfold("explain", "-f", path, "--schema", schema)
    assert text.returncode == 0, text.stderr
    assert f"{path}:4:16: warning: `num = NULL` is always NULL" in text.stdout
    linted = sparkfold("lint", path, "--schema", schema, "-q")
    assert f"{path}:4:16: warning: `num = NULL` is always NULL" in linted.stdout
    doc = json.loads(sparkfold("explain", "-f", path, "--schema", schema, "--format", "json").stdout)
    second = doc["statements"][1]
    assert (second["statement"], second["line"], second["column"]) == (2, 3, 1)
    assert path.read_text()[second["offset"]:].startswith("SELECT s")
    finding = next(f for f in second["explain"]["findings"] if f["code"] == "null-comparison")
    assert (second["line"] + finding["line"] - 1, finding["column"]) == (4, 16)


def test_optimize_prints_findings_with_positions_in_the_source(schema):
    text = "SELECT 1;\n  SELECT s FROM t WHERE x = NULL"
    proc = sparkfold("optimize", "--schema", schema, input=text)
    assert proc.returncode == 0
    assert "<stdin>:2:25: warning: " in proc.stderr and "[null-comparison]" in proc.stderr
    quiet = sparkfold("optimize", "--schema", schema, "-q", input=text)
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout == proc.stdout


# -- verify (on a new session of the test run's Spark, one in a subprocess) ------------------

def _data(tmp_path: Path) -> dict[str, Path]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    orders = tmp_path / "orders.parquet"
    pq.write_table(pa.table({"id": pa.array([1, 2, 3, 4], pa.int64()),
                             "customer_id": pa.array([10, None, 10, 12], pa.int64()),
                             "amount": pa.array([25.0, 7.5, None, 120.0]),
                             "status": pa.array(["open", "closed", None, "open"])}), orders)
    customers = tmp_path / "customers.csv"
    customers.write_text("id,name,country\n10,Ada,UK\n11,Grace,\n12,Edsger,NL\n")
    events = tmp_path / "events.json"
    events.write_text('{"k": 1, "v": null}\n{"k": 2, "v": 2.5}\n')
    return {"orders": orders, "customers": customers, "events": events}


VERIFY_SQL = """
SELECT c.name, count(o.id) AS n FROM customers c LEFT JOIN orders o ON o.customer_id = c.id
WHERE o.amount > 10 GROUP BY c.name;
SELECT k FROM events WHERE v = NULL OR k > 1;
SELECT status, count(*) AS n FROM orders WHERE status IS NOT NULL OR status IS NULL GROUP BY status
"""


def test_verify_reads_tables_by_extension_and_reports_equal(tmp_path, verify_here):
    data = _data(tmp_path)
    before = snapshot(tmp_path)
    query = tmp_path / "q.sql"
    query.write_text(VERIFY_SQL)
    proc = verify_here("-f", query, "--master", "local[1]", "--format", "json",
                       *sum((["--table", f"{k}={v}"] for k, v in data.items()), []))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    docs = out["statements"]
    assert out["format_version"] == 1 and out["errors"] == []
    assert [d["statement"] for d in docs] == [1, 2, 3]
    assert all(d["equal"] for d in docs)
    assert [d["reference"]["rows"] for d in docs] == [2, 1, 3]
    assert docs[1]["optimized_sql"] == optimize(
        "SELECT k FROM events WHERE v = NULL OR k > 1", {"events": {"k": "bigint", "v": "double"}}).sql
    assert snapshot(tmp_path) == {**before, **{query: snapshot(tmp_path)[query]}}


WRONG = """
import sys
import sparkfold.optimizer.api, sparkfold.optimizer.cli
real = sparkfold.optimizer.api.optimize
def wrong(*a, **k):
    result = real(*a, **k)
    result.sql = result.original_sql + " LIMIT 1"   # a simulated unsound rewrite
    return result
sparkfold.optimizer.api.optimize = wrong
sys.exit(sparkfold.optimizer.cli.main(sys.argv[1:]))
"""


@pytest.mark.spark
def test_verify_exits_1_on_a_difference(tmp_path):
    data = _data(tmp_path)
    cmd = [sys.executable, "-c", WRONG, "verify", "SELECT id FROM orders", "--master", "local[1]",
           "--table", f"orders={data['orders']}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "DIFFERENT" in proc.stdout and "Traceback" not in proc.stderr


def test_verify_unreadable_table_is_bad_input(tmp_path, verify_here):
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"this is not parquet")
    proc = verify_here("SELECT * FROM b", "--master", "local[1]", "--table", f"b={broken}")
    assert proc.returncode == 2 and "--table b: cannot read" in proc.stderr, proc.stderr[-3000:]


def test_verify_reports_bad_statements_and_verifies_the_rest(tmp_path, verify_here):
    data = _data(tmp_path)
    query = tmp_path / "q.sql"
    query.write_text("SELECT id FROM orders WHERE id = NULL;\nSELECT (;\nSELECT nope FROM orders;\n"
                     "SELECT status FROM orders WHERE amount > 10")
    proc = verify_here("-f", query, "--master", "local[1]", "--format", "json",
                       "--table", f"orders={data['orders']}")
    assert proc.returncode == 2, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert [d["statement"] for d in out["statements"]] == [1, 4] and all(d["equal"] for d in out["statements"])
    assert [e["statement"] for e in out["errors"]] == [2, 3]
    assert f"{query}:2:8: error: syntax error: " in proc.stderr
    assert "unknown column `nope`" in proc.stderr and "internal error" not in proc.stderr


def test_verify_parses_every_statement_before_spark_starts(tmp_path):
    # Spark would fail on this master URL: with every statement bad, it never starts
    query = tmp_path / "q.sql"
    query.write_text("SELECT (;\nSELECT 1 +;")
    proc = sparkfold("verify", "-f", query, "--master", "no-such-master://x")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("syntax error") == 2
    assert "Master URL" not in proc.stderr and "master" not in proc.stderr.lower()


def test_verify_bad_options_fail_before_spark_starts(tmp_path):
    (tmp_path / "t.txt").write_text("x")
    for args, message in ((["--table", "t"], "expected NAME=PATH"),
                          (["--table", "t=" + str(tmp_path / "missing.parquet")], "no such file"),
                          (["--table", "t=" + str(tmp_path / "t.txt")], "cannot tell the format"),
                          (["--table", "no-good=" + str(tmp_path / "t.txt")], "not a valid view name"),
                          (["--master", "local", "--remote", "sc://localhost"], "not both")):
        proc = sparkfold("verify", "SELECT 1", *args)
        assert proc.returncode == 2 and message in proc.stderr, (args, proc.stderr)


def test_verify_checks_the_schemas_not_null_against_the_data_first(tmp_path, verify_here):
    """`customer_id` is declared NOT NULL, and the Parquet file has a NULL there: with it,
    `count(customer_id)` becomes `count(1)` and the results differ.  verify says why."""
    data = _data(tmp_path)
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"orders": {"id": "bigint not null", "customer_id": "bigint not null",
                                             "amount": "double", "status": "string"}}))
    proc = verify_here("SELECT count(customer_id) AS n FROM orders", "--schema", schema,
                       "--master", "local[1]", "--table", f"orders={data['orders']}")
    assert proc.returncode == 1, proc.stderr[-3000:]  # the difference first: what verify is for
    assert "DIFFERENT" in proc.stdout
    assert ("sparkfold: error: orders.customer_id has 1 NULL; the schema says NOT NULL (rewrites that rest "
            "on it can change the results)") in proc.stderr.splitlines()
    assert "orders.id" not in proc.stderr  # id has no NULL: its declaration holds


def test_verify_reads_in_order_a_broken_declaration_first_then_each_query_with_its_sql_and_findings(
        tmp_path, verify_here):
    """In a terminal (stdout and stderr together): the schema's broken NOT NULL comes before
    the verdicts it explains; the rules the references run without are said once for the
    file, not per statement; each statement shows its optimized SQL (when it is not the
    original) and its findings at their place in the file."""
    data = _data(tmp_path)
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"orders": {"id": "bigint not null", "customer_id": "bigint not null",
                                             "amount": "double", "status": "string"}}))
    query = tmp_path / "q.sql"
    query.write_text("SELECT count(id) AS n FROM orders;\nSELECT status FROM orders WHERE amount > 1;\n"
                     "SELECT count(customer_id) AS m FROM orders")
    proc = verify_here(query, "--schema", schema, "--master", "local[1]", "--table", f"orders={data['orders']}",
                       merged=True)
    out = proc.stdout
    assert proc.returncode == 1, out[-3000:]
    broken = out.index("sparkfold: error: orders.customer_id has 1 NULL")
    assert broken < out.index("==> ") and broken < out.index("verification:"), out
    assert out.count("references: each statement as written, with Catalyst's") == 1, out
    assert "reference: original SQL;" in out and "reference: original SQL with" not in out, out
    first = out[out.index("statement 1 <=="):out.index("statement 2 <==")]
    assert "optimized SQL:\n    SELECT count(1) AS n FROM orders" in first, first
    assert f"{query}:1:8: info: `count(id)` counts the rows" in first, first
    second = out[out.index("statement 2 <=="):out.index("statement 3 <==")]
    assert "optimized SQL:\n" not in second and ": info:" not in second, second  # unchanged, no finding


def test_a_mistyped_conf_key_is_named_and_a_bad_value_is_an_error():
    proc = sparkfold("optimize", "SELECT 1", "--conf", "spark.sql.ansi.enable=false")
    assert proc.returncode == 0
    assert "--conf spark.sql.ansi.enable: not a setting sparkfold reads; did you mean " \
           "spark.sql.ansi.enabled?" in proc.stderr
    proc = sparkfold("optimize", "SELECT 1", "--conf", "spark.executor.memory=2g")  # Spark's, not ours
    assert proc.returncode == 0 and proc.stderr == ""
    proc = sparkfold("optimize", "SELECT 1", "--conf", "spark.sql.ansi.enabled=flase")  # read as false before
    assert proc.returncode == 2 and "expected true or false, got 'flase'" in proc.stderr


def test_a_bad_file_in_a_folder_does_not_stop_the_others(schema, tmp_path):
    """explain and optimize --out go on past a file they cannot analyze, say which one
    and why at the end, and exit 2."""
    folder = tmp_path / "q"
    folder.mkdir()
    (folder / "a.sql").write_text("SELECT num FROM t WHERE num = NULL")
    (folder / "b.sql").write_text("SELECT nope FROM t")
    (folder / "c.sql").write_text("SELECT num FROM t;\nSELECT x FROM t WHERE x > 1")
    proc = sparkfold("explain", "-f", folder, "--schema", schema)
    assert proc.returncode == 2
    assert proc.stdout.count("==> ") == 4 and "error: " in proc.stdout and "unknown column `nope`" in proc.stdout
    assert proc.stdout.index("c.sql, statement 2") > proc.stdout.index("b.sql")  # went on
    proc = sparkfold("explain", "-f", folder, "--schema", schema, "--format", "json")
    assert proc.returncode == 2
    docs = json.loads(proc.stdout)["statements"]
    assert [("error" in d, "explain" in d) for d in docs] == [(False, True), (True, False), (False, True),
                                                             (False, True)]
    out = tmp_path / "out"
    proc = sparkfold("optimize", "-f", folder, "--schema", schema, "--out", out)
    assert proc.returncode == 2
    assert sorted(p.name for p in out.iterdir()) == ["a.sql", "c.sql"]
    last = proc.stderr.strip().splitlines()[-2:]
    assert last[0].startswith("sparkfold: 1 of 3 files not written") and "b.sql:1:8: error: unknown column `nope`" in last[1]


@pytest.mark.parametrize("command", ["optimize", "explain", "lint", pytest.param("verify", marks=pytest.mark.spark)])
def test_one_error_format_with_the_offending_name_and_a_caret(schema, tmp_path, command, request):
    """Every command prints an input error as `file:line:col: error: message`, placed at
    the name it is about (an unknown table at the table, not at the statement's start),
    with the source line and a caret under it; no Python class names from the parser."""
    table = tmp_path / "table.sql"
    table.write_text("SELECT 1;\nSELECT num\n  FROM t JOIN nowhere n ON t.num = n.num;\n")
    syntax = tmp_path / "syntax.sql"
    syntax.write_text("SELECT 1;\nSELECT num FROM t WHERE num = (\n")
    for f, first, source, caret in (
            (table, f"{table}:3:15: error: unknown table `nowhere`; known tables: t, u",
             "    FROM t JOIN nowhere n ON t.num = n.num;", "                ^"),
            (syntax, f"{syntax}:2:31: error: syntax error: an expression is missing near '('",
             "  SELECT num FROM t WHERE num = (", " " * 32 + "^")):
        proc = request.getfixturevalue("verify_here")("-f", f, "--schema", schema) if command == "verify" \
            else sparkfold(command, "-f", f, "--schema", schema)
        assert proc.returncode == 2, proc.stderr
        lines = (proc.stdout + proc.stderr).splitlines()
        i = next(k for k, ln in enumerate(lines) if ln.startswith(first))  # (lint adds its [code])
        assert lines[i + 1:i + 3] == [source, caret]


def test_every_command_takes_sql_text_files_or_folders_as_arguments(schema, folder, tmp_path):
    """One convention: an argument names a file or a folder, or is SQL text; -o is where
    the output goes, in every command."""
    sql = "SELECT num FROM t WHERE num = NULL"
    lint = sparkfold("lint", sql, "--schema", schema)
    assert lint.returncode == 1 and "<argument>:1:25: warning:" in lint.stdout
    assert sparkfold("lint", "--sql", sql, "--schema", schema).stdout == lint.stdout
    files = sparkfold("lint", folder / "a.sql", folder, "--schema", schema)
    assert files.returncode in (0, 1) and "Traceback" not in files.stderr
    assert sparkfold("optimize", folder / "a.sql", "--schema", schema).stdout == \
        sparkfold("optimize", "-f", folder / "a.sql", "--schema", schema).stdout
    missing = sparkfold("optimize", "nope.sql", "--schema", schema)
    assert missing.returncode == 2 and "no such file or folder: nope.sql" in missing.stderr
    both = sparkfold("lint", sql, folder / "a.sql", "--schema", schema)
    assert both.returncode == 2 and "not both" in both.stderr
    report = tmp_path / "lint.sarif"
    proc = sparkfold("lint", sql, "--schema", schema, "--format", "sarif", "-o", report)
    assert proc.returncode == 1 and proc.stdout == "" and json.loads(report.read_text())["version"] == "2.1.0"
