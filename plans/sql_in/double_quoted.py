"""spark.sql.ansi.doubleQuotedIdentifiers (read with ANSI on only): `"x"` is an identifier,
as `` `x` `` is, not a string.

`as_backquoted(sql)` writes each double-quoted token in backquotes, which the session
reads alike, and the query is optimized as that text: a string is written in single
quotes, so the output keeps its meaning under the setting (`none_left` checks it).  A
double-quoted token that Spark's grammar then reads as no name (`INTERVAL "1" YEAR`, a
function's name, a LIKE pattern) is rejected by Spark; one sparkfold's parser would place
elsewhere than a name, or whose text needs escapes (a backslash, a doubled quote, a
backquote inside), passes the query through.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.tokens import TokenType

from ..ir.dialect import DIALECT
from .expr_context import NotModelled
from .parse import parse_query

KEY = "spark.sql.ansi.doubleQuotedIdentifiers"

# the nodes a name sits in: a column, a table, an alias, a CTE's or table's column list
_NAME_PARENTS = (exp.Column, exp.Table, exp.TableAlias, exp.Alias, exp.Dot)


def applies(unmodelled: tuple[tuple[str, str], ...]) -> bool:
    return any(k == KEY and v.strip().lower() == "true" for k, v in unmodelled)


def _double_quoted(sql: str) -> list[tuple[int, int]]:
    """The (start, end) of every double-quoted token (sqlglot's Spark dialect reads each as
    a string)."""
    tokens = DIALECT.tokenize(sql)
    out = []
    for k, t in enumerate(tokens):
        if t.token_type == TokenType.STRING and sql[t.start] == '"':
            inner = sql[t.start + 1:t.end]
            following = tokens[k + 1] if k + 1 < len(tokens) else None
            if any(ch in inner for ch in '\\`"') or (following is not None and following.start == t.end + 1
                                                     and following.token_type == TokenType.STRING):
                raise NotModelled(f"a double-quoted name with an escape under {KEY}")
            out.append((t.start, t.end))
    return out


def as_backquoted(sql: str) -> str:
    """`sql` with its double-quoted tokens written in backquotes (NotModelled where a
    sqlglot parse would not read one as a name)."""
    spans = _double_quoted(sql)
    if not spans:
        return sql
    out = sql
    for start, end in reversed(spans):
        out = out[:start] + "`" + out[start + 1:end] + "`" + out[end + 1:]
    starts = {start for start, _ in spans}
    placed: set[int] = set()
    for ident in parse_query(out, placed=False).find_all(exp.Identifier):
        at = ident.meta.get("start")
        if at in starts and ident.quoted:
            if not isinstance(ident.parent, _NAME_PARENTS) or isinstance(ident.parent.parent, exp.Interval):
                raise NotModelled(f"a double-quoted name under {KEY} read as no column, table or alias")
            placed.add(at)
    if placed != starts:
        raise NotModelled(f"a double-quoted token under {KEY} read as no name")
    return out


def none_left(sql: str) -> bool:
    """Does the text hold no double-quoted token (which the setting reads as a name)?"""
    try:
        return not any(sql[t.start] == '"' for t in DIALECT.tokenize(sql) if t.token_type == TokenType.STRING)
    except Exception:  # noqa: BLE001 - a text that does not tokenize is not the output's
        return False
