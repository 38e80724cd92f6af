"""Source spans read from the tokens after parsing, for sqlglot's compiled parser.

With pure-Python sqlglot the parser records each expression's span as it parses
(`plans.ir.dialect._spanning`).  sqlglotc's parser cannot be extended that way, so the
spans are rebuilt from what its tree keeps: the positions of identifiers, literals and
call names, NULL / TRUE / FALSE in the order of their tokens, the names of calls with
their own syntax (`CAST(`, marked by `grammar`), then closed over the tokens: a span
takes in the parentheses it opens, a parenthesized expression its parentheses, a CASE
its CASE and END.  Findings point where they do with the pure-Python build on the
queries the tests cover; a span this misses is a finding's extent, never a rewrite.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.tokens import Token, TokenType

from ..ir.dialect import SPAN

CALL_TOKEN = "sparkfold_call_token"  # meta: the index of a call's name token (set by grammar)
_KEYWORD_LEAVES = {TokenType.NULL: exp.Null, TokenType.TRUE: exp.Boolean, TokenType.FALSE: exp.Boolean}


class Recorder:
    """The spans of trees parsed from `tokens`, set on demand: `place(node)` sets them in
    the node's subtree only (the splice and the findings ask for a few nodes, and the
    whole tree cost a TPC-DS run about 4%), `all()` in every tree.  A node's span
    depends on its subtree and the tokens only, but for NULL / TRUE / FALSE, which are
    paired with their tokens over the whole text once; so placing nodes one subtree
    at a time sets the very spans `all()` sets."""

    def __init__(self, trees: list, tokens: list[Token]):
        self.trees = [t for t in trees if t is not None]
        self.tokens = tokens
        self.first: dict[int, int] = {}
        self.last: dict[int, int] = {}
        self.depth: list[int] = []  # depth[k]: parentheses open before token k
        self.keywords: dict[int, int] = {}  # id(NULL / TRUE / FALSE node) -> its token
        self.ranges: dict[int, tuple[int, int]] = {}  # id(node) -> its tokens, closed
        self.done: dict[int, exp.Expr] = {}  # the nodes placed, kept: no id stands for another
        self.ready = False

    def all(self) -> None:
        for tree in self.trees:
            self.place(tree)

    def place(self, node: exp.Expr) -> None:
        if self.done.get(id(node)) is node:
            return
        try:
            if not self.ready:
                self._prepare()
            done = self.done
            todo: list[exp.Expr] = [n for n in node.walk(bfs=False) if done.get(id(n)) is not n]
            for n in reversed(todo):  # children before their parents
                done[id(n)] = n
                self._span(n)
        except Exception:  # noqa: BLE001  spans only place findings and the splice's pieces (a
            pass           # piece placed wrong does not read back): a bug here never fails a run

    def _prepare(self) -> None:
        tokens = self.tokens
        self.first = {t.start: i for i, t in reversed(list(enumerate(tokens)))}
        self.last = {t.end: i for i, t in enumerate(tokens)}
        depth = [0]
        for t in tokens:
            depth.append(depth[-1] + _paren(t))
        self.depth = depth
        nodes = [n for tree in self.trees for n in tree.walk(bfs=False)]
        self.keywords = {id(n): i for n, i in _keyword_leaves(self.trees, nodes, tokens, self.first)}
        self.ready = True

    def _span(self, node: exp.Expr) -> None:
        tokens, ranges, first, last = self.tokens, self.ranges, self.first, self.last
        meta = node._meta or {}
        own: tuple[int, int] | None = None
        k = self.keywords.get(id(node))
        if k is not None:
            own = (k, k)
        elif meta.get("start") in first and meta.get("end") in last:
            own = (first[meta["start"]], last[meta["end"]])
        call = meta.pop(CALL_TOKEN, None) if meta else None
        lo, hi = own if own is not None else (call, call) if call is not None else (None, None)
        if call is not None:
            lo, hi = min(lo, call), max(hi, call)
        for child in node.iter_expressions():
            r = ranges.get(id(child))
            if r is not None:
                lo = r[0] if lo is None else min(lo, r[0])
                hi = r[1] if hi is None else max(hi, r[1])
        if lo is None or hi is None:
            return
        lo, hi = _closed(node, lo, hi, tokens, self.depth, called=call is not None)
        ranges[id(node)] = (lo, hi)
        if own is not None and _wrapped_call(node):
            lo, hi = own  # (a call under OVER / IGNORE NULLS: its name, as the pure-Python parser has it)
        node.meta[SPAN] = (tokens[lo].start, tokens[hi].end)


def _wrapped_call(node: exp.Expr) -> bool:
    parent = node.parent
    return isinstance(node, exp.Func) and isinstance(parent, _CALL_WRAPPERS) and parent.this is node


_RELATIONS = (exp.From, exp.Join, exp.Lateral, exp.CTE, exp.SetOperation)
_CALL_WRAPPERS = (exp.Window, exp.IgnoreNulls, exp.RespectNulls, exp.WithinGroup, exp.Filter)


def _keyword_leaves(trees: list, nodes: list[exp.Expression], tokens: list[Token], first: dict) -> list:
    """NULL / TRUE / FALSE nodes paired with their tokens: the n-th such node in the text's
    order (depth first, children ordered by where they start) is the n-th such token
    (the NULL of `x IS NULL` has no span with the pure-Python parser either)."""
    keyword = [i for i, t in enumerate(tokens) if t.token_type in _KEYWORD_LEAVES and not _after_is(tokens, i)]
    if not keyword:
        return []
    starts: dict[int, int] = {}
    for node in reversed(nodes):
        meta = node._meta or {}
        own = first.get(meta.get("start")) if meta.get("start") is not None else None
        found = [starts[id(c)] for c in node.iter_expressions() if id(c) in starts]
        if own is not None or found:
            starts[id(node)] = min(found + ([own] if own is not None else []))
    leaves = []
    for tree in trees:
        stack = [tree] if tree is not None else []
        while stack:  # depth first, children in the order of the text
            node = stack.pop()
            if type(node) in (exp.Null, exp.Boolean) and not _of_is(node):
                leaves.append(node)
            children: list[tuple[int, int, exp.Expression]] = []
            key = -1
            for c in node.iter_expressions():
                key = starts.get(id(c), key)  # (a child without a position stays after the one before)
                children.append((key, len(children), c))
            stack.extend(c for _, _, c in sorted(children, key=lambda x: (x[0], x[1]), reverse=True))
    return list(zip(leaves, keyword)) if len(leaves) == len(keyword) else []


def _of_is(node: exp.Expression) -> bool:
    return isinstance(node.parent, exp.Is) and node.arg_key == "expression"


def _after_is(tokens: list[Token], i: int) -> bool:
    j = i - 1
    if j >= 0 and tokens[j].token_type == TokenType.NOT:
        j -= 1
    return j >= 0 and tokens[j].token_type == TokenType.IS


def _closed(node: exp.Expr, lo: int, hi: int, tokens: list[Token], depths: list[int],
            called: bool) -> tuple[int, int]:
    n = len(tokens)
    tt = lambda k: tokens[k].token_type if 0 <= k < n else None  # noqa: E731
    if isinstance(node, exp.Func) and tt(hi + 1) == TokenType.L_PAREN \
            and not any(True for _ in node.iter_expressions()):
        hi += 1  # `rand()`
    if isinstance(node, (exp.Not, exp.Neg, exp.BitwiseNot)) and tt(lo - 1) in (TokenType.NOT, TokenType.DASH,
                                                                                 TokenType.TILDE):
        lo -= 1
    if isinstance(node, exp.Interval) and tt(lo - 1) == TokenType.INTERVAL:
        lo -= 1
        if node.args.get("unit") is not None and hi + 1 < n and tt(hi + 1) not in _NOT_UNITS:
            hi += 1
    if isinstance(node, (exp.Cast, exp.TryCast)) and not called:
        if isinstance(node.this, exp.Literal) and node.this.is_string and tt(lo - 1) in _TYPE_KEYWORDS:
            lo -= 1  # DATE '2020-01-01'
        elif tt(hi + 1) == TokenType.DCOLON and hi + 2 < n:
            hi += 2  # x::INT
    if isinstance(node, (exp.If, exp.Transform)) and "name" in node.meta and tt(lo - 1) == TokenType.L_PAREN \
            and lo >= 2 and tokens[lo - 2].text.upper() == str(node.meta["name"]).upper():
        lo -= 2  # IF(...), transform(...)
    if isinstance(node, (exp.IgnoreNulls, exp.RespectNulls)) and hi + 2 < n \
            and tokens[hi + 1].text.upper() in ("IGNORE", "RESPECT") and tokens[hi + 2].text.upper() == "NULLS":
        hi += 2
    if (isinstance(node, exp.Is) and not isinstance(node.parent, exp.Not)) or \
            (isinstance(node, exp.Not) and isinstance(node.this, exp.Is)):
        while tt(hi + 1) in (TokenType.IS, TokenType.NOT) and hi + 2 < n:
            hi += 1
        if tt(hi + 1) in _KEYWORD_LEAVES:
            hi += 1
    depth = depths[hi + 1] - depths[lo]
    while depth > 0 and hi + 1 < n:
        hi += 1
        depth += _paren(tokens[hi])
    while depth < 0 and lo > 0:
        lo -= 1
        depth += _paren(tokens[lo])
    if isinstance(node, exp.Subquery) and not isinstance(node.parent, _RELATIONS):
        lo, hi = _enclosing(lo, hi, tokens)  # (SELECT ...) in an expression
    elif isinstance(node, exp.Paren) and tt(lo - 1) == TokenType.L_PAREN and tt(hi + 1) == TokenType.R_PAREN:
        lo, hi = lo - 1, hi + 1
    if isinstance(node, exp.Case):
        while lo > 0 and tokens[lo].token_type != TokenType.CASE:
            lo -= 1
        nested = 0
        while hi + 1 < n:
            hi += 1
            if tokens[hi].token_type == TokenType.CASE:
                nested += 1
            elif tokens[hi].token_type == TokenType.END:
                if nested == 0:
                    break
                nested -= 1
    return lo, hi


def _enclosing(lo: int, hi: int, tokens: list[Token]) -> tuple[int, int]:
    """The innermost parentheses around tokens lo..hi (a subquery's)."""
    depth, k = 0, lo - 1
    while k >= 0:
        depth += _paren(tokens[k])
        if depth > 0:
            break
        k -= 1
    if k < 0:
        return lo, hi
    depth, m = 0, hi + 1
    while m < len(tokens):
        depth += _paren(tokens[m])
        if depth < 0:
            return k, m
        m += 1
    return lo, hi


_TYPE_KEYWORDS = frozenset({TokenType.DATE, TokenType.TIMESTAMP, TokenType.TIMESTAMPNTZ, TokenType.TIMESTAMPLTZ,
                            TokenType.TIMESTAMPTZ, TokenType.DATETIME})
_NOT_UNITS = frozenset({TokenType.R_PAREN, TokenType.COMMA, TokenType.PLUS, TokenType.DASH, TokenType.STAR,
                        TokenType.SLASH, TokenType.AND, TokenType.OR, TokenType.FROM, TokenType.WHERE,
                        TokenType.ALIAS, TokenType.SEMICOLON})


def _paren(t: Token) -> int:
    return 1 if t.token_type == TokenType.L_PAREN else -1 if t.token_type == TokenType.R_PAREN else 0
