"""The package's shape: one import name (`sparkfold`), layers that only import downward,
and no import cycles.

The layers are import-linter contracts in pyproject.toml (`lint-imports` checks them);
the installed package is checked from a wheel, outside the repository, next to a user's
own `rules.py` and `optimizer.py`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("sparkfold.optimizer", "sparkfold.rules", "sparkfold.plans.ir", "sparkfold.plans.sql_in",
          "sparkfold.plans.sql_out", "sparkfold.plans.pyspark")


def _lint_imports() -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("lint-imports")
    return subprocess.run([str(exe), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_layer_contracts_hold():
    proc = _lint_imports()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout
    for name in ("optimizer > rules > plans", "plans: backends | frontend > ir", "no import cycles"):
        assert f"{name} KEPT" in proc.stdout


def test_every_layer_holds_modules():
    # the contracts are not kept vacuously: each layer they name has its modules
    import grimp

    graph = grimp.build_graph("sparkfold", include_external_packages=False)
    for layer in LAYERS:
        inside = [m for m in graph.modules if m.startswith(layer + ".")]
        assert inside, layer
    # and the layers do use each other downward
    assert graph.direct_import_exists(importer="sparkfold.optimizer.engine", imported="sparkfold.rules.base")
    assert graph.direct_import_exists(importer="sparkfold.plans.sql_out.to_sql",
                                      imported="sparkfold.plans.ir.logical")


def test_contracts_catch_an_upward_import(tmp_path):
    """A copy of the package with one upward import (the IR importing a rule) breaks the
    layers contract: the check is real."""
    import shutil

    copy = tmp_path / "sparkfold"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(".venv", ".git", "tests", "bench", "examples",
                                                             "__pycache__", "*.egg-info"))
    tree = copy / "plans" / "ir" / "tree.py"
    tree.write_text(tree.read_text() + "\nfrom ...rules import base as _upward  # noqa\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    exe = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run([str(exe), "--no-cache", "--config", str(ROOT / "pyproject.toml")], cwd=tmp_path,
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode != 0
    assert "optimizer > rules > plans BROKEN" in proc.stdout
    assert "sparkfold.plans.ir.tree -> sparkfold.rules.base" in proc.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The package as `pip install .` installs it (from a built wheel), in a folder of its own."""
    work = tmp_path_factory.mktemp("wheel")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work), str(ROOT)],
                           capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr
    wheel = next(work.glob("sparkfold-*.whl"))
    target = work / "site"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(target)
    return target


def test_wheel_installs_only_the_sparkfold_package(installed):
    tops = {p.name for p in installed.iterdir() if not p.name.endswith(".dist-info")}
    # and the one-line .pth that arms sparkfold when SPARKFOLD is set (tests/test_runner.py)
    assert tops == {"sparkfold", "sparkfold-autohook.pth"}
    for sub in ("optimizer", "rules", "plans", "plans/ir", "plans/sql_in", "plans/sql_out", "plans/pyspark"):
        assert (installed / "sparkfold" / sub / "__init__.py").is_file(), sub
    assert not (installed / "sparkfold" / "tests").exists()


def _run(code_or_args, cwd: Path, site: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    args = ["-c", code_or_args] if isinstance(code_or_args, str) else code_or_args
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120)


def test_installed_package_is_imported_as_sparkfold_only(installed, tmp_path):
    proc = _run("import sparkfold.optimizer.api as a; print(a.__file__)", tmp_path, installed)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(str(installed))
    for bare in ("optimizer", "rules", "plans"):
        proc = _run(f"import {bare}", tmp_path, installed)
        assert proc.returncode != 0 and "ModuleNotFoundError" in proc.stderr, (bare, proc.stderr)


