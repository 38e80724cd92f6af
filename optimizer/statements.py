"""Statements that wrap a query, and where the query is in their text.

dbt sends every model as `CREATE TABLE ... USING ... AS <query>`; other clients send
`CREATE [OR REPLACE] [TEMPORARY] VIEW ... AS <query>`, `INSERT INTO|OVERWRITE ... <query>`,
`CACHE [LAZY] TABLE ... AS <query>`, `MERGE INTO ... USING (<query>) ...` and
`EXPLAIN [EXTENDED|...] <query>`.  `wrapped_query` finds the query's text, so that only
it is optimized and everything around it is kept exactly as written.

Where the query starts is read off the tokens, not the parsed tree (a node's span does
not cover its leading keywords): in CREATE, INSERT and CACHE the query is the first
`SELECT` or `WITH` outside parentheses and runs to the end of the statement (it is the
last part of each); in MERGE it is what the parentheses after `USING` hold.  A
statement whose query starts otherwise (`INSERT ... VALUES`, `FROM t SELECT ...`, a
parenthesized query) is not optimized.
"""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.tokens import TokenType

from ..plans.ir.dialect import DIALECT

_QUERY_STARTS = (TokenType.SELECT, TokenType.WITH)
_EXPLAIN = re.compile(r"\s*EXPLAIN(?:\s+(?:EXTENDED|CODEGEN|COST|FORMATTED))?\s+", re.IGNORECASE)


def wrapped_query(sql: str, tree: exp.Expression) -> tuple[int, int] | None:
    """(start, end) of the query a statement wraps (end exclusive), or None."""
    if isinstance(tree, exp.Command):
        return _explained(sql, tree)
    if isinstance(tree, (exp.Create, exp.Insert, exp.Cache)):
        if not isinstance(tree.args.get("expression"), exp.Query):
            return None
        return _trailing_query(sql)
    if isinstance(tree, exp.Merge):
        return _merge_source(sql)
    return None


def _end(sql: str) -> int:
    """The end of the statement's text, without trailing blanks and semicolon."""
    text = sql.rstrip()
    if text.endswith(";"):
        text = text[:-1].rstrip()
    return len(text)


def _trailing_query(sql: str) -> tuple[int, int] | None:
    try:
        tokens = DIALECT.tokenize(sql)
    except Exception:
        return None
    depth = 0
    for t in tokens:
        if t.token_type == TokenType.L_PAREN:
            depth += 1
        elif t.token_type == TokenType.R_PAREN:
            depth -= 1
        elif depth == 0 and t.token_type in _QUERY_STARTS:
            return t.start, _end(sql)
    return None


def _merge_source(sql: str) -> tuple[int, int] | None:
    try:
        tokens = DIALECT.tokenize(sql)
    except Exception:
        return None
    for i, t in enumerate(tokens[:-2]):
        if t.token_type == TokenType.USING and tokens[i + 1].token_type == TokenType.L_PAREN:
            if tokens[i + 2].token_type not in _QUERY_STARTS:
                return None
            depth = 0
            for u in tokens[i + 1:]:
                if u.token_type == TokenType.L_PAREN:
                    depth += 1
                elif u.token_type == TokenType.R_PAREN:
                    depth -= 1
                    if depth == 0:
                        return tokens[i + 2].start, u.start
            return None
    return None


def _explained(sql: str, tree: exp.Command) -> tuple[int, int] | None:
    if str(tree.this).upper() != "EXPLAIN":
        return None
    m = _EXPLAIN.match(sql)
    if m is None or not re.match(r"(SELECT|WITH)\b", sql[m.end():], re.IGNORECASE):
        return None
    return m.end(), _end(sql)


__all__ = ["wrapped_query"]


# Statements that hold no query, by their first word: SET, USE, SHOW, DROP, ...  The
# optimizer works on queries only (and on the query a CREATE, INSERT, CACHE, MERGE or
# EXPLAIN wraps); any other statement passes through as written, and the lints find
# nothing in these (no expression to read).  DESCRIBE (`DESCRIBE QUERY SELECT ...`),
# ALTER (`ALTER VIEW v AS SELECT ...`), DELETE and UPDATE (a WHERE) are not among them.
_NO_QUERY = frozenset({"SET", "RESET", "USE", "SHOW", "DROP", "REFRESH", "UNCACHE", "CLEAR", "ADD",
                       "LIST", "MSCK", "TRUNCATE", "ANALYZE"})
_FIRST_WORD = re.compile(r"(?:\s+|/\*.*?\*/|--[^\n]*)*([A-Za-z]+)", re.DOTALL)


def holds_no_query(sql: str) -> bool:
    """Is sql a statement no rule can change, told by its first word (a cheap pre-check:
    the spark.sql hook sends it as written without reading a schema or a setting)?"""
    m = _FIRST_WORD.match(sql)
    return m is not None and m.group(1).upper() in _NO_QUERY
