"""The public entry point: `optimize(sql, catalog)`.

    from sparkfold import optimize
    result = optimize("SELECT count(DISTINCT (num = NULL)) FROM t", {"t": {"num": "int"}})
    result.sql          # optimized Spark SQL
    result.explain()    # plans, every rewrite, findings

Bad input raises a `SparkfoldError` subclass (see `optimizer.errors`).  Valid SQL the
optimizer does not model is passed through unchanged (`result.passthrough` says why).
"""

from __future__ import annotations

import collections
import gc
import threading
import time
from dataclasses import field
from typing import Any, Callable, Iterable, Sequence, cast

from sqlglot import exp

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from ..plans.ir import types as T
from ..plans.ir.dialect import DIALECT, deep_stack, forget_spans, node_span
from ..plans.ir.errors import InternalError, SparkfoldError
from ..plans.ir.naming import UnknownName
from ..plans.ir.expressions import id_scope
from ..plans.ir.records import record, replace
from ..plans.sql_in import cte_legacy, double_quoted, identifier_clause, pipe_syntax, regex_columns
from ..plans.sql_in.analyzer import Analyzer
from ..plans.sql_in.catalog import Catalog
from ..plans.sql_in.expr_context import NotModelled
from ..plans.sql_in.parse import UnmodelledSyntax, parse_query
from ..plans.sql_in.settings import OUTPUT_CHECKS, output_read_otherwise
from ..plans.sql_out.to_sql import SqlGenerator
from ..rules.base import UNNAMED_OPAQUE_ARGUMENTS, Rule, RuleContext
from .engine import Batch, Trace, execute
from .findings import SourceMap, Text, find_all
from .output_nullability import NAME as KEEP_NULLABILITY
from .output_nullability import keep_output_nullability
from .statements import wrapped_query
from .views import definition_of_view, row_sources, view_facts


@record
class OptimizeResult:
    original_sql: str
    sql: str
    analyzed: L.Plan | None
    optimized: L.Plan | None
    trace: Trace
    catalog: Catalog
    findings: list = field(default_factory=list)
    passthrough: str | None = None  # why the query was passed through unchanged
    timings: dict[str, float] = field(default_factory=dict)
    # `regenerated_sql`, or a function that writes it: the kept-layout text is the output,
    # so the whole query is written from its plan only when somebody asks for it
    regenerated: str | Callable[[], str] | None = field(default=None, repr=False)
    # the text before and after the query, when the statement wraps one (CREATE TABLE ...
    # AS, INSERT, CACHE TABLE, MERGE USING, EXPLAIN): only the query is optimized
    wrapper: tuple[str, str] | None = None
    # the tables and views read through the definitions of the views the query reads
    # (`optimizer.views`): the result depends on their schemas too
    view_reads: tuple[str, ...] = ()

    @property
    def regenerated_sql(self) -> str | None:
        """The whole optimized query written from its plan (None: unchanged)."""
        text = self.regenerated
        if callable(text):
            with T.writing_for(self.catalog.timestamp_ntz):
                text = self.regenerated = text()
        return text

    @property
    def changed(self) -> bool:
        return self.optimized is not None and self.optimized is not self.analyzed

    @property
    def query_original_sql(self) -> str:
        """The query as written (the statement's query part, when it wraps one)."""
        return _unwrap(self.original_sql, self.wrapper)

    @property
    def query_sql(self) -> str:
        """The optimized query (without the statement around it)."""
        return _unwrap(self.sql, self.wrapper)

    def explain(self, format: str = "text", **kwargs) -> str:
        from .explain import explain

        return explain(self, format=format, **kwargs)

    def _repr_html_(self) -> str:
        """How Jupyter shows a result: the explain, as HTML a notebook holds (no script,
        nothing fetched; optimizer/notebook_html.py)."""
        from .notebook_html import result_html

        return result_html(self)

    def to_dataframe(self, spark: Any):
        from ..plans.pyspark.to_pyspark import to_dataframe

        return to_dataframe(self, spark)

    def to_pyspark_code(self, **kwargs) -> str:
        from ..plans.pyspark.to_pyspark import to_pyspark_code

        return to_pyspark_code(self, **kwargs)

    def reoptimized(self, catalog: Any) -> "OptimizeResult":
        """The same query optimized against another catalog (explain asks what changes
        when a NOT NULL is taken away)."""
        return optimize(self.query_original_sql, catalog)

    def verify(self, spark: Any, **kwargs):
        from .verify import verify

        return verify(self, spark, **kwargs)


