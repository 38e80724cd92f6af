"""`value [NOT] LIKE | ILIKE ANY | SOME | ALL (pattern, ...)`, which sparkfold keeps as
written (an `Opaque`: nothing rewrites it, the writers copy its text), read for its value.

Spark's parser turns the quantified LIKE into LikeAny / LikeAll / NotLikeAny / NotLikeAll
over the patterns' values when every pattern is a foldable string, and into an OR (ANY) or
AND (ALL) of `value LIKE pattern` (each negated for NOT) otherwise; ILIKE lowers the value
and each pattern first.  Both forms give one value, the three-valued one: for ANY, TRUE
when some non-NULL pattern decides it (matches, or for NOT does not match), else NULL when
some pattern is NULL, else FALSE; for ALL, FALSE when some non-NULL pattern decides it
against, else NULL when some pattern is NULL, else TRUE; NULL for a NULL value.

`quantified_like(e)` recognizes the Opaque (its template `x [NOT] [I]LIKE q`, with `q` an
Opaque `ANY | ALL (p, ...)` each of whose items is one argument) and says what it is; the
evaluator (`evaluate`) computes it, only where no pattern could raise (a malformed escape)
and the case mapping is Java's and Python's alike (ASCII), checked against Spark over a
space of values and patterns (tests/oracles/quantified.py).
"""

from __future__ import annotations

from . import expressions as E
from .records import record


@record(frozen=True, slots=True)
class QuantifiedLike:
    value: E.Expr
    patterns: tuple[E.Expr, ...]
    all_: bool          # ALL (else ANY / SOME)
    negated: bool       # NOT LIKE
    ignore_case: bool   # ILIKE


def placeholder(node, args: tuple[E.Expr, ...]) -> E.Expr | None:
    """The argument a template's placeholder column `__sf_arg_i` stands for."""
    from sqlglot import exp  # (not at import: `sparkfold rules` loads the rules, not sqlglot)

    if not isinstance(node, exp.Column) or node.table or not node.name.startswith("__sf_arg_"):
        return None
    i = node.name[len("__sf_arg_"):]
    return args[int(i)] if i.isdigit() and int(i) < len(args) else None


def quantifier_items(e: E.Expr) -> tuple[bool, tuple[E.Expr, ...]] | None:
    """(ALL?, the items) of an Opaque `ANY | SOME | ALL (item, ...)` over a list of values."""
    from sqlglot import exp  # (not at import: `sparkfold rules` loads the rules, not sqlglot)

    if not isinstance(e, E.Opaque) or not isinstance(e.template, (exp.Any, exp.All)):
        return None
    inner = e.template.this
    nodes = inner.expressions if isinstance(inner, exp.Tuple) else [inner.this] if isinstance(inner, exp.Paren) \
        else [inner]  # (one item: its parentheses are the argument's)
    items = [placeholder(n, e.args) for n in nodes]
    if not items or any(i is None for i in items):
        return None
    return isinstance(e.template, exp.All), tuple(i for i in items if i is not None)


def quantified_like(e: E.Expr) -> QuantifiedLike | None:
    """What the Opaque `e` is, when it is a quantified LIKE / ILIKE without ESCAPE."""
    from sqlglot import exp  # (not at import: `sparkfold rules` loads the rules, not sqlglot)

    if not isinstance(e, E.Opaque) or e.kind != "scalar" or type(e.template) not in (exp.Like, exp.ILike):
        return None
    t = e.template
    value, q = placeholder(t.this, e.args), placeholder(t.expression, e.args)
    if value is None or q is None or t.args.get("escape"):
        return None
    quantified = quantifier_items(q)
    if quantified is None:
        return None
    all_, patterns = quantified
    return QuantifiedLike(value, patterns, all_, bool(t.args.get("negate")), isinstance(t, exp.ILike))
