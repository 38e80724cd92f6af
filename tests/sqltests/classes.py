"""The classes of failures the SQLQueryTestSuite files showed, each as a generated file of
the suite's format: the space around the failing query, not the query alone.  The tests
(tests/test_sqltests_classes.py) run them through the same harness as Spark's files, on
every path.  `SPACES` lists the generators; each one's docstring says what its space holds.
"""

from __future__ import annotations

import itertools

from .source import Statement, TestFile


def _file(name: str, statements: list[str], settings: list[tuple[str, str]] | None = None) -> TestFile:
    from .source import _QUERY_START

    return TestFile(name, [Statement(i, s, bool(_QUERY_START.match(s))) for i, s in enumerate(statements)],
                    settings or [])


_NUMBERS = [
    # double: Spark compares the exact value with Double.MaxValue
    "1.7976931348623157E308", "1.7976931348623158E308", "1.8E308", "-1.8E308", "1E309", "-1E309",
    "1E-400", "1.5E300D", "1E309D", "-1E309D",
    # float
    "3.4028235E38F", "3.4028236E38F", "1E39F", "-1E39F",
    # decimal(38): 38 digits read, 39 rejected, integral or fractional
    "99999999999999999999999999999999999999", "999999999999999999999999999999999999999",
    "9999999999999999999999999999999999999.9", "99999999999999999999999999999999999999.9",
    "0.12345678901234567890123456789012345678", "0.123456789012345678901234567890123456789",
    "1234567890123456789012345678901234567890.0", "9223372036854775808", "-9223372036854775809",
    "90912830918230182310293801923652346786BD", "909128309182301823102938019236523467860BD",
    "123.0E-28BD", "0.0000001BD", "0.000001BD",
]

_DATES = ["2016-03-11", "2016-3-1", " 2016-03-11 ", "2016-02-30", "mar 11 2016", "2016-W10-5", "20160311",
          "2016", "2016-03", "2016-03-11T10:00", "2016-03-11 10:00:00", "+2016-03-11", "0001-01-01"]
_TIMESTAMPS = ["2016-03-11 20:54:00", "2016-03-11 20:54:00.000", "2016-03-11T20:54:00.123456",
               "2016-03-11 20:54:00.1234567", "2016-33-11 20:54:00", "2016-03-11 20:54", "2016-03-11 25:00:00",
               "2016-03-11", "2016-3-1 1:2:3", "2016-03-11 20:54:00Z", "2016-03-11 20:54:00+01:00", "mar 11 2016"]


def literal_files() -> list[TestFile]:
    """Literals Spark's parser rejects or reads: numbers at the edges of double, float and
    decimal(38), typed DATE / TIMESTAMP / TIMESTAMP_NTZ strings in the forms Spark reads
    and in forms it rejects, in ANSI and non-ANSI mode (names, values and errors)."""
    queries = [f"SELECT {n}" for n in _NUMBERS]
    queries += [f"SELECT DATE '{d}'" for d in _DATES]
    queries += [f"SELECT {kind} '{t}'" for kind in ("TIMESTAMP", "TIMESTAMP_NTZ") for t in _TIMESTAMPS]
    queries += [f"SELECT tImEstAmp '{_TIMESTAMPS[1]}', DATE '{_DATES[1]}' AS d, -{_NUMBERS[0]}"]
    return [_file("literals.sql", queries), _file("nonansi/literals.sql", queries)]


def cte_files() -> list[TestFile]:
    """WITH clauses that define a name twice (DUPLICATED_CTE_NAMES, even when nothing
    reads it), in a subquery too, beside names that differ in case only or shadow; CTEs
    no query reads, which Spark analyzes all the same (an unknown column, table or a type
    error in one is the query's error; one in a subquery expression that reads the outer
    query's columns names the subquery after them)."""
    return [_file("cte-names.sql", [
        "WITH t(x) AS (SELECT 1), t(x) AS (SELECT 2) SELECT * FROM t",
        "WITH t AS (SELECT 1 AS x), u AS (SELECT 2 AS x), t AS (SELECT 3 AS x) SELECT * FROM u",
        "WITH t AS (SELECT 1 AS x), T AS (SELECT 2 AS x) SELECT * FROM t",
        "WITH t AS (SELECT 1 AS x) SELECT * FROM (WITH t AS (SELECT 2 AS x) SELECT * FROM t)",
        "SELECT * FROM (WITH t AS (SELECT 1 AS x), t AS (SELECT 2 AS x) SELECT * FROM t)",
        "WITH u AS (SELECT nope FROM range(2)) SELECT id FROM range(3) WHERE 1 = 1",
        "WITH u AS (SELECT id FROM nope_table) SELECT id FROM range(3) WHERE 1 = 1",
        "WITH u AS (SELECT date_add('2020-01-01', array(1))) SELECT 1 AS c WHERE 1 = 1",
        "WITH u AS (SELECT 1 / 0 AS z) SELECT 1 AS c WHERE 1 = 1",
        "WITH u AS (SELECT id FROM range(2)), v AS (SELECT * FROM u) SELECT 1 AS c WHERE 1 = 1",
        "SELECT (WITH u AS (SELECT id) SELECT 1) FROM range(2) WHERE 1 = 1",
        "SELECT (WITH u AS (SELECT id) SELECT 1) AS c FROM range(2) WHERE 1 = 1",
        "SELECT id FROM range(3) WHERE EXISTS (WITH u AS (SELECT id) SELECT 1) AND 1 = 1",
        "SELECT (WITH u AS (SELECT 2 AS k) SELECT id + 1) FROM range(2) WHERE 1 = 1",
    ])]


_SETOPS = ["UNION", "UNION ALL", "EXCEPT", "EXCEPT ALL", "INTERSECT", "INTERSECT ALL"]


def setop_files(ops: list[str] = _SETOPS) -> list[TestFile]:
    """Set operations nested in parentheses, each pair of operators both ways: the query
    written whole must keep the precedence the parentheses give (and under the legacy
    left-to-right reading, spark.sql.legacy.setopsPrecedence.enabled)."""
    views = ["CREATE TEMPORARY VIEW a AS SELECT * FROM VALUES (1), (1), (2), (3), (NULL) AS a(x)",
             "CREATE TEMPORARY VIEW b AS SELECT * FROM VALUES (1), (3), (3), (4) AS b(x)",
             "CREATE TEMPORARY VIEW c AS SELECT * FROM VALUES (3), (4), (5), (NULL) AS c(x)"]
    queries = []
    for op1, op2 in itertools.product(ops, ops):
        queries.append(f"(SELECT x FROM a {op1} SELECT x FROM b) {op2} SELECT x FROM c")
        queries.append(f"SELECT x FROM a {op1} (SELECT x FROM b {op2} SELECT x FROM c)")
    queries.append("SELECT x FROM a EXCEPT SELECT x FROM b EXCEPT SELECT x FROM c INTERSECT ALL SELECT x FROM a")
    return [_file("setops.sql", views + queries),
            _file("setops-legacy.sql", views + queries[:8], [("spark.sql.legacy.setopsPrecedence.enabled", "true")])]


def grouping_files() -> list[TestFile]:
    """NOT over a predicate that is a grouping expression (`NOT (a IS NULL)` is not `a IS
    NOT NULL` to Spark's GROUP BY check); a subquery in HAVING or ORDER BY that reads a
    grouping column the select list does not show (the DataFrame program reads the
    Aggregate's columns); count(DISTINCT *) and count(t.*); GROUP BY ALL over aliased
    items and a struct's star."""
    view = ["CREATE TEMPORARY VIEW g AS SELECT * FROM VALUES (1, 'a'), (NULL, 'b'), (2, NULL), (2, 'c') AS g(a, s)"]
    queries = [
        "SELECT not(a IS NULL), count(*) AS c FROM g GROUP BY a IS NULL",
        "SELECT NOT (a IS NOT NULL), count(*) FROM g GROUP BY a IS NOT NULL",
        "SELECT NOT (a IN (1, 2)), count(*) FROM g GROUP BY a IN (1, 2)",
        "SELECT NOT (a = 1), count(*) FROM g GROUP BY a = 1",
        "SELECT NOT (a BETWEEN 1 AND 2), count(*) FROM g GROUP BY a BETWEEN 1 AND 2",
        "SELECT NOT (s LIKE 'a%'), count(*) FROM g GROUP BY s LIKE 'a%'",
        "SELECT NOT (a IS NULL) AND NOT (s IS NULL), count(*) FROM g GROUP BY a IS NULL, s IS NULL",
        "SELECT a IS NULL, count(*) FROM g GROUP BY NOT (a IS NULL)",
        # a subquery in HAVING / ORDER BY reading a grouping column the select list does not show
        "SELECT s FROM g GROUP BY s, a HAVING max(a) <= (SELECT max(x.a) FROM g x WHERE x.a = g.a)",
        "SELECT s FROM g GROUP BY s, a HAVING EXISTS (SELECT 1 FROM g x WHERE x.a = g.a AND x.s > g.s)",
        "SELECT s FROM g GROUP BY s, a ORDER BY (SELECT count(*) FROM g x WHERE x.a < g.a), s",
        "SELECT s, count(*) FROM g GROUP BY s, a HAVING a IN (SELECT x.a FROM g x WHERE x.s <> g.s)",
        # count(DISTINCT *) counts the distinct rows without a NULL, not 1
        "SELECT count(DISTINCT *) FROM g",
        "SELECT count(DISTINCT *), count(*) FROM g WHERE a > 0",
        "SELECT count(DISTINCT g.*) FROM g",
        "SELECT count(g.*) FROM g",
        # GROUP BY ALL groups by the select items without their aliases: a struct's star,
        # an aliased item ordered or filtered by its expression, a lateral alias (an error)
        "SELECT st.*, count(*) AS c FROM gs GROUP BY ALL ORDER BY st.a, st.b",
        "SELECT st.*, count(*) AS c FROM gs GROUP BY ALL HAVING st.a > 0",
        "SELECT st.a AS k, count(*) AS c FROM gs GROUP BY ALL ORDER BY st.a",
        "SELECT id AS k, count(*) AS c FROM gs GROUP BY ALL HAVING id > 1 OR 1 = 0",
        "SELECT id + 1 AS k, sum(id) AS s FROM gs GROUP BY ALL HAVING k > 1 ORDER BY id + 1",
        "SELECT st.a AS a, st.a AS a2, count(*) FROM gs GROUP BY ALL ORDER BY 1",
        "SELECT id AS k, k + 1 AS k2, count(*) FROM gs GROUP BY ALL",
        "SELECT upper(st.b) AS u, count(*) AS c FROM gs WHERE 1 = 1 GROUP BY ALL ORDER BY upper(st.b)",
        "SELECT st.*, id, max(id) FROM gs GROUP BY ALL HAVING st.b = 'x' AND 1 = 1",
    ]
    view.append("CREATE TEMPORARY VIEW gs AS SELECT * FROM VALUES (1, named_struct('a', 1, 'b', 'x')), "
                "(2, named_struct('a', 1, 'b', 'y')), (NULL, named_struct('a', NULL, 'b', 'x')) AS gs(id, st)")
    return [_file("grouping.sql", view + queries)]


def settings_files() -> list[TestFile]:
    """Session settings sparkfold does not model: under them a query keeps Spark's meaning
    and is not rejected."""
    view = ["CREATE TEMPORARY VIEW r AS SELECT * FROM VALUES (1, 'a'), (2, 'b'), (NULL, 'c') AS r(id, s)"]
    having = ["SELECT 1 FROM range(10) HAVING true", "SELECT 1 FROM range(10) HAVING MAX(id) > 0",
              "SELECT id FROM range(10) HAVING id > 0", "SELECT id FROM r HAVING id > 1 AND id IS NOT NULL"]
    return [
        _file("having-as-where.sql", view + having + ["SET spark.sql.legacy.parser.havingWithoutGroupByAsWhere=true"]
              + having + ["SET spark.sql.legacy.parser.havingWithoutGroupByAsWhere=false"] + having),
        _file("parameterless-count.sql", view + ["SELECT count() FROM r", "SET spark.sql.legacy.allowParameterlessCount=true",
                                                 "SELECT count() FROM r", "SELECT count(*), count() FROM r WHERE id > 1"]),
        _file("group-by-aliases.sql", view + ["SET spark.sql.groupByAliases=false", "SELECT id AS s, count(*) FROM r GROUP BY s",
                                              "SELECT id AS k, count(*) FROM r GROUP BY k"]),
        _file("ordinals.sql", view + ["SET spark.sql.orderByOrdinal=false", "SELECT id, s FROM r ORDER BY 2",
                                      "SET spark.sql.groupByOrdinal=false", "SELECT count(*) FROM r GROUP BY 1"]),
    ]


