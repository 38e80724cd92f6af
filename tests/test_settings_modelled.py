"""Session settings modelled where Spark reads them (issue 36): the legacy CTE precedence
(plans/sql_in/cte_legacy.py) and backquoted names as regular expressions
(plans/sql_in/regex_columns.py).  Each space runs on Spark through the harness of Spark's
test files with the setting on, ANSI on and off: on every path (the optimized SQL, the
query written whole, the DataFrame program) rows, names, types and errors equal Spark's,
and no query Spark accepts is rejected.  The default run checks a sample of each space with
ANSI on (about 15 s); SPARKFOLD_LONG=1 all of it.  The decisions without Spark are at the end."""

from __future__ import annotations

import itertools

import pytest
from sparkfold import optimize
from sparkfold.plans.sql_in.catalog import Catalog

from tests.sqltests.check import run_file
from tests.sqltests import source

ANSI = [[[("spark.sql.ansi.enabled", "true")], [("spark.sql.ansi.enabled", "false")]]]

# catalog views named like the CTEs: a read that Spark leaves to the catalog reads them
_VIEWS = ["CREATE TEMPORARY VIEW r AS SELECT * FROM VALUES (1, 'a'), (2, 'b'), (NULL, 'c') AS r(id, s)",
          "CREATE TEMPORARY VIEW t AS SELECT 100 AS c", "CREATE TEMPORARY VIEW u AS SELECT 200 AS c"]

# where a WITH sits inside another (or alone), the inner one written `{}`
_PLACES = {
    "definition": "WITH t AS (SELECT 1 AS c), w AS {} SELECT * FROM w WHERE 1 = 1",
    "definition's FROM": "WITH t AS (SELECT 1 AS c), w AS (SELECT * FROM {} x) SELECT * FROM w",
    "definition's scalar subquery": "WITH t AS (SELECT 1 AS c), w AS (SELECT ({}) AS s) SELECT * FROM w",
    "FROM": "WITH t AS (SELECT 1 AS c) SELECT * FROM {} x WHERE c > 0",
    "scalar subquery": "WITH t AS (SELECT 1 AS c) SELECT ({}) + 0 AS s",
    "IN subquery": "WITH t AS (SELECT 1 AS c) SELECT * FROM t WHERE c + 1 IN {} OR 1 = 0",
    "alone": "SELECT * FROM {} x WHERE 2 = 2",
}


def _inner(defined: str, body_reads: str, definition_reads: str | None) -> str:
    value = f"SELECT c + 1 AS c FROM {definition_reads}" if definition_reads else "SELECT 2 AS c"
    return f"(WITH {defined} AS ({value}) SELECT c FROM {body_reads} WHERE 1 = 1)"


def cte_queries() -> list[str]:
    out = []
    for place, defined, body, definition in itertools.product(_PLACES.values(), "tu", "tu", [None, "t"]):
        out.append(place.format(_inner(defined, body, definition)))
    # three levels, and a CTE named again in one WITH's later definition (Spark's test files)
    out += ["WITH t AS (SELECT 1 AS c), w AS (WITH t AS (SELECT 2 AS c), w AS (WITH t AS (SELECT 3 AS c) "
            "SELECT * FROM t) SELECT * FROM w) SELECT * FROM w WHERE c > 0",
            "WITH t AS (SELECT 1 AS c) SELECT (WITH t AS (SELECT 2 AS c) SELECT (WITH t AS (SELECT 3 AS c) "
            "SELECT c FROM t)) AS s",
            "WITH t AS (SELECT id AS c FROM r WHERE id > 0 OR 1 = 0) SELECT * FROM (WITH u AS (SELECT * FROM t) "
            "SELECT * FROM u) x JOIN t USING (c)",
            "WITH T AS (SELECT 1 AS c) SELECT * FROM (WITH t AS (SELECT 2 AS c) SELECT (SELECT c FROM T) AS s)",
            # a definition no read reaches is never analyzed under LEGACY
            "WITH t AS (SELECT 1 AS c), w AS (WITH t AS (SELECT * FROM nonexistent) SELECT 2 AS c) SELECT * FROM w "
            "WHERE 1 = 1",
            # a read bound by where its copy lands (passes through), and a recursive WITH (rejected)
            "WITH d AS (SELECT * FROM u), e AS (WITH u AS (SELECT 1 AS c) SELECT * FROM d) SELECT * FROM e UNION ALL "
            "SELECT * FROM d",
            "WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < 3) SELECT * FROM n"]
    return out


