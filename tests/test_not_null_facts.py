"""explain names the NOT NULL facts a query's rewrites rest on, and where each comes from
(issue 12): a hand-written NOT NULL that the data breaks gives wrong counts, so a reader
must see which rewrites depend on which declaration."""

from __future__ import annotations

import json

import pytest
from sparkfold import optimize
from sparkfold.plans.sql_in.catalog import Catalog

from tests.spark_check import run


@pytest.fixture
def schema_file(tmp_path):
    path = tmp_path / "schema.json"
    path.write_text(json.dumps({"customers": {"id": "bigint not null", "name": "string not null",
                                              "country": "string"}}))
    return path


def _facts(sql, catalog):
    return json.loads(optimize(sql, catalog).explain(format="json"))["not_null_facts"]


def test_each_fact_the_query_reads_is_named_with_its_source_and_the_rules_resting_on_it(schema_file):
    facts = _facts("SELECT count(id) AS n, count(country) AS k FROM customers WHERE name > 'a'",
                   Catalog.from_json(schema_file))
    by_column = {f["column"]: f for f in facts}
    assert set(by_column) == {"id", "name"}  # country is nullable: not a fact
    assert by_column["id"]["source"] == str(schema_file) and by_column["id"]["rules"] == ["NullPropagation"]
    # name's NOT NULL changes nothing here (the WHERE rejects NULL names anyway)
    assert by_column["name"]["rules"] == []
    text = optimize("SELECT count(id) AS n FROM customers", Catalog.from_json(schema_file)).explain()
    assert f"customers.id NOT NULL, from {schema_file}: rewrites of NullPropagation rest on it" in text


def test_no_section_without_facts():
    text = optimize("SELECT count(x) AS n FROM t", {"t": {"x": "int"}}).explain()
    assert "NOT NULL Facts" not in text


def test_a_parquet_footer_is_named_as_the_source(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "orders.parquet"
    pq.write_table(pa.table({"id": pa.array([1, 2], pa.int64())},
                            schema=pa.schema([pa.field("id", pa.int64(), nullable=False)])), path)
    facts = _facts("SELECT count(id) AS n FROM orders", Catalog.from_file(path))
    assert [(f["table"], f["column"], f["rules"]) for f in facts] == [("orders", "id", ["NullPropagation"])]
    assert str(path) in facts[0]["source"]


def test_a_rewrite_said_to_rest_on_a_fact_changes_the_answer_when_the_data_breaks_it(spark, schema_file):
    """Spark is the oracle: with a NULL id (the declaration broken), the query and its
    optimized SQL count differently, as explain says they rest on customers.id NOT NULL."""
    sql = "SELECT count(id) AS n FROM customers"
    result = optimize(sql, Catalog.from_json(schema_file))
    assert [f["rules"] for f in json.loads(result.explain(format="json"))["not_null_facts"]
            if f["column"] == "id"] == [["NullPropagation"]]
    spark.createDataFrame([(1, "a", None), (None, "b", "FR")], "id bigint, name string, country string") \
        .createOrReplaceTempView("customers")
    try:
        assert run(spark, sql)[1] == [(1,)] and run(spark, result.sql)[1] == [(2,)]
    finally:
        spark.catalog.dropTempView("customers")
