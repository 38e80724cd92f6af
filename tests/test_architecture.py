"""The package's shape: one import name (`sparkfold`), layers that only import downward,
and no import cycles.

The layers are import-linter contracts in pyproject.toml (`lint-imports` checks them);
the installed package is checked from a wheel, outside the repository, next to a user's
own `rules.py` and `optimizer.py`."""

from __future__ import annotations

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


def test_compiled_sqlglot_gives_one_clear_error(installed, tmp_path):
    """With sqlglotc (`pip install "sqlglot[c]"`, which sqlglot's own warning recommends)
    sqlglot's parser is compiled and cannot be subclassed: the user gets one line saying
    so and what to do, exit code 2, not a TypeError traceback.  Installed for real, next
    to the wheel, at the version of the sqlglot in use."""
    import sqlglot

    compiled = tmp_path / "compiled"
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(compiled),
                          f"sqlglot=={sqlglot.__version__}", f"sqlglotc=={sqlglot.__version__}"],
                         capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stderr
    site = f"{compiled}{os.pathsep}{installed}"
    probe = _run("import sqlglot.parser as p; print(p.__file__)", tmp_path, site)
    assert probe.stdout.strip().endswith(".so"), probe.stdout + probe.stderr  # really compiled
    proc = _run(["-m", "sparkfold.optimizer.cli", "optimize", "SELECT 1 WHERE 1 = 1"], tmp_path, site)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "sparkfold: error: sqlglot's compiled build (sqlglotc, from `sqlglot[c]`) is installed, and sparkfold "
        "extends sqlglot's Spark parser, which compiled classes do not allow: `pip uninstall sqlglotc` to use "
        "sqlglot's pure-Python build"]
