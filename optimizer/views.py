"""What the definitions of the session's views prove, for the rules (`rules.views`).

Catalyst optimizes a query with each view it reads replaced by the view's definition;
sparkfold keeps a view a table (the text it writes reads the view by name) and proves
its definition apart: the definition's text, as the session gave it
(`plans.sql_in.session_views`, only where sparkfold reads it under the settings and in
the database Spark does), is analyzed against the same catalog and optimized by the same
batches, views it reads in turn included.  A definition whose optimized plan is the
empty relation makes the view empty to the rules (`RuleContext.empty_views`); one whose
optimized plan is rows (VALUES, and Projects and Filters over them, evaluated row by row
as Catalyst's ConvertToLocalRelation evaluates them, none raising) gives the rules the
view's rows (`RuleContext.view_rows`), so that a Filter over the view that keeps none of
them is empty (rules.local_relation), as Catalyst, which reads the definition in place of
the view, finds it.

The definition is used only where its analysis agrees with the session's schema of the
view (as many columns, of the same types); a definition sparkfold passes through, or
cannot read, proves nothing.  A persistent view never reads a temporary view (Spark
resolves its names in the catalog only); a temporary one reads as temporary views only
the names that were temporary views when it was created: where a name it reads resolves
otherwise in the session now, the view proves nothing.

A CREATE VIEW's query is optimized without what other views' definitions prove: Spark
reads the views a view reads when the view is read, not when it is created, so a view
made empty by another view's definition now would stay empty after that view is
replaced.

What a definition proves is kept across queries (a catalog is made afresh for each query
of the spark.sql hook) by the view's schema and text, the settings and the rules
excluded, and is used again while every table and view the definition reads (through
the views it reads too) has the schema it had: each is looked up in the query's catalog,
as the query's own tables are.
"""

from __future__ import annotations

import collections
import contextvars
import logging
import threading
from typing import Iterable, NamedTuple

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from ..plans.ir.evaluate import CannotEvaluate, EvaluationError, evaluate
from ..plans.ir.errors import SparkfoldError
from ..plans.ir.expressions import id_scope
from ..plans.sql_in.analyzer import Analyzer
from ..plans.sql_in.catalog import Catalog, TableSchema
from ..plans.sql_in.session_views import ViewDefinition
from ..plans.sql_in.expr_context import NotModelled
from ..plans.sql_in.parse import parse_query
from ..rules.base import RuleContext
from ..rules.constraints import substitute
from ..rules.prune_filters import writable

log = logging.getLogger("sparkfold")

# (empty, its rows when the definition is rows (else None), every (name, schema) the
# definition reads, transitively)
_Proof = tuple[bool, "tuple[tuple, ...] | None", tuple[tuple[str, TableSchema], ...]]
_MAX_ROWS = 1000  # rows a view's proof keeps, at most

_CACHE: collections.OrderedDict = collections.OrderedDict()
_CACHE_SIZE = 256
_LOCK = threading.Lock()
# the views whose definitions are being proved (a view cannot read itself in Spark; a
# catalog given by hand, or a session changed meanwhile, could make it seem to)
_PROVING: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar("views_proving", default=frozenset())


_IN_VIEW_DEFINITION: contextvars.ContextVar[bool] = contextvars.ContextVar("in_view_definition", default=False)


class definition_of_view:
    """Context manager: the query optimized within is a CREATE VIEW's (when `is_view`),
    which may not rest on other views' definitions."""

    def __init__(self, is_view: bool):
        self.is_view = is_view
        self.token: contextvars.Token | None = None

    def __enter__(self) -> None:
        if self.is_view:
            self.token = _IN_VIEW_DEFINITION.set(True)

    def __exit__(self, *exc) -> None:
        if self.token is not None:
            _IN_VIEW_DEFINITION.reset(self.token)


class ViewFacts(NamedTuple):
    """What the definitions of the views a plan reads prove, by their relations' `table`."""

    empty: frozenset[str]                  # the views whose definitions are empty
    rows: dict[str, tuple[tuple, ...]]     # the views whose definitions are rows: their rows
    reads: tuple[str, ...]                 # every table and view read through the definitions


