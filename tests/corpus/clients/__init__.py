"""The statements real clients send to Spark: splink, ibis's PySpark backend and dbt, each
run for real through sparkfold's hook (`python -m tests.corpus.clients`, which writes
statements.jsonl here: each distinct statement with the schemas of the tables it reads,
the session functions it calls and the session's settings).  `source` reads them and
rebuilds their world, `check` runs them through sparkfold (and Spark), and
`python -m tests.corpus.run --clients` reports per client."""

import os

STATEMENTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "statements.jsonl")
