"""The compiled build (`SPARKFOLD_COMPILE=1 pip install .`, setup.py): the IR, the rules,
the SQL reader and writer, and the optimizer's rewrite check and splice compiled with
mypyc.  Built here for real, as a wheel (mypy and a C compiler fetched and used as a
user's build would), then held to the interpreted package: the same optimized SQL,
regenerated SQL and findings on every TPC-H and TPC-DS query, with ANSI on and off, with
sqlglot pure and with its compiled build (sqlglotc), and on 1,200 fuzzed queries.

Compiling the whole core takes minutes (265 s of a 22-minute test run on 2 cores), so
the default run builds the wheel with one module compiled (`SPARKFOLD_COMPILE_MODULES`,
optimizer/splice.py: the same build steps, the rest interpreted) and runs every check
on it, over 300 of the fuzzed queries; SPARKFOLD_LONG=1 also builds the whole core and
checks it over all 1,200."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests import tpc

ROOT = Path(__file__).resolve().parent.parent

LONG = os.environ.get("SPARKFOLD_LONG") == "1"
FUZZED = 200 if LONG else 50  # fuzzed queries per world (6 worlds)

# the modules that must come compiled (one per compiled folder), by build: the globs
# compiled (None: the whole core, setup.py's default) and the modules they give
_BUILDS = {
    "one module": (["optimizer/splice.py"], ["sparkfold.optimizer.splice"]),
    "whole core": (None, ["sparkfold.plans.ir.tree", "sparkfold.plans.ir.expressions", "sparkfold.rules.base",
                          "sparkfold.plans.sql_in.analyzer", "sparkfold.plans.sql_out.to_sql",
                          "sparkfold.optimizer.splice"]),
}

_PROBE = """
import importlib, json, sys
sys.path.insert(0, sys.argv[1])
from tests import tpc
from sparkfold import optimize
from sparkfold.plans.sql_in.catalog import Catalog
out = {"files": {m: importlib.import_module(m).__file__ for m in json.loads(sys.argv[2])}, "queries": {}}
for corpus in ("tpch", "tpcds"):
    for ansi in (True, False):
        catalog = Catalog.from_mapping(tpc.schema(corpus), ansi=ansi)
        for name, sql in tpc.queries(corpus):
            try:
                r = optimize(sql, catalog)
                got = [r.sql, r.regenerated_sql, [(f.code, f.line, f.column, f.message) for f in r.findings]]
            except Exception as e:
                got = f"{type(e).__name__}: {e}"
            out["queries"][f"{name} ansi={ansi}"] = got
from tests.fuzz.queries import random_queries
from tests.fuzz.world import make_world
out["fuzz"] = {}
for seed in range(1, 7):
    world = make_world(seed)
    for i, (sql, _) in enumerate(random_queries(world, seed, int(sys.argv[3]))):
        try:
            r = optimize(sql, world.catalog)
            got = [r.sql, r.regenerated_sql, [(f.code, f.line, f.column, f.message) for f in r.findings]]
        except Exception as e:
            got = f"{type(e).__name__}: {e}"
        out["fuzz"][f"fz{seed}/{i}"] = got
import gc
from sparkfold.rules.constraints import Key
gc.collect(); gc.disable(); gc.set_debug(gc.DEBUG_SAVEALL)  # keep what only the collector frees
for name, sql in tpc.queries("tpcds"):
    optimize(sql, catalog)
gc.collect()
out["facts_left_to_gc"] = sum(type(o) is Key for o in gc.garbage)
print(json.dumps(out))
"""


def _wheel(tmp: Path, compile_: bool, modules: list[str] | None = None) -> Path:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "SPARKFOLD_COMPILE", "SPARKFOLD_COMPILE_MODULES")}
    python = sys.executable
    if compile_:
        env["SPARKFOLD_COMPILE"] = "1"
        if modules:
            env["SPARKFOLD_COMPILE_MODULES"] = " ".join(modules)
        # from a new environment, as a user's first `pip install .` builds it: none of the
        # optional dependencies (pyspark) is installed yet where mypy looks for types
        fresh = tmp / "fresh-venv"
        subprocess.run([sys.executable, "-m", "venv", str(fresh)], check=True, timeout=300)
        python = str(fresh / "bin" / "python")
    out = tmp / ("compiled" if compile_ else "interpreted")
    build = subprocess.run([python, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
                           capture_output=True, text=True, env=env, timeout=1800)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    [wheel] = out.glob("sparkfold-*.whl")
    with zipfile.ZipFile(wheel) as z:
        z.extractall(out / "site")
    return out / "site"


def _probe(site: Path, cwd: Path, compiled: list[str], fuzzed: int = FUZZED) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    run = subprocess.run([sys.executable, "-c", _PROBE, str(ROOT), json.dumps(compiled), str(fuzzed)], cwd=cwd,
                         capture_output=True, text=True, env=env, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout)


@pytest.fixture(scope="module", params=["one module", pytest.param("whole core", marks=pytest.mark.slow)])
def build(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def plain_outputs() -> dict:
    """The plain wheel and its outputs, made once for both builds."""
    return {}


@pytest.fixture(scope="module")
def sites(build, plain_outputs, tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("builds")
    # compiled first: a plain build after a compiled one, in the same checkout, must not
    # pick up the compiled modules left in its build folder
    compiled = _wheel(tmp, True, _BUILDS[build][0])
    if "site" not in plain_outputs:
        plain_outputs["site"] = _wheel(tmp, False)
    return plain_outputs["site"], compiled


@pytest.fixture(scope="module")
def plain(sites, plain_outputs, tmp_path_factory) -> dict:
    """The plain wheel's outputs."""
    if "out" not in plain_outputs:
        out = _probe(sites[0], tmp_path_factory.mktemp("plain"), _BUILDS["whole core"][1])
        assert all(f.endswith(".py") for f in out["files"].values()), out["files"]
        assert len(out["queries"]) == 2 * (len(tpc.queries("tpch")) + len(tpc.queries("tpcds"))) > 200
        assert sum(q[0] != q[1] for q in out["queries"].values() if isinstance(q, list)) > 50  # rewrites happen
        plain_outputs["out"] = out
    return plain_outputs["out"]


