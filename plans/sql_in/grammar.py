"""sparkfold's corrections to sqlglot's Spark grammar, made around sqlglot's own parser.

sqlglot's compiled build (sqlglotc, `pip install "sqlglot[c]"`) does not let Python
subclass its parser (with pure-Python sqlglot `plans.ir.dialect._Parser` does), so with
sqlglotc the corrections are made on the tokens before sqlglot's stock Spark parser runs,
and on the tree after (tests/test_grammar.py checks they give the subclass's trees):

- `||` binds like `+` and `-` (Spark's grammar), left to right: `'a: ' || 2 + 2` is
  `('a: ' || 2) + 2`, where sqlglot puts it with the bitwise operators.  Each `||` is
  handed to the parser as a `+` (so it takes the place Spark gives it), marked by a
  comment, and the `Add` it becomes is made a `DPipe` again.
- calls of functions the optimizer does not model stay as written (`exp.Anonymous`):
  sqlglot's builders rewrite them (`to_char(d, '999')` became `CAST(d AS STRING)`,
  `date_sub(dt, 1)` `DATE_ADD(dt, 1 * -1)`).  The name token of such a call is renamed
  (`sparkfoldcall` + name), which no builder knows, and the name is put back after; the
  few calls sparkfold builds its own way (`first(v, true)`) are then built.
- `any(v)` is Spark's aggregate, not the `ANY` predicate: the same renaming keeps
  sqlglot's no-parenthesis `ANY` parser away from it.
- the name a call was spelled with (`substr` / `substring`: Spark names columns after
  it) is kept in `meta["name"]`: sqlglot does it for calls its builders make
  (`ORIGINAL_NAME_META_KEY`); for calls with their own syntax (`CAST(...)`, `TRIM(...)`)
  a `sqlglot.meta` comment on the name token carries the spelling to the node.

Where the tree does not show for sure what the text meant (a `||` the stock parser took
for the sum of intervals), the statement is a syntax error rather than a guess.
"""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.errors import ParseError as SqlglotParseError
from sqlglot.optimizer.scope import find_in_scope
from sqlglot.tokens import Token, TokenType

from ..ir.dialect import AS_WRITTEN_CALLS, FUNCTIONS
from ..ir.errors import ParseError
from .spans import CALL_TOKEN

_STOCK = Spark.parser_class
# letters only: sqlglot tests `text.isalpha()` on some tokens
RENAMED = "sparkfoldcall"
# Marks put on tokens as `sqlglot.meta` comments: sqlglot sets them in the `meta` of the
# node that takes the token's comments (where they stay when comments move up the tree)
_DPIPE = "sparkfold_dpipe"
_CALLED = "sparkfold_called"
_MARK = "sqlglot.meta sparkfold_"
_FUNC_TOKENS = frozenset(_STOCK.FUNC_TOKENS)
_ALIASED_ARGS = frozenset(_STOCK.FUNCTIONS_WITH_ALIASED_ARGS)
_PREDICATES = _STOCK.SUBQUERY_PREDICATES
# keywords that are also infix operators (`x RLIKE (...)`, `a DIV (b)`)
_INFIX = frozenset(tt for table in ("RANGE_PARSERS", "FACTOR", "TERM", "BITWISE", "EQUALITY", "COMPARISON",
                                    "CONJUNCTION", "DISJUNCTION", "ASSIGNMENT", "EXPONENT", "COLUMN_OPERATORS")
                   for tt in getattr(_STOCK, table, {})) | {TokenType.COLLATE, TokenType.XOR}
# the nodes a call of the name is parsed into, where its name is written down
_NAMED = {"CASE": exp.Case, **{t.name: c for t, c in _PREDICATES.items()}}
# calls sqlglot parses without the name token's comments, named by their order instead
_IN_ORDER = {"IF": exp.If, "TRANSFORM": exp.Transform}


def _with(t: Token, text: str | None = None, token_type=None, mark: str = "") -> Token:
    comments = [*t.comments, f"{_MARK}{mark}"] if mark else list(t.comments)
    return Token(token_type or t.token_type, t.text if text is None else text, t.line, t.col, t.start, t.end,
                 comments)


