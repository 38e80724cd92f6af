"""Comparisons and predicates where sqlglot's precedence is not Spark's.

Spark's grammar (SqlBaseParser.g4) gives every comparison operator one level, left to
right (`valueExpression comparisonOperator valueExpression`), and lets at most one
predicate (IS [NOT] NULL / TRUE / FALSE / UNKNOWN / DISTINCT FROM, [NOT] IN, BETWEEN,
LIKE, ILIKE, RLIKE) follow a value: `predicated: valueExpression predicate?`, whose
operands (a pattern, a bound, DISTINCT FROM's) are values again.  sqlglot binds `<`
`<=` `>` `>=` tighter than `=` `<>` `<=>` and reads the predicates as operators.  So:

- `TRUE = i > 0` is `(TRUE = i) > 0` to Spark (a type error), `TRUE = (i > 0)` to
  sqlglot; `i = j IN (1)` is `(i = j) IN (1)`; `s LIKE 'a' = b` is `s LIKE ('a' = b)`;
- `s IS NULL IS NOT NULL`, `s IS NULL = TRUE`, `i IN (1) = TRUE`, `a = NOT b` are
  syntax errors to Spark, which sqlglot reads: NOT where Spark wants a value (an
  operand, a bound, a pattern) starts a boolean expression, which no value is; but
  `s LIKE NOT 'a'` is a typed literal of type NOT to Spark (UNSUPPORTED_TYPED_LITERAL).

A statement of the second kind is a syntax error here too; one of the first kind is
passed through (`MEANING`, read by the analyzer): sparkfold never optimizes a tree it
read otherwise than Spark.  The tokens are scanned once after sqlglot parsed them, a
state per level of parentheses (and of CASE ... END).
"""

from __future__ import annotations

import re

from sqlglot.tokens import Token, TokenType

from ..ir.errors import ParseError

# the tree's meta key holding why Spark reads the statement otherwise (plans/sql_in/analyzer.py)
MEANING = "sparkfold_precedence"

_EQUALITY = frozenset({TokenType.EQ, TokenType.NEQ, TokenType.NULLSAFE_EQ})
_RELATION = frozenset({TokenType.LT, TokenType.LTE, TokenType.GT, TokenType.GTE})
_COMPARISON = _EQUALITY | _RELATION
# predicates whose operand is a value (`s LIKE <value>`), and BETWEEN
_PATTERN = frozenset({TokenType.LIKE, TokenType.ILIKE, TokenType.RLIKE, TokenType.SIMILAR_TO})
_PREDICATE = _PATTERN | {TokenType.IS, TokenType.IN, TokenType.BETWEEN}
# predicates whose next operand is a value, as BETWEEN's lower bound is
_VALUE_AFTER = _PATTERN | {TokenType.BETWEEN}
# operators whose operands are values (`1 + NOT b`: a syntax error to Spark, which sqlglot reads)
_VALUE_OPERATORS = frozenset({TokenType.PLUS, TokenType.DASH, TokenType.STAR, TokenType.SLASH, TokenType.MOD,
                              TokenType.DIV, TokenType.DPIPE, TokenType.AMP, TokenType.PIPE, TokenType.CARET,
                              TokenType.TILDE})
_IS_END = frozenset({TokenType.NULL, TokenType.TRUE, TokenType.FALSE, TokenType.UNKNOWN})
_OPEN = frozenset({TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.CASE})
_CLOSE = frozenset({TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.END})
# tokens that end a value and what may follow it (a boolean operator, a clause, a branch)
_ENDS = frozenset(getattr(TokenType, name) for name in (
    "AND", "OR", "COMMA", "SEMICOLON", "WHEN", "THEN", "ELSE", "ARROW", "FARROW", "ALIAS", "SELECT", "FROM",
    "WHERE", "HAVING", "QUALIFY", "GROUP_BY", "ORDER_BY", "SORT_BY", "CLUSTER_BY", "DISTRIBUTE_BY", "LIMIT",
    "OFFSET", "UNION", "EXCEPT", "INTERSECT", "JOIN", "ON", "USING", "WINDOW", "OVER", "PARTITION_BY", "ROWS",
    "RANGE", "ASC", "DESC", "FILTER", "WITH", "VALUES", "DISTINCT")
    if hasattr(TokenType, name))


