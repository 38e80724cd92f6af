"""Session settings read where they change something (plans/sql_in/settings.py): which
queries each one passes through, and what the modelled ones change.  No Spark here: the
same queries run on Spark, every path compared, in tests/test_sqltests_classes.py
(tests/sqltests/classes.py, `settings_scope_files`)."""

from __future__ import annotations

import pytest
from sparkfold import optimize
from sparkfold.plans.ir import types as T
from sparkfold.plans.sql_in.catalog import Catalog, session_settings
from sparkfold.plans.sql_in.settings import UNMODELLED, unmodelled_settings

from tests.sqltests.classes import LEGACY_SCOPES

CATALOG = Catalog.from_mapping({"r": {"id": "int", "s": "string"}, "r2": {"id": "int", "s": "string"},
                                "rb": {"a": "binary", "b": "binary", "s": "string"}})


class _Conf:
    def __init__(self, conf: dict):
        self.conf = self
        self.getAll = conf


def _under(conf: dict) -> Catalog:
    """The catalog as a session with these settings gives it."""
    return CATALOG.with_settings(**session_settings(_Conf(conf)))


def _passes_through(sql: str, conf: dict) -> bool:
    return optimize(sql, _under(conf)).passthrough is not None


BANG = ["SELECT id ! IN (1, 3) FROM r", "SELECT s ! LIKE 'a%' FROM r", "SELECT id IS ! NULL FROM r",
        "SELECT id ! BETWEEN 2 AND 3 FROM r"]


@pytest.mark.parametrize("sql", BANG)
def test_bang_for_not_after_an_operand_is_read_under_the_setting_only(sql):
    assert _passes_through(sql, {})  # Spark rejects it: its error is kept
    assert not _passes_through(sql, {"spark.sql.legacy.bangEqualsNot": "true"})


def test_bang_as_a_prefix_is_not_the_settings():
    assert not _passes_through("SELECT !(id = 1), id != 2 FROM r", {})


def test_concat_of_binaries_is_a_string_under_the_setting():
    sql = "SELECT concat(a, b), a || b AS c, concat(a, s) FROM rb"
    types = lambda conf: [a.data_type for a in optimize(sql, _under(conf)).analyzed.output]  # noqa: E731
    assert types({}) == [T.BINARY, T.BINARY, T.STRING]
    assert types({"spark.sql.function.concatBinaryAsString": "true"}) == [T.STRING] * 3
    names = [a.name for a in optimize(sql, _under({"spark.sql.function.concatBinaryAsString": "true"})).analyzed.output]
    assert names == ["concat(a, b)", "c", "concat(a, s)"]


@pytest.mark.parametrize("conf,folded", [({}, True), ({"spark.sql.legacy.nullInEmptyListBehavior": "true"}, False),
                                         ({"spark.sql.ansi.enabled": "false"}, False),
                                         ({"spark.sql.ansi.enabled": "false",
                                           "spark.sql.legacy.nullInEmptyListBehavior": "false"}, False)])
def test_null_in_an_empty_subquery(conf, folded):
    """FALSE with ANSI on, unless the legacy setting says NULL; taken as NULL with ANSI off
    (Spark's default there; with the setting false it is FALSE, and either answer keeps
    the IN as it is)."""
    r = optimize("SELECT NULL IN (SELECT id FROM r WHERE false) AS a, NULL NOT IN (SELECT id FROM r WHERE false) AS b",
                 _under(conf))
    assert r.passthrough is None
    assert ("IN (SELECT" not in r.sql.upper()) == folded  # (each IN folded to its constant, or both kept)


def test_double_quoted_identifiers_only_with_ansi_on():
    key = "spark.sql.ansi.doubleQuotedIdentifiers"
    assert unmodelled_settings({key: "true"}) == ((key, "true"),)
    assert unmodelled_settings({key: "true", "spark.sql.ansi.enabled": "false"}) == ()
    # a column with ANSI on (plans/sql_in/double_quoted.py), a string with it off
    typed = lambda conf: [(a.name, a.data_type) for a in optimize('SELECT "id" FROM r', _under(conf)).analyzed.output]  # noqa: E731
    assert typed({key: "true"}) == [("id", T.INT)]
    assert typed({key: "true", "spark.sql.ansi.enabled": "false"}) == [("id", T.STRING)]


