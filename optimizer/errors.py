"""The errors sparkfold raises (one hierarchy; see plans.errors)."""

from ..plans.ir.errors import (
                               AmbiguousReferenceError,
                               AnalysisError,
                               InternalError,
                               ParseError,
                               SchemaError,
                               SparkfoldError,
                               UnknownColumnError,
                               UnknownTableError,
                               UnsupportedError,
                               VerificationError,
)

__all__ = ["SparkfoldError", "ParseError", "AnalysisError", "UnknownTableError", "UnknownColumnError",
           "AmbiguousReferenceError", "SchemaError", "UnsupportedError", "VerificationError",
           "InternalError"]
