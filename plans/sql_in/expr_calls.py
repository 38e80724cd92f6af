"""Function calls: the modelled scalar functions and aggregates, window functions,
and everything else as an opaque call that keeps its text (with Spark's column name).
Each takes the `ExprAnalyzer` first."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sqlglot import exp

from ..ir import expressions as E
from ..ir import functions as F
from ..ir import types as T
from ..ir.dialect import ARG_PREFIX, DIALECT, TYPED_LITERAL_PREFIX, UNSIGNED_SHIFT, VARIANT_PATH, function_name
from ..ir.errors import AnalysisError
from ..ir.records import replace
from .constructors import constructor_type
from .expr_context import Ctx, NotModelled, calls_nondeterministic
from .expr_leaves import typed_literal_call
from .expr_operators import analyze_cast, concat_call
from .stars import has_star_argument
from . import variant_paths

if TYPE_CHECKING:
    from .scope import Scope


def analyze_anonymous(ea, node: exp.Anonymous, ctx):
    name = function_name(node)
    if name == VARIANT_PATH and variant_paths.is_marker(node):
        return variant_paths.analyze(ea, node, ctx)
    if name.startswith(TYPED_LITERAL_PREFIX):
        lit = typed_literal_call(ea, node)
        if lit is not None:
            return lit
    if name in ("tinyint", "smallint", "bigint", "binary", "decimal") and len(node.expressions) == 1:
        # bigint(x) is CAST(x AS BIGINT), decimal(x) CAST(x AS DECIMAL), named like
        # double(x) (sqlglot builds no cast for these)
        cast = exp.Cast(this=node.expressions[0].copy(), to=exp.DataType.build(name.upper()))
        cast.meta["name"] = name
        return analyze_cast(ea, cast, ctx)
    return function_or_opaque(ea, node, ctx)


# What sqlglot wraps around a call: `f(x) FILTER (WHERE ...)`, `f(x) IGNORE NULLS`
# (also how it reads `first_value(x, true)`), `f(p) WITHIN GROUP (ORDER BY ...)`.
CALL_WRAPPERS = (exp.Filter, exp.IgnoreNulls, exp.RespectNulls, exp.WithinGroup)


def _lambda_columns(node: exp.Lambda, ctx: Ctx, outer_params: frozenset = frozenset()) -> list[exp.Column]:
    """The query columns a lambda reads (a name is the lambda's variable first, as Spark
    resolves it; then a column), to be bound like any argument.  The lambda stays in
    place, as text, where its column name is not needed.  Its variables must not be
    names the rewritten query may write a column reference with (a table alias, a
    column, the generated `_q`...), which they would shadow."""
    if not ctx.unnamed_ok:
        raise NotModelled("lambda function")
    params = outer_params | {p.name.lower() for p in node.expressions}
    found: list[exp.Column] = []
    stack = [node.this]
    while stack:
        n = stack.pop()
        if isinstance(n, (exp.Subquery, exp.Select)):
            raise NotModelled("a subquery in a lambda function")
        if isinstance(n, exp.Lambda):
            found.extend(_lambda_columns(n, ctx, params))
            continue
        if isinstance(n, exp.Column):
            head = (n.parts[0].name if n.parts else n.name).lower()
            if head not in params:
                if isinstance(n.this, exp.Star):
                    raise NotModelled("a star in a lambda function")
                found.append(n)
            continue
        stack.extend(n.iter_expressions())
    if found:
        taken: set[str] = set()
        scope: Scope | None = ctx.scope
        while scope is not None:  # enclosing queries too: a correlated reference is written as well
            taken |= {part.lower() for name in scope.visible_names() for part in name.split(".")}
            scope = scope.parent
        for p in params - outer_params:
            base = re.sub(r"_\d+$", "", p)  # the writer's fresh names: t_2, _q, _q_3
            if p in taken or base in taken or base == "_q":
                raise NotModelled("a lambda variable named as a table or column of the query")
    return found


def _ignore_nulls_flag(node) -> bool:
    """`first(v, true)` and its kin: the flag is not in Spark's column name."""
    return isinstance(node, exp.Anonymous) and function_name(node) in (
        "first", "last", "first_value", "last_value", "any_value") and len(node.expressions) == 2