class _Level:
    """The state of one level: the comparison chain read so far, and the predicate."""

    __slots__ = ("equality", "compared", "predicate")

    def __init__(self) -> None:
        self.equality = False    # an `=` `<>` `<=>` in the chain (a `<` after it binds otherwise)
        self.compared = False    # any comparison in the chain
        # None; "done" (IS NULL, IN (...): nothing but a boolean operator may follow);
        # "operand" (a LIKE pattern, BETWEEN's upper bound); "lower" (before BETWEEN's AND);
        # "list" (IN's parentheses are next); "distinct" (DISTINCT FROM's operand)
        self.predicate: str | None = None

    def reset(self) -> None:
        self.equality = self.compared = False
        self.predicate = None


def check(tokens: list[Token], sql: str = "") -> str | None:
    """Why Spark reads these tokens otherwise than sqlglot (None if it does not); raises
    ParseError where Spark's parser rejects them (`sql`: the text they were read from)."""
    if not any(t.token_type in _COMPARISON or t.token_type in _PREDICATE or t.token_type == TokenType.NOT
               for t in tokens):
        return None
    stack = [_Level()]
    meaning: str | None = None
    i, n = 0, len(tokens)
    while i < n:
        t = tokens[i]
        tt = t.token_type
        level = stack[-1]
        if tt in _OPEN:
            stack.append(_Level())
        elif tt in _CLOSE:
            if len(stack) > 1:
                stack.pop()
            outer = stack[-1]
            if outer.predicate == "list" and tt != TokenType.END:
                outer.predicate = "done"
        elif tt in (TokenType.LT, TokenType.GT) and i + 1 < n and tokens[i + 1].token_type == tt \
                and tokens[i + 1].start == t.end + 1:
            i += 2  # a shift (`<<`, `>>`, `>>>`), no comparison
            while i < n and tokens[i].token_type == tt and tokens[i].start == tokens[i - 1].end + 1:
                i += 1
            if i < n and tokens[i].token_type == TokenType.NOT:
                raise _not_as_value(tokens, i, "the operand of a shift", sql)
            continue
        elif tt in _COMPARISON:
            if level.predicate == "done":
                raise _rejected(t, "a comparison after a predicate")
            if i + 1 < n and tokens[i + 1].token_type == TokenType.NOT and not _predicate_not(tokens, i + 1):
                raise _not_as_value(tokens, i + 1, "the operand of a comparison", sql)
            if level.predicate in ("operand", "lower") or (tt in _RELATION and level.equality):
                meaning = meaning or _read_otherwise(tokens, i)
            level.equality = level.equality or tt in _EQUALITY
            level.compared = True
        elif tt in _PREDICATE or (tt == TokenType.NOT and _predicate_not(tokens, i)):
            if tt == TokenType.NOT:
                i += 1
                t, tt = tokens[i], tokens[i].token_type
            if level.predicate is not None and level.predicate != "list":
                raise _rejected(t, "a predicate after a predicate")
            if tt == TokenType.IS:
                i = _after_is(tokens, i, level, sql)
                continue
            if level.compared and tt != TokenType.IS:
                meaning = meaning or _read_otherwise(tokens, i)
            if tt == TokenType.IN:
                level.predicate = "list"
            elif tt == TokenType.BETWEEN:
                level.predicate = "lower"
            else:  # (`LIKE ANY ('a') = b` is `LIKE (any('a') = b)` to Spark: a value, the aggregate)
                level.predicate = "operand"
        elif tt == TokenType.AND and level.predicate == "lower":
            level.predicate = "operand"
        elif tt == TokenType.NOT and i and (tokens[i - 1].token_type in _VALUE_AFTER or (
                tokens[i - 1].token_type == TokenType.AND and level.predicate == "operand")):
            # BETWEEN's bounds and a LIKE pattern are values (`b BETWEEN NOT nb AND b`)
            where = "a pattern" if tokens[i - 1].token_type in _PATTERN else "a bound of BETWEEN"
            raise _not_as_value(tokens, i, where, sql)
        elif tt == TokenType.NOT and i and tokens[i - 1].token_type in _VALUE_OPERATORS:
            raise _not_as_value(tokens, i, f"the operand of {tokens[i - 1].text}", sql)
        elif tt in _ENDS or tt == TokenType.NOT:
            level.reset()
        i += 1
    return meaning


def _predicate_not(tokens: list[Token], i: int) -> bool:
    """Is the NOT at i a predicate's (`NOT IN`, `NOT LIKE`), not a boolean NOT?"""
    return i + 1 < len(tokens) and tokens[i + 1].token_type in _PREDICATE and tokens[i + 1].token_type != TokenType.IS