def cte_file() -> source.TestFile:
    statements = _VIEWS + ["SET spark.sql.legacy.ctePrecedencePolicy=legacy"] + cte_queries()
    return _file("cte-legacy-space.sql", statements)


_REGEX_VIEWS = ["CREATE TEMPORARY VIEW rx AS SELECT * FROM VALUES (1, 2, 3, 'x'), (NULL, 5, 6, 'y') AS rx(A, B, c, d)",
                "CREATE TEMPORARY VIEW ry AS SELECT * FROM VALUES (1, 10), (7, 70) AS ry(a, e)"]
_PATTERNS = ["(a)?+.+", "(A|b)", "a", "B", "b.*", "(e|f)", "[ab]", ".*", "c{1}", "(a|e)", "d|e"]


def regex_queries() -> list[str]:
    out = []
    for p in _PATTERNS:
        out += [f"SELECT `{p}` FROM rx WHERE 1 = 1", f"SELECT x.`{p}`, c + 0 AS k FROM rx x WHERE c > 0 OR 1 = 0",
                f"SELECT `{p}`, 1 AS one FROM rx JOIN ry USING (a)", f"SELECT ry.`{p}`, rx.`{p}` FROM rx, ry WHERE 2 = 2",
                f"SELECT DISTINCT `{p}`, 0 AS z FROM rx ORDER BY z"]
    out += ["SELECT abs(`(a)`) FROM rx", "SELECT `(a)` AS z FROM rx", "SELECT (SELECT max(`a`) FROM ry) AS m FROM rx",
            "SELECT A FROM rx WHERE `a` = 1 AND 1 = 1", "SELECT * FROM rx ORDER BY `c` DESC",
            "SELECT `c` FROM rx GROUP BY c", "SELECT s FROM (SELECT `(c|d)`, 1 AS s FROM rx) WHERE 1 = 1",
            "SELECT count(*) FROM (SELECT `.*` FROM rx JOIN ry ON rx.A = ry.a) WHERE 1 = 1"]
    return out


def regex_file() -> source.TestFile:
    statements = _REGEX_VIEWS + ["SET spark.sql.parser.quotedRegexColumnNames=true"] + regex_queries()
    return _file("quoted-regex-space.sql", statements)


def double_quoted_queries() -> list[str]:
    return ['SELECT "id", \'x\' FROM r WHERE 1 = 1', 'SELECT "r"."id" + 0 AS "k" FROM "r" WHERE "s" = \'a\' OR 1 = 0',
            'SELECT * FROM r AS "q"("a", "b") WHERE "a" > 0 AND 2 = 2', 'WITH "c" AS (SELECT 1 AS "v") SELECT "v" + 1 FROM "c"',
            'SELECT "s" || \'x\' FROM r', 'SELECT count("id") AS n FROM r GROUP BY "s" HAVING 1 = 1',
            'SELECT INTERVAL "1" YEAR', 'SELECT "hello"', 'SELECT s LIKE "a%" FROM r', 'SELECT "s" FROM r ORDER BY "id" + 0']


def double_quoted_file() -> source.TestFile:
    statements = _VIEWS[:1] + ["SET spark.sql.ansi.doubleQuotedIdentifiers=true"] + double_quoted_queries()
    return _file("double-quoted-space.sql", statements)


def small_settings_file() -> source.TestFile:
    """`(*)` in a select list (a star under either value of
    spark.sql.legacy.ignoreParenthesesAroundStar) and integer literals in GROUP BY / ORDER
    BY under spark.sql.groupByOrdinal / orderByOrdinal = false (constants)."""
    star = ["SELECT (*) FROM r WHERE 1 = 1", "SELECT ((*)), 1 AS one FROM r WHERE id > 0 OR 1 = 0", "SELECT (r.*) FROM r",
            "SELECT count((*)) FROM r"]
    ordinals = ["SELECT id, s FROM r ORDER BY 2, 1", "SELECT id FROM r WHERE 1 = 1 ORDER BY -1", "SELECT * FROM r SORT BY 0",
                "SELECT sum(id) FROM r GROUP BY -1", "SELECT count(*) FROM r WHERE id > 5 GROUP BY 1",
                "SELECT s, count(*) FROM r GROUP BY 1, s HAVING 1 = 1", "SELECT (SELECT 1) AS x, 2 FROM r GROUP BY (2)"]
    return _file("small-settings.sql", _VIEWS[:1] + star + ["SET spark.sql.legacy.ignoreParenthesesAroundStar=true"] + star
                 + ["SET spark.sql.orderByOrdinal=false", "SET spark.sql.groupByOrdinal=false"] + ordinals)


