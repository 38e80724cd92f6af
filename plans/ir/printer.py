"""Catalyst-like text for expressions (`(num#3 = null)`) and plans (indented trees).

Both are iterative, so deep trees print without recursion."""

from __future__ import annotations

import math

from . import expressions as E
from . import logical as L
from . import types as T
from .tree import fold


def literal_str(value, data_type) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, str):
        return value
    if isinstance(value, tuple) and data_type in T.INTERVALS:
        months, days, micros = value
        parts = []
        if months:
            parts.append(f"{months} months")
        if days:
            parts.append(f"{days} days")
        if micros:
            parts.append(f"{micros} microseconds")
        return "INTERVAL " + (" ".join(parts) or "0 days")
    return str(value)


def attr_str(a: E.Attribute) -> str:
    suffix = "L" if a.data_type == T.LONG else ""
    return f"{a.name}#{a.expr_id}{suffix}"


def _expr_node(e, args) -> str:
    match e:
        case E.Literal(value, dt):
            return literal_str(value, dt)
        case E.Attribute():
            return attr_str(e)
        case E.Alias(_, name, expr_id):
            suffix = "L" if e.data_type == T.LONG else ""
            return f"{args[0]} AS {name}#{expr_id}{suffix}"
        case E.Not():
            return f"NOT {args[0]}"
        case E.IsNull():
            return f"isnull({args[0]})"
        case E.IsNotNull():
            return f"isnotnull({args[0]})"
        case E.Negate():
            return f"-{args[0]}"
        case E.BinaryExpr():
            return f"({args[0]} {e.symbol} {args[1]})"
        case E.Cast(_, to, try_):
            return f"{'try_cast' if try_ else 'cast'}({args[0]} as {to.simple_string()})"
        case E.If():
            return f"if ({args[0]}) {args[1]} else {args[2]}"
        case E.CaseWhen(branches, otherwise):
            parts = ["CASE"]
            for i in range(len(branches)):
                parts.append(f"WHEN {args[2 * i]} THEN {args[2 * i + 1]}")
            if otherwise is not None:
                parts.append(f"ELSE {args[-1]}")
            parts.append("END")
            return " ".join(parts)
        case E.Coalesce():
            return f"coalesce({', '.join(args)})"
        case E.In():
            return f"{args[0]} IN ({','.join(args[1:])})"
        case E.Func(name):
            return f"{name}({', '.join(args)})"
        case E.Agg(name, fargs, distinct, flt):
            n = len(fargs)
            inner = ", ".join(args[:n])
            text = f"{name}({'distinct ' if distinct else ''}{inner})"
            if flt is not None:
                text += f" FILTER (WHERE {args[n]})"
            return text
        case E.Opaque():
            return e.sql_text or "opaque(...)"
        case E.ScalarSubquery():
            return "scalar-subquery"
        case E.Exists():
            return "exists"
        case E.InSubquery():
            return f"({', '.join(args)}) IN (list-query)"
        case E.SortOrder(_, asc, nulls_first):
            return f"{args[0]} {'ASC' if asc else 'DESC'} NULLS {'FIRST' if nulls_first else 'LAST'}"
        case _:
            return f"{type(e).__name__}({', '.join(args)})"


def expr_str(e: E.Expr) -> str:
    return fold(e, _expr_node)


def _list(exprs) -> str:
    return "[" + ", ".join(expr_str(x) for x in exprs) + "]"


def node_line(p: L.Plan) -> str:
    """One line describing a plan node (without its children)."""
    match p:
        case L.Relation(table, output):
            return f"Relation {table}[{','.join(attr_str(a) for a in output)}]"
        case L.LocalRelation(output, rows):
            body = "<empty>" if not rows else f"{len(rows)} row{'s' if len(rows) != 1 else ''}"
            return f"LocalRelation {body}, [{','.join(attr_str(a) for a in output)}]"
        case L.OneRowRelation():
            return "OneRowRelation"
        case L.OpaqueRelation():
            text = " ".join((p.sql_text or "").split())
            if len(text) > 80:
                text = text[:77] + "..."
            return f"OpaqueRelation [{','.join(attr_str(a) for a in p.output)}] {text}"
        case L.Project(projections):
            return f"Project {_list(projections)}"
        case L.Filter(condition):
            return f"Filter {expr_str(condition)}"
        case L.Aggregate(grouping, aggregates):
            return f"Aggregate {_list(grouping)}, {_list(aggregates)}"
        case L.Sort(orders):
            return f"Sort {_list(orders)}, true"
        case L.Limit(count):
            return f"GlobalLimit {count}"
        case L.Offset(count):
            return f"Offset {count}"
        case L.Distinct():
            return "Distinct"
        case L.SubqueryAlias(alias):
            return f"SubqueryAlias {alias}"
        case L.Join(_, _, join_type, condition):
            jt = {"inner": "Inner", "cross": "Cross", "left_outer": "LeftOuter",
                  "right_outer": "RightOuter", "full_outer": "FullOuter",
                  "left_semi": "LeftSemi", "left_anti": "LeftAnti"}[join_type]
            cond = f", {expr_str(condition)}" if condition is not None else ""
            return f"Join {jt}{cond}"
        case L.Union(_, all_):
            return "Union" if all_ else "Union (distinct)"
        case L.Intersect(_, _, all_):
            return f"Intersect{' All' if all_ else ''}"
        case L.Except(_, _, all_):
            return f"Except{' All' if all_ else ''}"
        case _:
            return type(p).__name__


def plan_str(plan: L.Plan) -> str:
    """Catalyst's tree layout: `:- ` before a child with siblings after it, `+- `
    before the last child; subquery plans hang off their node behind `:  `."""
    lines: list[str] = []
    stack = [(plan, "", "")]
    while stack:
        p, first_prefix, rest_prefix = stack.pop()
        lines.append(first_prefix + node_line(p))
        subqueries = [s for e in p.expressions for s in L.subquery_plans(e)]
        kids = p.children
        pushes = []
        for s in subqueries:
            pushes.append((s.plan, rest_prefix + ":  +- ", rest_prefix + ":     "))
        for i, k in enumerate(kids):
            last = i == len(kids) - 1
            pushes.append((k, rest_prefix + ("+- " if last else ":- "),
                           rest_prefix + ("   " if last else ":  ")))
        stack.extend(reversed(pushes))
    return "\n".join(lines)
