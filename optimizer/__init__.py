"""sparkfold's optimizer: the engine, the default batches and the public API.

The public names are imported on first use, so that importing a module of this package
(the command line's, for `--help`) does not load the whole optimizer."""

from __future__ import annotations

import importlib
TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing at start-up)
if TYPE_CHECKING:
    from .api import OptimizeResult, optimize
    from .errors import SparkfoldError

_PUBLIC = {"optimize": ".api", "OptimizeResult": ".api", "SparkfoldError": ".errors"}

__all__ = ["optimize", "OptimizeResult", "SparkfoldError"]


def __getattr__(name: str):
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
