"""What the spark.sql hook keeps between queries (optimizer/hook_cache.py): the session's
schemas, re-verified at every use, and the outcomes of recent statements, reused only
while the settings and the schemas they read are the same.  Spark is the oracle: every
answer through the hook is compared with the session's own spark.sql."""

from __future__ import annotations

import threading

import pytest
import sparkfold.optimizer.hooks as hooks
from sparkfold.optimizer.hook_cache import Results

from tests.data import register


def rows(df):
    return sorted((tuple(r) for r in df.collect()), key=lambda r: tuple((v is None, v) for v in r))


# a rewrite that rests on b being NOT NULL: `b IS NULL` is FALSE, the filter keeps `a = 1`
QUERY = "SELECT a FROM hc_t WHERE b IS NULL OR a = 1"


def test_a_repeated_statement_is_reused_and_optimized_again_when_the_table_changes(spark):
    register(spark, "hc_t", {"a": "int", "b": "int not null"}, [(1, 2), (3, 4)])
    with hooks.install(spark, report=False) as hook:
        first = rows(spark.sql(QUERY))
        assert "IS NULL" not in hook.last_sql  # rewritten: b is never NULL
        hits = hook.results.hits
        assert rows(spark.sql(QUERY)) == first == [(1,)]
        assert hook.results.hits == hits + 1
        # dropped and made again with b nullable, outside the hook: the old rewrite must not be reused
        spark.catalog.dropTempView("hc_t")
        register(spark, "hc_t", {"a": "int", "b": "int"}, [(1, 2), (3, None)])
        got = rows(spark.sql(QUERY))
        assert hook.results.hits == hits + 1
        assert hook.last_sql == QUERY
        assert got == rows(hook._original(QUERY)) == [(1,), (3,)]
        # and through SQL statements sent through the hook itself
        spark.sql("CREATE OR REPLACE TEMPORARY VIEW hc_t AS SELECT * FROM VALUES (1, 2), (5, 6) AS v(a, b)")
        assert rows(spark.sql(QUERY)) == rows(hook._original(QUERY))


def test_a_statement_reading_a_session_variable_is_optimized_anew_each_time(spark):
    """A session variable's type and name (which shows its value inside a call) come
    from the session: a result that read one is never reused, and the variable declared
    again with another type or set to another value gives Spark's answer each time."""
    register(spark, "hc_v", {"a": "int", "b": "int not null"}, [(1, 2), (3, 4)])
    q = "SELECT a, hc_var + 1 FROM hc_v WHERE a < hc_var AND 1 = 1"
    spark.sql("DECLARE OR REPLACE VARIABLE hc_var INT DEFAULT 2")
    try:
        with hooks.install(spark, report=False) as hook:
            for setup in ["SET VAR hc_var = 5", "DECLARE OR REPLACE VARIABLE hc_var BIGINT DEFAULT 2",
                          "SET VAR hc_var = NULL"]:
                hits = hook.results.hits
                got = spark.sql(q)
                assert "1 = 1" not in hook.last_sql and hook.results.hits == hits  # optimized, not reused
                want = hook._original(q)
                assert (got.schema, rows(got)) == (want.schema, rows(want))
                spark.sql(setup)
    finally:
        spark.sql("DROP TEMPORARY VARIABLE IF EXISTS hc_var")


def test_a_kept_result_is_not_reused_after_another_statement_read_the_changed_table(spark):
    """The result kept for QUERY rests on b being NOT NULL then.  The table is made again
    with b nullable, and another statement over it is optimized first (the hook keeps
    the new schema): QUERY sent again must not get its old rewrite, which dropped the
    row whose b is NULL."""
    register(spark, "hc_t", {"a": "int", "b": "int not null"}, [(1, 2), (3, 4)])
    with hooks.install(spark, report=False) as hook:
        spark.sql(QUERY)
        assert "IS NULL" not in hook.last_sql
        register(spark, "hc_t", {"a": "int", "b": "int"}, [(1, 2), (3, None)])
        spark.sql("SELECT a, b FROM hc_t WHERE a > 0")
        hits = hook.results.hits
        assert rows(spark.sql(QUERY)) == rows(hook._original(QUERY)) == [(1,), (3,)]
        assert hook.results.hits == hits and hook.last_sql == QUERY


