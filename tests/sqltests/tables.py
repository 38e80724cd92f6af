"""What Spark's SQLQueryTestSuite gives every file: its test tables and UDFs, and a catalog
left as the file found it.

The suite creates six parquet tables once (`createTestTables`): `testdata`, `arraydata`,
`mapdata` with the rows it writes them with, and `aggtest`, `onek`, `tenk1` read from
PostgreSQL's regression data files (`test-data/postgresql/*.data`), which are not copied
here: `aggtest` holds PostgreSQL's four rows, `onek` and `tenk1` rows generated with the
Wisconsin benchmark's column definitions (`unique1` a permutation of 0..n-1, `unique2`
the row number, `two` ... `tenthous` = unique1 modulo 2 ... 10000, `odd`/`even` =
(unique1 % 100) * 2 (+ 1), `stringu1`/`stringu2` unique1/unique2 as letters,
`string4` cycling four strings).  The comparison is the original query against sparkfold's
on the same rows, so the rows need only be of the right shape.  Here they are written once
per Spark application as parquet files in a folder of the harness's own, and each file's
session reads them as temporary views (`CREATE TEMPORARY VIEW ... USING parquet`, as the
suite's Thrift-server variant reads its data files): the session's warehouse is not
touched, and every column is nullable, as in the suite's parquet tables.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile

from .source import TestFile

_WISCONSIN = """
SELECT unique1, unique2, unique1 % 2 AS two, unique1 % 4 AS four, unique1 % 10 AS ten,
  unique1 % 20 AS twenty, unique1 % 100 AS hundred, unique1 % 1000 AS thousand,
  unique1 % 2000 AS twothousand, unique1 % 5000 AS fivethous, unique1 % 10000 AS tenthous,
  (unique1 % 100) * 2 AS odd, (unique1 % 100) * 2 + 1 AS even,
  {letters1} AS stringu1, {letters2} AS stringu2,
  element_at(array('AAAAxx', 'HHHHxx', 'OOOOxx', 'VVVVxx'), unique2 % 4 + 1) AS string4
FROM (SELECT CAST((id * 3691 + {n} - 1) % {n} AS INT) AS unique1, CAST(id AS INT) AS unique2 FROM range({n}))
"""


def _letters(column: str) -> str:
    return "concat(" + ", ".join(f"chr(65 + CAST({column} / {26 ** k} AS INT) % 26)" for k in range(6)) + ", 'xx')"


def _wisconsin(n: int) -> str:
    return _WISCONSIN.format(n=n, letters1=_letters("unique1"), letters2=_letters("unique2"))


TABLES = {
    "testdata": "SELECT CAST(id AS INT) AS key, CAST(id AS STRING) AS value FROM range(1, 101)",
    "arraydata": "SELECT * FROM VALUES (array(1, 2, 3), array(array(1, 2, 3))), "
                 "(array(2, 3, 4), array(array(2, 3, 4))) AS t(arraycol, nestedarraycol)",
    "mapdata": "SELECT * FROM VALUES (map(1, 'a1', 2, 'b1', 3, 'c1', 4, 'd1', 5, 'e1')), "
               "(map(1, 'a2', 2, 'b2', 3, 'c2', 4, 'd2')), (map(1, 'a3', 2, 'b3', 3, 'c3')), "
               "(map(1, 'a4', 2, 'b4')), (map(1, 'a5')) AS t(mapcol)",
    "aggtest": "SELECT CAST(a AS INT) AS a, CAST(b AS FLOAT) AS b FROM VALUES "
               "(56, '7.8'), (100, '99.097'), (0, '0.09561'), (42, '324.78') AS t(a, b)",
    "onek": _wisconsin(1000),
    "tenk1": _wisconsin(10000),
}


_DATA: dict[str, str] = {}  # the folder of the test tables' files, by Spark application id


def _data_folder(spark) -> str:
    app = spark.sparkContext.applicationId
    if app not in _DATA:
        _DATA[app] = tempfile.mkdtemp(prefix="sparkfold-sqltests-data-")
        atexit.register(shutil.rmtree, _DATA[app], True)
    return _DATA[app]


def test_tables(session, test: TestFile) -> None:
    """Register the suite's tables the file's statements name as temporary views of the
    session (their files written at the first use)."""
    text = "\n".join(s.sql for s in test.statements).lower()
    folder = _data_folder(session)
    for name, query in TABLES.items():
        if not re.search(rf"\b{name}\b", text):
            continue
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            session.sql(query).coalesce(1).write.parquet(path)
        session.sql(f"CREATE OR REPLACE TEMPORARY VIEW {name} USING parquet OPTIONS (path '{path}')")


def register_udfs(session) -> None:
    """The UDFs the suite registers for the PostgreSQL files (Scala there: a NULL argument
    of a primitive type gives NULL)."""
    from pyspark.sql.types import BooleanType, StringType

    session.udf.register("booleq", lambda a, b: None if a is None or b is None else a == b, BooleanType())
    session.udf.register("boolne", lambda a, b: None if a is None or b is None else a != b, BooleanType())
    session.udf.register("vol", lambda s: s, StringType())


def snapshot(session) -> tuple[set[str], set[tuple[str, str]]]:
    """The databases and persistent tables (global temporary views too) there are."""
    dbs = {r[0] for r in session.sql("SHOW DATABASES").collect()}
    tables = set()
    for db in dbs | {"global_temp"}:
        for r in session.sql(f"SHOW TABLES IN `{db}`").collect():
            if not r.isTemporary or db == "global_temp":
                tables.add((db, r.tableName))
    return dbs, tables


def cleanup(session, before) -> None:
    """Drop what a file left behind (its persistent tables, views and databases), so that
    the next file finds the catalog as the first did.  The suite's own tables stay."""
    dbs, tables = before
    session.catalog.setCurrentDatabase("default")
    now_dbs, now_tables = snapshot(session)
    for db, name in sorted(now_tables - tables):
        for kind in ("VIEW", "TABLE"):
            try:
                session.sql(f"DROP {kind} IF EXISTS `{db}`.`{name}`")
                break
            except Exception:  # noqa: BLE001 - a table is not a view: try the other
                continue
    for db in sorted(now_dbs - dbs):
        session.sql(f"DROP DATABASE IF EXISTS `{db}` CASCADE")