def prepare(tokens: list[Token]) -> tuple[list[Token], int]:
    """The tokens sqlglot's stock parser reads as sparkfold's grammar; and how many `||`."""
    out: list[Token] = []
    dpipes = 0
    n = len(tokens)
    for i, t in enumerate(tokens):
        tt = t.token_type
        if t.text[:len(RENAMED)].lower() == RENAMED:
            # the names put back after parsing would lose this text's start too
            raise ParseError(f"with sqlglot's compiled build, sparkfold keeps text starting with "
                             f"{RENAMED!r} for itself: {t.text!r}", t.line, max(1, t.col - len(t.text) + 1))
        if tt == TokenType.DPIPE:
            out.append(_with(t, token_type=TokenType.PLUS, mark=f"dpipe={i}"))
            dpipes += 1
            continue
        upper = t.text.upper()
        # a function's name: before `(`, not after a `.`; a keyword only where an
        # operand starts (`x RLIKE (...)` is no call)
        call = (i + 1 < n and tokens[i + 1].token_type == TokenType.L_PAREN or upper == "CASE") \
            and not (i and tokens[i - 1].token_type == TokenType.DOT) \
            and (tt not in _INFIX or not ends_operand(out))
        if upper == "ANY" or (call and upper in AS_WRITTEN_CALLS):
            # (`EXISTS (SELECT ...)` is still read by its token type; its name is marked)
            mark = f"called={i}" if call and tt in _PREDICATES else ""
            out.append(_with(t, text=RENAMED + t.text, mark=mark))
        elif call and (tt in _FUNC_TOKENS or upper in _NAMED):
            # the spelling of a call sqlglot does not record (`CAST(...)`, `TRIM(...)`)
            out.append(_with(t, mark=f"called={i}"))
        else:
            out.append(t)
    return out, dpipes


def restore(trees: list, tokens: list[Token], dpipes: int, parser) -> list:
    """Undo `prepare` on the parsed trees (in place; a root may be replaced)."""
    adds: list[exp.Add] = []
    rebuild: list[exp.Anonymous] = []
    out = list(trees)
    for node in (n for tree in out if tree is not None for n in list(tree.walk())):
        if node.comments:
            node.comments = [c for c in node.comments if not c.startswith(_MARK)] or None
        meta = node._meta
        if meta:
            if meta.pop(_DPIPE, None) is not None:
                if not isinstance(node, exp.Add):
                    raise _misplaced(tokens)
                adds.append(node)
            called = meta.pop(_CALLED, None)
            if called is not None:
                if isinstance(node, exp.Func):
                    node.meta[CALL_TOKEN] = int(called)  # where its span starts
                _name_call(node, unrenamed(tokens[int(called)].text))
        for key, value in node.args.items():
            if isinstance(value, str) and value[:len(RENAMED)].lower() == RENAMED:
                node.args[key] = value[len(RENAMED):]
                anon = node if isinstance(node, exp.Anonymous) else node.parent
                if isinstance(anon, exp.Anonymous) and anon.name.upper() in FUNCTIONS:
                    rebuild.append(anon)
    if len(adds) != dpipes:
        raise _misplaced(tokens)
    _name_in_order(out, tokens)
    for add in reversed(adds):  # the inner ones first
        _replace(out, add, _dpipe(add))
    for anon in rebuild:
        _replace(out, anon, _build(anon, parser))
    return out


def unrenamed(text: str) -> str:
    """A text about renamed tokens, with their names as written."""
    return re.sub(RENAMED, "", text, flags=re.IGNORECASE)


def as_written(error: str, near: str) -> str:
    """sqlglot's error message about prepared tokens, as about the text (a `||` the
    parser took for a `+` made an Add)."""
    error = unrenamed(error)
    return error.replace(".Add'>", ".DPipe'>") if near == "||" else error


def _replace(trees: list, old: exp.Expression, new: exp.Expression) -> None:
    for i, tree in enumerate(trees):
        if old is tree:
            trees[i] = new
            return
    old.replace(new)


def _dpipe(add: exp.Add) -> exp.DPipe:
    # (as sparkfold's parser made them: `||` among the TERM operators, `safe`)
    out = exp.DPipe(this=add.this, expression=add.expression, safe=True)
    if add.comments:
        out.add_comments(add.comments)
    if add.meta:
        out.meta.update(add.meta)
    return out


def _misplaced(tokens: list[Token]) -> SqlglotParseError:
    # a `||` where no operator is expected (`SELECT || 'a'`), or right after an interval
    # (where sqlglot reads a `+` as the sum of intervals): sparkfold does not guess
    t = next(t for t in tokens if t.token_type == TokenType.PLUS and t.text == "||")
    desc = "Invalid expression / Unexpected token"
    return SqlglotParseError(desc, errors=[{"description": desc, "line": t.line, "col": t.col, "highlight": "||"}])