def _with_comments(text: str, tree, source: str) -> str:
    """Keep the user's comments: regenerated SQL has no place for them inside, so they
    lead it, in their original order.  (`tree` was parsed from `source`: without a
    comment marker there, it has none to walk for.)"""
    from .splice import _lead_with

    if "--" not in source and "/*" not in source:
        return text
    comments = [c.strip() for node in tree.walk() for c in node.comments or ()]
    return _lead_with([c for c in comments if c and not c.startswith("+")], text)


def _frozen_rewritten(plan: L.Plan, tree, sql: str, written: str) -> bool:
    """Does the plan hold a frozen subquery (`E.SubqueryExpr`'s `frozen`), and does the
    written text lose the text of a subquery of the query as written (each must be there
    as often as in the original)?"""
    if not L.any_subquery(plan, lambda x: x.frozen):
        return False
    texts = set()
    for node in tree.find_all(exp.Subquery, exp.Exists):
        span = node_span(node)
        if span is None:
            return True
        texts.add(sql[span[0]:span[1] + 1])
    return any(written.count(t) != sql.count(t) for t in texts)


def _inflated(source: str, written: str, tree) -> bool:
    """Would the query written whole be more than a tenth longer than the user's, because
    it writes a CTE read more than once in each place it is read (the optimized plan
    has no CTEs)?  A generated query reading its CTEs many times grew from 5.8 KB to 38
    KB that way, its layout and comments lost: the rewrites are not worth that text
    (Spark makes them itself; the findings still show them)."""
    if len(written) <= 1.1 * len(source):
        return False
    names = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    if not names:
        return False
    reads = collections.Counter(t.name.lower() for t in tree.find_all(exp.Table) if not t.args.get("db"))
    return any(reads[n] > 1 for n in names)


def _same_but_nullability(a: L.Plan, b: L.Plan) -> bool:
    """Did the rules only narrow nullability, or fold `CAST(NULL AS T)` into the typed NULL
    that the writer prints as that same cast?  Then the SQL text is the same query and the
    original text is returned, so that optimizing the output again reaches a fixed point.
    Decided on the plans, with what SQL does not show left out of the comparison."""
    return a == b or L.same_but_ids(a, b, renamed=False)


def _rewritten(trace: Trace, batches: Sequence[Batch]) -> bool:
    """Did a rule that rewrites (not one that only moves filters or narrows nullability)
    change the plan?"""
    preparing = {r.name for b in batches for r in b.rules if not r.rewrites}
    return any(step.rule not in preparing for step in trace.rewrites)


# Rules that move or add filters Catalyst moves and adds itself (`rewrites=False`)
_MOVES = ("PushDownPredicates", "InferFiltersFromConstraints")


def _for_review(analyzed: L.Plan, optimized: L.Plan, trace: Trace, batches, ctx: RuleContext,
                exclude, rewritten: bool) -> list[L.Plan]:
    """The plans to show the rewrites on, best first: the same rewrites without the filters
    moved or inferred only for Spark's sake (Spark moves and infers them itself), when a
    run without those rules makes exactly the same rewrites (and keeps the output's
    nullability as the optimized plan does); then the optimized plan."""
    from collections import Counter

    moved = {s.rule for s in trace.rewrites if s.rule in _MOVES}
    if not moved:
        return [optimized]
    preparing = {r.name for b in batches for r in b.rules if not r.rewrites} | {KEEP_NULLABILITY}
    # (the run's facts are shared: what the rules derived about the plans, and the
    # subtrees each rule left unchanged, hold for this run too)
    quiet, again = execute(analyzed, batches, ctx, (*exclude, *moved))
    if Counter(s.rule for s in again.rewrites if s.rule not in preparing) != \
            Counter(s.rule for s in trace.rewrites if s.rule not in preparing):
        return [optimized]
    quiet = keep_output_nullability(analyzed, quiet, again, exclude)
    if rewritten and quiet is analyzed:
        return [optimized]
    return [quiet, optimized]


