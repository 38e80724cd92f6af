"""PIVOT's aggregates written as expressions, which sqlglot's parser does not read.

Spark's grammar takes any named expression as a PIVOT aggregate (`PIVOT (aggregates=
namedExpressionSeq FOR ...)`: `ceil(sum(e))`, `avg(e) + 1 AS a1`), and its analyzer
then checks each is an aggregate or an expression of aggregates.  sqlglot's parser reads
a function call there and nothing more (`avg(e) + 1` is a syntax error to it).  So, on
the tokens: every aggregate that is not one call is wrapped in the marker call
`__sf_pivot_agg(...)` (its alias left outside), which sqlglot reads as a call of any
expression; `unwrap` takes the marker off the trees after.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.tokens import Token, TokenType

MARKER = "__sf_pivot_agg"

_OPEN = frozenset({TokenType.L_PAREN, TokenType.L_BRACKET})
_CLOSE = frozenset({TokenType.R_PAREN, TokenType.R_BRACKET})
_NAME = frozenset({TokenType.VAR, TokenType.IDENTIFIER})
# tokens after which a name is an alias, not an operand (`avg(e) + 1 a1`)
_ENDS_OPERAND = frozenset({TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.VAR, TokenType.IDENTIFIER,
                           TokenType.NUMBER, TokenType.STRING, TokenType.NULL, TokenType.TRUE, TokenType.FALSE,
                           TokenType.END})


def wrapped(tokens: list[Token], i: int) -> list[tuple[int, int]]:
    """For the PIVOT at tokens[i], the spans [start, end) of the aggregates to wrap: those
    that are not one call `f(...)`, their alias left out.  Empty for an UNPIVOT, a PIVOT
    not followed by `(`, or one whose FOR is not found."""
    n = len(tokens)
    if tokens[i].token_type != TokenType.PIVOT or i + 1 >= n or tokens[i + 1].token_type != TokenType.L_PAREN:
        return []
    items: list[tuple[int, int]] = []
    depth, start = 0, i + 2
    for k in range(i + 2, n):
        tt = tokens[k].token_type
        if tt in _OPEN:
            depth += 1
        elif tt in _CLOSE:
            if depth == 0:
                return []
            depth -= 1
        elif depth == 0 and tt in (TokenType.COMMA, TokenType.FOR):
            items.append((start, k))
            start = k + 1
            if tt == TokenType.FOR:
                break
    else:
        return []
    return [span for s, e in items if (span := _expression_span(tokens, s, e)) is not None]


def _expression_span(tokens: list[Token], s: int, e: int) -> tuple[int, int] | None:
    """The aggregate's expression in tokens[s:e] without its alias, when it is no call."""
    if e <= s:
        return None
    depth, end = 0, e
    for k in range(s, e):
        tt = tokens[k].token_type
        if tt in _OPEN:
            depth += 1
        elif tt in _CLOSE:
            depth -= 1
        elif depth == 0 and tt == TokenType.ALIAS:
            end = k
            break
    else:
        if e - s >= 2 and tokens[e - 1].token_type in _NAME and tokens[e - 2].token_type in _ENDS_OPERAND:
            end = e - 1  # an alias without AS
    if end <= s:
        return None
    if _one_call(tokens, s, end):
        return None
    return s, end


def _one_call(tokens: list[Token], s: int, e: int) -> bool:
    """Is tokens[s:e] one call `f(...)` (sqlglot's parser reads it)?"""
    if e - s < 3 or tokens[s + 1].token_type != TokenType.L_PAREN or tokens[e - 1].token_type != TokenType.R_PAREN:
        return False
    depth = 0
    for k in range(s + 1, e):
        tt = tokens[k].token_type
        if tt in _OPEN:
            depth += 1
        elif tt in _CLOSE:
            depth -= 1
            if depth == 0:
                return k == e - 1
    return False


def marker_tokens(t: Token) -> list[Token]:
    """The tokens that open the marker call before t."""
    return [Token(TokenType.VAR, MARKER, t.line, t.col, t.start, t.start),
            Token(TokenType.L_PAREN, "(", t.line, t.col, t.start, t.start)]


def unwrap(trees: list) -> None:
    """The trees without the marker calls (in place)."""
    for tree in trees:
        for node in list(tree.find_all(exp.Anonymous)):
            if str(node.this) == MARKER and len(node.expressions) == 1:
                node.replace(node.expressions[0])
