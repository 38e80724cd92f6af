"""The typed plan IR and everything that converts to and from it.

- `ir/`: the IR itself (tree, types, expressions, logical operators, printing,
  evaluation, Spark's column names, the sqlglot dialect shared by every layer);
- `sql_in/`: the frontend (parse, analyze against a catalog);
- `sql_out/`: the SQL backend (plan -> Spark SQL text);
- `pyspark/`: the PySpark backend (plan -> DataFrame calls and Python source).

The frontend and the backends are independent of each other; all of them build on `ir`.
"""

from .sqlglot_version import check as _check

_check()  # (a clear message for a sqlglot out of the range, not an error deep in a parse)
