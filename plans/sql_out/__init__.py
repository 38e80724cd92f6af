"""The SQL backend: a logical plan written back as Spark SQL text."""
