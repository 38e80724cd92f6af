"""Spark's generated column names for unaliased select items.

Spark names `SELECT a = NULL` as `(a = NULL)`, `count(*)` as `count(1)`, a cast of a
column as the column, and drops the casts its analyzer inserted (`toPrettySQL`).
`spark_name` reproduces that from our expressions; every form here was checked
against PySpark 4.3 (tests/test_naming.py compares with Spark).
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime
from decimal import Decimal, localcontext
from typing import cast

from . import expressions as E
from . import types as T
from .functions import VARIANT_PATH
from .tree import fold


def java_float(v: float) -> str:
    """Java's Float.toString (a float literal's name, `3.4028235E38F` is `3.4028235E38`):
    the fewest digits that read back as the same float, laid out as java_double does."""
    import struct

    if math.isnan(v) or math.isinf(v) or v == 0:
        return java_double(v)
    target = struct.pack("f", v)
    digits = next((text for p in range(1, 10) if struct.pack("f", float(text := f"{v:.{p}g}")) == target), repr(v))
    return java_double(v, digits)


def java_double(v: float, shortest: str | None = None) -> str:
    """Java's Double.toString, which Spark uses for double literals in names:
    positional between 1e-3 and 1e7, `d.dddE<n>` outside, always a digit after the point
    (`shortest`: the value's shortest decimal text, when not repr's)."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    if v == 0:
        return "-0.0" if math.copysign(1.0, v) < 0 else "0.0"
    d = Decimal(shortest or repr(v))
    sign = "-" if v < 0 else ""
    if 1e-3 <= abs(v) < 1e7:
        text = format(abs(d), "f")
        if "." not in text:
            text += ".0"
        return sign + text
    _, digits, exponent = d.as_tuple()
    ds = "".join(map(str, digits)).rstrip("0") or "0"
    power = len(digits) + cast(int, exponent) - 1  # (a finite value's)
    return f"{sign}{ds[0]}.{ds[1:] or '0'}E{power}"


def java_decimal(value: Decimal, data_type: T.DataType) -> str:
    """Java's BigDecimal.toString of a decimal at its type's scale, which Spark uses for
    decimal literals in names: positional (`1.50`, `150`) unless the scale is positive and
    the value's adjusted exponent below -6 (`1E-38`); Python's Decimal prints the same."""
    if value == 0:
        value = abs(value)  # Spark's decimals have no negative zero
    if isinstance(data_type, T.DecimalType):
        with localcontext() as ctx:
            ctx.prec = 2 * T.MAX_PRECISION
            value = value.quantize(Decimal(1).scaleb(-data_type.scale))
    return str(value)


def literal_name(value, data_type: T.DataType) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if data_type == T.FLOAT and isinstance(value, (float, int)):
        return java_float(float(value))
    if data_type == T.DOUBLE and isinstance(value, (float, int)):
        return java_double(float(value))
    if isinstance(value, Decimal):
        return java_decimal(value, data_type)
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return "X'" + value.hex().upper() + "'"
    if isinstance(value, datetime):
        # Spark prints the fraction of a second without its trailing zeros
        text = value.strftime('%Y-%m-%d %H:%M:%S') + f".{value.microsecond:06d}".rstrip("0").rstrip(".")
        return f"TIMESTAMP '{text}'" if data_type == T.TIMESTAMP else f"TIMESTAMP_NTZ '{text}'"
    if isinstance(value, date):
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, tuple):
        return interval_name(value, data_type)
    return str(value)


def interval_name(value, data_type) -> str:
    from .intervals import text

    shown = text(value, data_type)
    if shown is not None:
        return shown
    months, days, micros = value  # (a calendar interval: not built by the analyzer)
    return f"INTERVAL '{months} {days} {micros}'"