def settings_scope_files() -> list[TestFile]:
    """Session settings each read where it changes something, not on every query: under
    each, queries it cannot change are optimized (a `1 = 1` or a constant to fold in
    each), and the ones it can are modelled (`!` for NOT, concat of binaries as a string,
    NULL IN an empty subquery, nested WITHs under the legacy CTE precedence) or kept as
    written where they stand (a correlated subquery under a decorrelation setting: around
    it the query is optimized)."""
    view = ["CREATE TEMPORARY VIEW r AS SELECT * FROM VALUES (1, 'a'), (2, 'b'), (NULL, 'c') AS r(id, s)",
            "CREATE TEMPORARY VIEW rb AS SELECT * FROM VALUES (X'41', X'42', 'x'), (NULL, X'43', 'y') AS rb(a, b, s)"]
    bang = ["SELECT id ! IN (1, 3), s ! LIKE 'a%', id IS ! NULL, id ! BETWEEN 2 AND 3 FROM r WHERE 1 = 1",
            "SELECT id FROM r WHERE id ! IN (1) AND 2 > 1", "SELECT 1 IS ! NULL, false IS ! true, 1 ! IN (1)"]
    concat = ["SELECT concat(a, b), a || b AS c, concat(a) FROM rb WHERE 1 = 1",
              "SELECT concat(a, NULL), concat(a, s), concat(a, b, a) = 'ABA' FROM rb",
              "SELECT concat(X'41', X'42'), X'41' || NULL"]
    in_empty = ["SELECT id IN (SELECT id FROM r WHERE 1 = 0), id NOT IN (SELECT id FROM r WHERE 1 = 0) FROM r",
                "SELECT NULL IN (SELECT id FROM r WHERE false), NULL NOT IN (SELECT id FROM r WHERE false)",
                "SELECT id FROM r WHERE id NOT IN (SELECT id FROM r WHERE 1 = 0)"]
    cte = ["WITH t AS (SELECT id FROM r) SELECT * FROM t WHERE 1 = 1",
           "WITH t AS (SELECT 1 AS c), t2 AS (WITH t3 AS (SELECT * FROM t) SELECT * FROM t3) SELECT * FROM t2 WHERE c > 0",
           "WITH t AS (SELECT 1 AS c), t2 AS (WITH t AS (SELECT 2 AS c) SELECT * FROM t) SELECT * FROM t2",
           "WITH t AS (SELECT 1 AS c) SELECT * FROM (WITH t AS (SELECT 2 AS c) SELECT * FROM t)",
           "WITH t AS (SELECT id FROM r) SELECT * FROM t a JOIN t b ON a.id = b.id"]
    correlated = ["SELECT * FROM r WHERE id IN (SELECT id FROM r WHERE 1 = 1)",
                  "SELECT (SELECT count(*) FROM r) + 1 - 1 AS n FROM r",
                  "SELECT *, (SELECT count(*) FROM r r2 WHERE r2.id = r.id) AS n FROM r WHERE 1 = 1",
                  "SELECT * FROM r WHERE EXISTS (SELECT count(*) FROM r r2 WHERE r2.id = r.id + 5)",
                  "SELECT * FROM r WHERE 1 = 1 AND NOT EXISTS (SELECT count(*) FROM r r2 WHERE r2.id = r.id + 5 AND 2 = 2)",
                  "SELECT id, id IN (SELECT count(*) + 1 FROM r r2 WHERE r2.id = r.id) AS i FROM r WHERE id > 0 OR 1 = 0",
                  "SELECT * FROM r WHERE false AND EXISTS (SELECT count(*) FROM r r2 WHERE r2.id = r.id)"]
    # nested WITHs whose names meet (Spark raises under EXCEPTION where the inner one starts
    # a CTE's definition or a subquery) and whose names do not
    nested_cte = ["WITH t AS (SELECT 1 AS c) SELECT (WITH t AS (SELECT 2 AS c) SELECT max(c) FROM t) AS m",
                  "WITH T AS (SELECT 1 AS c), u AS (WITH t AS (SELECT 2 AS c) SELECT * FROM t) SELECT * FROM u",
                  "WITH a AS (SELECT 1 AS c) SELECT * FROM a WHERE c IN (WITH b AS (SELECT 1 AS c) SELECT c FROM b)"]
    # a view's text read without EOF (`SELECT 1 UNION SELECT 2` is `SELECT 1 AS UNION`):
    # views made under it are read as tables, queries are optimized as before
    eof_views = ["CREATE OR REPLACE TEMPORARY VIEW pq1 AS SELECT 1 UNION SELECT 2",
                 "CREATE OR REPLACE TEMPORARY VIEW pq2 AS SELECT id AS c FROM r WHERE false UNION ALL SELECT 5",
                 "CREATE OR REPLACE TEMPORARY VIEW pq3 AS SELECT * FROM r WHERE 1 = 0"]
    eof_queries = ["SELECT * FROM pq1", "SELECT * FROM pq1 WHERE `1` = 2", "SELECT * FROM pq2 WHERE c = 5",
                   "SELECT * FROM pq2 WHERE c IS NULL", "SELECT * FROM r JOIN pq3 ON r.id = pq3.id",
                   "SELECT id FROM r WHERE 1 = 1", "SELECT 1 UNION SELECT 2"]
    without_eof = (["SET spark.sql.legacy.parseQueryWithoutEof=true"] + eof_views + eof_queries
                   + ["SET spark.sql.legacy.parseQueryWithoutEof=false"] + eof_queries + eof_views + eof_queries)
    # views made without schema binding (no WITH SCHEMA clause; columns up-cast when read),
    # read after the view under them is made again with its columns in another order
    bound = ["CREATE OR REPLACE VIEW vb_base AS SELECT * FROM VALUES (1, 'a') AS t(k, s)",
             "CREATE OR REPLACE VIEW vb_v AS SELECT * FROM vb_base",
             "CREATE OR REPLACE VIEW vb_w WITH SCHEMA BINDING AS SELECT k FROM vb_base",
             "CREATE OR REPLACE VIEW vb_base AS SELECT s, k FROM VALUES (1, 'a') AS t(k, s)",
             "SELECT * FROM vb_v WHERE k = 1", "SELECT * FROM vb_v WHERE s = 'b'", "SELECT k FROM vb_w WHERE k > 1",
             "SELECT id FROM r WHERE 1 = 1"]
    binding = (["SET spark.sql.legacy.viewSchemaBindingMode=false"] + bound
               + ["SET spark.sql.legacy.viewSchemaBindingMode=true", "SET spark.sql.legacy.viewSchemaCompensation=false"]
               + bound + ["SET spark.sql.legacy.viewSchemaCompensation=true"] + bound
               + ["DROP VIEW IF EXISTS vb_v", "DROP VIEW IF EXISTS vb_w", "DROP VIEW IF EXISTS vb_base"])
    return [
        _file("bang-not.sql", view + bang + ["SET spark.sql.legacy.bangEqualsNot=true"] + bang),
        _file("concat-binary.sql", view + concat + ["SET spark.sql.function.concatBinaryAsString=true"] + concat),
        _file("null-in-empty.sql", view + ["SET spark.sql.legacy.nullInEmptyListBehavior=true"] + in_empty
              + ["SET spark.sql.ansi.enabled=false"] + in_empty
              + ["SET spark.sql.legacy.nullInEmptyListBehavior=false"] + in_empty),
        _file("cte-precedence.sql", view + ["SET spark.sql.legacy.ctePrecedencePolicy=legacy"] + cte
              + ["SET spark.sql.cte.recursion.level.limit=200"] + cte[:1]),
        _file("cte-exception.sql", view + ["SET spark.sql.legacy.ctePrecedencePolicy=exception"] + cte + nested_cte),
        _file("view-text-without-eof.sql", view + without_eof),
        _file("view-schema-binding.sql", view + binding),
        _file("decorrelation.sql", view + ["SET spark.sql.optimizer.decorrelateInnerQuery.enabled=false"] + correlated
              + ["SET spark.sql.optimizer.decorrelateInnerQuery.enabled=true",
                 "SET spark.sql.optimizer.decorrelateExistsSubqueryLegacyIncorrectCountHandling.enabled=true"]
              + correlated + ["SET spark.sql.optimizer.decorrelateExistsSubqueryLegacyIncorrectCountHandling.enabled=false",
                              "SET spark.sql.optimizer.decorrelateSubqueryLegacyIncorrectCountHandling.enabled=true"]
              + correlated[2:3]),
        _file("double-quoted.sql", view + ["SET spark.sql.ansi.doubleQuotedIdentifiers=true",
                                           "SELECT \"id\", 'x' FROM r WHERE 1 = 1", "SET spark.sql.ansi.enabled=false",
                                           "SELECT \"id\", 'x' FROM r WHERE 1 = 1"]),
        *legacy_scope_files(),
    ]


# Queries under the legacy settings read by function or by type (plans/sql_in/settings.py):
# (setting, queries it cannot change, queries it can)
LEGACY_SCOPES = [
    # (what the charset settings and negativeIndexInArrayInsert change, sparkfold keeps as
    # written: the calls are optimized around, Spark computes them, and raises, under the
    # setting; the constants' forms reach Spark's ConstantFolding)
    ("spark.sql.legacy.codingErrorAction",
     ["SELECT id, s FROM r WHERE 1 = 1", "SELECT count(s), max(concat(s, 'x')) FROM r WHERE s IS NOT NULL",
      "SELECT encode(s, 'US-ASCII'), decode(b, 'US-ASCII') FROM r WHERE 1 = 1",
      "SELECT to_binary(s, 'utf-8') IS NULL, to_char(b, 'utf-8') FROM r WHERE 1 = 1",
      "SELECT encode('aé', 'US-ASCII'), decode(X'41E9', 'UTF-8') FROM r WHERE id > 5 AND 1 = 1",
      "SELECT encode(concat(s, 'é'), 'US-ASCII') IS NULL FROM r WHERE false AND id > 0",
      "SELECT id FROM r WHERE decode(b, 'US-ASCII') IS NOT NULL OR 1 = 0"],
     []),
    ("spark.sql.legacy.javaCharsets",
     ["SELECT upper(s) FROM r WHERE 2 > 1", "SELECT encode(s, 'windows-1252'), decode(b, 'UTF-8') FROM r WHERE 1 = 1",
      "SELECT decode(X'E9', 'WINDOWS-1252'), encode('é', 'ISO-8859-15') FROM r WHERE 1 = 1",
      "SELECT encode(s, 'cp1252') FROM r WHERE 1 = 0"],
     []),
    # (the legacy clause names a column, a table or a function as the newer one does; an
    # alias or a table's alias written so is a syntax error under it, left to Spark)
    ("spark.sql.legacy.identifierClause",
     ["SELECT id, s FROM r WHERE 1 = 1", "SELECT `id` FROM r WHERE id IS NOT NULL OR 1 = 0",
      "SELECT IDENTIFIER('id') FROM r WHERE 1 = 1", "SELECT * FROM IDENTIFIER('r') WHERE 1 = 1",
      "SELECT IDENTIFIER('ab' || 's')(id) FROM r WHERE 1 = 1"],
     ["SELECT id AS IDENTIFIER('x') FROM r WHERE 1 = 1", "SELECT q.id FROM r AS IDENTIFIER('q') WHERE 1 = 1"]),
    ("spark.sql.legacy.negativeIndexInArrayInsert",
     ["SELECT a, size(a) FROM r WHERE 1 = 1", "SELECT element_at(a, -1) FROM r WHERE id > 0 OR 1 = 0",
      "SELECT array_insert(a, -1, 9), array_insert(a, -3, id) FROM r WHERE 1 = 1",
      "SELECT array_insert(array(1, 2), -1, 3), array_insert(array(1), -5, 0) FROM r WHERE 1 = 1",
      "SELECT id FROM r WHERE array_insert(a, -1, 9)[0] = 9 AND 1 = 1"],
     []),
    ("spark.sql.legacy.raiseErrorWithoutErrorClass",
     ["SELECT id FROM r WHERE 1 = 1", "SELECT assert_true(id > 0 OR id IS NULL) FROM r WHERE 1 = 1",
      "SELECT raise_error('boom') FROM r WHERE 1 = 0", "SELECT assert_true(id > 1) FROM r WHERE id IS NOT NULL AND 1 = 1"],
     []),
    # under the legacy interval every interval value is a CalendarIntervalType, ordered and
    # compared by nothing: a datetime subtraction whose text holds no INTERVAL too
    ("spark.sql.legacy.interval.enabled",
     ["SELECT id, d FROM r WHERE 1 = 1", "SELECT date_add(d, 1) FROM r WHERE d IS NOT NULL AND 1 = 1"],
     ["SELECT max(d - d) FROM r WHERE 1 = 0", "SELECT id FROM r WHERE 1 = 0 ORDER BY d - DATE '2020-01-01'",
      "SELECT CAST(d - d AS STRING) FROM r WHERE 1 = 1", "SELECT d + INTERVAL '1' DAY FROM r WHERE 1 = 1",
      "SELECT 1 FROM r WHERE (d - d) > (d - d) AND 1 = 0"]),
    ("spark.sql.legacy.timeParserPolicy",
     ["SELECT id, s FROM r WHERE 1 = 1", "SELECT id FROM r WHERE id IN (SELECT id FROM r WHERE 1 = 1)",
      "SELECT id FROM r WHERE d IS NULL OR d > '1000-01-01'", "SELECT * FROM r WHERE 1 = 1",
      # d = '1582-10-10' makes d a literal on the cutover gap, which no fold may format
      "SELECT concat(d, ''), CAST(d AS STRING), d FROM r WHERE d = '1582-10-10'",
      "SELECT CAST(date_add(DATE '1582-10-01', 5) AS STRING), date_add(DATE '1582-10-01', 5) FROM r WHERE 1 = 1",
      "SELECT CAST(DATE '1582-10-15' AS STRING), CAST(DATE '1000-02-03' AS STRING), DATE '1582-10-04' FROM r "
      "WHERE 1 = 1",
      "SELECT CAST(d AS STRING), concat(d, s), TIMESTAMP '1000-01-01 00:00:00.5' FROM r WHERE d > DATE '1000-01-01' "
      "OR 1 = 0",
      # the formatter is Spark's on both sides: pattern functions are opaque to sparkfold
      "SELECT from_unixtime(id * 100000000), to_date(s, 'yyyy-MM-dd') FROM r WHERE 1 = 1",
      "SELECT to_date(s, 'yyyy-MM-dd'), date_format(d, 'yyyy-MM-dd E') FROM r WHERE 1 = 1 AND s IS NOT NULL",
      "SELECT to_timestamp(s, 'yyyy-MM-dd') IS NULL, to_char(d, 'yyyy') FROM r WHERE 2 > 1"],
     ["SELECT CAST(DATE '1582-10-05' AS STRING), CAST(d AS STRING) FROM r WHERE 1 = 1",
      "SELECT DATE '1582-10-14', d FROM r WHERE 1 = 1", "SELECT TIMESTAMP '1582-10-10 01:02:03' FROM r WHERE 1 = 1"]),
    # the name TIMESTAMP and to_timestamp's type follow the setting (modelled: rewrites
    # around them, typed NULLs and literals of either type written back, nested types);
    # JSON/CSV/XML schema inference does not
    ("spark.sql.timestampType",
     ["SELECT id, d FROM r WHERE 1 = 1", "SELECT CAST(d AS STRING) FROM r WHERE 1 = 1",
      "SELECT CAST(s AS TIMESTAMP), TIMESTAMP '2020-01-01 00:00:00' FROM r WHERE 1 = 1",
      "SELECT to_timestamp(s), make_timestamp(2020, 1, 1, 0, 0, 0) IS NULL FROM r WHERE 1 = 1",
      "SELECT typeof(CAST(d AS TIMESTAMP)) FROM r WHERE 1 = 1",
      "SELECT CAST(NULL AS TIMESTAMP), CAST(NULL AS TIMESTAMP_LTZ), CAST(NULL AS TIMESTAMP_NTZ) FROM r WHERE 1 = 1",
      "SELECT coalesce(NULL, CAST(d AS TIMESTAMP_LTZ), TIMESTAMP_LTZ '2020-01-01 10:00:00'), "
      "coalesce(NULL, CAST(d AS TIMESTAMP), TIMESTAMP '2020-01-01 10:00:00') FROM r WHERE 1 = 1",
      "SELECT TIMESTAMP '2020-01-01 00:00:00+01:00', typeof(TIMESTAMP '2020-01-01 00:00:00Z'), "
      "TIMESTAMP 'epoch' IS NULL FROM r WHERE 1 = 1",
      "SELECT typeof(to_timestamp(s)), to_timestamp(s) = CAST(s AS TIMESTAMP), typeof(to_timestamp(s, 'yyyy')) "
      "FROM r WHERE s IS NOT NULL OR 1 = 0",
      "SELECT CAST(array(d) AS ARRAY<TIMESTAMP>), CAST(named_struct('a', d) AS STRUCT<a: TIMESTAMP>) FROM r "
      "WHERE 1 = 1",
      "SELECT id FROM r WHERE CAST(d AS TIMESTAMP) < TIMESTAMP '2000-01-01 00:00:00' AND 1 = 1",
      "SELECT if(id > 1, CAST(NULL AS TIMESTAMP), TIMESTAMP_LTZ '2020-01-01 00:00:00') FROM r WHERE 1 = 1",
      "SELECT * FROM r WHERE CAST(d AS TIMESTAMP) IS NULL AND d IS NOT NULL",
      "SELECT to_timestamp(s) AS t, CAST(s AS TIMESTAMP) AS c FROM r WHERE 1 = 0",
      "SELECT s FROM r WHERE 1 = 0 UNION ALL SELECT to_timestamp(s) FROM r",
      "SELECT CAST(to_timestamp(s) AS TIMESTAMP_LTZ), CAST(to_timestamp(s) AS TIMESTAMP_NTZ) FROM r WHERE 1 = 1"],
     ["SELECT from_json('{\"a\": \"2020-01-01 10:00:00\"}', 'a TIMESTAMP') FROM r WHERE 1 = 1",
      "SELECT schema_of_json('{\"a\": \"2020-01-01 10:00:00\"}') FROM r WHERE 1 = 1"]),
]

_LEGACY_VALUES = {"spark.sql.legacy.timeParserPolicy": ("LEGACY", "EXCEPTION", "CORRECTED"),
                  "spark.sql.timestampType": ("TIMESTAMP_NTZ", "TIMESTAMP_LTZ")}


def legacy_scope_files() -> list[TestFile]:
    """Legacy settings that change what some functions or some types do (encode/decode,
    array_insert, datetime patterns, the type TIMESTAMP names, the interval types): each
    set to other than its default, then back to it (as Spark's own test files do), over
    the queries it cannot change as sparkfold reads them (optimized: calls of the
    functions it changes, which sparkfold keeps as written, among them) and the ones it
    can (passed through where it is not the default)."""
    view = ["CREATE TEMPORARY VIEW r AS SELECT * FROM VALUES "
            "(1, 'aé', X'41E9', DATE '1582-10-10', array(1, 2)), "
            "(2, '2020-01-02', X'4142', DATE '2020-01-02', array(3)), "
            "(NULL, NULL, NULL, NULL, NULL) AS r(id, s, b, d, a)"]
    out = []
    for key, unchanged, changed in LEGACY_SCOPES:
        lines = list(view)
        for value in _LEGACY_VALUES.get(key, ("true", "false")):
            lines += [f"SET {key}={value}"] + unchanged + changed
        out.append(_file(f"legacy-{[p for p in key.split('.') if p != 'enabled'][-1]}.sql", lines))
    return out




