"""The SQL frontend: Spark SQL text -> sqlglot tree -> analyzed logical plan."""
