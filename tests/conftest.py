"""Shared fixtures: one local Spark session for the whole run, and NULL/NaN-heavy tables."""

from __future__ import annotations

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# The JVM options of every Spark the run starts: the test session of each worker, and the
# programs the tests run in subprocesses (a user's PySpark program, dbt, `sparkfold run`,
# the examples, the Spark Connect and Thrift servers), which inherit this environment.
# Each such JVM starts Spark, plans a few small queries and stops: the JIT's optimizing
# compiler (C2) and G1's collector threads cost those JVMs CPU they never earn back on a
# 2-core machine (a program starting its own Spark and running two queries: 31-38 s with
# the JVM's defaults, 18-24 s with these, measured side by side under load). JVM options
# change no result; `SPARK_SUBMIT_OPTS` set by the user is kept.
JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
os.environ.setdefault("SPARK_SUBMIT_OPTS", JVM_OPTIONS)  # the driver's JVM (spark-submit)
os.environ.setdefault("SPARK_LAUNCHER_OPTS", JVM_OPTIONS)  # the JVM that builds spark-submit's command

# The files that take longest, longest first.  The two xdist workers take whole files
# (--dist loadfile) in collection order (--no-loadscope-reorder; xdist's own order puts
# the files with the most tests first), so a long file never starts last while the other
# worker has nothing left to do: the whole compiled build (5 tests) used to start in the
# last minutes of the run.  Ordered by the times of the last full runs.
LONGEST_FIRST = [
    "test_compiled_build.py", "test_fuzz.py", "test_runner.py", "test_lowering.py", "test_examples.py",
    "test_cli.py", "test_dbt.py", "test_oracle_expr_types.py", "test_sqlglot_range.py", "test_verify_random.py",
    "test_connect.py", "test_corpus.py", "test_dbt_command.py", "test_completeness.py", "test_benchmark.py",
    "test_fold_errors.py", "test_tpc_corpus.py", "test_roundtrip_spark.py",
]


# Tests each given to a worker on its own, not with the rest of their file: the parts of a
# long check split so that both workers share it (a whole file to one worker, as
# --dist loadfile does, let one 6-minute test bound the run while the other worker idled).
SPREAD = ("tests/test_fuzz.py::test_fuzzed_queries_agree_on_spark[", "tests/test_sqltests_classes.py::")

# Files of many short tests each given out on its own (SPREAD), run last: the longest file
# of the run (about 300 s of 40-odd classes run on Spark, each under 25 s), which as one
# unit given out late in the run (its place in the alphabet) kept one worker busy for
# minutes while the other had finished, and which as short units at the end fills both
# workers to the last minute.
LAST = ["test_sqltests_classes.py"]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """--dist loadfile, except for the SPREAD tests: each is a unit of its own."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SpreadScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return nodeid if nodeid.startswith(SPREAD) else super()._split_scope(nodeid)

    return SpreadScheduling(config, log)


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    rank.update({name: len(LONGEST_FIRST) + 1 + i for i, name in enumerate(LAST)})
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))  # stable: the rest keep their order
    for item in items:  # `-m "not spark"`: leave out every test that uses the Spark session
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)
    if os.environ.get("SPARKFOLD_LONG") == "1":
        return
    skip = pytest.mark.skip(reason="long run: set SPARKFOLD_LONG=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def expression_ids():
    """The test session's expression-id scope, for nodes tests build by hand (`col()`);
    every analysis and optimizer run opens its own."""
    from sparkfold.plans.ir.expressions import id_scope

    with id_scope():
        yield


# The tests' queries run over a few rows each, thousands of them: each worker's session
# evaluates them interpreted, as the oracles' recorders and the fuzzer do
# (tests/fuzz/oracles.FAST_CONF), rather than generating and compiling Java code for each
# new plan (whole-stage code generation; generated expressions, projections, orderings),
# which costs more than running it on a few rows.  Both sides of a comparison run in the
# same session, evaluated the same way.  Measured (-n0, CPU seconds of pytest and its JVM,
# load average ~10): tests/test_ansi_errors.py and tests/test_rules_plan_outer_join.py,
# 230 passed either way, 91.0 s with code generation, 74.4 s without (the JVM 84.5 -> 68.0).
# The rest of FAST_CONF (one shuffle partition, cached tables) is left to the tests that
# use it.
INTERPRETED = {"spark.sql.codegen.wholeStage": "false", "spark.sql.codegen.factoryMode": "NO_CODEGEN"}


@pytest.fixture(scope="session")
def spark():
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.master("local[2]")
               .appName("sparkfold-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.default.parallelism", "2")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.driver.memory", "2g")
               .config("spark.sql.adaptive.enabled", "false"))
    for key, value in INTERPRETED.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("OFF")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def tables(spark):
    """The standard test tables, registered as temp views; returns the catalog mapping."""
    from tests.data import register_standard_tables

    return register_standard_tables(spark)