def variable_files() -> list[TestFile]:
    """Session variables (DECLARE VARIABLE), whose types sparkfold asks the session for:
    of several types, NULL or not, read bare and inside expressions in each clause, beside
    a column, a select alias and an outer column of the same name (which Spark reads
    first), qualified (`session.v`, `system.session.v`), as a struct's field, and after
    SET VAR changes their values; rewrites around them."""
    decls = ["CREATE TEMPORARY VIEW p AS SELECT * FROM VALUES (1, 'a'), (2, 'b'), (NULL, 'c') AS p(x, s)",
             "DECLARE VARIABLE vi INT DEFAULT 2", "DECLARE VARIABLE vs STRING DEFAULT 'b'",
             "DECLARE VARIABLE vn BIGINT", "DECLARE VARIABLE vd DECIMAL(38, 18) DEFAULT 1.5",
             "DECLARE VARIABLE vr STRUCT<a: INT, b: STRING> DEFAULT named_struct('a', 1, 'b', 'x')",
             "DECLARE VARIABLE va ARRAY<INT> DEFAULT array(1, NULL)", "DECLARE VARIABLE x INT DEFAULT 7"]
    queries = ["SELECT vi, vs, vn, vd, vr, va", "SELECT vi + 1, upper(vs), vn IS NULL, vd * vd, vr.a, va[0]",
               "SELECT x, s FROM p WHERE x < vi AND 1 = 1", "SELECT x FROM p WHERE s = vs OR x IS NULL AND vn IS NULL",
               "SELECT count(*) FROM p WHERE vn IS NOT NULL", "SELECT coalesce(vn, x) FROM p WHERE 2 > 1",
               "SELECT x AS vi FROM p ORDER BY vi", "SELECT x FROM p ORDER BY vi, x", "SELECT 1 AS vi, vi + 1",
               "SELECT max(x) FROM p GROUP BY vi", "SELECT s, count(*) FROM p GROUP BY s HAVING count(*) < vi",
               "SELECT (SELECT x) FROM p", "SELECT (SELECT max(x) + vi FROM p) AS m",
               "SELECT session.vi, system.session.vs, vr.b FROM p WHERE x > 0 OR 1 = 0",
               "SELECT sum(x) FILTER (WHERE x != vi) FROM p",
               "WITH c AS (SELECT x + vi AS y FROM p) SELECT * FROM c a JOIN c b ON a.y = b.y",
               "SELECT x FROM p WHERE x IN (vi, vn) AND vs IS NOT NULL",
               "SELECT CASE WHEN vn IS NULL THEN 'null' ELSE 'set' END, nvl(vn, -1) FROM p LIMIT 1"]
    return [_file("variables.sql", decls + queries + ["SET VAR vi = NULL, vn = 5, vs = NULL"] + queries)]


def table_function_files() -> list[TestFile]:
    """Table-valued functions over constants whose schemas the live session gives
    (`from_clause._session_columns`): generators, `stack`, `json_tuple`, named arguments,
    a SQL table function; aliased or not, filtered, joined, folded around, and called so
    that Spark rejects them (their errors must stay); and generators of constants in a
    select list without FROM (`generator_select`)."""
    setup = ["CREATE TEMPORARY VIEW tv AS SELECT * FROM VALUES (1, 'a'), (2, 'b'), (NULL, 'c') AS tv(k, s)",
             "CREATE OR REPLACE TEMPORARY FUNCTION tvf_rows(n INT) RETURNS TABLE (a INT, b STRING) "
             "RETURN SELECT n, 'x' UNION ALL SELECT n + 1, NULL"]
    calls = ["inline(array(struct(1, 'a'), struct(NULL, 'b')))", "stack(2, 1, 'a', NULL, 'b')",
             "json_tuple('{\"a\": 1, \"b\": null}', 'a', 'b')", "explode_outer(array(1, NULL))",
             "posexplode_outer(map('x', 1, 'y', NULL))", "range(start => 1, end => 4)", "tvf_rows(5)",
             "inline_outer(array(named_struct('p', 1.5D, 'q', CAST(NULL AS STRING))))"]
    queries = []
    for call in calls:
        queries += [f"SELECT * FROM {call}", f"SELECT * FROM {call} WHERE 1 = 1",
                    f"SELECT count(*) AS n FROM {call} f JOIN tv ON tv.k IS NOT NULL OR 1 = 0",
                    f"SELECT * FROM {call} AS f WHERE NULL"]
    # generators of constants in a select list without FROM, their block a relation
    for gen in ["explode_outer(array(1, NULL))", "inline_outer(array(struct(1 AS c0, 'x' AS c1)))",
                "json_tuple('{\"a\": 1}', 'a', 'b') AS (c0, c1)", "posexplode_outer(map('a', 1, 'b', NULL))"]:
        queries += [f"SELECT * FROM (SELECT 'k' AS k, {gen}) WHERE 1 = 1",
                    f"SELECT * FROM (SELECT {gen}) AS g WHERE NULL IS NULL"]
    rejected = ["SELECT * FROM stack()", "SELECT * FROM inline(1)", "SELECT * FROM tvf_rows()",
                "SELECT * FROM (SELECT inline(array(1))) WHERE 1 = 1",
                "SELECT * FROM json_tuple('{}') WHERE 1 = 1", "SELECT * FROM no_such_tvf(1)"]
    return [_file("table-functions.sql", setup + queries + rejected)]


def aggregate_constant_files() -> list[TestFile]:
    """A column that is one constant in every row of an aggregate's output (an alias of a
    literal, a grouping column constant below), read by a HAVING or an outer WHERE that
    folds to TRUE, FALSE or NULL: grouped, global, GROUP BY ALL, over rows and over none
    (a global aggregate still has one row), beside an aggregate that may raise."""
    setup = ["CREATE TEMPORARY VIEW ac AS SELECT * FROM VALUES (1, 10), (1, NULL), (2, 0) AS ac(g, v)"]
    sources = ["ac", "(SELECT * FROM ac WHERE g > 5)"]
    shapes = ["SELECT 2 AS c, count(*) AS n FROM {src} GROUP BY g HAVING {cond}",
              "SELECT 2 AS c, sum(v) AS n FROM {src} HAVING {cond}",
              "SELECT 2 AS c FROM {src} GROUP BY ALL HAVING {cond}",
              "SELECT * FROM (SELECT k AS c, count(*) AS n FROM (SELECT 2 AS k, v FROM {src}) GROUP BY k) WHERE {cond}",
              "SELECT c, n FROM (SELECT 2 AS c, max(10 / v) AS n FROM {src} GROUP BY g) WHERE {cond}"]
    conds = ["c > 50", "c = 2", "c < CAST(NULL AS INT)", "c > 1 AND n IS NOT NULL"]
    queries = [shape.format(src=src, cond=cond) for shape in shapes for src in sources for cond in conds]
    return [_file("aggregate-constants.sql", setup + queries)]


def identifier_clause_files() -> list[TestFile]:
    """IDENTIFIER('name') over string literals (joined by `||`): a column, a qualified
    column, a table, a function's name, an alias, a keyword as a name, a name with a
    space in backquotes, across lines; and the ones Spark rejects (a name that is no
    name, an empty string, an unknown table, a qualified alias) or reads from a variable
    or a subquery (passed through); each again under the legacy clause, with the places
    a name stands (where Spark's grammar reads only the newer clause, the statement is
    a syntax error under the legacy one, kept)."""
    setup = ["CREATE TEMPORARY VIEW idt AS SELECT * FROM VALUES (1, -2, 'a'), (NULL, 3, 'b') AS idt(c1, c2, `c 1`)",
             "DECLARE OR REPLACE VARIABLE idv STRING DEFAULT 'c1'"]
    queries = ["SELECT IDENTIFIER('c1') FROM idt WHERE 1 = 1", "SELECT IDENTIFIER('idt.c1'), IDENTIFIER('c' || '2') FROM idt",
               "SELECT IDENTIFIER('`idt`.c2') FROM idt WHERE c1 IS NULL OR 1 = 0",
               "SELECT IDENTIFIER('`c 1`') FROM idt WHERE 2 > 1", "SELECT * FROM IDENTIFIER('id' || 't') WHERE c2 > 0 AND 1 = 1",
               "SELECT IDENTIFIER('abs')(c2) FROM idt WHERE 1 = 1", "SELECT IDENTIFIER('COAL' || 'ESCE')(c1, 0) AS z FROM idt",
               "SELECT c1 AS IDENTIFIER('x') FROM idt WHERE 1 = 1",
               "SELECT IDENTIFIER('select') FROM (SELECT 1 AS `select`) WHERE 1 = 1",
               "SELECT IDENTIFIER('c1')\n  ,\n IDENTIFIER(\n'c2'\n) FROM idt WHERE 1 = 1 AND c1 = NULL",
               "SELECT 'IDENTIFIER(''c1'')' AS s, IDENTIFIER('c1') FROM idt WHERE 1 = 1",
               "SELECT IDENTIFIER('c 1') FROM idt", "SELECT IDENTIFIER('') FROM idt", "SELECT * FROM IDENTIFIER('no_such_t')",
               "SELECT c1 AS IDENTIFIER('x.y') FROM idt", "SELECT IDENTIFIER(idv) FROM idt WHERE 1 = 1",
               "SELECT IDENTIFIER((SELECT 'c1')) FROM idt", "SELECT IDENTIFIER('c3') FROM idt WHERE 1 = 1",
               # where Spark's grammar reads no clause, and a variable (named after its value)
               "SELECT IDENTIFIER('idt').c1 FROM idt", "SELECT EXTRACT(IDENTIFIER('YEAR') FROM DATE'2024-01-15')",
               "SELECT :IDENTIFIER('p') FROM idt", "SELECT IDENTIFIER('idv')", "SELECT IDENTIFIER('idv') FROM idt WHERE 1 = 1"]
    # the places a name stands, each read by the clause of Spark 4.1 and only some by the
    # legacy clause (spark.sql.legacy.identifierClause: a function's name, a table, an
    # expression): the others are Spark's syntax errors under it, kept
    places = ["SELECT c2 FROM idt AS IDENTIFIER('q') WHERE 1 = 1", "SELECT q.c2 FROM idt AS q(IDENTIFIER('a'), b, c) WHERE 1 = 1",
              "WITH IDENTIFIER('w') AS (SELECT c1 FROM idt) SELECT * FROM w WHERE 1 = 1",
              "SELECT * FROM idt JOIN idt AS j USING (IDENTIFIER('c1')) WHERE 1 = 1",
              "SELECT sum(c2) OVER IDENTIFIER('w') FROM idt WHERE 1 = 1 WINDOW w AS (ORDER BY c2)",
              "SELECT transform(array(c2), IDENTIFIER('x') -> x + 1) FROM idt WHERE 1 = 1",
              "SELECT * FROM idt PIVOT (sum(c2) FOR IDENTIFIER('c1') IN (1, 2)) WHERE 1 = 1",
              "SELECT struct(c1 AS IDENTIFIER('f')) FROM idt WHERE 1 = 1",
              "SELECT * FROM idt LATERAL VIEW explode(array(c2)) IDENTIFIER('lv') AS e WHERE 1 = 1",
              "SELECT * FROM idt LATERAL VIEW explode(array(c2)) lv AS IDENTIFIER('e') WHERE 1 = 1",
              "SELECT max(IDENTIFIER('c2')) FROM idt WHERE c1 IS NULL GROUP BY IDENTIFIER('idt.c1') HAVING 1 = 1",
              "SELECT c2 FROM idt WHERE IDENTIFIER('c1') = NULL OR IDENTIFIER('c2') > 0 ORDER BY IDENTIFIER('c2')",
              "SELECT * FROM idt, IDENTIFIER('idt') AS i2 WHERE idt.c1 = i2.c1 AND 1 = 1",
              "SELECT IDENTIFIER('max')(IDENTIFIER('c2')) FROM IDENTIFIER('idt') WHERE 1 = 1",
              "SELECT * FROM IDENTIFIER('ra' || 'nge')(0, 2) WHERE 1 = 1",
              "SELECT * FROM TABLE(IDENTIFIER('idt')) WHERE 1 = 1",
              "SELECT c2 FROM idt ORDER BY IDENTIFIER('c1') NULLS FIRST, 1 LIMIT 1"]
    legacy = [("spark.sql.legacy.identifierClause", "true")]
    return [_file("identifier-clause.sql", setup + queries + places),
            _file("identifier-clause-legacy.sql", setup + queries + places, legacy)]


