"""The sqlglot versions sparkfold supports (plans/sqlglot_version.py): the widest range
the test run checks.  The whole run checks the installed (highest) version; here the
lowest is installed beside it and the tests that read sqlglot's trees, grammar and
printers run on it.  A sqlglot out of the range is named at import, with what to
install, and the command says so in one line."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from sparkfold.plans import sqlglot_version as V

ROOT = Path(__file__).resolve().parents[1]
# the tests that exercise what differs between sqlglot's versions without Spark: the
# parser and its corrections, the printers, the spliced output, every TPC query optimized
LOWEST_RUN = ["tests/test_grammar.py", "tests/test_explain.py", "tests/test_splice.py",
              "tests/test_tpc_corpus.py", "tests/test_naming.py", "tests/test_operator_precedence.py",
              "tests/test_rules_expression_corpus.py"]


def test_the_requirement_is_the_range_checked_at_import():
    pyproject = (ROOT / "pyproject.toml").read_text()
    setup = (ROOT / "setup.py").read_text()
    pins = re.findall(r'"sqlglot(?:\[c\])?([<>=!~][^"]*)"', pyproject + setup)
    assert pins and set(pins) == {V.REQUIREMENT.removeprefix("sqlglot")}, pins


@pytest.mark.parametrize("version, ok", [
    ("30.8.0", True), (".".join(map(str, V.LOWEST)), True), ("30.30.0", True), ("30.99.1rc1", True),
    ("30.7.9", False), ("29.0.1", False), ("31.0.0", False), ("31.0.0.dev3", False), ("4.0", False),
])
def test_a_version_out_of_the_range_is_named_with_what_to_install(version, ok):
    message = V.problem(version)
    assert (message is None) is ok, message
    if not ok:
        assert f"sqlglot {version} is installed" in message and f"pip install '{V.REQUIREMENT}'" in message


def test_the_installed_version_is_read_without_importing_sqlglot():
    import sqlglot

    assert V.installed() == sqlglot.__version__
    assert V.problem(V.installed()) is None


# what the installed `sparkfold` script runs (pyproject.toml's [project.scripts])
COMMAND = "import sys, sparkfold; sys.exit(sparkfold._command())"


def _fake_sqlglot(tmp_path: Path, version: str) -> dict:
    pkg = tmp_path / "sqlglot"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("raise ImportError('this stand-in is never imported')\n")
    (pkg / "_version.py").write_text(f"__version__ = version = '{version}'\n")
    return {**os.environ, "PYTHONPATH": str(tmp_path)}


def test_the_command_and_the_library_name_a_sqlglot_out_of_the_range(tmp_path):
    assert re.search(r'^sparkfold = "sparkfold:_command"$', (ROOT / "pyproject.toml").read_text(), re.M)
    env = _fake_sqlglot(tmp_path, "29.0.1")
    cli = subprocess.run([sys.executable, "-c", COMMAND, "optimize", "SELECT 1"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert cli.returncode == 2 and cli.stdout == ""
    assert cli.stderr == (f"sparkfold: error: sparkfold needs {V.REQUIREMENT}, and sqlglot 29.0.1 is "
                          f"installed: pip install '{V.REQUIREMENT}'\n")
    lib = subprocess.run([sys.executable, "-c", "import sparkfold; sparkfold.optimize('SELECT 1')"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert lib.returncode == 1 and lib.stderr.strip().splitlines()[-1] == \
        f"ImportError: sparkfold needs {V.REQUIREMENT}, and sqlglot 29.0.1 is installed: pip install '{V.REQUIREMENT}'"
    helped = subprocess.run([sys.executable, "-c", COMMAND, "--version"],
                            capture_output=True, text=True, env=env, timeout=120)
    assert helped.returncode == 2 and "sqlglot 29.0.1" in helped.stderr


def test_the_lowest_version_passes_the_tests_that_read_sqlglot(tmp_path):
    lowest = ".".join(map(str, V.LOWEST))
    target = tmp_path / "lowest"
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                          f"sqlglot=={lowest}"], capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stderr
    env = {**os.environ, "PYTHONPATH": str(target)}
    seen = subprocess.run([sys.executable, "-c", "import sqlglot; print(sqlglot.__version__)"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert seen.stdout.strip() == lowest, seen.stderr
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-o", "addopts=", "-p", "no:cacheprovider",
                          "-m", "not spark", *LOWEST_RUN], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=1200)
    tail = "\n".join(run.stdout.splitlines()[-30:])
    assert run.returncode == 0, tail
    assert re.search(r"\d+ passed", tail) and "failed" not in tail, tail
