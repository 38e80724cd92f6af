"""plans/ir/native.py writes the `@node` classes out in source (what the compiled build
needs): the written-out copy, run interpreted, must optimize every TPC query exactly as
the repository does, and its classes must be what `@node` builds."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests import tpc

ROOT = Path(__file__).resolve().parent.parent



def _bench():
    spec = importlib.util.spec_from_file_location("compiled_core", ROOT / "bench" / "compiled_core.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    dest = tmp_path_factory.mktemp("written_out")
    _bench().make_copy(dest)
    return dest


def test_written_out_classes_optimize_every_tpc_query_the_same(copy):
    bench = _bench()
    assert bench._run(copy, "outputs") == bench._run(None, "outputs")


def test_written_out_classes_have_the_layout_node_builds(copy):
    # fields, walked children, compared data and match arguments, class by class
    probe = """
import json, sys
if sys.argv[1]:
    sys.path.insert(0, sys.argv[1])
from sparkfold.plans.ir import expressions, logical, tree
out = {}
for c in tree.KIND_BITS:
    out[c.__name__] = [list(c._field_names), [list(s) for s in c._child_spec], [list(s) for s in c._extra_spec],
                       list(c._eq_names), list(c.__match_args__)]
print(json.dumps(out, sort_keys=True))
"""

    def layout(path: str) -> str:
        return subprocess.run([sys.executable, "-c", probe, path], capture_output=True, text=True, check=True,
                              cwd=tempfile.gettempdir()).stdout

    written, built = layout(str(copy)), layout("")
    assert written == built and len(written) > 1000
