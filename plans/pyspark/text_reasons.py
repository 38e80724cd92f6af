"""What a DataFrame program runs as SQL text, named by construct: the reason a subtree
goes through `spark.sql(...)` (`Lowering.via_sql`) or an expression through
`F.expr(...)`.  The program lists them in its comment (`# SQL text (spark.sql): ...`,
`# SQL text (F.expr): ...`), which is what the sql-tests harness counts by construct."""

from __future__ import annotations

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir.dialect import function_name

# the comment lines naming them (parsed by tests/sqltests/check.py)
SQL_PREFIX = "# SQL text (spark.sql): "
EXPR_PREFIX = "# SQL text (F.expr): "

# a block with a LATERAL subquery that has no model as a join (`lateral.lateral_obstacle`
# names the others)
LATERAL_REASON = "LATERAL subquery in a block sparkfold keeps as text (a table after it, or a clause it does not analyze)"


def relation_reason(p: L.Plan) -> str:
    """The construct a subtree run as Spark SQL holds."""
    if isinstance(p, L.OpaqueRelation):
        return opaque_relation_reason(p.template)
    if isinstance(p, L.LocalRelation):
        return "VALUES of a type createDataFrame cannot hold"
    return type(p).__name__


def opaque_relation_reason(t) -> str:
    if not isinstance(t, exp.Select):
        return type(t).__name__
    with_ = t.args.get("with_")
    if with_ is not None and with_.args.get("recursive"):
        return "recursive CTE"
    from_ = t.args.get("from_")
    source = from_.this if from_ is not None else None
    if isinstance(source, exp.Table) and source.args.get("pivots"):
        unpivot = any(p.args.get("unpivot") for p in source.args["pivots"])
        return "UNPIVOT" if unpivot else "PIVOT"
    if isinstance(source, exp.Table) and isinstance(source.this, exp.Func):
        return f"table function {function_name(source.this)}()"
    if isinstance(source, exp.Table) and (source.args.get("sample") or t.find(exp.TableSample)):
        return "TABLESAMPLE"
    if any(isinstance(j.this, exp.Lateral) for j in t.args.get("joins") or []):
        return LATERAL_REASON
    if t.args.get("laterals"):
        outer = any(lat.args.get("outer") for lat in t.args["laterals"])
        return "LATERAL VIEW OUTER" if outer else "LATERAL VIEW"
    group = t.args.get("group")
    if group is not None:
        for arg, name in (("grouping_sets", "GROUPING SETS"), ("cube", "CUBE"), ("rollup", "ROLLUP"),
                          ("totals", "WITH TOTALS")):
            if group.args.get(arg):
                return f"GROUP BY {name}"
        for g in group.expressions:
            if isinstance(g, (exp.Rollup, exp.Cube, exp.GroupingSets)):
                return "GROUP BY " + {exp.Rollup: "ROLLUP", exp.Cube: "CUBE"}.get(type(g), "GROUPING SETS")
    for arg, name in (("qualify", "QUALIFY"), ("windows", "WINDOW clause"), ("distribute", "DISTRIBUTE BY"),
                      ("sort", "SORT BY"), ("cluster", "CLUSTER BY")):
        if t.args.get(arg):
            return name
    for item in t.expressions:
        body = item.this if isinstance(item, (exp.Alias, exp.Aliases)) else item
        if isinstance(body, exp.Func) and _is_generator(body):
            return f"generator {function_name(body)}() in a select list"
    if isinstance(source, exp.Values):  # (`sql_in.inline_table._kept`)
        return "VALUES kept as text (a value sparkfold does not type or evaluate, or a column of an array, map, " \
               "struct or interval type)"
    if isinstance(source, exp.Table) and t.expressions and isinstance(t.expressions[0], exp.Star):
        return "SELECT * FROM a table kept as text"
    return "SELECT block kept as text"


_GENERATORS = frozenset({"explode", "explode_outer", "posexplode", "posexplode_outer", "inline",
                         "inline_outer", "stack", "json_tuple", "unnest", "variant_explode",
                         "variant_explode_outer"})


def _is_generator(f: exp.Func) -> bool:
    return isinstance(f, (exp.Explode, exp.Posexplode, exp.Inline, exp.Unnest)) or function_name(f) in _GENERATORS


def expression_reason(e: E.Expr, why: str = "") -> str:
    """The construct an expression run as `F.expr` text is (its outermost one without a
    DataFrame form)."""
    if why:
        return why
    match e:
        case E.Opaque(kind="window"):
            return f"window function {e.function or 'call'}() OVER"
        case E.Opaque(kind="aggregate"):
            return f"aggregate {_opaque_name(e)}"
        case E.Opaque():
            return _opaque_name(e)
        case E.Agg(name, _, distinct, filter_):
            parts = [f"{name}(DISTINCT)" if distinct else name]
            if filter_ is not None:
                parts.append("FILTER")
            return "aggregate " + " ".join(parts)
        case E.SubqueryExpr():
            return "subquery " + type(e).__name__ + " correlated deeper than the DataFrame API reaches"
    return type(e).__name__


def _opaque_name(e: E.Opaque) -> str:
    t = e.template
    if isinstance(t, exp.Func):
        return f"{function_name(t)}()"
    if isinstance(t, exp.Window):
        return "window"
    return type(t).__name__.lower()


def comment_lines(relations: list[str], expressions: list[str]) -> list[str]:
    out = []
    for prefix, reasons in ((SQL_PREFIX, relations), (EXPR_PREFIX, expressions)):
        seen = list(dict.fromkeys(reasons))
        if seen:
            out.append(prefix + "; ".join(seen))
    return out
