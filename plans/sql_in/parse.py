"""Spark SQL text -> sqlglot tree, with the fixes Spark's grammar needs.

sqlglot's Spark parser, with sparkfold's corrections to its grammar made around it
(`grammar`: `||` among `+` and `-`, calls kept as written), and these corrections made
on its tokens:
- `'it''s'`: two quotes in a row are an escaped quote in Spark, not two literals;
- `'a' 'b'`: adjacent string literals are one literal in Spark (`'ab'`);
- `1L`, `1.5BD`, `2Y`, ...: typed numeric literals, which sqlglot reads as casts,
  become the marker call `__sf_lit_<type>(<number>)` so the analyzer can tell
  `1L` (named `1`) from `CAST(1 AS BIGINT)` (named `CAST(1 AS BIGINT)`);
- `DATE'2024-01-01'::STRING`, `-1::STRING`: `::` casts the typed literal, the negative
  number (sqlglot: the string, the number): they are parenthesized;
- `b BETWEEN nb = b AND b`: a lower bound holding a comparison (a value to Spark, a
  syntax error to sqlglot) is parenthesized;
- `PIVOT (avg(e) + 1 AS a1 FOR ...)`: an aggregate written as an expression, which
  sqlglot's parser does not read, is wrapped in a marker call (`pivot_aggregates`);
- `x IS [NOT] UNKNOWN`, which sqlglot reads as `IS [NOT] NULL`: its NULL is marked;
- a unary plus, which sqlglot drops: the tree is marked (the analyzer passes it through).
"""

from __future__ import annotations

import logging
import re

from sqlglot import exp
from sqlglot.errors import ParseError as SqlglotParseError
from sqlglot.errors import TokenError
from sqlglot.tokens import Token, TokenType

from ..ir.dialect import DIALECT, SUFFIX_TYPES, TYPED_LITERAL_PREFIX, compiled_sqlglot, spans_later, unplaced_parser
from ..ir.errors import ParseError, UnsupportedError
from . import bitwise, grammar, pivot_aggregates, precedence, spans, variant_paths
from .grammar import ends_operand as _ends_operand

# ---------------------------------------------------------------------------
# Tokens
# ---------------------------------------------------------------------------


