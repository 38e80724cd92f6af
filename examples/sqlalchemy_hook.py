"""Optimize every statement a SQLAlchemy engine sends, bind parameters untouched.

    python examples/sqlalchemy_hook.py

In production the engine would talk to a Spark SQL endpoint (the Spark Thrift server, or
a Databricks SQL warehouse, through their SQLAlchemy dialects).  Here an in-memory SQLite
database stands in for it: the queries below are chosen so that their optimized Spark
SQL also runs on SQLite.  `sql_rewriter(catalog)` is a plain `str -> str` function that
returns its input unchanged when it cannot or need not optimize it (DDL, INSERT, ...).
"""

from __future__ import annotations

import json
from pathlib import Path

import sqlalchemy as sa
from sparkfold.optimizer.hooks import sql_rewriter

SCHEMA = json.loads((Path(__file__).parent / "schema.json").read_text())


def main() -> None:
    engine = sa.create_engine("sqlite://")
    rewrite = sql_rewriter(SCHEMA)
    sent: list[str] = []

    @sa.event.listens_for(engine, "before_cursor_execute", retval=True)
    def optimize_statement(conn, cursor, statement, parameters, context, executemany):
        statement = rewrite(statement)
        sent.append(statement)
        return statement, parameters  # the bind parameters go through as they are

    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE orders (id BIGINT NOT NULL, customer_id BIGINT, "
                             "amount DECIMAL(15,2), status TEXT, placed_on DATE NOT NULL)"))
        conn.execute(sa.text("INSERT INTO orders VALUES (1, 10, 25.0, 'open', '2024-01-02'), "
                             "(2, NULL, 7.5, 'closed', '2024-01-03'), (3, 10, NULL, NULL, '2024-01-04'), "
                             "(4, 12, 120.0, 'open', '2024-01-05')"))
        queries = [
            ("SELECT status, count(id) AS orders FROM orders WHERE amount > :min "
             "GROUP BY status ORDER BY status", {"min": 10}),
            ("SELECT id FROM orders WHERE customer_id = :c AND amount = NULL", {"c": 10}),
        ]
        for sql, params in queries:
            rows = conn.execute(sa.text(sql), params).fetchall()
            print(f"query:  {sql}")
            print(f"sent:   {sent[-1]}")
            print(f"params: {params}")
            print(f"rows:   {[tuple(r) for r in rows]}\n")


if __name__ == "__main__":
    main()