def syntax_files() -> list[TestFile]:
    """Syntax found in Spark's newer test files (the held-out set from Spark's master) that
    sqlglot's parser read as something else: SQL pipe syntax (read as the standard SQL
    Spark builds of it: `pipe_syntax_files`), timestamp types with a precision (opaque
    where they stand: `nanos_files`), two comparison
    operators in a row and a cast after `IS [NOT] NULL` (Spark's syntax errors), a
    NATURAL JOIN whose left side has a name twice, collated strings (a view's DEFAULT
    COLLATION, a column's COLLATE), a TIME literal before `::`, nanosecond timestamps, an
    aggregate's FILTER without WHERE, keywords as columns' names:
    no path may answer otherwise than Spark."""
    return [_file("syntax.sql", [
        "CREATE TEMPORARY VIEW p AS SELECT * FROM VALUES (1, 'a'), (2, 'b'), (NULL, 'c') AS p(x, s)",
        "CREATE TEMPORARY VIEW e AS SELECT * FROM p WHERE false",
        "TABLE p |> WHERE x > 1",
        "TABLE p |> UNION ALL TABLE p",
        "(SELECT * FROM p) |> INTERSECT TABLE p",
        "TABLE p |> ORDER BY x |> LIMIT 1",
        "TABLE p |> INNER JOIN e INNER JOIN e",
        "FROM p |> SELECT x + 1 AS y |> WHERE y IS NOT NULL",
        "SELECT CAST(NULL AS TIMESTAMP_NTZ(9)) AS t",
        "SELECT year(NULL :: TIMESTAMP_LTZ(9)) AS y",
        "SELECT (NULL :: date) :: TIMESTAMP_NTZ(9) AS t",
        "SELECT CAST(CAST(NULL AS TIMESTAMP_LTZ(9)) AS STRING) AS t",
        "SELECT timestamp(9) AS t",
        "SELECT 20181117 >>>> 2",
        "SELECT sum(x) FILTER (x > 1) FROM p", "SELECT count(*) FILTER (WHERE x > 1), max(s) FILTER (s = 'a') FROM p",
        # keywords as columns' names, which Spark reads (sqlglot's parser does not)
        "CREATE TEMPORARY VIEW kw AS SELECT 1 AS a, 2 AS `where`, 5 AS `having`, 6 AS `on`",
        "SELECT a, where FROM kw", "SELECT where + 1 FROM kw WHERE 1 = 1", "SELECT a FROM kw WHERE on = 6 AND 1 = 1",
        "SELECT max(where), having FROM kw GROUP BY having", "SELECT FROM kw",
        "SELECT count(*) FILTER (WHERE x > 1), max(s) FILTER (WHERE s = 'a') FROM p WHERE 1 = 1",
        "SELECT 20181117 > > 2",
        "SELECT 20181117 < < 2",
        "SELECT 20181117 >>> 2, 20181117 >> 2, 1 << 2, 1 <=> 2, 1 >= 2",
        "SELECT FALSE IS NOT NULL :: string",
        "SELECT FALSE IS NULL :: string",
        "SELECT (FALSE IS NULL) :: string AS s",
        "SELECT x FROM p WHERE x IS NOT DISTINCT FROM NULL :: int",
        "SELECT * FROM p AS a LEFT JOIN p AS b ON a.x = b.x NATURAL JOIN p AS c",
        "SELECT * FROM p AS a JOIN p AS b ON a.x = b.x NATURAL JOIN p AS c",
        "SELECT * FROM p AS a CROSS JOIN p AS b NATURAL JOIN p AS c",
        "CREATE OR REPLACE TEMPORARY VIEW lc DEFAULT COLLATION UTF8_LCASE AS SELECT 'a' AS c1, 'b' AS c2",
        "SELECT COUNT(*) FROM lc WHERE c1 = 'A'",
        "SELECT c1 = 'A' AS eq, COLLATION(c1) AS k FROM lc",
        "SELECT * FROM lc WHERE 'x' = 'X'",
        "CREATE OR REPLACE TEMPORARY VIEW ct AS SELECT * FROM VALUES ('a' COLLATE UTF8_LCASE), ('A' COLLATE UTF8_LCASE) "
        "AS ct(c)",
        "SELECT COUNT(*) FROM ct WHERE c = 'a' AND c = 'A'",
        "SELECT c FROM ct WHERE c = 'a' AND c <> 'A'",
        # clauses sqlglot does not parse, passed through
        "SELECT v:a::string AS a FROM (SELECT parse_json('{\"a\": \"x\"}') AS v)",
        "CREATE TEMPORARY VIEW tw AS SELECT * FROM VALUES (TIMESTAMP '2024-01-01 00:01:00', 1), "
        "(TIMESTAMP '2024-01-01 00:07:00', 2) AS tw(ts, n)",
        "SELECT window.start, count(*) AS c FROM tw GROUP BY window(ts, '5 minutes') ORDER BY window.start",
        "SELECT IDENTIFIER('x') FROM p",
        "SELECT IDENTIFIER('COAL' || 'ESCE')(NULL, 1) AS c",
        "WITH RECURSIVE r(level) MAX RECURSION LEVEL 35 AS (VALUES 0 UNION ALL SELECT level + 1 FROM r WHERE level < 30) "
        "SELECT count(*) FROM r",
        "SELECT sum(x) AS s FROM p GROUP BY x + 1 ORDER BY 1 + x",
        "SELECT 1 + x AS y, count(*) AS c FROM p GROUP BY x + 1",
        "SELECT x FROM p GROUP BY x + 1 ORDER BY 1 + x",
        "SELECT timediff(QUARTER, TIMESTAMP '2023-08-10 01:02:03', TIMESTAMP '2022-01-14 01:02:03') AS d",
        "DECLARE VARIABLE var1 INT DEFAULT 5",
        "SELECT var1 + 1 AS v",
        "SELECT x FROM p WHERE x < var1 AND 1 = 1",
        "SELECT nope FROM p",
        # an aggregate in ORDER BY over a grouped SELECT with window functions
        "SELECT SUM(x) OVER () AS w FROM VALUES (1, 2), (3, 4) AS t(x, y) GROUP BY x, y + 1 ORDER BY SUM(x), y + 1",
        "SELECT x % 2 AS parity, SUM(x) AS s, SUM(SUM(x)) OVER (PARTITION BY x % 2) AS ps "
        "FROM VALUES (1, 10), (2, 20) AS t(x, y) GROUP BY x, y, x % 2 ORDER BY SUM(x), x % 2",
        "SELECT x, SUM(x) OVER () AS w FROM VALUES (1, 2), (3, 4) AS t(x, y) GROUP BY x ORDER BY x",
        # interval texts sqlglot reads leniently; a column named all
        "SELECT interval '中文 interval 1 day'",
        "SELECT interval '1 day 1'",
        "SELECT interval '1 day -'",
        "SELECT interval '1 day 2' day",
        "SELECT interval 1 fake_unit",
        "SELECT interval '1 day 2 hours' AS i, interval 'interval 1 day' AS j, interval '1' day AS k",
        "SELECT interval '1.5' second AS i, interval '-1' year AS j, interval '2 03:04:05' day to second AS k",
        "SELECT interval 5 hours 30 seconds AS i WHERE 1 = 1",
        "CREATE TEMPORARY VIEW va AS SELECT * FROM VALUES ('us', 'sf', 1), ('us', 'la', 2), ('fr', 'pa', 3) "
        "AS va(country, city, id)",
        "SELECT all, city, count(*) FROM (SELECT country AS all, city, id FROM va) GROUP BY all, city",
        "SELECT all FROM (SELECT country AS all FROM va) WHERE 1 = 1",
        "SELECT ALL city FROM va WHERE 1 = 1",
        "TABLE p\n| SELECT x, s",
        "SELECT x | 1 AS o FROM p WHERE 1 = 1",
        "SELECT v:`field-name`::string AS a FROM (SELECT parse_json('{\"field-name\": \"x\"}') AS v)",
        "SELECT x FROM p ORDER BY 2, s",
        "SELECT x FROM p ORDER BY s, 2",
        "SET spark.sql.prioritizeOrdinalResolutionInSort.enabled=false",
        "SELECT x FROM p ORDER BY 2, s",
        # a TIME literal before `::` (sqlglot cast the string); a precision inside a type
        "SELECT TIME '00:01:52' :: int AS i, TIME '23:59:59' :: tinyint AS j",
        "SELECT TIME '00:01:52' :: tinyint", "SELECT TIME '00:01:52' :: int, TIME'12:00'::string FROM p WHERE 1 = 1",
        "SELECT TIME '23:59:59' :: tinyint FROM p WHERE x > 5 AND 1 = 0",
        "SELECT x FROM p WHERE TIME '00:00:10' :: int = x OR 1 = 0",
        "SELECT array(DATE '2020-01-01') :: array<timestamp_ntz(9)> AS a",
        "SELECT named_struct('f', DATE '2020-01-01') :: struct<f: timestamp_ltz(9)> AS s",
        "SELECT map('v', DATE '2020-01-01') :: map<string, timestamp_ltz(9)> AS m",
        # a comment inside a comment; a lambda parameter named all; a script transform (MAP ... USING)
        "/*/**/*/ SELECT 'selected content' AS tenth",
        "/* a /* b */ c */ SELECT x FROM p WHERE 1 = 1",
        "/* a /* b */ SELECT 1",
        "/* a /* b */ c */ SELECT x FROM p WHERE 1 = 1",
        "SELECT /* a /* b /* c */ */ d */ x FROM p WHERE x IS NULL AND x = NULL",
        "/*/**/*/ SELECT 'selected content' AS tenth",
        "SELECT x /* keep /* me */ here; */ + 0 AS y FROM p WHERE 1 = 1",
        "SELECT '/* not /* a comment */' AS s, x FROM p WHERE 1 = 1",
        "/* a /* b */ c */ */ SELECT 1",
        # LATERAL on the first FROM item (a subquery, a table function: nothing before it)
        "SELECT * FROM LATERAL (SELECT * FROM p)", "SELECT * FROM LATERAL (SELECT * FROM p), LATERAL (SELECT * FROM e)",
        "SELECT * FROM LATERAL (SELECT x FROM p) JOIN LATERAL (SELECT s FROM p WHERE 1 = 1)",
        "SELECT * FROM LATERAL explode(array(1, 2)) WHERE 1 = 1", "SELECT * FROM LATERAL explode(array(1, 2)) AS t(v)",
        "SELECT * FROM LATERAL (SELECT x FROM p WHERE 1 = 1) q(a) WHERE a > 1",
        "SELECT * FROM LATERAL (SELECT * FROM p WHERE 1 = 0)",
        "SELECT (SELECT max(v) FROM LATERAL (SELECT p.x AS v)) AS m FROM p",
        "SELECT * FROM LATERAL (SELECT x FROM p) l, LATERAL (SELECT l.x + 1 AS y) WHERE 2 > 1",
        "SELECT transform(ys, (all, i) -> all + i) AS v FROM VALUES (array(32, 97)) AS t(ys)",
        "FROM (SELECT 1 AS key, 100 AS value) src MAP src.key, src.value USING 'cat' AS (k, v)",
        # an IN subquery in ORDER BY, the same as one in GROUP BY (Spark sorts by the key) or not
        "SELECT x IN (SELECT x FROM p) AS i FROM p GROUP BY x IN (SELECT x FROM p), x ORDER BY x IN (SELECT x FROM p)",
        "SELECT x FROM p GROUP BY x ORDER BY x IN (SELECT x FROM p)",
        # QUALIFY with and without a window function; a TO interval of a number; a type's
        # parameters (TIME(3)); range with a step of 0 (each path keeps Spark's error class)
        "SELECT x FROM p QUALIFY x = 1",
        "SELECT x, row_number() OVER (ORDER BY x) AS rn FROM p QUALIFY rn = 1",
        "SELECT x FROM p WHERE 1 = 1 QUALIFY row_number() OVER (PARTITION BY s ORDER BY x) = 1",
        "SELECT interval 1 year to month",
        "SELECT cast('12:34:56.789' AS time(3)) AS t, '01:02:03' :: time(6) AS u",
        "SELECT * FROM range(0, 5, 0)",
        "SELECT * FROM range(0, 5, 2) WHERE 1 = 1",
        "SELECT /*+ IDENTIFIER('BROADCAST')(p) */ * FROM p",
        # grouping() outside GROUPING SETS / ROLLUP / CUBE (Spark's class depends on where), and inside
        "SELECT count(*) AS c FROM p HAVING grouping(x) = 0",
        "SELECT x, grouping(x) AS g FROM p GROUP BY x",
        "SELECT x, grouping(x) AS g, grouping_id() AS i FROM p WHERE 1 = 1 GROUP BY ROLLUP(x) HAVING grouping(x) = 0",
        "SELECT /*+ BROADCAST(p), MERGE(p) */ x FROM p WHERE 1 = 1",
        # nanosecond timestamps (a setting sparkfold does not model: what reads a timestamp passes through)
        "SET spark.sql.timestampNanosTypes.enabled=true",
        "SELECT year(v), day(v) FROM VALUES (TIMESTAMP_NTZ '2020-02-29 23:59:59.999999999') AS t(v) WHERE 1 = 1",
        "SELECT v FROM (SELECT TIMESTAMP_LTZ '2020-01-01 00:00:00.000000999' AS v UNION ALL "
        "SELECT TIMESTAMP_LTZ '2020-01-01 00:00:00.000000001') WHERE 1 = 1 ORDER BY v",
    ])]


# lists of each kind Spark's grammar has, as (query, items): an item `x` may be written
# `x,` nowhere (sqlglot's parser drops such a trailing comma)
_LISTS = [("SELECT {} FROM p", ["x", "s"]), ("SELECT x FROM p GROUP BY {}", ["x", "s"]),
          ("SELECT x FROM p ORDER BY {}", ["x", "s"]),
          ("SELECT rank() OVER (PARTITION BY {} ORDER BY x) AS r FROM p", ["x", "s"]),
          ("SELECT rank() OVER (PARTITION BY x ORDER BY {}) AS r FROM p", ["x", "s"]),
          ("SELECT coalesce({}) AS c FROM p", ["x", "1"]), ("SELECT x FROM p WHERE x IN ({})", ["1", "2"]),
          ("SELECT * FROM VALUES ({}) AS v(a, b)", ["1", "2"]), ("SELECT array({}) AS a", ["1", "2"]),
          ("SELECT named_struct({}) AS n", ["'k'", "1"]), ("SELECT count(DISTINCT {}) AS c FROM p", ["x", "s"]),
          ("SELECT x, s, count(*) AS c FROM p GROUP BY GROUPING SETS (({}), ())", ["x", "s"]),
          ("SELECT * FROM {}", ["p", "e"]), ("SELECT * FROM p PIVOT (sum(x) FOR s IN ({}))", ["'a'", "'b'"]),
          ("WITH {} SELECT * FROM w1, w2", ["w1 AS (SELECT 1 AS i)", "w2 AS (SELECT 2 AS j)"])]


def trailing_comma_files() -> list[TestFile]:
    """Every kind of list in Spark's grammar, written with its items and with a trailing
    comma (a syntax error to Spark, TRAILING_COMMA_IN_SELECT in a select list), with a
    `1 = 1` to fold where it takes a WHERE: the comma must stay an error on every path."""
    view = ["CREATE TEMPORARY VIEW p AS SELECT * FROM VALUES (1, 'a'), (2, 'b'), (NULL, 'c') AS p(x, s)",
            "CREATE TEMPORARY VIEW e AS SELECT * FROM p WHERE false"]
    queries = []
    for query, items in _LISTS:
        where = " WHERE 1 = 1" if query.endswith(" FROM p") else ""
        listed = ", ".join(items)
        queries += [query.format(text) + where for text in (listed, listed + ",", items[0] + ",")]
    return [_file("trailing-commas.sql", view + list(dict.fromkeys(queries)))]


_SETOP_TYPES = ["tinyint", "smallint", "int", "bigint", "float", "double", "decimal(10,2)", "decimal(38,18)",
                "string", "boolean", "date", "timestamp"]


def setop_type_files() -> list[TestFile]:
    """Each pair of column types on the two sides of each set operation, in both modes: the
    column's type is Spark's widening (WidenSetOperationTypes; under ANSI an integral
    beside a float is a double), on every path (a rewrite in each query makes the SQL
    path write it)."""
    return _type_pair_files("setop-types", "SELECT CAST(k AS {a}) AS c FROM w WHERE 1 = 1 {v} "
                                           "SELECT CAST(k + 1 AS {b}) FROM w WHERE NULL IS NULL", ("UNION", "EXCEPT ALL"))


def _type_pair_files(name: str, template: str, variants: tuple[str, ...]) -> list[TestFile]:
    """`template` over a view `w(k)` for each ordered pair of two types of `_SETOP_TYPES`
    ({a}, {b}) and each of `variants` ({v}), as a file in ANSI mode and one out of it."""
    view = ["CREATE TEMPORARY VIEW w AS SELECT * FROM VALUES (1), (2) AS w(k)"]
    queries = [template.format(a=a, b=b, v=v) for a, b in itertools.product(_SETOP_TYPES, _SETOP_TYPES) if a != b
               for v in variants]
    return [_file(f"{name}.sql", view + queries), _file(f"nonansi/{name}.sql", view + queries)]


_GROUPINGS = ["GROUPING SETS ((t1.a, t2.b), ())", "ROLLUP (t1.a, t2.b)", "CUBE (t1.a, t2.b)"]
_GROUPED_ITEMS = ["max(t2.a)", "sum(t1.v) FILTER (WHERE string(t2.a) LIKE '1%')", "grouping(t1.a)", "count(int(t2.b))",
                  "max(t2.a) + 1", "string(t1.a)", "min(t1.a + t2.a)",
                  # names only Spark knows (`typeof(grouping_id())`; a persistent SQL
                  # function's `spark_catalog.default.sf_gs_plus(a)`), which the
                  # DataFrame program must not replace with sparkfold's guess
                  "typeof(grouping__id)", "sf_gs_plus(t1.a)"]


def grouping_set_name_files() -> list[TestFile]:
    """GROUPING SETS / ROLLUP / CUBE (a block kept as text, its input written apart) over
    a join of two tables with a column of the same name: select items whose arguments
    the written input renames (`max(t2.a)` over `a_2`) or whose casts are spelled as calls
    (`string(x)`), written unaliased, and items named as only Spark knows: Spark's names
    must stay the original's."""
    view = ["CREATE TEMPORARY VIEW gj1 AS SELECT * FROM VALUES (1, 10), (2, 20), (NULL, 30) AS gj1(a, v)",
            "CREATE TEMPORARY VIEW gj2 AS SELECT * FROM VALUES (1, 5), (2, 6), (3, NULL) AS gj2(a, b)",
            "CREATE OR REPLACE FUNCTION sf_gs_plus(x INT) RETURNS INT RETURN x + 1"]
    queries = [f"SELECT t1.a, t2.b, {item} FROM gj1 t1 {join} GROUP BY {kind}"
               for kind, item, join in itertools.product(_GROUPINGS, _GROUPED_ITEMS,
                                                         ["JOIN gj2 t2 ON t1.a = t2.a", ", gj2 t2 WHERE 1 = 1"])]
    # the block under a sort, and inside a query (where nothing may name its column)
    queries += ["SELECT t1.a, sf_gs_plus(t1.a) FROM gj1 t1 WHERE 1 = 1 GROUP BY ROLLUP (t1.a) ORDER BY 1",
                "SELECT * FROM (SELECT t1.a, sf_gs_plus(t1.a) FROM gj1 t1 GROUP BY CUBE (t1.a)) WHERE 1 = 1"]
    return [_file("grouping-set-names.sql", view + queries + ["DROP FUNCTION IF EXISTS sf_gs_plus"])]


_PARAMETERLESS = ["current_user", "user", "session_user", "current_date", "current_timestamp"]


def parameterless_files() -> list[TestFile]:
    """The names of Spark's parameterless functions written bare (`current_user`): a
    column of the FROM with the name, a lateral alias, an outer query's column, a name
    no column has, a grouping expression, a backquoted name; Spark reads the FROM's
    column first, then the function (Spark's parameterless-function-name-precedence.sql)."""
    view = ["CREATE TEMPORARY VIEW pv AS SELECT 'admin' AS current_user, 'u' AS user, 's' AS session_user, "
            "DATE '2000-01-01' AS current_date, TIMESTAMP '2000-01-01 00:00:00' AS current_timestamp, 1 AS k"]
    queries = []
    for n in _PARAMETERLESS:
        queries += [f"SELECT {n} FROM pv WHERE 1 = 1", f"SELECT upper(CAST({n} AS STRING)) AS u FROM pv WHERE 1 = 1",
                    f"SELECT typeof({n}) AS t FROM (SELECT k FROM pv) WHERE 1 = 1",
                    f"WITH t1 AS (SELECT 1 AS {n}) SELECT typeof((SELECT {n})) AS t FROM t1 WHERE 1 = 1",
                    f"SELECT 1 AS {n}, typeof({n}) AS t",
                    f"SELECT count(*) AS c FROM pv GROUP BY {n} GROUPING SETS (({n}))",
                    f"SELECT `{n}` FROM pv WHERE 1 = 1"]
    return [_file("parameterless-names.sql", view + queries)]