def _fix_tokens(tokens: list[Token], sql: str, bitwise_levels: set[int] | None = None,
                fixes: "_Fixes | None" = None) -> list[Token]:
    """The corrected tokens; `bitwise_levels` gets the levels of the bitwise operators
    seen (`plans.sql_in.bitwise`; -1 for a `>>>`), `fixes` what the trees need after."""
    if bitwise_levels is None:
        bitwise_levels = set()
    if fixes is None:
        fixes = _Fixes()
    out: list[Token] = []
    i = 0
    n = len(tokens)
    closes: dict[int, int] = {}  # index: how many parentheses opened below close before it
    opens: dict[int, list[Token]] = {}  # index: the tokens of a marker call opened before it
    while i < n:
        t = tokens[i]
        if closes:
            for at in [at for at in closes if at <= i]:
                if at < i:  # (a unary plus's operand ended inside a token read with others: `+X'F0'`)
                    fixes.unary_plus = True
                out.extend(Token(TokenType.R_PAREN, ")", t.line, t.col, t.start, t.start)
                           for _ in range(closes.pop(at)))
        if i in opens:
            out.extend(opens.pop(i))
        if t.token_type not in _FIXED:  # (most tokens: this runs once per token of every parse)
            out.append(t)
            i += 1
            continue
        if t.token_type in _CAST_OPERAND_STARTS and not _ends_operand(out):
            k = _cast_operand_end(tokens, i)
            if k is not None:
                # `DATE'2024-01-01'::STRING`, `-1::STRING`: Spark casts the typed literal,
                # the negative number, where sqlglot casts the string, the number (and then
                # reads the type, negates): parenthesized, the operand is Spark's
                out.append(Token(TokenType.L_PAREN, "(", t.line, t.col, t.start, t.start))
                closes[k] = closes.get(k, 0) + 1
        if t.token_type in bitwise.TOKENS or t.token_type == TokenType.LT:
            bitwise.refuse_coalesce_operator(t)
            level = bitwise.level_of(tokens, i)
            if level is not None:
                bitwise_levels.add(level)
            shift = bitwise.unsigned_shift(tokens, i) if t.token_type == TokenType.GT else None
            if shift is not None:
                out.append(shift)
                i += 3
                continue
            out.append(t)
            i += 1
            continue
        if t.token_type == TokenType.PLUS and (not _ends_operand(out) or out[-1].token_type in _OPENS_OPERAND):
            # a unary plus: sqlglot's parser drops it, where Spark's keeps it (named
            # `(+ x)`, its operand checked and cast as a number's or an interval's): read
            # as Spark's positive(x) when its operand's end is plain (a number, a column,
            # a call, a parenthesized expression), else the statement passes through
            end = _unary_operand_end(tokens, i + 1)
            if end is None:
                fixes.unary_plus = True
            else:
                out.extend([Token(TokenType.VAR, "positive", t.line, t.col, t.start, t.end, t.comments),
                            Token(TokenType.L_PAREN, "(", t.line, t.col, t.start, t.end)])
                closes[end] = closes.get(end, 0) + 1
                i += 1
                continue
        if t.token_type == TokenType.NOT and t.text == "!" and out \
                and (_ends_operand(out) or out[-1].token_type == TokenType.IS):
            # `x ! IN (...)`, `x IS ! NULL`: sqlglot reads NOT, Spark's parser only under
            # spark.sql.legacy.bangEqualsNot (see BANG_NOT)
            fixes.bang_not = True
        if t.token_type == TokenType.UNKNOWN and (out[-1:] and out[-1].token_type == TokenType.IS or
                                                  [u.token_type for u in out[-2:]] == [TokenType.IS, TokenType.NOT]):
            # `x IS [NOT] UNKNOWN`, which sqlglot reads as `x IS [NOT] NULL`: a NULL marked
            # so (the analyzer tells them apart, see expr_operators._null_tested)
            out.append(Token(TokenType.NULL, t.text, t.line, t.col, t.start, t.end,
                             [*t.comments, f"sqlglot.meta {IS_UNKNOWN}"]))
            fixes.is_unknown = True
            i += 1
            continue
        if t.token_type == TokenType.DOT and i + 1 < n and tokens[i + 1].token_type == TokenType.NUMBER \
                and tokens[i + 1].start == t.end + 1 and not _ends_operand(out):
            # `.10D`, `-.5e1F`: a number written from its point (sqlglot joins `.10` back
            # in its parser, but not once the typed suffix made it a marker call)
            nxt = tokens[i + 1]
            tokens[i + 1] = Token(TokenType.NUMBER, "." + nxt.text, nxt.line, nxt.col, nxt.start, nxt.end,
                                  t.comments)
            i += 1
            continue
        if t.token_type == TokenType.WINDOW and i + 1 < n and tokens[i + 1].token_type == TokenType.L_PAREN:
            # `window(ts, '5 minutes')`: Spark's time window function (a WINDOW clause
            # names its window first), where sqlglot's parser reads the keyword and fails
            out.append(Token(TokenType.VAR, t.text, t.line, t.col, t.start, t.end, t.comments))
            i += 1
            continue
        if t.token_type == TokenType.ANY and i + 1 < n and tokens[i + 1].token_type == TokenType.L_PAREN \
                and not _ends_operand(out) and not (out and out[-1].token_type in _COMPARISON_TOKENS):
            # `any(v)` not after a comparison is Spark's aggregate (bool_or), not `= ANY (...)`
            out.append(Token(TokenType.VAR, t.text, t.line, t.col, t.start, t.end, t.comments))
            i += 1
            continue
        if (t.token_type == TokenType.NUMBER and i + 2 < n
                and tokens[i + 1].token_type == TokenType.DCOLON
                and tokens[i + 1].start == t.start
                and tokens[i + 2].text.upper() in SUFFIX_TYPES):
            type_name = SUFFIX_TYPES[tokens[i + 2].text.upper()]
            mk = lambda tt, text: Token(tt, text, t.line, t.col, t.start, t.end)  # noqa: E731
            out.extend([mk(TokenType.VAR, TYPED_LITERAL_PREFIX + type_name),
                        mk(TokenType.L_PAREN, "("), t, mk(TokenType.R_PAREN, ")")])
            i += 3
            continue
        if t.token_type == TokenType.TABLE and i + 1 < n and _starts_query(out) \
                and tokens[i + 1].token_type in (TokenType.VAR, TokenType.IDENTIFIER):
            # `TABLE t`, Spark's query of a table's rows, is `SELECT * FROM t` (sqlglot reads
            # a column `TABLE` aliased `t`, and a set operation ending with one not at all)
            out.extend([Token(tt, text, t.line, t.col, t.start, t.end, t.comments if tt == TokenType.SELECT else [])
                        for tt, text in ((TokenType.SELECT, "SELECT"), (TokenType.STAR, "*"), (TokenType.FROM, "FROM"))])
            i += 1
            continue
        if t.token_type == TokenType.EXCEPT and out and out[-1].token_type == TokenType.STAR \
                and i + 1 < n and tokens[i + 1].token_type != TokenType.L_PAREN:
            # Spark's grammar takes `* EXCEPT (a, b)` only (sqlglot reads `* EXCEPT a` too)
            raise ParseError("`* EXCEPT` takes the columns it leaves out in parentheses: `* EXCEPT (...)`",
                             tokens[i + 1].line, tokens[i + 1].col)
        if t.token_type == TokenType.ALL and out and (
                out[-1].token_type == TokenType.SELECT
                and (i + 1 == n or tokens[i + 1].token_type in (TokenType.COMMA, TokenType.FROM))
                or out[-1].token_type in (TokenType.GROUP_BY, TokenType.ORDER_BY)
                and i + 1 < n and tokens[i + 1].token_type == TokenType.COMMA):
            # `SELECT all, city FROM ... GROUP BY all, city`: a column named all, where
            # sqlglot reads the ALL quantifier (GROUP BY ALL) and drops the column
            out.append(Token(TokenType.VAR, t.text, t.line, t.col, t.start, t.end, t.comments))
            i += 1
            continue
        if t.token_type == TokenType.INTERVAL:
            end = _multi_unit_interval(tokens, i)
            if end is None and i + 1 < n and tokens[i + 1].token_type == TokenType.STRING \
                    and not (i + 2 < n and tokens[i + 2].text.upper() in _INTERVAL_UNITS):
                end = i + 1  # `INTERVAL '1 day 2 hours'`, its units in its text
            if end is not None:
                # `INTERVAL 5 HOURS 30 SECONDS`: one literal of Spark's (named `INTERVAL
                # '05:00:30' HOUR TO SECOND`), which sqlglot reads as a sum: as written, or
                # the literal where its text is one string (expr_leaves.typed_literal_call)
                stop = tokens[end].end
                raw = sql[tokens[i + 1].start:stop + 1]
                mk = lambda tt, text: Token(tt, text, t.line, t.col, t.start, stop)  # noqa: E731
                out.extend([mk(TokenType.VAR, TYPED_LITERAL_PREFIX + "interval"), mk(TokenType.L_PAREN, "("),
                            mk(TokenType.STRING, raw), mk(TokenType.R_PAREN, ")")])
                i = end + 1
                continue
        if t.token_type == TokenType.VAR and t.text.lower() == "extract" and i + 3 < n \
                and tokens[i + 1].token_type == TokenType.L_PAREN and tokens[i + 3].token_type == TokenType.FROM:
            fixes.extract_fields.append(tokens[i + 2].text)  # (sqlglot upper-cases it; Spark names it as written)
        if t.token_type == TokenType.VAR and t.text.lower() == "position" and i + 1 < n \
                and tokens[i + 1].token_type == TokenType.L_PAREN and not _keyword_form(tokens, i, TokenType.IN):
            # `position(a, b)`: a call as written (sqlglot's POSITION parser, for `position(a IN
            # b)`, writes it as `LOCATE(...)`, named so by Spark, and drops a fourth argument)
            out.append(Token(TokenType.VAR, AS_WRITTEN + t.text, t.line, t.col, t.start, t.end, t.comments))
            fixes.as_written = True
            i += 1
            continue
        if t.token_type == TokenType.VAR and t.text.lower() == "substr" and _keyword_form(tokens, i, TokenType.FROM):
            # `substr(s FROM 2)` is Spark's SUBSTRING syntax, named `substring(...)`
            out.append(Token(TokenType.VAR, "substring", t.line, t.col, t.start, t.end, t.comments))
            i += 1
            continue
        if t.token_type == TokenType.VAR and t.text in ("X", "x") and i + 1 < n \
                and tokens[i + 1].token_type == TokenType.STRING and not _ends_operand(out):
            # `X 'F0'`: a binary literal, as `X'F0'` (Spark's typed literal of type X)
            nxt = tokens[i + 1]
            out.append(Token(TokenType.HEX_STRING, nxt.text, t.line, t.col, t.start, nxt.end, t.comments))
            i += 2
            continue
        if t.token_type == TokenType.BETWEEN and i + 1 < n and tokens[i + 1].token_type == TokenType.L_PAREN \
                and not _ends_operand(out):
            # `between(v, lo, hi)`, Spark's function form of BETWEEN: an ordinary call
            out.append(Token(TokenType.VAR, t.text, t.line, t.col, t.start, t.end, t.comments))
            i += 1
            continue
        if t.token_type == TokenType.PIVOT:
            # `PIVOT (avg(e) + 1 AS a1 FOR ...)`: an aggregate that is no single call,
            # which sqlglot's parser does not read, wrapped in a marker call
            for start, end in pivot_aggregates.wrapped(tokens, i):
                opens[start] = pivot_aggregates.marker_tokens(tokens[start])
                closes[end] = closes.get(end, 0) + 1
                fixes.pivot_aggregates = True
        if t.token_type == TokenType.BETWEEN and (end := precedence.lower_bound_end(tokens, i)) is not None:
            # `b BETWEEN nb = b AND b`: Spark's lower bound is a value, comparisons
            # included, which sqlglot's parser does not read: parenthesized, it reads it
            out.extend([t, Token(TokenType.L_PAREN, "(", t.line, t.col, t.end, t.end)])
            closes[end] = closes.get(end, 0) + 1
            i += 1
            continue
        if t.token_type == TokenType.STRING:
            text, end, j = t.text, t.end, i + 1
            while j < n and tokens[j].token_type == TokenType.STRING:
                nxt = tokens[j]
                quote = sql[nxt.start] if nxt.start < len(sql) else ""
                if nxt.start == end + 1 and quote in ("'", '"') and sql[end] == quote:
                    text += quote + nxt.text  # 'it''s': an escaped quote
                else:
                    text += nxt.text  # 'a' 'b': Spark joins adjacent literals
                end = nxt.end
                j += 1
            if j > i + 1:
                out.append(Token(TokenType.STRING, text, t.line, t.col, t.start, end, t.comments))
                i = j
                continue
        out.append(t)
        i += 1
    if closes:  # (an operand ending the text; or one ending inside a token read with others)
        fixes.unary_plus = fixes.unary_plus or any(k < n for k in closes)
        last = tokens[-1]
        out.extend(Token(TokenType.R_PAREN, ")", last.line, last.col, last.end, last.end)
                   for _ in range(sum(closes.values())))
    return out