def _name_node(e: E.Expr, args: list[str]) -> str:
    match e:
        case E.Literal(value, dt):
            return literal_name(value, dt)
        case E.Attribute(name):
            return name
        case E.Alias(_, name):
            return name  # a lateral alias or merged USING key, referred to by name
        case E.Not():
            return f"(NOT {args[0]})"
        case E.IsNull():
            return f"({args[0]} IS NULL)"
        case E.IsNotNull():
            return f"({args[0]} IS NOT NULL)"
        case E.Negate():
            return f"(- {args[0]})"
        case E.Add(left, right) if left.data_type == T.DATE and right.data_type == T.DAY_INTERVAL:
            return f"date_add({args[0]}, extractansiintervaldays({args[1]}))"
        case E.Add(left, right) if left.data_type == T.DATE and T.is_integral(right.data_type):
            return f"date_add({args[0]}, {args[1]})"
        case E.Add(left, right) if right.data_type == T.DATE and T.is_integral(left.data_type):
            return f"date_add({args[1]}, {args[0]})"  # (Spark puts the date first)
        case E.Subtract(left, right) if left.data_type == T.DATE and right.data_type == T.DAY_INTERVAL:
            return f"date_add({args[0]}, (- extractansiintervaldays({args[1]})))"
        case E.Add(left, right) | E.Subtract(left, right) if right.data_type in T.INTERVALS and \
                left.data_type in (T.DATE, T.TIMESTAMP, T.TIMESTAMP_NTZ, T.STRING):
            return f"{args[0]} {e.symbol} {args[1]}"  # Spark writes these without parentheses
        case E.Subtract(left, right) if left.data_type == T.DATE and T.is_integral(right.data_type):
            return f"date_sub({args[0]}, {args[1]})"
        case E.Add() | E.Subtract() | E.Multiply() | E.Remainder() | E.IntegralDivide() \
                if e.left.data_type == T.NULL and e.right.data_type == T.NULL:
            # both sides void: Spark's arithmetic coercion puts typed NULL literals there,
            # `c * NULL` is `(NULL * NULL)` (not `/`: `(c / NULL)`)
            return f"(NULL {e.symbol} NULL)"
        case E.Comparison() if {e.left.data_type, e.right.data_type} == {T.NULL, T.STRING}:
            # Spark's string coercion puts a NULL literal in place of the void side, so
            # `min(NULL) = 'a'` is named `(NULL = a)` (and a void `raise_error` there never runs)
            left_name, right_name = ("NULL", args[1]) if e.left.data_type == T.NULL else (args[0], "NULL")
            return f"({left_name} {e.symbol} {right_name})"
        case E.BinaryExpr():
            return f"({args[0]} {e.symbol} {args[1]})"
        case E.Cast(_, to, try_, user):
            if not user or isinstance(to, (T.ArrayType, T.MapType, T.StructType)):
                # Spark's Cast.sql leaves out a cast to a complex type (HiveQL had none)
                return args[0]
            return f"{'TRY_CAST' if try_ else 'CAST'}({args[0]} AS {to.sql()})"
        case E.If():
            return f"(IF({args[0]}, {args[1]}, {args[2]}))"
        case E.CaseWhen(branches, otherwise):
            parts = ["CASE"]
            for i in range(len(branches)):
                parts.append(f"WHEN {args[2 * i]} THEN {args[2 * i + 1]}")
            if otherwise is not None:
                parts.append(f"ELSE {args[-1]}")
            parts.append("END")
            return " ".join(parts)
        case E.Coalesce():
            return f"{e.fname}({', '.join(args)})"
        case E.In():
            return f"({args[0]} IN ({', '.join(args[1:])}))"
        case E.Func("like"):
            return f"{args[0]} LIKE {args[1]}"
        case E.Func("date_add" | "date_sub" as name, fargs):
            # their input types are concrete: Spark puts a NULL literal in place of a void argument
            return f"{name}({', '.join('NULL' if a.data_type == T.NULL else n for a, n in zip(fargs, args))})"
        case E.Func(name):
            return call_name(name, args)
        case E.Agg(name, fargs, distinct, flt):
            n = len(fargs)
            text = f"{name}({'DISTINCT ' if distinct else ''}{', '.join(args[:n])})"
            if flt is not None:
                text += f" FILTER (WHERE {args[n]})"
            return text
        case E.Opaque():
            return e.sql_text
        case E.ScalarSubquery(plan):
            # Spark lists the outer references, every occurrence, in plan order
            return f"scalarsubquery({', '.join(_outer_names(plan))})"
        case E.Exists(plan):
            return f"exists({', '.join(_outer_names(plan))})"
        case E.InSubquery(values, plan):
            # several values are a struct: a column's field is its name, any other `_i`
            inner = args[0] if len(args) == 1 else "named_struct({})".format(", ".join(
                f"'{v.name if isinstance(v, E.Attribute) else f'_{i}'}', {a}"
                for i, (v, a) in enumerate(zip(values, args))))
            return f"({inner} IN (listquery({', '.join(_outer_names(plan))})))"
        case E.SortOrder():
            return args[0]
        case _:
            return f"{type(e).__name__.lower()}({', '.join(args)})"


