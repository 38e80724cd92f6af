"""The hooks: spark.sql on a session, sqlglot expressions, plain SQL strings.

The rewrites these tests need must not depend on which rules exist, so most of them
optimize with one small test rule, `NOT NOT x -> x` (sound in three-valued logic: NOT
NOT NULL is NULL), through the real hook code path.  Spark is the oracle: every result
with the hook on is compared with the result without it."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap

import pytest
import sparkfold.optimizer.hooks as hooks
import sparkfold.optimizer.rewrite as rewriting
from sparkfold.optimizer import api
from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir.errors import InternalError
from sparkfold.rules.base import Rule, transform_expressions

from tests.spark_check import run

pytestmark = pytest.mark.spark
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _not_not(plan, ctx):
    return transform_expressions(
        plan, lambda e: e.child.child if isinstance(e, E.Not) and isinstance(e.child, E.Not) else e)


NOT_NOT = Rule("TestNotNot", _not_not, "NOT NOT x -> x")


@pytest.fixture
def not_not(monkeypatch):
    """Optimize with the test rule only (the hook's code path is otherwise the real one)."""
    monkeypatch.setattr(rewriting, "optimize",
                        lambda sql, catalog, **kw: api.optimize(sql, catalog, rules=[NOT_NOT], **kw))


@pytest.fixture
def received(spark):
    """Record the SQL text Spark's own `spark.sql` receives (under any hook)."""
    seen: list[str] = []
    cls_sql = type(spark).sql

    def spy(sqlQuery, args=None, **kwargs):
        seen.append(sqlQuery)
        return cls_sql(spark, sqlQuery, args, **kwargs)

    spark.sql = spy
    yield seen
    del spark.sql


def double_not(sql: str) -> bool:
    text = sql.upper().replace("(", " ")
    return "NOT  NOT" in text or "NOT NOT" in text


def rows(df):
    return sorted((tuple(r) for r in df.collect()), key=lambda r: tuple((v is None, v) for v in r))


def test_hook_rewrites_query_and_results_are_unchanged(spark, tables, not_not, received):
    sql = "SELECT num, s FROM t WHERE NOT NOT (num > 3 AND s <> 'b')"
    expected = rows(spark.sql(sql))
    with hooks.install(spark) as hook:
        got = rows(spark.sql(sql))
    assert got == expected
    assert received[-1] != sql and not double_not(received[-1])
    assert hook.last_sql == received[-1]
    assert hook.last is not None and hook.last.changed
    assert [r.rule for r in hook.trace] == ["TestNotNot"]
    assert hook.queries == 1 and hook.rewritten == 1


DEFAULT_RULE_QUERIES = [
    ("SELECT count(num) AS c, count(x) AS cx FROM t WHERE x > :lo OR s = :s", {"lo": 0, "s": "b"}),
    ("SELECT num, y FROM u WHERE num = NULL OR y > ?", [300]),
    ("SELECT count(DISTINCT (num = NULL)) AS n, count(*) AS m FROM t", None),
    ("SELECT t.num, u.y FROM t LEFT JOIN u ON t.num = u.num WHERE u.y > ?", [100]),
    ("SELECT s, count(b) AS c FROM t WHERE num IS NOT NULL AND NOT (s IN ('a', NULL)) GROUP BY s", None),
]


def test_default_rules_through_the_hook_keep_spark_results(spark, tables):
    from sparkfold.optimizer.compare import compare_rows

    expected = [[tuple(r) for r in spark.sql(q, args=a).collect()] for q, a in DEFAULT_RULE_QUERIES]
    with hooks.install(spark, strict=True) as hook:
        for (q, a), want in zip(DEFAULT_RULE_QUERIES, expected):
            got = [tuple(r) for r in spark.sql(q, args=a).collect()]
            assert compare_rows(want, got).equal, (q, hook.last_sql, want, got)
    assert hook.queries == len(DEFAULT_RULE_QUERIES)
    assert hook.rewritten >= 3  # NullPropagation alone rewrites three of them


def test_named_parameter_markers_are_kept(spark, tables, not_not, received):
    sql = "SELECT num FROM t WHERE NOT NOT (num > :lo) AND s = :s"
    args = {"lo": 2, "s": "a"}
    expected = rows(spark.sql(sql, args=args))
    with hooks.install(spark):
        got = rows(spark.sql(sql, args=args))
    assert got == expected and len(got) == 1
    assert ":lo" in received[-1] and ":s" in received[-1] and not double_not(received[-1])


def test_positional_parameter_markers_are_kept_in_order(spark, tables, not_not, received):
    sql = "SELECT num, ? AS tag FROM t WHERE NOT NOT (num > ?) AND num < ?"
    args = ["x", 2, 6]
    expected = rows(spark.sql(sql, args=args))
    with hooks.install(spark) as hook:
        got = rows(spark.sql(sql, args=args))
    assert got == expected and len(got) == 3
    assert received[-1].count("?") == 3 and not double_not(received[-1])
    assert hook.last_sql == received[-1] and "__sf_p" not in received[-1]


def _pyformat_driver(sql: str, params) -> str:
    """What a pyformat DB-API driver (PyHive) sends: Python's `%` formatting of the whole
    text, with each parameter escaped as a SQL literal."""
    def lit(v):
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'" if isinstance(v, str) else str(v)

    if isinstance(params, dict):
        return sql % {k: lit(v) for k, v in params.items()}
    return sql % tuple(lit(v) for v in params)


PYFORMAT = [
    ("SELECT num, s FROM t WHERE NOT NOT (num > %s) AND s LIKE 'a%%' AND num < %s", [1, 9]),
    ("SELECT num %% 3 AS m, %(tag)s AS tag FROM t WHERE NOT NOT (num >= %(lo)s) AND s <> %(s)s",
     {"tag": "x%", "lo": 2, "s": "it's"}),
    ("SELECT num FROM t WHERE NOT NOT (num = %(v)s) OR num = %(v)s + 1", {"v": 3}),
]


@pytest.mark.parametrize("sql,params", PYFORMAT)
def test_pyformat_markers_and_escapes_are_kept(spark, tables, not_not, sql, params):
    """PyHive and the SQLAlchemy Hive/Spark dialects send `%s`, `%(name)s` and `%%`."""
    out = hooks.sql_rewriter({"t": {"num": "int", "s": "string"}}, strict=True)(sql)
    assert out != sql and not double_not(out)
    assert out.count("%s") == sql.count("%s") and out.count("%%") == sql.count("%%")
    expected = rows(spark.sql(_pyformat_driver(sql, params)))
    assert rows(spark.sql(_pyformat_driver(out, params))) == expected and expected


def test_positional_markers_that_would_move_are_refused():
    marked, n = hooks._name_positional_markers("SELECT ? , '?' FROM t WHERE a = ?")
    assert n == 2 and marked == "SELECT :__sf_p0 , '?' FROM t WHERE a = :__sf_p1"
    assert hooks._restore_positional_markers(marked, 2) == "SELECT ? , '?' FROM t WHERE a = ?"
    assert hooks._restore_positional_markers("SELECT :__sf_p1, :__sf_p0", 2) is None
    assert hooks._restore_positional_markers("SELECT :__sf_p0", 2) is None  # one was dropped


def test_kwargs_with_plain_values_are_formatted_then_optimized(spark, tables, not_not, received):
    sql = "SELECT num FROM t WHERE NOT NOT (num > {lo}) AND s = {s}"
    expected = rows(spark.sql(sql, lo=2, s="a"))
    with hooks.install(spark) as hook:
        got = rows(spark.sql(sql, lo=2, s="a"))
    assert got == expected and len(got) == 1
    assert hook.last is not None and hook.last.changed
    assert "'a'" in received[-1] and not double_not(received[-1])


def test_kwargs_with_a_dataframe_pass_through_to_spark(spark, tables, not_not, received):
    df = spark.table("t")
    sql = "SELECT num FROM {df} WHERE NOT NOT (num > 8)"
    with hooks.install(spark) as hook:
        got = rows(spark.sql(sql, df=df))
    assert got == [(9,), (10,)]
    assert received[-1] == sql  # Spark formatted it itself
    assert hook.last is None


def test_uninstall_restores_spark_sql(spark, tables):
    assert "sql" not in vars(spark)
    hook = hooks.install(spark)
    assert vars(spark)["sql"] == hook.wrapper
    hook.uninstall()
    assert "sql" not in vars(spark) and spark.sql.__func__ is type(spark).sql
    hook.uninstall()  # idempotent
    with hooks.install(spark) as hook2:
        assert hook2.installed
    assert "sql" not in vars(spark) and not hook2.installed


def test_nested_hooks_uninstall_in_order(spark, tables, received):
    spy = vars(spark)["sql"]
    outer = hooks.install(spark)
    inner = hooks.install(spark)
    inner.uninstall()
    assert vars(spark)["sql"] == outer.wrapper
    outer.uninstall()
    assert vars(spark)["sql"] is spy


def test_internal_error_fails_open_with_a_warning(spark, tables, monkeypatch, caplog, received):
    def boom(*a, **k):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(rewriting, "optimize", boom)
    sql = "SELECT num FROM t WHERE num > 8"
    with caplog.at_level(logging.WARNING, logger="sparkfold"), hooks.install(spark) as hook:
        got = rows(spark.sql(sql))
    assert got == [(9,), (10,)]
    assert received[-1] == sql
    assert "simulated bug" in caplog.text and isinstance(hook.last_error, RuntimeError)


def test_strict_mode_raises_on_internal_error(spark, tables, monkeypatch):
    def boom(*a, **k):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(rewriting, "optimize", boom)
    with hooks.install(spark, strict=True):
        with pytest.raises(InternalError, match="simulated bug"):
            spark.sql("SELECT num FROM t")
    assert "sql" not in vars(spark)


def test_sql_spark_rejects_falls_back_to_the_original(spark, tables, monkeypatch, caplog, received):
    monkeypatch.setattr(hooks, "rewrite", lambda sql, cat, **kw: ("SELEC broken", None))
    sql = "SELECT num FROM t WHERE num > 8"
    with caplog.at_level(logging.WARNING, logger="sparkfold"), hooks.install(spark) as hook:
        got = rows(spark.sql(sql))
    assert got == [(9,), (10,)]
    assert received == ["SELEC broken", sql] and hook.last_sql == sql
    assert "Spark rejected the optimized SQL" in caplog.text
    with hooks.install(spark, strict=True), pytest.raises(InternalError):
        spark.sql(sql)


def test_on_query_and_history_record_what_each_query_did(spark, tables, received):
    seen = []
    queries = ["SELECT num FROM t WHERE num > 8 OR s = NULL",   # rewritten (NullPropagation...)
               "SELECT num FROM t WHERE num > 8",                 # left as written
               "SELECT nope FROM t"]                              # not a query of this catalog
    with hooks.install(spark, on_query=seen.append, history=2) as hook:
        for q in queries:
            try:
                spark.sql(q).collect()
            except Exception:  # Spark's own error for the last one
                pass
    assert [r.sql for r in seen] == queries
    first, second, third = seen
    assert first.rewritten and first.sent == received[0] != first.sql and first.rules
    assert any(f.code for f in first.findings)  # `s = NULL` is a finding
    assert not second.rewritten and second.sent == second.sql and second.rules == ()
    assert not third.rewritten and third.passthrough and "nope" in third.passthrough and third.error is None
    assert all(r.seconds >= 0 for r in seen)
    assert list(hook.history) == [second, third]  # bounded: the latest two
    assert first.to_dict()["findings"][0]["code"]


def test_a_failing_on_query_callback_is_logged_once_and_queries_run(spark, tables, caplog):
    def broken(record):
        raise ValueError("callback bug")

    with caplog.at_level(logging.WARNING, logger="sparkfold"), hooks.install(spark, on_query=broken):
        assert rows(spark.sql("SELECT num FROM t WHERE num > 9")) == [(10,)]
        assert rows(spark.sql("SELECT num FROM t WHERE num > 9")) == [(10,)]
    assert caplog.text.count("the on_query callback raised ValueError: callback bug") == 1


DBT_COMMENT = '/* {"app": "dbt", "dbt_version": "1.11.16", "profile_name": "p", "target_name": "local"} */\n'


def test_log_lines_name_the_statement_not_the_comment_it_opens_with(spark, tables, caplog):
    """dbt opens every statement with the same JSON comment: the findings and rewrites
    logged for a model must show its `create ... view <name>` instead, or they all read
    alike."""
    sql = (DBT_COMMENT + "create or replace temporary view sf_dbt_model as\n"
           "select num from t where num > 8 or s = NULL")
    hook = hooks.SqlHook(spark, report=True).install()
    try:
        with caplog.at_level(logging.INFO, logger="sparkfold"):
            spark.sql(sql)
    finally:
        hook.uninstall()
        spark.sql("DROP VIEW IF EXISTS sf_dbt_model")
    assert hook.rewritten == 1
    lines = [r.getMessage() for r in caplog.records if r.name == "sparkfold"]
    assert any("[null-comparison]" in m for m in lines) and any("rewrote (" in m for m in lines), lines
    assert all("create or replace temporary view sf_dbt_model as select num" in m for m in lines), lines
    assert not any('"app"' in m for m in lines), lines
    assert hooks.shown_statement("/* only a comment */") == "/* only a comment */"


def test_user_errors_are_left_to_spark(spark, tables):
    with hooks.install(spark) as hook:
        with pytest.raises(Exception) as info:
            spark.sql("SELECT nope FROM t")
    assert "nope" in str(info.value)  # Spark's own error, not sparkfold's
    assert hook.last_error is not None and hook.last is None


def test_opt_out_comment_passes_the_query_through(spark, tables, not_not, received):
    sql = "SELECT /* sparkfold:off */ num FROM t WHERE NOT NOT (num > 8)"
    with hooks.install(spark) as hook:
        got = rows(spark.sql(sql))
    assert got == [(9,), (10,)]
    assert received[-1] == sql and hook.last is None


def test_session_schemas_are_read_afresh_for_each_query(spark, tables):
    from tests.data import register

    with hooks.install(spark) as hook:
        register(spark, "hook_tmp", {"a": "int not null"}, [(1,)])
        spark.sql("SELECT a FROM hook_tmp")
        assert hook.last.analyzed.output[0].nullable is False
        register(spark, "hook_tmp", {"a": "int"}, [(None,)])
        spark.sql("SELECT a FROM hook_tmp")
        assert hook.last.analyzed.output[0].nullable is True


def test_optimize_expression_takes_and_returns_sqlglot(spark, tables, not_not):
    import sqlglot

    query = sqlglot.select("num", "s").from_("t").where("NOT NOT (num > 3)").where("s <> 'b'")
    out = hooks.optimize_expression(query, tables)
    assert isinstance(out, sqlglot.exp.Expression) and out is not query
    assert not double_not(out.sql(dialect="spark"))
    schema, got = run(spark, out.sql(dialect="spark"))
    assert (schema, sorted(got, key=repr)) == (lambda r: (r[0], sorted(r[1], key=repr)))(
        run(spark, query.sql(dialect="spark")))
    same = sqlglot.select("num").from_("t")
    assert hooks.optimize_expression(same, tables) is same


def test_optimize_expression_fails_open(not_not):
    import sqlglot

    query = sqlglot.select("nope").from_("t")
    assert hooks.optimize_expression(query, {"t": {"num": "int"}}) is query
    with pytest.raises(Exception, match="nope"):
        hooks.optimize_expression(query, {"t": {"num": "int"}}, strict=True)


def test_sql_rewriter_with_sqlalchemy_keeps_bind_parameters(not_not):
    import sqlalchemy as sa

    engine = sa.create_engine("sqlite://")
    rewrite = hooks.sql_rewriter({"t": {"num": "int not null", "s": "string"}})
    seen = []

    @sa.event.listens_for(engine, "before_cursor_execute", retval=True)
    def _optimize(conn, cursor, statement, parameters, context, executemany):
        out = rewrite(statement)
        seen.append(out)
        return out, parameters

    query = sa.text("SELECT num FROM t WHERE NOT NOT (num > :lo) ORDER BY num")
    with engine.connect() as conn:
        conn.execute(sa.text("CREATE TABLE t (num INTEGER NOT NULL, s TEXT)"))
        conn.execute(sa.text("INSERT INTO t VALUES (1, 'a'), (2, NULL), (3, 'c')"))
        assert conn.execute(query, {"lo": 1}).fetchall() == [(2,), (3,)]
    assert seen[0].startswith("CREATE TABLE")  # not a query: unchanged
    assert not double_not(seen[-1]) and seen[-1].count("?") == 1  # sqlite's paramstyle
    assert rewrite("SELECT nope FROM t") == "SELECT nope FROM t"  # fails open
    strict = hooks.sql_rewriter({"t": {"num": "int not null"}}, strict=True)
    with pytest.raises(Exception, match="unknown column `nope`"):
        strict("SELECT nope FROM t")
    assert rewrite.cache_info().hits >= 0


CONNECT_SCRIPT = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    import sparkfold.optimizer.hooks as hooks
    import sparkfold.optimizer.rewrite as rewriting
    from tests.connect_server import connect_session
    from sparkfold.optimizer import api
    from tests.test_hooks import NOT_NOT, double_not

    rewriting.optimize = lambda sql, cat, **kw: api.optimize(sql, cat, rules=[NOT_NOT], **kw)
    spark = connect_session("local[1]")
    assert type(spark).__module__.startswith("pyspark.sql.connect"), type(spark)
    spark.createDataFrame([(1, "a"), (2, None), (3, "c")], "num int not null, s string") \\
        .createOrReplaceTempView("t")
    sql = "SELECT num, s FROM t WHERE NOT NOT (num > :lo)"
    expected = sorted(spark.sql(sql, args={{"lo": 1}}).collect())
    with hooks.install(spark) as hook:
        got = sorted(spark.sql(sql, args={{"lo": 1}}).collect())
        assert hook.last is not None and hook.last.changed, hook.last_error
        assert not double_not(hook.last.sql)
        assert hook.last.analyzed.output[0].nullable is False  # the catalog came from the session
    assert "sql" not in vars(spark)
    assert got == expected and len(got) == 2, (got, expected)
    spark.stop()
    print("CONNECT-OK")
""")


@pytest.mark.connect
def test_hook_on_a_spark_connect_session(tmp_path):
    # A separate process: a classic and a Connect session do not mix in one process.
    script = tmp_path / "connect_hook.py"
    script.write_text(CONNECT_SCRIPT.format(root=ROOT))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert "CONNECT-OK" in proc.stdout, proc.stderr[-3000:]


@pytest.mark.parametrize("configured, expected", [
    (False, "sparkfold: SPARKFOLD=maybe is not one of on, lint, off: sparkfold stays off"),
    (True, "WARNING:sparkfold:SPARKFOLD=maybe is not one of on, lint, off: sparkfold stays off"),
])
def test_warnings_name_sparkfold_once(configured, expected):
    """On stderr as `sparkfold: ...` in a program that did not configure logging; in one
    that did (dbt calls logging.basicConfig), in its format, with no second prefix."""
    import subprocess
    import sys

    code = ("import logging\n" + ("logging.basicConfig()\n" if configured else "") +
            "from sparkfold.optimizer import autohook\nautohook.mode('maybe')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines() == [expected]


def test_install_reports_each_finding_once_at_its_level_with_the_python_line(spark, tables, caplog):
    """install() logs findings as `sparkfold run` and SPARKFOLD=on do: each at its own
    severity's level, once per query text (a statement sent again is counted, not logged
    again), naming the Python file and line that called spark.sql; report=False keeps
    optimizing and says nothing."""
    token = os.urandom(4).hex()  # texts no other test sent (findings are said once per process)
    warning_sql = f"SELECT num AS n_{token} FROM t WHERE num > 8 OR s = NULL"  # a null comparison: warning
    info_sql = f"SELECT count(num) AS c_{token} FROM t"                        # count of a NOT NULL column: info
    before = hooks.REPORTED.repeats
    with caplog.at_level(logging.INFO, logger="sparkfold"), hooks.install(spark) as hook:
        for _ in range(3):
            spark.sql(warning_sql).collect(); line = sys._getframe().f_lineno  # noqa: E702
        spark.sql(info_sql).collect()
    records = [r for r in caplog.records if r.name == "sparkfold" and "[" in r.getMessage()]
    by_code = {r.getMessage().split("[")[1].split("]")[0]: r for r in records}
    assert by_code["null-comparison"].levelno == logging.WARNING
    assert by_code["count-never-null"].levelno == logging.INFO
    assert sum("[null-comparison]" in r.getMessage() for r in records) == 1  # not three times
    assert by_code["null-comparison"].getMessage().startswith(f"tests/test_hooks.py:{line}: warning: ")
    assert hook.queries == 4 and hooks.REPORTED.repeats - before >= 2
    assert f"{hooks.REPORTED.repeats} repeats not logged again" in hook.summary()

    caplog.clear()
    with caplog.at_level(logging.INFO, logger="sparkfold"), hooks.install(spark, report=False) as quiet:
        df = spark.sql("SELECT num FROM t WHERE num < 3 OR x = NULL")
    assert quiet.rewritten == 1 and quiet.last_sql != "SELECT num FROM t WHERE num < 3 OR x = NULL"
    assert [r for r in caplog.records if r.name == "sparkfold"] == []
    assert run(spark, "SELECT num FROM t WHERE num < 3")[1] == sorted(map(tuple, df.collect())) or \
        sorted(run(spark, "SELECT num FROM t WHERE num < 3")[1]) == sorted(map(tuple, df.collect()))