_WRAPPED = ["listagg(s, ',') WITHIN GROUP (ORDER BY s)", "listagg(DISTINCT s, ',') WITHIN GROUP (ORDER BY s)",
            "count(x) FILTER (WHERE x > 1)", "sum(x) FILTER (WHERE s <> 'a')",
            "percentile_cont(0.5) WITHIN GROUP (ORDER BY x)"]


def wrapped_call_files() -> list[TestFile]:
    """An aggregate wrapped in WITHIN GROUP or FILTER (and a window's IGNORE NULLS) as the
    argument of a function sparkfold keeps as an opaque call (`hex`, `md5`, `typeof`),
    grouped and global: the wrapped call is the argument, not the columns inside it."""
    view = ["CREATE TEMPORARY VIEW wc AS SELECT * FROM VALUES (1, 'a', 1), (2, 'b', 1), (3, 'a', 2) AS wc(x, s, g)"]
    queries = []
    for call, agg in itertools.product(["hex", "md5", "typeof"], _WRAPPED):
        arg = f"CAST({agg} AS STRING)" if call == "md5" else agg
        queries += [f"SELECT g, {call}({arg}) AS v FROM wc WHERE 1 = 1 GROUP BY g",
                    f"SELECT {call}({arg}) AS v FROM wc WHERE 1 = 1"]
    queries += ["SELECT hex(first_value(s) IGNORE NULLS OVER (ORDER BY x)) AS v FROM wc WHERE 1 = 1",
                "SELECT typeof(last_value(s) IGNORE NULLS OVER (PARTITION BY g ORDER BY x)) AS v FROM wc"]
    # wrapped calls whose column name sparkfold cannot write (DISTINCT inside WITHIN GROUP):
    # unaliased at the top, Spark names them; aliased, nothing needs the name; read by a
    # name from a derived table only where aliased
    for agg in ["listagg(DISTINCT s, ',') WITHIN GROUP (ORDER BY s)", "string_agg(DISTINCT s, '|') WITHIN GROUP "
                "(ORDER BY s DESC)", "listagg(DISTINCT s) WITHIN GROUP (ORDER BY s)",
                # a collated type in the call, which sqlglot's printer dropped (Spark: an error)
                "listagg(DISTINCT CAST(s AS STRING COLLATE UTF8_LCASE)) WITHIN GROUP (ORDER BY s)"]:
        queries += [f"SELECT {agg} FROM wc WHERE 1 = 1", f"SELECT g, {agg} FROM wc WHERE x > 0 OR 1 = 0 GROUP BY g",
                    f"SELECT g, {agg} AS v FROM wc WHERE 1 = 1 GROUP BY g HAVING count(*) > 0 AND 2 > 1",
                    f"SELECT v FROM (SELECT {agg} AS v FROM wc) WHERE v IS NOT NULL AND 1 = 1",
                    f"SELECT * FROM (SELECT g, {agg} FROM wc GROUP BY g) WHERE g > 0 OR 1 = 0"]
    return [_file("wrapped-calls.sql", view + queries)]


_FIELD_SOURCES = ["VALUES ('a') AS t(col1)", "VALUES (named_struct('a', 0)) AS t(col1)", "VALUES (array(1)) AS t(col1)",
                  "VALUES (1) AS t(k)"]
_FIELD_ALIASES = ["'a' AS col1", "named_struct('a', 1) AS col1", "array(1) AS col1", "col1"]


def alias_field_files() -> list[TestFile]:
    """A field or an element of a name in ORDER BY and HAVING (`col1.a`, `col1[0]`,
    `col1.a.b`), where the name is a select alias, a FROM column, both (of types that do or
    do not have the field: Spark chooses by type), or the alias of the column itself; and a
    select alias's field read by a later select item."""
    queries = []
    for source, alias, access in itertools.product(_FIELD_SOURCES, _FIELD_ALIASES, ["col1.a", "col1[0]", "col1.a.b"]):
        group = "col1" if source.endswith("(col1)") else "k"
        if alias == "col1" and group == "k":
            continue
        queries += [f"SELECT {alias} FROM {source} GROUP BY {group} ORDER BY {access}",
                    f"SELECT {alias} FROM {source} GROUP BY {group} HAVING {access} IS NOT NULL"]
    queries += ["SELECT named_struct('a', k) AS s, s.a + 1 AS b FROM VALUES (1), (2) AS t(k) WHERE 1 = 1",
                "SELECT named_struct('a', named_struct('b', k)) AS s FROM VALUES (1), (2) AS t(k) ORDER BY s.a.b DESC"]
    # a field of a parenthesized column (`(s).a`, named `a` by Spark's SQL, `s.a` by getField)
    queries += [f"SELECT {item} FROM (SELECT named_struct('a', k, 'b', named_struct('c', k)) AS s, k "
                f"FROM VALUES (1), (NULL) AS t(k)) WHERE 1 = 1{group}"
                for item in ("(s).a", "(s).b.c, s.a", "((s).b).c", "(s).a + 1")
                for group in ("", " GROUP BY s, k")]
    queries += [f"SELECT {item}, count(*) FROM (SELECT named_struct('a', k, 'b', named_struct('c', k)) AS s "
                f"FROM VALUES (1), (NULL), (1) AS t(k)) WHERE 1 = 1 GROUP BY {key}"
                for item, key in (("(s).a", "s.a"), ("s.a", "(s).a"), ("((s).b).c", "s.b.c"), ("(s).b.c + 1", "s.b.c"),
                                  ("(s).a", "(s).b"), ("(s).z", "(s).a"))]
    return [_file("alias-fields.sql", queries)]


_PARAMETERIZED = ["DECIMAL(5,2)", "DECIMAL(38,0)", "VARCHAR(3)", "CHAR(3)", "TIME(3)", "TIME(6)", "TIMESTAMP_NTZ(9)",
                  "TIMESTAMP_LTZ(7)", "TIMESTAMP(8)", "ARRAY<DECIMAL(4,1)>", "STRUCT<a: DECIMAL(4,1)>",
                  "ARRAY<TIMESTAMP_NTZ(9)>"]
_CAST_FORMS = ["CAST({x} AS {t})", "TRY_CAST({x} AS {t})", "{x} :: {t}"]
_CAST_OPERANDS = ["'12:34:56.789'", "s", "1.25", "array(1.25)", "named_struct('a', 1.25)"]


def parameterized_type_files() -> list[TestFile]:
    """Casts to types with parameters (decimal precision, string length, TIME and
    timestamp precision, nested), in each spelling, of literals and columns, some kept as
    opaque calls: the parameters are the type's, on every path (the DataFrame program's
    `.cast(...)` had taken TIME(3)'s 3 for an argument), and an error Spark raises keeps
    its class."""
    view = ["CREATE TEMPORARY VIEW pt AS SELECT * FROM VALUES ('1.5'), ('12:34:56') AS pt(s)"]
    queries = [f"SELECT {form.format(x=x, t=t)} AS c FROM pt WHERE 1 = 1"
               for t, form, x in itertools.product(_PARAMETERIZED, _CAST_FORMS, _CAST_OPERANDS)]
    return [_file("parameterized-types.sql", view + queries)]


def nanos_files() -> list[TestFile]:
    """Spark 4.3's nanosecond timestamps: casts to TIMESTAMP_NTZ(p) / TIMESTAMP_LTZ(p) /
    TIMESTAMP(p) (nested too) and literals with 7 to 9 (and 10) digits of a second, with
    spark.sql.timestampNanosTypes.enabled off (FEATURE_NOT_ENABLED, which no rewrite around
    them may drop) and on, under rewrites around them: each is opaque, of a type sparkfold
    does not know, and kept as written; the rest of the query is optimized."""
    view = ["CREATE TEMPORARY VIEW ns AS SELECT * FROM VALUES ('2020-01-01 00:00:00.123456789', 1), "
            "('1960-01-01 13:24:35.999999999', NULL), (NULL, 3) AS ns(s, k)"]
    queries = ["SELECT CAST(s AS TIMESTAMP_NTZ(9)) AS c, k FROM ns WHERE 1 = 1",
               "SELECT s :: TIMESTAMP_LTZ(7), hour(s :: TIMESTAMP_NTZ(8)) FROM ns WHERE k > 0 OR 1 = 0",
               "SELECT CAST(s AS TIMESTAMP(9)) IS NULL OR TRUE, k FROM ns WHERE k IS NULL OR k IS NOT NULL",
               "SELECT coalesce(NULL, CAST(s AS TIMESTAMP_NTZ(9))), CAST(array(s) AS ARRAY<TIMESTAMP_NTZ(9)>) FROM ns "
               "WHERE 2 > 1",
               "SELECT * FROM (SELECT s, CAST(s AS TIMESTAMP_NTZ(9)) AS x FROM ns) WHERE 1 = 0",
               "SELECT k FROM ns WHERE CAST(s AS TIMESTAMP_NTZ(9)) IS NULL AND FALSE",
               "SELECT TIMESTAMP_NTZ '2020-01-01 13:24:35.123456789', TIMESTAMP '2020-01-01 00:00:00.1234567', k "
               "FROM ns WHERE 1 = 1",
               "SELECT second(TIMESTAMP_NTZ '1960-01-01 13:24:35.123456789') + k FROM ns WHERE k > 1 AND 1 = 1",
               "SELECT TIMESTAMP_LTZ '2020-01-01 00:00:00.1234567891', k FROM ns WHERE 1 = 1",
               "SELECT max(CAST(s AS TIMESTAMP_NTZ(9))), count(k) FROM ns WHERE 1 = 1 GROUP BY k IS NULL",
               "SELECT CAST(s AS TIMESTAMP_NTZ(9)) = CAST(s AS TIMESTAMP_NTZ(7)) FROM ns WHERE s IS NOT NULL OR 1 = 0"]
    return [_file("nanos-types.sql", view + queries + ["SET spark.sql.timestampNanosTypes.enabled=true"] + queries
                  + ["SET spark.sql.timestampNanosTypes.enabled=false"] + queries[:2])]


def time_window_files() -> list[TestFile]:
    """Spark's time windows (`window(ts, d[, slide])`, `session_window(ts, gap)`) over a
    timestamp and a TIMESTAMP_NTZ column, in each place a block holds them (GROUP BY with
    and without other keys, ROLLUP / GROUPING SETS, the select list alone, aliased and
    not, a field of the struct, HAVING and ORDER BY over its column, a block read by an
    outer query), each under rewrites around it (foldable WHERE conjuncts inside and
    out); and the ones Spark rejects (a gap that is not an interval, a string column, two
    windows, one in WHERE) and a FROM column named `window`.  The block is kept as
    written, its input and the query around it optimized."""
    view = ["CREATE TEMPORARY VIEW tw AS SELECT * FROM VALUES "
            "(TIMESTAMP'2021-01-01 00:00:30', TIMESTAMP_NTZ'2021-01-01 00:00:30', 1, 'a'), "
            "(TIMESTAMP'2021-01-01 00:04:59', TIMESTAMP_NTZ'2021-01-01 00:04:59', 2, NULL), "
            "(TIMESTAMP'2021-01-01 00:11:00', NULL, NULL, 'b'), (NULL, TIMESTAMP_NTZ'2021-01-01 00:30:00', 4, 'a') "
            "AS tw(ts, ntz, k, s)",
            "CREATE TEMPORARY VIEW tw2 AS SELECT ts AS window, k FROM tw"]
    windows = ["window({c}, '5 minutes')", "window({c}, '10 minutes', '5 minutes')", "session_window({c}, '5 minutes')"]
    shapes = ["SELECT {n}.start, {n}.end, count(*) AS cnt FROM tw WHERE 1 = 1 AND k IS NOT NULL OR k IS NULL "
              "GROUP BY {w} ORDER BY start",
              "SELECT s, {n}.start AS b, sum(k) AS total FROM tw WHERE k > 0 OR NULL GROUP BY s, {w} ORDER BY s, b",
              "SELECT s, {n}.start, count(*) AS cnt FROM tw GROUP BY s, {w} WITH ROLLUP ORDER BY s, start",
              "SELECT {w}.start AS b, k FROM tw WHERE 1 = 1 ORDER BY b, k",
              "SELECT {w} AS bucket, k FROM tw WHERE k IS NULL OR k > 1 ORDER BY bucket.start, k",
              "SELECT {w}, count(*) FROM tw GROUP BY 1 ORDER BY 1",
              "SELECT {n}.start, count(*) AS cnt FROM tw GROUP BY {w} HAVING count(*) > 1 OR 1 = 0 ORDER BY {n}.start",
              "SELECT * FROM (SELECT {n}.start AS b, max(k) AS m FROM tw GROUP BY {w}) WHERE b IS NOT NULL AND 1 = 1 "
              "ORDER BY b",
              "SELECT b FROM (SELECT {w}.start AS b, k FROM tw) WHERE k = NULL OR b IS NULL ORDER BY b"]
    queries = [shape.format(w=w.format(c=c), n=w.split("(")[0]) for c in ("ts", "ntz") for w in windows
               for shape in shapes]
    rejected = ["SELECT count(*) FROM tw GROUP BY window(s, '5 minutes')",
                "SELECT count(*) FROM tw GROUP BY session_window(ts, k)",
                "SELECT count(*) FROM tw WHERE 1 = 1 GROUP BY window(ts, '5 minutes'), window(ts, '10 minutes')",
                "SELECT count(*) FROM tw GROUP BY window(ts, 'five minutes')",
                "SELECT k FROM tw WHERE window(ts, '5 minutes').start IS NOT NULL AND 1 = 1",
                "SELECT count(*) FROM tw GROUP BY session_window(ts, '-5 minutes')",
                "SELECT window.start, count(*) FROM tw2 WHERE 1 = 1 GROUP BY window(window, '5 minutes')"]
    return [_file("time-windows.sql", view + queries + rejected)]


def lateral_generator_files() -> list[TestFile]:
    """Generators as LATERAL table functions (`FROM t, LATERAL explode(t.xs) g(v)`): each
    generator over arrays with NULLs and empty ones, maps, arrays of structs and JSON text,
    in each join form (`,`, CROSS JOIN, [INNER] JOIN ... ON, LEFT JOIN ... ON), unaliased,
    aliased and with its columns named, under rewrites of the WHERE clause and of the
    query around it; and the forms Spark rejects (too few or too many column names, a
    generator over a number).  The FROM items before it are optimized, the call is kept as
    written."""
    view = ["CREATE TEMPORARY VIEW lg AS SELECT * FROM VALUES "
            "(1, array(1, 2), map('a', 1), array(named_struct('p', 1, 'q', 'x')), '{\"f\": 1, \"g\": \"y\"}'), "
            "(2, array(), map(), array(), '{}'), (3, NULL, NULL, NULL, NULL), "
            "(NULL, array(3, NULL), map('b', NULL), array(named_struct('p', NULL, 'q', NULL)), 'x') "
            "AS lg(k, xs, m, st, j)"]
    calls = [("explode(xs)", "(v)"), ("explode_outer(xs)", "(v)"), ("posexplode(xs)", "(i, v)"),
             ("posexplode_outer(xs)", "(i, v)"), ("explode(m)", "(mk, v)"), ("inline(st)", "(p2, v)"),
             ("inline_outer(st)", "(p2, v)"), ("stack(2, k, k + 1)", "(v)"), ("json_tuple(j, 'f', 'g')", "(f, v)")]
    joins = [", LATERAL {g}", " CROSS JOIN LATERAL {g}", " JOIN LATERAL {g} ON lg.k IS NOT NULL",
             " LEFT JOIN LATERAL {g} ON lg.k > 1"]
    queries = []
    for n, (call, cols) in enumerate(calls):
        for m, join in enumerate(joins):
            alias = ["", " g", f" g{cols}", f" AS g{cols}"][(n + m) % 4]
            item = join.format(g=f"{call}{alias}")
            read = "g.v" if cols in alias else "*"
            queries.append(f"SELECT lg.k, {read} FROM lg{item} WHERE 1 = 1 AND (lg.k > 1 OR lg.k IS NULL OR NULL)")
        queries.append(f"SELECT * FROM (SELECT * FROM lg, LATERAL {call} g{cols}) WHERE v IS NULL OR TRUE")
        queries.append(f"SELECT count(*), max(k) FROM lg LEFT JOIN LATERAL {call} ON k = NULL WHERE 2 > 1")
    rejected = ["SELECT * FROM lg, LATERAL explode(xs) g(a, b) WHERE 1 = 1",
                "SELECT * FROM lg, LATERAL posexplode(xs) g(a) WHERE 1 = 1",
                "SELECT * FROM lg, LATERAL explode(k) WHERE 1 = 1",
                "SELECT * FROM lg, LATERAL inline(xs) WHERE 1 = 1"]
    return [_file("lateral-generators.sql", view + queries + rejected)]


