"""The `sparkfold` logger, which the hooks report on: a module of its own, light enough
for the autohook to use at a Python start (it imports only `logging`)."""

from __future__ import annotations

import logging
import sys

log = logging.getLogger("sparkfold")


class _Stderr(logging.Handler):
    """Warnings on stderr as `sparkfold: message` when the program has not configured
    logging (Python would print the bare message); when it has (dbt, a notebook, pytest),
    its own handlers show them, with its format (`WARNING:sparkfold:message`, not
    `WARNING:sparkfold:sparkfold: message`)."""

    def emit(self, record: logging.LogRecord) -> None:
        if logging.getLogger().handlers:
            return
        try:
            sys.stderr.write(f"sparkfold: {record.getMessage()}\n")
        except Exception:  # stderr closed: nothing to tell
            pass


if not any(isinstance(h, _Stderr) for h in log.handlers):
    log.addHandler(_Stderr(logging.WARNING))