def test_a_view_made_again_with_other_columns_is_read_again_not_passed_through(spark):
    """A kept schema a query cannot be analyzed against (its columns are gone: ibis's
    TPC-H `customer`, then TPC-DS's) is verified and read again, not taken for the
    query's own error: the query is optimized, and a join over it too."""
    register(spark, "hc_c", {"c_custkey": "bigint", "c_name": "string"}, [(1, "a")])
    register(spark, "hc_o", {"k": "bigint"}, [(2,)])
    with hooks.install(spark, report=False) as hook:
        spark.sql("SELECT c_custkey FROM hc_c WHERE 1 = 1").collect()
        spark.sql("SELECT c.c_custkey FROM hc_c c JOIN hc_o o ON c.c_custkey = o.k").collect()
        register(spark, "hc_c", {"c_customer_sk": "bigint", "c_x": "string"}, [(2, "b"), (None, "c")])
        for query in ("SELECT c_customer_sk FROM hc_c WHERE 1 = 1",
                      "SELECT c.c_customer_sk FROM hc_c c JOIN hc_o o ON c.c_customer_sk = o.k WHERE 2 > 1"):
            got = rows(spark.sql(query))
            assert hook.last is not None and hook.last.passthrough is None, hook.last and hook.last.passthrough
            assert hook.last_sql != query and got == rows(hook._original(query)) != []
        # a query whose error is its own still passes through, named (and Spark says)
        with pytest.raises(Exception):
            spark.sql("SELECT no_such_column FROM hc_c").collect()
        assert any("no_such_column" in reason for reason in hook.passed_through), hook.passed_through


def test_a_statement_over_an_sql_view_is_reused_while_the_view_reads_the_same(spark):
    """A view whose definition sparkfold reads is looked up again before a kept result is
    reused: replaced by another text (same columns), or a table its definition reads
    replaced, the statement is optimized again."""
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW hc_v AS SELECT * FROM VALUES (1, 2), (3, 4) AS v(a, b)")
    register(spark, "hc_vt", {"a": "int not null"}, [(1,)])
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW hc_vn AS SELECT a FROM hc_vt WHERE a IS NULL")
    q, q2 = "SELECT a FROM hc_v WHERE b = 7", "SELECT count(*) AS n FROM hc_vn"
    with hooks.install(spark, report=False) as hook:
        assert rows(spark.sql(q)) == [] and "hc_v" not in hook.last_sql  # no row of the view has b = 7
        hits = hook.results.hits
        assert rows(spark.sql(q)) == [] and hook.results.hits == hits + 1
        hook._original("CREATE OR REPLACE TEMPORARY VIEW hc_v AS SELECT * FROM VALUES (1, 7) AS v(a, b)")
        assert rows(spark.sql(q)) == rows(hook._original(q)) == [(1,)]
        assert hook.results.hits == hits + 1 and hook.last_sql == q
        assert rows(spark.sql(q2)) == [(0,)] and "hc_vn" not in hook.last_sql  # the view is empty
        hits = hook.results.hits
        assert rows(spark.sql(q2)) == [(0,)] and hook.results.hits == hits + 1
        spark.catalog.dropTempView("hc_vt")
        register(spark, "hc_vt", {"a": "int"}, [(1,), (None,)])  # now a IS NULL holds on a row
        assert rows(spark.sql(q2)) == rows(hook._original(q2)) == [(1,)]
        assert hook.results.hits == hits + 1 and hook.last_sql == q2


def test_a_table_replaced_by_one_with_the_same_schema_and_other_rows(spark):
    register(spark, "hc_same", {"a": "int", "b": "int not null"}, [(1, 2)])
    q = "SELECT a, count(b) AS n FROM hc_same GROUP BY a"
    with hooks.install(spark, report=False) as hook:
        assert rows(spark.sql(q)) == [(1, 1)]
        register(spark, "hc_same", {"a": "int", "b": "int not null"}, [(7, 8), (7, 9)])
        assert rows(spark.sql(q)) == rows(hook._original(q)) == [(7, 2)]


