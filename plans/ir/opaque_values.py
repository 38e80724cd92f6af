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


def _valid_aggregate_window(x: E.Opaque, w) -> bool:
    """`count(*)`, `count(e)`, `sum(e)` / `avg(e)` of a number, `min(e)` / `max(e)` of a
    type compared by value, over a window of no frame or name (`OVER (PARTITION BY a ORDER
    BY b)`, `OVER ()`) whose keys are of such types: Spark's analysis accepts it (its
    default frame takes any number of ORDER BY keys)."""
    from sqlglot import exp

    def arg(node) -> E.Expr | None:  # the modelled argument a placeholder stands for
        name = node.name if isinstance(node, exp.Column) and not node.table else ""
        if not name.startswith("__sf_arg_") or not name[9:].isdigit() or int(name[9:]) >= len(x.args):
            return None
        return x.args[int(name[9:])]

    if set(k for k, v in w.args.items() if v) - {"this", "partition_by", "order", "over"}:
        return False
    keys = [arg(k) for k in w.args.get("partition_by") or ()]
    order = w.args.get("order")
    if order is not None:
        if set(k for k, v in order.args.items() if v) != {"expressions"}:
            return False
        if not all(isinstance(o, exp.Ordered) for o in order.expressions):
            return False
        keys += [arg(o.this) for o in order.expressions]
    if not all(k is not None and T.compared_by_value(k.data_type) for k in keys):
        return False
    f = w.this
    if set(k for k, v in f.args.items() if v) - {"this", "big_int"}:
        return False  # (DISTINCT, a second argument, IGNORE NULLS...)
    if isinstance(f, exp.Count) and isinstance(f.this, exp.Star):
        return True
    value = arg(f.this)
    if value is None or T.contains_unknown(value.data_type):
        return False
    if isinstance(f, exp.Count):
        return True
    if isinstance(f, (exp.Sum, exp.Avg)):
        return T.is_numeric(value.data_type) or isinstance(value.data_type, T.DecimalType)
    return isinstance(f, (exp.Min, exp.Max)) and T.compared_by_value(value.data_type)


def _valid(x: E.Opaque) -> bool:
    """Does Spark's analysis surely accept this unmodelled expression?  A ranking function
    of no argument over an ordered window with no frame (`row_number() OVER (PARTITION BY
    num ORDER BY num)`: what it partitions and orders by are modelled expressions, which
    sparkfold analyzed as Spark does; Catalyst itself drops the side of an outer join
    that nothing reads such a window of), an aggregate over a window of no frame
    (`_valid_aggregate_window`), and `rand()` / `rand(7)` (a call never evaluated may go:
    tests/test_nondeterminism.py)."""
    from sqlglot import exp  # (not at import: `sparkfold rules` starts without sqlglot)

    w = x.template
    if x.kind == "window":
        if not isinstance(w, exp.Window):
            return False
        if x.function in ("count", "sum", "avg", "min", "max"):
            return _valid_aggregate_window(x, w)
        return (x.function in _RANKING and bool(w.args.get("order"))
                and not w.args.get("spec")
                and not any(v for k, v in w.this.args.items() if k != "this"))  # (kept as written: its name)
    return (x.kind == "scalar" and isinstance(w, exp.Anonymous) and w.name.lower() in _RANDOM
            and all(isinstance(a, exp.Column) for a in w.expressions)  # (the placeholders of x.args)
            and (not x.args or (len(x.args) == 1 and isinstance(x.args[0], E.Literal)
                                and x.args[0].value is not None and T.is_integral(x.args[0].data_type))))