def analyze_window(ea, node, ctx):
    if not ctx.allow_windows:
        raise AnalysisError(f"window functions are not allowed in {ctx.clause}")
    fn = node.this
    while isinstance(fn, CALL_WRAPPERS):
        fn = fn.this
    name = function_name(fn) if isinstance(fn, exp.Expression) else ""
    if isinstance(fn, exp.Expression) and has_star_argument(fn):
        # (Spark expands it into the window function's arguments; kept as text, `*` would
        # read the columns of whatever FROM the rewritten query gives it)
        raise NotModelled(f"`*` among the arguments of the window function {name}()")
    out = ea.opaque(node, ctx, kind="window", root_is_structure=True)
    from ..ir.naming import window_name, wrapped_name_known

    spark_text = window_name(out.template, out.args)
    known = spark_text is not None and wrapped_name_known(out.template, out.args)
    if spark_text is None:
        spark_text = out.sql_text  # (a guess, never trusted: `known` is False)
    # (Spark's Count is never NULL; its Sum, Average, Min and Max always nullable, a
    # window expression as its function)
    return out.copy(data_type_=window_type(ea, name, out, fn, ctx), sql_text=spark_text, function=name,
                    name_known=known, not_null=name == "count",
                    nullable_known=name in ("sum", "avg", "min", "max"))


def window_type(ea, name, opaque: E.Opaque, fn, ctx) -> T.DataType:
    if name in ("row_number", "rank", "dense_rank", "ntile"):
        return T.INT
    if name in ("percent_rank", "cume_dist"):
        return T.DOUBLE
    own = [a for a in fn.args.values() if isinstance(a, exp.Expression)] if isinstance(fn, exp.Func) else []
    if isinstance(fn, exp.Anonymous):
        own = list(fn.expressions)
    if name in ("lag", "lead", "first_value", "last_value", "nth_value") and opaque.args and own:
        # the type of the value argument (the first placeholder: the function's own
        # arguments come before the window's PARTITION BY and ORDER BY values)
        t = opaque.args[0].data_type
        if name in ("lag", "lead") and len(own) > 2 and opaque.args[2].data_type not in (t, T.NULL):
            return T.UNKNOWN  # the default widens the type: not modelled
        return t
    spec = F.AGGREGATE_FUNCTIONS.get(name)
    if spec is not None and isinstance(fn, exp.Func):
        args = [a for a in fn.args.values() if isinstance(a, exp.Expression)]
        if isinstance(fn, exp.Count) or not args:
            return T.LONG if name == "count" else T.UNKNOWN
        n_args = len(args)
        fn_args = opaque.args[:n_args]
        if len(fn_args) == n_args:
            t = spec.result_type(fn_args)
            return t if t is not None else T.UNKNOWN
    return T.UNKNOWN


def analyze_filter(ea, node: exp.Filter, ctx):
    agg = ea.analyze(node.this, ctx)
    where = node.expression
    cond = where.this if isinstance(where, exp.Where) else where
    if calls_nondeterministic(cond):
        raise NotModelled("a non-deterministic aggregate FILTER")  # Spark rejects it
    if isinstance(agg, E.Agg) and agg.filter is None:
        return agg.copy(filter=ea.analyze(cond, replace(ctx, allow_aggregates=False)))
    if isinstance(agg, E.Opaque) and agg.kind == "aggregate":
        # an unmodelled aggregate with a FILTER: one aggregate, whose columns (the
        # filter's too) are read inside it, named as Spark names it
        return ea.opaque(node, ctx, kind="aggregate", root_is_structure=True)
    return ea.opaque(node, ctx)


