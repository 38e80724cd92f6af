"""`%load_ext sparkfold`: the `%%sparkfold` cell magic for Jupyter and IPython.

    %load_ext sparkfold

    %%sparkfold -o df
    SELECT o.id, c.name
    FROM orders o LEFT JOIN customers c ON o.cust = c.id
    WHERE c.country = 'NL'

Each statement of the cell (split at its top-level semicolons) is linted and optimized
against the active Spark session's schemas and settings (`Catalog.from_spark`, as the
`spark.sql` hook reads them, afresh for each statement, so a view an earlier statement of
the cell made is seen), then run on that session: the optimized text, or the text as
written with `--lint-only`.  The cell shows one report (the findings marked on the
source, the rewrites; optimizer/notebook_html.py) and its value is the last statement's
DataFrame.  Nothing sparkfold cannot read stops a statement Spark can run: such a
statement runs as written, and the report says why sparkfold passed it through.  A
statement neither can run (a syntax error, an unknown table) stops the cell with its
error, placed in the cell, and no traceback.

This module imports IPython: it is read by `load_ipython_extension` only (the package's
`__init__`), so that `import sparkfold` never does.
"""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from ..plans.ir.errors import InternalError, SparkfoldError
from .explain import Where
from .notebook_html import error_section, fragment, section

CELL = "cell"  # what positions are given in: `cell:3:7`


class SparkfoldCellError(Exception):
    """A statement of the cell that neither sparkfold nor Spark could run.  IPython shows
    an exception with `_render_traceback_` as the lines it returns: the error, placed in
    the cell, without a traceback into sparkfold or PySpark."""

    def __init__(self, lines: list[str]):
        super().__init__(lines[0] if lines else "")
        self.lines = lines

    def _render_traceback_(self) -> list[str]:
        return self.lines


class CellReport:
    """What the magic shows: one section per statement (HTML for a notebook, text for a
    terminal)."""

    def __init__(self) -> None:
        self.html: list[str] = []
        self.text: list[str] = []

    def _repr_html_(self) -> str:
        return fragment(self.html)

    def __repr__(self) -> str:
        return "\n".join(self.text)


@magics_class
class SparkfoldMagics(Magics):
    @magic_arguments()
    @argument("-o", "--out", metavar="NAME",
              help="Also store the cell's DataFrame in the variable NAME (with --no-run: the last "
                   "statement's OptimizeResult).")
    @argument("--lint-only", action="store_true",
              help="Show the findings and the rewrites, but run the SQL as written.")
    @argument("--no-run", action="store_true",
              help="Show the findings and the rewrites; run nothing (the cell has no value).")
    @argument("--exclude-rule", action="append", default=[], metavar="RULE",
              help="Leave out this rule (repeatable), like spark.sql.optimizer.excludedRules.")
    @argument("--spark", metavar="NAME",
              help="The variable holding the SparkSession (default: the active session, else `spark`).")
    @cell_magic
    def sparkfold(self, line: str, cell: str) -> Any:
        """Lint, optimize and run the cell's Spark SQL on the active Spark session.

        Each statement (split at top-level semicolons) is analyzed against the session's
        schemas and settings (ANSI mode included: the mode the query runs in), its findings
        are marked on the source and its rewrites shown, and then it runs: the optimized
        SQL, or the SQL as written with --lint-only.  The cell's value is the last
        statement's DataFrame (set spark.sql.repl.eagerEval.enabled to see its rows).

        A statement sparkfold cannot analyze (not a query, or SQL it does not model) runs
        as written.  One that Spark cannot run either (a syntax error, an unknown table)
        stops the cell with its error, placed in the cell (`cell:line:column`).

        Examples::

            %%sparkfold
            SELECT num FROM t WHERE x = NULL

            %%sparkfold --lint-only -o df
            SELECT * FROM t LEFT JOIN u ON t.num = u.num WHERE u.s = 'a'
        """
        args = parse_argstring(self.sparkfold, line)
        if not cell.strip():
            raise UsageError("%%sparkfold: the cell has no SQL")
        from .sources import check_rules

        try:
            exclude = check_rules(args.exclude_rule, "--exclude-rule")
        except SparkfoldError as e:
            raise UsageError(e.message) from None
        spark = self._session(args.spark)
        _, value, last = run_cell(cell, spark, exclude, lint_only=args.lint_only, run=not args.no_run)
        if args.out:
            self._namespace()[args.out] = value if not args.no_run else last
        return value

    def _namespace(self) -> dict[str, Any]:
        assert self.shell is not None  # (a magic runs in a shell)
        return self.shell.user_ns

    def _session(self, name: str | None) -> Any:
        ns = self._namespace()
        if name:
            if name not in ns:
                raise UsageError(f"--spark {name}: no variable {name} in the notebook")
            return ns[name]
        try:
            from pyspark.sql import SparkSession
        except ImportError:
            raise UsageError("%%sparkfold runs on a Spark session: pip install 'sparkfold[spark]'") from None
        found: Any = SparkSession.getActiveSession()
        if found is None:
            try:
                from pyspark.sql.connect.session import SparkSession as ConnectSession

                found = ConnectSession.getActiveSession()
            except Exception:  # noqa: BLE001 - the Connect client's dependencies may be missing
                found = None
        if found is None and hasattr(ns.get("spark"), "sql"):
            found = ns["spark"]
        if found is None:
            raise UsageError("%%sparkfold: no active Spark session; start one "
                             "(SparkSession.builder.getOrCreate()) or name it with --spark NAME")
        return found