_UNARY = frozenset({TokenType.PLUS, TokenType.DASH, TokenType.TILDE})
_POSTFIX = frozenset({TokenType.DOT, TokenType.L_BRACKET, TokenType.DCOLON})


def _unary_operand_end(tokens: list[Token], k: int) -> int | None:
    """The index after the operand of a unary operator starting at tokens[k], when it is
    plain: unary operators, then a number (its typed suffix too), a column `a.b`, a call
    `f(...)` with no window or filter after it, or a parenthesized expression, and no
    field, subscript or `::` cast after it.  None for anything else."""
    n = len(tokens)
    while k < n and tokens[k].token_type in _UNARY:
        k += 1
    if k >= n:
        return None
    first = tokens[k]
    end: int | None
    if first.token_type == TokenType.L_PAREN:
        end = _after_parenthesis(tokens, k)
    elif first.token_type == TokenType.NUMBER:
        end = k + 1
        if end + 1 < n and tokens[end].token_type == TokenType.DCOLON and tokens[end].start == first.start:
            end += 2  # a typed suffix (`1.5D`)
    elif first.token_type == TokenType.INTERVAL:
        end = _interval_end(tokens, k)
    elif first.token_type in (TokenType.VAR, TokenType.IDENTIFIER):
        end = k + 1
        if end < n and tokens[end].token_type == TokenType.L_PAREN:
            end = _after_parenthesis(tokens, end)
            if end is not None and end < n and tokens[end].text.upper() in ("OVER", "FILTER", "WITHIN", "IGNORE",
                                                                           "RESPECT"):
                return None
        else:
            while end + 1 < n and tokens[end].token_type == TokenType.DOT \
                    and tokens[end + 1].token_type in (TokenType.VAR, TokenType.IDENTIFIER):
                end += 2
    else:
        return None
    if end is None or (end < n and tokens[end].token_type in _POSTFIX):
        return None
    return end


def _interval_end(tokens: list[Token], k: int) -> int | None:
    """The index after the interval literal at tokens[k] (`INTERVAL '1 day'`, `INTERVAL 1
    DAY 2 HOURS`, `INTERVAL '1' DAY`, `INTERVAL '1 2' DAY TO HOUR`), or None."""
    n = len(tokens)
    last = _multi_unit_interval(tokens, k)
    if last is not None:
        return last + 1
    j = k + 2 if k + 1 < n and tokens[k + 1].token_type in (TokenType.DASH, TokenType.PLUS) else k + 1
    if j >= n or tokens[j].token_type not in (TokenType.STRING, TokenType.NUMBER):
        return None
    if j + 1 < n and tokens[j + 1].text.upper() in _INTERVAL_UNITS:
        if j + 3 < n and tokens[j + 2].text.upper() == "TO" and tokens[j + 3].text.upper() in _INTERVAL_UNITS:
            return j + 4
        return j + 2
    return j + 1 if tokens[j].token_type == TokenType.STRING else None


def _after_parenthesis(tokens: list[Token], k: int) -> int | None:
    """The index after the parenthesis that closes the one at tokens[k], or None."""
    depth = 0
    for j in range(k, len(tokens)):
        if tokens[j].token_type == TokenType.L_PAREN:
            depth += 1
        elif tokens[j].token_type == TokenType.R_PAREN:
            depth -= 1
            if depth == 0:
                return j + 1
    return None


