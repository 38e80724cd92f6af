"""Only what pyproject.toml cannot say.

- The wheel carries `sparkfold-autohook.pth` at the top of site-packages, so that
  `SPARKFOLD=on` (or `lint`) arms sparkfold in every Python process of the environment
  (see `sparkfold.optimizer.autohook`).  Its one line costs a look at the environment
  variable when it is unset.  An editable install (`pip install -e .`, PEP 660) carries
  it too: setuptools writes such a wheel from a folder of its own, where it is put.
- `SPARKFOLD_COMPILE=1 pip install .` builds the compiled core: the IR, the rules, and the
  SQL reader and writer compiled with mypyc (a C compiler is needed; mypy, which brings
  mypyc, is fetched for the build).  The node classes are written out in a copy first
  (`plans/ir/native.py`); the installed package keeps its Python sources beside the
  compiled modules, which Python imports first.  Without the variable nothing is compiled.
  `SPARKFOLD_COMPILE_MODULES` (globs relative to the package, separated by spaces) compiles
  only those modules, the rest interpreted: the test run's quick build compiles one.
"""

import atexit
import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.editable_wheel import editable_wheel

HERE = Path(__file__).resolve().parent
PTH = "sparkfold-autohook.pth"
SOURCE = HERE / "optimizer" / "_boot" / PTH
COMPILE = os.environ.get("SPARKFOLD_COMPILE", "") == "1"
ONLY = os.environ.get("SPARKFOLD_COMPILE_MODULES", "").split()
# commands that only write the package's metadata: nothing to compile for them
METADATA_ONLY = bool({"egg_info", "dist_info", "sdist"} & set(sys.argv[1:]))
# an editable install is not compiled: compiled modules placed beside the sources would
# be imported instead of the sources being edited
EDITABLE = bool({"editable_wheel", "develop"} & set(sys.argv[1:]))
# mypy brings mypyc; sqlglot's sources are read for their types (pins as in pyproject.toml)
COMPILE_REQUIRES = ["mypy==2.4.1", "sqlglot>=30.8,<31"]


class BuildWithPth(build_py):
    def run(self):
        # compiled modules an earlier build left in the build folder (pip builds in the
        # checkout) would be packed with this one's: a build that compiles fewer modules
        # (SPARKFOLD_COMPILE_MODULES) shipped stale compiled copies of the others
        for stale in Path(self.build_lib).rglob("*"):
            if stale.suffix in (".so", ".pyd"):
                stale.unlink()
        super().run()
        self.copy_file(str(SOURCE), str(Path(self.build_lib) / PTH), preserve_mode=False)

    def get_outputs(self, include_bytecode=True):
        return [*super().get_outputs(include_bytecode), str(Path(self.build_lib) / PTH)]

    def get_output_mapping(self):
        return {**super().get_output_mapping(), str(Path(self.build_lib) / PTH): str(SOURCE)}


class EditableWithPth(editable_wheel):
    """`pip install -e .`: setuptools writes the editable wheel from an unpacked folder
    (`_run_build_commands` fills it, setuptools 64 to 84 at least); the .pth goes there,
    at the wheel's top, beside setuptools' own `__editable__` one (which sorts first, so
    the package is importable when ours runs).  tests/test_runner.py builds one."""

    def _run_build_commands(self, dist_name, unpacked_wheel, build_lib, tmp_dir):
        out = super()._run_build_commands(dist_name, unpacked_wheel, build_lib, tmp_dir)
        shutil.copyfile(SOURCE, Path(unpacked_wheel) / PTH)
        return out


def compiled_extensions():
    """The compiled modules; none while only the metadata is written (setuptools also
    reads `setup_requires` that way, before mypyc is installed for the build)."""
    if METADATA_ONLY:
        return []
    if EDITABLE:
        print("sparkfold: SPARKFOLD_COMPILE=1 is ignored by an editable install (pip install -e); "
              "use pip install . for the compiled build", file=sys.stderr)
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        sys.exit("SPARKFOLD_COMPILE=1 needs mypyc, which comes with mypy: pip's isolated build fetches "
                 f"it; with --no-build-isolation, install {COMPILE_REQUIRES[0]} first")
    spec = importlib.util.spec_from_file_location("sparkfold_native", HERE / "plans" / "ir" / "native.py")
    native = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(native)
    stage = Path(tempfile.mkdtemp(prefix="sparkfold-compile-"))
    atexit.register(shutil.rmtree, stage, True)
    pkg = stage / "sparkfold"
    skip = shutil.ignore_patterns("__pycache__", "*.so", "*.c", "*.pyc")
    for folder in ("optimizer", "rules", "plans"):
        shutil.copytree(HERE / folder, pkg / folder, ignore=skip)
    for name in ("__init__.py", "pyproject.toml"):
        shutil.copy(HERE / name, pkg / name)
    files = native.rewrite(pkg, *([tuple(ONLY)] if ONLY else []))
    if not files:
        sys.exit(f"SPARKFOLD_COMPILE_MODULES={' '.join(ONLY)}: no such module to compile")
    # The build environment holds the build requirements only: the optional dependencies
    # the compiled modules import where they are used (pyspark) are not there, since pip
    # builds the wheel before it installs any dependency.  Their types are read as Any.
    return mypycify(["--config-file", str(pkg / "pyproject.toml"), "--ignore-missing-imports", *map(str, files)],
                    opt_level="3", target_dir=str(stage / "build"))


setup(cmdclass={"build_py": BuildWithPth, "editable_wheel": EditableWithPth},
      ext_modules=compiled_extensions() if COMPILE else [],
      setup_requires=COMPILE_REQUIRES if COMPILE else [])
