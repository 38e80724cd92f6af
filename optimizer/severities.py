"""The severities of findings, lowest first (a module of its own: the command line reads
them without loading the analysis)."""

INFO, WARNING, ERROR = "info", "warning", "error"