def _rewrapped(sql: str, span: tuple[int, int], inner: OptimizeResult) -> OptimizeResult:
    """The result for a statement that wraps a query, from the query's: the statement's
    text with the query replaced, findings at their place in the statement."""
    before, after = sql[:span[0]], sql[span[1]:]
    line0 = before.count("\n") + 1
    col0 = span[0] - (before.rfind("\n") + 1) + 1

    def moved(f):
        line, col = line0 + f.line - 1, (f.column + col0 - 1 if f.line == 1 else f.column)
        end_line = end_col = None
        if f.end_line is not None:
            end_line = line0 + f.end_line - 1
            end_col = f.end_column + col0 - 1 if f.end_line == 1 and f.end_column is not None else f.end_column
        return replace(f, line=line, column=col, end_line=end_line, end_column=end_col)

    if inner.passthrough is not None:
        return replace(inner, original_sql=sql, sql=sql, findings=[moved(f) for f in inner.findings])
    return replace(inner, original_sql=sql, sql=before + inner.sql + after, wrapper=(before, after),
                   findings=[moved(f) for f in inner.findings])


class _NoPlaceForHint(Exception):
    """The rewritten query has no outermost SELECT to carry the original's hints."""


def _ast_of(plan: L.Plan, hint: exp.Hint | None = None, gen: SqlGenerator | None = None) -> exp.Expression:
    tree = (gen or SqlGenerator()).query(plan)
    if hint is not None:
        # hints (BROADCAST, REPARTITION, ...) change how Spark runs a query, never its
        # result: they go back on the outermost SELECT, where the user wrote them
        if not isinstance(tree, exp.Select):
            raise _NoPlaceForHint
        tree.set("hint", hint.copy())
    return tree


def _printed(tree: exp.Expression, pretty: bool) -> Callable[[], str]:
    """`_sql_of(tree, pretty)`, written at the first call: the splice reads the text back
    against it only when the plans do not already match, and the result keeps it for
    whoever asks for `regenerated_sql`."""
    text: list[str] = []

    def once() -> str:
        if not text:
            text.append(_sql_of(tree, pretty))
        return text[0]

    return once


def _later(written: Callable[[], str], tree: exp.Expression, source: str) -> Callable[[], str]:
    """`regenerated_sql` for a query whose output is its kept-layout text: written when
    asked for, with the user's comments, and a failure reported as the bug it is."""
    def write() -> str:
        try:
            return _with_comments(written(), tree, source)
        except Exception as e:
            raise _writer_bug(e) from e

    return write


def _writer_bug(e: Exception) -> InternalError:
    return InternalError(f"could not write the optimized plan as SQL ({type(e).__name__}: {e}); "
                         f"please report this as a bug")


def _sql_of(tree: exp.Expression, pretty: bool) -> str:
    """The text of a tree the writer built for this run.  Printed without sqlglot's
    defensive deep copy (a third of the printing time): the tree is not kept, and were a
    printer to change it in place, the splice that diffs it next is checked by reading
    its result back against this very text (`optimizer.splice`)."""
    return tree.sql(dialect=DIALECT, pretty=pretty, normalize_functions=False, copy=False)


def optimize(sql: str, catalog: Any = None, *, batches: Sequence[Batch] | None = None,
             rules: Sequence[Rule] | None = None, exclude: Iterable[str] = (),
             pretty: bool = False, always_regenerate: bool = False, keep_layout: bool = True) -> OptimizeResult:
    """Parse, analyze, rewrite and regenerate one Spark SQL query.

    `catalog`: a `plans.Catalog`, a mapping `{"table": {"col": "type [not null]"}}`, a
    path to such a JSON file, or a SparkSession.  `batches` replaces the default
    batches; `rules` runs just these rules to a fixed point; `exclude` drops rules by
    name (like `spark.sql.optimizer.excludedRules`).  When no rule changes the plan the
    original text is returned, unless `always_regenerate`.  A rewritten query is the input's
    text with just the rewrites applied (its CTEs, layout and comments kept; see
    `optimizer.splice`) where that can be checked, else the whole query written from the
    optimized plan; `keep_layout=False` always writes the whole query (`regenerated_sql`
    has it in either case)."""
    cat = Catalog.coerce(catalog)
    with _fewer_young_collections(), T.writing_for(cat.timestamp_ntz):
        return deep_stack(_optimize, sql, cat, batches, rules, tuple(exclude), pretty, always_regenerate,
                          keep_layout)


