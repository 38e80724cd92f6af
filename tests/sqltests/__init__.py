"""Apache Spark's SQLQueryTestSuite input files, run on Spark against sparkfold on every
path (optimized SQL, the query written whole, the DataFrame program).  `inputs/` holds the
measured set (Apache Spark's files, Apache License 2.0: see inputs/NOTICE);
`python -m tests.sqltests.run --dir DIR` runs any other tree of such files."""
