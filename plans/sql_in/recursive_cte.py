"""A recursive CTE, kept as an opaque relation in place.

`WITH RECURSIVE t(c) AS (anchor UNION ALL recursive-term) ... FROM t`: the optimizer does
not model the loop, so each reference to `t` becomes an `OpaqueRelation` whose text is a
self-contained query, `WITH RECURSIVE <this WITH's CTEs up to t> SELECT * FROM t`, and
the rest of the query is analyzed and optimized as usual.

Its schema is Spark's: the columns are named by the CTE's column list or the anchor's
names; Spark types them as the anchor (a recursive term of a wider type is an error,
`CANNOT_MERGE_INCOMPATIBLE_DATA_TYPE`; a narrower one is cast up), so we model only a
recursive term whose types equal the anchor's, typed with `t` bound to the anchor's
schema.  Every column is nullable: Spark makes them so even for `SELECT 1 AS c`.

Not modelled (the query passes through): a text that would not be self-contained (it
reads a CTE of an enclosing WITH), a self-reference outside the last UNION term or in
a subquery expression, a CTE that reads a later one, and a recursive CTE no query reads
(its definition's errors would go with it).
"""

from __future__ import annotations

from typing import Any, Protocol

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir import types as T
from ..ir.dialect import DIALECT, is_aggregate_call, nested_with_kept
from ..ir.errors import AnalysisError
from .expr_context import NotModelled
from .from_clause import CTEDef


class QueryAnalyzer(Protocol):
    """What a recursive CTE needs of the query analyzer (`analyzer.Analyzer`)."""

    catalog: Any

    def query(self, node: exp.Expression, outer, ctes: dict) -> L.Plan: ...


def reads(node: exp.Expression, names: set[str]) -> list[exp.Table]:
    """The table references in `node` to one of `names` (a name with a database is a table)."""
    return [t for t in node.find_all(exp.Table)
            if isinstance(t.this, exp.Identifier) and not t.args.get("db") and t.name.lower() in names]


def recursive_cte(an: QueryAnalyzer, with_: exp.With, index: int, ctes: dict, enclosing: dict) -> CTEDef:
    """The definition of the `index`-th CTE of `with_`, which reads itself.  `ctes` holds
    the CTEs in scope (this WITH's earlier ones included), `enclosing` those of outer WITHs."""
    if not nested_with_kept():
        raise NotModelled("recursive CTE (the SQL printer would move its WITH to the top)")
    cte = with_.expressions[index]
    name = cte.alias
    key = name.lower()
    body = cte.this
    if not isinstance(body, exp.Union) or body.args.get("by_name") or body.args.get("with_"):
        raise NotModelled("recursive CTE that is not anchor UNION ALL recursive term")
    anchor, step = body.this, body.expression
    if reads(anchor, {key}):
        raise NotModelled("recursive CTE whose anchor reads it")
    # Spark's own checks, which an error-free analysis here must not miss (the text could
    # go from the rewritten query, an empty relation's input, and its error with it):
    # UNION_NOT_SUPPORTED_IN_RECURSIVE_CTE, INVALID_RECURSIVE_CTE (an inner WITH) and
    # INVALID_RECURSIVE_REFERENCE (no self-reference under an outer or semi join, an
    # aggregate, a window or a sort); we keep to the plainest recursive terms
    if any(u.args.get("distinct") is not False for u in body.find_all(exp.Union)) \
            or body.find(exp.With, exp.Intersect, exp.Except) is not None:
        raise NotModelled("recursive CTE with UNION (not UNION ALL), INTERSECT, EXCEPT or an inner WITH")
    for ref in reads(step, {key}):
        _plain_position(ref, step)

    prefix = [c.copy() for c in with_.expressions[:index + 1]]
    own = {c.alias.lower() for c in prefix}
    template = exp.select(exp.Star()).from_(exp.Table(this=cte.args["alias"].this.copy()))
    template.set("with_", exp.With(expressions=prefix, recursive=True))
    outer_names = set(enclosing) - own
    if reads(template, outer_names):
        raise NotModelled("recursive CTE reading a CTE of an enclosing WITH")

    # analyzed without an outer scope: a column that only an outer query has is an error
    # here, and the query passes through (the text must be self-contained)
    try:
        first = an.query(anchor, None, ctes)
    except AnalysisError as ex:
        raise NotModelled(f"recursive CTE whose anchor we cannot analyze ({ex})") from None
    alias = cte.args.get("alias")
    names = [c.name for c in alias.columns] if alias is not None and alias.columns else \
        [a.name for a in first.output]
    if len(names) != len(first.output) or len({n.lower() for n in names}) != len(names):
        raise NotModelled("recursive CTE with a column list that does not fit, or twice a name")
    types = [a.data_type for a in first.output]
    if T.UNKNOWN in types:
        raise NotModelled("recursive CTE with a column of a type we do not know")

    def relation() -> L.Plan:
        outputs = tuple(E.Attribute(n, t, True, E.new_id()) for n, t in zip(names, types))
        return L.OpaqueRelation(template, outputs, (), (), template.sql(dialect=DIALECT)[:200])

    itself = CTEDef(name, body, [], None, {}, [], make=relation, repeatable=True)
    try:
        rest = an.query(step, None, {**ctes, key: itself})
    except AnalysisError as ex:
        raise NotModelled(f"recursive CTE whose recursive term we cannot analyze ({ex})") from None
    if not itself.uses:
        raise NotModelled("recursive CTE whose last UNION term does not read it")
    if [a.data_type for a in rest.output] != types:
        raise NotModelled("recursive CTE whose recursive term's types differ from its anchor's")
    return CTEDef(name, body, [], None, {}, [], make=relation, repeatable=_deterministic(template, an.catalog),
                  recursive=True)