def function_or_opaque(ea, node: exp.Expression, ctx: Ctx) -> E.Expr:
    name = function_name(node)
    if name in F.AGGREGATE_FUNCTIONS or name in F.KNOWN_AGGREGATE_NAMES:
        return aggregate_call(ea, node, name, ctx)
    if name in F.WINDOW_ONLY_NAMES:
        raise AnalysisError(f"{name}() needs an OVER clause")
    if name in F.GENERATOR_NAMES:
        raise NotModelled(f"generator {name}() in an expression")
    if name in ("isnull", "isnotnull"):
        args = _positional_args(node)
        if args is not None and len(args) == 1:
            inner = ea.analyze(args[0], ctx)
            return E.IsNull(inner) if name == "isnull" else E.IsNotNull(inner)
    spec = F.SCALAR_FUNCTIONS.get(name)
    if spec is not None:
        args = _positional_args(node)
        if args is not None and len(args) >= spec.min_args and \
                (spec.max_args is None or len(args) <= spec.max_args):
            analyzed = tuple(ea.analyze(a, ctx) for a in args)
            call = concat_call(ea, analyzed) if name == "concat" else E.Func(name, analyzed)
            if name == "nullif" and T.UNKNOWN not in (call.args[0].data_type, call.args[1].data_type):
                # Spark's nullif(a, b) is `IF(a = b, NULL, a)`: coerced (or rejected) as `a = b`
                ea.checked(E.EqualTo(*call.args), node, ctx)
            if _takes(call, ea.ansi):
                return call
    kind = "scalar"
    return ea.opaque(node, ctx, kind)


def _takes(call: E.Func | E.Agg, ansi: bool) -> bool:
    """Does Spark take the call's arguments (by their types; one of an unknown type is
    taken: the call is checked where it is known)?  Where it does not, Spark rejects
    the call or casts in a way not modelled: the call is opaque (a scalar) or not
    modelled (an aggregate)."""
    types = [a.data_type for a in call.args]
    return T.UNKNOWN in types or F.accepts(call.spec.inputs, types, ansi)


def analyze_wrapped_call(ea, node, ctx):
    """`f(p) WITHIN GROUP (ORDER BY x)`, `f(x) IGNORE NULLS` outside a window: an
    unmodelled aggregate (or call), its arguments read inside it."""
    fn = node.this
    while isinstance(fn, CALL_WRAPPERS):
        fn = fn.this
    name = function_name(fn) if isinstance(fn, exp.Expression) else ""
    if not (name in F.AGGREGATE_FUNCTIONS or name in F.KNOWN_AGGREGATE_NAMES or isinstance(fn, exp.AggFunc)):
        return ea.opaque(node, ctx)
    _check_aggregate_allowed(node, name, ctx)
    return ea.opaque(node, ctx, kind="aggregate", root_is_structure=True)


def _check_aggregate_allowed(node, name, ctx) -> None:
    if not ctx.allow_aggregates and ctx.scope.parent is not None:
        # in a subquery, an aggregate of the outer query's columns (`HAVING EXISTS
        # (... WHERE b < min(emp.salary))`) belongs to the outer aggregate
        raise NotModelled(f"aggregate function {name}() in a subquery's {ctx.clause}")
    if not ctx.allow_aggregates:
        raise AnalysisError(f"aggregate function {name}() is not allowed in {ctx.clause}")
    if ctx.in_aggregate:
        raise AnalysisError(f"aggregate function {name}() inside another aggregate")
    if calls_nondeterministic(node):
        # Spark rejects it (AGGREGATE_FUNCTION_WITH_NONDETERMINISTIC_EXPRESSION); a rule
        # folding the aggregate (count -> count(1), empty input) would hide that error
        raise NotModelled(f"a non-deterministic argument of {name}()")


