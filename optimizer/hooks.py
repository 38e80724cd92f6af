"""Put sparkfold in front of code that already produces SQL.

Three hooks, all failing open (a problem inside sparkfold never stops the query: the
original SQL runs and a warning is logged on the ``sparkfold`` logger):

- ``install(spark)``: wraps ``spark.sql`` on one session (classic or Spark Connect), so
  every query is optimized before Spark sees it::

      from sparkfold.optimizer.hooks import install
      with install(spark) as hook:           # or: hook = install(spark); ...; hook.uninstall()
          df = spark.sql("SELECT count(num) FROM t WHERE num = :v", args={"v": 3})
          print(hook.last.sql, hook.last.findings)

- ``optimize_expression(expression, catalog)``: a sqlglot expression in (for example one
  built with ``sqlglot.select(...).from_(...).where(...)``), a sqlglot expression out.

- ``sql_rewriter(catalog)``: a plain ``str -> str`` callable for anything that emits SQL
  strings, for example a SQLAlchemy engine talking to a Spark SQL endpoint::

      from sqlalchemy import event
      rewrite = sql_rewriter({"t": {"num": "int not null"}})

      @event.listens_for(engine, "before_cursor_execute", retval=True)
      def _optimize(conn, cursor, statement, parameters, context, executemany):
          return rewrite(statement), parameters      # bind parameters untouched

Parameter markers (``?``, ``:name``, and the pyformat ``%s`` and ``%(name)s`` of PyHive and
the SQLAlchemy Hive/Spark dialects, with ``%%`` for ``%``) are kept (``optimizer/rewrite.py``).
A query that contains the comment ``/* sparkfold:off */`` is passed through untouched.
"""

from __future__ import annotations

import collections
import functools
import logging
import os
import re
import sys
import threading
import time
from types import FrameType
from typing import Any, Callable, Iterable

from ..plans.ir import logical as L
from ..plans.ir.errors import InternalError, SparkfoldError
from ..plans.ir.records import as_dict, record
from ..plans.sql_in.catalog import Catalog, session_settings
from .api import OptimizeResult
from .hook_cache import Results, SessionSchemas, all_in_fingerprint, checkable
from .logger import log
from .rewrite import (  # noqa: F401 - (the hooks' public names since before rewrite.py)
    OPT_OUT,
    _name_positional_markers,
    _restore_positional_markers,
    opted_out,
    rewrite,
)
from .statements import holds_no_query