def _after_is(tokens: list[Token], i: int, level: _Level, sql: str) -> int:
    """Read `IS [NOT] NULL | TRUE | FALSE | UNKNOWN | DISTINCT FROM` at i; the index after."""
    k = i + 1
    if k < len(tokens) and tokens[k].token_type == TokenType.NOT:
        k += 1
    if k < len(tokens) and tokens[k].token_type in _IS_END:
        level.predicate = "done"
        return k + 1
    if k + 1 < len(tokens) and tokens[k].token_type == TokenType.DISTINCT and tokens[k + 1].token_type == TokenType.FROM:
        # the operand is a value of its own (sqlglot reads `a IS DISTINCT FROM b = c` as Spark does)
        if k + 2 < len(tokens) and tokens[k + 2].token_type == TokenType.NOT:
            raise _not_as_value(tokens, k + 2, "the operand of IS DISTINCT FROM", sql)
        level.reset()
        level.predicate = "distinct"
        return k + 2
    return k


def lower_bound_end(tokens: list[Token], i: int) -> int | None:
    """The index of the AND that ends the lower bound of the BETWEEN at tokens[i], when
    that bound holds a comparison (`b BETWEEN nb = b AND b`): Spark's bound is a value
    (`lower=valueExpression`), comparisons included, where sqlglot's parser reads one
    without (a syntax error to it).  None when the bound has no comparison, or holds
    what no value holds (a predicate, NOT, a boolean operator, a clause): those stay
    for sqlglot's parser and `check` to read or reject."""
    depth, compared = 0, False
    k, n = i + 1, len(tokens)
    while k < n:
        t = tokens[k]
        tt = t.token_type
        if tt in _OPEN:
            depth += 1
        elif tt in _CLOSE:
            if depth == 0:
                return None
            depth -= 1
        elif depth == 0:
            if tt == TokenType.AND:
                return k if compared else None
            if tt in (TokenType.LT, TokenType.GT) and k + 1 < n and tokens[k + 1].token_type == tt \
                    and tokens[k + 1].start == t.end + 1:
                k += 2  # a shift (`<<`, `>>`, `>>>`), no comparison
                while k < n and tokens[k].token_type == tt and tokens[k].start == tokens[k - 1].end + 1:
                    k += 1
                continue
            if tt in _COMPARISON:
                compared = True
            elif tt in _PREDICATE or tt in _ENDS or tt == TokenType.NOT:
                return None
        k += 1
    return None


def _not_as_value(tokens: list[Token], i: int, where: str, sql: str) -> ParseError:
    """The error of Spark's parser for the NOT at i where its grammar wants a value (a
    comparison's operand, a bound of BETWEEN, a pattern): NOT starts a boolean expression,
    which no value is, a syntax error; but `NOT 'a'` is a value to it, a typed literal of
    type NOT (`identifier stringLit`, as `DATE '2024-01-01'`), which it does not support
    (UNSUPPORTED_TYPED_LITERAL, in both modes: checked on Spark 4.3).  Of one literal only:
    `NOT 'a' 'b'` (two, which the tokens hold joined) is a syntax error."""
    t = tokens[i]
    if t.text.upper() == "NOT" and i + 1 < len(tokens) and tokens[i + 1].token_type in _STRINGS \
            and (not sql or _ONE_LITERAL.fullmatch(sql, tokens[i + 1].start, tokens[i + 1].end + 1)):
        return ParseError(f"NOT {tokens[i + 1].text!r} as {where} is a typed literal of type NOT to Spark's "
                          f"parser, which it does not support", t.line, max(1, t.col - len(t.text) + 1),
                          error_class="UNSUPPORTED_TYPED_LITERAL")
    return _rejected(t, f"NOT as {where}")


_STRINGS = frozenset({TokenType.STRING, TokenType.RAW_STRING})
# one string literal of Spark's lexer (an escaped quote, `''`, inside it)
_ONE_LITERAL = re.compile(r"[rR]?(?:'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\")", re.DOTALL)


def _rejected(t: Token, what: str) -> ParseError:
    return ParseError(f"{what} (Spark's parser rejects it) near {t.text!r}", t.line, max(1, t.col - len(t.text) + 1))


def _read_otherwise(tokens: list[Token], i: int) -> str:
    t = tokens[i]
    return (f"Spark reads the comparisons and predicates around {t.text!r} (line {t.line}) with another "
            f"precedence than sparkfold's parser: one level, left to right")