def pipe_syntax_files() -> list[TestFile]:
    """SQL pipe syntax (`FROM t |> WHERE ... |> SELECT ...`): chains of each operator sparkfold
    reads (WHERE, SELECT, EXTEND, DROP, AS, ORDER BY / LIMIT / OFFSET, AGGREGATE, the joins,
    the set operations, window functions) after each kind of first query (TABLE, FROM, a
    SELECT block, a query in parentheses, VALUES), under rewrites (foldable and NULL
    conditions, outer joins a filter makes inner); and the pipe forms Spark rejects where
    the same standard SQL would not (an aggregate in EXTEND or WHERE, an AGGREGATE item
    without one, GROUP BY ALL in AGGREGATE, a star in EXTEND, a window function in WHERE)
    and the ones that pass through (a qualifier a projection dropped, an aggregate in
    SELECT); SET (each column by name, the one set where it stands) and AGGREGATE grouping
    by a position, with the forms of them Spark rejects (an unknown column, a field, an
    alias, an aggregate, a position past the columns, a name twice)."""
    views = ["CREATE TEMPORARY VIEW pv AS SELECT * FROM VALUES (1, 'a'), (2, NULL), (NULL, 'b'), (3, 'a') AS pv(k, s)",
             "CREATE TEMPORARY VIEW pw AS SELECT * FROM VALUES (1, 'x'), (NULL, 'y'), (3, NULL) AS pw(j, t)"]
    sources = ["TABLE pv", "FROM pv", "SELECT k, s FROM pv WHERE 1 = 1", "(SELECT * FROM pv)",
               "VALUES (1, 'a'), (2, NULL), (NULL, 'b') AS vv(k, s)"]
    chains = [["WHERE k > 1 OR NULL", "SELECT k, s"],
              ["WHERE k = NULL"],
              ["EXTEND k * 2 AS k2", "WHERE k2 IS NULL OR k2 > 2 AND 1 = 1"],
              ["SELECT k + 1 AS k1, s", "WHERE k1 > 0 OR k1 IS NULL AND TRUE", "ORDER BY k1 NULLS FIRST"],
              ["AGGREGATE count(*) AS c, max(k) AS m GROUP BY s", "WHERE c > 0 AND NULL IS NULL", "ORDER BY s"],
              ["AGGREGATE sum(k) AS t, count(s)"],
              ["AGGREGATE GROUP BY k, s IS NULL AS nos", "WHERE k IS NOT NULL OR FALSE"],
              ["AS q", "WHERE q.k > 1 OR q.k IS NULL", "SELECT q.s"],
              ["LEFT JOIN pw ON j = k", "WHERE t IS NOT NULL"],
              ["JOIN pw ON j = k AND 1 = 1", "SELECT k, t"],
              ["FULL OUTER JOIN pw ON j = k", "WHERE j > 0 AND k > 0"],
              ["SELECT k, s", "UNION ALL SELECT j, t FROM pw", "WHERE k > 1 OR NULL"],
              ["SELECT s", "EXCEPT SELECT t FROM pw WHERE 1 = 0"],
              ["ORDER BY k DESC NULLS LAST", "LIMIT 2 OFFSET 1"],
              ["DROP s", "EXTEND k IS NULL AS missing", "WHERE NOT missing OR missing IS NULL"],
              ["WHERE s IN ('a', NULL)", "SELECT DISTINCT s"],
              ["SELECT k, s, sum(k) OVER (PARTITION BY s) AS w", "WHERE w IS NULL OR w > 0 OR NULL"],
              ["SELECT * EXCEPT (s)", "WHERE k + 0 = k"],
              # SET replaces a column where it stands (a later assignment reads the earlier)
              ["SET k = k + 1", "WHERE k > 2 OR k IS NULL AND 1 = 1"],
              ["EXTEND 1 AS z", "SET z = k * 2, s = upper(s)", "WHERE z = NULL OR z > 2"],
              ["EXTEND 0 AS z", "SET z = k", "SET K = z + coalesce(z, 0)", "SELECT s, k"],
              ["SET s = CAST(k AS STRING), k = length(s)", "WHERE 1 = 1"],
              ["SET k = sum(k) OVER (PARTITION BY s)", "WHERE k IS NOT NULL OR FALSE"],
              ["SET s = (SELECT max(t) FROM pw WHERE j = k)", "WHERE s IS NULL OR 2 > 1"],
              # AGGREGATE grouping by a position: the query's column there
              ["AGGREGATE count(*) AS c GROUP BY 2", "WHERE c > 0 AND NULL IS NULL"],
              ["AGGREGATE max(k) AS m GROUP BY 2, 1", "WHERE m = NULL"],
              ["EXTEND k + 1 AS k1", "AGGREGATE GROUP BY 3, k, 1", "WHERE k1 > 0 OR 1 = 1"]]
    queries = [" |> ".join([source, *chain]) for chain in chains for source in sources]
    refused = ["TABLE pv |> EXTEND sum(k) AS t", "TABLE pv |> WHERE sum(k) > 0", "TABLE pv |> AGGREGATE k GROUP BY s",
               "TABLE pv |> AGGREGATE sum(k) GROUP BY ALL", "TABLE pv |> EXTEND *",
               "TABLE pv |> WHERE sum(k) OVER () > 0", "FROM pv |> SELECT k |> WHERE pv.k > 1",
               "TABLE pv |> AGGREGATE sum(k) GROUP BY 2", "TABLE pv |> SET k = k + 1 |> WHERE 1 = 1",
               "TABLE pv |> SELECT sum(k) AS t", "TABLE pv |> JOIN pw ON j = k JOIN pw ON j = k",
               "TABLE pv |> WHERE k > 1 ORDER BY k |> SELECT s",
               "TABLE pv |> SET q = 1 |> WHERE 1 = 1", "TABLE pv |> SET pv.k = 1 |> WHERE 1 = 1",
               "TABLE pv |> SET k = 1 AS z |> WHERE 1 = 1", "TABLE pv |> SET k = max(k) |> WHERE 1 = 1",
               "TABLE pv |> SET k = 1 |> WHERE pv.k > 1", "TABLE pv |> JOIN pw |> SET k = j |> WHERE 1 = 1",
               "SELECT 1 AS a, 2 AS a |> SET a = 3", "TABLE pv |> AGGREGATE sum(k) GROUP BY 3",
               "TABLE pv |> AGGREGATE sum(k) GROUP BY 0", "SELECT 1 AS a, 2 AS a |> AGGREGATE GROUP BY 1",
               # an aggregate or a window function inside a subquery is the subquery's
               "TABLE pv |> SELECT (SELECT max(j) FROM pw WHERE j = k) AS m |> WHERE m IS NULL OR 1 = 1",
               "TABLE pv |> WHERE (SELECT count(*) FROM pw WHERE j = k) > 0 AND 1 = 1",
               "TABLE pv |> WHERE k IN (SELECT max(j) OVER () FROM pw) OR k = NULL",
               "TABLE pv |> EXTEND (SELECT sum(j) FROM pw) AS t |> WHERE t > k OR 1 = 0",
               "TABLE pv |> WHERE (SELECT max(j) FROM pw) > sum(k)"]
    return [_file("pipe-syntax.sql", views + queries + refused)]


def opaque_block_subquery_files() -> list[TestFile]:
    """Subqueries in a SELECT block kept as written (ROLLUP, CUBE, GROUPING SETS, QUALIFY,
    a named WINDOW, a generator in the select list): an uncorrelated scalar subquery in the
    select list (aliased or not), in HAVING and in ORDER BY, foldable inside (`WHERE y =
    NULL`, an aggregate over no row); IN, NOT IN, EXISTS and correlated scalar subqueries
    in the block's WHERE; and a correlated one in its select list (passed through)."""
    views = ["CREATE TEMPORARY VIEW sq AS SELECT * FROM VALUES (1, 10), (1, NULL), (2, 5), (NULL, 7) AS sq(g, v)",
             "CREATE TEMPORARY VIEW sr AS SELECT * FROM VALUES (1), (NULL), (3) AS sr(y)"]
    blocks = ["SELECT g, sum(v) AS s{items} FROM sq {where} GROUP BY ROLLUP(g) {having} ORDER BY g NULLS LAST{order}",
              "SELECT g, sum(v) AS s{items} FROM sq {where} GROUP BY CUBE(g) {having} ORDER BY g NULLS LAST{order}",
              "SELECT g, sum(v) AS s{items} FROM sq {where} GROUP BY GROUPING SETS ((g), ()) {having} "
              "ORDER BY g NULLS LAST{order}",
              "SELECT g, v{items} FROM sq {where} QUALIFY row_number() OVER (PARTITION BY g ORDER BY v) = 1 "
              "ORDER BY g NULLS LAST{order}",
              "SELECT g, v, sum(v) OVER w AS t{items} FROM sq {where} WINDOW w AS (PARTITION BY g) "
              "ORDER BY g NULLS LAST, v{order}",
              "SELECT g, explode(array(v, 0)) AS e{items} FROM sq {where} ORDER BY g NULLS LAST, e{order}"]
    grouped = 3
    forms = [dict(items=", (SELECT count(*) FROM sr) AS n", where="WHERE 1 = 1", having="", order=""),
             dict(items=", (SELECT max(y) FROM sr WHERE y = NULL)", where="", having="", order=""),
             dict(items="", where="WHERE g IN (SELECT y FROM sr) OR NULL", having="", order=""),
             dict(items="", where="WHERE NOT EXISTS (SELECT 1 FROM sr WHERE sr.y = sq.g) AND 1 = 1", having="",
                  order=""),
             dict(items="", where="WHERE v > (SELECT min(y) FROM sr WHERE sr.y <= sq.g)", having="", order=""),
             dict(items="", where="WHERE g NOT IN (SELECT y FROM sr WHERE y > 1)", having="HAVING sum(v) > "
                  "(SELECT min(y) FROM sr) OR 1 = 0", order=", (SELECT count(*) FROM sr WHERE 1 = 0)"),
             dict(items=", (SELECT max(y) FROM sr WHERE sr.y = sq.g) AS c", where="", having="", order="")]
    queries = []
    for k, block in enumerate(blocks):
        for form in forms:
            if form["having"] and k >= grouped:
                continue
            queries.append(" ".join(block.format(**form).split()))
    return [_file("opaque-block-subqueries.sql", views + queries)]


def commuted_grouping_files() -> list[TestFile]:
    """A GROUP BY expression with a commutative operator (+, *, AND, OR, =, <=>) read
    again in ORDER BY, HAVING or the select list with its operands in the other order
    (`GROUP BY a + 1 ... ORDER BY 1 + a`), over int, double, decimal and string columns and
    chains of three: Spark compares them canonicalized (and a decimal sum whose type the
    order changes not: SPARK-40903; nor ORDER BY over a HAVING that reads the key so,
    UNRESOLVED_COLUMN); each is the grouping key's value or Spark's error."""
    view = ["CREATE TEMPORARY VIEW cg AS SELECT * FROM VALUES (1, 2.5D, 1.25BD, 'x', 10.5BD), "
            "(2, NULL, NULL, NULL, 3.0BD), (NULL, -0.0D, 2.50BD, 'y', NULL), (1, 2.5D, 1.25BD, 'x', 10.5BD) "
            "AS cg(i, d, m, s, n)"]
    pairs = [("i + 1", "1 + i"), ("i * 2", "2 * i"), ("d + i", "i + d"), ("i = 1", "1 = i"),
             ("i <=> 1", "1 <=> i"), ("i > 0 AND s = 'x'", "s = 'x' AND i > 0"),
             ("i IS NULL OR d > 0", "d > 0 OR i IS NULL"), ("i + d + 1", "1 + (d + i)"), ("m + 1", "1 + m"),
             ("m + n", "n + m"), ("m + n + i", "i + (n + m)"), ("s = 'x'", "'x' = s")]
    queries = []
    for key, swapped in pairs:
        queries += [f"SELECT count(*) AS c FROM cg WHERE 1 = 1 GROUP BY {key} ORDER BY {swapped} NULLS FIRST",
                    f"SELECT {swapped} AS k, count(*) AS c FROM cg GROUP BY {key} ORDER BY k NULLS FIRST",
                    f"SELECT count(*) AS c FROM cg GROUP BY {key} HAVING ({swapped}) IS NOT NULL OR NULL ORDER BY c",
                    f"SELECT {swapped}, count(*) AS c FROM cg GROUP BY {key} ORDER BY c, 1",
                    # (over a HAVING, Spark resolves only the key as written: UNRESOLVED_COLUMN)
                    f"SELECT count(*) AS c FROM cg GROUP BY {key} HAVING count(*) > 0 ORDER BY {swapped}",
                    f"SELECT count(*) AS c FROM cg GROUP BY {key} HAVING ({swapped}) IS NOT NULL ORDER BY {swapped}"]
    return [_file("commuted-grouping.sql", view + queries)]


def variant_path_files() -> list[TestFile]:
    """Spark's variant paths (`v:a.b`, `v:['k']`, `v:[0]`, `v:a.c[1]`, `v:a:b`, a qualified,
    parenthesized or computed operand), alone in a select list (named after the path's
    last name), aliased, cast (`::int`, named so too), inside other expressions (named by
    Spark), in WHERE, ORDER BY, GROUP BY, a join condition, a CTE and a derived table read
    by the name Spark gives; under rewrites around them.  And the ones Spark rejects (a
    column that is no VARIANT, a subscript that is an expression, arithmetic on a
    VARIANT) or sparkfold passes through (a backquoted name in the path)."""
    view = ["CREATE OR REPLACE TEMPORARY VIEW vp AS SELECT k, parse_json(j) AS v, j FROM VALUES "
            "(1, '{\"a\": {\"b\": 1, \"c\": [10, 20]}, \"f-n\": \"x\", \"arr\": [{\"id\": 7}]}'), "
            "(2, '{\"a\": {\"b\": null}, \"f-n\": 3}'), (3, '[1, {\"a\": 2}]'), (4, 'null'), (5, NULL) AS t(k, j)"]
    paths = ["v:a.b", "v:a", "v:['f-n']", "v:a.c[1]", "v:[1].a", "v:arr[0].id", "v:a:b", "vp.v:a.b", "(v):a.b",
             "parse_json(j):a.b", "v : a . b", "v:A"]
    shapes = ["SELECT k, {p} FROM vp WHERE 1 = 1 ORDER BY k",
              "SELECT k, {p} AS x FROM vp WHERE k > 0 OR 1 = 0 ORDER BY k",
              "SELECT k, {p}::int, {p}::string FROM vp WHERE true AND k IS NOT NULL ORDER BY k",
              "SELECT k, -{p}::int AS n, concat({p}::string, '!') AS c, {p} IS NULL AS z FROM vp ORDER BY k",
              "SELECT k FROM vp WHERE {p}::int > 0 AND 1 = 1 ORDER BY k",
              "SELECT {p}::string AS g, count(*) AS n FROM vp GROUP BY {p}::string HAVING 1 = 1 ORDER BY g",
              "SELECT * FROM (SELECT k, {p} FROM vp) WHERE k < 4 AND 2 > 1 ORDER BY k",
              "WITH c AS (SELECT k, {p}::int AS x FROM vp) SELECT * FROM c WHERE x IS NOT NULL OR NULL ORDER BY k",
              "SELECT x.k FROM vp x JOIN vp y ON x.k = y.k AND x.{p}::int = y.{p}::int WHERE 1 = 1 ORDER BY x.k"]
    queries = [shape.format(p=p) for p in paths for shape in shapes
               if not (shape.startswith("SELECT x.k") and not p.startswith("v:"))]
    # a derived table's variant path read by the name Spark gives it
    queries += ["SELECT b FROM (SELECT v:a.b FROM vp) WHERE 1 = 1", "SELECT c FROM (SELECT v:a.c[1] FROM vp) t",
                "SELECT b + 1 FROM (SELECT v:a.b::int FROM vp) WHERE b > 0 OR 1 = 0",
                "SELECT `f-n` FROM (SELECT v:['f-n'] FROM vp) WHERE true",
                "SELECT CAST(NULL AS STRUCT<a: INT, b: ARRAY<INT>>) AS s, k FROM vp WHERE 1 = 1"]
    rejected = ["SELECT j:a FROM vp", "SELECT v:a.c[1 + 0] FROM vp", "SELECT v:a.b + 1 FROM vp",
                "SELECT k:a FROM vp WHERE 1 = 1", "SELECT v:a.`b` FROM vp WHERE 1 = 1", "SELECT v:a FROM vp GROUP BY v:a"]
    return [_file("variant-paths.sql", view + queries + rejected)]