def view_facts(plan: L.Plan, cat: Catalog, batches, exclude: Iterable[str]) -> ViewFacts:
    """The views `plan` reads (its subqueries too) whose definitions are empty, and those
    whose definitions are rows, with their rows; and the names of every table and view
    read through the views' definitions (what the result depends on besides the plan's
    own relations)."""
    if _IN_VIEW_DEFINITION.get():
        return ViewFacts(frozenset(), {}, ())
    empty: set[str] = set()
    rows: dict[str, tuple[tuple, ...]] = {}
    reads: dict[str, None] = {}
    for rel in L.relations(plan):
        try:
            schema = cat.lookup(rel.table)
        except SparkfoldError:
            continue
        if schema.view is None or not schema.view.text:
            continue
        try:
            proof = _proof(rel.table, schema, cat, batches, tuple(exclude))
        except _Cycle:
            if _PROVING.get():
                raise  # (up to the view the query reads)
            continue
        if proof is None:
            continue
        if proof[0]:
            empty.add(rel.table)
        elif proof[1] is not None:
            rows[rel.table] = proof[1]
        reads.update((name, None) for name, _ in proof[2])
    return ViewFacts(frozenset(empty), rows, tuple(reads))


def row_sources(plan: L.Plan, cat: Catalog) -> frozenset[str]:
    """The relations of `plan` (by `table`) that Spark may read as rows (a LocalRelation:
    a view over VALUES or over a DataFrame of local data), which its first optimizer
    batch (ConvertToLocalRelation, PropagateEmptyRelation) evaluates row by row, or drops
    when no row is left, before its ConstantFolding sees the expressions above them
    (optimizer.validate).  Every view is one: a session's view (its definition known or
    not), a temporary one as its qualifier shows (Spark Connect)."""
    out = set()
    for rel in L.relations(plan):
        try:
            schema = cat.lookup(rel.table)
        except SparkfoldError:
            continue
        q = schema.qualifier
        if schema.view is not None or len(q) == 1 or (len(q) == 2 and q[0] == "global_temp"):
            out.add(rel.table)
    return frozenset(out)


def _proof(name: str, schema: TableSchema, cat: Catalog, batches, exclude: tuple[str, ...]) -> _Proof | None:
    key = (schema, cat.settings, exclude, tuple(r.name for b in batches for r in b.rules))
    with _LOCK:
        hit = _CACHE.get(key)
    if hit is not None and _still(hit[2], cat):
        return hit
    proving = _PROVING.get()
    if _key(name) in proving:
        raise _Cycle(name)
    token = _PROVING.set(proving | {_key(name)})
    try:
        proof = _prove(schema, cat, batches, exclude)
    finally:
        _PROVING.reset(token)
    if proof is not None:
        with _LOCK:
            _CACHE[key] = proof
            _CACHE.move_to_end(key)
            while len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
    return proof


class _Cycle(Exception):
    """A view's definition reads the view (Spark rejects such a view when it is read):
    none of the views on the way proves anything."""


def _still(reads: tuple[tuple[str, TableSchema], ...], cat: Catalog) -> bool:
    try:
        return all(cat.lookup(name) == schema for name, schema in reads)
    except SparkfoldError:
        return False


def _prove(schema: TableSchema, cat: Catalog, batches, exclude: tuple[str, ...]) -> _Proof | None:
    from .engine import execute

    view = schema.view
    assert view is not None
    try:
        with id_scope():
            analyzed = Analyzer(cat, view.text).analyze(parse_query(view.text, placed=False))
            reads = _reads(analyzed, cat, view)
            if reads is None or not _same_schema(analyzed, schema):
                return None
            inner = view_facts(analyzed, cat, batches, exclude)
            ctx = RuleContext(ansi=cat.ansi, legacy_null_in_empty=cat.legacy_null_in_empty, empty_views=inner.empty,
                              view_rows=inner.rows)
            optimized, _ = execute(analyzed, batches, ctx, exclude)
    except _Cycle:
        raise
    except (NotModelled, SparkfoldError, RecursionError):
        return None
    except Exception:  # noqa: BLE001 - a definition sparkfold cannot read proves nothing; the query goes on
        log.debug("the definition of view %s proves nothing after an internal error", schema.name, exc_info=True)
        return None
    deps = dict(reads)
    for name in inner.reads:
        try:
            deps.setdefault(name, cat.lookup(name))
        except SparkfoldError:
            return None
    empty = _empty(optimized)
    return empty, None if empty else _rows(optimized, inner.rows, cat.ansi), tuple(deps.items())


