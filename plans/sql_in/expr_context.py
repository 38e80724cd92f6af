"""What every part of expression analysis shares: the context of an expression (`Ctx`:
its scope, lateral aliases, the clause), `NotModelled` for valid SQL passed through,
and the checks of a condition's type."""

from __future__ import annotations

from dataclasses import field

from sqlglot import exp

from ..ir import expressions as E
from ..ir import functions as F
from ..ir import types as T
from ..ir.dialect import function_name
from ..ir.errors import AnalysisError
from ..ir.naming import spark_name
from ..ir.records import record
from .scope import Scope


# meta of a column node made for one of a star's columns among a call's arguments
# (`stars`): its index in the analyzer's `star_args`, what the column is
STAR_ARG = "sparkfold_star_arg"


class NotModelled(Exception):
    """Raised for valid SQL the optimizer does not model at all; the query then passes
    through unchanged."""


@record
class Ctx:
    scope: Scope
    # earlier select-list aliases (Spark's lateral column aliases)
    lateral: dict[str, E.Expr] = field(default_factory=dict)
    # select-list outputs that win over FROM columns (HAVING / ORDER BY; see _Column)
    preferred: dict[str, E.Expr] = field(default_factory=dict)
    # ids of the grouping expressions that are FROM columns (HAVING: see _Column)
    grouping: frozenset[int] = frozenset()
    allow_aggregates: bool = False
    allow_windows: bool = False
    in_aggregate: bool = False
    clause: str = "SELECT"
    # where an expression whose Spark column name is not modelled may stay in place, as
    # text (a lambda `transform(a, x -> x + 1)`, a tuple `(a, b) IN ((1, 2))`): a WHERE,
    # a join condition, a select item the query names itself
    unnamed_ok: bool = False
    # where Spark expands a star among a call's arguments (`coalesce(*)`, `x IN (t.*)`):
    # the select list and WHERE of a SELECT block (`stars`)
    stars: bool = False
    # a select item of a block with GROUPING SETS, ROLLUP or CUBE (kept as text, named
    # here), where grouping() and grouping_id() may stand
    grouping_analytics: bool = False


def calls_nondeterministic(node: exp.Expression) -> bool:
    return any(function_name(f) in F.NONDETERMINISTIC_NAMES for f in node.find_all(exp.Func))


def _position(sql: str, node: exp.Expression) -> str:
    """` (line L, column C)` of the node's first character, as error messages say it."""
    target: exp.Expr = node.this if isinstance(node, exp.Column) and isinstance(node.this, exp.Expression) \
        else node
    if isinstance(node, exp.Table) and node.parts:  # `db.t`: where `db` begins
        target = node.parts[0]
    meta = target.meta or {}
    if "line" in meta and "col" in meta:
        col = meta["col"]
        start, end = meta.get("start"), meta.get("end")
        if start is not None and end is not None:
            col = max(1, col - (end - start))
        return f" (line {meta['line']}, column {col})"
    return ""


# Conditions Spark accepts of a non-boolean type by casting it (checked on Spark 4.3):
# NOT / AND / OR a STRING, HAVING anything but a datetime.  Not modelled: passed through.
_CAST_TO_BOOLEAN = {"NOT": (T.STRING,), "AND": (T.STRING,), "OR": (T.STRING,)}


def require_boolean(e: E.Expr, where: str, allow_void: bool = False) -> E.Expr:
    """Spark's type check of a condition: WHERE / ON / CASE WHEN / IF need a BOOLEAN (an
    untyped NULL fails in WHERE / ON / CASE WHEN); NOT / AND / OR / IF / HAVING coerce an
    untyped NULL."""
    t = e.data_type
    if t == T.BOOLEAN or t == T.UNKNOWN or (allow_void and t == T.NULL):
        return e
    if t in _CAST_TO_BOOLEAN.get(where, ()) or (where == "HAVING" and t not in (T.DATE, T.TIMESTAMP,
                                                                                T.TIMESTAMP_NTZ)):
        raise NotModelled(f"{where} over a condition of type {t.simple_string().upper()} (Spark casts it "
                          f"to BOOLEAN): {_expr_name(e)}")
    raise AnalysisError(f"{where} needs a BOOLEAN condition, not {t.simple_string().upper()}: "
                        f"{_expr_name(e)}")


def _expr_name(e: E.Expr) -> str:
    return spark_name(e)


def legacy_widening(types: list[T.DataType], what: str) -> None:
    """Outside ANSI mode a string widens other types to string where ANSI widens it to
    theirs (set operations, VALUES rows): such a column is not modelled."""
    kinds = set(types) - {T.NULL}
    if T.STRING in kinds and len(kinds) > 1:
        raise NotModelled(f"{what} of a string and other types outside ANSI mode")


def refuse_unnamed(an, columns) -> None:
    """Columns named by Spark with a name sparkfold does not know (`naming.name_known`)
    cannot be referred to: Spark's own name for them would be needed."""
    for c in columns:
        if isinstance(c, (E.Attribute, E.Alias)) and c.expr_id in an.unnamed:
            raise NotModelled(f"a reference to the column Spark names after {c.name}, a name sparkfold "
                              f"does not know")