@pytest.mark.parametrize("sql,changed", [
    ("WITH t AS (SELECT id FROM r) SELECT * FROM t WHERE 1 = 1", False),
    ("WITH t AS (SELECT 1 AS c), u AS (SELECT c + 1 AS d FROM t) SELECT * FROM u", False),
    # nested WITHs are read as Spark reads them (plans/sql_in/cte_legacy.py)
    ("WITH t AS (SELECT 1 AS c), t2 AS (WITH t AS (SELECT 2 AS c) SELECT * FROM t) SELECT * FROM t2", False),
    ("WITH t AS (SELECT 1 AS c) SELECT * FROM (WITH t AS (SELECT 2 AS c) SELECT * FROM t)", False),
    ("WITH t AS (SELECT id FROM r) SELECT * FROM t a JOIN t b ON a.id = b.id", False),
    # a non-deterministic CTE read twice passes through under any policy
    ("WITH t AS (SELECT rand() AS x FROM r) SELECT * FROM t a JOIN t b ON a.x = b.x", True),
    ("WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SELECT * FROM t", True),
])
def test_legacy_cte_precedence_passes_through_what_it_can_read_otherwise(sql, changed):
    assert _passes_through(sql, {"spark.sql.legacy.ctePrecedencePolicy": "legacy"}) == changed


def test_recursion_limit_changes_nothing_sparkfold_models():
    """A recursive CTE is kept as its text, which Spark runs under the session's limit."""
    conf = {"spark.sql.cte.recursion.level.limit": "200"}
    assert unmodelled_settings(conf) == ()
    sql = "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SELECT * FROM t WHERE 1 = 1"
    assert optimize(sql, _under(conf)).sql == optimize(sql, CATALOG).sql


def test_parentheses_around_a_star_only_where_written():
    conf = {"spark.sql.legacy.ignoreParenthesesAroundStar": "true"}
    assert not _passes_through("SELECT *, count(*) OVER () FROM r WHERE 1 = 1", conf)
    assert not _passes_through("SELECT (*), ((r.*)) FROM r", conf)  # a star in a select list either way
    assert _passes_through("SELECT count((*)) FROM r", conf)


DECORRELATION = [{"spark.sql.optimizer.decorrelateInnerQuery.enabled": "false"},
                 {"spark.sql.optimizer.decorrelateSubqueryLegacyIncorrectCountHandling.enabled": "true"},
                 {"spark.sql.optimizer.decorrelateExistsSubqueryLegacyIncorrectCountHandling.enabled": "true"},
                 {"spark.sql.legacy.scalarSubqueryCountBugBehavior": "true"},
                 {"spark.sql.legacy.scalarSubqueryAllowGroupByNonEqualityCorrelatedPredicate": "true"}]


@pytest.mark.parametrize("conf", DECORRELATION)
def test_decorrelation_settings_freeze_correlated_subqueries_only(conf):
    """Uncorrelated subqueries are optimized; a correlated one is kept as written, its
    text in the output as in the input, and the query around it is optimized."""
    cat = _under(conf)
    for sql, out in [
        ("SELECT * FROM r WHERE id IN (SELECT id FROM r2 WHERE 1 = 1)", "SELECT * FROM r WHERE id IN (SELECT id FROM r2)"),
        ("SELECT (SELECT (SELECT count(*) FROM r2 WHERE r2.id = r3.id) FROM r2 AS r3 LIMIT 1) AS n FROM r WHERE 2 = 2",
         "SELECT (SELECT (SELECT count(*) FROM r2 WHERE r2.id = r3.id) FROM r2 AS r3 LIMIT 1) AS n FROM r"),
        # (a subquery's text that a rewrite changes, one holding a frozen one here: kept as
        # written, every subquery of the text being kept as it is written)
        ("SELECT (SELECT (SELECT count(*) FROM r2 WHERE r2.id = r3.id) FROM r2 AS r3 WHERE 2 = 2 LIMIT 1) FROM r",
         None),
        ("SELECT *, (SELECT count(*) FROM r2 WHERE r2.id = r.id AND 1 = 1) AS n FROM r WHERE 2 = 2",
         "SELECT *, (SELECT count(*) FROM r2 WHERE r2.id = r.id AND 1 = 1) AS n FROM r"),
        # the rewrite would write the subquery anew: the query is kept as written
        ("SELECT * FROM r WHERE 2 = 2 AND EXISTS (SELECT count(*) FROM r2 WHERE r2.id = r.id AND 1 = 1)", None),
        # a frozen subquery is never removed (Spark decides whether it takes it)
        ("SELECT * FROM r WHERE false AND EXISTS (SELECT count(*) FROM r2 WHERE r2.id = r.id)", None),
    ]:
        r = optimize(sql, cat)
        assert r.passthrough is None
        assert r.sql == (out or sql), sql
    assert not _passes_through("SELECT * FROM r WHERE EXISTS (SELECT count(*) FROM r2 WHERE r2.id = r.id)", conf)


