"""What sparkfold makes of constant expressions: each folded to a literal (its value and
type), kept for Spark, or rejected; and the comparison with Spark's outcomes.

Expressions are optimized many at a time, as the columns of one `SELECT` (folding is
per expression, so a batch folds each as it would alone); a batch sparkfold rejects or
passes through whole is optimized again one expression at a time.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from .spark_eval import encode


@dataclass(frozen=True)
class Folded:
    kind: str                 # "fold", "kept", "rejected"
    type: str = ""            # the expression's type as sparkfold has it
    value: Any = None         # encoded as spark_eval.encode encodes Spark's value (for "fold")
    detail: str = ""
    rewritten: bool = False   # "kept" but rewritten (partly folded)
    replaced: bool = False    # rewritten to an expression of another kind (coalesce(NULL, x): x)


def _spark_text(v: Any, t: str) -> Any:
    """A folded literal's Python value as the golden file holds Spark's."""
    if v is None:
        return None
    if isinstance(v, datetime):
        text = v.strftime("%Y-%m-%d %H:%M:%S")
        if v.microsecond:
            text += f".{v.microsecond:06d}".rstrip("0")
        return encode(text, t)
    if isinstance(v, date):
        return encode(v.isoformat(), t)
    if t.startswith("interval") and isinstance(v, tuple):
        return encode(_interval_text(v, t), t)
    return encode(v, t)


def _interval_text(v: tuple, t: str) -> str:
    """Spark's text of a one-field year, month or day interval (others are not compared)."""
    months, days, micros = v
    unit = t.split()[-1]
    if t.count(" ") == 1 and unit in ("year", "month") and days == micros == 0:
        return f"INTERVAL '{months // 12 if unit == 'year' else months}' {unit.upper()}"
    day = 86_400_000_000
    total = days * day + micros  # (a day interval's value may be held as days or as microseconds)
    if t == "interval day" and months == 0 and total % day == 0:
        return f"INTERVAL '{total // day}' DAY"
    return f"{v}"


def _catalog(ansi: bool, tables: dict | None = None):
    from sparkfold.plans.sql_in.catalog import Catalog

    return Catalog.from_mapping(tables or {}).with_settings(ansi=ansi, legacy_setops_precedence=False)


def _select(exprs: list[str], source: str | None = None) -> str:
    text = "SELECT\n" + ",\n".join(f"{e} AS c{i}" for i, e in enumerate(exprs))
    return text if source is None else f"{text}\nFROM {source}"


def optimized(exprs: list[str], cat, source: str | None = None, sql: str | None = None):
    """sparkfold's result for the SELECT of exprs (or for `sql`), or the exception it raised."""
    from sparkfold.optimizer import optimize

    try:
        return optimize(sql if sql is not None else _select(exprs, source), cat, keep_layout=False)
    except Exception as e:  # noqa: BLE001 - a rejection (or a crash, reported as one)
        return e


def _outcomes(exprs: list[str], cat) -> list[Folded] | None:
    """sparkfold's outcome for each expression, or None when the batch is not taken
    apart (rejected or passed through whole: each expression is then asked alone)."""
    from sparkfold.plans.ir import logical as L

    from tests.rule_helpers import rules_output

    r = optimized(exprs, cat)
    if isinstance(r, Exception):
        if len(exprs) > 1:
            return None
        return [Folded("rejected", detail=f"{type(r).__name__}: {str(r).splitlines()[0][:200]}")]
    if r.passthrough is not None:
        if len(exprs) > 1:
            return None
        return [Folded("kept", detail="passthrough: " + r.passthrough)]
    # the rules' output: the optimizer's last step gives a column folded to a NOT NULL
    # value the original's nullability back (IF(TRUE, v, NULL)), which is not a fold's
    plan, before = rules_output(r), r.analyzed
    if not (isinstance(plan, L.Project) and isinstance(before, L.Project)) or len(plan.projections) != len(exprs):
        return None
    return [_folded(new, old) for new, old in zip(plan.projections, before.projections)]


def column_sql(result) -> list[str] | None:
    """The SQL text sparkfold writes for each column of an optimized one-row SELECT
    (None when the plan is not such a projection)."""
    from sparkfold.plans.ir import logical as L
    from sparkfold.plans.ir.dialect import DIALECT
    from sparkfold.plans.sql_out.to_sql import plan_to_ast
    from sqlglot import exp

    if not isinstance(result.optimized, L.Project):
        return None
    ast = plan_to_ast(result.optimized)
    items = ast.expressions if isinstance(ast, exp.Select) else []
    if len(items) != len(result.optimized.projections):
        return None
    return [(i.this if isinstance(i, exp.Alias) else i).sql(dialect=DIALECT) for i in items]


def sparkfold_outcomes(exprs: list[str], ansi: bool, batch: int = 400) -> list[Folded]:
    mode = "ansi" if ansi else "legacy"
    return both_modes(exprs, ((mode, ansi),), batch)[mode]