def run_cell(cell: str, spark: Any, exclude: tuple[str, ...] = (), *, lint_only: bool = False,
             run: bool = True) -> tuple[CellReport, Any, Any]:
    """Optimize and run each statement of `cell` in turn; display the report.  Returns
    the report, the last statement's DataFrame (None when nothing ran) and the last
    statement's OptimizeResult.  A statement that cannot run raises SparkfoldCellError,
    after the report of the statements before it and of it is displayed."""
    from IPython.display import display

    from .sources import Source, position, statements

    report = CellReport()
    value = last = None
    # (IPython gives the cell without its first line, the magic's: the positions are the
    # cell's, as the notebook numbers its lines)
    for st in statements(Source(CELL, "\n" + cell)):
        where = Where(CELL, *position(st, 1, 1))
        try:
            value, last = _statement(st.text, where, spark, exclude, lint_only, run, report)
        except SparkfoldCellError:
            display(report)
            raise
    display(report)
    return report, value, last


def _statement(text: str, where: Where, spark: Any, exclude: tuple[str, ...], lint_only: bool, run: bool,
               report: CellReport) -> tuple[Any, Any]:
    from ..plans.sql_in.catalog import Catalog
    from .explain import explain_dict
    from .hooks import first_line, rewrite

    try:
        sent, result = rewrite(text, Catalog.from_spark(spark), exclude=exclude)
    except SparkfoldError as e:  # not SQL sparkfold can read: Spark may still run it
        return _unread(text, where, spark, e, run, report), None
    doc = explain_dict(result) if result is not None else {"original_sql": text}
    shown = text if lint_only else sent
    if not run:
        note = "not run (--no-run)"
    elif result is None:
        note = "ran as written (/* sparkfold:off */)"
    elif lint_only and sent != text:
        note = "ran as written (--lint-only)"
    else:
        note = "ran the optimized query" if sent != text else "ran as written"
    df = error = None
    if run:
        sql = _plain_sql(spark)
        try:
            df = sql(shown)
        except Exception as e:  # noqa: BLE001 - Spark's error, whatever its class
            if shown == text:
                _add(report, section(doc, where, note="not run"), _text(doc, where, "not run"))
                raise _spark_error(text, where, e, report) from None
            # Spark rejected the optimized text: a sparkfold bug, unless the original fails too
            try:
                df = sql(text)
            except Exception as again:  # noqa: BLE001
                _add(report, section(doc, where, note="not run"), _text(doc, where, "not run"))
                raise _spark_error(text, where, again, report) from None
            note = "ran as written"
            error = (f"Spark rejected the optimized SQL ({type(e).__name__}: {first_line(e)}); "
                     f"please report this as a bug")
    _add(report, section(doc, where, note=note, error=error), _text(doc, where, note, error))
    return df, result