def test_a_changed_setting_is_a_new_key(spark):
    register(spark, "hc_s", {"a": "int", "s": "string"}, [(1, "x"), (2, "12")])
    q = "SELECT a FROM hc_s WHERE CAST(s AS INT) IS NULL OR a = NULL"
    with hooks.install(spark, report=False) as hook:
        try:
            spark.conf.set("spark.sql.ansi.enabled", "false")
            rows(spark.sql(q))
            hits = hook.results.hits
            assert hook.last.catalog.ansi is False
            spark.conf.set("spark.sql.ansi.enabled", "true")
            with pytest.raises(Exception) as ours:
                rows(spark.sql(q))
            with pytest.raises(Exception) as theirs:
                rows(hook._original(q))
            assert type(ours.value) is type(theirs.value)
            assert hook.results.hits == hits and hook.last.catalog.ansi is True
        finally:
            spark.conf.unset("spark.sql.ansi.enabled")


def test_a_table_of_another_database_after_use_is_read_again(spark):
    spark.sql("CREATE DATABASE IF NOT EXISTS hc_db")
    try:
        spark.sql("CREATE TABLE IF NOT EXISTS hc_tab (a INT) USING parquet")
        spark.sql("CREATE TABLE IF NOT EXISTS hc_db.hc_tab (a INT) USING parquet")
        q = "SELECT a FROM hc_tab WHERE a = 1 OR a = NULL"
        with hooks.install(spark, report=False) as hook:
            spark.sql(q)
            assert hook.last.catalog.lookup("hc_tab").qualifier == ("spark_catalog", "default", "hc_tab")
            hits = hook.results.hits
            spark.sql("USE hc_db")
            spark.sql(q)  # the same columns, in another database: not the same table
            assert hook.results.hits == hits
            assert hook.last.catalog.lookup("hc_tab").qualifier == ("spark_catalog", "hc_db", "hc_tab")
    finally:
        spark.sql("USE default")
        spark.sql("DROP TABLE IF EXISTS hc_tab")
        spark.sql("DROP DATABASE IF EXISTS hc_db CASCADE")


def test_the_kept_statements_and_schemas_are_bounded(spark, monkeypatch):
    from sparkfold.optimizer.hook_cache import SessionSchemas

    monkeypatch.setattr(SessionSchemas, "LIMIT", 2)
    for name in ("hc_b1", "hc_b2", "hc_b3"):
        register(spark, name, {"a": "int not null"}, [(1,)])
    with hooks.install(spark, report=False, cache_size=3) as hook:
        for i in range(5):
            spark.sql(f"SELECT a FROM hc_b{1 + i % 3} WHERE a IS NOT NULL AND a > {i}")
        assert len(hook.results) == 3
        assert len(hook._schemas._known) == 2
    with hooks.install(spark, report=False, cache_size=0) as hook:
        spark.sql("SELECT a FROM hc_b1")
        spark.sql("SELECT a FROM hc_b1")
        assert len(hook.results) == 0 and hook.results.hits == 0