class _fewer_young_collections:
    """While any `optimize()` runs, the garbage collector's youngest generation is
    collected every 100,000 allocations instead of Python's 700 (unless the program set
    a higher threshold): a run builds trees of thousands of nodes that live until it
    ends, and every young collection walked them again, which made big queries grow
    faster than linearly.  Collections still run, so cyclic garbage (py4j's proxies
    too) is freed as before, in larger batches.  Runs overlap in threads: the last one
    to end puts back the threshold the first one found, unless the program changed it
    meanwhile.  (Freezing the heap instead kept a Spark driver's objects alive too long.)"""

    _active = 0
    _saved: tuple[int, ...] = ()
    _set: tuple[int, ...] = ()
    _guard = threading.Lock()
    YOUNG = 100_000

    def __enter__(self) -> None:
        cls = type(self)
        with cls._guard:
            if cls._active == 0:
                cls._saved = gc.get_threshold()
                cls._set = (max(cls._saved[0], cls.YOUNG), *cls._saved[1:]) if cls._saved[0] else cls._saved
                gc.set_threshold(*cls._set)
            cls._active += 1

    def __exit__(self, *exc) -> None:
        cls = type(self)
        with cls._guard:
            cls._active -= 1
            if cls._active == 0 and gc.get_threshold() == cls._set:
                gc.set_threshold(*cls._saved)


def _unwrap(text: str, wrapper: tuple[str, str] | None) -> str:
    if wrapper is None:
        return text
    before, after = wrapper
    return text[len(before):len(text) - len(after)]


def _optimize(sql, cat: Catalog, batches, rules, exclude, pretty, always_regenerate, keep_layout,
              in_statement: bool = False) -> OptimizeResult:
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    if identifier_clause.CLAUSE.search(sql) and (named := identifier_clause.as_names(sql)) is not None \
            and not any(cat.session_variable(parts) for parts in named[2]) \
            and (not identifier_clause.legacy(cat.unmodelled) or identifier_clause.in_legacy_places(named[0], named[3])):
        # IDENTIFIER('t.c'): optimized as the names the clauses give, put back where kept
        text, clauses, _, _ = named
        inner = _optimize(text, cat, batches, rules, exclude, pretty, always_regenerate, keep_layout, in_statement)
        out = sql if inner.passthrough is not None or inner.sql == text \
            else identifier_clause.restored(inner.sql, text, clauses)
        return replace(inner, original_sql=sql, sql=out)
    if pipe_syntax.has_pipe(sql):
        piped = _optimize_piped(sql, cat, (batches, rules, exclude, pretty, always_regenerate, keep_layout,
                                           in_statement))
        if piped is not None:
            return piped
    try:
        tree = parse_query(sql)
    except UnmodelledSyntax as e:  # (Spark SQL that sqlglot's parser does not read)
        return OptimizeResult(sql, sql, None, None, Trace(), cat, passthrough=e.reason)
    timings["parse"] = time.perf_counter() - t0
    for key, applies, as_read, output_reads_alike in _READ_AS_TEXT:
        if isinstance(tree, exp.Query) and applies(cat.unmodelled):
            return _read_as(sql, tree, cat, key, as_read, output_reads_alike,
                            (batches, rules, exclude, pretty, always_regenerate, keep_layout, in_statement))
    try:
        return _optimize_tree(sql, tree, timings, cat, batches, rules, exclude, pretty, always_regenerate,
                              keep_layout, in_statement)
    except _NamedOnlyAsWritten:
        forget_spans(tree)
        tree = parse_query(sql)  # (the analyzer marks the tree it reads)
        token = UNNAMED_OPAQUE_ARGUMENTS.set(False)
        try:
            return _optimize_tree(sql, tree, timings, cat, batches, rules, exclude, pretty, always_regenerate,
                                  keep_layout, in_statement)
        finally:
            UNNAMED_OPAQUE_ARGUMENTS.reset(token)
    finally:
        forget_spans(tree)  # the analyzer, the splice and the findings, which place nodes, are done


