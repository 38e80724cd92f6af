"""`sparkfold lint --fix`, `--unsafe-fixes`, `--diff` (optimizer/fixes.py): safe fixes keep
every result, unsafe ones do what their message says, both checked on Spark; files are
rewritten whole, only when something changes, with their comments, layout, line ends and
permissions; a file that cannot be analyzed is left byte for byte."""

from __future__ import annotations

import json
import os
import random
import stat
from pathlib import Path

import pytest

from tests.data import STANDARD_SCHEMA
from tests.test_cli import sparkfold

# (the query, the finding code its fix is for); each has exactly one fix, made safe
SAFE = [
    ("SELECT t.num, u.s FROM t LEFT JOIN u ON t.num = u.num WHERE u.s > 'a'", "outer-join-not-outer"),
    ("SELECT t.x, u.z FROM t FULL OUTER JOIN u ON t.num = u.num WHERE t.x > 0", "outer-join-not-outer"),
    ("SELECT num, x FROM t WHERE num IS NOT NULL AND x > 1", "always-true"),
    ("SELECT num, s FROM t WHERE num IS NOT NULL", "always-true"),
    ("SELECT num FROM t WHERE x > 1 OR num IS NULL", "never-true"),
    ("SELECT num, s FROM t WHERE s = 'a' OR (num IS NULL AND x > 0) OR x < 0", "never-true"),
    ("SELECT CASE WHEN num IS NULL THEN 'none' WHEN x > 1 THEN 'big' ELSE 'small' END AS size FROM t",
     "unreachable-branch"),
    ("SELECT CASE WHEN x > 1 THEN 'x' WHEN num IS NOT NULL THEN 'n' ELSE 'e' END AS c FROM t",
     "unreachable-branch"),
    ("SELECT IF(num IS NULL, 0, num) AS v FROM t", "unreachable-branch"),
    ("SELECT s, count(num) AS c FROM t GROUP BY s", "count-never-null"),
]

# a LEFT JOIN made inner whose padded column is NOT NULL in its table: the same rows, but
# the column becomes NOT NULL: an unsafe fix (the schema is part of the result)
NARROWER = "SELECT t.num, u.y FROM t LEFT JOIN u ON t.num = u.num WHERE u.y > 100"

# (the query, the code, what the fixed query must return: a filter of the rows of the
# query `SELECT ... FROM <table>` that Spark returns, as a Python predicate on them)
UNSAFE = [
    ("SELECT num, x FROM t WHERE x = NULL", "null-comparison", "SELECT num, x FROM t", lambda r: r[1] is None),
    ("SELECT num, x FROM t WHERE x <> NULL", "null-comparison", "SELECT num, x FROM t",
     lambda r: r[1] is not None),
    ("SELECT num, s FROM t WHERE s != NULL", "null-comparison", "SELECT num, s FROM t",
     lambda r: r[1] is not None),
    ("SELECT num, s FROM t WHERE NULL = s", "null-comparison", "SELECT num, s FROM t", lambda r: r[1] is None),
    ("SELECT num, s FROM t WHERE s NOT IN ('a', NULL)", "not-in-null", "SELECT num, s FROM t",
     lambda r: r[1] is not None and r[1] != "a"),
]

# NOT IN over a nullable subquery -> NOT EXISTS: the rows with no equal value in the
# subquery's non-NULL values (what NOT EXISTS with an equality keeps)
NOT_EXISTS = [
    ("SELECT num FROM t WHERE num NOT IN (SELECT u.num FROM u)", "SELECT num FROM u", lambda u: True),
    ("SELECT t.num FROM t WHERE t.num NOT IN (SELECT u.num FROM u WHERE u.s = 'a')", "SELECT num, s FROM u",
     lambda u: u[1] == "a"),
]


def checker():
    from sparkfold.optimizer.fixes import Checker
    from sparkfold.plans.sql_in.catalog import Catalog

    return Checker(Catalog.coerce(STANDARD_SCHEMA))


def fixed(sql: str, unsafe: bool = False):
    from sparkfold.optimizer.fixes import fix_statement

    return fix_statement(sql, checker(), unsafe)