def test_threads_get_spark_answers(spark):
    """8 threads sending the same few statements over and over: each is sent to Spark as a
    hook that keeps nothing sends it, and the rows are Spark's."""
    register(spark, "hc_th", {"a": "int", "b": "int not null", "s": "string"},
             [(i % 7 if i % 5 else None, i, f"v{i % 3}") for i in range(40)])
    shapes = ["SELECT a, count(b) AS n FROM hc_th WHERE a > {i} GROUP BY a",
              "SELECT s FROM hc_th WHERE b IS NULL OR a = {i}",
              "SELECT count(a) AS n FROM hc_th WHERE a = NULL OR b > {i}"]
    texts = [shape.format(i=i) for shape in shapes for i in range(3)]
    with hooks.install(spark, report=False, cache_size=0) as plain:
        sent = {}
        for q in texts:
            spark.sql(q)
            sent[q] = plain.last_sql
    assert any(sent[q] != q for q in texts)  # rewrites to get right
    records: list = []
    errors: list[BaseException] = []
    with hooks.install(spark, report=False, on_query=records.append, history=0) as hook:
        def work(k):
            try:
                for j in range(12):
                    spark.sql(texts[(k + j) % len(texts)])
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors and hook.internal_errors == 0
        assert len(records) == 96 and hook.results.hits >= 96 - 8 * len(texts)  # (a text may miss once per thread)
        assert all(r.sent == sent[r.sql] for r in records)
        for q in texts[1::3]:  # and a sample run against Spark's own answer
            assert rows(spark.sql(q)) == rows(hook._original(q))


def test_results_are_an_lru_that_drops_what_no_longer_holds():
    r = Results(2)
    r.put("a", 1, "dep")
    r.put("b", 2, "dep")
    assert r.get("a", lambda d: True) == 1  # a is now the latest
    r.put("c", 3, "dep")
    assert r.get("b", lambda d: True) is None and len(r) == 2
    assert r.get("a", lambda d: False) is None  # no longer holds: dropped
    assert len(r) == 1 and r.get("c", lambda d: d == "dep") == 3 and r.hits == 2


def test_the_pre_check_skips_only_statements_no_rule_changes():
    """The hook sends a statement as written, reading nothing, when its first word says
    it holds no query (SET, USE, DROP, SHOW...).  Over every statement of Spark's test
    files, the corpus of sqlglot's fixtures and TPC-H / TPC-DS: each one skipped is one the
    optimizer leaves as written with no finding (or cannot read), and no TPC query is
    skipped."""
    from sparkfold.optimizer import optimize
    from sparkfold.optimizer.statements import holds_no_query
    from sparkfold.plans.ir.errors import SparkfoldError

    from tests import tpc
    from tests.corpus.source import QUERY_FILES, _pairs, sqlglot_fixtures
    from tests.sqltests.source import files

    fixtures = sqlglot_fixtures()  # (their first words, as written: transpiling keeps them)
    corpus = [sql for stem in QUERY_FILES if (fixtures / f"{stem}.sql").is_file()
              for _, given, expected in _pairs(fixtures / f"{stem}.sql") for sql in (given, expected)]
    texts = [s.sql for f in files() for s in f.statements] + corpus
    tpc_queries = [q for name in ("tpch", "tpcds") for _, q in tpc.queries(name)]
    assert not any(holds_no_query(q) for q in tpc_queries)
    skipped = [t for t in texts + tpc_queries if holds_no_query(t)]
    assert len(skipped) > 50, len(skipped)  # the check is not vacuous
    for text in skipped:
        try:
            result = optimize(text, {})
        except SparkfoldError:
            continue  # not read at all: passed through as written by the hook too
        assert result.sql == text and not result.changed and not result.findings, text


# -- the tokens: one JVM call checks the tables a statement read (optimizer/hook_cache.py) --

def test_a_token_names_one_object_of_the_catalog(spark):
    """The same token while the catalog holds the same view; another one for a view made
    again (even from the same DataFrame), under other settings or in another database;
    none for what the helper cannot vouch for (a view kept as SQL text, a name it does
    not know)."""
    from sparkfold.optimizer.hook_cache import SessionSchemas

    register(spark, "hc_tok", {"a": "int not null"}, [(1,)])
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW hc_tok_text AS SELECT 1 AS a")
    schemas = SessionSchemas(spark)
    names = ["hc_tok", "hc_tok_text", "hc_no_such_table", "spark_catalog.default.hc_tok"]
    first = schemas.snapshot(names)
    assert first is not None, "the JVM helper could not be compiled"
    assert first.tokens["hc_tok"] is not None and schemas.snapshot(names) == first
    assert [first.tokens[n] for n in names[1:]] == [None, None, None]
    spark.table("hc_tok").createOrReplaceTempView("hc_tok")  # the same DataFrame: a new object
    again = schemas.snapshot(names)
    assert again.tokens["hc_tok"] not in (None, first.tokens["hc_tok"]) and again.state == first.state
    try:
        spark.conf.set("spark.sql.shuffle.partitions", "3")
        assert schemas.snapshot(names).tokens["hc_tok"] != again.tokens["hc_tok"]
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", "2")
    assert schemas.snapshot(names).tokens["hc_tok"] == again.tokens["hc_tok"]  # (the same state: its id again)
    spark.sql("CREATE DATABASE IF NOT EXISTS hc_tok_db")
    try:
        spark.sql("USE hc_tok_db")
        assert schemas.snapshot(names).state != again.state
    finally:
        spark.sql("USE default")
        spark.sql("DROP DATABASE IF EXISTS hc_tok_db")


