"""Spark's semi-structured extraction, `v:a.b[0]['c']`: a path into a VARIANT column.

sqlglot's Spark parser does not read it.  Spark's parser makes `col:path` a
`SemiStructuredExtract` of the column and the path `$.a.b[0]['c']` (its text without
spaces), aliased after the path's last name (`c`; none for `v:[0]`), and the analyzer
makes it `variant_get(col, path)`: a VARIANT, NULL where the path finds nothing; a
column that is no VARIANT is Spark's COLUMN_IS_NOT_VARIANT_TYPE.

Here the tokens `col : path` become the marker call `__sf_variant_path(col, 'path')`
(`marked`), which sqlglot reads as any call: the column is an operand the rules see
(renamed, qualified, optimized around), the path stays text, and the writer prints the
extraction back as `col:path` (`plans.ir.dialect`).  The analyzer keeps it opaque (its
value is Spark's to compute), of a type sparkfold does not know (a VARIANT), named as
Spark names it at the top of a select list, alone or under one cast (`v:a.b::int` is
`b`); inside another expression its name is left to Spark.

Only the paths of names, quoted keys and whole-number subscripts are read; anything
else after the colon (a backquoted name, `[name]`, a subscript that is an expression)
is left as written, and the statement passes through (`parse._unmodelled_syntax`).
"""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.tokens import Token, TokenType

from ..ir import expressions as E
from ..ir import types as T
from ..ir.dialect import ARG_PREFIX
from ..ir.dialect import VARIANT_PATH as MARKER
from ..ir.naming import argument_name, variant_path_alias
from .expr_context import NotModelled

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEY = re.compile(r"'[^'\\]*'")
_INDEX = re.compile(r"\d+")
# words before `(` that open a parenthesized operand, not a call
_NOT_CALLS = frozenset({"SELECT", "WHERE", "AND", "OR", "NOT", "ON", "BY", "WHEN", "THEN", "ELSE", "HAVING",
                        "DISTINCT", "CASE", "ALL", "QUALIFY", "RETURN", "IN", "IS", "AS", "LIKE", "ILIKE", "RLIKE",
                        "BETWEEN", "EXISTS", "FROM", "JOIN", "USING", "VALUES", "LIMIT", "OFFSET"})


def marked(tokens: list[Token], sql: str) -> list[Token]:
    """The tokens with each variant path this module reads made a marker call."""
    if not any(t.token_type == TokenType.COLON for t in tokens):
        return tokens
    out: list[Token] = []
    i, n = 0, len(tokens)
    while i < n:
        t = tokens[i]
        if t.token_type == TokenType.COLON and out and not _in_type(out):
            path = _path(tokens, i + 1, sql)
            start = _operand_start(out) if path is not None else None
            if path is not None and start is not None:
                text, end = path
                first = out[start]
                mk = lambda tt, s: Token(tt, s, first.line, first.col, first.start, first.end)  # noqa: E731
                out[start:start] = [mk(TokenType.VAR, MARKER), mk(TokenType.L_PAREN, "(")]
                last = tokens[end - 1]
                out.extend(Token(tt, s, last.line, last.col, last.start, last.end)
                           for tt, s in ((TokenType.COMMA, ","), (TokenType.STRING, text), (TokenType.R_PAREN, ")")))
                i = end
                continue
        out.append(t)
        i += 1
    return out


def _path(tokens: list[Token], i: int, sql: str) -> tuple[str, int] | None:
    """(the path's text as Spark's parser takes it, without spaces; the index after it)
    for a path this module reads at tokens[i], else None."""
    parts: list[str] = []
    n = len(tokens)
    while i < n:
        t = tokens[i]
        if t.token_type == TokenType.L_BRACKET and i + 2 < n and tokens[i + 2].token_type == TokenType.R_BRACKET:
            inner = tokens[i + 1]
            raw = sql[inner.start:inner.end + 1]
            if not ((inner.token_type == TokenType.STRING and _KEY.fullmatch(raw))
                    or (inner.token_type == TokenType.NUMBER and _INDEX.fullmatch(raw))):
                return None
            parts.append(f"[{raw}]")
            i += 3
        elif not parts and t.token_type not in (TokenType.STRING, TokenType.IDENTIFIER) and _WORD.fullmatch(t.text):
            parts.append(t.text)
            i += 1
        elif parts and t.token_type == TokenType.DOT and i + 1 < n \
                and tokens[i + 1].token_type not in (TokenType.STRING, TokenType.IDENTIFIER) \
                and _WORD.fullmatch(tokens[i + 1].text):
            parts.append("." + tokens[i + 1].text)
            i += 2
        else:
            break
    if not parts:
        return None
    if i < n and tokens[i].token_type in (TokenType.DOT, TokenType.L_BRACKET, TokenType.IDENTIFIER):
        return None  # more path than this module reads (`v:a.`b``, `v:a[i]`, `v:a[1 + 0]`)
    return "".join(parts), i