def _optimize_piped(sql: str, cat: Catalog, options: tuple) -> OptimizeResult | None:
    """A query in SQL pipe syntax, optimized as the standard SQL Spark's parser reads it
    as (`pipe_syntax`); the original text where nothing changed, the findings placed in
    it.  A text that sparkfold cannot read or analyze passes the statement through (where
    it reads otherwise than Spark's plan, by a qualifier, Spark has the last word)."""
    def through(reason: str) -> OptimizeResult:
        return OptimizeResult(sql, sql, None, None, Trace(), cat, passthrough=reason)

    def columns(text: str) -> list[str] | None:
        try:
            with id_scope():
                return [a.name for a in Analyzer(cat, text).analyze(parse_query(text)).output]
        except InternalError:
            raise
        except (SparkfoldError, NotModelled):
            return None

    try:
        standard = pipe_syntax.as_standard(sql, columns, ordinals=cat.group_by_ordinal)
    except NotModelled as e:
        return through(str(e))
    if standard is None:
        return None
    if any(key == pipe_syntax.KEY for key, _ in cat.unmodelled):
        return through(f"{pipe_syntax.REASON} under {pipe_syntax.KEY}=false")
    try:
        inner = _optimize(standard.text, cat, *options)
    except InternalError:
        raise
    except SparkfoldError as e:
        return through(f"{pipe_syntax.REASON}, which sparkfold reads as a query it cannot analyze: {e}")
    if inner.passthrough is not None:
        return through(f"{pipe_syntax.REASON}: {inner.passthrough}")
    out = sql if inner.sql == standard.text else inner.sql
    findings = [f for f in (_placed_back(f, standard, sql) for f in inner.findings) if f is not None]
    return replace(inner, original_sql=sql, sql=out, findings=findings)


def _placed_back(finding, standard: "pipe_syntax.Standard", sql: str):
    """A finding on the standard text placed on the user's pipe text, or None where it
    points at text written for it."""
    written, original = Text(standard.text), Text(sql)
    start = standard.placed(written.offset(finding.line, finding.column))
    if start is None:
        return None
    changes: dict = dict(zip(("line", "column"), original.line_col(start)))
    if finding.end_line is not None and finding.end_column is not None:
        end = standard.placed(written.offset(finding.end_line, finding.end_column))
        if end is None or end < start:
            return None
        changes.update(zip(("end_line", "end_column"), original.line_col(end)))
    return replace(finding, **changes)


def _read_as(sql, tree: exp.Expression, cat: Catalog, key: str, as_read: Callable[[str, exp.Expression], str],
             output_reads_alike: Callable[[str], bool], options: tuple) -> OptimizeResult:
    """Under a setting that `_READ_AS_TEXT` models as a text: the query written as sparkfold
    reads it without the setting, and as the session reads it with the setting
    (`as_read`), is optimized without the setting; its output is kept where the session
    reads it so too (`output_reads_alike`); the original text where nothing changed."""
    try:
        text = as_read(sql, tree)
    except NotModelled as e:
        forget_spans(tree)
        return OptimizeResult(sql, sql, None, None, Trace(), cat, passthrough=str(e), findings=find_all(sql, tree))
    forget_spans(tree)
    without = cat.with_settings(unmodelled=tuple(s for s in cat.unmodelled if s[0] != key))
    inner = _optimize(text, without, *options)
    out = inner.sql
    if inner.passthrough is not None or out == text:
        out = sql
    elif not output_reads_alike(out):
        out = sql
        inner.trace.warnings.append(f"the optimized query would read otherwise under {key}: it is kept as written")
    return replace(inner, original_sql=sql, sql=out, catalog=cat)


def _cte_reads_alike(text: str) -> bool:
    return cte_legacy.reads_alike(parse_query(text, placed=False))