def outer_aggregate(ea, node, ctx) -> E.Expr | None:
    """An aggregate in a subquery's WHERE over the enclosing query's columns only, where
    that query's HAVING holds the subquery (`GROUP BY d HAVING EXISTS (SELECT 1 FROM b
    WHERE b.x < min(emp.salary))`): Spark computes it in the enclosing query's aggregate
    and the subquery reads it as an outer reference (its UpdateOuterReferences).  Returns
    it analyzed there (the enclosing query's `aggregate_query` takes it into its
    aggregate), or None for any other aggregate."""
    host = ctx.scope.parent
    if ctx.allow_aggregates or ctx.in_aggregate or ctx.clause != "WHERE" or host is None:
        return None
    hosted = ea.analyzer.aggregate_hosts.get(id(host))
    if hosted is None or node.find(exp.Select, exp.Subquery, exp.Star, exp.Lambda, exp.Window) is not None:
        return None
    columns = list(node.find_all(exp.Column))
    if not columns:
        return None
    for col in columns:
        parts = tuple(p.name for p in col.parts)
        try:
            _found, _rest, depth = ctx.scope.resolve(parts, ".".join(parts))
        except AnalysisError:
            return None
        if depth != 1:  # a column of the subquery (Spark: AGGREGATE_FUNCTION_MIXED_OUTER_LOCAL_REFERENCES)
            return None
    out = ea.analyze(node, Ctx(host, allow_aggregates=True, clause="HAVING"))
    hosted.append(out)
    return out


def aggregate_call(ea, node, name, ctx) -> E.Expr:
    outer = outer_aggregate(ea, node, ctx)
    if outer is not None:
        return outer
    _check_aggregate_allowed(node, name, ctx)
    inner = replace(ctx, in_aggregate=True, allow_windows=False)
    spec = F.AGGREGATE_FUNCTIONS.get(name)
    args = _positional_args(node)
    distinct = False
    if args is not None and len(args) == 1 and isinstance(args[0], exp.Distinct):
        distinct = True
        args = list(args[0].expressions)
    if name == "count" and args is not None and len(args) == 1 and isinstance(args[0], exp.Star):
        if distinct:
            # count(DISTINCT *) counts the distinct rows of all the columns, none of them
            # NULL (Spark expands the star into the arguments): not count(DISTINCT 1)
            raise NotModelled("`*` as the argument of count(DISTINCT ...)")
        args = [exp.Literal.number(1)]
    if spec is not None and args is not None and len(args) >= spec.min_args and \
            (spec.max_args is None or len(args) <= spec.max_args) and \
            not any(isinstance(a, (exp.Star, exp.Distinct)) for a in args):
        agg = E.Agg(name, tuple(ea.analyze(a, inner) for a in args), distinct)
        if _takes(agg, ea.ansi):
            return agg
        if name not in F.OPAQUE_BEYOND_INPUTS:
            raise NotModelled(f"{name}() of {', '.join(a.data_type.simple_string() for a in agg.args)}")
    if name in ("grouping", "grouping_id"):
        if not ctx.grouping_analytics:
            # Spark rejects it, by a class that depends on where
            raise NotModelled(f"{name}() outside GROUPING SETS, ROLLUP or CUBE")
        return ea.opaque(node, inner, kind="aggregate").copy(data_type_=T.BYTE if name == "grouping" else T.LONG)
    return ea.opaque(node, inner, kind="aggregate")


