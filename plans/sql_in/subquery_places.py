"""Where Spark takes a subquery, and where sparkfold passes its statement through.

Checked on Spark 4.3, in both modes (tests/oracles/subquery_clauses.py: each subquery
form in each clause):
- an outer reference of a subquery in ORDER BY resolves against the Sort's input, the
  select list's output (the Aggregate's, over GROUP BY, even under an aggregate
  function): Spark does not add a FROM column the select list leaves out, as it does for
  a column read outside a subquery (`SELECT c FROM t ORDER BY (SELECT ... WHERE u.x =
  t.b)`: UNRESOLVED_COLUMN);
- its CheckAnalysis then takes an IN or EXISTS subquery in a filter, a join, a
  projection, an aggregation or a window only, and a correlated scalar subquery in a
  filter, a projection or an aggregation only: in ORDER BY, UNSUPPORTED_IN_EXISTS_SUBQUERY
  and UNSUPPORTED_CORRELATED_SCALAR_SUBQUERY (under an aggregate function, over GROUP BY,
  the Aggregate computes it: no subquery is left in the Sort then);
- a correlated scalar subquery in a join condition, a GROUP BY key, or a grouped select
  item outside aggregate functions Spark rejects too (UNSUPPORTED_CORRELATED_SCALAR_SUBQUERY,
  MUST_AGGREGATE_CORRELATED_SCALAR_SUBQUERY, SCALAR_SUBQUERY_IS_IN_GROUP_BY_OR_AGGREGATE_FUNCTION),
  by rules sparkfold does not model whole (a key the same as the subquery): those
  statements pass through.

A resolution error is raised at once; the others come after the whole query is resolved
(`Analyzer.checked_later`), as in Spark.
"""

from __future__ import annotations

from typing import Callable, Iterable

from ..ir import expressions as E
from ..ir.errors import AnalysisError
from .expr_context import NotModelled

_CATEGORY = "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY"


def check_sort(orders: Iterable[E.SortOrder], local: Callable[[int], bool], shown: Callable[[int], bool],
               checked_later: list[AnalysisError]) -> None:
    """`local`: whether an id is a column of the query's FROM clause; `shown`: whether
    it is one of the Sort's input (a column its subqueries may read)."""
    for o in orders:
        for x in o.walk():
            if not isinstance(x, E.SubqueryExpr):
                continue
            refs = sorted(x.outer_references)
            if any(local(r) and not shown(r) for r in refs):
                raise AnalysisError("[UNRESOLVED_COLUMN.WITH_SUGGESTION] a subquery in ORDER BY reads a column "
                                    "the select list does not show (Spark resolves it against the select list's "
                                    "output only)")
            if isinstance(x, (E.Exists, E.InSubquery)):
                checked_later.append(AnalysisError(
                    f"[{_CATEGORY}.UNSUPPORTED_IN_EXISTS_SUBQUERY] an IN or EXISTS subquery in ORDER BY (Spark takes "
                    f"one in WHERE, HAVING, a join condition, the select list, GROUP BY)"))
            elif refs and all(local(r) or shown(r) for r in refs):
                checked_later.append(AnalysisError(
                    f"[{_CATEGORY}.UNSUPPORTED_CORRELATED_SCALAR_SUBQUERY] a correlated scalar subquery in ORDER BY "
                    f"(Spark takes one in WHERE, HAVING, the select list)"))
            elif refs:
                raise NotModelled("a scalar subquery in ORDER BY correlated with an enclosing query")


def pass_correlated_scalar(e: E.Expr | None, local: Callable[[int], bool], where: str) -> None:
    """Pass the statement through when `e` holds a scalar subquery correlated with the
    query's own columns (`local`) in a place Spark rejects one (see above)."""
    if e is None:
        return
    for x in e.walk():
        if isinstance(x, E.ScalarSubquery) and any(local(r) for r in x.outer_references):
            raise NotModelled(f"a correlated scalar subquery in {where}, which Spark rejects")
