"""`sparkfold lsp` in a real editor: Neovim's built-in LSP client, headless
(tests/neovim_lsp.lua), opens a file with `= NULL`, gets the diagnostic, applies the code
action through `vim.lsp.buf.code_action` and writes the file; the test reads it back.
Neovim is Debian's package (`.ci/run` installs it); no Spark."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the lsp extra (pip install -e '.[test]' installs it)")

ROOT = Path(__file__).resolve().parent.parent
NVIM = shutil.which("nvim")


@pytest.mark.skipif(NVIM is None, reason="Neovim is not installed (.ci/run installs Debian's package)")
def test_neovim_applies_the_code_action_and_writes_the_file(tmp_path):
    (tmp_path / "schema.json").write_text(json.dumps({"t": {"num": "int not null", "s": "string"}}))
    query = tmp_path / "q.sql"
    query.write_text("-- rows without an s\nSELECT num\nFROM t\nWHERE s = NULL\n")
    report = tmp_path / "report.json"
    env = dict(os.environ, SPARKFOLD_NVIM_FILE=str(query), SPARKFOLD_NVIM_ROOT=str(tmp_path),
               SPARKFOLD_NVIM_PYTHON=sys.executable, SPARKFOLD_NVIM_REPORT=str(report),
               SPARKFOLD_NVIM_WANT="sparkfold: write `s IS NULL` (unsafe fix, changes the query's results)",
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_STATE_HOME=str(tmp_path / "state"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    proc = subprocess.run([NVIM, "--headless", "--clean", "-n", "-c", f"luafile {ROOT / 'tests' / 'neovim_lsp.lua'}"],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    done = json.loads(report.read_text()) if report.exists() else {}
    assert proc.returncode == 0 and "error" not in done, (proc.returncode, done, proc.stderr[-2000:])
    assert {(d["code"], d["lnum"], d["col"], d["source"]) for d in done["diagnostics"]} >= {
        ("null-comparison", 3, 6, "sparkfold")}
    assert "sparkfold: write `s IS NULL` (unsafe fix, changes the query's results)" in done["offered"]
    assert done["hover"].startswith("**sparkfold**: 4 rewrites (NullPropagation, ReplaceNullWithFalseInPredicate, "
                                     "PruneFilters, PropagateEmptyRelation)\n\n```sql\nSELECT 0 AS num WHERE FALSE\n```")
    assert query.read_text() == "-- rows without an s\nSELECT num\nFROM t\nWHERE s IS NULL\n"