def _unread(text: str, where: Where, spark: Any, e: SparkfoldError, run: bool, report: CellReport) -> Any:
    """A statement sparkfold could not read: run as written when Spark can run it,
    else its error, placed in the cell (sparkfold's message: it has the position)."""
    from .sources import in_statement

    message, line, column = in_statement(e)
    if isinstance(e, InternalError):
        message = f"internal error: {message}"
    if run:
        try:
            df = _plain_sql(spark)(text)
        except Exception as spark_error:  # noqa: BLE001
            return _fail(text, where, message, line, column, report, spark_error)
        doc = {"original_sql": text, "passthrough": f"sparkfold could not analyze it: {message}"}
        _add(report, section(doc, where, note="ran as written"), _text(doc, where, "ran as written"))
        return df
    return _fail(text, where, message, line, column, report, None)


def _plain_sql(spark: Any) -> Any:
    """The session's own `spark.sql`, without a sparkfold hook in front of it (`install`,
    `sparkfold run`, SPARKFOLD=on): the magic runs exactly the text it says it runs (the
    SQL as written, with --lint-only), and its findings are not logged a second time."""
    import functools

    from .autohook import _PATCHED

    cls = type(spark)
    return functools.partial(getattr(cls, _PATCHED, None) or cls.sql, spark)


def _fail(text: str, where: Where, message: str, line: int, column: int, report: CellReport,
          spark_error: BaseException | None) -> Any:
    from .hooks import first_line

    l, c = where.position(line, column)
    head = f"{where.name}:{l}:{c}: error: {message}"
    note = f"Spark: {first_line(spark_error)}" if spark_error is not None else None
    report.html.append(error_section(text, message, line, column, where, note="not run", detail=note))
    report.text.append(head)
    raise SparkfoldCellError([head] + ([note] if note else []))


def _spark_error(text: str, where: Where, e: BaseException, report: CellReport) -> SparkfoldCellError:
    """Spark's error for a statement sparkfold read: its first line (Spark's error class
    and message), without PySpark's traceback."""
    from .hooks import first_line

    head = f"{where.name}:{where.line}: error: Spark: {first_line(e)}"
    report.text.append(head)
    report.html.append(error_section("", f"Spark: {first_line(e)}", None, None, where, note="not run"))
    return SparkfoldCellError([head])


def _add(report: CellReport, html: str, text: list[str]) -> None:
    report.html.append(html)
    report.text.extend(text)


def _text(doc: dict, where: Where, note: str, error: str | None = None) -> list[str]:
    findings = doc.get("findings") or []
    rewrites = doc.get("rewrites") or []
    changed = bool(doc.get("changed")) and doc.get("sql") != doc.get("original_sql")
    state = f"passed through ({doc['passthrough']})" if doc.get("passthrough") else \
        f"{len(rewrites)} rewrites" if changed else "unchanged"
    out = [f"sparkfold {where.name}:{where.line}: {state}, {len(findings)} findings; {note}"]
    if error:
        out.append(f"  {error}")
    for f in findings:
        line, column = where.position(f["line"], f["column"])
        out.append(f"{where.name}:{line}:{column}: {f['severity']}: {f['message']} [{f['code']}]")
    if changed:
        out += ["optimized:", *("  " + s for s in (doc.get("sql") or "").split("\n"))]
    return out


def load(ipython: Any) -> None:
    """Register the magics on an IPython shell (`%load_ext sparkfold`)."""
    ipython.register_magics(SparkfoldMagics)