@pytest.fixture(scope="module")
def compiled(build, sites, tmp_path_factory) -> dict:
    """The compiled wheel's outputs."""
    return _probe(sites[1], tmp_path_factory.mktemp("compiled"), _BUILDS[build][1])


def test_the_compiled_build_compiles_the_core(build, sites, compiled):
    interpreted, site = sites
    for module in _BUILDS[build][1]:
        *folder, name = module.split(".")[1:]
        so = [p.name for p in site.joinpath("sparkfold", *folder).iterdir() if p.suffix in (".so", ".pyd")]
        assert any(n.startswith(f"{name}.") for n in so), (module, so)
    assert not any(p.suffix in (".so", ".pyd") for p in interpreted.rglob("*")), "the plain build has compiled modules"
    files = compiled["files"]
    assert all(not f.endswith(".py") for f in files.values()), files  # the compiled modules are the ones imported


def test_the_compiled_build_optimizes_the_tpc_queries_the_same(plain, compiled):
    assert [k for k in plain["queries"] if plain["queries"][k] != compiled["queries"][k]] == []


def test_the_compiled_build_optimizes_fuzzed_queries_the_same(plain, compiled):
    """1,200 random queries (tests/fuzz: NULL, NaN and infinities everywhere, every rule's
    shapes; 300 in the default run).  They caught what the TPC queries did not: compiled,
    `null_intolerant`, a class attribute in Expr that Func overrode with a property, was
    read from Expr, and `concat(x, NULL)` (4 of 3,000 fuzzed queries) stayed unfolded."""
    assert len(plain["fuzz"]) == 6 * FUZZED
    assert sum(isinstance(v, list) and v[1] is not None for v in plain["fuzz"].values()) > 2.5 * FUZZED  # rewritten
    assert [k for k in plain["fuzz"] if plain["fuzz"][k] != compiled["fuzz"][k]] == []


def test_a_runs_facts_are_freed_when_it_ends_not_left_to_the_garbage_collector(plain, compiled):
    """The facts a run derives (a canonical key per predicate, ...) are freed as soon as
    the run ends, in both builds.  Compiled, the closures of the rule walk once held them
    in reference cycles (a closure's environment refers to the closures): each run's
    facts, 11,000 keys over TPC-DS, waited for the garbage collector, which then walked
    them again."""
    assert plain["facts_left_to_gc"] == 0
    assert compiled["facts_left_to_gc"] == 0


def test_the_compiled_build_with_sqlglotc_optimizes_the_tpc_queries_the_same(build, sites, plain, tmp_path):
    """Both compiled: sparkfold's core and sqlglot (sqlglotc, the `fast` extra), installed
    for real at the version of the sqlglot in use."""
    import sqlglot

    compiled = sites[1]
    site = tmp_path / "sqlglotc"
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site),
                          f"sqlglot=={sqlglot.__version__}", f"sqlglotc=={sqlglot.__version__}"],
                         capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stderr
    both = _probe(Path(f"{compiled}{os.pathsep}{site}"), tmp_path, _BUILDS[build][1], fuzzed=0)
    assert all(not f.endswith(".py") for f in both["files"].values()), both["files"]
    import_check = subprocess.run([sys.executable, "-c", "import sqlglot.parser as p; print(p.__file__)"],
                                  capture_output=True, text=True, cwd=tmp_path,
                                  env={**os.environ, "PYTHONPATH": f"{compiled}{os.pathsep}{site}"})
    assert import_check.stdout.strip().endswith((".so", ".pyd")), import_check.stdout + import_check.stderr
    assert [k for k in plain["queries"] if plain["queries"][k] != both["queries"][k]] == []
