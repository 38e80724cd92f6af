"""When a view's definition folds a query, and when it is kept a table (no Spark: the
views are given as a session would give them, `TableSchema.view`; the same decisions
against a live session, with Spark's rows, are in tests/test_session_views.py)."""

from __future__ import annotations

from sparkfold import optimize
from sparkfold.plans.ir import types as T
from sparkfold.plans.sql_in.catalog import Catalog, Column, TableSchema
from sparkfold.plans.sql_in.session_views import ViewDefinition


def _catalog(**views: str | tuple[str, tuple[Column, ...]]) -> Catalog:
    """Tables t (a INT) and u (a INT NOT NULL), a temporary view over VALUES, and the
    given temporary views (text, or text and columns; one INT column `a` by default),
    each reading t, u and w as Spark read them when it was made."""
    tables = {"t": TableSchema("t", (Column("a", T.INT),)),
              "u": TableSchema("u", (Column("a", T.INT, False),)),
              "w": TableSchema("w", (Column("a", T.INT, False),), view=ViewDefinition(True))}
    for name, given in views.items():
        text, columns = given if isinstance(given, tuple) else (given, (Column("a", T.INT),))
        tables[name] = TableSchema(name, columns, view=ViewDefinition(True, text, temp_references=frozenset(
            {"w", *views})))
    return Catalog(tables)


def test_a_view_whose_definition_is_empty_folds_the_join():
    cat = _catalog(v="SELECT a FROM t WHERE false")
    result = optimize("SELECT * FROM u JOIN v ON u.a = v.a", cat)
    assert result.sql.endswith("WHERE FALSE") and "EliminateView" in {s.rule for s in result.trace}


def test_a_view_filtered_to_empty_through_a_not_null_column():
    result = optimize("SELECT count(*) AS n FROM v", _catalog(v="SELECT a FROM u WHERE a IS NULL"))
    assert result.sql == "SELECT 0L AS n"


def test_a_view_over_an_empty_view():
    cat = _catalog(v="SELECT a FROM t WHERE 1 = 0", v2="SELECT a + 1 AS a FROM v")
    assert optimize("SELECT a FROM v2", cat).sql.endswith("WHERE FALSE")
    assert optimize("SELECT a FROM u WHERE a IN (SELECT a FROM v2)", cat).sql.endswith("WHERE FALSE")


def test_a_non_empty_view_is_read_by_name():
    sql = "SELECT a FROM v WHERE a > 1"
    assert optimize(sql, _catalog(v="SELECT a FROM t")).sql == sql


def test_a_left_join_with_an_empty_view_keeps_the_other_side_by_name():
    out = optimize("SELECT u.a, v.a AS b FROM u LEFT JOIN v ON u.a = v.a", _catalog(v="SELECT a FROM t WHERE false")).sql
    assert "FROM u" in out and "JOIN" not in out and "WHERE" not in out


def test_a_definition_whose_types_are_not_the_views_proves_nothing():
    cat = _catalog(v=("SELECT CAST(a AS BIGINT) AS a FROM t WHERE false", (Column("a", T.INT),)))
    assert optimize("SELECT a FROM v", cat).sql == "SELECT a FROM v"


def test_a_definition_of_other_width_proves_nothing():
    cat = _catalog(v=("SELECT a, a AS b FROM t WHERE false", (Column("a", T.INT),)))
    assert optimize("SELECT a FROM v", cat).sql == "SELECT a FROM v"


def test_an_empty_definition_holding_a_constant_that_may_raise_is_not_empty():
    cat = _catalog(v=("SELECT 1 / 0 AS c FROM t WHERE false", (Column("c", T.DOUBLE),)))
    assert optimize("SELECT c FROM v", cat).sql == "SELECT c FROM v"


def test_a_name_temporary_now_that_spark_reads_as_a_table_proves_nothing():
    tables = {"t": TableSchema("t", (Column("a", T.INT),), view=ViewDefinition(True)),
              "v": TableSchema("v", (Column("a", T.INT),), view=ViewDefinition(True, "SELECT a FROM t WHERE false"))}
    assert optimize("SELECT a FROM v", Catalog(tables)).sql == "SELECT a FROM v"


def test_a_persistent_view_never_reads_a_temporary_view():
    tables = {"w": TableSchema("w", (Column("a", T.INT),), view=ViewDefinition(True)),
              "t": TableSchema("t", (Column("a", T.INT),)),
              "p": TableSchema("p", (Column("a", T.INT),), view=ViewDefinition(False, "SELECT a FROM w WHERE false")),
              "q": TableSchema("q", (Column("a", T.INT),), view=ViewDefinition(False, "SELECT a FROM t WHERE false"))}
    assert optimize("SELECT a FROM p", Catalog(tables)).sql == "SELECT a FROM p"
    assert optimize("SELECT a FROM q", Catalog(tables)).sql.endswith("WHERE FALSE")