# A finding is logged at its own severity's level: an info-level one (count(x) of a
# never-NULL x) is not a warning.
LEVELS = {"info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}


class _Reported:
    """The findings already logged in this process, by the text they were found in: a
    program that sends one statement again and again (an EM loop, a dashboard) hears of
    each finding once, and the repeats are counted (the summary says how many)."""

    LIMIT = 100_000  # keys kept (a text's hash, the finding's code and place): a few MB at most

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._keys: dict[tuple, None] = {}
        self.repeats = 0

    def first(self, key: tuple) -> bool:
        with self._lock:
            if key in self._keys:
                self.repeats += 1
                return False
            self._keys[key] = None
            if len(self._keys) > self.LIMIT:  # forget the oldest: at worst said twice
                del self._keys[next(iter(self._keys))]
            return True


REPORTED = _Reported()
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the sparkfold package
_OWN = tuple(os.path.join(_ROOT, folder) + os.sep for folder in ("optimizer", "rules", "plans"))


def _reason(message: str) -> str:
    """What a pass-through is counted under: its reason without the query's particulars
    (`generator explode() in an expression: ...` -> `generator explode() in an expression`)."""
    head = message.split(": ", 1)[0].strip()
    return head if len(head) <= 80 else head[:77] + "..."


def caller() -> str | None:
    """`file:line` of the program's call that sent the query: the first frame outside
    sparkfold and PySpark (what a finding is about, in the user's Python)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if not (name.startswith(_OWN) or f"{os.sep}pyspark{os.sep}" in name or name.startswith("<frozen")):
            try:
                shown = os.path.relpath(name)
            except ValueError:  # another drive
                shown = name
            return f"{name if shown.startswith('..') else shown}:{frame.f_lineno}"
        frame = frame.f_back
    return None


# -- the spark.sql hook --------------------------------------------------------------

@record(frozen=True)
class QueryRecord:
    """What the hook did with one `spark.sql` call (passed to `on_query`, kept in
    `SqlHook.history`)."""

    sql: str                   # the query as the program gave it (formatted, if it was)
    sent: str                  # the text Spark received
    rewritten: bool            # sparkfold's text was sent (lint mode: it would have been)
    rules: tuple[str, ...]     # the rules that rewrote it
    findings: tuple            # optimizer.findings.Finding, each with line, column, code
    passthrough: str | None    # why sparkfold left it as written (not a query it models)
    error: str | None          # an internal error, or Spark rejecting the optimized text
    seconds: float             # sparkfold's own time for it

    def to_dict(self) -> dict:
        out = as_dict(self)
        out["findings"] = [f.to_dict() if hasattr(f, "to_dict") else str(f) for f in self.findings]
        return out


class SqlHook:
    """The handle `install` returns: `.uninstall()`, a context manager, and what the
    last query did: `.last` (the OptimizeResult, None when it was passed through; also
    `.trace` and `.findings`), `.last_sql` (the text Spark received), `.last_error`.
    `.history` keeps a `QueryRecord` of the latest queries (`history` of them, 100 by
    default), and `on_query(record)` is called after each one is sent."""

    def __init__(self, spark: Any, catalog: Any = None, strict: bool = False,
                 exclude: Iterable[str] = (), *, lint_only: bool = False, report: bool = False,
                 original: Callable[..., Any] | None = None,
                 on_query: Callable[[QueryRecord], Any] | None = None, history: int = 100,
                 cache_size: int = 256):
        self.spark = spark
        self.strict = strict
        self.exclude = tuple(exclude)
        self.lint_only = lint_only  # find, report, but send the query as written
        self.report = report        # log each finding (WARNING) and rewrite (INFO)
        self._catalog = Catalog.coerce(catalog) if catalog is not None else None
        self._had_instance_attr = "sql" in vars(spark)
        self._original: Callable[..., Any] = original if original is not None else spark.sql
        self.wrapper = self._sql  # one bound method, so that identity tells it is ours
        self._installed = False
        self._local = threading.local()
        self.last: OptimizeResult | None = None
        self.last_sql: str | None = None  # the text the last query was sent to Spark as
        self.last_error: BaseException | None = None
        self.queries = 0
        self.rewritten = 0        # queries whose optimized text differs (lint_only: would differ)
        self.findings_seen = 0
        self.internal_errors = 0
        self.passed_through: collections.Counter[str] = collections.Counter()  # by reason
        self.on_query = on_query
        self.history: collections.deque[QueryRecord] = collections.deque(maxlen=max(history, 0))
        # the outcomes of the latest statements, and the session's schemas between
        # queries (optimizer/hook_cache.py: both re-verified before each use)
        self.results = Results(cache_size)
        # (a classic session: its settings, and the tokens of its tables, in one JVM call)
        self._session = SessionSchemas(spark) if getattr(spark, "_jsparkSession", None) is not None else None
        self._schemas = self._session if catalog is None else None
        self._callback_failed = False
        # each statement's tables checked by token when its result was kept: the first
        # probe of the text sent again asks for them, with the settings, in one call
        self._hints: dict[str, tuple[str, ...]] = {}

    def summary(self) -> str:
        """One line of what the hook did: queries, rewritten, passed through (by reason),
        findings (and how many of them were repeats, not logged again)."""
        return summary_line(self.queries, self.rewritten, self.passed_through, self.findings_seen,
                            self.internal_errors, REPORTED.repeats, self.lint_only)

    # what the last query did
    @property
    def trace(self):
        return self.last.trace if self.last is not None else None

    @property
    def findings(self) -> list:
        return list(self.last.findings) if self.last is not None else []

    def catalog(self) -> Catalog:
        """A catalog for the next query.  Without an explicit catalog, the session's: the
        hook keeps the schemas it read between queries (a classic session), and checks
        after each query that every one it used still holds (optimizer/hook_cache.py), so
        a temp view replaced since the last query is never seen with its old schema (and
        old nullability).  An explicit catalog gives the schemas; the session's settings
        (ANSI mode...) are read afresh for every query."""
        if self._catalog is None:
            return Catalog.from_spark(self.spark)
        snap = self._session.snapshot() if self._session is not None else None
        return self._catalog.with_settings(**(snap.settings if snap is not None else session_settings(self.spark)))

    def clear_cache(self) -> None:
        """Forget the statements' outcomes kept for reuse (the schemas are re-verified
        at every use anyway)."""
        self.results.clear()

    def install(self) -> "SqlHook":
        if not self._installed:
            if self._session is not None:
                self._session.prepare()
            self.spark.sql = self.wrapper  # instance attribute: this session only
            self._installed = True
        return self

    def uninstall(self) -> None:
        """Restore the session's own `spark.sql` (idempotent)."""
        if not self._installed:
            return
        current = vars(self.spark).get("sql")
        if current is not self.wrapper:
            log.warning("spark.sql was replaced again after the hook was installed; "
                        "leaving it as it is")
            self._installed = False
            return
        if self._had_instance_attr:
            self.spark.sql = self._original
        else:
            del self.spark.sql
        self._installed = False

    @property
    def installed(self) -> bool:
        return self._installed

    def __enter__(self) -> "SqlHook":
        return self

    def __exit__(self, *exc) -> None:
        self.uninstall()

    # the wrapper ---------------------------------------------------------------
    def _sql(self, sqlQuery: str, args: Any = None, **kwargs: Any):
        if getattr(self._local, "busy", False):  # spark.sql called from inside sparkfold
            return self._original(sqlQuery, args, **kwargs)
        self._local.busy = True
        t0 = time.perf_counter()
        try:
            text = self._formatted(sqlQuery, kwargs)
            if text is None:  # DataFrames or Columns in kwargs: Spark formats them itself
                self.last, self.last_sql = None, sqlQuery
                self.last_error = None
                self._record(sqlQuery, sqlQuery, time.perf_counter() - t0)
                return self._original(sqlQuery, args, **kwargs)
            optimized = self._optimize(text)
        finally:
            self._local.busy = False
        seconds = time.perf_counter() - t0
        self.last_sql = text
        if optimized == text or self.lint_only:
            self._record(text, text, seconds, would_rewrite=optimized != text)
            return self._original(text, args)
        try:
            df = self._original(optimized, args)
            self.last_sql = optimized
            self._record(text, optimized, seconds)
            return df
        except Exception as e:
            # Spark rejected the optimized text: a sparkfold bug unless the original fails too
            df = self._original(text, args)
            self._failed(InternalError(f"Spark rejected the optimized SQL ({type(e).__name__}: "
                                       f"{first_line(e)}); please report this as a bug"))
            self._record(text, text, seconds)
            return df

    def _record(self, sql: str, sent: str, seconds: float, would_rewrite: bool = False) -> None:
        if self.history.maxlen == 0 and self.on_query is None:
            return
        result = self.last
        rewritten = sent != sql or would_rewrite
        error = self.last_error
        record = QueryRecord(
            sql=sql, sent=sent, rewritten=rewritten,
            rules=tuple(sorted({step.rule for step in result.trace.rewrites})) if result is not None and rewritten
            else (),
            findings=tuple(result.findings) if result is not None else (),
            passthrough=(result.passthrough if result is not None else
                         (getattr(error, "message", None) if error is not None
                          and not isinstance(error, InternalError) else None)),
            error=first_line(error) if isinstance(error, InternalError) or
            (error is not None and not isinstance(error, SparkfoldError)) else None,
            seconds=seconds)
        self.history.append(record)
        if self.on_query is not None:
            try:
                self.on_query(record)
            except Exception as e:  # the program's callback must not break its queries
                if not self._callback_failed:
                    self._callback_failed = True
                    log.warning("the on_query callback raised %s: %s (said once)",
                                type(e).__name__, first_line(e))

    def _formatted(self, sql: str, kwargs: dict) -> str | None:
        """`spark.sql(text, **kwargs)` formats the text first; do it the same way when the
        values are plain (strings become SQL literals), else leave it to Spark."""
        if not kwargs:
            return sql
        if any(_is_spark_object(v) for v in kwargs.values()):
            return None
        if type(self.spark).__module__.startswith("pyspark.sql.connect"):
            from pyspark.sql.connect.sql_formatter import SQLStringFormatter
        else:  # (pyspark gives the classic and the Connect formatter no common type)
            from pyspark.sql.sql_formatter import SQLStringFormatter  # type: ignore[assignment]
        return SQLStringFormatter(self.spark).format(sql, **kwargs)

    def _optimize(self, sql: str) -> str:
        self.queries += 1
        self.last = None
        self.last_error = None
        if holds_no_query(sql):  # SET, USE, DROP, SHOW...: nothing to read, nothing to rewrite
            return sql
        try:
            out, result = self._rewritten(sql)
        except SparkfoldError as e:
            if self.strict:
                raise
            if isinstance(e, InternalError):
                self._failed(e)
            else:  # not a query sparkfold can read: Spark will say what is wrong, if anything
                self.last_error = e
                self.passed_through[_reason(e.message)] += 1
                log.info("query passed through unchanged: %s", e.message)
            return sql
        except Exception as e:  # a bug: fail open
            if self.strict:
                raise InternalError(f"{type(e).__name__}: {e}") from e
            self._failed(e)
            return sql
        self._count(sql, out, result)
        return out

    def _rewritten(self, sql: str) -> tuple[str, OptimizeResult | None]:
        """The text to send and the result, reused when the same statement was optimized
        under the same settings over schemas that still hold (clients send one text again
        and again: ibis twice per query, an EM loop, a dashboard)."""
        if self._schemas is None:
            catalog = self.catalog()
            key = (sql, catalog.settings)
            hit = self.results.get(key, lambda schemas: _same_schemas(catalog, schemas))
            if hit is not None:
                return hit
            out, result = rewrite(sql, catalog, exclude=self.exclude)
            schemas = _schemas_read(result)
            if schemas is not None and not catalog.asked_functions:  # (nor a session variable)
                self.results.put(key, (out, result), schemas)
            return out, result
        for _ in range(2):  # a second time if a kept schema turned out not to hold
            # one JVM call: the settings, and the tokens of the tables this text read last
            # time (what a kept result for it is checked against)
            snap = self._schemas.snapshot(self._hints.get(sql, ()))
            state = snap.state if snap is not None else None
            reads = _Reads(self._schemas, snap is not None)
            session = Catalog.from_spark(self.spark, snap.settings if snap is not None else None)
            catalog = reads.catalog(session)
            key = (sql, catalog.settings)
            hit = self.results.get(key, lambda depends: self._still_holds(session, snap, *depends))
            if hit is not None:
                return hit
            try:
                out, result = rewrite(sql, catalog, exclude=self.exclude)
            except SparkfoldError:
                # read against a kept schema, the error may be the schema's: a view made
                # again with other columns (ibis's TPC-H `customer`, then TPC-DS's) gave
                # `unknown column` for every query over it.  Tried again if one was stale
                if reads.reused and self._schemas.verified(reads.fresh, reads.reused, reads.pre, state) is None:
                    continue
                raise
            depends = self._schemas.verified(reads.fresh, reads.reused, reads.pre, state)
            if depends is not None or not reads.reused:  # (every schema read during the query: as without keeping any)
                if depends is not None and result is not None and not reads.unchecked \
                        and not catalog.asked_functions:
                    # a view whose definition was read is looked up again before reuse (neither
                    # its token nor its fingerprint shows the definition); the other tables are
                    # checked by their tokens (one call), else their fingerprints (one more)
                    views = tuple(sorted((n, s) for n, s in reads.fresh.items()
                                         if depends[n][0] != "token" and not all_in_fingerprint(s)))
                    seen = {n for n, _ in views}
                    kept = {n: depends[n] for n in sorted(depends) if n not in seen}
                    self.results.put(key, (out, result), (kept, views))
                    self._hints[sql] = tuple(n for n, (kind, _) in kept.items() if kind == "token")
                    if len(self._hints) > max(self.results.limit, 1) * 2:
                        self._hints.clear()  # (only what the first probe asks for)
                return out, result
        # tables changing while we read them: as read now
        return rewrite(sql, Catalog.from_spark(self.spark), exclude=self.exclude)

    def _still_holds(self, session: Catalog, snap: Any, kept: dict[str, tuple[str, str]], views: tuple) -> bool:
        """Does a kept result still hold: the tables it read are the same objects (their
        tokens, `snap`'s when it asked for them) or have the fingerprints it was verified
        against (`kept`), and each view whose definition it read (`views`: (name, schema))
        reads the same definition now, under the same settings and in the same database
        (looked up in the session again, as for a query, and compared whole)?"""
        if not self._schemas.current(kept, snap):  # type: ignore[union-attr]
            return False
        load = session.loader
        assert load is not None
        return all(load(name) == schema for name, schema in views)

    def _count(self, sql: str, out: str, result: OptimizeResult | None) -> None:
        """What one query did, for the counts and the report (a repeated text too: its
        findings are counted again, and logged only the first time)."""
        self.last = result
        if out != sql:
            self.rewritten += 1
        if result is not None:
            self.findings_seen += len(result.findings)
            if result.passthrough is not None:
                self.passed_through[_reason(result.passthrough)] += 1
            if self.report:
                self._report(sql, out, result)

    def _report(self, sql: str, out: str, result: OptimizeResult) -> None:
        shown = shown_statement(sql)
        where = None
        for f in result.findings:
            level = LEVELS.get(f.severity, logging.WARNING)
            if not log.isEnabledFor(level) or not REPORTED.first((hash(sql), f.code, f.line, f.column)):
                continue
            where = where or caller() or "<query>"
            log.log(level, "%s: %s: %s [%s] (query line %s, column %s: %s)", where, f.severity, f.message,
                    f.code, f.line, f.column, shown)
        if out != sql and log.isEnabledFor(logging.INFO) and REPORTED.first((hash(sql), "rewrote")):
            rules = sorted({step.rule for step in result.trace.rewrites})
            log.info("rewrote (%s%s): %s", ", ".join(rules), "; sent as written" if self.lint_only else "",
                     shown)

    def _failed(self, error: BaseException) -> None:
        self.last_error = error
        self.internal_errors += 1
        if self.strict:
            raise error
        log.warning("running the original SQL after an internal error: %s",
                    first_line(error), exc_info=log.isEnabledFor(logging.DEBUG))