# Settings modelled by writing the query as a text that reads the same with and without
# them: (key, does the session set it, the text, does an output read alike)
_READ_AS_TEXT = (
    (double_quoted.KEY, double_quoted.applies, lambda sql, tree: double_quoted.as_backquoted(sql),
     double_quoted.none_left),
    (cte_legacy.KEY, cte_legacy.legacy_policy, cte_legacy.as_lexical, _cte_reads_alike),
)


def _read_otherwise(text: str, cat: Catalog) -> str | None:
    """A setting of the session under which the output `text` reads otherwise than it was
    written (a backquoted name in a select list read as a regular expression, a HAVING
    without GROUP BY read as a WHERE), or None."""
    regex = cat.quoted_regex_column_names
    if not regex and not any(key in OUTPUT_CHECKS for key, _ in cat.unmodelled):
        return None
    tree = parse_query(text, placed=False)
    if regex and regex_columns.sensitive(tree):
        return f"{regex_columns.KEY}=true"
    return output_read_otherwise(cat.unmodelled, tree, text)


class _NamedOnlyAsWritten(Exception):
    """An output column only Spark can name holds an unmodelled expression whose
    arguments the rules rewrote: optimize again without rewriting those."""


def _unnamed_rewritten(plan: L.Plan) -> bool:
    """Does the plan hold an unmodelled expression with an unknown name whose arguments
    the rules rewrote?"""
    for node in plan.walk():
        for e in node.expressions:
            if e.deep_mask & E.Opaque.bit and any(isinstance(n, E.Opaque) and n.rewritten and not n.name_known
                                                  for n in e.walk()):
                return True
    return False


