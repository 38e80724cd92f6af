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


def test_the_session_says_which_of_its_functions_are_deterministic(spark, tables):
    """A CTE read twice must give the same rows at each read: with a function only the
    session knows (a UDF), sparkfold passes the query through, unless the session says
    the function is deterministic (splink's generated queries read such CTEs twice).  A
    Python UDF is deterministic unless marked `asNondeterministic()`."""
    from pyspark.sql.functions import udf
    from sparkfold import optimize

    from tests.spark_check import assert_same_result

    spark.udf.register("sf_test_plus_one", lambda v: None if v is None else v + 1, "int")
    spark.udf.register("sf_test_shuffled", udf(lambda v: v, "int").asNondeterministic())
    cat = Catalog.from_spark(spark)
    assert cat.function_deterministic("sf_test_plus_one", 1) is True
    assert cat.function_deterministic("sf_test_shuffled", 1) is False
    assert cat.function_deterministic("sf_test_no_such_function", 1) is None
    template = ("WITH c AS (SELECT num, {f}(num) AS v FROM t WHERE 1 = 1) "
                "SELECT a.num, a.v FROM c a JOIN c b ON a.num = b.num WHERE b.v > NULL OR a.v > 1")
    known = optimize(template.format(f="sf_test_plus_one"), cat)
    assert known.passthrough is None and "1 = 1" not in known.sql, known.sql
    assert_same_result(spark, known.original_sql, known.sql)
    unknown = optimize(template.format(f="sf_test_shuffled"), cat)
    assert unknown.passthrough is not None and "non-deterministic CTE" in unknown.passthrough
    # without a session to ask, a function sparkfold does not know may be non-deterministic
    schemas = Catalog({"t": cat.lookup("t")})
    assert optimize(template.format(f="sf_test_plus_one"), schemas).passthrough is not None


DDL_TABLES = [
    "CREATE TABLE ddl_db.orders (id INT NOT NULL, cust BIGINT, amount DECIMAL(10,2) NOT NULL COMMENT 'paid', "
    "tags ARRAY<STRING>, placed TIMESTAMP, meta STRUCT<a: INT, b: STRING>) USING parquet",
    "CREATE TABLE ddl_customers (cid INT NOT NULL, name STRING, born DATE) USING parquet",
]
DDL = "-- as SHOW CREATE TABLE prints them\n" + ";\n".join(DDL_TABLES + ["CREATE VIEW ddl_v AS SELECT 1 AS one"])


def test_ddl_file_gives_the_types_and_not_nulls_spark_gives(spark, tmp_path):
    """A `.sql` file of CREATE TABLE statements is a schema; Spark, running the same
    statements, is the oracle for each column's name and type.  NOT NULL is taken as
    declared, like "not null" in a JSON schema: Spark drops it from a file-source table's
    schema (and does not enforce it there), so it is the user's word, not Spark's."""
    path = tmp_path / "schema.sql"
    path.write_text(DDL)
    cat = Catalog.coerce(str(path))
    names = ["ddl_db.orders", "ddl_customers"]
    spark.sql("CREATE DATABASE IF NOT EXISTS ddl_db")
    try:
        for i, statement in enumerate(DDL_TABLES):
            spark.sql(f"{statement} LOCATION '{tmp_path / f't{i}'}'")
        live = Catalog.from_spark(spark)
        for name in names:
            assert [(c.name, c.data_type) for c in cat.lookup(name).columns] == \
                [(c.name, c.data_type) for c in live.lookup(name).columns], name
    finally:
        for name in names:
            spark.sql(f"DROP TABLE IF EXISTS {name}")
        spark.sql("DROP DATABASE IF EXISTS ddl_db")
    assert [c.nullable for c in cat.lookup("ddl_db.orders").columns] == [False, True, False, True, True, True]
    with pytest.raises(UnknownTableError):
        cat.lookup("ddl_v")  # a view has no column types: skipped


@pytest.mark.parametrize("text,message", [
    ("CREATE TABLE x (a FOO BAR)", "cannot read the CREATE TABLE statements"),
    ("SELECT 1", "no CREATE TABLE statement with columns"),
])
def test_bad_ddl_schema_is_a_clear_error(tmp_path, text, message):
    path = tmp_path / "bad.sql"
    path.write_text(text)
    with pytest.raises(SchemaError, match=message):
        Catalog.coerce(path)


COLUMN_TYPES = ["int NOT  NULL", "integer not nul", "int notnull", "int garbage words", "int, not null",
                "int not null", "INT\tNOT\nNULL", "int null", "decimal(15,2) NOT NULL", "bigint not null null",
                "array<string> not null", "struct<a:int not null, b:string> NOT NULL", "string not", "not null",
                "map<string,int>", "double precision", "date not null,"]


# Spellings sparkfold reads though Spark's DDL reader does not: each is unambiguous, and
# reads as the text it stands for reads in Spark (sqlglot's aliases; a redundant NULL)
LENIENT = {"int null": "int", "double precision": "double", "text": "string", "bool not null": "boolean not null"}


def _spark_field(spark, text):
    return spark.sparkContext._jvm.org.apache.spark.sql.types.StructType.fromDDL(f"c {text}").fields()[0]


@pytest.mark.parametrize("text", COLUMN_TYPES + list(LENIENT))
def test_a_column_type_reads_as_sparks_ddl_reads_it(spark, text):
    """Spark's own DDL reader (`StructType.fromDDL`) is the oracle: a column type it takes
    gives the same type and nullability here; one it refuses is an error here that names
    table and column, never a type read silently as nullable (but for the few unambiguous
    spellings of LENIENT, read as what they stand for)."""
    try:
        field = _spark_field(spark, text)
    except Exception:  # noqa: BLE001 - Spark refuses the text
        if text not in LENIENT:
            with pytest.raises(SchemaError, match=r"table 't', column 'c': .*expected a Spark type"):
                Catalog.from_mapping({"t": {"c": text}})
            return
        field = _spark_field(spark, LENIENT[text])
    column = Catalog.from_mapping({"t": {"c": text}}).lookup("t").columns[0]
    assert column.data_type.simple_string() == field.dataType().simpleString()
    assert column.nullable == field.nullable()