_SET_OPERATORS = frozenset({TokenType.UNION, TokenType.INTERSECT, TokenType.EXCEPT})


def _starts_query(out: list[Token]) -> bool:
    """Does a query start after these tokens: at a statement's start, after a set
    operator (and its ALL / DISTINCT), or after a parenthesis no name opens (a call's)?"""
    if not out or out[-1].token_type in _SET_OPERATORS or out[-1].token_type == TokenType.SEMICOLON:
        return True
    before = out[-2].token_type if len(out) > 1 else None
    if out[-1].token_type in (TokenType.ALL, TokenType.DISTINCT):
        return before in _SET_OPERATORS
    return out[-1].token_type == TokenType.L_PAREN and before not in (TokenType.VAR, TokenType.IDENTIFIER)


def _keyword_form(tokens: list[Token], i: int, keyword) -> bool:
    """Is tokens[i] the name of a call written with the keyword among its arguments
    (`substr(s FROM 2)`, `position(a IN b)`)?"""
    if i + 1 >= len(tokens) or tokens[i + 1].token_type != TokenType.L_PAREN:
        return False
    depth = 0
    for t in tokens[i + 1:]:
        if t.token_type == TokenType.L_PAREN:
            depth += 1
        elif t.token_type == TokenType.R_PAREN:
            depth -= 1
            if depth == 0:
                return False
        elif t.token_type == keyword and depth == 1:
            return True
    return False


# the first tokens of the operands `_cast_operand_end` reads
_CAST_OPERAND_STARTS = frozenset({TokenType.DASH, TokenType.DATE, TokenType.TIME, TokenType.TIMESTAMP,
                                  TokenType.TIMESTAMPTZ, TokenType.TIMESTAMPNTZ, TokenType.TIMESTAMPLTZ})


def _cast_operand_end(tokens: list[Token], i: int) -> int | None:
    """The index of the `::` after `-<number>` (a typed suffix allowed: `-1.5D`) or after
    a typed literal `DATE '...'` (`TIME`, `TIMESTAMP`, `TIMESTAMP_NTZ`, `TIMESTAMP_LTZ`) starting
    at tokens[i], or None."""
    n = len(tokens)
    k = i + 1
    if tokens[i].token_type == TokenType.DASH:
        if not (k < n and tokens[k].token_type == TokenType.NUMBER):
            return None
        number = tokens[k]
        k += 1
        if k + 1 < n and tokens[k].token_type == TokenType.DCOLON and tokens[k].start == number.start:
            k += 2  # a typed suffix (`1.5D`, see `_fix_tokens`)
    else:
        if not (k < n and tokens[k].token_type == TokenType.STRING):
            return None
        while k < n and tokens[k].token_type == TokenType.STRING:
            k += 1
    return k if k < n and tokens[k].token_type == TokenType.DCOLON else None


_INTERVAL_UNITS = frozenset(u + s for u in ("YEAR", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND",
                                             "MILLISECOND", "MICROSECOND") for s in ("", "S"))


def _multi_unit_interval(tokens: list[Token], i: int) -> int | None:
    """The index of the last token of `INTERVAL <value> <unit> <value> <unit> ...` (two
    units or more) starting at tokens[i], or None."""
    k, units, end = i + 1, 0, None
    n = len(tokens)
    while k < n:
        j = k + 1 if tokens[k].token_type in (TokenType.DASH, TokenType.PLUS) else k
        if j + 1 < n and tokens[j].token_type in (TokenType.NUMBER, TokenType.STRING) \
                and tokens[j + 1].text.upper() in _INTERVAL_UNITS \
                and not (j + 2 < n and tokens[j + 2].text.upper() == "TO"):
            units += 1
            end = j + 1
            k = j + 2
            continue
        break
    return end if units >= 2 else None


class _Fixes:
    """What `_fix_tokens` leaves for the trees: the EXTRACT fields as written, whether a
    call was renamed to stay as written, whether the text has a unary plus, an IS UNKNOWN."""

    def __init__(self) -> None:
        self.extract_fields: list[str] = []
        self.as_written = False
        self.unary_plus = False
        self.is_unknown = False
        self.bang_not = False
        self.pivot_aggregates = False


# the name prefix of a call `_fix_tokens` keeps from sqlglot's parsers (`restored` takes it off)
AS_WRITTEN = "__sf_as_written_"
# the key of a tree's meta that says its text has a unary plus, which its tree lacks
UNARY_PLUS = "sparkfold_unary_plus"
# the key of a tree's meta that says its text has `!` for NOT after an operand (`x ! IN
# (...)`, `x IS ! NULL`), which Spark reads so only under spark.sql.legacy.bangEqualsNot
BANG_NOT = "sparkfold_bang_not"
# the key of the meta of a NULL that is `UNKNOWN` in `x IS [NOT] UNKNOWN`
IS_UNKNOWN = "sparkfold_unknown"


def _restored(trees: list, fixes: _Fixes) -> None:
    """The trees with what `_fix_tokens` left for them (in place)."""
    extracts = [n for tree in trees for n in tree.walk(bfs=False) if isinstance(n, exp.Extract)] \
        if fixes.extract_fields else []
    if len(extracts) == len(fixes.extract_fields):
        for node, field in zip(extracts, fixes.extract_fields):
            if isinstance(node.this, exp.Var) and node.this.name.upper() == field.upper():
                node.set("this", exp.var(field))
    if fixes.bang_not:
        for tree in trees:
            tree.meta[BANG_NOT] = True
    if fixes.unary_plus:
        for tree in trees:  # (the analyzer passes such a statement through: see UNARY_PLUS)
            tree.meta[UNARY_PLUS] = True
    if fixes.is_unknown:
        for tree in trees:
            for node in tree.find_all(exp.Null):
                if node.comments:
                    node.comments = [c for c in node.comments if c != f"sqlglot.meta {IS_UNKNOWN}"] or None
    if fixes.pivot_aggregates:
        pivot_aggregates.unwrap(trees)
    if fixes.as_written:
        for tree in trees:
            for node in tree.walk():
                if isinstance(node, exp.Anonymous) and str(node.this).startswith(AS_WRITTEN):
                    node.set("this", str(node.this)[len(AS_WRITTEN):])


