"""Opaque relations (`L.OpaqueRelation`) that have a DataFrame form, recognized from
their template: the table function `range(...)` is `spark.range(...)`."""

from __future__ import annotations

from sqlglot import exp

from ..ir import logical as L
from ..ir.dialect import function_name

_LONG = 2 ** 63


def range_arguments(p: L.OpaqueRelation) -> list[int] | None:
    """`SELECT id FROM range(a[, b[, step[, partitions]]])` over integer literals (as
    `from_clause.table_function` keeps it): the arguments, which `spark.range` takes in
    the same order and meaning (one column `id BIGINT NOT NULL`); None for anything else."""
    t = p.template
    if p.inputs or p.args or not isinstance(t, exp.Select) or len(p.output) != 1:
        return None
    if any(v for k, v in t.args.items() if k not in ("expressions", "from_")):
        return None
    if len(t.expressions) != 1 or not isinstance(t.expressions[0], exp.Column) or t.expressions[0].name != "id":
        return None
    from_ = t.args.get("from_")
    source = from_.this if from_ is not None else None
    if not isinstance(source, exp.Table) or any(v for k, v in source.args.items() if k != "this"):
        return None
    fn = source.this
    if not isinstance(fn, exp.Anonymous) or function_name(fn) != "range" or not 1 <= len(fn.expressions) <= 4:
        return None
    out = []
    for a in fn.expressions:
        neg = isinstance(a, exp.Neg)
        lit = a.this if neg else a
        if not (isinstance(lit, exp.Literal) and not lit.is_string and lit.this.isdigit()):
            return None
        v = -int(lit.this) if neg else int(lit.this)
        if not -_LONG <= v < _LONG:
            return None
        out.append(v)
    if len(out) == 4 and out[3] <= 0:
        return None  # (Spark's error for the partitions as SQL raises it)
    if len(out) >= 3 and out[2] == 0:
        return None  # (a step of 0: the SQL's FAILED_FUNCTION_CALL, where spark.range raises its own)
    return out
