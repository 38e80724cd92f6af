"""IDENTIFIER('name') read as the name it gives (plans/sql_in/identifier_clause.py): the
text optimized, the clauses put back where the output kept them, findings placed in the
text as written.  No Spark here: tests/sqltests/classes.py (`identifier_clause_files`)
runs such queries on Spark, every path compared."""

from __future__ import annotations

import pytest
from sparkfold import optimize
from sparkfold.plans.sql_in.catalog import Catalog
from sparkfold.plans.sql_in.identifier_clause import as_names

CATALOG = Catalog.from_mapping({"t": {"c1": "int", "c2": "int"}, "tab": {"c1": "int"}})


@pytest.mark.parametrize("sql,out", [
    ("SELECT IDENTIFIER('c1') FROM t WHERE 1 = 1", "SELECT IDENTIFIER('c1') FROM t"),
    ("SELECT IDENTIFIER('t.c1'), IDENTIFIER('c' || '2') FROM t WHERE c1 IS NULL AND 1 = 1",
     "SELECT IDENTIFIER('t.c1'), IDENTIFIER('c' || '2') FROM t WHERE c1 IS NULL"),
    ("SELECT c1 AS IDENTIFIER('x') FROM t WHERE 1=1", "SELECT c1 AS IDENTIFIER('x') FROM t"),
    # a name the writer writes anew: in backquotes (a keyword stays a name)
    ("SELECT * FROM IDENTIFIER('ta' || 'b') WHERE 2 > 1", "SELECT * FROM `tab`"),
    ("SELECT IDENTIFIER('select') FROM (SELECT 1 AS `select`) WHERE 1 = 1", "SELECT 1 AS `select`"),
])
def test_a_clause_is_read_as_its_name_and_kept_as_written(sql, out):
    r = optimize(sql, CATALOG)
    assert r.passthrough is None and r.sql == out


def test_findings_point_into_the_text_as_written():
    sql = "SELECT IDENTIFIER('c1')\n  ,\n IDENTIFIER(\n'c2'\n) FROM t WHERE 1 = 1 AND c1 = NULL"
    f = optimize(sql, CATALOG).findings[0]
    assert (f.line, f.column, f.snippet) == (5, 16, "1 = 1 AND c1 = NULL")


@pytest.mark.parametrize("sql", [
    "SELECT IDENTIFIER('c 1') FROM t",            # no name: Spark's syntax error
    "SELECT IDENTIFIER('') FROM t",               # PARSE_EMPTY_STATEMENT
    "SELECT c1 AS IDENTIFIER('x.y') FROM t",      # a qualified alias
    "SELECT IDENTIFIER(c1) FROM t",               # not a constant string
    "SELECT IDENTIFIER((SELECT 'c1')) FROM t",
    "SELECT IDENTIFIER('t').c1 FROM t",           # Spark's grammar reads no clause there
    "SELECT EXTRACT(IDENTIFIER('YEAR') FROM c1) FROM t",
    "SELECT :IDENTIFIER('p') FROM t",
])
def test_a_clause_not_over_a_name_in_string_literals_is_left_to_spark(sql):
    assert as_names(sql) is None
    assert optimize(sql, CATALOG).passthrough == "the IDENTIFIER clause"


def test_a_string_that_spells_a_clause_is_not_one():
    sql = "SELECT 'IDENTIFIER(''c1'')' FROM t WHERE 1 = 1"
    assert as_names(sql) is None
    assert optimize(sql, CATALOG).sql == "SELECT 'IDENTIFIER(''c1'')' FROM t"


LEGACY = CATALOG.with_settings(unmodelled=(("spark.sql.legacy.identifierClause", "true"),))


@pytest.mark.parametrize("sql,read", [
    ("SELECT IDENTIFIER('c1') FROM t WHERE 1 = 1", True),
    ("SELECT * FROM IDENTIFIER('ta' || 'b') WHERE 2 > 1", True),
    ("SELECT IDENTIFIER('abs')(c1), IDENTIFIER('max')(c2) FROM t GROUP BY c1", True),
    ("SELECT c1 FROM t ORDER BY IDENTIFIER('t.c2')", True),
    # where the legacy grammar reads no clause: Spark's syntax errors under it
    ("SELECT c1 AS IDENTIFIER('x') FROM t WHERE 1 = 1", False),
    ("SELECT q.c1 FROM t AS IDENTIFIER('q')", False),
    ("WITH IDENTIFIER('w') AS (SELECT 1) SELECT * FROM w", False),
    ("SELECT * FROM t JOIN tab USING (IDENTIFIER('c1'))", False),
    ("SELECT * FROM t PIVOT (sum(c2) FOR IDENTIFIER('c1') IN (1, 2))", False),
])
def test_under_the_legacy_clause_only_its_places_are_read(sql, read):
    """spark.sql.legacy.identifierClause: a column, a table, a function's name read as
    the newer clause; any other place left to Spark (tests/sqltests/classes.py
    `identifier_clause_files` runs both settings on Spark)."""
    assert (optimize(sql, LEGACY).passthrough is None) is read
    assert optimize(sql, CATALOG).passthrough is None