def _reads(plan: L.Plan, cat: Catalog, view: ViewDefinition) -> list[tuple[str, TableSchema]] | None:
    """The (name, schema) of every relation the definition reads; None when one of them
    may not be what Spark reads there (see the module's text)."""
    out = []
    for rel in L.relations(plan):
        schema = cat.lookup(rel.table)
        temporary = schema.view is not None and schema.view.temporary
        if temporary != (view.temporary and _key(rel.table) in view.temp_references):
            return None  # a temporary view where Spark reads a table, or the reverse
        out.append((rel.table, schema))
    return out


def _key(name: str) -> str:
    return ".".join(p.strip("`").lower() for p in name.split("."))


def _same_schema(plan: L.Plan, schema: TableSchema) -> bool:
    """Does the definition's analysis give the view's columns, as many, in the same places
    and of the same types, as the session says?  Spark picks the view's columns from the
    definition's output by name (`ViewDefinition.query_columns`; a view over `SELECT *`
    keeps its order after the table under it is made again with its columns in another)
    and casts them to the view's types; a definition whose output sparkfold reads in
    other places or of other types is one it does not read as Spark does."""
    assert schema.view is not None
    names = schema.view.query_columns or tuple(c.name for c in schema.columns)
    return len(plan.output) == len(schema.columns) == len(names) and \
        all(a.name.lower() == n.lower() and a.data_type == c.data_type
            for a, n, c in zip(plan.output, names, schema.columns))


def _empty(plan: L.Plan) -> bool:
    """The empty relation itself (not a projection over it: one that stays holds a
    constant that may raise, which Spark evaluates with no row)."""
    while isinstance(plan, L.SubqueryAlias):
        plan = plan.child
    return L.is_empty_relation(plan)


def _rows(plan: L.Plan, views: dict[str, tuple[tuple, ...]], ansi: bool) -> tuple[tuple, ...] | None:
    """The rows of an optimized definition, in its output's order, when it is rows: VALUES
    (or a view that is rows), one row with no column, and Projects and Filters over them,
    evaluated row by row as Spark would (Catalyst's ConvertToLocalRelation); None when it
    is something else, or when a value raises or is one sparkfold does not evaluate exactly."""
    match plan:
        case L.SubqueryAlias(_, child):
            return _rows(child, views, ansi)
        case L.LocalRelation(_, rows):
            return rows if 0 < len(rows) <= _MAX_ROWS and writable(plan.output) else None
        case L.Relation(table):
            return views.get(table)
        case L.OneRowRelation():
            return ((),)
        case L.Project(projections, child):
            below = _rows(child, views, ansi)
            if below is None or not all(e.deterministic for e in projections) or not writable(plan.output):
                return None
            out = []
            for row in below:
                values = _bound(child.output, row)
                try:
                    out.append(tuple(evaluate(substitute(e.child if isinstance(e, E.Alias) else e, values), ansi)
                                     for e in projections))
                except (EvaluationError, CannotEvaluate):
                    return None
            return tuple(out)
        case L.Filter(cond, child):
            below = _rows(child, views, ansi)
            if below is None or not cond.deterministic:
                return None
            kept = []
            for row in below:
                try:
                    if evaluate(substitute(cond, _bound(child.output, row)), ansi) is True:
                        kept.append(row)
                except (EvaluationError, CannotEvaluate):
                    return None
            return tuple(kept) if kept else None
        case _:
            return None


def _bound(output, row: tuple) -> dict[int, E.Expr]:
    return {a.expr_id: E.Literal(v, a.data_type) for a, v in zip(output, row)}
