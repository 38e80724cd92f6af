"""Spark's variant paths (`v:a.b`), read into an opaque value of the column and written
back as they were (plans/sql_in/variant_paths.py).  What Spark returns for each form,
in each clause, on every path, is checked by `variant_path_files`
(tests/test_sqltests_classes.py); these check the reading and the names without Spark."""

from __future__ import annotations

import pytest
from sparkfold import optimize

CATALOG = {"t": {"k": "int", "v": "variant", "s": "string"}}


@pytest.mark.parametrize("path", ["v:a.b", "v:a", "v:['f-n']", "v:a.c[1]", "v:[1].a", "v:a:b", "t.v:a.b",
                                  "(v):a.b", "parse_json(s):a", "v:A"])
def test_a_path_is_read_and_written_back_as_it_was(path):
    r = optimize(f"SELECT k, {path} AS x FROM t WHERE 1 = 1", CATALOG)
    assert r.passthrough is None
    assert r.sql == f"SELECT k, {path} AS x FROM t"


def test_a_path_is_named_after_its_last_name_alone_or_cast_and_left_to_spark_elsewhere():
    r = optimize("SELECT v:a.b, v:a.b::int, v:['f-n'], CAST(v:a.c[0] AS STRING), v:[0], -v:a::int FROM t", CATALOG)
    names = [a.name for a in r.analyzed.output]
    assert names[:4] == ["b", "b", "f-n", "c"]
    # (Spark names these `variant_get(v, $[0])` and `(- CAST(variant_get(v, $.a) AS a AS INT))`)
    assert [n.name_known for o in r.analyzed.expressions[4:] for n in o.walk() if hasattr(n, "name_known")] \
        == [False, False]


def test_a_derived_tables_path_is_read_by_its_name():
    r = optimize("SELECT b FROM (SELECT v:a.b FROM t) WHERE 1 = 1", CATALOG)
    assert r.passthrough is None and r.sql == "SELECT t.v:a.b FROM t"


@pytest.mark.parametrize("sql, reason", [
    ("SELECT s:a FROM t", "of a string value"),            # Spark: COLUMN_IS_NOT_VARIANT_TYPE
    ("SELECT v:a.`b` FROM t", "a variant path"),          # a backquoted name: not read
    ("SELECT v:a.c[k + 1] FROM t", "a variant path"),     # a subscript of the VARIANT: Spark rejects it
])
def test_a_path_not_read_passes_through(sql, reason):
    r = optimize(sql, CATALOG)
    assert r.passthrough is not None and reason in r.passthrough and r.sql == sql


def test_a_struct_fields_colon_in_a_type_is_no_path():
    r = optimize("SELECT CAST(NULL AS STRUCT<a: INT, b: ARRAY<INT>>) AS x, k FROM t WHERE 1 = 1", CATALOG)
    assert r.passthrough is None and "STRUCT<" in r.sql and "__sf" not in r.sql
