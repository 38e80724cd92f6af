"""`sparkfold lint`: findings with positions in the files, the CI formats, exit codes."""

from __future__ import annotations

import json

import pytest

from tests.test_cli import sparkfold

SCHEMA = {"t": {"num": "int not null", "x": "double", "s": "string"}}
FILE = ("SELECT count(num) FROM t WHERE num = NULL;\n"
        "\n"
        "-- the second statement\n"
        "SELECT *\n"
        "FROM t WHERE x NOT IN (1, NULL);\n"
        "SELECT nope FROM t;\n"
        "SELECT s FROM t WHERE s = 'a'\n")


@pytest.fixture
def files(tmp_path):
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    (tmp_path / "q").mkdir()
    (tmp_path / "q" / "a.sql").write_text(FILE)
    (tmp_path / "q" / "clean.sql").write_text("SELECT s FROM t WHERE num > 1\n")
    return tmp_path


def lint(files, *args, input=None):
    return sparkfold("lint", *args, "--schema", files / "schema.json", input=input, cwd=files)


def test_text_positions_are_in_the_file_and_bad_statements_do_not_stop_the_rest(files):
    proc = lint(files, "q")
    lines = proc.stdout.splitlines()
    assert "q/a.sql:1:32: warning: `num = NULL` is always NULL" in proc.stdout
    assert any(ln.startswith("q/a.sql:5:14: warning:") and "[not-in-null]" in ln for ln in lines)
    assert "q/a.sql:6:8: error: unknown column `nope`" in proc.stdout  # the column, in the file
    assert not any(ln.startswith("q/clean.sql") for ln in lines)
    assert proc.returncode == 2  # a statement could not be analyzed: bad input
    assert "4 statements" not in proc.stderr and "5 statements linted" in proc.stderr


@pytest.mark.parametrize("fail_on, sql, code", [
    ("warning", "SELECT num FROM t WHERE num = NULL", 1),
    ("error", "SELECT num FROM t WHERE num = NULL", 0),
    ("warning", "SELECT count(num) FROM t", 0),  # an info finding only
    ("info", "SELECT count(num) FROM t", 1),
    ("never", "SELECT num FROM t WHERE num = NULL", 0),
    ("info", "SELECT num FROM t WHERE num > 1", 0),
])
def test_fail_on_gates_the_exit_code(files, fail_on, sql, code):
    proc = lint(files, "--fail-on", fail_on, "--sql", sql)
    assert proc.returncode == code, proc.stdout + proc.stderr


def test_stdin_and_dash(files):
    for args in ((), ("-",)):
        proc = lint(files, *args, input="SELECT num FROM t WHERE num = NULL")
        assert proc.returncode == 1
        assert proc.stdout.startswith("<stdin>:1:25: warning:")


def test_jsonl_has_one_object_per_finding(files):
    proc = lint(files, "q/a.sql", "--format", "jsonl", "-q")
    records = [json.loads(ln) for ln in proc.stdout.splitlines()]
    assert proc.stderr == ""
    null_cmp = next(r for r in records if r["code"] == "null-comparison")
    assert (null_cmp["file"], null_cmp["line"], null_cmp["column"]) == ("q/a.sql", 1, 32)
    assert (null_cmp["end_line"], null_cmp["end_column"]) == (1, 41)
    assert null_cmp["snippet"] == "num = NULL" and null_cmp["suggestion"] == "num IS NULL"
    assert {r["severity"] for r in records} == {"info", "warning", "error"}


def test_github_annotations(files):
    proc = lint(files, "q/a.sql", "--format", "github", "-q")
    lines = proc.stdout.splitlines()
    assert all(ln.startswith(("::notice ", "::warning ", "::error ")) for ln in lines), lines
    assert ("::warning file=q/a.sql,line=1,col=32,endLine=1,endColumn=41,title=sparkfold null-comparison::"
            "`num = NULL` is always NULL") in proc.stdout
    assert any(ln.startswith("::error file=q/a.sql,line=6,col=8,") for ln in lines)