def _operand_start(out: list[Token]) -> int | None:
    """Where the primary expression ending `out` starts (a column, `t.col`, a call, a
    parenthesized expression, a subscript of one), or None."""
    j = len(out) - 1
    while j >= 0:
        t = out[j]
        if t.token_type in (TokenType.R_PAREN, TokenType.R_BRACKET):
            k = _opening(out, j)
            if k is None:
                return None
            if t.token_type == TokenType.R_BRACKET:
                j = k - 1  # (what the subscript is of)
                continue
            before = out[k - 1] if k > 0 else None
            if before is None or not _WORD.fullmatch(before.text) or before.text.upper() in _NOT_CALLS \
                    or before.token_type in (TokenType.STRING, TokenType.IDENTIFIER):
                return k  # a parenthesized expression
            if k > 1 and out[k - 2].token_type == TokenType.DOT:
                return None  # a qualified function's name
            return k - 1
        if t.token_type in (TokenType.VAR, TokenType.IDENTIFIER):
            while j >= 2 and out[j - 1].token_type == TokenType.DOT \
                    and out[j - 2].token_type in (TokenType.VAR, TokenType.IDENTIFIER):
                j -= 2
            return j
        return None
    return None


def _opening(out: list[Token], j: int) -> int | None:
    close = out[j].token_type
    open_ = TokenType.L_PAREN if close == TokenType.R_PAREN else TokenType.L_BRACKET
    depth = 0
    for k in range(j, -1, -1):
        if out[k].token_type == close:
            depth += 1
        elif out[k].token_type == open_:
            depth -= 1
            if depth == 0:
                return k
    return None


def _in_type(out: list[Token]) -> bool:
    """Is the colon a struct field's in a type (`STRUCT<a: INT, b: ARRAY<INT>>`)?"""
    depth = 0
    for k in range(len(out) - 1, -1, -1):
        tt = out[k].token_type
        if tt == TokenType.GT:
            depth += 1
        elif tt == TokenType.LT:
            if depth == 0:
                return k > 0 and out[k - 1].token_type == TokenType.STRUCT
            depth -= 1
        elif tt in (TokenType.SELECT, TokenType.FROM, TokenType.WHERE):
            return False
    return False


def is_marker(node: exp.Expression) -> bool:
    return isinstance(node, exp.Anonymous) and str(node.this).lower() == MARKER and len(node.expressions) == 2


def path_text(node: exp.Anonymous) -> str:
    return str(node.expressions[1].this)


def analyze(ea, node: exp.Anonymous, ctx) -> E.Opaque:
    """The extraction as an opaque value of the column (analyzed as any operand) and the
    path (text): a VARIANT, which sparkfold does not type.  A column of a type sparkfold
    knows is no VARIANT (Spark: COLUMN_IS_NOT_VARIANT_TYPE): left to Spark."""
    column = ea.analyze(node.expressions[0], ctx)
    if column.data_type != T.UNKNOWN:
        raise NotModelled(f"a variant path (`v:a.b`) of a {column.data_type.simple_string()} value")
    template = node.copy()
    template.expressions[0].replace(exp.column(f"{ARG_PREFIX}0"))
    path = path_text(node)
    named = variant_path_alias(path)
    # (named at the top of a select list as `named`: `naming.spark_name`; elsewhere Spark's
    # name shows `variant_get(col, $.path) AS named`, which is left to Spark)
    return E.Opaque(template, (column,), T.UNKNOWN, "scalar", named or f"{argument_name(column)}:{path}",
                    name_known=False)