@pytest.mark.parametrize("sql, code", SAFE)
def test_a_safe_fix_is_one_small_edit_proven_safe(sql, code):
    from sparkfold import optimize

    text, applied = fixed(sql)
    assert applied and all(f.safety == "safe" for f in applied), (sql, applied)
    assert code in {f.code for f in optimize(sql, STANDARD_SCHEMA).findings}
    assert code not in {f.code for f in optimize(text, STANDARD_SCHEMA).findings}, text
    assert len(text) < len(sql) + 8  # an edit, not a query written again
    again, more = fixed(text, unsafe=True)
    assert (again, more) == (text, [])  # nothing left to fix: a fixed point


@pytest.mark.parametrize("sql, code, _all, _keep", UNSAFE)
def test_an_unsafe_fix_needs_the_flag(sql, code, _all, _keep):
    assert fixed(sql) == (sql, [])
    text, applied = fixed(sql, unsafe=True)
    assert [f.safety for f in applied] == ["unsafe"] and text != sql


def test_a_fix_that_makes_a_column_not_null_is_unsafe():
    assert fixed(NARROWER) == (NARROWER, [])
    text, (fix,) = fixed(NARROWER, unsafe=True)
    assert text == NARROWER.replace("LEFT JOIN", "JOIN") and fix.safety == "unsafe"
    assert "the column y becomes NOT NULL" in fix.title


def test_safe_and_unsafe_fixes_on_spark(spark, tables):
    """Spark is the oracle: every safe fix gives the original's rows and schema (names,
    types, nullability) over the NULL-heavy tables; every unsafe one does what its
    message says.  One Spark job for all the rows."""
    from tests.spark_check import schema_of

    queries: list[str] = []
    for sql, _ in SAFE:
        queries += [sql, fixed(sql)[0]]
    for sql, _, whole, _ in UNSAFE:
        queries += [sql, fixed(sql, unsafe=True)[0], whole]
    for sql, inner, _ in NOT_EXISTS:
        queries += [sql, fixed(sql, unsafe=True)[0], "SELECT num FROM t", inner]
    queries += [NARROWER, fixed(NARROWER, unsafe=True)[0]]
    rows = _rows_of(spark, queries)
    known: dict[str, list] = {}
    schemas = [known[q] if q in known else known.setdefault(q, schema_of(spark.sql(q))) for q in queries]
    # the narrower one: the same rows, names and types; y is NOT NULL now, as the fix says
    assert sorted(rows[-2]) == sorted(rows[-1])
    assert [(n, t.replace(" not null", "")) for n, t in schemas[-1]] == \
        [(n, t.replace(" not null", "")) for n, t in schemas[-2]]
    assert [n for (n, a), (_, b) in zip(schemas[-2], schemas[-1]) if a != b] == ["y"]
    i = 0
    for sql, _ in SAFE:
        assert schemas[i] == schemas[i + 1], (sql, queries[i + 1])
        assert sorted(rows[i]) == sorted(rows[i + 1]), (sql, queries[i + 1])
        assert queries[i] != queries[i + 1]
        i += 2
    for sql, _, _, keep in UNSAFE:
        original, fix, every = rows[i], rows[i + 1], rows[i + 2]
        assert original == [] and fix, (sql, queries[i + 1])  # never TRUE before; the intent now
        assert sorted(fix) == sorted(r for r in every if keep(json.loads(r)))
        i += 3
    for sql, _, keep in NOT_EXISTS:
        original, fix, outer, inner = rows[i], rows[i + 1], rows[i + 2], rows[i + 3]
        values = {json.loads(r)[0] for r in inner if keep(json.loads(r))} - {None}
        assert original == [] and fix, (sql, queries[i + 1])  # a NULL in the subquery: NOT IN never TRUE
        assert sorted(fix) == sorted(r for r in outer if json.loads(r)[0] not in values), queries[i + 1]
        i += 4