# Spark's pretty names that differ from the call as written (checked on Spark 4.3): math
# functions named in upper case, and arguments Spark fills in with their defaults.
_UPPER_CASE_NAMES = frozenset("""sqrt cbrt exp expm1 log10 log2 log1p ceil floor signum power e pi sin cos
    tan asin acos atan sinh cosh tanh degrees radians atan2 hypot cot rlike""".split())
_DEFAULT_ARGS = {  # name: (number of arguments written, the defaults Spark appends)
    "round": (1, ["0"]), "bround": (1, ["0"]), "substring": (2, ["2147483647"]), "substr": (2, ["2147483647"]),
    "locate": (2, ["1"]), "split": (2, ["-1"]), "regexp_replace": (3, ["1"]),
    "months_between": (2, ["true"]), "unix_timestamp": (1, ["yyyy-MM-dd HH:mm:ss"]),
    "from_unixtime": (1, ["yyyy-MM-dd HH:mm:ss"]),
}
_RENAMED = {"dateadd": "date_add"}


def call_key(name: str, args) -> tuple[str, tuple[str, ...]] | None:
    """A call's function (lower case) and its arguments' types, or None when a type is
    not known: what `plain_call` decides on."""
    types = []
    for a in args:
        if a.data_type == T.UNKNOWN:
            return None
        types.append(a.data_type.simple_string())
    return name.lower(), tuple(types)


def plain_call(key: tuple[str, tuple[str, ...]] | None) -> bool:
    """Was Spark seen to name calls of this function with arguments of these types as
    `call_name` does?  (Read off Spark's function documentation: `plans.ir.call_names`.)"""
    from .call_names import PLAIN_CALLS

    return key is not None and key in PLAIN_CALLS


def call_name(name: str, args: list[str]) -> str:
    """Spark's name for the call `name(args)`, given its arguments' names."""
    low = name.lower()
    if low == "positive" and len(args) == 1:
        return f"(+ {args[0]})"
    if low == "log" and len(args) in (1, 2):
        return f"LOG({', '.join((['E()'] if len(args) == 1 else []) + args)})"
    written, defaults = _DEFAULT_ARGS.get(low, (None, []))
    if len(args) == written:
        args = args + defaults
    shown = low.upper() if low in _UPPER_CASE_NAMES else _RENAMED.get(low, name)
    return f"{shown}({', '.join(args)})"


def _outer_names(plan) -> list[str]:
    """The names of the outer references of a subquery plan, each occurrence, operators
    top-down and expressions left to right (Spark's `outerAttrs`, as in
    `scalarsubquery(c, b, c)` for `WHERE z.y = a.c AND z.k = a.b AND z.k = a.c`)."""
    from .logical import outer_references

    outer = outer_references(plan)
    if not outer:
        return []
    names = []
    for op in plan.walk():
        for x in op.expressions:
            for n in x.walk():
                if isinstance(n, E.Attribute) and n.expr_id in outer:
                    names.append(n.name)
    return names


class UnknownName(Exception):
    """A column of the query's output, named by Spark with a name sparkfold does not know,
    cannot be written so that Spark names it again (the writers' callers then keep the
    query as written)."""


