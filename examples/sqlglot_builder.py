"""Optimize a query built with sqlglot's builder API before rendering it.

    python examples/sqlglot_builder.py

`optimize_expression(expression, catalog)` takes a sqlglot expression and returns one
(the very same object when no rule applies), so a query builder can call it just before
`.sql(dialect="spark")`.
"""

from __future__ import annotations

import json
from pathlib import Path

import sqlglot
from sparkfold.optimizer.hooks import optimize_expression

SCHEMA = json.loads((Path(__file__).parent / "schema.json").read_text())


def main() -> None:
    query = (sqlglot.select("c.name", "count(o.id) AS orders")
             .from_("customers AS c")
             .join("orders AS o", on="o.customer_id = c.id", join_type="left")
             .where("o.status = 'open'")
             .group_by("c.name"))
    optimized = optimize_expression(query, SCHEMA)
    print("built:")
    print(query.sql(dialect="spark", pretty=True))
    print("\noptimized:")
    print(optimized.sql(dialect="spark", pretty=True))

    unchanged = sqlglot.select("name").from_("customers")
    assert optimize_expression(unchanged, SCHEMA) is unchanged  # nothing to do: same object


if __name__ == "__main__":
    main()
