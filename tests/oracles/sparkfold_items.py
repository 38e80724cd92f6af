"""sparkfold's analysis of many select items at once, the counterpart of `spark_items`:
each item's output attribute in the analyzed plan (`optimize(...).analyzed.output[i]`:
name, type, nullability), or how sparkfold declined it.

A batch is parsed once and analyzed as one SELECT under each mode's catalog.  When
sparkfold declines it (a rejection, a pass through), each item is analyzed on its own
in the batch's scope, as the select list analyzes and names it (`select.select_items`,
`select.named_items`, and for aggregates `select.check_grouped`)."""

from __future__ import annotations

from typing import Mapping, NamedTuple, Sequence

from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import logical as L
from sparkfold.plans.ir import types as T
from sparkfold.plans.ir.errors import AnalysisError, SparkfoldError
from sparkfold.plans.sql_in.analyzer import Analyzer
from sparkfold.plans.sql_in.catalog import Catalog
from sparkfold.plans.sql_in.expr_context import Ctx, NotModelled
from sparkfold.plans.sql_in.from_clause import from_items
from sparkfold.plans.sql_in.parse import UNARY_PLUS, parse_query
from sparkfold.plans.sql_in.select import check_grouped, named_items


class Outcome(NamedTuple):
    """`kind`: "ok" (name, type, nullable are the output's), "pass" (passed through:
    NotModelled), "reject" (a sparkfold error) or "crash" (any other exception).
    `kept` says the item is an opaque expression (kept as its text); `name_known` that
    sparkfold knows its name is Spark's (else the writers leave it unaliased, for Spark
    to name: `naming.name_known`)."""

    kind: str
    name: str = ""
    type: str = ""
    nullable: bool = True
    why: str = ""
    kept: bool = False
    name_known: bool = True
    # the item holds an unmodelled expression Spark's analysis may reject (an operator
    # over a type pair sparkfold does not coerce, under a modelled NOT): kept as written
    # where it stands, for Spark to accept or reject (plans.ir.opaque_values.unmodelled_in)
    holds_unmodelled: bool = False

    @property
    def opaque(self) -> bool:
        return self.kind == "ok" and self.type == T.UNKNOWN.simple_string()


def analyze_items(catalogs: Mapping[str, Catalog], items: Sequence[str], source: str, batch: int = 200,
                  aggregate: bool = False, alone: bool = False) -> dict[str, list[Outcome]]:
    """sparkfold's outcome for each item of `SELECT <item> FROM <source>`, under each of
    the catalogs (by name: the modes), each batch parsed once for all of them.
    `aggregate`: the items are aggregates (one global aggregate query); `alone`: analyze
    each item alone at once (items sparkfold likely declines), not the batch first."""
    out: dict[str, list[Outcome | None]] = {m: [None] * len(items) for m in catalogs}

    def solve(idxs: list[int], modes) -> None:
        sql = "SELECT " + ", ".join(items[i] for i in idxs) + f" FROM {source}"
        try:
            tree = parse_query(sql)
        except Exception as e:  # (every kind is an answer: sorted below)
            tree, parse_error = None, e
        for mode in modes:
            if tree is None:
                failed: Exception | None = parse_error
            else:
                failed = None
                if not (alone and len(idxs) > 1):
                    try:
                        plan = Analyzer(catalogs[mode], sql).analyze(tree)
                    except Exception as e:
                        failed = e
                    else:
                        _record(out[mode], idxs, plan, sql)
                        continue
            if len(idxs) == 1 and failed is not None:
                out[mode][idxs[0]] = _declined(failed)
                continue
            # (a unary plus makes the whole statement pass through: the items are
            # analyzed in smaller statements, down to one, as when one cannot be parsed)
            each = None if tree is None or tree.meta.get(UNARY_PLUS) else \
                _items_alone(catalogs[mode], sql, tree, aggregate)
            if each is None:  # (an item sparkfold cannot parse)
                half = len(idxs) // 2
                solve(idxs[:half], [mode])
                solve(idxs[half:], [mode])
                continue
            for i, o in zip(idxs, each):
                out[mode][i] = o

    for lo in range(0, len(items), batch):
        solve(list(range(lo, min(lo + batch, len(items)))), list(catalogs))
    return out  # type: ignore[return-value]


def _record(out: list, idxs: list[int], plan: L.Plan, sql: str) -> None:
    attrs = plan.output
    if len(attrs) != len(idxs):
        raise AssertionError(f"{len(attrs)} outputs for {len(idxs)} items: {sql}")
    named = plan.projections if isinstance(plan, L.Project) else \
        plan.aggregates if isinstance(plan, L.Aggregate) else attrs
    for i, a, e in zip(idxs, attrs, named):
        out[i] = _outcome(a, e)


def _outcome(a: E.Attribute, named: E.Expr) -> Outcome:
    from sparkfold.plans.ir.naming import name_known

    from sparkfold.plans.ir.opaque_values import unmodelled_in

    kept = isinstance(named, E.Alias) and isinstance(named.child, E.Opaque)
    known = not (isinstance(named, E.Alias) and named.auto) or name_known(named.child)
    return Outcome("ok", a.name, a.data_type.simple_string(), a.nullable, kept=kept, name_known=known,
                   holds_unmodelled=bool(unmodelled_in(named)))


def _items_alone(catalog: Catalog, sql: str, tree, aggregate: bool) -> list[Outcome] | None:
    """The outcome of each select item of `tree` (`sql` parsed) analyzed alone in the
    scope of the FROM clause and named as the select list names it (`select.select_items`
    and `select.named_items`; with `aggregate`, checked as a global aggregate's item is,
    `select.check_grouped`); None if the FROM clause cannot be analyzed."""
    an = Analyzer(catalog, sql)
    an.root = tree
    with E.id_scope():
        try:
            _plan, scope = from_items(an, tree.args["from_"], [], None, {})
        except Exception:
            return None
        scope = scope.with_parent(None, {})
        outcomes = []
        for item in tree.expressions:
            try:
                e = an.exprs.analyze(item, Ctx(scope, allow_aggregates=True, allow_windows=True))
                if E.contains_aggregate(e) and not aggregate:
                    raise AnalysisError("aggregate functions need an aggregate query")
                item = named_items(an, [(e, None)])[0]
                if aggregate:
                    check_grouped(an, item, [], scope)
                outcomes.append(_outcome(E.to_attribute(item), item))
            except Exception as err:
                outcomes.append(_declined(err))
        return outcomes


def _declined(e: Exception) -> Outcome:
    if isinstance(e, NotModelled):
        return Outcome("pass", why=str(e))
    if isinstance(e, SparkfoldError):
        return Outcome("reject", why=str(e))
    return Outcome("crash", why=f"{type(e).__name__}: {e}")