# the tokens `_fix_tokens` may change (each case below starts at one of these)
_FIXED = frozenset({TokenType.DOT, TokenType.ANY, TokenType.WINDOW, TokenType.TABLE, TokenType.NUMBER, TokenType.BETWEEN, TokenType.STRING, TokenType.EXCEPT,
                    TokenType.PIVOT, TokenType.ALL,
                    TokenType.VAR, TokenType.LT, TokenType.INTERVAL, TokenType.PLUS, TokenType.UNKNOWN, TokenType.NOT,
                    *_CAST_OPERAND_STARTS, *bitwise.TOKENS})
# infix words and brackets an operand follows, which `ends_operand` takes for operands
_OPENS_OPERAND = frozenset({TokenType.DIV, TokenType.BETWEEN, TokenType.L_BRACKET, TokenType.FROM})
_COMPARISON_TOKENS = frozenset({TokenType.EQ, TokenType.NEQ, TokenType.LT, TokenType.LTE, TokenType.GT,
                                TokenType.GTE, TokenType.NULLSAFE_EQ})


# Calls sqlglot reads with a syntax of their own (`TRIM(BOTH x FROM y)`, `CAST(x AS t)`),
# and the numbers of arguments Spark's registry takes when they are written as plain calls
# (`trim(x, y)`): written so with another number, Spark's parser reads a call and its
# analyzer raises WRONG_NUM_ARGS, where sqlglot raises a syntax error (checked on Spark 4.3)
_PLAIN_ARITY = {"trim": (1, 2), "ltrim": (1, 2), "rtrim": (1, 2), "cast": (), "overlay": (3, 4), "if": (3,),
                "substring": (2, 3), "substr": (2, 3), "position": (2, 3), "extract": (2,)}
_OWN_SYNTAX = frozenset({"FROM", "AS", "PLACING", "FOR", "BOTH", "LEADING", "TRAILING", "IN"})


def _wrong_arity(sql: str, tokens: list) -> tuple[str, int] | None:
    """Spark's message and the offset of the first plain call (commas only) of a function
    of `_PLAIN_ARITY` with a number of arguments Spark does not take, when the text, each
    such call made NULL, parses: then Spark's parser reads it all and its analyzer raises
    WRONG_NUM_ARGS."""
    calls = []  # (start, end, message) of each such call, outermost first
    for i in range(1, len(tokens)):
        name = tokens[i - 1].text.lower()
        if tokens[i].token_type != TokenType.L_PAREN or name not in _PLAIN_ARITY:
            continue
        depth, commas, own, j = 0, 0, False, i
        for j in range(i, len(tokens)):
            t = tokens[j].token_type
            depth += t in (TokenType.L_PAREN, TokenType.L_BRACKET)
            depth -= t in (TokenType.R_PAREN, TokenType.R_BRACKET)
            if depth == 0:
                break
            if depth == 1 and j > i:
                commas += t == TokenType.COMMA
                own = own or tokens[j].text.upper() in _OWN_SYNTAX
        n = 0 if j == i + 1 else commas + 1
        takes = _PLAIN_ARITY[name]
        if depth != 0 or own or n in takes:
            continue
        wanted = str(takes[0]) if len(takes) == 1 else f"[{', '.join(map(str, takes))}]" if takes else "0"
        calls.append((tokens[i - 1].start, tokens[j].end,
                      f"The `{name}` requires {wanted} parameters but the actual number is {n}"))
    if not calls:
        return None
    text, last = [], 0
    for start, end, _m in calls:
        if start >= last:  # (a call inside one made NULL goes with it)
            text.append(sql[last:start] + "NULL")
            last = end + 1
    try:
        DIALECT.parse("".join(text) + sql[last:])
    except Exception:
        return None
    return calls[0][2], calls[0][0]


class UnmodelledSyntax(ParseError):
    """Spark SQL whose syntax sparkfold's parser does not read (`_unmodelled_syntax`): the
    statement passes through as written (`optimize`); elsewhere a reason it cannot be read."""

    def __init__(self, reason: str):
        super().__init__(f"sparkfold does not read {reason}")
        self.heading = "not read"
        self.reason = reason


# the words after a pipe operator (`|>`, or `|` as Spark's parser also reads it), which
# cannot follow a bitwise OR
_PIPE_OPERATORS = frozenset({"SELECT", "EXTEND", "SET", "DROP", "AS", "WHERE", "AGGREGATE", "ORDER", "LIMIT", "OFFSET",
                             "JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "NATURAL", "UNION", "INTERSECT",
                             "EXCEPT", "MINUS", "PIVOT", "UNPIVOT", "TABLESAMPLE", "WINDOW", "DISTINCT", "SEMI",
                             "ANTI", "LATERAL"})
_CLAUSES = {("APPROX", "NEAREST"): "a nearest-neighbour join (`APPROX NEAREST ... BY`)",
            ("EXACT", "NEAREST"): "a nearest-neighbour join (`EXACT NEAREST ... BY`)",
            ("BIN", "BY"): "`BIN BY`"}
_CLAUSE_STARTS = frozenset({first for first, _ in _CLAUSES} | {"MAX"})


# the body of a hint as Spark's grammar reads it: names, each with its arguments in
# parentheses or not, separated by commas or spaces (`BROADCAST(t), MERGE(u)`)
_HINT_BODY = re.compile(r"\s*(\w+\s*(\([^()]*\))?\s*,?\s*)*")