def both_modes(exprs: list[str], modes, batch: int = 400, alone: bool = False) -> dict[str, list[Folded]]:
    """sparkfold's outcome for each expression in each mode: what `optimize` computes
    (parse, analysis, the default batches), without writing SQL, each batch parsed once
    for both modes.  (tests/test_oracle_folds.py checks it agrees with `optimize`.)
    `alone`: each expression on its own (for expressions sparkfold mostly rejects)."""
    out: dict[str, list[Folded]] = {m: [] for m, _ in modes}
    for start in range(0, len(exprs), 1 if alone else batch):
        for m, got in _split(exprs[start:start + (1 if alone else batch)], modes).items():
            out[m].extend(got)
    return out


def _split(exprs: list[str], modes) -> dict[str, list[Folded]]:
    """A batch sqlglot cannot read whole is read in halves."""
    got = _fold_batch(exprs, modes)
    if got is not None:
        return got
    mid = len(exprs) // 2
    left, right = _split(exprs[:mid], modes), _split(exprs[mid:], modes)
    return {m: left[m] + right[m] for m, _ in modes}


def _fold_batch(exprs: list[str], modes) -> dict[str, list[Folded]] | None:
    from sparkfold.plans.sql_in.parse import parse_query
    from sparkfold.plans.sql_in.precedence import MEANING

    sql = _select(exprs)
    try:
        tree = parse_query(sql, placed=False)
    except Exception as e:  # noqa: BLE001
        return None if len(exprs) > 1 else {m: [_rejected(e)] for m, _ in modes}
    items = list(tree.expressions)
    if len(items) != len(exprs):
        return None
    misread = tree.meta.get(MEANING)  # (an expression Spark reads otherwise passes through)
    if misread is not None:
        return None if len(exprs) > 1 else {m: [Folded("kept", detail=f"passthrough: {misread}")] for m, _ in modes}
    return {m: _fold_items(items, sql, ansi) for m, ansi in modes}


def _fold_items(items: list, sql: str, ansi: bool) -> list[Folded]:
    """The outcome of each select item (parsed once): analyzed and optimized together,
    or in halves where the analysis of the whole fails (one item sparkfold rejects or
    passes through makes the whole query so)."""
    from sparkfold.optimizer.batches import default_batches
    from sparkfold.optimizer.engine import execute
    from sparkfold.plans.ir import expressions as E
    from sparkfold.plans.ir import logical as L
    from sparkfold.plans.sql_in.analyzer import Analyzer
    from sparkfold.plans.sql_in.expr_context import NotModelled
    from sparkfold.rules.base import RuleContext
    from sqlglot import exp

    with E.id_scope():
        try:
            before = Analyzer(_catalog(ansi), sql).analyze(exp.Select(expressions=items))
            plan = execute(before, default_batches(), RuleContext(ansi=ansi))[0]
        except Exception as e:  # noqa: BLE001 - rejected, passed through (or a crash)
            if len(items) > 1:
                mid = len(items) // 2
                return _fold_items(items[:mid], sql, ansi) + _fold_items(items[mid:], sql, ansi)
            if isinstance(e, NotModelled):
                return [Folded("kept", detail=f"passthrough: {e}")]
            return [_rejected(e)]
    if not (isinstance(plan, L.Project) and isinstance(before, L.Project)) or len(plan.projections) != len(items):
        raise AssertionError(f"not a projection of {len(items)} items: {plan!r}"[:300])
    return [_folded(new, old) for new, old in zip(plan.projections, before.projections)]