def _rows_of(spark, queries: list[str]) -> list[list[str]]:
    """Each query's rows, as JSON arrays of their values, from one Spark job (each distinct
    query once)."""
    unique = list(dict.fromkeys(queries))
    parts = [f"SELECT {i} AS q, to_json(struct(*), map('ignoreNullFields', 'false')) AS r FROM ({q}) AS q{i}"
             for i, q in enumerate(unique)]
    out: list[list[str]] = [[] for _ in unique]
    for row in spark.sql(" UNION ALL ".join(parts)).collect():
        out[row.q].append(json.dumps(list(json.loads(row.r).values())))
    return [out[unique.index(q)] for q in queries]


# -- the command line ------------------------------------------------------------------------

FILE = ("-- the customers\n"
        "SELECT num, x\n"
        "FROM t\n"
        "WHERE num IS NOT NULL AND x > 1;   -- kept\n"
        "\n"
        "select t.num, u.s\n"
        "from t left join u on t.num = u.num  /* the join */\n"
        "where u.s > 'a';\n"
        "SELECT num FROM t WHERE x = NULL\n")


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "schema.json").write_text(json.dumps(STANDARD_SCHEMA))
    q = tmp_path / "q"
    q.mkdir()
    (q / "a.sql").write_text(FILE)
    (q / "clean.sql").write_text("SELECT num FROM t WHERE x > 1\n")
    (q / "bad.sql").write_text("SELECT num FROM t WHERE x = NULL;\nSELECT num FROM t WHERE\n")
    (q / "crlf.sql").write_bytes(b"\xef\xbb\xbfSELECT num\r\nFROM t\r\nWHERE x > 1 OR num IS NULL\r\n")
    os.chmod(q / "a.sql", 0o640)
    for p in q.iterdir():
        os.utime(p, (1_000_000_000, 1_000_000_000))
    return tmp_path


def lint(folder, *args):
    return sparkfold("lint", *args, "--schema", folder / "schema.json", cwd=folder)


def snapshot(folder) -> dict:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns, stat.S_IMODE(p.stat().st_mode))
            for p in sorted((folder / "q").iterdir())}


def test_fix_writes_the_safe_fixes_in_place_and_reports_what_remains(folder):
    before = snapshot(folder)
    proc = lint(folder, "q", "--fix")
    after = snapshot(folder)
    assert (folder / "q" / "a.sql").read_text() == (
        "-- the customers\n"
        "SELECT num, x\n"
        "FROM t\n"
        "WHERE x > 1;   -- kept\n"
        "\n"
        "select t.num, u.s\n"
        "from t join u on t.num = u.num  /* the join */\n"
        "where u.s > 'a';\n"
        "SELECT num FROM t WHERE x = NULL\n")  # (unsafe: not without --unsafe-fixes)
    assert after["a.sql"][2] == 0o640  # its permissions kept
    # line ends and the byte-order mark kept
    assert after["crlf.sql"][0] == b"\xef\xbb\xbfSELECT num\r\nFROM t\r\nWHERE x > 1\r\n"
    assert after["clean.sql"] == before["clean.sql"]  # nothing to fix: not touched (mtime too)
    assert after["bad.sql"] == before["bad.sql"]  # a statement that does not parse: left as it was
    assert "q/bad.sql:2:19: error: syntax error" in proc.stdout
    assert "q/a.sql:9:25: warning: `x = NULL` is always NULL" in proc.stdout  # the remaining, where they are now
    assert "(unsafe fix available)" in proc.stdout
    assert "Found 7 findings (3 fixed, 4 remaining)" in proc.stderr, proc.stderr  # (bad.sql's two too)
    assert proc.returncode == 2  # bad input, as lint says
    assert not list((folder / "q").glob(".*"))  # no temporary file left


def test_unsafe_fixes_only_with_the_flag_and_fix_twice_is_a_fixed_point(folder):
    (folder / "q" / "bad.sql").unlink()
    proc = lint(folder, "q", "--fix", "--unsafe-fixes")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (folder / "q" / "a.sql").read_text().endswith("SELECT num FROM t WHERE x IS NULL\n")
    assert proc.stdout == "" and "(4 fixed, 0 remaining)" in proc.stderr
    before = snapshot(folder)
    proc = lint(folder, "q", "--fix", "--unsafe-fixes")
    assert snapshot(folder) == before and proc.returncode == 0 and "(0 fixed, 0 remaining)" in proc.stderr