def test_a_repeated_statement_costs_one_jvm_call(spark, monkeypatch):
    """Over DataFrame views, a statement sent again is checked by one probe (which also
    reads the settings), and a new statement over tables already read by two (one before,
    one after it is optimized): no fingerprint is read, no table read again."""
    from sparkfold.optimizer.hook_cache import SessionSchemas

    register(spark, "hc_one", {"a": "int", "b": "int not null"}, [(1, 2)])
    register(spark, "hc_two", {"a": "int"}, [(1,)])
    q = "SELECT x.a FROM hc_one x JOIN hc_two y ON x.a = y.a WHERE x.b IS NULL OR x.a = 1"
    with hooks.install(spark, report=False) as hook:
        spark.sql(q)
        calls = {"snapshot": 0, "fingerprints": 0}
        for name in calls:
            original = getattr(SessionSchemas, name)

            def counted(self, *args, _name=name, _original=original, **kwargs):
                calls[_name] += 1
                return _original(self, *args, **kwargs)
            monkeypatch.setattr(SessionSchemas, name, counted)
        hits = hook.results.hits
        assert rows(spark.sql(q)) == [(1,)] and hook.results.hits == hits + 1
        assert calls == {"snapshot": 1, "fingerprints": 0}
        spark.sql(q + " AND y.a > 0")
        assert calls == {"snapshot": 3, "fingerprints": 0}


def test_a_view_made_again_through_the_jvm_is_not_reused(spark):
    """Replaced by the JVM's own Dataset API (not pyspark, not the hook), with b nullable
    now: the kept rewrite (b IS NULL dropped) must not be sent again."""
    register(spark, "hc_jvm", {"a": "int", "b": "int not null"}, [(1, 2), (3, 4)])
    q = "SELECT a FROM hc_jvm WHERE b IS NULL OR a = 1"
    with hooks.install(spark, report=False) as hook:
        assert rows(spark.sql(q)) == [(1,)] and "IS NULL" not in hook.last_sql
        hits = hook.results.hits
        spark._jsparkSession.sql("SELECT * FROM VALUES (1, 2), (3, CAST(NULL AS INT)) AS v(a, b)") \
            .createOrReplaceTempView("hc_jvm")
        assert rows(spark.sql(q)) == rows(hook._original(q)) == [(1,), (3,)]
        assert hook.results.hits == hits and hook.last_sql == q
        # and made again from the same DataFrame: a new object, the same columns (reused
        # after its fingerprint says so, never unchecked)
        spark.table("hc_jvm").createOrReplaceTempView("hc_jvm")
        assert rows(spark.sql(q)) == rows(hook._original(q)) == [(1,), (3,)]