class _Reads:
    """The tables one query read from the session: kept schemas reused, schemas read
    afresh (to keep once their fingerprint confirms them), and whether any was one the
    check cannot read (a name it cannot quote, a table of unknown qualifier: read afresh
    every time, and the result is not kept)."""

    def __init__(self, schemas: SessionSchemas, probe: bool = False):
        self._schemas = schemas
        self._probe = probe
        self.fresh: dict[str, Any] = {}
        self.pre: dict[str, str | None] = {}  # each fresh name's token, taken just before its read
        self.reused: dict[str, Any] = {}  # name -> what was kept for it when the query used it
        self.unchecked = False

    def catalog(self, session: Catalog) -> Catalog:
        read = session.loader
        assert read is not None

        def load(name: str):
            kept = self._schemas.kept_entry(name)
            if kept is not None:
                self.reused[name] = kept
                return kept[1]
            before = self._schemas.snapshot([name]) if self._probe and checkable(name) else None
            schema = read(name)
            if schema is not None:
                if checkable(name) and schema.qualifier:
                    self.fresh[name] = schema
                    self.pre[name] = before.tokens.get(name) if before is not None else None
                else:
                    self.unchecked = True
            return schema

        return session.with_loader(load)


def _schemas_read(result: OptimizeResult | None) -> tuple | None:
    """The (name, schema) of each table an explicit catalog gave the query, and of those
    read through its views' definitions (what its reuse depends on); None when that
    cannot be said (not analyzed)."""
    if result is None or result.analyzed is None:
        return None
    try:
        names = {node.table for node in L.relations(result.analyzed)} | set(result.view_reads)
        return tuple((name, result.catalog.lookup(name)) for name in sorted(names))
    except SparkfoldError:
        return None