def _unmodelled_syntax(tokens: list) -> str | None:
    """Syntax of Spark SQL that sqlglot's parser reads otherwise or not at all, which a
    statement passes through for: SQL pipe syntax (`FROM t |> WHERE ...`, which sqlglot
    reads into another query or fails on), and clauses sqlglot does not parse: a
    variant path (`v:price::string`), a nearest-neighbour join, `BIN BY`, a recursion
    limit, IDENTIFIER(...)."""
    for i, t in enumerate(tokens):
        if t.token_type == TokenType.PIPE_GT or t.token_type == TokenType.PIPE and i + 1 < len(tokens) \
                and tokens[i + 1].text.upper() in _PIPE_OPERATORS:
            return "SQL pipe syntax (`|>`)"
        if t.text.upper() in _CLAUSE_STARTS:
            words = tuple(u.text.upper() for u in tokens[i:i + 3])
            if words[:2] in _CLAUSES:
                return _CLAUSES[words[:2]]
            if words == ("MAX", "RECURSION", "LEVEL"):
                return "a recursion limit (`MAX RECURSION LEVEL`)"
        nxt = tokens[i + 1].token_type if i + 1 < len(tokens) else None
        if t.token_type == TokenType.INTERVAL and (odd := _interval_sqlglot_misreads(tokens, i)):
            return odd
        if t.token_type == TokenType.INTERVAL and _interval_then_value(tokens, i):
            return "an interval literal followed by another value (`INTERVAL '1' YEAR '2' MONTH`), which sqlglot reads as a sum"
        if t.token_type == TokenType.COLON and 0 < i and nxt in (TokenType.VAR, TokenType.L_BRACKET, TokenType.IDENTIFIER) \
                and tokens[i - 1].token_type in (TokenType.VAR, TokenType.R_BRACKET, TokenType.R_PAREN):
            return "a variant path (`v:a.b`)"
        if nxt == TokenType.L_PAREN and t.text.upper() == "IDENTIFIER":
            return "the IDENTIFIER clause"
        if t.token_type == TokenType.HINT and not _HINT_BODY.fullmatch(t.text[3:-2] if t.text.startswith("/*+") else t.text):
            return "a hint not of the form NAME or NAME(arguments) (Spark's parser may reject it)"
    return None


_IS_KEYWORDS = frozenset({TokenType.NULL, TokenType.TRUE, TokenType.FALSE, TokenType.UNKNOWN})


_UNIT_WORDS = "|".join(sorted(_INTERVAL_UNITS, key=len, reverse=True))
# the strings Spark reads as a multi-unit interval literal (`INTERVAL '1 day 2 hours'`)
_MULTI_UNIT_TEXT = re.compile(rf"\s*(interval\s+)?([+-]?\s*\d+(\.\d+)?\s*({_UNIT_WORDS})\b\s*)+", re.IGNORECASE)
_WHOLE_NUMBER = re.compile(r"\s*[+-]?\d+\s*")
_DECIMAL_NUMBER = re.compile(r"\s*[+-]?(\d+(\.\d*)?|\.\d+)\s*")


def _interval_then_value(tokens: list, i: int) -> bool:
    """Is the interval literal at tokens[i] (`INTERVAL v unit [TO unit]`) followed at once
    by a string or a number (Spark's legacy form of adjacent literals, which sqlglot's
    parser adds up)?"""
    k = i + 3
    if k < len(tokens) and tokens[k].text.upper() == "TO":
        k += 2
    return k < len(tokens) and i + 2 < len(tokens) and tokens[i + 2].text.upper() in _INTERVAL_UNITS \
        and tokens[k].token_type in (TokenType.STRING, TokenType.NUMBER)


def _interval_sqlglot_misreads(tokens: list, i: int) -> str | None:
    """An interval literal at tokens[i] whose text sqlglot reads leniently where Spark
    rejects it (INVALID_TYPED_LITERAL): `INTERVAL '1 day 1'` became `INTERVAL '1' DAY`,
    `INTERVAL 1 fake_unit` an interval too.  Those not of the plain forms pass through:
    a multi-unit string of numbers and units, a number string before one unit (a whole
    number but for seconds); `X TO Y` forms are left to the analyzer."""
    value = tokens[i + 1] if i + 1 < len(tokens) else None
    unit = tokens[i + 2] if i + 2 < len(tokens) else None
    after = tokens[i + 3] if i + 3 < len(tokens) else None
    if value is None:
        return None
    has_unit = unit is not None and unit.text.upper() in _INTERVAL_UNITS
    if value.token_type == TokenType.NUMBER and unit is not None and unit.token_type == TokenType.VAR \
            and not has_unit:
        return f"an interval literal Spark does not read (`INTERVAL {value.text} {unit.text}`)"
    if value.token_type == TokenType.NUMBER and unit is not None and has_unit and after is not None \
            and after.text.upper() == "TO":
        # Spark's parser takes a TO form of a string only (_LEGACY_ERROR_TEMP_0027)
        return f"an interval literal Spark does not read (`INTERVAL {value.text} {unit.text} TO ...`)"
    if value.token_type != TokenType.STRING:
        return None
    if not has_unit:
        ok = _MULTI_UNIT_TEXT.fullmatch(value.text) is not None
    elif after is not None and after.text.upper() == "TO":
        ok = True
    else:
        number = _DECIMAL_NUMBER if unit.text.upper().startswith("SECOND") else _WHOLE_NUMBER  # type: ignore[union-attr]
        ok = number.fullmatch(value.text) is not None
    return None if ok else f"an interval literal whose text sparkfold does not read as Spark (`INTERVAL '{value.text}'`)"


def _refuse_operator_runs(tokens: list) -> None:
    """Spark's syntax errors that sqlglot's parser reads as something: two comparison
    operators in a row (`a > > 2`, `a >>>> 2`, which is `>>>` then `>`; `>>` and `>>>`
    are adjacent `>` tokens here, see `bitwise`), and a cast after `IS [NOT] NULL` (or
    TRUE / FALSE / UNKNOWN), where NULL is a keyword of the predicate, not a value
    (`FALSE IS NOT NULL :: string`); an aggregate's FILTER without WHERE
    (`sum(x) FILTER (x > 0)`)."""
    for i in range(1, len(tokens)):
        a, b = tokens[i - 1], tokens[i]
        if b.token_type in _COMPARISON_TOKENS and (
                a.token_type == TokenType.DQMARK and a.text == ">>>" or a.token_type in _COMPARISON_TOKENS
                and not (a.token_type == b.token_type and a.token_type in (TokenType.GT, TokenType.LT)
                         and b.start == a.end + 1)):
            raise ParseError(f"a comparison operator cannot follow another, near {b.text!r}", b.line,
                             max(1, b.col - len(b.text) + 1))
        if i > 1 and a.token_type == TokenType.FILTER and b.token_type == TokenType.L_PAREN \
                and tokens[i - 2].token_type == TokenType.R_PAREN \
                and (i + 1 == len(tokens) or tokens[i + 1].token_type != TokenType.WHERE):
            # an aggregate's FILTER holds a WHERE: `sum(x) FILTER (WHERE x > 0)`
            raise ParseError("FILTER of an aggregate needs WHERE: FILTER (WHERE condition)", b.line, b.col)
        if b.token_type == TokenType.DCOLON and a.token_type in _IS_KEYWORDS \
                and ([t.token_type for t in tokens[max(0, i - 2):i - 1]] == [TokenType.IS]
                     or [t.token_type for t in tokens[max(0, i - 3):i - 1]] == [TokenType.IS, TokenType.NOT]):
            raise ParseError(f"`::` cannot follow `IS [NOT] {a.text.upper()}` (a predicate, not a value: "
                             "put it in parentheses to cast it)", b.line, max(1, b.col - 1))


