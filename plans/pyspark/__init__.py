"""The PySpark backend: a logical plan lowered to DataFrame calls and Python source."""