def test_sarif_log(files):
    proc = lint(files, "q", "--format", "sarif", "-q")
    log = json.loads(proc.stdout)
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    run, = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert run["tool"]["driver"]["name"] == "sparkfold"
    results = run["results"]
    records = [ln for ln in lint(files, "q", "-q").stdout.splitlines() if not ln.startswith("  ")]
    assert len(results) == len(records)  # (an error's source line and caret follow it, indented)
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
        assert r["level"] in ("note", "warning", "error")
        loc = r["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] == "q/a.sql"
    cmp_ = next(r for r in results if r["ruleId"] == "null-comparison")
    region = cmp_["locations"][0]["physicalLocation"]["region"]
    # SARIF's end column is one past the last character
    assert (region["startLine"], region["startColumn"], region["endColumn"]) == (1, 32, 42)


def test_pre_commit_hook_definition():
    from pathlib import Path

    import yaml as _yaml  # pre-commit's own format

    root = Path(__file__).resolve().parent.parent
    hooks = _yaml.safe_load((root / ".pre-commit-hooks.yaml").read_text())
    hook, = (h for h in hooks if h["id"] == "sparkfold-lint")  # (sparkfold-lint-fix: test_lint_fix.py)
    assert hook["id"] == "sparkfold-lint" and hook["entry"] == "sparkfold lint"
    assert hook["language"] == "python" and hook["types"] == ["sql"]
    # pre-commit runs `entry` with the staged file names appended
    proc = sparkfold(*hook["entry"].split()[1:], root / "examples" / "queries" / "customers_without_country.sql",
                     "--schema", root / "examples" / "schema.json", "-q")
    assert proc.returncode in (0, 1) and "input-error" not in proc.stdout, proc.stdout + proc.stderr


# -- the outer join that is not outer ------------------------------------------------------

OUTER_CASES = [
    # (query, the join words as written, what it is, the same query with that join)
    ("SELECT t.num, u.y FROM t LEFT JOIN u ON t.num = u.num WHERE u.y > 1",
     "LEFT JOIN", "an inner join", "SELECT t.num, u.y FROM t JOIN u ON t.num = u.num WHERE u.y > 1"),
    ("SELECT t.num, u.y FROM t\nRIGHT OUTER JOIN u ON t.num = u.num WHERE t.x < 3.5",
     "RIGHT OUTER JOIN", "an inner join", "SELECT t.num, u.y FROM t JOIN u ON t.num = u.num WHERE t.x < 3.5"),
    ("SELECT t.num, u.y FROM t FULL JOIN u ON t.num = u.num WHERE t.s = 'a'",
     "FULL JOIN", "a LEFT JOIN", "SELECT t.num, u.y FROM t LEFT JOIN u ON t.num = u.num WHERE t.s = 'a'"),
]


@pytest.mark.parametrize("sql, words, what, rewritten", OUTER_CASES)
def test_outer_join_that_a_filter_makes_inner_is_reported_at_its_keywords(spark, tables, sql, words, what,
                                                                         rewritten):
    from sparkfold import optimize

    from tests.spark_check import assert_same_result

    found = [f for f in optimize(sql, tables).findings if f.code == "outer-join-not-outer"]
    assert len(found) == 1, found
    f = found[0]
    line_start = sum(len(ln) + 1 for ln in sql.split("\n")[:f.line - 1])
    assert sql[line_start + f.column - 1:].startswith(words)
    assert f"is {what}:" in f.message and f.severity == "warning"
    # the claim, on Spark: the join as written is that join, the same rows, names and types
    # (written as the finding says, a padded column that could be NULL no longer can: a
    # narrower nullability is the point of the edit, not a different result)
    assert_same_result(spark, sql, rewritten, nullability=False)


@pytest.mark.parametrize("sql", [
    "SELECT t.num, u.y FROM t LEFT JOIN u ON t.num = u.num",
    "SELECT t.num, u.y FROM t LEFT JOIN u ON t.num = u.num WHERE u.y > 1 OR u.y IS NULL",
    "SELECT t.num, u.y FROM t LEFT JOIN u ON t.num = u.num AND u.y > 1",
    "SELECT t.num, u.y FROM t JOIN u ON t.num = u.num WHERE u.y > 1",
])
def test_outer_joins_that_stay_outer_are_not_reported(tables, sql):
    from sparkfold import optimize

    assert not [f for f in optimize(sql, tables).findings if f.code == "outer-join-not-outer"]


def test_nothing_to_lint_is_not_an_error(files):
    """pre-commit passes every staged .sql file: an empty or comment-only one has nothing
    to lint, which is no failure (it was an input error, exit 2, before)."""
    (files / "q" / "empty.sql").write_text("")
    (files / "q" / "notes.sql").write_text("-- a file of notes\n/* nothing to run */\n")
    proc = lint(files, "q/empty.sql", "q/notes.sql", "q/clean.sql")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "" and "1 statement linted: 0 errors, 0 warnings, 0 infos" in proc.stderr
    for command in ("optimize", "explain"):
        proc = sparkfold(command, "-f", files / "q" / "notes.sql", "--schema", files / "schema.json")
        assert proc.returncode == 0, proc.stderr
    (files / "q" / "a.sql").unlink()
    proc = sparkfold("optimize", "-f", files / "q", "--schema", files / "schema.json", "--out", files / "out")
    assert proc.returncode == 0, proc.stderr
    assert (files / "out" / "notes.sql").read_text() == "-- a file of notes\n/* nothing to run */\n"


def test_the_summary_counts_the_error_lines_it_printed(files):
    proc = lint(files, "q")
    printed = {s: sum(f": {s}: " in ln for ln in proc.stdout.splitlines()) for s in ("error", "warning", "info")}
    assert printed["error"] == 1  # the unknown column
    plural = {s: f"{n} {s}{'' if n == 1 else 's'}" for s, n in printed.items()}
    assert f"5 statements linted: {plural['error']}, {plural['warning']}, {plural['info']}" in proc.stderr, \
        proc.stderr
    assert "(1 of the errors: could not be analyzed)" in proc.stderr
