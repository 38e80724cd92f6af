"""The typed IR: tree traversal, Spark types, expressions, logical operators."""
