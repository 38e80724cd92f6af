"""The unmodelled expressions (`Opaque`, kept as written) whose value the evaluator reads:
a quantified LIKE (plans.ir.quantified_like) with its quantifier, and a tuple IN
(plans.ir.tuple_in).  They are deterministic, and Spark's analysis accepts them as read
(the types each requires)."""

from __future__ import annotations

from . import expressions as E
from . import types as T
from .quantified_like import quantified_like, quantifier_items
from .tuple_in import tuple_in


def evaluable_opaque(e: E.Expr) -> bool:
    """Is `e` an Opaque the evaluator reads (a quantified LIKE or its quantifier, a tuple IN)?"""
    if not isinstance(e, E.Opaque):
        return False
    return quantified_like(e) is not None or quantifier_items(e) is not None or tuple_in(e) is not None


def deterministic(e: E.Expr) -> bool:
    """`e.deterministic`, the Opaques the evaluator reads counted as what they are."""
    return all(n._self_deterministic() or evaluable_opaque(n) for n in e.walk())


def spark_accepts(e: E.Opaque) -> tuple[E.Expr, ...] | None:
    """When Spark's analysis surely accepts the Opaque `e` (one the evaluator reads, over
    the types it reads), the Opaques among its arguments that it accepts with it (a
    quantified LIKE's quantifier); else None."""
    q = quantified_like(e)
    if q is not None:
        if q.value.data_type == T.STRING and all(p.data_type in (T.STRING, T.NULL) for p in q.patterns):
            return (e.args[1],)
        return None
    t = tuple_in(e)
    if t is not None and not any(T.contains_unknown(v.data_type) or v.data_type == T.NULL for v in t[0]):
        return ()
    return None


# the ranking window functions, which take no argument
_RANKING = frozenset({"row_number", "rank", "dense_rank", "percent_rank", "cume_dist"})
# the random functions, of no argument or an integer seed
_RANDOM = frozenset({"rand", "randn", "random"})


def unmodelled_in(e: E.Expr) -> set[int]:
    """The templates (by id) of the unmodelled expressions in `e` that Spark's analysis may
    reject; one whose types Spark surely accepts (`plans.ir.opaque_values`) is not one."""
    out: set[int] = set()
    accepted: set[int] = set()
    for x in e.walk():  # (a parent before its children)
        if not isinstance(x, E.Opaque) or id(x) in accepted:
            continue
        with_it = spark_accepts(x)
        if with_it is not None:  # `v LIKE ANY (strings)`, `(a, b) IN ((1, 2))`: Spark reads it
            accepted.update(id(a) for a in with_it)
            continue
        if not _valid(x):
            out.add(id(x.template))
    return out


def _valid(x: E.Opaque) -> bool:
    """Does Spark's analysis surely accept this unmodelled expression?  A ranking function
    of no argument over an ordered window with no frame (`row_number() OVER (PARTITION BY
    num ORDER BY num)`: what it partitions and orders by are modelled expressions, which
    sparkfold analyzed as Spark does; Catalyst itself drops the side of an outer join
    that nothing reads such a window of), and `rand()` / `rand(7)` (a call never
    evaluated may go: tests/test_nondeterminism.py)."""
    from sqlglot import exp  # (not at import: `sparkfold rules` starts without sqlglot)

    w = x.template
    if x.kind == "window":
        return (x.function in _RANKING and isinstance(w, exp.Window) and bool(w.args.get("order"))
                and not w.args.get("spec")
                and not any(v for k, v in w.this.args.items() if k != "this"))  # (kept as written: its name)
    return (x.kind == "scalar" and isinstance(w, exp.Anonymous) and w.name.lower() in _RANDOM
            and all(isinstance(a, exp.Column) for a in w.expressions)  # (the placeholders of x.args)
            and (not x.args or (len(x.args) == 1 and isinstance(x.args[0], E.Literal)
                                and x.args[0].value is not None and T.is_integral(x.args[0].data_type))))