def opaque_call(ea, node: exp.Expression, ctx: Ctx, kind: str = "scalar",
           root_is_structure: bool = False) -> E.Opaque:
    """Keep `node` as sqlglot text, analyzing its value sub-expressions as args."""
    from ..ir.naming import struct_field_name

    template = node.copy()
    args: list[E.Expr] = []
    sub_ctx = ctx
    if kind == "aggregate":
        sub_ctx = replace(ctx, in_aggregate=True, allow_windows=False)

    unit = _unit_argument(template)

    def is_value(v) -> bool:
        # (a call wrapped in WITHIN GROUP / FILTER / IGNORE NULLS is a value too:
        # `hex(listagg(c) WITHIN GROUP (ORDER BY c))`)
        return isinstance(v, (exp.Condition, exp.Interval, exp.Subquery, *CALL_WRAPPERS)) and not \
            isinstance(v, exp.Star) and v is not unit

    def visit(n: exp.Expression, this_is_structure: bool):
        # Replace each value sub-expression by a placeholder column and analyze it;
        # descend into structure (window specs, orderings, type names...).  With
        # `this_is_structure`, n's `this` (a window's function) is descended into.
        if isinstance(n, exp.Anonymous) and n.name.lower().startswith(TYPED_LITERAL_PREFIX):
            return  # a literal sparkfold cannot type (`1.20E-38BD`): kept as written
        for key, value in list(n.args.items()):
            items = value if isinstance(value, list) else [value]
            new_items: list[object] = []
            changed = False
            for v in items:
                if isinstance(v, exp.Lambda):
                    # kept as written, its variables its own; the query's columns it
                    # reads are bound as arguments
                    for col in _lambda_columns(v, ctx):
                        args.append(ea.analyze(col, sub_ctx))
                        col.replace(exp.column(f"{ARG_PREFIX}{len(args) - 1}"))
                    new_items.append(v)
                    changed = True
                    continue
                if not isinstance(v, exp.Expression) or (isinstance(n, exp.Interval) and key == "this") \
                        or isinstance(v, exp.DataType):
                    # (an interval's value is its literal, `INTERVAL -'1-1' YEAR TO MONTH`; a
                    # type's parameters are its own, `TIME(3)`, `GEOGRAPHY(4326)`)
                    new_items.append(v)
                elif isinstance(n, exp.Escape) and key == "this":
                    # `a LIKE b ESCAPE c`: the LIKE is the syntax, its operands the values
                    visit(v, False)
                    new_items.append(v)
                elif isinstance(n, (exp.Any, exp.All)) and key == "this" and isinstance(v, exp.Paren):
                    # `LIKE ANY ('a')`: the parentheses are syntax (`ANY 'a'` does not parse)
                    visit(v, False)
                    new_items.append(v)
                elif is_value(v) and not (this_is_structure and key == "this"):
                    args.append(ea.analyze(v, sub_ctx))
                    placeholder = exp.column(f"{ARG_PREFIX}{len(args) - 1}")
                    if isinstance(n, (exp.Struct, exp.Tuple)) or (isinstance(n, exp.Anonymous)
                                                                  and n.name.lower() == "struct"):
                        # struct(X.A) names its field `A`, as written, struct(f(x)) `col1`
                        # (see sql_out's _opaque)
                        placeholder.meta["written_name"] = struct_field_name(v, len(new_items))
                    new_items.append(placeholder)
                    changed = True
                else:
                    # a window's function may be wrapped (`f(x) FILTER (...)`, `IGNORE
                    # NULLS`, `WITHIN GROUP (...)`): the function inside is structure too
                    visit(v, this_is_structure and key == "this" and isinstance(v, CALL_WRAPPERS))
                    new_items.append(v)
            if changed:
                n.set(key, new_items if isinstance(value, list) else new_items[0])

    visit(template, root_is_structure)
    name = None
    known = False
    if kind == "aggregate" and (isinstance(node, CALL_WRAPPERS) or _ignore_nulls_flag(node)):
        from ..ir.naming import wrapped_call_name, wrapped_name_known

        name = wrapped_call_name(template, args)
        # (a form whose name sparkfold cannot write, `listagg(DISTINCT c, ',') WITHIN GROUP
        # (...)`: a guess, never trusted, as any unknown name; aliased, it needs none)
        known = name is not None and wrapped_name_known(template, args)
        name = name if name is not None else node.sql(dialect=DIALECT)
    if name is None:
        name, known = _opaque_name(node, args)
    data_type: T.DataType = T.UNKNOWN
    not_null = False
    if kind == "scalar":  # (a window's type is window_type's)
        data_type = F.opaque_result_type(function_name(node), [a.data_type for a in args], ea.ansi, ea.timestamp)
        made = constructor_type(function_name(node), template, tuple(args))
        if made is not None:  # `array(...)`, `struct(...)`: never NULL
            data_type, not_null = made, True
    return E.Opaque(template, tuple(args), data_type, kind, name, name_known=known, not_null=not_null)


# sqlglot node -> (spark name, how to read its arguments) for modelled scalar functions
_UNARY_FUNCS = (exp.Upper, exp.Lower, exp.Length, exp.Abs, exp.IsNan)


_UNIT_FIRST = frozenset({"timestampadd", "timestampdiff", "timediff", "dateadd", "datediff", "date_diff", "date_add",
                         "timestamp_add", "timestamp_diff"})


