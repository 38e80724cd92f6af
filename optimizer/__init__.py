"""sparkfold's optimizer: the engine, the default batches and the public API."""

from .api import OptimizeResult, optimize
from .errors import SparkfoldError

__all__ = ["optimize", "OptimizeResult", "SparkfoldError"]
