"""The node classes written out in source, for mypyc: a build step, not used at run time.

mypyc compiles only classes written out in source (native classes), and `tree.node` builds
each node class's `__init__`, hash, kind mask and rebuild methods at import.  This module
rewrites a copy of the package for compiling: every `@node` class of expressions.py and
logical.py gets those methods in source (`written_out`), `tree.Node` declares them
(`node_base`), and the few things native classes cannot have are changed (`CHANGES`).
The compiled build (`SPARKFOLD_COMPILE=1`, setup.py) and bench/compiled_core.py use it;
tests/test_compiled_core.py holds the written-out classes, run interpreted, to the
outputs and the layout `@node` gives.  It needs the standard library only (setup.py loads
it by path, before sparkfold is installed).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

KINDS = {"ONE": "one", "OPT": "opt", "MANY": "many", "PAIRS": "pairs"}
# the modules compiled: the IR and the rules (CORE), reading and writing SQL (SQL), and
# the optimizer's own hot modules (a rewrite's check, the splice; the others hold records)
CORE = ("plans/ir/tree.py", "plans/ir/expressions.py", "plans/ir/logical.py", "rules/*.py")
SQL = ("plans/sql_in/*.py", "plans/sql_out/*.py")
OPTIMIZER = ("optimizer/validate.py", "optimizer/splice.py")

# (what, pattern, replacement) on the modules compiled: what a native class cannot have
CHANGES = [
    ("native classes have no __slots__ (their attributes are fixed anyway)", r"^    __slots__ = .*\n", ""),
    ("mypyc 2.4 mistypes `__next__ -> int` in a native class's slot", r"def __next__\(self\) -> int:",
     "def __next__(self) -> Any:"),
    ("mypyc 2.4 fails on `for x in reversed(<a sequence of Any>)`", r"^(\s*)for (.+) in reversed\((.+)\):$",
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
        end = c.end_lineno or c.lineno
        edits += [(deco[0].lineno, deco[0].end_lineno or deco[0].lineno, None), (end + 1, end, g)]
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


def node_base(src: str) -> str:
    """tree.Node for written-out classes: the generated methods declared, no frozen __setattr__."""
    start = src.index("    # generated for each class by `node`")
    end = src.index("    # -- overridable")
    return src[:start] + ("    def _node_init(self) -> None:\n        raise NotImplementedError\n\n"
                          "    def _rebuild_kids(self, new: Any) -> Any:\n        raise NotImplementedError\n\n"
                          "    def _rebuild_extra(self, new: Any) -> Any:\n        raise NotImplementedError\n\n") + src[end:]


def rewrite(pkg: Path, modules: tuple[str, ...] = CORE + SQL + OPTIMIZER) -> list[Path]:
    """Rewrite the package copy at `pkg` (its root folder, the one named sparkfold) for
    compiling `modules` (globs relative to it); returns the files to compile."""
    ir = pkg / "plans" / "ir"
    bits: list[int] = []
    masks: dict[str, bool] = {"Node": True}
    for name in ("expressions.py", "logical.py"):
        (ir / name).write_text(written_out((ir / name).read_text(), bits, masks))
    (ir / "tree.py").write_text(node_base((ir / "tree.py").read_text()))
    files = sorted(p for g in modules for p in pkg.glob(g) if p.name != "__init__.py")
    for path in files:
        text = path.read_text()
        for _, pattern, repl in CHANGES:
            text = re.sub(pattern, repl, text, flags=re.MULTILINE)
        path.write_text(text)
    return files
