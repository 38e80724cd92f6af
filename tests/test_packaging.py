"""What a user gets with the package: its version where Python tools look for it, the
licence pyproject.toml names, and a clean `git status` after the README's commands."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import sparkfold

ROOT = Path(__file__).resolve().parents[1]


def test_version_is_the_installed_distributions_and_the_clis():
    assert sparkfold.__version__ == version("sparkfold")
    out = subprocess.run([sys.executable, "-m", "sparkfold.optimizer.cli", "--version"],
                         capture_output=True, text=True, timeout=60).stdout
    assert sparkfold.__version__ in out
    assert "__version__" in dir(sparkfold)


def test_the_licence_pyproject_names_is_in_the_repository():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert meta["license"]["text"] == "Apache-2.0"
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text


def _written_by_readme() -> set[str]:
    """Paths the README's and the documentation's commands (and the example script it
    shows) write into the checkout: `--out DIR`, `-o FILE`, `> FILE`, the example script's
    default folder, and the site `mkdocs build` writes."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "examples" / "optimize_folder.sh"]
    text = "".join(p.read_text() for p in pages)
    # (not a notebook's magic line: `%%sparkfold -o df` names a variable)
    shell = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("%"))
    found = set(re.findall(r"(?:--out|-o)\s+([\w./-]+)", shell))
    found |= set(re.findall(r"out=\$\{1:-([\w.-]+)\}", text))
    if "mkdocs build" in text:
        found.add("site")  # MkDocs' default output folder
    return {p.rstrip("/") for p in found if not p.startswith(("/", "$", "-")) and not p.isupper()}


def test_what_the_readmes_commands_write_is_ignored_by_git():
    written = _written_by_readme()
    assert {"optimized", "optimized-queries", "explain.html"} <= written  # the parse finds them
    if not (ROOT / ".git").exists():
        return  # an unpacked source distribution: no git to ask
    proc = subprocess.run(["git", "check-ignore", "--no-index", *sorted(written)], cwd=ROOT,
                          capture_output=True, text=True)
    ignored = set(proc.stdout.split())
    assert ignored == written, f"not ignored: {sorted(written - ignored)}"