def _name_in_order(trees: list, tokens: list[Token]) -> None:
    """The spelling of the calls sqlglot parses without keeping the name token's comments
    (`IF(...)`, `transform(...)`): the n-th such call in the text is the n-th such node in
    the tree, depth first (a CASE's WHEN branches are If nodes of no call)."""
    for upper, cls in _IN_ORDER.items():
        names = [t.text for i, t in enumerate(tokens) if t.text.upper() == upper and i + 1 < len(tokens)
                 and tokens[i + 1].token_type == TokenType.L_PAREN
                 and not (i and tokens[i - 1].token_type == TokenType.DOT)]
        if not names:
            continue
        nodes = [n for tree in trees if tree is not None for n in tree.walk(bfs=False)
                 if type(n) is cls and "name" not in n.meta and not isinstance(n.parent, exp.Case)]
        if len(nodes) == len(names):
            for node, name in zip(nodes, names):
                node.meta["name"] = name


def _name_call(node: exp.Expression, text: str) -> None:
    """`meta["name"]` as sparkfold's parser records it for the node a call with its own
    syntax became (the call's node, or the one a window's OVER wraps; not a WITHIN GROUP,
    FILTER or IGNORE NULLS around it, which are no function)."""
    parent = node.parent
    if isinstance(parent, (exp.WithinGroup, exp.Filter, exp.IgnoreNulls, exp.RespectNulls)) and parent.this is node:
        return
    target = node.this if isinstance(node, exp.Window) else node
    expected = _NAMED.get(text.upper())
    if isinstance(target, exp.Func) and not isinstance(target, exp.Anonymous) and "name" not in target.meta \
            and (expected is None or isinstance(target, expected)):
        target.meta["name"] = text


def _build(anon: exp.Anonymous, parser) -> exp.Expression:
    """A renamed call sparkfold builds (`first(v)`), as sqlglot's parser builds a known call."""
    this = anon.this
    text = this.this if isinstance(this, exp.Identifier) else this
    upper = text.upper()
    args = list(anon.expressions)
    if upper not in _ALIASED_ARGS and any(isinstance(a, exp.Alias) for a in args):
        raise SqlglotParseError("Expecting ). Invalid expression / Unexpected token")
    builder = FUNCTIONS[upper]
    try:
        func = builder(args)
    except TypeError:
        func = builder(args, dialect=parser.dialect)
    func = parser.validate_expression(func, args)
    func.meta["name"] = text
    func.update_positions(anon)
    if anon.meta and "span" in anon.meta:
        func.meta["span"] = anon.meta["span"]
    if anon.comments:
        func.add_comments(anon.comments)
    replacement = func
    if isinstance(func, exp.AggFunc):
        inner = find_in_scope(func, exp.IgnoreNulls, exp.RespectNulls)
        if inner and inner is not func:
            inner.replace(inner.this)
            replacement = inner.__class__(this=func)
    return replacement


def ends_operand(out: list[Token]) -> bool:
    """Whether the tokens so far end with an operand (so a BETWEEN next is infix, as in
    `CASE ... END NOT BETWEEN (1) AND 2`), looking past a NOT: anything but a token that
    starts an expression (`(`, `,`, an operator, SELECT, WHERE, AND, WHEN, ...) ends one."""
    k = len(out) - 1
    if k >= 0 and out[k].token_type == TokenType.NOT:
        k -= 1
    return k >= 0 and out[k].token_type not in _STARTS and out[k].text.upper() not in _STARTING_WORDS


_STARTS = frozenset({TokenType.L_PAREN, TokenType.COMMA, TokenType.EQ, TokenType.NEQ, TokenType.LT,
                     TokenType.LTE, TokenType.GT, TokenType.GTE, TokenType.PLUS, TokenType.DASH, TokenType.STAR,
                     TokenType.SLASH, TokenType.MOD, TokenType.DPIPE, TokenType.NULLSAFE_EQ, TokenType.NOT})
_STARTING_WORDS = frozenset({"SELECT", "WHERE", "AND", "OR", "NOT", "ON", "HAVING", "WHEN", "THEN", "ELSE",
                             "CASE", "DISTINCT", "BY", "IF", "RETURN", "ALL"})