def unnamed_output(plan) -> set[int]:
    """Ids of the plan's output columns named by Spark with names sparkfold does not know:
    the select items written unaliased, for Spark to name."""
    from . import logical as L

    out = {a.expr_id for a in plan.output}
    found: set[int] = set()
    stack = [plan]
    while stack:
        p = stack.pop()
        stack.extend(p.children)
        if isinstance(p, (L.Project, L.Aggregate)):
            for e in p.expressions:
                if isinstance(e, E.Alias) and e.auto and e.expr_id in out and not name_known(e.child):
                    found.add(e.expr_id)
        elif isinstance(p, L.OpaqueRelation):
            found |= p.unnamed & out
    return found


def name_known(e: E.Expr) -> bool:
    """Is `spark_name(e)` the name Spark gives e, as far as sparkfold knows?  Not when e
    holds an unmodelled call whose naming was never read off Spark (the name of
    `aes_encrypt(s, k)` is `aes_encrypt(s, k, GCM, DEFAULT, , )`): such a name must come
    from Spark itself, the expression written as the input wrote it and not aliased."""
    if not e.deep_mask & E.Opaque.bit or _variant_path_name(e) is not None:
        return True
    return all(n.name_known for n in e.walk() if isinstance(n, E.Opaque))


def argument_name(e: E.Expr) -> str:
    """How Spark shows e inside another expression's generated name (its pretty SQL):
    unlike `spark_name`, a field of a column keeps the column (`hex(st.a)`, where
    `SELECT st.a` is `a`) and a cast the user wrote stays (`array(CAST(i AS BIGINT))`,
    where `SELECT CAST(i AS BIGINT)` is `i`)."""
    return fold(e, _name_node)


def variant_path_alias(path: str) -> str | None:
    """The name Spark's parser aliases a variant path (`v:a.b['c']`, plans.sql_in.variant_paths)
    with: the path's last name or quoted key (`c`); None when it has none (`v:[0]`)."""
    names = re.findall(r"(?:^|\.)([A-Za-z_][A-Za-z0-9_]*)|\['([^']*)'\]", path)
    return (names[-1][0] or names[-1][1]) if names else None


def _variant_path_name(e: E.Expr) -> str | None:
    """The name of a select item that is a variant path, or one cast of it (`v:a.b::int`):
    Spark's parser aliased the path (`b`), and a cast of an aliased value keeps the alias."""
    if isinstance(e, E.Cast):
        e = e.child
    if isinstance(e, E.Opaque) and getattr(e.template, "name", "").lower() == VARIANT_PATH \
            and len(e.template.expressions) == 2:
        return variant_path_alias(str(e.template.expressions[1].this))
    return None


def spark_name(e: E.Expr) -> str:
    """The column name Spark gives `SELECT <e>` when e has no alias."""
    if (path := _variant_path_name(e)) is not None:
        return path
    # ResolveAliases: a cast of a named expression keeps the name (`CAST(a AS BIGINT)` is `a`)
    while isinstance(e, E.Cast) and isinstance(e.child, (E.Attribute, E.Alias)):
        e = e.child
    if isinstance(e, E.Alias):
        return e.name
    if isinstance(e, E.Opaque) and e.variable:
        return e.variable  # (a session variable, or a field of one: `SELECT v` is `v`)
    if isinstance(e, E.Opaque) and e.args and isinstance(e.args[0], E.Attribute) and field_of_column(e.template):
        return e.template.name  # `SELECT s.f` is `f` (a field of a column, at the top level)
    return fold(e, _name_node)


def field_of_column(template) -> bool:
    """Is the template `__sf_arg_0.f[.g...]`: fields of a column reference?"""
    from sqlglot import exp

    from .dialect import ARG_PREFIX

    t = template
    while isinstance(t, exp.Dot):
        t = t.this
    return t is not template and isinstance(t, exp.Column) and t.name == ARG_PREFIX + "0"