def test_a_global_temporary_view_made_again_by_another_session_is_not_reused(spark):
    from tests.data import spark_schema

    other = spark.newSession()  # the same SparkContext: the same global temporary views
    spark.createDataFrame([(1, 2), (3, 4)], spark_schema({"a": "int", "b": "int not null"})) \
        .createOrReplaceGlobalTempView("hc_glob")
    q = "SELECT a FROM global_temp.hc_glob WHERE b IS NULL OR a = 1"
    try:
        with hooks.install(spark, report=False) as hook:
            assert rows(spark.sql(q)) == [(1,)] and "IS NULL" not in hook.last_sql
            hits = hook.results.hits
            assert rows(spark.sql(q)) == [(1,)] and hook.results.hits == hits + 1
            other.createDataFrame([(1, 2), (3, None)], spark_schema({"a": "int", "b": "int"})) \
                .createOrReplaceGlobalTempView("hc_glob")
            assert rows(spark.sql(q)) == rows(hook._original(q)) == [(1,), (3,)]
            assert hook.results.hits == hits + 1 and hook.last_sql == q
    finally:
        spark.catalog.dropGlobalTempView("hc_glob")


def test_a_dropped_view_uncovers_the_table_of_its_name(spark):
    """A temporary view shadows the permanent table of its name: dropped (through the
    JVM's catalog, not the hook), the name reads the table, whose b is nullable."""
    spark.sql("DROP TABLE IF EXISTS hc_shadow")
    try:
        spark.sql("CREATE TABLE hc_shadow (a INT, b INT) USING parquet")
        spark.sql("INSERT INTO hc_shadow VALUES (1, 2), (3, NULL)")
        register(spark, "hc_shadow", {"a": "int", "b": "int not null"}, [(1, 2), (3, 4)])
        q = "SELECT a FROM hc_shadow WHERE b IS NULL OR a = 1"
        with hooks.install(spark, report=False) as hook:
            assert rows(spark.sql(q)) == [(1,)] and "IS NULL" not in hook.last_sql
            hits = hook.results.hits
            spark._jsparkSession.sessionState().catalog().dropTempView("hc_shadow")
            assert rows(spark.sql(q)) == rows(hook._original(q)) == [(1,), (3,)]
            assert hook.results.hits == hits and hook.last_sql == q
            # and a view made again over the table: the kept result for the table is not reused
            hits = hook.results.hits
            register(spark, "hc_shadow", {"a": "int", "b": "int not null"}, [(5, 6)])
            assert rows(spark.sql(q)) == rows(hook._original(q)) == []
            assert hook.results.hits == hits
    finally:
        spark.catalog.dropTempView("hc_shadow")
        spark.sql("DROP TABLE IF EXISTS hc_shadow")


def test_a_permanent_table_or_view_made_again_by_another_session_is_read_again(spark):
    """Permanent tables and views (no token: checked by fingerprint, or their definition
    looked up again) made again by another session of the same SparkContext, and by DDL
    sent to the JVM directly: the statement is optimized over the schema this session's
    Spark reads (which keeps a table's relation until it is refreshed), never another."""
    other = spark.newSession()
    spark.sql("DROP TABLE IF EXISTS hc_perm")
    spark.sql("DROP VIEW IF EXISTS hc_pview")

    def spark_reads(name):
        return [(f.name, f.dataType.simpleString()) for f in spark.table(name).schema.fields]

    def hook_read(hook, name):
        return [(c.name, c.data_type.simple_string()) for c in hook.last.catalog.lookup(name).columns]

    try:
        spark.sql("CREATE TABLE hc_perm (a INT, s STRING) USING parquet")
        spark.sql("CREATE VIEW hc_pview AS SELECT 1 AS a, 2 AS b")  # b is never NULL
        q, qv = "SELECT a FROM hc_perm WHERE a = 1 OR a = NULL", "SELECT a FROM hc_pview WHERE b IS NULL OR a = 1"
        with hooks.install(spark, report=False) as hook:
            spark.sql(q)
            assert hook_read(hook, "hc_perm") == [("a", "int"), ("s", "string")]
            assert rows(spark.sql(qv)) == [(1,)] and "IS NULL" not in hook.last_sql
            other.sql("DROP TABLE hc_perm")
            other.sql("CREATE TABLE hc_perm (a BIGINT, t INT) USING parquet")
            other.sql("CREATE OR REPLACE VIEW hc_pview AS SELECT 1 AS a, CAST(NULL AS INT) AS b")
            spark.sql(q)
            assert hook_read(hook, "hc_perm") == spark_reads("hc_perm")
            hits = hook.results.hits
            spark.catalog.refreshTable("hc_perm")  # this session now reads the new table
            spark.sql(q)
            assert hook.results.hits == hits and hook_read(hook, "hc_perm") == spark_reads("hc_perm") == \
                [("a", "bigint"), ("t", "int")]
            assert rows(spark.sql(qv)) == rows(hook._original(qv)) == [(1,)]
            assert hook.results.hits == hits and hook.last_sql == qv
            spark._jsparkSession.sql("CREATE OR REPLACE VIEW hc_pview AS SELECT 3 AS a, CAST(NULL AS INT) AS b")
            assert rows(spark.sql(qv)) == rows(hook._original(qv)) == [(3,)]
    finally:
        spark.sql("DROP TABLE IF EXISTS hc_perm")
        spark.sql("DROP VIEW IF EXISTS hc_pview")