def test_diff_writes_nothing_and_exits_1_when_something_would_change(folder):
    (folder / "q" / "bad.sql").unlink()
    before = snapshot(folder)
    proc = lint(folder, "q", "--diff")
    assert snapshot(folder) == before
    assert proc.returncode == 1
    assert "--- q/a.sql\n+++ q/a.sql\n" in proc.stdout
    assert "-WHERE num IS NOT NULL AND x > 1;   -- kept\n+WHERE x > 1;   -- kept\n" in proc.stdout
    assert "x IS NULL" not in proc.stdout  # (the unsafe fix is not shown without the flag)
    assert "+SELECT num FROM t WHERE x IS NULL" in lint(folder, "q", "--diff", "--unsafe-fixes").stdout
    proc = lint(folder, "q/clean.sql", "--diff")
    assert (proc.returncode, proc.stdout) == (0, "")


def test_stdin_is_printed_fixed(folder):
    proc = sparkfold("lint", "--fix", "--unsafe-fixes", "--schema", folder / "schema.json", "-q",
                     input="SELECT num FROM t WHERE x = NULL OR s = 'a'\n", cwd=folder)
    assert proc.stdout == "SELECT num FROM t WHERE x IS NULL OR s = 'a'\n", proc.stdout + proc.stderr


def test_each_format_says_which_fix_is_available(folder):
    (folder / "q" / "bad.sql").unlink()
    jsonl = [json.loads(ln) for ln in lint(folder, "q/a.sql", "--format", "jsonl", "-q").stdout.splitlines()]
    fixes = {r["code"]: r["fix"] for r in jsonl}
    assert fixes["always-true"]["safety"] == "safe" and fixes["null-comparison"]["safety"] == "unsafe"
    edit = fixes["null-comparison"]
    assert (edit["line"], edit["column"], edit["end_line"], edit["end_column"], edit["text"]) == \
        (9, 25, 9, 33, "x IS NULL")
    log = json.loads(lint(folder, "q/a.sql", "--format", "sarif", "-q").stdout)
    results = log["runs"][0]["results"]
    sarif = next(r for r in results if r["ruleId"] == "null-comparison")["fixes"][0]
    assert sarif["properties"]["safety"] == "unsafe"
    change = sarif["artifactChanges"][0]
    assert change["artifactLocation"]["uri"] == "q/a.sql"
    assert change["replacements"][0] == {
        "deletedRegion": {"startLine": 9, "startColumn": 25, "endLine": 9, "endColumn": 33},
        "insertedContent": {"text": "x IS NULL"}}
    assert not any("fixes" in r for r in results if r["ruleId"] == "never-true")
    text = lint(folder, "q/a.sql").stdout
    assert "[outer-join-not-outer] (safe fix available)" in text


def test_a_sarif_fix_applied_as_written_is_what_fix_writes(folder):
    """The edits the reports carry are the ones --fix makes (applied to the file by
    line and column, one at a time, from the last)."""
    (folder / "q" / "bad.sql").unlink()
    log = json.loads(lint(folder, "q/a.sql", "--format", "sarif", "-q").stdout)
    lines = FILE.splitlines(keepends=True)
    edits = [f["artifactChanges"][0]["replacements"][0] for r in log["runs"][0]["results"]
             for f in r.get("fixes", ()) if f["properties"]["safety"] == "safe"]
    text = FILE
    for e in sorted(edits, key=lambda e: (e["deletedRegion"]["startLine"], e["deletedRegion"]["startColumn"]),
                    reverse=True):
        r = e["deletedRegion"]
        start = sum(len(ln) for ln in lines[:r["startLine"] - 1]) + r["startColumn"] - 1
        end = sum(len(ln) for ln in lines[:r["endLine"] - 1]) + r["endColumn"] - 1
        text = text[:start] + e["insertedContent"]["text"] + text[end:]
    lint(folder, "q/a.sql", "--fix")
    assert (folder / "q" / "a.sql").read_text() == text