def _plain_position(ref: exp.Table, top: exp.Expression) -> None:
    """Not modelled unless this self-reference of a recursive term is read only through
    FROM clauses, inner joins, derived tables, UNION ALL and plain SELECT blocks (no
    aggregate, window, DISTINCT, ORDER BY, LIMIT): not in a subquery expression, say."""
    node: exp.Expression = ref
    while node is not top:
        parent = node.parent
        if parent is None:
            break
        if isinstance(parent, exp.Select):
            if any(parent.args.get(k) for k in ("group", "having", "order", "limit", "offset", "distinct",
                                                "qualify", "windows", "laterals", "sort", "cluster",
                                                "distribute")) \
                    or node.arg_key not in ("from_", "joins") \
                    or any(j.side or (j.kind or "").upper() not in ("", "INNER", "CROSS")
                           for j in parent.args.get("joins") or []) \
                    or any(isinstance(n, exp.Window) or is_aggregate_call(n) for f in parent.expressions
                            for n in f.walk()):
                raise NotModelled("recursive CTE read under an aggregate, a sort, an outer join "
                                  "or in a subquery expression")
        elif isinstance(parent, exp.Subquery):
            if not isinstance(parent.parent, (exp.From, exp.Join)) or _has_any_modifier(parent):
                raise NotModelled("recursive CTE read in a subquery expression")
        elif not isinstance(parent, (exp.From, exp.Join, exp.Union)):
            raise NotModelled("recursive CTE read in a subquery expression")
        elif isinstance(parent, exp.Union) and _has_any_modifier(parent):
            raise NotModelled("recursive CTE read under a sort or a limit")
        node = parent


def _has_any_modifier(node: exp.Expression) -> bool:
    return any(node.args.get(k) for k in ("order", "limit", "offset"))


def _deterministic(template: exp.Expression, catalog) -> bool:
    """Does the text surely give the same rows each time (deterministic functions only, see
    `builtins.surely_deterministic_call`; no sample)?  Then a CTE can be read twice, as
    Spark inlines it."""
    from .builtins import surely_deterministic_call

    if template.find(exp.TableSample) is not None:
        return False
    return all(surely_deterministic_call(f, catalog)
               for f in template.find_all(exp.Func))