def test_a_permanent_table_has_a_token_while_this_session_reads_one_relation(spark, monkeypatch):
    """A file-source table of the session catalog has a token once this session caches its
    relation (which its analyzer reads for the name from then on): the same until the
    relation is dropped from the cache (REFRESH, ALTER, DROP in this session) or the name
    reads something else (a temporary view, a view another session made in its place)."""
    from sparkfold.optimizer.hook_cache import SessionSchemas

    other = spark.newSession()
    spark.sql("DROP TABLE IF EXISTS hc_ptok")
    try:
        spark.sql("CREATE TABLE hc_ptok (a INT, s STRING) USING parquet")
        spark.sql("INSERT INTO hc_ptok VALUES (1, 'x'), (2, NULL)")
        schemas = SessionSchemas(spark)
        names = ["hc_ptok", "default.hc_ptok", "spark_catalog.default.hc_ptok"]
        spark.table("hc_ptok").schema  # noqa: B018 - (read: the relation is cached)
        first = schemas.snapshot(names).tokens
        assert None not in first.values() and schemas.snapshot(names).tokens == first
        spark._jsparkSession.sql("ALTER TABLE hc_ptok ADD COLUMNS (c INT)")  # DDL through the JVM
        assert schemas.snapshot(names).tokens["hc_ptok"] is None  # (not read since)
        spark.table("hc_ptok").schema  # noqa: B018
        second = schemas.snapshot(names).tokens
        assert None not in second.values() and set(second.values()).isdisjoint(first.values())
        register(spark, "hc_ptok", {"a": "int"}, [(1,)])  # a temporary view shadows it
        assert schemas.snapshot(names).tokens["hc_ptok"] not in (None, second["hc_ptok"])
        spark.catalog.dropTempView("hc_ptok")
        assert schemas.snapshot(names).tokens == second
        other.sql("DROP TABLE hc_ptok")
        other.sql("CREATE VIEW hc_ptok AS SELECT 1 AS a")
        assert set(schemas.snapshot(names).tokens.values()) == {None}

        # through the hook: a statement sent again over the table costs one call, until
        # another session makes a view in its place
        other.sql("DROP VIEW hc_ptok")
        other.sql("CREATE TABLE hc_ptok (a INT, s STRING) USING parquet")
        spark.catalog.refreshTable("hc_ptok")
        q = "SELECT a FROM hc_ptok WHERE s IS NULL OR a = NULL"
        with hooks.install(spark, report=False) as hook:
            spark.sql(q)
            spark.sql(q)  # (verified by fingerprint the first time, by its token from then on)
            calls = []
            monkeypatch.setattr(SessionSchemas, "fingerprints", lambda self, *a: calls.append(a))
            hits = hook.results.hits
            assert rows(spark.sql(q)) == [] and hook.results.hits == hits + 1 and calls == []
            monkeypatch.undo()
            other.sql("DROP TABLE hc_ptok")
            other.sql("CREATE VIEW hc_ptok AS SELECT 7 AS a, CAST(NULL AS STRING) AS s")
            assert rows(spark.sql(q)) == rows(hook._original(q)) == [(7,)]
            assert hook.results.hits == hits + 1
    finally:
        spark.sql("DROP VIEW IF EXISTS hc_ptok")
        spark.sql("DROP TABLE IF EXISTS hc_ptok")


