"""The errors sparkfold raises for bad input.  One hierarchy, re-exported by
`optimizer.errors`; every error carries what a user needs to fix the input (the
position of a syntax error, the name of an unknown table or column)."""

from __future__ import annotations


class SparkfoldError(Exception):
    """Base of every error sparkfold raises on purpose."""

    exit_code = 2

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class ParseError(SparkfoldError):
    """The SQL text is not valid Spark SQL.  `error_class`: the class Spark's parser
    raises when it is not a syntax error (`s LIKE NOT 'a'`: UNSUPPORTED_TYPED_LITERAL)."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None,
                 error_class: str | None = None):
        where = f" (line {line}, column {column})" if line is not None else ""
        self.heading = f"[{error_class}]" if error_class else "syntax error"
        super().__init__(f"{self.heading}{where}: {message}")
        self.line = line
        self.column = column
        self.detail = message
        self.error_class = error_class


class AnalysisError(SparkfoldError):
    """The SQL parses but cannot be analyzed against the catalog."""


class UnknownTableError(AnalysisError):
    def __init__(self, name: str, known: list[str] | None = None, position: str = ""):
        hint = ""
        if known:
            hint = f"; known tables: {', '.join(sorted(known)[:10])}"
        super().__init__(f"unknown table `{name}`{position}{hint}")
        self.name = name
        self.known = known


class UnknownColumnError(AnalysisError):
    def __init__(self, name: str, candidates: list[str] | None = None, position: str = ""):
        hint = ""
        if candidates:
            hint = f"; columns in scope: {', '.join(candidates[:12])}"
        super().__init__(f"unknown column `{name}`{position}{hint}")
        self.name = name


class AmbiguousReferenceError(AnalysisError):
    def __init__(self, name: str, options: list[str]):
        super().__init__(f"ambiguous reference `{name}`: could be {', '.join(options)}")
        self.name = name


class SchemaError(SparkfoldError):
    """The catalog (a mapping or a JSON schema file) cannot be read."""


class UnsupportedError(SparkfoldError):
    """Input sparkfold cannot handle (for example, not a query)."""


class VerificationError(SparkfoldError):
    """A query cannot be verified (no Spark session, a table missing...)."""


class InternalError(SparkfoldError):
    """A bug in sparkfold."""

    exit_code = 3