def _same_schemas(catalog: Catalog, schemas: tuple) -> bool:
    try:
        return all(catalog.lookup(name) == schema for name, schema in schemas)
    except SparkfoldError:
        return False


_LEADING_COMMENTS = re.compile(r"\A(?:\s+|/\*.*?\*/|--[^\n]*)+", re.DOTALL)


def shown_statement(sql: str, width: int = 80) -> str:
    """The start of a statement on one line, to say which one a log line is about.  The
    comments it opens with are left out: dbt opens every statement with the same
    `/* {"app": "dbt", ...} */`, and what tells the models apart is what follows
    (`create table schema.model ...`)."""
    body = _LEADING_COMMENTS.sub("", sql) or sql
    shown = " ".join(body.split())
    return shown if len(shown) <= width else shown[:width - 3] + "..."


def _is_spark_object(value: Any) -> bool:
    module = type(value).__module__ or ""
    return module.startswith("pyspark.") and type(value).__name__ in ("DataFrame", "Column")


def first_line(e: BaseException) -> str:
    text = getattr(e, "message", None) or str(e)
    return text.strip().splitlines()[0] if text.strip() else type(e).__name__


def summary_line(queries: int, rewritten: int, passed_through: collections.Counter, findings: int,
                 errors: int, repeats: int, lint_only: bool = False, where: str = "") -> str:
    """`sparkfold: N queries: R rewritten, P passed through (by reason), F findings`."""
    through = sum(passed_through.values())
    reasons = "; ".join(f"{k}: {why}" for why, k in passed_through.most_common(5))
    return (f"sparkfold: {queries} quer{'y' if queries == 1 else 'ies'}{where}: {rewritten} "
            f"{'could be rewritten (sent as written)' if lint_only else 'rewritten'}, {through} passed through"
            f"{f' ({reasons})' if reasons else ''}, {findings} finding{'' if findings == 1 else 's'}"
            + (f" ({repeats} repeats not logged again)" if repeats else "")
            + (f", {errors} internal errors (the original SQL ran)" if errors else ""))