def test_a_schema_used_is_verified_not_the_one_kept_since(spark):
    """A query optimized against a kept schema, while another thread's statement found the
    table made again and kept its new schema: what the query used is verified (and found
    stale), not what is kept by the time it is checked."""
    register(spark, "hc_race", {"a": "int", "b": "int not null"}, [(1, 2)])
    with hooks.install(spark, report=False) as hook:
        spark.sql("SELECT a FROM hc_race WHERE b IS NULL OR a = 1")
        used = hook._schemas.kept_entry("hc_race")
        assert used is not None and used[2] is not None  # kept, with its token
        register(spark, "hc_race", {"a": "int", "b": "int"}, [(1, None)])
        spark.sql("SELECT a, b FROM hc_race WHERE a > 0")  # (the other thread's statement)
        now = hook._schemas.kept_entry("hc_race")
        assert now is not None and now[1] != used[1]
        assert hook._schemas.verified({}, {"hc_race": used}) is None
        assert hook._schemas.verified({}, {"hc_race": now}) == {"hc_race": ("token", now[2])}


def test_without_the_jvm_helper_every_table_is_checked_by_its_fingerprint(spark, monkeypatch):
    """Where the helper cannot be compiled (another Spark), the hook reads the settings
    itself and checks every table by its fingerprint, as before: still reused, never stale."""
    import sparkfold.optimizer.hook_cache as hook_cache

    monkeypatch.setattr(hook_cache, "_probe_helper", lambda spark: None)
    register(spark, "hc_nohelp", {"a": "int", "b": "int not null"}, [(1, 2), (3, 4)])
    q = "SELECT a FROM hc_nohelp WHERE b IS NULL OR a = 1"
    with hooks.install(spark, report=False) as hook:
        assert rows(spark.sql(q)) == [(1,)] and "IS NULL" not in hook.last_sql
        assert hook._schemas.snapshot(["hc_nohelp"]) is None
        hits = hook.results.hits
        assert rows(spark.sql(q)) == [(1,)] and hook.results.hits == hits + 1
        register(spark, "hc_nohelp", {"a": "int", "b": "int"}, [(1, 2), (3, None)])
        assert rows(spark.sql(q)) == rows(hook._original(q)) == [(1,), (3,)]
        assert hook.results.hits == hits + 1 and hook.last_sql == q


def test_a_spark_the_tables_part_does_not_compile_for_keeps_the_tokens_of_views(spark, monkeypatch):
    """The helper's part for tables of the session catalog is written against Spark 4.1+'s
    classes: where it does not compile, the helper is made without it (temporary views
    keep their tokens, tables are checked by fingerprint)."""
    import sparkfold.optimizer.hook_cache as hook_cache

    monkeypatch.setattr(hook_cache, "_PROBE_CLASSES", {})
    monkeypatch.setattr(hook_cache, "_PROBE_PERMANENT", hook_cache._PROBE_PERMANENT.replace("QualifiedTableName(",
                                                                                           "NoSuchClass("))
    register(spark, "hc_old", {"a": "int"}, [(1,)])
    spark.sql("DROP TABLE IF EXISTS hc_old_tab")
    try:
        spark.sql("CREATE TABLE hc_old_tab (a INT) USING parquet")
        spark.table("hc_old_tab").schema  # noqa: B018 - (cached)
        snap = hook_cache.SessionSchemas(spark).snapshot(["hc_old", "hc_old_tab"])
        assert snap is not None and snap.tokens["hc_old"] is not None and snap.tokens["hc_old_tab"] is None
        assert hook_cache.SessionSchemas(spark).snapshot(["hc_old_tab"]).tokens["hc_old_tab"] is None
    finally:
        spark.sql("DROP TABLE IF EXISTS hc_old_tab")