_DATETIME_UNITS = frozenset({"YEAR", "YEARS", "QUARTER", "QUARTERS", "MONTH", "MONTHS", "WEEK", "WEEKS", "DAY",
                             "DAYS", "DAYOFYEAR", "HOUR", "HOURS", "MINUTE", "MINUTES", "SECOND", "SECONDS",
                             "MILLISECOND", "MILLISECONDS", "MICROSECOND", "MICROSECONDS"})


def _unit_argument(node: exp.Expression) -> exp.Expression | None:
    """The unit keyword of a call written as `timestampadd(DAY, 1, ts)` (a structure
    argument, not a column), or None."""
    if isinstance(node, exp.Anonymous) and function_name(node) in _UNIT_FIRST and node.expressions:
        first = node.expressions[0]
        if isinstance(first, (exp.Column, exp.Var)) and not (isinstance(first, exp.Column) and first.table) \
                and first.name.upper() in _DATETIME_UNITS:
            return first
    return None


# (sqlglot before 30.9 reads nanvl as an anonymous call)
_THIS_AND_EXPRESSION = tuple(getattr(exp, n) for n in ("Nullif", "Nanvl") if hasattr(exp, n))


def _positional_args(node: exp.Expression):
    """Arguments of a function node in Spark's order, or None if it has extra options."""
    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    if isinstance(node, exp.Substring):
        args = [node.this, node.args.get("start")]
        if node.args.get("length") is not None:
            args.append(node.args["length"])
        return None if args[1] is None or node.args.get("zero_start") else args
    if isinstance(node, _THIS_AND_EXPRESSION):
        return [node.this, node.expression]
    if isinstance(node, exp.TsOrDsAdd) and function_name(node) == "date_add" \
            and str(node.args.get("unit") or "DAY").upper() == "DAY":
        # date_add(d, n) (sqlglot's TsOrDsAdd with unit DAY): Spark names it `date_add(d, n)`
        return [node.this, node.expression]
    if isinstance(node, exp.Round):
        if node.args.get("truncate"):
            return None
        return [node.this] + ([node.args["decimals"]] if node.args.get("decimals") is not None else [])
    if isinstance(node, (exp.Greatest, exp.Least)):
        # sqlglot marks Spark's greatest/least as ignoring NULLs, which is what they do
        return [node.this] + list(node.expressions)
    if isinstance(node, exp.Concat):
        return list(node.expressions)
    if isinstance(node, exp.Trim):
        if any(node.args.get(k) for k in ("expression", "position", "collation")):
            return None
        return [node.this]
    if isinstance(node, exp.ArrayAgg) and node.args.get("nulls_excluded") and \
            set(k for k, v in node.args.items() if v) == {"this", "nulls_excluded"}:
        return [node.this]  # collect_list(x): sqlglot's ARRAY_AGG that skips NULLs, as it does
    if isinstance(node, exp.Count):
        this = node.this
        if this is None:
            return list(node.expressions) or None
        return [this] + list(node.expressions)
    if isinstance(node, exp.Func):
        values = []
        for key in node.arg_types:
            v = node.args.get(key)
            if v is None or v is False:
                continue
            if key in ("this", "expression", "expressions"):
                if isinstance(v, list):
                    values.extend(v)
                else:
                    values.append(v)
            else:
                return None
        return values
    return None


# unmodelled operators and Spark's names for them (checked on Spark 4.3)
_OPERATOR_NAMES: dict[type[exp.Expr], str] = {
    exp.BitwiseAnd: "({} & {})", exp.BitwiseOr: "({} | {})", exp.BitwiseXor: "({} ^ {})",
    exp.BitwiseLeftShift: "({} << {})", exp.BitwiseRightShift: "({} >> {})",
    exp.RegexpLike: "RLIKE({}, {})", exp.ILike: "ilike({}, {})", exp.BitwiseNot: "~{}"}


_BITWISE = (exp.BitwiseAnd, exp.BitwiseOr, exp.BitwiseXor, exp.BitwiseNot)


def _arity(node: exp.Expression) -> int:
    return 1 if isinstance(node, exp.BitwiseNot) else 2