def _rejected(e: BaseException) -> Folded:
    return Folded("rejected", detail=f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")


def _folded(new, old) -> Folded:
    from sparkfold.plans.ir import expressions as E

    e = new.child if isinstance(new, E.Alias) else new
    t = e.data_type.simple_string()
    if isinstance(e, E.Literal):
        return Folded("fold", t, _spark_text(e.value, t))
    old_e = old.child if isinstance(old, E.Alias) else old
    return Folded("kept", t, rewritten=e != old_e, replaced=type(e) is not type(old_e))


def _plans(sql: str, tables: dict, ansi: bool):
    """(analyzed, optimized) for a query, or None when sparkfold does not take it."""
    from sparkfold.optimizer.batches import default_batches
    from sparkfold.optimizer.engine import execute
    from sparkfold.plans.ir import expressions as E
    from sparkfold.plans.sql_in.analyzer import Analyzer
    from sparkfold.plans.sql_in.parse import parse_query
    from sparkfold.rules.base import RuleContext

    with E.id_scope():
        try:
            before = Analyzer(_catalog(ansi, tables), sql).analyze(parse_query(sql, placed=False))
        except Exception:  # noqa: BLE001 - rejected or passed through: nothing rewritten
            return None
        after, _ = execute(before, default_batches(), RuleContext(ansi=ansi))
    return before, after


def plans_of(sqls: list[str], tables: dict, ansi: bool) -> list[tuple]:
    """(analyzed, optimized) of each query, (None, None) where sparkfold does not take it.
    Queries `SELECT <e> AS c FROM t` are optimized many at a time, as the columns of one
    SELECT (each column's own plan is the projection of that column alone)."""

    out: list[tuple] = [(None, None)] * len(sqls)
    singles = []
    groups: dict[str, list[int]] = {}
    for i, q in enumerate(sqls):
        head, sep, source = q.rpartition(" AS c FROM ")
        if sep and head.startswith("SELECT ") and " " not in source:
            groups.setdefault(source, []).append(i)
        else:
            singles.append(i)
    for source, idx in groups.items():
        for start in range(0, len(idx), 300):
            part = idx[start:start + 300]
            exprs = [sqls[i][len("SELECT "):sqls[i].rindex(" AS c FROM ")] for i in part]
            for i, pair in zip(part, _column_plans(exprs, source, tables, ansi)):
                out[i] = pair
    for i in singles:
        out[i] = _plans(sqls[i], tables, ansi) or (None, None)
    return out


def _column_plans(exprs: list[str], source: str, tables: dict, ansi: bool) -> list[tuple]:
    from sparkfold.plans.ir import logical as L

    got = _plans(_select(exprs, source), tables, ansi)
    if got is not None:
        before, after = got
        if isinstance(before, L.Project) and isinstance(after, L.Project) \
                and len(before.projections) == len(after.projections) == len(exprs):
            return [(L.Project((b,), before.child), L.Project((a,), after.child))
                    for b, a in zip(before.projections, after.projections)]
    if len(exprs) == 1:
        return [got or (None, None)]
    mid = len(exprs) // 2
    return _column_plans(exprs[:mid], source, tables, ansi) + _column_plans(exprs[mid:], source, tables, ansi)


def optimized_select_columns(exprs: list[str], cat, source: str) -> list[str]:
    """The SQL text sparkfold writes for each expression as a column over `source` (the
    expression itself where sparkfold leaves the query as it is or rejects it)."""
    r = optimized(exprs, cat, source)
    texts = None if isinstance(r, Exception) or r.passthrough is not None else column_sql(r)
    if texts is not None:
        return texts
    if len(exprs) == 1:
        return exprs
    mid = len(exprs) // 2
    return optimized_select_columns(exprs[:mid], cat, source) + optimized_select_columns(exprs[mid:], cat, source)


def via_optimize(exprs: list[str], ansi: bool) -> list[Folded]:
    """The same as `sparkfold_outcomes`, through the public `optimize` (slower)."""
    cat = _catalog(ansi)
    got = _outcomes(exprs, cat)
    if got is not None:
        return got
    return [x for e in exprs for x in (_outcomes([e], cat) or [Folded("kept", detail="?")])]


# ---------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------

FOLD_CLASSES = ("error folded to a value", "value differs", "type differs", "valid rejected",
                "rewritten to another type")


def double_bits(text: str) -> str:
    x = float(text)
    return "nan" if math.isnan(x) else struct.pack(">d", x).hex()


def same_value(ours: Any, theirs: Any, t: str) -> bool:
    """Equal encoded values of type t: doubles bit for bit (NaN as one), decimals by
    value (the type fixes the scale)."""
    if ours is None or theirs is None:
        return ours is None and theirs is None
    if isinstance(ours, list) or isinstance(theirs, list):  # values by row
        return isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs) \
            and all(same_value(a, b, t) for a, b in zip(ours, theirs))
    if t in ("double", "float"):
        return double_bits(ours) == double_bits(theirs)
    if t.startswith("decimal"):
        return Decimal(ours) == Decimal(theirs)
    return ours == theirs and type(ours) is type(theirs)


def compare(spark_outcome: dict | None, ours: Folded) -> str | None:
    """The class of mismatch between Spark's outcome and sparkfold's, or None."""
    if spark_outcome is None:
        return None
    if "e" in spark_outcome:
        return FOLD_CLASSES[0] if ours.kind == "fold" else None
    if ours.kind == "rejected":
        return FOLD_CLASSES[3]
    if ours.kind != "fold":
        # replaced by an expression of another kind, whose type is then sparkfold's: it
        # must be Spark's (`coalesce(CAST(NULL AS FLOAT), 1L)`, a double, was written as a
        # float).  (A rewrite below an operator keeps the operator, whose type is Spark's
        # to decide: the type oracle, tests/oracles/expr_types.py, checks sparkfold's.)
        return FOLD_CLASSES[4] if ours.replaced and ours.type != spark_outcome["t"] else None
    if ours.type != spark_outcome["t"]:
        return FOLD_CLASSES[2]
    if not same_value(ours.value, spark_outcome["v"], ours.type):
        return FOLD_CLASSES[1]
    return None
