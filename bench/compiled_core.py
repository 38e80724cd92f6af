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
is needed.  Changes the copy needs that the repository does not have (each a mypyc
limitation found on the way, listed in `_MYPYC_WORKAROUNDS`) are made to the copy only:
they show what a compiled build must change in the source.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KINDS = {"ONE": "one", "OPT": "opt", "MANY": "many", "PAIRS": "pairs"}
COMPILED = ["plans/ir/tree.py", "plans/ir/expressions.py", "plans/ir/logical.py", "rules/*.py"]
SQL = ["plans/sql_in/*.py", "plans/sql_out/*.py"]  # with --with-sql: reading and writing SQL too

# (what, pattern, replacement) on the copy's compiled modules
_MYPYC_WORKAROUNDS = [
    ("native classes have no __slots__ (their attributes are fixed anyway)", r"^    __slots__ = .*\n", ""),
    ("no `a = b = x` in a native class body", r"^(    )(\w+) = (\w+) = (.+)$", r"\1\2 = \4\n\1\3 = \4"),
    ("a property needs a return type", r"(@property\n    def \w+\(self\)):\n", r"\1 -> Any:\n"),
    ("a subclass may not retype an attribute of its base", r"\n    plan: Any\n", r"\n    plan: Plan\n"),
    ("mypyc 2.4 mistypes `__next__ -> int` in a native class's slot", r"def __next__\(self\) -> int:",
     "def __next__(self) -> Any:"),
    ("an attribute first set to None is typed None", r"        self\.token = None\n", "        self.token: Any = None\n"),
    ("mypyc 2.4 fails on `for x in reversed(<Any>)`", r"^(\s*)for (.+) in reversed\((.+)\):$",
     r"\1for \2 in list(reversed(\3)):"),
    ("derived facts are assigned, not set through object.__setattr__ (no frozen __setattr__)",
     r"^(\s*)s = object\.__setattr__\n", ""),
    ("(the same)", r"\bs\(self, \"(\w+)\", (.*)\)$", r"self.\1 = \2"),
    ("(the same)", r"object\.__setattr__\(self, \"(\w+)\", (.*)\)$", r"self.\1 = \2"),
    ("walk() typed by an override, not under TYPE_CHECKING (no conditional defs)",
     r"^    if TYPE_CHECKING:\n        def walk\(self\) -> Iterator\[(\w+)\]: \.\.\.\n",
     ("    def walk(self) -> Iterator[\\1]:\n        stack: list[\\1] = [self]\n        while stack:\n"
      "            n = stack.pop()\n            yield n\n            stack.extend(reversed(n.children))\n")),
]


def _spec(call: ast.expr, key: str) -> list[tuple[str, str]]:
    for kw in getattr(call, "keywords", ()):
        if kw.arg == key:
            return [(k.value, KINDS[v.id]) for k, v in zip(kw.value.keys, kw.value.values)]
    return []


def _class_value(body: list, name: str):
    for st in body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and getattr(st.targets[0], "id", None) == name:
            return ast.literal_eval(st.value)
    return None


def _gather(spec, var: str) -> str:
    parts = []
    for name, kind in spec:
        parts.append({"one": f"(self.{name},)", "opt": f"((self.{name},) if self.{name} is not None else ())",
                      "many": f"tuple(self.{name})"}.get(kind, f"tuple([x for pair in self.{name} for x in pair])"))
    return f"        {var}: tuple[Any, ...] = {' + '.join(parts) if parts else '()'}"


def _rebuild(spec, fields, method: str, cls: str) -> list[str]:
    out = [f"    def {method}(self, new: Any) -> Any:", "        i = 0"]
    for name, kind in spec:
        if kind == "one":
            out += [f"        v_{name} = new[i]", "        i += 1"]
        elif kind == "opt":
            out += [f"        v_{name} = None", f"        if self.{name} is not None:",
                    f"            v_{name} = new[i]", "            i += 1"]
        else:
            width = "" if kind == "many" else "2 * "
            value = "tuple(new[i:i + n])" if kind == "many" else "tuple(zip(new[i:i + n:2], new[i + 1:i + n:2]))"
            out += [f"        n = {width}len(self.{name})", f"        v_{name} = {value}", "        i += n"]
    names = {n for n, _ in spec}
    out.append(f"        return {cls}({', '.join(f'v_{n}' if n in names else f'self.{n}' for n in fields)})")
    return out