def _opaque_name(node: exp.Expression, args) -> tuple[str, bool]:
    """Spark's name for an unmodelled expression, and whether it is known to be Spark's
    (see `naming.name_known`): operators and TRIM's forms are; a call `name(arg, ...)` is
    when Spark was seen to name calls of that function with arguments of those types so
    (`naming.plain_call`); anything else is sparkfold's best guess, its SQL text."""
    from ..ir.naming import argument_name, call_key, call_name, plain_call, quote_if_needed

    if _unit_argument(node) is not None:
        # `datediff(DAY, a, b)` is Spark's timestampdiff, `dateadd(DAY, n, d)` its timestampadd
        name = "timestampdiff" if "diff" in function_name(node) else "timestampadd"
        unit = node.expressions[0].name  # as written
        return f"{name}({unit}, {', '.join(argument_name(a) for a in args)})", False
    if isinstance(node, exp.Extract) and len(args) == 1 and isinstance(node.this, (exp.Var, exp.Column)):
        return f"extract({node.this.name} FROM {argument_name(args[0])})", False
    if isinstance(node, exp.Trim) and 1 <= len(args) <= 2 and not node.args.get("collation"):
        position = str(node.args.get("position") or "BOTH").upper()
        names = [argument_name(a) for a in args]
        if len(args) == 1:
            return {"LEADING": "ltrim", "TRAILING": "rtrim"}.get(position, "trim") + f"({names[0]})", True
        return f"TRIM({position} {names[1]} FROM {names[0]})", True
    if isinstance(node, exp.Bracket) and len(node.expressions) == 1 and len(args) == 2:
        return f"{argument_name(args[0])}[{argument_name(args[1])}]", False  # `NULL[0]`, `map(a, m)[a]`
    if isinstance(node, exp.Between) and len(args) == 3:
        return f"between({', '.join(argument_name(a) for a in args)})", True
    if len(args) == _arity(node) and type(node) in _OPERATOR_NAMES:
        form = _OPERATOR_NAMES[type(node)]
        if node.meta.get(UNSIGNED_SHIFT):
            form = "({} >>> {})"
        # (a bitwise operator of void operands only: Spark makes each a NULL of the type
        # the operator takes, named NULL)
        void = isinstance(node, _BITWISE) and all(a.data_type == T.NULL for a in args)
        text = form.format(*("NULL" if void else argument_name(a) for a in args))
        return (f"(NOT {text})" if node.args.get("negate") else text), True
    if isinstance(node, (exp.Anonymous, exp.Func)) and not isinstance(node, exp.Window):
        positional = _positional_args(node)
        if positional is not None and len(positional) == len(args):
            key = call_key(function_name(node), args)
            # an argument written with an alias (`struct(a AS k)`) keeps it in the name
            names = [f"{argument_name(a)} AS {quote_if_needed(p.alias)}" if isinstance(p, exp.Alias) else argument_name(a)
                     for p, a in zip(positional, args)]
            return call_name(function_name(node), names), plain_call(key)

    # Spark's generated names show string literals without quotes: map('a', m)['a'] is
    # `map(a, m)[a]`
    unquoted = node.copy()
    for lit in list(unquoted.find_all(exp.Literal)):
        if lit.is_string:
            lit.replace(exp.Var(this=lit.this))  # (exp.var refuses '': `v LIKE ANY ('')`)
    return unquoted.sql(dialect=DIALECT, normalize_functions=False, copy=False), False  # (a copy of its own)


def opaque_call_key(o: E.Opaque):
    """`naming.call_key` of an unmodelled call `name(arg, ...)` (None for anything else)."""
    from ..ir.naming import call_key

    node: exp.Expression = o.template
    if not isinstance(node, (exp.Anonymous, exp.Func)) or isinstance(node, (exp.Window, *CALL_WRAPPERS)) \
            or isinstance(node, (exp.Extract, exp.Trim)) or type(node) in _OPERATOR_NAMES:
        return None
    positional = _positional_args(o.template)
    if _unit_argument(o.template) is not None or positional is None or len(positional) != len(o.args):
        return None
    return call_key(function_name(node), o.args)
