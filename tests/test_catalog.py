"""Catalogs from a mapping, a JSON file and a live SparkSession."""

from __future__ import annotations

import json

import pytest
from sparkfold.plans.ir import types as T
from sparkfold.plans.ir.errors import SchemaError, UnknownTableError
from sparkfold.plans.sql_in.catalog import Catalog


def test_mapping_with_types_and_nullability():
    cat = Catalog.from_mapping({"t": {"num": "int not null", "x": "double", "d": "decimal(15,2)",
                                      "a": "array<string>", "st": "struct<k:int,v:string>"},
                                "db.orders": {"id": "BIGINT NOT NULL"}})
    t = cat.lookup("t")
    assert [(c.name, c.data_type, c.nullable) for c in t.columns][:3] == [
        ("num", T.INT, False), ("x", T.DOUBLE, True), ("d", T.DecimalType(15, 2), True)]
    assert t.columns[3].data_type == T.ArrayType(T.STRING)
    assert isinstance(t.columns[4].data_type, T.StructType)
    assert cat.lookup("DB.Orders").columns[0].nullable is False
    assert cat.lookup("spark_catalog.db.orders").name == "db.orders"


def test_unknown_table_names_the_table_and_known_ones():
    cat = Catalog.from_mapping({"t": {"a": "int"}})
    with pytest.raises(UnknownTableError, match="`nope`.*known tables: t"):
        cat.lookup("nope")


@pytest.mark.parametrize("mapping,message", [
    ({"t": {"a": "integr"}}, "unknown type"),
    ({"t": {"a": "decimal(50,2)"}}, "invalid decimal"),
    ({"t": ["a", "int"]}, "expected a mapping"),
    ({"t": {"a": 5}}, "must be a string"),
])
def test_bad_schema_is_a_clear_error(mapping, message):
    with pytest.raises(SchemaError, match=message):
        Catalog.from_mapping(mapping)


def test_json_file(tmp_path):
    path = tmp_path / "schema.json"
    path.write_text(json.dumps({"t": {"a": "int not null"}}))
    assert Catalog.from_json(path).lookup("t").columns[0].nullable is False
    bad = tmp_path / "bad.json"
    bad.write_text("{\"t\": {\"a\": \"int\",}}")
    with pytest.raises(SchemaError, match="not valid JSON.*line 1"):
        Catalog.from_json(bad)
    with pytest.raises(SchemaError, match="cannot read schema file"):
        Catalog.from_json(tmp_path / "missing.json")


def test_from_spark_session_reads_schemas_nullability_and_ansi(spark, tables):
    cat = Catalog.from_spark(spark)
    t = cat.lookup("t")
    cols = {c.name: c for c in t.columns}
    assert cols["num"].data_type == T.INT and cols["num"].nullable is False
    assert cols["d"].data_type == T.DecimalType(10, 2) and cols["d"].nullable is True
    assert cat.ansi is (spark.conf.get("spark.sql.ansi.enabled").lower() == "true")
    with pytest.raises(UnknownTableError):
        cat.lookup("no_such_table_here")
