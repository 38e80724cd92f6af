"""`--schema` from where the data lives: Parquet files and folders, Delta tables.

Spark is the oracle for the types (it reads the same files); the nullability is what the
files enforce (Parquet's `required`, Delta's schema, enforced on write), which Spark
itself does not report (it reads file sources as nullable).  A NOT NULL read this way
lets `count(k)` become `count(1)`; verify on the data shows the counts stay right."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from sparkfold import optimize
from sparkfold.plans.ir import types as T
from sparkfold.plans.sql_in.catalog import Catalog, from_spark_type

SPARK_SCHEMA = ("k int not null, s string, d decimal(10,2) not null, a array<int>, "
                "m map<string,bigint>, st struct<x: int, y: string>, dt date, ts timestamp")


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "sparkfold.optimizer.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def spark_parquet(spark, tmp_path_factory):
    import datetime as dt
    from decimal import Decimal

    path = tmp_path_factory.mktemp("data") / "orders"
    rows = [(1, "a", Decimal("1.50"), [1, None], {"x": 1}, (1, "p"), dt.date(2020, 1, 1), None),
            (2, None, Decimal("-2.00"), None, None, None, None, None)]
    spark.createDataFrame(rows, SPARK_SCHEMA).repartition(2).write.parquet(str(path))
    return path


def test_spark_written_parquet_types_are_sparks(spark, spark_parquet):
    import pyarrow.parquet as pq

    table = Catalog.from_file(spark_parquet).lookup("orders")
    read = spark.read.parquet(str(spark_parquet)).schema
    assert [(c.name, c.data_type) for c in table.columns] == \
        [(f.name, from_spark_type(f.dataType)) for f in read.fields]
    # NOT NULL where the files store the column as required (every file of the folder)
    files = sorted(spark_parquet.glob("*.parquet"))
    required = {f.name for f in pq.read_schema(files[0]) if not f.nullable}
    assert required == {"k", "d"}
    assert {c.name for c in table.columns if not c.nullable} == required


def test_a_not_null_from_parquet_rewrites_and_verify_agrees(spark, spark_parquet, tmp_path):
    sql = "SELECT count(k) AS n, count(s) AS m FROM orders WHERE d IS NOT NULL"
    result = optimize(sql, Catalog.from_file(spark_parquet))
    assert "count(1)" in result.sql and "d IS NOT NULL" not in result.sql
    proc = _cli("verify", sql, "--schema", str(spark_parquet), "--table", f"orders={spark_parquet}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verification: EQUAL" in proc.stdout


def test_parquet_written_by_another_tool_and_a_file_with_nulls(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path / "events"
    folder.mkdir()
    strict = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("at", pa.timestamp("us", "UTC")),
                        pa.field("tags", pa.list_(pa.string())), pa.field("amount", pa.decimal128(12, 3))])
    pq.write_table(pa.table({"id": [1], "at": [None], "tags": [["a"]], "amount": [None]}, schema=strict),
                   folder / "part-0.parquet")
    table = Catalog.from_file(folder).lookup("events")
    assert [(c.name, c.data_type, c.nullable) for c in table.columns] == [
        ("id", T.LONG, False), ("at", T.TIMESTAMP, True), ("tags", T.ArrayType(T.STRING, True), True),
        ("amount", T.DecimalType(12, 3), True)]
    # a second file where `id` may be NULL: the folder's `id` is nullable
    loose = strict.set(0, pa.field("id", pa.int64(), nullable=True))
    pq.write_table(pa.table({"id": [None], "at": [None], "tags": [None], "amount": [None]}, schema=loose),
                   folder / "part-1.parquet")
    assert Catalog.from_file(folder).lookup("events").columns[0].nullable is True


def test_delta_table_schema_from_its_log(tmp_path):
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    path = tmp_path / "customers"
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string()),
                        pa.field("score", pa.float64(), nullable=False)])
    write_deltalake(str(path), pa.table({"id": [1, 2], "name": ["a", None], "score": [1.0, 2.5]}, schema=schema))
    # a later commit evolves the schema: the latest metadata is the table's
    more = schema.append(pa.field("country", pa.string()))
    write_deltalake(str(path), pa.table({"id": [3], "name": ["c"], "score": [0.5], "country": ["x"]}, schema=more),
                    mode="append", schema_mode="merge")
    table = Catalog.from_file(path).lookup("customers")
    expected = [(f.name, f.nullable) for f in DeltaTable(str(path)).schema().fields]
    assert [(c.name, c.nullable) for c in table.columns] == expected
    assert [c.data_type for c in table.columns] == [T.LONG, T.STRING, T.DOUBLE, T.STRING]
    result = optimize("SELECT count(id), count(country) FROM customers WHERE score IS NULL", Catalog.from_file(path))
    # score is NOT NULL in the Delta schema: the filter keeps no row, the counts are 0
    assert result.sql == "SELECT 0L AS `count(id)`, 0L AS `count(country)`"


def test_schema_is_repeatable_and_takes_names(tmp_path, spark_parquet):
    (tmp_path / "schema.json").write_text(json.dumps({"u": {"num": "int not null"}}))
    proc = _cli("optimize", "SELECT count(o.k), count(u.num) FROM t1 o JOIN u ON o.k = u.num",
                "--schema", f"t1={spark_parquet}", "--schema", "schema.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("count(1)") == 2
    missing = _cli("optimize", "SELECT 1", "--schema", "nope.parquet", cwd=tmp_path)
    assert missing.returncode == 2 and missing.stderr.strip() == "sparkfold: error: cannot read nope.parquet: no such file or folder"
    (tmp_path / "notparquet.parquet").write_text("hello")
    bad = _cli("optimize", "SELECT 1", "--schema", "notparquet.parquet", cwd=tmp_path)
    assert bad.returncode == 2 and "cannot read the Parquet schema of notparquet.parquet" in bad.stderr
    assert "Traceback" not in bad.stderr
