"""Oracles that Spark itself generates: the expectations of these tests are Spark's answers
over the whole space sparkfold models, not cases somebody typed.

Each oracle is a module here with a generator of cases, a recorder that asks Spark for
its answers and writes them to `golden/` (regenerated, never edited by hand, as Spark's
own SQLQueryTestSuite golden files are: `python -m tests.oracles.<module> --regenerate`),
and a test (`tests/test_oracle_*.py`) that checks sparkfold against the recorded answers
over the whole space and against live Spark on a sample (the whole space live with
SPARKFOLD_LONG=1).
"""