def install(spark: Any, catalog: Any = None, strict: bool = False, *,
            exclude: Iterable[str] = (), on_query: Callable[[QueryRecord], Any] | None = None,
            history: int = 100, report: bool = True, cache_size: int = 256) -> SqlHook:
    """Optimize every query of `spark.sql` on this session before Spark sees it.

    `catalog`: the schemas to optimize against (a `plans.Catalog`, a mapping, a JSON
    path); by default they are read from the session for each query.  `strict`: raise
    instead of failing open.  `exclude`: rule names not to run.  `on_query`: called with a
    `QueryRecord` after each query is sent; `history`: how many records the handle keeps
    (`.history`).  `report`: log each finding on the `sparkfold` logger at its severity's
    level, once per query text, with the Python file and line that sent the query (as
    `sparkfold run` and `SPARKFOLD=on` do), and log a summary at exit at INFO; False
    keeps optimizing and says nothing (`.history` and `on_query` still see every finding).
    `cache_size`: how many statements' outcomes are kept for reuse (LRU; 0 keeps none):
    one sent again is not optimized again while the session's settings and the schemas
    of the tables it reads are the same (checked at each use).
    Returns the handle."""
    hook = SqlHook(spark, catalog, strict, exclude, on_query=on_query, history=history, report=report,
                   cache_size=cache_size)
    if report:
        import atexit

        atexit.register(_log_summary, hook)
    return hook.install()