def test_the_legacy_count_bug_setting_at_its_default_changes_nothing():
    conf = {"spark.sql.legacy.scalarSubqueryCountBugBehavior": "false"}
    assert unmodelled_settings(conf) == ()
    assert not _passes_through("SELECT (SELECT count(*) FROM r2 WHERE r2.id = r.id) AS n FROM r", conf)


def test_an_output_the_session_reads_otherwise_is_kept_as_written():
    """Written whole, a global aggregate's condition is a HAVING without GROUP BY, which
    spark.sql.legacy.parser.havingWithoutGroupByAsWhere reads as a WHERE (an aggregate
    there is INVALID_WHERE_CONDITION): under it the query is kept as written."""
    sql = "SELECT 1 AS one FROM (SELECT count(*) AS n FROM r) WHERE n > 1"
    assert "HAVING" in optimize(sql, CATALOG, always_regenerate=True).sql
    conf = {"spark.sql.legacy.parser.havingWithoutGroupByAsWhere": "true"}
    assert optimize(sql, _under(conf), always_regenerate=True).sql == sql


LEGACY = Catalog.from_mapping({"r": {"id": "int", "s": "string", "b": "binary", "d": "date", "a": "array<int>"}})


@pytest.mark.parametrize("key,unchanged,changed", LEGACY_SCOPES, ids=[k for k, _, _ in LEGACY_SCOPES])
def test_legacy_settings_read_by_function_or_type_pass_through_only_what_they_change(key, unchanged, changed):
    """Set to other than its default, each passes through the queries that call what it
    changes or hold a value of a type it changes (tests/sqltests/classes.py runs the same
    queries on Spark); set back to its default, nothing."""
    value = {"spark.sql.legacy.timeParserPolicy": "LEGACY", "spark.sql.timestampType": "TIMESTAMP_NTZ"}.get(key, "true")
    under = LEGACY.with_settings(**session_settings(_Conf({key: value})))
    at_default = LEGACY.with_settings(**session_settings(_Conf({key: UNMODELLED[key][0]})))
    assert [optimize(q, under).passthrough is not None for q in unchanged + changed] == \
        [False] * len(unchanged) + [True] * len(changed)
    assert not any(optimize(q, at_default).passthrough for q in unchanged + changed)


def test_the_functions_the_charset_and_array_insert_settings_change_are_kept_as_written():
    """spark.sql.legacy.codingErrorAction, javaCharsets and negativeIndexInArrayInsert pass
    nothing through because sparkfold models none of the functions they change: each call
    is kept as written, and the query around it optimized; Spark computes (or raises on)
    each call under the setting."""
    from sparkfold.plans.ir.functions import AGGREGATE_FUNCTIONS, SCALAR_FUNCTIONS
    from sparkfold.plans.sql_in.settings import CHARSET_FUNCTIONS
    assert not CHARSET_FUNCTIONS & (set(SCALAR_FUNCTIONS) | set(AGGREGATE_FUNCTIONS))
    sql = "SELECT encode(upper(s), 'US-ASCII'), array_insert(array(id), -1, 2) FROM r WHERE 1 = 1"
    for key in ("codingErrorAction", "javaCharsets", "negativeIndexInArrayInsert"):
        out = optimize(sql, _under({f"spark.sql.legacy.{key}": "true"}))
        assert out.sql == "SELECT encode(upper(s), 'US-ASCII'), array_insert(array(id), -1, 2) FROM r", out.sql


def test_a_setting_read_only_inside_sql_function_bodies_passes_nothing_through():
    """spark.sql.legacy.allowUdfParameterToShadowParameterlessFunction changes how a SQL
    function's body reads its parameters; sparkfold reads no body (Spark's
    parameterless-function-name-precedence-legacy.sql runs these on Spark)."""
    conf = {"spark.sql.legacy.allowUdfParameterToShadowParameterlessFunction": "true"}
    assert unmodelled_settings(conf) == tuple(conf.items())
    for sql in ["SELECT current_user, current_date FROM r WHERE 1 = 1", "SELECT my_udf(id) FROM r WHERE 1 = 1"]:
        assert not _passes_through(sql, conf)