def transform_files() -> list[TestFile]:
    """Script transformations (`SELECT TRANSFORM(a, b) USING 'cat' AS (x, y) FROM t`), kept
    as written, with their input optimized (WHERE conjuncts to fold) and the query around
    them: each output form (none: `key` and `value`; one alias; an AS list untyped (strings)
    and typed), input columns, expressions, literals and NULLs, aggregates under GROUP BY
    and HAVING, ROW FORMAT DELIMITED on either side, read by name from a derived table, a
    CTE and a join; and the ones Spark rejects or sparkfold passes through (`TRANSFORM(*)`)."""
    view = ["CREATE OR REPLACE TEMPORARY VIEW st AS SELECT * FROM VALUES (1, 'x', 2.5D, DATE '2020-01-02'), "
            "(2, NULL, NULL, NULL), (3, 'y', -0.0D, DATE '1999-12-31'), (NULL, 'x', 1E10, NULL) AS st(a, b, c, d)"]
    outputs = ["", " AS x", " AS (x)", " AS (x, y)", " AS (x, y, z)", " AS (x INT, y STRING)",
               " AS (x STRING, y DOUBLE, z DATE)", " AS (x BIGINT, y DECIMAL(10, 2))"]
    inputs = ["a", "a, b", "b, c, d", "a + 1, upper(b), NULL", "CAST(a AS STRING), 'k'"]
    wheres = ["WHERE 1 = 1", "WHERE a > 1 OR 1 = 0", "WHERE b IS NOT NULL AND 2 > 1", "WHERE a = NULL"]
    queries = [f"SELECT TRANSFORM({i}) USING 'cat'{o} FROM st {w}"
               for k, (i, o) in enumerate(itertools.product(inputs, outputs)) for w in [wheres[k % len(wheres)]]]
    queries += [
        "SELECT TRANSFORM(b, max(a), sum(c)) USING 'cat' AS (k, m, s) FROM st WHERE 1 = 1 GROUP BY b",
        "SELECT TRANSFORM(b, count(*)) USING 'cat' AS (k, n INT) FROM st GROUP BY b HAVING count(*) > 0 OR 1 = 0",
        "SELECT TRANSFORM(a, b, c, NULL) ROW FORMAT DELIMITED FIELDS TERMINATED BY '@' LINES TERMINATED BY '\\n' "
        "NULL DEFINED AS 'NULL' USING 'cat' AS (p, q, r, s) ROW FORMAT DELIMITED FIELDS TERMINATED BY '@' "
        "LINES TERMINATED BY '\\n' NULL DEFINED AS 'NULL' FROM st WHERE 1 = 1",
        "SELECT TRANSFORM(a, b) ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' USING 'cat' AS (p, q) FROM st WHERE true",
        "SELECT x + 1 AS n FROM (SELECT TRANSFORM(a, b) USING 'cat' AS (x INT, y STRING) FROM st) WHERE 1 = 1",
        "SELECT y FROM (SELECT TRANSFORM(a, b) USING 'cat' AS (x, y) FROM st) q WHERE x IS NOT NULL AND x = NULL",
        "WITH c AS (SELECT TRANSFORM(b) USING 'cat' AS (w) FROM st WHERE a > 0) SELECT * FROM c WHERE 1 = 1",
        "SELECT s.p, st.a FROM (SELECT TRANSFORM(b) USING 'cat' AS (p) FROM st) s JOIN st ON s.p = st.b WHERE 1 = 1",
        "SELECT key, value FROM (SELECT TRANSFORM(a, b) USING 'cat' FROM st WHERE 1 = 1) ORDER BY key",
        "SELECT TRANSFORM(a) USING 'cat' AS (x) FROM st WHERE 1 = 1 ORDER BY x LIMIT 2",
    ]
    # the script's output read by an ordering clause of its block, a block read by another
    # (held-out transform.sql), and ALL (which sqlglot drops; Spark rejects it): passed through
    queries += ["SELECT TRANSFORM(a, b) USING 'cat' AS (a, b) FROM (SELECT TRANSFORM(a, b) USING 'cat' AS (a, b) "
                "FROM st CLUSTER BY a) m",
                "SELECT TRANSFORM(a, b) USING 'cat' AS (a, b) FROM (SELECT TRANSFORM(a, b) USING 'cat' AS (a, b) "
                "FROM st ORDER BY a) m WHERE 1 = 1",
                "SELECT TRANSFORM(a, b) USING 'cat' AS (b, a) FROM st WHERE 1 = 1 SORT BY b"]
    refused = ["SELECT TRANSFORM(*) USING 'cat' AS (p, q, r, s) FROM st WHERE 1 = 1",
               "SELECT TRANSFORM(ALL a, b) USING 'cat' AS (x, y) FROM st WHERE 1 = 1",
               "SELECT TRANSFORM(DISTINCT a) USING 'cat' FROM st", "SELECT TRANSFORM(a) USING 'cat' AS (x), b FROM st",
               "SELECT TRANSFORM(a, nope) USING 'cat' FROM st WHERE 1 = 1"]
    return [_file("transform.sql", view + queries + refused)]


def opaque_operator_files() -> list[TestFile]:
    """Operators over pairs of types whose coercion sparkfold does not model (`date -
    string`, `interval / int`, `interval * string`, a decimal compared with a boolean, `d
    + NULL`): kept as written where they stand, opaque, the query around them optimized;
    and unmodelled calls that raise on some inputs (`to_date('')`, `make_date(0, 0, 0)`).
    Each in a select list, a WHERE, over an empty relation (a row of constants under
    WHERE FALSE, which Spark's ConstantFolding would evaluate in the call) and in a
    column a query prunes (Spark analyzes it all the same), in both modes."""
    view = ["CREATE OR REPLACE TEMPORARY VIEW oo AS SELECT * FROM VALUES "
            "(DATE '2020-01-05', '2020-01-01', TIMESTAMP '2020-01-01 10:00:00', INTERVAL '10' SECOND, "
            "INTERVAL '1-2' YEAR TO MONTH, 3, 1.5BD, true), "
            "(DATE '2021-03-01', 'x', TIMESTAMP '2021-01-01 00:00:00', INTERVAL '0' SECOND, "
            "INTERVAL '0-0' YEAR TO MONTH, 0, 0.0BD, false) AS oo(d, s, ts, i, ym, n, m, b)",
            "CREATE OR REPLACE TEMPORARY VIEW on_ AS SELECT * FROM oo UNION ALL "
            "SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL"]
    exprs = ["d - s", "s - d", "ts - s", "s - ts", "i / n", "ym / n", "i * n", "ym * 2", "i / m", "ym + d",
             "d + NULL", "i * s", "s - i", "m = b", "b <=> m", "ym + INTERVAL '1' MONTH", "i - INTERVAL '2' MINUTE"]
    shapes = ["SELECT {e} FROM {t} WHERE 1 = 1",
              "SELECT {e} AS x, n FROM {t} WHERE n > 0 OR 1 = 0",
              "SELECT n FROM {t} WHERE ({e}) IS NOT NULL AND 1 = 1",
              "SELECT {e} AS x FROM {t} WHERE false AND n > 0",
              "SELECT x FROM (SELECT {e} AS x, n FROM {t}) WHERE n = NULL",
              "SELECT n FROM (SELECT {e} AS x, n FROM {t}) WHERE 1 = 1"]
    queries = [shape.format(e=e, t=t) for k, e in enumerate(exprs) for shape in shapes
               for t in [("oo", "on_")[k % 2]]]
    calls = ["to_date(s)", "to_timestamp(s)", "make_date(n, n, n)", "element_at(array(n), n + 5)",
             "assert_true(n > 5)", "to_number(s, '999')", "unhex(s)", "date_format(d, s)"]
    queries += [shape.format(e=c, t=t) for c in calls for shape in shapes[3:] for t in ("oo", "on_")]
    # casts to a collated string (`'a' = 'A'` is true there: was folded to false)
    queries += ["SELECT CAST('a' AS STRING COLLATE UTF8_LCASE) = 'A' AS x",
                "SELECT n FROM oo WHERE CAST(s AS STRING COLLATE UTF8_LCASE) = 'X' AND 1 = 1",
                "SELECT CAST(s AS STRING COLLATE UNICODE_CI) = upper(s) AS x FROM oo WHERE n > 0 OR 1 = 0"]
    # adjacent interval literals (Spark's legacy form), which sqlglot reads as a sum
    queries += ["SELECT interval '10-9' year to month '2-1' year to month", "SELECT interval 1 year '2-1' year to month",
                "SELECT interval '1 15:11' day to minute '12:11:10' hour to second",
                "SELECT n FROM oo WHERE ym + interval '2' month '1' year IS NOT NULL AND 1 = 1"]
    return [_file("opaque-operators.sql", view + queries), _file("nonansi/opaque-operators.sql", view + queries)]


def view_redefinition_files() -> list[TestFile]:
    """Views whose definitions read a view made again since they were made: its columns
    in another order, renamed into each other's places, of a wider type, one fewer, one
    more.  Spark picks a view's columns from its definition's output by name (the k-th
    column named n is the definition's k-th column named n), so the rows sparkfold reads
    through a definition (a Filter over a view that keeps none of them is empty) must be
    picked by name too.  Each outer view (over `*`, some columns, its own column list,
    aliases that swap names, duplicate names under a column list) is a temporary view and
    a persistent one without a schema clause, WITH SCHEMA BINDING and WITH SCHEMA
    EVOLUTION; each is filtered on each of its columns by the value it had."""
    row = "FROM VALUES (1, 2, 3) AS t(a, b, c)"
    remade = [f"SELECT b, a, c {row}", f"SELECT c, b, a {row}", f"SELECT a AS b, b AS a, c {row}",
              f"SELECT CAST(a AS BIGINT) AS a, b, c {row}", f"SELECT b, a {row}", f"SELECT *, 4 AS d {row}"]
    # (the view's text after the name, its columns and their first values)
    outer = [("AS SELECT * FROM {b}", {"a": 1, "b": 2, "c": 3}),
             ("AS SELECT a, b FROM {b}", {"a": 1, "b": 2}),
             ("(x, y, z) AS SELECT * FROM {b}", {"x": 1, "y": 2, "z": 3}),
             ("AS SELECT b AS a, a AS b, c FROM {b}", {"a": 2, "b": 1, "c": 3}),
             ("(x, y) AS SELECT a AS k, b AS k FROM {b}", {"x": 1, "y": 2})]
    kinds = [("TEMPORARY VIEW", "", "vd_tbase"), ("VIEW", "", "vd_pbase"),
             ("VIEW", " WITH SCHEMA BINDING", "vd_pbase"), ("VIEW", " WITH SCHEMA EVOLUTION", "vd_pbase")]
    statements = []
    for again in remade:
        statements += [f"CREATE OR REPLACE TEMPORARY VIEW vd_tbase AS SELECT * {row}",
                       f"CREATE OR REPLACE VIEW vd_pbase AS SELECT * {row}"]
        names = []
        for k, (kind, mode, base) in enumerate(kinds):
            for i, (text, columns) in enumerate(outer):
                name = f"vd_{k}_{i}"
                names.append((name, columns))
                statements.append(f"CREATE OR REPLACE {kind} {name}{mode} " + text.format(b=base))
        statements += [f"CREATE OR REPLACE TEMPORARY VIEW vd_tbase AS {again}",
                       f"CREATE OR REPLACE VIEW vd_pbase AS {again}"]
        for name, columns in names:
            statements += [f"SELECT * FROM {name} WHERE {c} = {v}" for c, v in columns.items()]
            first = next(iter(columns))
            statements.append(f"SELECT * FROM {name} WHERE {first} <> {columns[first]}")
    drops = [f"DROP VIEW IF EXISTS vd_{k}_{i}" for k in range(1, len(kinds)) for i in range(len(outer))]
    return [_file("view-redefinitions.sql", statements + drops + ["DROP VIEW IF EXISTS vd_pbase"])]


def in_subquery_type_files() -> list[TestFile]:
    """Each pair of column types on the two sides of an IN subquery, over an empty
    subquery (which a rule folds to FALSE: an error Spark raises for the pair must not be
    folded away) and a non-empty one, in both modes."""
    return _type_pair_files("in-subquery-types", "SELECT k FROM w WHERE CAST(k AS {a}) IN "
                                                 "(SELECT CAST(k + 1 AS {b}) FROM w {v})", ("WHERE false", "WHERE k > 0"))


def interval_text_files() -> list[TestFile]:
    """Interval literals whose units are in their text (`INTERVAL '1 year 2 months'`),
    which Spark's parser reads with stringToInterval and types by the units the text
    names: every unit, singular and plural, upper case, signed (`-`, `+`, `- 3`), with
    the `interval` prefix, fractions of a second (`.5`, `1.`, nine digits, ten), a
    fraction on another unit, units of both kinds, a unit twice, odd spaces, each field's
    bounds and one past (an int of months or days, a long of microseconds), and texts
    Spark rejects.  Each stands in a select list (its value, type and name), inside
    `coalesce(NULL, ...)` (written back from its value), beside a timestamp, under a
    negation or a unary plus, and over an empty relation, in both modes."""
    texts = ["1 year", "2 years", "3 YEARS 1 Month", "14 months", "-1 year 1 month", "+1 year -13 months", "1 week",
             "2 weeks 3 days", "1 day", "-1 day 1 hour -1 minute 1 second", "3 hours 30 minutes", "90 minutes",
             "100 milliseconds", "200 microseconds", "1 millisecond 1 microsecond", "1.5 seconds", ".5 second",
             "-.5 seconds", "1. second", "1.123456789 seconds", "1.1234567891 second", "0.000001 second",
             "interval 3 year 1 month", "INTERVAL 2 days", "  1   day  ", "- 3 hours", "1 day 1 day", "0 seconds",
             "2 weeks 2 days 1 hour 3 minutes 2 seconds 100 millisecond 200 microseconds",
             "178956970 years 7 months", "178956970 years 8 months", "2147483647 months", "2147483648 months",
             "-2147483648 months", "106751991 days", "106751992 days", "2147483647 days", "9223372036854775807 microseconds",
             "9223372036854775808 microseconds", "2562047788 hours", "2562047789 hours",
             # rejected by Spark
             "1.5 day", "1 year 1 day", "1 dayss", "1day", "1 fortnight", "interval", "intervalx 1 day", "1", "day",
             "1 day 2", "", "1 day -", "1 second 2"]
    exprs = ["interval '{t}'", "coalesce(NULL, interval '{t}')", "-interval '{t}'", "+interval '{t}'"]
    view = ["CREATE OR REPLACE TEMPORARY VIEW iv AS SELECT * FROM VALUES "
            "(TIMESTAMP '2020-01-31 10:00:00', DATE '2020-01-31', 1), (NULL, NULL, 2) AS iv(ts, d, n)"]
    queries = []
    for k, t in enumerate(texts):
        queries += [f"SELECT {e.format(t=t)}" for e in exprs]
        queries += [f"SELECT typeof(interval '{t}') AS ty, n FROM iv WHERE 1 = 1",
                    f"SELECT interval '{t}' AS x FROM iv WHERE n > 5 AND 1 = 1",
                    f"SELECT {'ts' if k % 2 else 'd'} + interval '{t}' FROM iv WHERE n IS NOT NULL OR 1 = 0",
                    f"SELECT n FROM iv WHERE interval '{t}' IS NOT NULL AND n = NULL"]
    # a unary plus before the other forms of an interval literal (Spark's `(+ x)`)
    queries += ["SELECT +interval -1 year 1 month", "SELECT +interval -1 day 1 hour -1 minute 1 second",
                "SELECT +interval '1' day, +interval '1 2' day to hour, +interval -'3' hour",
                "SELECT coalesce(NULL, +interval 5 hours 30 seconds) AS x", "SELECT +interval '1' day + 1",
                "SELECT n FROM iv WHERE ts + +interval '2' minute > ts AND 1 = 1"]
    return [_file("interval-text.sql", view + queries), _file("nonansi/interval-text.sql", view + queries)]