def _log_summary(hook: SqlHook) -> None:
    if hook.queries:
        log.info("%s", hook.summary())


# -- sqlglot and plain-string hooks ----------------------------------------------------

def optimize_expression(expression: Any, catalog: Any, *, strict: bool = False,
                        exclude: Iterable[str] = ()) -> Any:
    """Optimize a sqlglot expression (read as Spark SQL) and return a sqlglot expression;
    the very same object when nothing changed.  Fails open unless `strict`."""
    import sqlglot

    cat = Catalog.coerce(catalog)  # a bad catalog is the caller's error: raised
    try:
        sql = expression.sql(dialect="spark")
        out, _ = rewrite(sql, cat, exclude=exclude)
        if out == sql:
            return expression
        return sqlglot.parse_one(out, read="spark")
    except Exception as e:
        _fail_open(e, strict)
        return expression


def sql_rewriter(catalog: Any, *, strict: bool = False, exclude: Iterable[str] = (),
                 cache_size: int = 1024) -> Callable[[str], str]:
    """A `str -> str` function that optimizes one SQL statement, keeping bind parameters
    (`?`, `:name`, `%s`, `%(name)s`) as they are.  Anything it cannot or need not optimize comes back
    unchanged.  Results are cached by text (`cache_size` statements)."""
    cat = Catalog.coerce(catalog)
    exclude = tuple(exclude)

    @functools.lru_cache(maxsize=cache_size)
    def cached(sql: str) -> str:
        return rewrite(sql, cat, exclude=exclude)[0]

    def rewriter(sql: str) -> str:
        try:
            return cached(sql)
        except Exception as e:
            _fail_open(e, strict)
            return sql

    rewriter.cache_info = cached.cache_info  # type: ignore[attr-defined]
    return rewriter


def _fail_open(e: Exception, strict: bool) -> None:
    """Raise (strict: sparkfold's error, or an InternalError for a bug), else log."""
    if strict:
        if isinstance(e, SparkfoldError):
            raise e
        raise InternalError(f"{type(e).__name__}: {e}") from e
    if isinstance(e, SparkfoldError) and not isinstance(e, InternalError):
        log.info("SQL passed through unchanged: %s", e.message)
    else:
        log.warning("SQL passed through unchanged after an internal error: %s",
                    first_line(e))


__all__ = ["install", "SqlHook", "QueryRecord", "optimize_expression", "sql_rewriter", "rewrite", "opted_out",
           "OPT_OUT"]
