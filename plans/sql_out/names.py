"""Identifiers: when a name needs quotes, qualified column references, unique names."""

from __future__ import annotations

import functools

from sqlglot import exp

from ..ir.dialect import ARG_PREFIX


def _unique_names(names: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for n in names:
        cand, k = n, 1
        while cand.lower() in seen:
            k += 1
            cand = f"{n}_{k}"
        seen.add(cand.lower())
        out.append(cand)
    return out


_PLAIN = __import__("re").compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


_RESERVED = {"select", "from", "where", "group", "by", "order", "having", "limit", "offset", "and",
             "or", "not", "null", "true", "false", "join", "on", "as", "case", "when", "then", "else",
             "end", "union", "all", "distinct", "in", "is", "between", "like", "exists", "cross",
             "inner", "outer", "left", "right", "full", "semi", "anti", "using", "natural", "with",
             "table", "values", "intersect", "except", "minus", "cast", "interval", "date",
             "timestamp", "array", "map", "struct", "any", "some", "to", "window", "over",
             "partition", "rows", "range", "lateral", "create", "insert", "into", "div", "asc", "desc",
             "nulls", "first", "last", "for", "fetch", "only", "user", "current_date",
             "current_timestamp", "current_user", "primary", "references", "unique", "check",
             "constraint", "foreign", "column", "grant", "revoke", "both", "leading", "trailing",
             "position", "escape", "collate", "at", "time", "zone", "global", "local", "of",
             "authorization", "external", "union", "describe", "drop", "alter", "delete", "update",
             "set", "rollup", "cube", "grouping", "sets", "qualify", "pivot", "unpivot"}


@functools.lru_cache(maxsize=8192)
def _needs_quotes(name: str) -> bool:
    return not _PLAIN.match(name) or name.lower() in _RESERVED or name.lower().startswith(ARG_PREFIX)


def column_ref(name: str, table: str) -> exp.Column:
    """`table.name`, each part quoted when it needs to be."""
    return exp.Column(this=exp.Identifier(this=name, quoted=_needs_quotes(name)),
                      table=exp.Identifier(this=table, quoted=_needs_quotes(table)))