# ---------------------------------------------------------------------------
# Window expressions (kept as opaque text; Spark names them with their full frame)
# ---------------------------------------------------------------------------

_UPPER_WINDOW_FUNCTIONS = {"rank": "RANK", "dense_rank": "DENSE_RANK", "percent_rank": "PERCENT_RANK"}
_ORDER_ONLY_FUNCTIONS = frozenset(_UPPER_WINDOW_FUNCTIONS)


def wrapped_name_known(template, args) -> bool:
    """Are the names `wrapped_call_name` and `window_name` give for this call Spark's, as
    read off Spark (window functions, the modelled aggregates and those Spark names
    plainly (`plain_call`) with FILTER or IGNORE NULLS, percentile_cont / percentile_disc
    WITHIN GROUP)?  Not for other calls (`listagg(c) WITHIN GROUP (...)` is `listagg(c,
    NULL) WITHIN GROUP (... NULLS LAST)`, `mode() WITHIN GROUP (ORDER BY x)` is `...
    ORDER BY x DESC`).  `template` has placeholder columns for `args`."""
    from sqlglot import exp

    from .dialect import ARG_PREFIX, function_name
    from .functions import AGGREGATE_FUNCTIONS, WINDOW_ONLY_NAMES

    fn, wrappers = _unwrapped(template.this if isinstance(template, exp.Window) else template)
    if not isinstance(fn, exp.Func):
        return False
    name = function_name(fn)
    if any(isinstance(w, exp.WithinGroup) for w in wrappers):
        return name in ("percentile_cont", "percentile_disc")
    if name in WINDOW_ONLY_NAMES or name in AGGREGATE_FUNCTIONS or name in _IGNORE_NULLS_FLAG:
        return True
    own = list(fn.expressions) if isinstance(fn, exp.Anonymous) else []
    if not own or not all(isinstance(a, exp.Column) and a.name.startswith(ARG_PREFIX) for a in own):
        return False
    return plain_call(call_key(name, [args[int(a.name[len(ARG_PREFIX):])] for a in own]))
_ROW_FRAME_FUNCTIONS = {"rank", "dense_rank", "percent_rank", "row_number", "ntile"}
_UNBOUNDED_TO_CURRENT = "BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"


def _call_wrappers() -> tuple:
    """What sqlglot wraps around a call (`FILTER`, `IGNORE NULLS`, `WITHIN GROUP`)."""
    from sqlglot import exp

    return (exp.Filter, exp.IgnoreNulls, exp.RespectNulls, exp.WithinGroup)


# The ignore-nulls flag as an argument (`first(v, true)`) or as syntax (`first(v) IGNORE
# NULLS`) is not in Spark's name; the syntax also renames first_value and last_value
# (read off Spark 4: `first_value(v) IGNORE NULLS OVER w` is `first(v) OVER ...`).
_IGNORE_NULLS_FLAG = frozenset({"first", "last", "first_value", "last_value", "any_value"})
_IGNORE_NULLS_RENAMED = {"first_value": "first", "last_value": "last"}