def _file(name: str, statements: list[str]) -> source.TestFile:
    queries = [source.Statement(i, s, bool(source._QUERY_START.match(s))) for i, s in enumerate(statements)]
    return source.TestFile(name, queries, [], ANSI)


def _check(spark, files: list[source.TestFile], every: int = 1, ansi_on_only: bool = False):
    """Each file's run per setting of ANSI (on only: the default run's sample)."""
    outcomes = [o for t in files for config in t.config_sets()[:1 if ansi_on_only else None]
                for o in run_file(spark, t, config, every=every).outcomes]
    failures = [f"[{', '.join(o.failures)}] {o.name} (Spark: {o.spark})\n  {o.sql}\n  {o.detail}\n  {o.report}"
                for o in outcomes if o.failures]
    return outcomes, failures


def test_legacy_cte_precedence_read_as_spark_reads_it(spark):
    outcomes, failures = _check(spark, [cte_file()], every=40, ansi_on_only=True)
    assert failures == []
    assert any(o.status == "rewritten" for o in outcomes)


def test_backquoted_names_as_regular_expressions(spark):
    outcomes, failures = _check(spark, [regex_file()], every=30, ansi_on_only=True)
    assert failures == []
    # (a rewrite keeping a pattern in its text is kept as written: few are rewritten)
    assert any(o.status == "unchanged" and o.spark == "accepts" and "`(" in o.sql for o in outcomes)


def test_double_quoted_identifiers(spark):
    outcomes, failures = _check(spark, [double_quoted_file()], every=5, ansi_on_only=True)
    assert failures == []
    assert any(o.status == "rewritten" for o in outcomes)


def test_parenthesized_stars_and_ordinals_off(spark):
    outcomes, failures = _check(spark, [small_settings_file()], every=5, ansi_on_only=True)
    assert failures == []
    assert not any(o.status == "passthrough" for o in outcomes if "count((*))" not in o.sql)


@pytest.mark.slow
def test_every_query_of_both_spaces(spark):
    """Every query of every space here, with ANSI on and off (both)."""
    outcomes, failures = _check(spark, [cte_file(), regex_file(), double_quoted_file(), small_settings_file()])
    assert failures == []
    accepted = [o for o in outcomes if o.spark == "accepts"]
    # nested WITHs are read, not passed through (but where a read binds apart at two copies)
    assert sum(o.status == "passthrough" for o in accepted) <= len(accepted) // 10


# -- without Spark ----------------------------------------------------------------------

def _legacy(sql: str):
    cat = Catalog.from_mapping({"r": {"id": "int", "s": "string"}}).with_settings(
        unmodelled=(("spark.sql.legacy.ctePrecedencePolicy", "legacy"),))
    return optimize(sql, cat)


@pytest.mark.parametrize("sql,value", [
    # in a definition, or a subquery expression, the outer name wins
    ("WITH t AS (SELECT 1 AS c), w AS (WITH t AS (SELECT 2 AS c) SELECT * FROM t) SELECT * FROM w", 1),
    ("WITH t AS (SELECT 1 AS c) SELECT (WITH t AS (SELECT 2 AS c) SELECT * FROM t) AS c", 1),
    # in the relation tree, the inner one (as under CORRECTED)
    ("WITH t AS (SELECT 1 AS c) SELECT * FROM (WITH t AS (SELECT 2 AS c) SELECT * FROM t)", 2),
])
def test_legacy_precedence_binds_as_spark(sql, value):
    r = _legacy(sql)
    assert r.passthrough is None
    assert r.sql == sql  # nothing to rewrite: the text as written
    assert _constant(r.optimized) == value


def _constant(plan):
    """The one value a plan of literals gives (as the optimizer folds it)."""
    from sparkfold.plans.ir import expressions as E
    from sparkfold.plans.ir import logical as L

    values, plans = set(), [plan]
    while plans:
        for p in plans.pop().walk():
            for e in p.expressions:
                values |= {n.value for n in e.walk() if isinstance(n, E.Literal)}
                plans += [x.plan for x in L.subquery_plans(e)]
    (value,) = values
    return value


