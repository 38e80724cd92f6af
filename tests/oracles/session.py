"""The Spark session the oracles' recorders use outside pytest (the test run's own is
the session fixture of tests/conftest.py), with Spark's error logging quiet: errors are
answers here."""

from __future__ import annotations

import logging


def quiet() -> None:
    for name in ("DataFrameQueryContextLogger", "SQLQueryContextLogger", "py4j"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def spark_session():
    from tests.fuzz.run import spark_session as make

    quiet()
    return make()
