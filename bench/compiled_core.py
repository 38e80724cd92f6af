"""What compiling sparkfold's core with mypyc would gain: an experiment, not a build.

sparkfold's node classes are made at import by `@node` (plans/ir/tree.py), and mypyc
compiles only classes written out in source (native classes).  This script takes a copy
of the repository (the working tree as committed plus uncommitted changes), writes every
`@node` class of plans/ir/expressions.py and plans/ir/logical.py out in full (the
`__init__`, hash, kind mask and rebuild methods `@node` generates at run time), compiles
the IR and the rules with mypyc, and then, in separate processes taking turns:

1. checks that the compiled copy gives the same output as the interpreted repository
   (optimized text, or the error) on every TPC-DS and TPC-H query;
2. times `optimize()` phase by phase on TPC-DS, best of --rounds, for the repository,
   the written-out copy run interpreted, and the compiled copy.

    python bench/compiled_core.py [--rounds 3] [--mypyc PATH] [--keep DIR] [--with-sql]

With --with-sql, reading SQL into plans (plans/sql_in) and writing plans as SQL
(plans/sql_out) are compiled too: 50 modules, everything between sqlglot's parser and
its generator.

mypyc comes from .venv-types (made by .ci/types) unless --mypyc names one; a C compiler
is needed.  The copy is rewritten for mypyc as the compiled build rewrites it
(`plans/ir/native.py`: the written-out classes, and `CHANGES`, what a native class
cannot have).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from sparkfold.plans.ir import native

ROOT = Path(__file__).resolve().parent.parent
MODULES = list(native.CORE)  # --with-sql adds native.SQL


def make_copy(dest: Path) -> list[Path]:
    """The repository (with uncommitted changes) at dest/sparkfold, rewritten for compiling
    MODULES (`plans.ir.native`); returns the files to compile."""
    rev = subprocess.run(["git", "stash", "create"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    archive = subprocess.run(["git", "archive", rev or "HEAD"], cwd=ROOT, capture_output=True, check=True).stdout
    pkg = dest / "sparkfold"
    pkg.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(pkg)], input=archive, check=True)
    return native.rewrite(pkg, tuple(MODULES))


def compile_copy(dest: Path, files: list[Path], mypyc: str) -> None:
    pkg = dest / "sparkfold"
    run = subprocess.run([mypyc, "--config-file", str(pkg / "pyproject.toml"), "--python-executable", sys.executable,
                          *[str(p.relative_to(dest)) for p in files]], cwd=dest, capture_output=True, text=True,
                         check=False)
    if run.returncode != 0:
        sys.exit(f"mypyc failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}")


_RUN = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
if sys.argv[2]:
    sys.path.insert(0, sys.argv[2])
sys.setrecursionlimit(20000)
from tests import tpc
from sparkfold.optimizer import api
from sparkfold.plans.sql_in.catalog import Catalog
import sparkfold.plans.ir.tree as tree
if sys.argv[3] == "outputs":
    out = {}
    for corpus in ("tpch", "tpcds"):
        cat = Catalog.coerce(tpc.schema(corpus))
        for name, q in tpc.queries(corpus):
            try:
                out[f"{corpus}/{name}"] = api.optimize(q, cat).sql
            except Exception as e:
                out[f"{corpus}/{name}"] = f"{type(e).__name__}: {e}"
    print(json.dumps(out))
else:
    cat = Catalog.coerce(tpc.schema("tpcds")); qs = tpc.queries("tpcds")
    for _, q in qs: api.optimize(q, cat)  # warm up
    acc = {}; t0 = time.perf_counter()
    for _, q in qs:
        for k, v in api.optimize(q, cat).timings.items():
            acc[k] = acc.get(k, 0.0) + v
    acc["total"] = time.perf_counter() - t0
    acc["compiled"] = not tree.__file__.endswith(".py")
    print(json.dumps(acc))
"""


def _run(package_root: Path | None, what: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.setdefault("SPARKFOLD_BENCH", str(ROOT / "bench" / "corpus"))
    out = subprocess.run([sys.executable, "-c", _RUN, str(ROOT), str(package_root or ""), what],
                         env=env, capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--mypyc", default=str(ROOT / ".venv-types" / "bin" / "mypyc"))
    ap.add_argument("--keep", type=Path, help="build the copies in this (empty or new) folder and keep them")
    ap.add_argument("--with-sql", action="store_true", help="compile reading and writing SQL (plans/sql_in, "
                    "plans/sql_out) too")
    args = ap.parse_args()
    if args.with_sql:
        MODULES.extend(native.SQL)
    if not Path(args.mypyc).exists():
        sys.exit(f"no mypyc at {args.mypyc}: run `bash .ci/types` first (it makes .venv-types), or give --mypyc")
    work = args.keep or Path(tempfile.mkdtemp(prefix="sparkfold-compiled-"))
    try:
        interpreted, compiled = work / "interpreted", work / "compiled"
        files = make_copy(interpreted)
        shutil.copytree(interpreted, compiled)
        print(f"compiling {len(files)} modules with mypyc ...", flush=True)
        compile_copy(compiled, [compiled / p.relative_to(interpreted) for p in files], args.mypyc)
        same = _run(None, "outputs") == _run(compiled, "outputs")
        print(f"outputs on TPC-H and TPC-DS, compiled copy against the repository: {'the same' if same else 'DIFFERENT'}")
        best: dict[str, dict[str, float]] = {}
        builds = (("repository", None), ("written out", interpreted), ("compiled", compiled))
        for _ in range(args.rounds):
            for name, path in builds:
                run = _run(path, "times")
                assert run.pop("compiled") == (name == "compiled"), name
                for k, v in run.items():
                    best.setdefault(name, {})[k] = min(best.get(name, {}).get(k, float("inf")), v)
        phases = list(best["repository"])
        print(f"TPC-DS, best of {args.rounds} (s): " + "  ".join(f"{p:>9}" for p in phases))
        for name, _ in builds:
            print(f"  {name:12} " + "  ".join(f"{best[name][p]:9.3f}" for p in phases))
        base = best["repository"]
        print("  compiled / repository: " + "  ".join(f"{p} {best['compiled'][p] / base[p]:.2f}x" for p in phases))
        if not same:
            sys.exit(1)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