def test_user_files_named_like_the_subpackages_do_not_break_sparkfold(installed, tmp_path):
    (tmp_path / "rules.py").write_text("raise SystemExit('the user rules.py was imported')\n")
    (tmp_path / "optimizer.py").write_text("raise SystemExit('the user optimizer.py was imported')\n")
    (tmp_path / "plans.py").write_text("raise SystemExit('the user plans.py was imported')\n")
    code = ("from sparkfold import optimize\n"
            "print(optimize('SELECT count(num) FROM t', {'t': {'num': 'int not null'}}).sql)")
    proc = _run(code, tmp_path, installed)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "SELECT count(1) AS `count(num)` FROM t"
    # the CLI, run from that folder (`-m` puts the folder first on sys.path)
    (tmp_path / "schema.json").write_text('{"t": {"num": "int not null"}}')
    proc = _run(["-m", "sparkfold.optimizer.cli", "optimize", "SELECT count(num) FROM t WHERE num = 1",
                 "--schema", "schema.json"], tmp_path, installed)
    assert proc.returncode == 0, proc.stderr
    assert "count(1)" in proc.stdout


def test_the_core_never_imports_spark(tmp_path):
    """optimize, explain, lint and the CLI run without PySpark (the core install); verify
    without it says what to install."""
    (tmp_path / "schema.json").write_text('{"t": {"num": "int not null"}}')
    code = """
import sys
sys.modules["pyspark"] = None  # as if not installed: importing it raises ImportError
import sparkfold
from sparkfold.optimizer.cli import main
r = sparkfold.optimize("SELECT count(num) FROM t WHERE num = NULL", {"t": {"num": "int not null"}})
r.explain(); r.explain(format="json")
codes = [main(["optimize", "SELECT count(num) FROM t", "--schema", "schema.json"]),
         main(["lint", "--sql", "SELECT num FROM t WHERE num = NULL", "--schema", "schema.json", "-q"]),
         main(["explain", "SELECT num FROM t", "--schema", "schema.json"]),
         main(["verify", "SELECT 1"])]
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("pandas", "pyarrow", "py4j", "grpc"))
print("CODES", codes, "HEAVY", heavy)
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert "CODES [0, 1, 0, 2] HEAVY []" in proc.stdout, proc.stdout + proc.stderr
    assert "pip install 'sparkfold[spark]'" in proc.stderr


@pytest.fixture(scope="module")
def compiled(installed, tmp_path_factory) -> str:
    """A PYTHONPATH with sqlglot's compiled build (sqlglotc, what `pip install
    "sqlglot[c]"` or sparkfold's `fast` extra adds) before the wheel: installed for real,
    at the version of the sqlglot in use."""
    import sqlglot

    site = tmp_path_factory.mktemp("sqlglotc") / "site"
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site),
                          f"sqlglot=={sqlglot.__version__}", f"sqlglotc=={sqlglot.__version__}"],
                         capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stderr
    path = f"{site}{os.pathsep}{installed}"
    probe = _run("import sqlglot.parser as p; print(p.__file__)", site, path)
    assert probe.stdout.strip().endswith(".so"), probe.stdout + probe.stderr  # really compiled
    return path


# Each of sparkfold's corrections to sqlglot's Spark grammar and printer, with a finding
# and its line:column (sqlglotc's classes cannot be subclassed: plans/sql_in/grammar.py)
_CUSTOMIZED = [
    "SELECT 'four: ' || 2 + 2",                                    # || binds like + and -
    "SELECT 'a' || num - 1 || 'b' AS s, num * 2 || 'x' FROM t",
    "SELECT any(num > 1) FROM t",                                  # any(v): the aggregate
    "SELECT to_char(num, '999'), date_sub(current_date(), 1), initcap('ab') FROM t",  # kept as written
    "SELECT first(num, true), first(num) FROM t",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY num) FROM t",  # WITHIN GROUP as written
    "SELECT 1L + num, 2S, 1.5BD, num <=> NULL, NOT (num IS NULL) FROM t",  # typed literals, <=>, IS NOT NULL
    "SELECT CAST('1' AS INT), double(num), substr('abc', num), IF(num > 1, 'a', 'b') FROM t",
    "SELECT count(num) AS count FROM t",
    "SELECT *\nFROM t\nWHERE num = NULL",                        # findings with line:column
    "SELECT CASE WHEN num IS NULL THEN 1 WHEN num = NULL THEN 2 END FROM t\nWHERE num NOT IN (1, NULL)",
    "SELECT num FROM t WHERE EXISTS (SELECT 1 FROM tokens WHERE tokens.id = t.num) AND num <> NULL",
    "SELECT (num > 1) BETWEEN num = 1 AND TRUE FROM t WHERE num <> NULL",  # a comparison as a bound
    "SELECT * FROM (SELECT id, word FROM tokens WHERE 1 = 1) PIVOT (-count(*) + 1 AS c, max(id) m "  # PIVOT of
    "FOR word IN ('a', 'b'))",                                                                        # expressions
    # a star among a call's arguments: the call parsed again around its columns (stars.py)
    "SELECT coalesce(*), count(DISTINCT t.*, 1), 1 IN (t.*) AS i FROM t WHERE num = NULL OR 1 = 1 GROUP BY ALL",
    # variant paths: a marker call around the operand, written back as the path (variant_paths.py)
    "SELECT parse_json(word):a.b, parse_json(word):['k'][0]::int AS n FROM tokens WHERE 1 = 1 OR id = NULL",
]

_CLI = """
import contextlib, io, json, sys
from sparkfold.optimizer.cli import main
out = []
for q in json.loads(sys.argv[1]):
    for args in (["optimize", q, "--schema", sys.argv[2]], ["optimize", q, "--schema", sys.argv[2], "--pretty"],
                 ["lint", "--sql", q, "--schema", sys.argv[2]]):
        o, e = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
            code = main(args)
        out.append([args[0], q, code, o.getvalue(), e.getvalue()])
print(json.dumps(out))
"""


def test_sqlglotc_gives_the_same_output(installed, compiled, tmp_path):
    """With sqlglot's compiled build the CLI's `optimize` and `lint` print what they print
    with the pure-Python one: the optimized SQL, the findings and their positions."""
    args = ["-c", _CLI, json.dumps(_CUSTOMIZED), str(ROOT / "examples" / "schema.json")]
    pure, fast = _run(args, tmp_path, installed), _run(args, tmp_path, compiled)
    assert pure.returncode == 0 and fast.returncode == 0, pure.stderr + fast.stderr
    pure_out, fast_out = json.loads(pure.stdout), json.loads(fast.stdout)
    assert len(pure_out) == 3 * len(_CUSTOMIZED)
    for p, f in zip(pure_out, fast_out):
        assert p == f
    assert any(":3:7: warning:" in r[4] for r in pure_out)  # a finding's line:column, in both


_TPC = """
import json, sys
sys.path.insert(0, sys.argv[1])
from tests import tpc
import sparkfold
out = {}
for corpus in ("tpch", "tpcds"):
    schema = tpc.schema(corpus)
    for name, sql in tpc.queries(corpus):
        r = sparkfold.optimize(sql, schema)
        out[name] = [r.sql, [(f.code, f.line, f.column, f.end_line, f.end_column) for f in r.findings]]
print(json.dumps(out))
"""


def test_sqlglotc_optimizes_the_tpc_queries_the_same(installed, compiled, tmp_path):
    """The optimized SQL of every TPC-H / TPC-DS query, and its findings, with and without
    sqlglotc (one process each)."""
    from tests import tpc

    args = ["-c", _TPC, str(ROOT)]
    pure, fast = _run(args, tmp_path, installed), _run(args, tmp_path, compiled)
    assert pure.returncode == 0 and fast.returncode == 0, pure.stderr[-2000:] + fast.stderr[-2000:]
    pure_out, fast_out = json.loads(pure.stdout), json.loads(fast.stdout)
    assert len(pure_out) == len(tpc.queries("tpch")) + len(tpc.queries("tpcds")) > 100
    assert [k for k in pure_out if pure_out[k] != fast_out[k]] == []


_SPANS = """
import json, sys
sys.path.insert(0, sys.argv[1])
from tests import tpc
import sparkfold
from sparkfold.plans.ir import dialect
from sparkfold.plans.sql_in import parse, spans
counts = {"parsed": 0, "recorded": 0, "nodes_parsed": 0, "nodes_placed": 0}
prepare, span, parse_statements = spans.Recorder._prepare, spans.Recorder._span, parse.parse_statements
def counted_prepare(self):
    counts["recorded"] += 1
    return prepare(self)
def counted_span(self, node):
    counts["nodes_placed"] += 1
    return span(self, node)
def counted_parse(*args, **kwargs):
    counts["parsed"] += 1
    trees = parse_statements(*args, **kwargs)
    counts["nodes_parsed"] += sum(1 for t in trees for _ in t.walk())
    return trees
spans.Recorder._prepare, spans.Recorder._span = counted_prepare, counted_span
parse.parse_statements = counted_parse
schema = tpc.schema("tpcds")
def run(sql):
    r = sparkfold.optimize(sql, schema)
    return [r.sql, [(f.code, f.line, f.column, f.end_line, f.end_column) for f in r.findings]]
alone = [run(sql) for _, sql in tpc.queries("tpcds")]
out = {**counts, "pending": len(dialect._PENDING_SPANS)}
from concurrent.futures import ThreadPoolExecutor
sys.setswitchinterval(1e-6)  # threads switch often: a race shows
with ThreadPoolExecutor(8) as pool:  # the hooks' case: runs in flight in many threads
    together = list(pool.map(run, [sql for _, sql in tpc.queries("tpcds")] * 2))
out["threads_differ"] = [i for i, r in enumerate(together) if r != alone[i % len(alone)]]
out["pending_after_threads"] = len(dialect._PENDING_SPANS)
print(json.dumps(out))
"""


def test_sqlglotc_reads_spans_only_for_trees_asked_and_keeps_none(compiled, tmp_path):
    """With sqlglotc the source spans are read from the tokens only when a node is placed
    (a finding, a splice): the trees an optimize() parses and is done with (the query, the
    splice's read-back) are dropped, not recorded for nothing when later trees come, and
    not kept alive after it returns; runs in many threads place their findings alike."""
    from tests import tpc

    fast = _run(["-c", _SPANS, str(ROOT)], tmp_path, compiled)
    assert fast.returncode == 0, fast.stderr[-2000:]
    counts = json.loads(fast.stdout)
    assert counts["pending"] == 0
    # 8 threads at once: the same SQL and the same finding positions as one at a time
    assert counts["threads_differ"] == [] and counts["pending_after_threads"] == 0
    # about half the trees parsed are never placed (most queries have no finding, and no
    # read-back is placed); before, every tree but the last 16 was recorded
    assert counts["parsed"] > 120 and counts["recorded"] < 0.6 * counts["parsed"], counts
    # and in a tree placed, only the subtrees asked about: before, the whole tree
    assert 0 < counts["nodes_placed"] < 0.2 * counts["nodes_parsed"], counts


_PLACED_IN_ANY_ORDER = """
import json, random, sys
sys.path.insert(0, sys.argv[1])
from tests import tpc
from sparkfold.plans.ir.dialect import compiled_sqlglot, node_span
from sparkfold.plans.sql_in.parse import parse_query
assert compiled_sqlglot()
rng = random.Random(1)
nodes = differ = 0
for corpus in ("tpch", "tpcds"):
    for _, sql in tpc.queries(corpus):
        whole, lazy = parse_query(sql), parse_query(sql)
        want = [node_span(n) for n in whole.walk()]  # the root first: the whole tree at once
        lazy_nodes = list(lazy.walk())
        order = list(range(len(lazy_nodes)))
        rng.shuffle(order)
        got = [None] * len(lazy_nodes)
        for i in order:  # one subtree at a time, leaves and inner nodes mixed
            got[i] = node_span(lazy_nodes[i])
        nodes += len(want)
        differ += sum(a != b for a, b in zip(want, got))
print(json.dumps({"nodes": nodes, "differ": differ}))
"""


def test_sqlglotc_places_a_subtree_as_the_whole_tree_would(compiled, tmp_path):
    """With sqlglotc, spans are read for the subtree asked about only (`spans.Recorder`):
    nodes asked for in any order get the spans that placing the whole tree at once gives,
    on every TPC node (NULL / TRUE / FALSE are paired with their tokens over the whole text,
    so those are the ones a subtree alone would get wrong)."""
    from tests import tpc

    run = _run(["-c", _PLACED_IN_ANY_ORDER, str(ROOT)], tmp_path, compiled)
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout)
    assert out["nodes"] > 20000 and out["differ"] == 0, out