def test_the_pre_commit_hooks():
    import yaml

    root = Path(__file__).resolve().parent.parent
    hooks = {h["id"]: h for h in yaml.safe_load((root / ".pre-commit-hooks.yaml").read_text())}
    fix = hooks["sparkfold-lint-fix"]
    assert fix["entry"] == "sparkfold lint --fix" and fix["types"] == ["sql"] and fix["language"] == "python"
    # pre-commit gives each process files of its own: each is rewritten by one
    assert fix["require_serial"] is False


# -- a generated folder --------------------------------------------------------------------

CLEAN = ["SELECT num, x FROM t WHERE x > 1", "SELECT s, count(*) AS c FROM t GROUP BY s",
         "SELECT t.num, u.s FROM t JOIN u ON t.num = u.num"]


def generate(folder: Path, n: int, seed: int = 0) -> dict[str, list[str]]:
    """n files of 1-3 statements each: queries with a safe fix, with an unsafe one, clean
    ones, with comments and layouts of their own; every 25th with a statement that does
    not parse.  Returns each file's statements."""
    rng = random.Random(seed)
    pool = [q for q, _ in SAFE] + [q for q, *_ in UNSAFE] + CLEAN
    made: dict[str, list[str]] = {}
    for i in range(n):
        picked = [rng.choice(pool) for _ in range(rng.randint(1, 3))]
        parts = []
        for q in picked:
            q = q.replace(" FROM ", rng.choice([" FROM ", "\nFROM ", "\n  FROM "]))
            q = q.replace(" WHERE ", rng.choice([" WHERE ", "\nWHERE ", " /* filter */ WHERE "]))
            parts.append(rng.choice(["", "-- a query\n"]) + (q.lower() if rng.random() < 0.2 else q))
        if i % 25 == 24:
            parts.append("SELECT num FROM t WHERE (")
        name = f"d{i % 7}/f{i:04d}.sql"
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(";\n\n".join(parts) + rng.choice(["", "\n", ";\n"]))
        made[name] = parts
    return made


def check_generated_folder(tmp_path, spark, n: int) -> None:
    from sparkfold.optimizer.sources import Source, statements

    (tmp_path / "schema.json").write_text(json.dumps(STANDARD_SCHEMA))
    root = tmp_path / "gen"
    made = generate(root, n)
    for p in root.rglob("*.sql"):
        os.utime(p, (1_000_000_000, 1_000_000_000))
    before = {p: p.read_bytes() for p in root.rglob("*.sql")}
    proc = sparkfold("lint", "gen", "--fix", "--schema", tmp_path / "schema.json", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr  # the files that do not parse
    pairs: set[tuple[str, str]] = set()
    changed = 0
    for p, old in before.items():
        new = p.read_bytes()
        name = str(p.relative_to(root))
        if "WHERE (" in old.decode():
            assert new == old, name  # does not parse: left as it was
            continue
        if new == old:
            assert p.stat().st_mtime_ns == 1_000_000_000 * 10 ** 9, name  # not touched
            continue
        changed += 1
        a = [s.text for s in statements(Source(name, old.decode()))]
        b = [s.text for s in statements(Source(name, new.decode()))]
        assert len(a) == len(b)
        for x, y in zip(a, b):
            if any(w in x.upper() for w in ("= NULL", "<> NULL", "NULL =", ", NULL)")):
                assert y == x  # an unsafe fix only, not without the flag
            if x != y:
                pairs.add((x, y))
    assert changed > n // 3
    if spark is None:
        return
    from tests.spark_check import schema_of

    pairs_ = sorted(pairs)
    rows = _rows_of(spark, [q for pair in pairs_ for q in pair])
    for k, (x, y) in enumerate(pairs_):
        assert sorted(rows[2 * k]) == sorted(rows[2 * k + 1]), (x, y)
        assert schema_of(spark.sql(x)) == schema_of(spark.sql(y)), (x, y)


def test_a_generated_folder(tmp_path):
    """A sample of the generated folder, without Spark (the fixes' kinds are checked on
    Spark above; SPARKFOLD_LONG=1 runs 1,000 files, each changed statement on Spark)."""
    check_generated_folder(tmp_path, None, 40)


@pytest.mark.slow
def test_a_generated_folder_of_1000_files_on_spark(tmp_path, spark, tables):
    check_generated_folder(tmp_path, spark, 1000)