def row_source_constant_files() -> list[TestFile]:
    """Constants that raise when evaluated (a cast that overflows, `1 / 0`, an unmodelled
    call such as `make_date(0, 0, 0)` or `TIME '23:59:59' :: TINYINT`) above a source
    Spark reads as rows (a view over VALUES, VALUES in the query, a view over a view of
    VALUES) or as a table (a parquet table, a view over it), under a condition that keeps
    no row, one that keeps some, a LIMIT, a GROUP BY, a join: Spark's first optimizer
    batch evaluates such a constant row by row, not at all when no row is left, where its
    ConstantFolding raises over a table and over sparkfold's written empty relation
    (`(SELECT ... WHERE FALSE)`).  Both modes."""
    view = ["CREATE OR REPLACE TEMPORARY VIEW rv AS SELECT * FROM VALUES (1, 'a'), (2, 'b'), (NULL, 'c') AS rv(x, s)",
            "CREATE OR REPLACE TEMPORARY VIEW rv2 AS SELECT x + 1 AS x, s FROM rv WHERE x > 0",
            "DROP TABLE IF EXISTS rt", "CREATE TABLE rt (x INT, s STRING) USING parquet",
            "INSERT INTO rt VALUES (1, 'a'), (NULL, 'c')",
            "CREATE OR REPLACE TEMPORARY VIEW rtv AS SELECT * FROM rt"]
    constants = ["CAST(300 AS TINYINT)", "1 / 0", "make_date(0, 0, 0)", "TIME '23:59:59' :: TINYINT",
                 "to_date('2020-01-01')", "CAST('x' AS INT)"]
    sources = ["rv", "rv2", "rt", "rtv", "VALUES (1, 'a'), (2, 'b') AS iv(x, s)"]
    shapes = ["SELECT {c} AS k FROM {t} WHERE 1 = 0", "SELECT {c} AS k, x FROM {t} WHERE x > 5 AND 1 = 1",
              "SELECT x FROM {t} WHERE x = NULL AND {c} IS NOT NULL", "SELECT {c} AS k FROM {t} WHERE false LIMIT 1",
              "SELECT x, {c} AS k FROM {t} WHERE 1 = 0 GROUP BY x", "SELECT count(*), {c} AS k FROM {t} WHERE 1 = 0",
              "SELECT {c} AS k FROM {t} JOIN rv r2 ON r2.x = 5 WHERE 1 = 0",
              "SELECT k FROM (SELECT {c} AS k, x FROM {t}) WHERE x IS NULL AND x IS NOT NULL"]
    queries = [shape.format(c=c, t=t) for shape in shapes for c in constants for t in sources]
    return [_file("row-source-constants.sql", view + queries + ["DROP TABLE IF EXISTS rt"]),
            _file("nonansi/row-source-constants.sql", view + queries + ["DROP TABLE IF EXISTS rt"])]


def metadata_column_files() -> list[TestFile]:
    """The hidden column `_metadata` of file sources (parquet, csv, json tables with
    rows), read as Spark reads it: by name, qualified or not, its fields, never by `*`;
    in each clause, through a join (the null side of an outer join makes it nullable; two
    tables that have it make an unqualified name ambiguous), a USING join, a subquery, a
    CTE, a view (which hides it), under a condition that keeps no row; a table that has a
    column named `_metadata`, VALUES and a view over VALUES (which have none)."""
    setup = ["DROP TABLE IF EXISTS mp", "DROP TABLE IF EXISTS mc", "DROP TABLE IF EXISTS mj", "DROP TABLE IF EXISTS mo",
             "CREATE TABLE mp (id INT, s STRING) USING parquet", "INSERT INTO mp VALUES (1, 'a'), (2, NULL)",
             "CREATE TABLE mc (id INT, c STRING) USING csv", "INSERT INTO mc VALUES (2, 'x'), (3, 'y')",
             "CREATE TABLE mj (id INT, j STRING) USING json", "INSERT INTO mj VALUES (1, 'p')",
             "CREATE TABLE mo (id INT, _metadata STRING) USING parquet", "INSERT INTO mo VALUES (1, 'mine')",
             "CREATE OR REPLACE TEMPORARY VIEW mv AS SELECT * FROM mp",
             "CREATE OR REPLACE TEMPORARY VIEW mval AS SELECT * FROM VALUES (1, 'a') AS mval(id, s)"]
    queries = [
        "SELECT id, _metadata.file_size > 0 AS big, _metadata.row_index FROM mp WHERE 1 = 1",
        "SELECT mp._metadata.file_name LIKE '%.parquet' AS f, id FROM mp WHERE id > 0 OR 1 = 0",
        "SELECT * FROM mp WHERE _metadata.file_size > 0 AND 1 = 1",
        "SELECT * FROM mp WHERE _metadata IS NULL", "SELECT id FROM mp WHERE _metadata IS NOT NULL AND id = NULL",
        "SELECT _metadata.row_index, count(*) AS n FROM mp GROUP BY _metadata.row_index ORDER BY 1",
        "SELECT id, s FROM mp ORDER BY _metadata.row_index DESC",
        "SELECT m.id, m._metadata.row_index AS r FROM mp m WHERE 1 = 0",
        "SELECT mp.id, mc.c, mp._metadata.file_size > 0 AS b, mc._metadata.file_size > 0 AS d FROM mp JOIN mc ON mp.id = mc.id",
        "SELECT mp.id, mc._metadata.file_name IS NULL AS missing FROM mp LEFT JOIN mc ON mp.id = mc.id ORDER BY 1",
        "SELECT mp.id FROM mp LEFT JOIN mc ON mp.id = mc.id WHERE mc._metadata IS NULL",
        "SELECT mp.id FROM mp LEFT JOIN mc ON mp.id = mc.id WHERE mc._metadata.file_size > 0",
        "SELECT _metadata.file_size > 0 AS b FROM mp JOIN mc ON mp.id = mc.id",
        "SELECT id, mp._metadata.row_index AS r FROM mp JOIN mj USING (id)",
        "SELECT * FROM (SELECT id, _metadata.file_size AS z FROM mp) WHERE z > 0 AND 1 = 1",
        "SELECT _metadata FROM (SELECT * FROM mp) q",
        "WITH w AS (SELECT id, _metadata.row_index AS r FROM mp) SELECT * FROM w a JOIN w b ON a.id = b.id",
        "SELECT id FROM mp WHERE _metadata.row_index IN (SELECT _metadata.row_index FROM mp WHERE 1 = 1)",
        "SELECT _metadata FROM mv", "SELECT id FROM mv WHERE 1 = 0",
        "SELECT _metadata, id FROM mo WHERE 1 = 1", "SELECT _metadata FROM mval",
        "SELECT j, _metadata.file_size > 0 AS b FROM mj WHERE j IS NOT NULL OR 1 = 0",
        "SELECT c FROM mc WHERE _metadata.file_name = 'no such file' AND 1 = 1",
    ]
    return [_file("metadata-columns.sql", setup + queries + ["DROP TABLE IF EXISTS mp", "DROP TABLE IF EXISTS mc",
                                                             "DROP TABLE IF EXISTS mj", "DROP TABLE IF EXISTS mo"])]


def set_operation_rows_files() -> list[TestFile]:
    """INTERSECT and EXCEPT (DISTINCT and ALL) of rows the query holds: constants of a
    SELECT without FROM, VALUES, a view over VALUES, a Project over them; pairs of values
    of each type compared by value that a set operation may take as the same row or not
    (NULL and NULL, NaN and NaN, -0.0 and 0.0, 1 and 1.0 and 1L, 'a' and 'a ', a date and
    a timestamp, binaries), duplicates under ALL, a constant that raises or is not
    deterministic on a side, a chain of them in a view read by a query.  Both modes."""
    views = ["CREATE OR REPLACE TEMPORARY VIEW sov AS SELECT * FROM VALUES (1, 'a'), (1, 'a'), (2, NULL) AS sov(x, s)",
             "CREATE OR REPLACE TEMPORARY VIEW soc AS SELECT 1 AS x INTERSECT SELECT 2 INTERSECT SELECT 3",
             "CREATE OR REPLACE TEMPORARY VIEW soe AS SELECT 1 AS x, 'a' AS s EXCEPT SELECT 1, 'a' EXCEPT SELECT 2, 'b'"]
    pairs = [("NULL", "NULL"), ("NULL", "1"), ("CAST('NaN' AS DOUBLE)", "CAST('NaN' AS DOUBLE)"),
             ("-0.0D", "0.0D"), ("CAST('-0.0' AS FLOAT)", "0.0F"), ("1", "1.0"), ("1", "1L"), ("1.10", "1.1"),
             ("'a'", "'a '"), ("'a'", "'A'"), ("''", "NULL"), ("true", "1 = 1"), ("DATE '2020-01-01'",
             "TIMESTAMP '2020-01-01 00:00:00'"), ("X'00'", "X'0000'"), ("CAST('Infinity' AS DOUBLE)", "1E308 * 10"),
             ("2", "1 + 1"), ("CAST(1 AS TINYINT)", "CAST(257 AS TINYINT)"), ("1 / 0", "2"), ("rand() > 2", "false")]
    ops = ["INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL"]
    queries = [f"SELECT {a} AS c {op} SELECT {b}" for a, b in pairs for op in ops]
    queries += [f"SELECT * FROM (SELECT {a} AS c, 'k' AS k {op} SELECT {b}, 'k') WHERE k IS NOT NULL"
                for a, b in pairs[:8] for op in ops[::2]]
    queries += ["SELECT * FROM soc", "SELECT * FROM soe", "SELECT x FROM soc WHERE x > 0",
                "SELECT * FROM sov EXCEPT ALL SELECT 1, 'a'", "SELECT * FROM sov EXCEPT ALL VALUES (1, 'a'), (1, 'a'), (2, NULL)",
                "SELECT * FROM sov EXCEPT SELECT 1, 'a' EXCEPT SELECT 2, NULL", "SELECT * FROM sov INTERSECT SELECT 3, 'a'",
                "SELECT x + 1, upper(s) FROM sov INTERSECT SELECT 2, 'A'", "SELECT x FROM sov INTERSECT ALL SELECT x FROM sov WHERE 1 = 0",
                "VALUES (1), (2) EXCEPT VALUES (2), (1), (3)", "VALUES (1), (1) EXCEPT ALL VALUES (1)",
                "SELECT 1 AS a, 2 AS b INTERSECT SELECT 1, 3", "SELECT 1 AS a, NULL AS b EXCEPT SELECT 1, NULL",
                # chains: a set operation of rows is rows
                "SELECT 1 AS a INTERSECT SELECT 1 INTERSECT SELECT 2", "SELECT 1 AS a EXCEPT SELECT 2 EXCEPT SELECT 1",
                "SELECT 1 AS a EXCEPT SELECT 2 INTERSECT SELECT 1", "VALUES (1), (1), (2) INTERSECT ALL VALUES (1), (1) EXCEPT ALL VALUES (1)",
                "VALUES (1), (1), (2) INTERSECT ALL VALUES (1), (1) EXCEPT ALL VALUES (1), (1)",
                "VALUES (1), (1) INTERSECT VALUES (1), (1) EXCEPT ALL VALUES (1)",
                "VALUES (1), (1), (1) EXCEPT ALL VALUES (1) EXCEPT ALL VALUES (1), (1)",
                "SELECT * FROM sov INTERSECT ALL SELECT * FROM sov EXCEPT ALL VALUES (1, 'a'), (2, NULL)",
                "(SELECT 1 AS a INTERSECT SELECT 1) EXCEPT (SELECT 2 EXCEPT SELECT 3)",
                "SELECT 1 AS a UNION SELECT 2 INTERSECT SELECT 3"]
    return [_file("set-operation-rows.sql", views + queries), _file("nonansi/set-operation-rows.sql", views + queries)]


def window_removal_files() -> list[TestFile]:
    """Window functions where a rewrite removes them (WHERE 1 = 0, LIMIT 0, a NULL
    comparison, an empty subquery, a column nothing reads): count(*), count, sum, avg,
    min, max of each type (numbers, a decimal, a string, a date, a boolean, an array, a
    map, a struct) over windows partitioned and ordered by each, with and without a
    frame; the ones Spark rejects (sum of a date, max of a map, a map as a key,
    count(DISTINCT ...) OVER) stay its errors, the others fold with their names, types
    and nullability (count NOT NULL, the others nullable).  Both modes."""
    setup = ["CREATE OR REPLACE TEMPORARY VIEW wt AS SELECT * FROM VALUES "
             "(1, 10L, 1.5D, 2.25BD, 'a', DATE '2020-01-01', true, array(1), map('k', 1), named_struct('a', 1)), "
             "(1, NULL, CAST('NaN' AS DOUBLE), NULL, NULL, NULL, false, array(), map(), named_struct('a', 2)), "
             "(2, 30L, -0.0D, -1.00BD, 'b', DATE '2021-06-01', NULL, NULL, NULL, NULL) "
             "AS wt(k, l, d, m, s, dt, b, ar, mp, st)"]
    columns = ["k", "l", "d", "m", "s", "dt", "b", "ar", "mp", "st"]
    functions = ["count(*)", "count({c})", "count(DISTINCT {c})", "sum({c})", "avg({c})", "min({c})", "max({c})"]
    windows = ["OVER ()", "OVER (PARTITION BY {c})", "OVER (ORDER BY {c})", "OVER (PARTITION BY k ORDER BY {c} DESC)",
               "OVER (ORDER BY k ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)"]
    shapes = ["SELECT {w} AS w FROM wt WHERE 1 = 0", "SELECT {w} FROM wt LIMIT 0",
              "SELECT k, {w} AS w FROM wt WHERE k = NULL", "SELECT * FROM (SELECT k, {w} AS w FROM wt) WHERE 1 = 0 AND k > 0",
              "SELECT k FROM (SELECT k, {w} AS w FROM wt) WHERE k IS NOT NULL"]
    queries = []
    i = 0
    for f in functions:
        for c in columns:
            for window in (windows[i % len(windows)], windows[(i + 2) % len(windows)]):
                call = f.format(c=c) + " " + window.format(c=c if window.count("{c}") and i % 3 else "k")
                queries.append(shapes[i % len(shapes)].format(w=call))
                i += 1
    for call in ["count(*)", "sum(l)", "max(s)", "avg(m)"]:
        for window in windows:
            for shape in shapes:
                queries.append(shape.format(w=call + " " + window.format(c="dt")))
    queries += ["SELECT count(*) OVER (PARTITION BY mp) AS w FROM wt WHERE 1 = 0",
                "SELECT count(*) OVER (ORDER BY mp) AS w FROM wt WHERE 1 = 0",
                "SELECT count(*) OVER (ORDER BY st) AS w FROM wt WHERE 1 = 0",
                "SELECT count(k) FILTER (WHERE k > 1) OVER () AS w FROM wt WHERE 1 = 0",
                "SELECT sum(k) OVER w AS x FROM wt WHERE 1 = 0 WINDOW w AS (PARTITION BY k)",
                "SELECT row_number() OVER (ORDER BY k) AS r, count(*) OVER () AS c FROM wt LIMIT 0"]
    return [_file("window-removal.sql", setup + queries), _file("nonansi/window-removal.sql", setup + queries)]


SPACES = [literal_files, cte_files, setop_files, grouping_files, settings_files, settings_scope_files, syntax_files,
          setop_type_files, trailing_comma_files, alias_field_files, grouping_set_name_files,
          parameterless_files, wrapped_call_files, in_subquery_type_files,
          parameterized_type_files, nanos_files, time_window_files, lateral_generator_files,
          pipe_syntax_files, opaque_block_subquery_files, commuted_grouping_files, view_redefinition_files,
          variant_path_files, transform_files, opaque_operator_files, interval_text_files,
          row_source_constant_files, metadata_column_files, set_operation_rows_files, window_removal_files]


def all_files() -> list[TestFile]:
    return [t for space in SPACES for t in space()]