def _optimize_tree(sql, tree: exp.Expression, timings: dict[str, float], cat: Catalog, batches, rules, exclude,
                   pretty, always_regenerate, keep_layout, in_statement: bool) -> OptimizeResult:
    from .batches import default_batches
    from .engine import FixedPoint

    span = None if in_statement or isinstance(tree, exp.Query) else wrapped_query(sql, tree)
    if span is not None and span[0] > 0:
        with definition_of_view(isinstance(tree, exp.Create) and str(tree.args.get("kind", "")).upper() == "VIEW"):
            inner = _optimize(sql[span[0]:span[1]], cat, batches, rules, exclude, pretty, always_regenerate,
                              keep_layout, in_statement=True)
        return _rewrapped(sql, span, inner)
    trace = Trace()
    with id_scope():
        t0 = time.perf_counter()
        sources = SourceMap()  # for the findings: which expression each sqlglot node became
        analyzer = sources.record(Analyzer(cat, sql))
        try:
            analyzed = analyzer.analyze(tree)
        except NotModelled as e:
            timings["analyze"] = time.perf_counter() - t0
            return OptimizeResult(sql, sql, None, None, trace, cat, passthrough=str(e), timings=timings,
                                  findings=find_all(sql, tree, warnings=trace.warnings))
        timings["analyze"] = time.perf_counter() - t0
        if rules is not None:
            batch_list: Sequence[Batch] = (Batch("Custom", FixedPoint(100), tuple(rules)),)
        else:
            batch_list = batches if batches is not None else default_batches()
        t0 = time.perf_counter()
        views = view_facts(analyzed, cat, batch_list, exclude)
        view_reads = views.reads
        ctx = RuleContext(ansi=cat.ansi, legacy_null_in_empty=cat.legacy_null_in_empty, empty_views=views.empty,
                          view_rows=views.rows, row_sources=row_sources(analyzed, cat))
        optimized, trace = execute(analyzed, batch_list, ctx, exclude)
        rewritten = _rewritten(trace, batch_list)
        optimized = keep_output_nullability(analyzed, optimized, trace, exclude)
        timings["optimize"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        try:
            changed = optimized is not analyzed and rewritten and not _same_but_nullability(analyzed, optimized)
            hint = tree.args.get("hint") if isinstance(tree, exp.Select) else None
            regenerated: str | Callable[[], str] | None
            regenerated = as_edited = None
            if changed or always_regenerate:
                target = _ast_of(optimized, hint)
            if changed and not always_regenerate:
                gen = SqlGenerator()
                gen.written = [] if keep_layout else None
                before = _ast_of(analyzed, hint, gen)
                # Do the rewrites show in SQL?  Not when the writer builds the same tree
                # for both plans (a NULL of a type folded one way, an IN list or a cast
                # written back the same): then the original text stays, so that optimizing
                # the output again reaches a fixed point.  The trees are compared, not their
                # texts: sqlglot's equality (structure, names and literals as written) is
                # computed once per node, and the splice's diff reuses it; printing the
                # analyzed plan only to compare was a tenth of a TPC-DS run.  They are
                # compared before printing, since a printer may rewrite a tree in place.
                changed = target != before
            if changed or always_regenerate:
                regenerated = _printed(target, pretty)
            if changed and keep_layout and not always_regenerate:
                from .splice import spliced  # (a query left as it is needs no splice: not at start-up)

                for plan in _for_review(analyzed, optimized, trace, batch_list, ctx, exclude, rewritten):
                    shown = target if plan is optimized else _ast_of(plan, hint)
                    as_edited = spliced(sql, tree, sources, cat, before, cast(list, gen.written), shown,
                                        regenerated if shown is target and not pretty else None, plan)
                    if as_edited is not None:
                        break
            if regenerated is not None and as_edited is None:
                regenerated = regenerated()  # the output: written now, errors and all
        except _NoPlaceForHint:
            regenerated = None  # the original text, hints and all
        except UnknownName as e:
            if UNNAMED_OPAQUE_ARGUMENTS.get() and _unnamed_rewritten(optimized):
                raise _NamedOnlyAsWritten from e
            # an output column only Spark can name could not be written for Spark to name
            # it again: the original text
            regenerated = as_edited = None
            trace.warnings.append(f"Spark names the column {e} with a name sparkfold does not know, and the "
                                  f"optimized query could not be written with that column as written: "
                                  f"it is kept as written")
        except SparkfoldError:
            raise
        except Exception as e:  # a bug in the generator
            raise _writer_bug(e) from e
        timings["generate"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        findings = find_all(sql, tree, sources=sources, analyzed=analyzed, batches=batch_list,
                            exclude=exclude, ctx=ctx, warnings=trace.warnings,
                            rewrites=trace.rewrites)
        timings["lint"] = time.perf_counter() - t0
    if isinstance(regenerated, str):
        regenerated = _with_comments(regenerated, tree, sql)
    elif regenerated is not None:  # asked for later, if ever
        regenerated = _later(regenerated, tree, sql)
    out_sql = cast(str, as_edited or regenerated or sql)
    if out_sql is regenerated and keep_layout and not always_regenerate and _inflated(sql, out_sql, tree):
        out_sql = sql
        trace.warnings.append(f"the rewrites could not be applied to the query's text in place, and the query "
                              f"written whole would read a CTE in several places ({len(regenerated)} characters "
                              f"for {len(sql)}): it is kept as written (`regenerated_sql` has it written whole)")
    if out_sql is not sql and _frozen_rewritten(optimized, tree, sql, out_sql):
        out_sql = sql
        trace.warnings.append("a correlated subquery, whose decorrelation a session setting changes, would "
                              "not be written as in the text: the query is kept as written")
    if out_sql is not sql and (why := _read_otherwise(out_sql, cat)) is not None:
        out_sql = sql
        trace.warnings.append(f"the optimized query would read otherwise under the session's {why}: it is kept as "
                              f"written")
    if analyzer.inner_hints and not as_edited and regenerated is not None:
        # hints inside the query (BROADCAST on a derived table, REPARTITION in a CTE) have
        # no place in a query written whole: only the kept-layout text keeps them
        out_sql = sql
        why = "its rewrites could not be applied to its text in place" if keep_layout else \
            "keep_layout is off"
        trace.warnings.append(f"the query has hints inside it, which a query written whole would lose, "
                              f"and {why}: it is kept as written")
    result = OptimizeResult(sql, out_sql, analyzed, optimized, trace, cat, findings=findings,
                            timings=timings, regenerated=regenerated, view_reads=view_reads)
    return result