def _wrapped_call_text(fn, wrappers, text, window: bool) -> str | None:
    """Spark's name for a call inside its wrappers (innermost first in `wrappers` order
    reversed: `wrappers[0]` is the outermost), or None when the form is not known."""
    from sqlglot import exp

    from .dialect import function_name

    name = function_name(fn)
    keys = [k for k, v in fn.args.items() if v is not None and v is not False]
    if any(k not in ("this", "expressions", "expression", "big_int") for k in keys):
        return None
    raw = ([fn.this] if fn.args.get("this") is not None else []) + \
        ([fn.args["expression"]] if fn.args.get("expression") is not None else []) + list(fn.expressions)
    if isinstance(fn, exp.Anonymous):
        raw = list(fn.expressions)
    texts = [text(a) for a in raw]
    if None in texts:
        return None
    if window and name in _ORDER_ONLY_FUNCTIONS:
        texts = []  # their arguments are the window's order (`rank(b)` is `RANK()`)
    elif window and name == "ntile" and not texts:
        texts = ["1"]
    nulls = [w for w in wrappers if isinstance(w, (exp.IgnoreNulls, exp.RespectNulls))]
    if name in _IGNORE_NULLS_FLAG and len(texts) == 2 and texts[1] in ("true", "false") and not nulls:
        texts = texts[:1]
    suffix = ""
    if nulls:
        if len(nulls) > 1:
            return None
        if name in _IGNORE_NULLS_FLAG:
            name = _IGNORE_NULLS_RENAMED.get(name, name)
        elif name == "nth_value" and isinstance(nulls[0], exp.IgnoreNulls):
            suffix = " ignore nulls"
        elif name not in ("lag", "lead"):
            return None
    shown = _UPPER_WINDOW_FUNCTIONS.get(name, name) if window else None
    out = f"{shown}({', '.join(texts)})" if shown is not None else call_name(name, texts)
    out += suffix
    for w in reversed(wrappers):
        if isinstance(w, exp.Filter):
            where = w.expression
            cond = text(where.this if isinstance(where, exp.Where) else where)
            if cond is None:
                return None
            out = f"{out} FILTER (WHERE {cond})"
        elif isinstance(w, exp.WithinGroup):
            order = w.expression
            items = []
            for o in (order.expressions if isinstance(order, exp.Order) else []):
                t = text(o.this)
                if t is None or (o.args.get("nulls_first") is not None
                                 and bool(o.args.get("nulls_first")) == bool(o.args.get("desc"))):
                    return None  # an explicit NULLS order Spark would print: not read off yet
                items.append(f"{t} DESC" if o.args.get("desc") else t)
            if not items:
                return None
            out = f"{out} WITHIN GROUP (ORDER BY {', '.join(items)})"
    return out


def wrapped_call_name(template, args) -> str | None:
    """Spark's name for an aggregate call written with a wrapper (`percentile_cont(p)
    WITHIN GROUP (ORDER BY x)`, `first(v) IGNORE NULLS`, `f(x) FILTER (WHERE c)`) or with
    its ignore-nulls flag as an argument (`first(v, true)`), outside a window; `template`
    has placeholder columns for `args` (see plans.sql_in.expr_calls.opaque_call)."""
    from sqlglot import exp

    fn, wrappers = _unwrapped(template)
    if not isinstance(fn, exp.Func):
        return None
    return _wrapped_call_text(fn, wrappers, _placeholder_reader(args), window=False)


def _placeholder_reader(args):
    """node -> the Spark name of the argument a placeholder column stands for (`*` in
    `count(*)` is `1`), or None for any other node."""
    from sqlglot import exp

    from .dialect import ARG_PREFIX

    def text(node) -> str | None:
        if isinstance(node, exp.Column) and node.name.startswith(ARG_PREFIX) and not node.table:
            return argument_name(args[int(node.name[len(ARG_PREFIX):])])
        if isinstance(node, exp.Star):
            return "1"
        return None

    return text


def _unwrapped(fn):
    """(the call inside its wrappers, the wrappers from the outermost)."""
    wrappers = []
    while isinstance(fn, _call_wrappers()):
        wrappers.append(fn)
        fn = fn.this
    return fn, wrappers