# the words that end a list when they follow it; after a comma, a syntax error in Spark
# (`PARTITION BY a, ORDER BY b`), which sqlglot's parser reads as the list's end
_LIST_ENDS = frozenset({TokenType.R_PAREN, TokenType.SEMICOLON, TokenType.ORDER_BY, TokenType.GROUP_BY,
                        TokenType.PARTITION_BY, TokenType.SORT_BY, TokenType.CLUSTER_BY, TokenType.DISTRIBUTE_BY})
_TABLE_STARTS = frozenset({TokenType.VAR, TokenType.IDENTIFIER, TokenType.L_PAREN})


def _refuse_trailing_commas(tokens: list) -> None:
    """A comma that ends a list, which Spark's parser rejects and sqlglot's drops: before
    `)`, the statement's end or a clause (`f(a,)`, `IN (1, 2,)`, `GROUP BY a,`), and
    before the FROM of a select list (`SELECT a, FROM t`: TRAILING_COMMA_IN_SELECT).  (A
    keyword after a comma may be a name in Spark, `SELECT a, from FROM t`: only a FROM
    before a table's name or a subquery is taken for the clause.)"""
    for i, t in enumerate(tokens):
        if t.token_type != TokenType.COMMA:
            continue
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if nxt is None or nxt.token_type in _LIST_ENDS:
            raise ParseError(f"a list cannot end with a comma, near {(nxt.text if nxt else ',')!r}", t.line, t.col)
        after = tokens[i + 2] if i + 2 < len(tokens) else None
        if nxt.token_type == TokenType.FROM and (after is None or after.token_type in _TABLE_STARTS):
            raise ParseError("a select list cannot end with a comma before FROM", t.line, t.col,
                             error_class="TRAILING_COMMA_IN_SELECT")


# where an operand may stand (a keyword there may be a column's name in Spark), and what
# may follow an operand that is a bare name
_BEFORE_OPERAND = frozenset({TokenType.SELECT, TokenType.COMMA, TokenType.L_PAREN, TokenType.WHERE, TokenType.AND,
                             TokenType.OR, TokenType.HAVING, TokenType.ON, TokenType.PLUS, TokenType.DASH,
                             TokenType.SLASH}) | _COMPARISON_TOKENS
_AFTER_OPERAND = frozenset({TokenType.FROM, TokenType.COMMA, TokenType.R_PAREN, TokenType.SEMICOLON, TokenType.PLUS,
                            TokenType.DASH, TokenType.STAR, TokenType.SLASH, TokenType.AND, TokenType.OR}) \
    | _COMPARISON_TOKENS


def _select_from(tokens: list) -> str | None:
    """`SELECT FROM t`, which sqlglot's parser reads as a select list of nothing, and
    Spark's as the column `from` named `t` (it reports the column unresolved, or reads an
    outer query's)."""
    if any(a.token_type == TokenType.SELECT and b.token_type == TokenType.FROM for a, b in zip(tokens, tokens[1:])):
        return "a keyword as a column's name (`SELECT FROM ...`), which sqlglot's parser reads as no column"
    return None


def _keyword_as_name(tokens: list) -> str | None:
    """A keyword where Spark reads a column's name (`SELECT where FROM t`, `WHERE on = 6`:
    without spark.sql.ansi.enforceReservedKeywords, any keyword may name a column), which
    sqlglot's parser fails on."""
    for i in range(1, len(tokens)):
        t = tokens[i]
        if t.token_type in (TokenType.VAR, TokenType.IDENTIFIER, TokenType.NUMBER) or "STRING" in t.token_type.name \
                or not t.text.isidentifier():
            continue  # (a keyword only: not a name, a number, a string's text)
        if i + 1 == len(tokens):
            continue  # (`SELECT where`: no column can be read there, an error either way)
        if tokens[i - 1].token_type in _BEFORE_OPERAND and tokens[i + 1].token_type in _AFTER_OPERAND:
            return f"a keyword as a column's name (`{t.text}`), which sqlglot's parser does not read"
    return None


def _unparsed_syntax(tokens: list) -> str | None:
    """Spark syntax on which sqlglot's parser fails, by what the statement holds: a lambda
    (whose parameters sqlglot reads as names only: `(all, i) -> all + i`), a script
    transform `MAP / REDUCE ... USING 'script'`.  The statement passes through: Spark
    reads it or reports its own error."""
    kinds = {t.token_type for t in tokens}
    if TokenType.ARROW in kinds:
        return "a lambda function sqlglot's parser does not read"
    if any(t.text.upper() in ("MAP", "REDUCE") for t in tokens) and any(t.token_type == TokenType.USING and u.token_type == TokenType.STRING
                                       for t, u in zip(tokens, tokens[1:])):
        return "a script transform (MAP / REDUCE ... USING)"
    return None


def unnested_comments(sql: str) -> str:
    """The text with each bracketed comment inside another (`/* a /* b */ c */`) made part
    of the outer one: its delimiters blanked, every other character where it was (Spark
    nests bracketed comments; sqlglot's tokenizer ends a comment at the first `*/`).
    The text itself when no comment holds another."""
    if sql.count("/*") < 2:
        return sql
    i, n, depth = 0, len(sql), 0
    blank: list[int] = []
    while i < n:
        if depth == 0 and sql[i] in "'\"`":
            quote, i = sql[i], i + 1
            while i < n and sql[i] != quote:
                i += 2 if sql[i] == "\\" and quote != "`" else 1
            i += 1
        elif depth == 0 and sql.startswith("--", i):
            j = sql.find("\n", i)
            i = n if j < 0 else j + 1
        elif sql.startswith("/*", i):
            depth += 1
            if depth > 1:
                blank.append(i)
            i += 2
        elif depth and sql.startswith("*/", i):
            if depth > 1:
                blank.append(i)
            depth, i = depth - 1, i + 2
        else:
            i += 1
    if not blank:
        return sql
    chars = list(sql)
    for k in blank:
        chars[k] = chars[k + 1] = " "
    return "".join(chars)


