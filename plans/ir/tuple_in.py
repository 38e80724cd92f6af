"""`(a, b, ...) [NOT] IN ((x, y, ...), ...)`, which sparkfold keeps as written (an `Opaque`
of a boolean), read for its value.

Spark reads each tuple as a struct of its values and IN compares the value struct with
each item by its ordering, field by field, in which two NULL fields are equal: the value
(a struct, never NULL itself) is IN the list when some item has equal fields, NULL fields
equal to NULL fields, and the answer is never NULL (`(NULL, 1.0) IN ((NULL, 1.0))` is
TRUE, `(NULL, 1.0) IN ((2, 3.0))` FALSE).  Read only where each position holds one type
in the value and every item (Spark casts them to a common type otherwise, which this does
not model), checked against Spark over a space of tuples with NULL in each position
(tests/oracles/tuple_in.py).
"""

from __future__ import annotations

from . import expressions as E
from .quantified_like import placeholder


def _row(node, args) -> tuple[E.Expr, ...] | None:
    from sqlglot import exp  # (not at import: `sparkfold rules` loads the rules, not sqlglot)

    if not isinstance(node, exp.Tuple):
        return None
    out = [placeholder(n, args) for n in node.expressions]
    return None if any(x is None for x in out) else tuple(x for x in out if x is not None)


def tuple_in(e: E.Expr) -> tuple[tuple[E.Expr, ...], tuple[tuple[E.Expr, ...], ...]] | None:
    """(the value's fields, each item's fields) of the Opaque `e`, when it is a tuple IN a
    list of tuples of the value's arity, each position of one type."""
    from sqlglot import exp  # (not at import: `sparkfold rules` loads the rules, not sqlglot)

    if not isinstance(e, E.Opaque) or e.kind != "scalar" or type(e.template) is not exp.In:
        return None
    t = e.template
    if any(v for k, v in t.args.items() if k not in ("this", "expressions")):
        return None  # IN a subquery, UNNEST...
    value = _row(t.this, e.args)
    items = [_row(i, e.args) for i in t.expressions]
    if value is None or not items or any(i is None or len(i) != len(value) for i in items):
        return None
    rows = tuple(i for i in items if i is not None)
    if any(f.data_type != v.data_type for row in rows for f, v in zip(row, value)):
        return None
    return value, rows