def written_out(src: str, bits: list[int], extra_in_mask: dict[str, bool]) -> str:
    """`src` with each `@node` class written out: what `tree.node` builds at run time."""
    tree, lines, edits, names = ast.parse(src), src.split("\n"), [], []
    for c in tree.body:
        if not isinstance(c, ast.ClassDef):
            continue
        base = c.bases[0].id if c.bases and isinstance(c.bases[0], ast.Name) else "Node"
        own = _class_value(c.body, "_extra_in_mask")
        extra_in_mask[c.name] = own if own is not None else extra_in_mask.get(base, True)
        deco = [d for d in c.decorator_list if getattr(d, "id", None) == "node" or getattr(getattr(d, "func", None), "id", None) == "node"]
        if not deco:
            continue
        children, extra = _spec(deco[0], "children"), _spec(deco[0], "extra")
        fields, params = [], []
        for st in c.body:
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                ann = ast.get_source_segment(src, st.annotation) or ""
                if "ClassVar" not in ann:
                    fields.append(st.target.id)
                    default = "" if st.value is None else f" = {ast.get_source_segment(src, st.value)}"
                    params.append(f"{st.target.id}: {ann}{default}")
        walked = {n for n, _ in children + extra}
        data = [n for n in fields if n not in walked]
        compared = [n for n in data if n not in (_class_value(c.body, "_not_compared") or ())]
        bit = 1 << len(bits)
        bits.append(bit)
        key = "".join(f"(v{i} if type(v{i} := self.{n}) in _PLAIN_TYPES else data_key(v{i})), "
                      for i, n in enumerate(compared))
        own_post_init = any(isinstance(st, ast.FunctionDef) and st.name == "__post_init__" for st in c.body)
        g = ["", f"    bit: ClassVar[int] = {bit}", f"    _child_spec: ClassVar[tuple] = {tuple(children)!r}",
             f"    _extra_spec: ClassVar[tuple] = {tuple(extra)!r}", f"    _field_names: ClassVar[tuple] = {tuple(fields)!r}",
             f"    _data_names: ClassVar[tuple] = {tuple(data)!r}", f"    _eq_names: ClassVar[tuple] = {tuple(compared)!r}",
             f"    __match_args__: Final = {tuple(fields)!r}", "",
             f"    def __init__(self, {', '.join(params)}) -> None:"]
        g += [f"        self.{n} = {n}" for n in fields]
        g += ["        self.__post_init__()" if own_post_init else "        self._node_init()", "",
              "    def _node_init(self) -> None:", _gather(children, "kids"), _gather(extra, "extra"),
              "        self.children = kids", "        self._extra = extra", f"        m = {bit}", "        k: Any",
              "        for k in kids:", "            m |= k.mask"]
        if extra_in_mask[c.name] and extra:
            g += ["        for k in extra:", "            m |= k.mask"]
        g += ["        hs = tuple([x._hash for x in kids]" + (" + [y._hash for y in extra])" if extra else ")"),
              f"        self._hash = hash(({c.name!r}, ({key}), hs))", "        self.mask = m", "        self._derive()", ""]
        g += _rebuild(children, fields, "_rebuild_kids", c.name) + [""] + _rebuild(extra, fields, "_rebuild_extra", c.name)
        edits += [(deco[0].lineno, deco[0].end_lineno, None), (c.end_lineno + 1, c.end_lineno, g)]
        names.append(c.name)
    for start, end, new in sorted(edits, key=lambda e: -e[0]):
        if new is None:
            del lines[start - 1:end]
        else:
            lines[end:end] = new
    text = "\n".join(lines)
    text = re.sub(r"^(from \.tree import .*)$", r"from typing import ClassVar, Final\n\1\n"
                  r"from .tree import KIND_BITS, _PLAIN_TYPES, data_key", text, count=1, flags=re.MULTILINE)
    return text + "\n\nfor _c in (" + "".join(f"{n}, " for n in names) + "):\n    KIND_BITS[_c] = _c.bit\n"