def test_legacy_renames_the_cte_a_rewrite_writes_apart():
    r = _legacy("WITH t AS (SELECT id FROM r WHERE 1 = 1), w AS (WITH t AS (SELECT 2 AS id) SELECT * FROM t) "
                "SELECT * FROM w")
    assert r.passthrough is None
    assert r.sql == "WITH t_1 AS (SELECT id FROM r), w AS (WITH t_2 AS (SELECT 2 AS id) SELECT * FROM t_1 AS t) " \
                    "SELECT * FROM w"


def test_legacy_a_read_bound_apart_at_two_copies_passes_through():
    r = _legacy("WITH d AS (SELECT * FROM r), e AS (WITH r AS (SELECT 1 AS id) SELECT * FROM d) "
                "SELECT * FROM e UNION ALL SELECT * FROM d")
    assert r.passthrough is not None and "two of its copies" in r.passthrough


def _regex(sql: str):
    cat = Catalog.from_mapping({"rx": {"A": "int", "B": "int", "c": "int"}}).with_settings(
        quoted_regex_column_names=True)
    return optimize(sql, cat)


@pytest.mark.parametrize("sql,names", [("SELECT `(a)?+.+` FROM rx", ["B", "c"]), ("SELECT `(A|b)` FROM rx", ["A", "B"]),
                                       ("SELECT x.`[bc]`, 1 AS k FROM rx x", ["B", "c", "k"]),
                                       ("SELECT y.`.*` FROM rx x JOIN rx y ON x.A = y.B", ["A", "B", "c"])])
def test_regex_select_items_expand_to_the_columns_they_match(sql, names):
    assert [a.name for a in _regex(sql).analyzed.output] == names


@pytest.mark.parametrize("sql", ["SELECT abs(`(a)`) FROM rx", "SELECT (SELECT max(`(c)`) FROM rx) FROM rx",
                                 "SELECT `\\d` FROM rx", "SELECT `(e|f)` FROM rx"])
def test_regex_read_elsewhere_passes_through(sql):
    assert _regex(sql).passthrough is not None


def test_a_plain_name_in_backquotes_is_a_name():
    """AstBuilder's isRegex: only a name with a character other than a letter, a digit or
    `_` is a pattern (`a` in a join of two `a` columns is ambiguous, not both)."""
    r = _regex("SELECT `c`, abs(`A`) AS k FROM rx WHERE 1 = 1")
    assert r.passthrough is None and r.sql == "SELECT `c`, abs(`A`) AS k FROM rx"


def test_a_rewrite_keeping_a_regex_in_the_text_is_kept_as_written():
    r = _regex("SELECT `(a)?+.+` FROM rx WHERE 1 = 1")
    assert r.passthrough is None and r.sql == "SELECT `(a)?+.+` FROM rx WHERE 1 = 1"
    assert _regex("SELECT A FROM rx WHERE `c` = 1 AND 1 = 1").sql == "SELECT A FROM rx WHERE `c` = 1"


def test_elt_is_untyped_so_elt_output_as_string_changes_nothing():
    """spark.sql.function.eltOutputAsString changes elt's result type only, which sparkfold
    does not give (settings.py leaves the setting out): should elt be typed one day, the
    setting must be read where it is."""
    cat = Catalog.from_mapping({"rb": {"a": "binary", "b": "binary"}})
    r = optimize("SELECT elt(1, a, b) AS e FROM rb", cat)
    assert r.passthrough is None and str(r.analyzed.output[0].data_type) == "unknown"


def _double_quoted(sql: str):
    cat = Catalog.from_mapping({"r": {"id": "int", "s": "string"}}).with_settings(
        unmodelled=(("spark.sql.ansi.doubleQuotedIdentifiers", "true"),))
    return optimize(sql, cat)


def test_double_quoted_names_are_names_and_the_output_has_none():
    r = _double_quoted('SELECT "r"."id" + 0 AS "k", \'x\' FROM r WHERE "s" = \'a\' AND 1 = 1')
    assert r.passthrough is None
    assert r.sql == "SELECT `r`.`id` + 0 AS `k`, 'x' FROM r WHERE `s` = 'a'"
    assert _double_quoted('SELECT "id" FROM r').sql == 'SELECT "id" FROM r'  # nothing to rewrite: as written


@pytest.mark.parametrize("sql", ['SELECT "x""y" FROM r', 'SELECT INTERVAL "1" YEAR'])
def test_double_quoted_tokens_not_read_as_names_pass_through(sql):
    assert _double_quoted(sql).passthrough is not None