def window_name(template, args) -> str | None:
    """Spark's name for `fn(...) OVER (...)`, e.g. `sum(x) OVER (PARTITION BY s ROWS
    BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)`; None if not a simple form.
    `template` is the window's sqlglot tree whose values are placeholder columns for
    `args` (see plans.sql_in.expr_calls.opaque_call)."""
    from sqlglot import exp

    from .dialect import function_name

    text = _placeholder_reader(args)
    if not isinstance(template, exp.Window) or template.args.get("alias"):
        return None
    fn, wrappers = _unwrapped(template.this)
    if not isinstance(fn, exp.Func):
        return None
    name = function_name(fn)
    fn_text: str | None
    if name in ("lag", "lead"):
        if any(isinstance(w, (exp.Filter, exp.WithinGroup)) for w in wrappers):
            return None
        raw = [fn.this, fn.args.get("offset"), fn.args.get("default")]
        if isinstance(fn, exp.Anonymous):
            raw = (list(fn.expressions) + [None, None, None])[:3]
        offset_text = text(raw[1]) if raw[1] is not None else "1"
        parts = [text(raw[0]), offset_text, text(raw[2]) if raw[2] is not None else "NULL"]
        if None in parts:
            return None
        n = offset_text if name == "lead" else (offset_text[1:] if offset_text.startswith("-") else f"-{offset_text}")
        frame = f"ROWS BETWEEN {n} FOLLOWING AND {n} FOLLOWING"
        fn_text = f"{name}({', '.join(parts)})"
    else:
        fn_text = _wrapped_call_text(fn, wrappers, text, window=True)
        if fn_text is None:
            return None
        frame = None
    pieces = []
    partition = template.args.get("partition_by") or []
    if partition:
        names = [text(p) for p in partition]
        if None in names:
            return None
        pieces.append("PARTITION BY " + ", ".join(names))
    order = template.args.get("order")
    ordered = list(order.expressions) if order is not None else []
    if ordered:
        items = []
        for o in ordered:
            t = text(o.this)
            if t is None:
                return None
            desc = bool(o.args.get("desc"))
            nulls_first = o.args.get("nulls_first")
            if nulls_first is None:
                nulls_first = not desc
            items.append(f"{t} {'DESC' if desc else 'ASC'} NULLS {'FIRST' if nulls_first else 'LAST'}")
        pieces.append("ORDER BY " + ", ".join(items))
    spec = template.args.get("spec")
    if spec is not None:
        kind = str(spec.args.get("kind") or "").upper()
        start = _bound(spec.args.get("start"), spec.args.get("start_side"), text)
        end = _bound(spec.args.get("end") or "CURRENT ROW", spec.args.get("end_side"), text)
        if not kind or start is None or end is None:
            return None
        frame = f"{kind} BETWEEN {start} AND {end}"
    elif frame is None:
        if name in _ROW_FRAME_FUNCTIONS:
            frame = f"ROWS {_UNBOUNDED_TO_CURRENT}"
        elif name == "cume_dist" or ordered:
            frame = f"RANGE {_UNBOUNDED_TO_CURRENT}"
        else:
            frame = "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"
    pieces.append(frame)
    return f"{fn_text} OVER ({' '.join(pieces)})"


def _bound(value, side, text) -> str | None:
    if isinstance(value, str):
        word = value.upper()
        if word == "CURRENT ROW":
            return "CURRENT ROW"
        if word == "UNBOUNDED":
            return f"UNBOUNDED {str(side or '').upper()}".strip()
        return None
    t = text(value) if value is not None else None
    if t is None:
        return None
    return f"{t} {str(side or '').upper()}".strip()


def quote_if_needed(name: str) -> str:
    """A name as Spark's QuotingUtils.quoteIfNeeded shows it inside a generated name:
    as is when it is letters, digits and underscores (not digits only), else
    backquoted (`struct(a AS `k x`)`)."""
    if re.fullmatch(r"[a-zA-Z0-9_]+", name) and not name.isdigit():
        return name
    return "`" + name.replace("`", "``") + "`"


def struct_field_name(node, position: int) -> str:
    """The name Spark gives the field made of `node`, the argument at `position` (from
    0) of `struct(...)` or of a tuple (Spark's CreateStruct.create): a column's name (the
    last part of `a.b.c`), an alias, the key of `m['k']`, else `col<position + 1>`."""
    from sqlglot import exp

    if isinstance(node, exp.Alias):
        return node.alias
    if isinstance(node, (exp.Column, exp.Dot)) and not isinstance(node.this, exp.Star):
        return node.name
    if isinstance(node, exp.Bracket) and len(node.expressions) == 1 \
            and isinstance(node.expressions[0], exp.Literal) and node.expressions[0].is_string:
        return node.expressions[0].this
    return f"col{position + 1}"