def _node_base(src: str) -> str:
    """tree.Node for written-out classes: the generated methods declared, no frozen __setattr__."""
    start = src.index("    # generated for each class by `node`")
    end = src.index("    # -- overridable")
    return src[:start] + ("    def _node_init(self) -> None:\n        raise NotImplementedError\n\n"
                          "    def _rebuild_kids(self, new: Any) -> Any:\n        raise NotImplementedError\n\n"
                          "    def _rebuild_extra(self, new: Any) -> Any:\n        raise NotImplementedError\n\n") + src[end:]


def make_copy(dest: Path) -> None:
    """The repository (with uncommitted changes) at dest/sparkfold, node classes written out."""
    rev = subprocess.run(["git", "stash", "create"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    archive = subprocess.run(["git", "archive", rev or "HEAD"], cwd=ROOT, capture_output=True, check=True).stdout
    pkg = dest / "sparkfold"
    pkg.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(pkg)], input=archive, check=True)
    ir = pkg / "plans" / "ir"
    bits: list[int] = []
    masks: dict[str, bool] = {"Node": True}
    for name in ("expressions.py", "logical.py"):
        (ir / name).write_text(written_out((ir / name).read_text(), bits, masks))
    (ir / "tree.py").write_text(_node_base((ir / "tree.py").read_text()))
    for path in _compiled_files(pkg):
        text = path.read_text()
        for _, pattern, repl in _MYPYC_WORKAROUNDS:
            text = re.sub(pattern, repl, text, flags=re.MULTILINE)
        path.write_text(text)


def _compiled_files(pkg: Path) -> list[Path]:
    return sorted(p for g in COMPILED for p in pkg.glob(g) if p.name != "__init__.py")


def compile_copy(dest: Path, mypyc: str) -> None:
    pkg = dest / "sparkfold"
    files = [str(p.relative_to(dest)) for p in _compiled_files(pkg)]
    run = subprocess.run([mypyc, "--config-file", str(pkg / "pyproject.toml"), "--python-executable", sys.executable,
                          *files], cwd=dest, capture_output=True, text=True, check=False)
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
                out[f"{corpus}/{name}"] = api._optimize(q, cat, None, None, (), False, False, True).sql
            except Exception as e:
                out[f"{corpus}/{name}"] = f"{type(e).__name__}: {e}"
    print(json.dumps(out))
else:
    cat = Catalog.coerce(tpc.schema("tpcds")); qs = tpc.queries("tpcds")
    for _, q in qs: api._optimize(q, cat, None, None, (), False, False, True)  # warm up
    acc = {}; t0 = time.perf_counter()
    for _, q in qs:
        for k, v in api._optimize(q, cat, None, None, (), False, False, True).timings.items():
            acc[k] = acc.get(k, 0.0) + v
    acc["total"] = time.perf_counter() - t0
    acc["compiled"] = not tree.__file__.endswith(".py")
    print(json.dumps(acc))
"""


def _run(package_root: Path | None, what: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.setdefault("SPARKFOLD_BENCH", str(ROOT.parent / "shared" / "bench"))
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
        COMPILED.extend(SQL)
    if not Path(args.mypyc).exists():
        sys.exit(f"no mypyc at {args.mypyc}: run `bash .ci/types` first (it makes .venv-types), or give --mypyc")
    work = args.keep or Path(tempfile.mkdtemp(prefix="sparkfold-compiled-"))
    try:
        interpreted, compiled = work / "interpreted", work / "compiled"
        make_copy(interpreted)
        shutil.copytree(interpreted, compiled)
        print(f"compiling {len(_compiled_files(compiled / 'sparkfold'))} modules with mypyc ...", flush=True)
        compile_copy(compiled, args.mypyc)
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