def _line_col(sql: str, offset: int) -> tuple[int, int]:
    line = sql.count("\n", 0, offset) + 1
    col = offset - (sql.rfind("\n", 0, offset) + 1) + 1
    return line, col


def _unterminated_quote(sql: str) -> int | None:
    """Offset of the quote that opens an unterminated literal or identifier."""
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if sql.startswith("--", i):
            j = sql.find("\n", i)
            i = n if j < 0 else j + 1
            continue
        if sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            if j < 0:
                return i
            i = j + 2
            continue
        if c in "'\"`":
            j = i + 1
            while j < n:
                if sql[j] == "\\" and c != "`":
                    j += 2
                    continue
                if sql[j] == c:
                    break
                j += 1
            if j >= n:
                return i
            i = j + 1
            continue
        i += 1
    return None


class _quiet_command_fallback(logging.Filter):
    """While sparkfold parses, sqlglot's note that it read a statement it has no grammar
    for (`SHOW TABLES`, `EXPLAIN ...`) as a generic command is not logged: sparkfold
    passes such statements through, and the user's log is theirs."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "Falling back to parsing as a 'Command'" not in record.getMessage()

    def __enter__(self):
        _SQLGLOT_LOG.addFilter(self)
        return self

    def __exit__(self, *exc) -> None:
        _SQLGLOT_LOG.removeFilter(self)


_SQLGLOT_LOG = logging.getLogger("sqlglot")


def parse_statements(sql: str, placed: bool = True) -> list[exp.Expression]:
    """Parse SQL text into sqlglot trees (one per statement); raises ParseError.
    `placed=False`: the nodes' source spans (`plans.ir.dialect.node_span`) are never
    asked for, so they are not recorded."""
    if not isinstance(sql, str):
        raise UnsupportedError(f"expected SQL text, got {type(sql).__name__}")
    sql = unnested_comments(sql)  # (the same length: every position stays)
    line: int | None
    col: int | None
    try:
        tokens = DIALECT.tokenize(sql)
    except TokenError:
        off = _unterminated_quote(sql)
        if off is not None:
            line, col = _line_col(sql, off)
            raise ParseError("unterminated quoted text or comment", line, col) from None
        raise ParseError("cannot read the SQL text") from None
    levels: set[int] = set()
    fixes = _Fixes()
    written = tokens  # (as the text has them, before sparkfold's fixes and the compiled build's)
    tokens = variant_paths.marked(_fix_tokens(tokens, sql, levels, fixes), sql)
    _refuse_operator_runs(tokens)
    _refuse_trailing_commas(tokens)
    unmodelled = _unmodelled_syntax(tokens)
    parser = DIALECT.parser() if placed else unplaced_parser()
    try:
        with _quiet_command_fallback():
            if compiled_sqlglot():
                tokens, dpipes = grammar.prepare(tokens)
                trees = grammar.restore(parser.parse(tokens, sql), tokens, dpipes, parser)
            else:
                trees = parser.parse(tokens, sql)
    except Exception as e:
        if unmodelled is not None:  # (sqlglot's parser may fail otherwise on it: an assertion)
            raise UnmodelledSyntax(unmodelled) from None
        if not isinstance(e, SqlglotParseError):
            raise
        if (unread := _keyword_as_name(written) or _unparsed_syntax(tokens)) is not None:
            raise UnmodelledSyntax(unread) from None
        err = (e.errors or [{}])[0]
        line, col = err.get("line"), err.get("col")
        highlight = err.get("highlight") or ""
        if col is not None and highlight:
            col = max(1, col - len(highlight) + 1)
        if (arity := _wrong_arity(sql, tokens)) is not None:
            raise ParseError(arity[0], *_line_col(sql, arity[1]), error_class="WRONG_NUM_ARGS.WITHOUT_SUGGESTION") \
                from None
        desc = _readable(err.get("description") or str(e))
        if highlight:
            desc = f"{desc} near {highlight!r}" if "but got" not in desc else \
                desc.replace("but got", "but found").rstrip() + f" {highlight!r}"
        raise ParseError(grammar.as_written(desc, highlight), line, col) from None
    trees = [t for t in trees if t is not None]
    read_otherwise = unmodelled or precedence.check(tokens, sql) or _select_from(tokens)
    if read_otherwise is not None:
        for tree in trees:
            tree.meta[precedence.MEANING] = read_otherwise
    if len(levels) > 1 or -1 in levels:
        trees = bitwise.restore(trees)
    if fixes.extract_fields or fixes.as_written or fixes.unary_plus or fixes.is_unknown or fixes.bang_not \
            or fixes.pivot_aggregates:
        _restored(trees, fixes)
    if placed and compiled_sqlglot() and trees:
        spans_later(trees, spans.Recorder(trees, tokens))
    return trees


_MISSING = re.compile(r"Required keyword: '(\w+)' missing for <class '[\w.]*?(\w+)'>")
_CLASS = re.compile(r"<class '[\w.]*?(\w+)'>")


def _readable(desc: str) -> str:
    """sqlglot's description of a syntax error in the user's terms: no token dumps, no
    Python class names (`Required keyword: 'this' missing for <class '...Paren'>` is an
    expression missing)."""
    desc = desc.split(" <Token")[0] if "<Token" in desc else desc
    desc = _MISSING.sub(lambda m: "an expression is missing" if m.group(1) in ("this", "expression", "expressions")
                        else f"{m.group(1)} is missing in {m.group(2)}", desc)
    return _CLASS.sub(lambda m: m.group(1), desc)


def parse_query(sql: str, placed: bool = True) -> exp.Expression:
    """Parse exactly one statement (`placed`: see `parse_statements`)."""
    trees = parse_statements(sql, placed)
    if not trees:
        raise ParseError("empty input: no SQL statement", 1, 1)
    if len(trees) > 1:
        raise UnsupportedError(f"expected one SQL statement, found {len(trees)}")
    return trees[0]


__all__ = ["parse_query", "parse_statements", "UnmodelledSyntax"]