def test_an_opaque_view_stays_a_table():
    tables = {"v": TableSchema("v", (Column("a", T.INT),),
                               view=ViewDefinition(True, why_opaque="it was created under other settings"))}
    assert optimize("SELECT a FROM v", Catalog(tables)).sql == "SELECT a FROM v"


def test_a_view_reading_itself_proves_nothing():
    # (Spark rejects reading such a view; a session cannot hold one, a catalog given by hand can)
    cat = _catalog(v="SELECT a FROM v WHERE false")
    assert optimize("SELECT a FROM v", cat).sql == "SELECT a FROM v"
    cat = _catalog(v="SELECT a FROM v2 WHERE false", v2="SELECT a FROM v")
    assert optimize("SELECT a FROM v2", cat).sql == "SELECT a FROM v2"


def test_a_create_view_is_not_folded_by_another_views_definition():
    cat = _catalog(v="SELECT a FROM t WHERE false")
    sql = "CREATE OR REPLACE TEMPORARY VIEW v2 AS SELECT a FROM v"
    assert optimize(sql, cat).sql == sql
    assert optimize("SELECT a FROM v", cat).sql.endswith("WHERE FALSE")


def test_what_a_definition_proves_follows_the_views_it_reads():
    sql = "SELECT a FROM v2"
    empty = _catalog(v="SELECT a FROM t WHERE false", v2="SELECT a FROM v")
    assert optimize(sql, empty).sql.endswith("WHERE FALSE")
    result = optimize(sql, _catalog(v="SELECT a FROM t", v2="SELECT a FROM v"))  # v replaced
    assert result.sql == sql and set(result.view_reads) == {"v", "t"}


def test_the_rule_can_be_excluded():
    cat = _catalog(v="SELECT a FROM t WHERE false")
    assert optimize("SELECT a FROM v", cat, exclude=["EliminateView"]).sql == "SELECT a FROM v"


_VALUES = ("SELECT * FROM VALUES (1, 1), (2, NULL), (NULL, 3) AS v(a, b)", (Column("a", T.INT), Column("b", T.INT)))


def _rules(sql: str, cat: Catalog) -> set[str]:
    return {s.rule for s in optimize(sql, cat).trace}


def test_a_filter_over_a_view_of_rows_true_on_none_is_empty():
    cat = _catalog(v=_VALUES, p=("SELECT a * 2 AS d FROM v WHERE b IS NOT NULL", (Column("d", T.INT),)))
    for sql in ["SELECT a FROM v WHERE a = 0", "SELECT a FROM v WHERE b > 1 AND a IS NOT NULL",
                "SELECT 'foo' FROM v WHERE a + b = 7 GROUP BY 1", "SELECT d FROM p WHERE d = 4"]:
        result = optimize(sql, cat)
        assert result.sql.endswith("WHERE FALSE") and "ConvertToLocalRelation" in {s.rule for s in result.trace}, sql


def test_a_filter_over_a_view_of_rows_that_keeps_one_or_cannot_say_stays():
    cat = _catalog(v=_VALUES)
    for sql in ["SELECT a FROM v WHERE a = 1", "SELECT a FROM v WHERE b IS NULL",
                "SELECT a FROM v WHERE rand() > 2",             # not deterministic
                "SELECT a FROM v WHERE 10 / (a - 1) > 100",     # raises on a = 1 under ANSI
                "SELECT a FROM u WHERE EXISTS (SELECT 1 FROM v WHERE v.a = u.a + 100)"]:  # an outer column
        assert "ConvertToLocalRelation" not in _rules(sql, cat), sql
    assert "ConvertToLocalRelation" in _rules("SELECT a FROM v WHERE 10 / (a - 1) > 100", cat.with_settings(ansi=False))


def test_a_view_whose_values_raise_gives_no_rows():
    cat = _catalog(r=("SELECT 10 / (a - 1) AS d FROM VALUES (1), (2) AS t(a)", (Column("d", T.DOUBLE),)))
    assert "ConvertToLocalRelation" not in _rules("SELECT d FROM r WHERE d = 3", cat)  # 10 / 0 raises
    assert "ConvertToLocalRelation" in _rules("SELECT d FROM r WHERE d = 3", cat.with_settings(ansi=False))


def test_an_inline_table_filtered_to_no_row():
    cat = _catalog()
    assert optimize("SELECT v, count(*) AS c FROM VALUES (10), (20) AS t(v) WHERE v > 100 GROUP BY v",
                    cat).sql.endswith("WHERE FALSE")
