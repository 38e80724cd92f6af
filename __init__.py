"""sparkfold: a Catalyst-style pre-submission optimizer for Spark SQL.

    from sparkfold import optimize
    result = optimize("SELECT count(num) FROM t", {"t": {"num": "int not null"}})
    result.sql          # optimized Spark SQL
    result.explain()    # plans, every rewrite, findings

The package is in layers, each importing only those below it:
`sparkfold.optimizer` (engine, batches, API, CLI, hooks, explain, verify) >
`sparkfold.rules` > `sparkfold.plans.sql_out`, `sparkfold.plans.pyspark` (backends) |
`sparkfold.plans.sql_in` (frontend: parse, analyze, catalog) > `sparkfold.plans.ir`
(tree, types, expressions, logical operators).  The folders of the repository's top
level are its subpackages (this file is the package's own, mapped by pyproject.toml).
"""

from __future__ import annotations

import importlib
TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing at start-up)
if TYPE_CHECKING:
    from .optimizer.api import OptimizeResult, optimize
    from .plans.ir.errors import SparkfoldError
    from .plans.sql_in.catalog import Catalog

# The public names, imported on first use: `import sparkfold` alone stays cheap (the
# CLI's start-up), and importing this file under another name (pytest imports the
# repository root's `__init__.py` as a package of its own) loads nothing twice.
_PUBLIC = {
    "optimize": ".optimizer.api",
    "OptimizeResult": ".optimizer.api",
    "Catalog": ".plans.sql_in.catalog",
    "SparkfoldError": ".plans.ir.errors",
}

__all__ = [*_PUBLIC, "__version__"]


def __getattr__(name: str):
    if name == "__version__":  # the installed distribution's, as `sparkfold --version` prints it
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("sparkfold")
        except PackageNotFoundError:  # run from a source tree that was never installed
            return "0+unknown"
    if name in _PUBLIC:
        importlib.import_module(".plans", __name__)  # (which checks the installed sqlglot's version first)
        value = getattr(importlib.import_module(_PUBLIC[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _command() -> int:
    """The `sparkfold` command (optimizer/cli.py), or one line saying which sqlglot to
    install, exit 2, when the installed one is out of sparkfold's range.

    The garbage collector's youngest generation is collected every 100,000 allocations
    instead of Python's 700 for the command's life, as `optimize()` does while it runs
    (optimizer/api.py): its start imports click, sqlglot and the optimizer, whose
    hundreds of thousands of long-lived objects every young collection walked again
    (44 M of the 845 M instructions `sparkfold optimize "SELECT 1"` took).  Collections
    still run, so cyclic garbage is freed as before, in larger batches.

    When the command is done, the process exits: what is still alive then (those
    modules, and what they hold) is frozen (`gc.freeze()`), so that the interpreter's
    collections at exit do not walk it all once more (83 M of the 851 M instructions
    `sparkfold optimize "SELECT 1"` took, and 24 M of `--help`'s 241 M).  Reference
    cycles among them are left for the operating system to reclaim with the process
    instead of being taken apart one by one: Python does not promise to finalize what
    is alive at exit, the command has written and closed its outputs before it
    returns, and the atexit handlers run as before."""
    import gc
    import sys

    saved = gc.get_threshold()
    if saved[0]:  # (0: the program turned collection off; left so)
        gc.set_threshold(max(saved[0], 100_000), *saved[1:])
    try:
        try:
            from .optimizer.cli import main
        except ImportError as e:
            if e.name != "sqlglot":
                raise
            print(f"sparkfold: error: {e}", file=sys.stderr)
            return 2
        return main()
    finally:
        gc.set_threshold(*saved)
        gc.freeze()


def load_ipython_extension(ipython) -> None:
    """`%load_ext sparkfold` in IPython or Jupyter: the `%%sparkfold` cell magic
    (optimizer/notebook.py, which imports IPython: the `notebook` extra)."""
    from .optimizer.notebook import load

    load(ipython)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
