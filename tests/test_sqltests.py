"""Apache Spark's SQLQueryTestSuite files (tests/sqltests/inputs, Spark's own; the harness
is tests/sqltests): every query runs on Spark, original against sparkfold's optimized SQL,
its query written whole and its DataFrame program, in a session set up as Spark's suite
sets it up.  Rows, column names and types and errors must agree on every path; a query
Spark accepts must not be rejected; nothing may fail inside sparkfold.  The failures known
on these files are listed in tests/sqltests/known_failures.txt until fixed: any other
failure fails the tests, and so does a listed one that no longer fails.

The default run checks every fourth query of four small files, one of each folder (the
files' commands keep to their own session: the test session's warehouse is the working
directory's); SPARKFOLD_SQLTESTS_SAMPLE=N checks N files spread over the folders instead;
the whole set runs
with SPARKFOLD_LONG=1 through the command (`python -m tests.sqltests.run`), in a Spark of
its own with a warehouse in a temporary folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.sqltests.check import run_file
from tests.sqltests.known import compare, load
from tests.sqltests.source import files, spread

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = int(os.environ.get("SPARKFOLD_SQLTESTS_SAMPLE", "0"))  # files spread over the folders (0: DEFAULT)
DEFAULT = ["comparator.sql", "nonansi/literals.sql", "postgreSQL/aggregates_part1.sql",
           "subquery/exists-subquery/exists-having.sql"]
EVERY = int(os.environ.get("SPARKFOLD_SQLTESTS_EVERY", "4"))    # of their queries, every so many


def _failures(outcomes):
    """Failures other than the known ones (known_failures.txt), and known ones fixed."""
    new, stale = compare(outcomes, load())
    return [f"[{', '.join(o.failures)}] {o.name} (Spark: {o.spark})\n  {o.sql}\n  {o.detail}\n  {o.report}"
            for o in new] + [f"fixed, remove it from known_failures.txt: {line}" for line in stale]


@pytest.fixture(scope="module")
def sample():
    local = [t for t in files() if not t.persistent]
    return spread(local, SAMPLE) if SAMPLE else [t for t in local if t.name in DEFAULT]


@pytest.fixture(scope="module")
def outcomes(spark, sample):
    return [o for t in sample for config in t.config_sets()
            for o in run_file(spark, t, config, every=EVERY).outcomes]


def test_the_sample_spreads_over_the_folders(sample, outcomes):
    assert len({t.name.split("/")[0] for t in sample}) >= 3
    assert len({o.file for o in outcomes}) == len(sample)
    compared = [o for o in outcomes if o.sql_verdict in ("equal", "wrong")]
    assert len(compared) >= len(outcomes) // 2, (len(compared), len(outcomes))
    assert any(o.df_verdict for o in outcomes) and any(o.whole_verdict for o in outcomes)


def test_original_and_sparkfold_agree_on_spark(outcomes):
    assert _failures(outcomes) == []


@pytest.mark.slow
def test_the_whole_set(tmp_path):
    out, counts = tmp_path / "outcomes.jsonl", tmp_path / "counts.json"
    proc = subprocess.run([sys.executable, "-m", "tests.sqltests.run", "--out", str(out), "--json", str(counts)],
                          cwd=ROOT, capture_output=True, text=True, timeout=3 * 3600)
    s = json.loads(counts.read_text())
    assert s["files"] == len(files())
    assert proc.returncode == 0, proc.stdout[-20000:]


def test_an_error_class_spark_gives_itself_is_told_apart(spark):
    """`format_string` with too few arguments: Spark raises a SparkException (from the task
    that evaluates the call) for the original run with the rules sparkfold implements
    excluded, and IllegalArgumentException (ConstantFolding evaluates the call while
    planning) for the same text with its whole optimizer, which is what the query written
    whole and the DataFrame program get.  The harness names that difference Spark's own,
    with the reason; a class Spark does not give the original text is still a difference."""
    from sparkfold.optimizer.verify import Side, catalyst_rule_classes

    from tests.sqltests.check import FileChecker

    sql = "select format_string('Hello %s %s', 'World')"
    checker = FileChecker(spark, "format_string.sql", "")
    checker.query(0, sql)
    checker.flush()
    (out,) = checker.outcomes
    assert out.spark == "accepts" and out.error_class_differs == [], out
    assert sorted(p.split(":")[0] for p in out.error_class_spark_inconsistent) == ["DataFrame", "whole SQL"], out
    assert all("with its whole optimizer" in p for p in out.error_class_spark_inconsistent)
    raised = out.error_class_spark_inconsistent[0].split(" -> ")[1].split(":")[0]
    ref = Side("reference", sql, exclude=catalyst_rule_classes())
    assert checker._spark_raises_so_itself(ref, raised)
    assert not checker._spark_raises_so_itself(ref, "DIVIDE_BY_ZERO")
