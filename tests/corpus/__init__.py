"""A corpus of SQL that nobody here wrote, checked original against rewritten on Spark.

The statements are the query fixtures of sqlglot's optimizer test suite (its source
distribution on PyPI, fetched with pip at run time and cached), written by sqlglot's
developers against the table schemas of their `tests/test_optimizer.py`.  `source`
extracts them (queries, and expressions put in a SELECT), `tables` registers those
tables on Spark with small rows full of NULL, NaN, ±Infinity and -0.0, `check` runs
every statement Spark accepts through sparkfold and compares on Spark, and `run` is
the command line (`python -m tests.corpus.run`).
"""
