"""SQL pipe syntax (`FROM t |> WHERE c |> SELECT a`) read as the query Spark's parser
builds of it, written in standard SQL for the optimizer to read.

Spark's AstBuilder (`visitOperatorPipeRightSide`) makes each operator a plan over the
plan before it; each is written here as a SELECT over the text before it, in a derived
table (`(prev)`), with the operator's own text copied as written:

| operator | Spark's plan | written as |
|---|---|---|
| `SELECT items [WINDOW ...]` | Project | `SELECT items FROM (prev) [WINDOW ...]` |
| `EXTEND items` | Project(* ++ items) | `SELECT *, items FROM (prev)` |
| `DROP a, b` | Project(* EXCEPT a, b) | `SELECT * EXCEPT (a, b) FROM (prev)` |
| `AS x` | SubqueryAlias | `(prev) AS x`, a FROM item |
| `WHERE c` | Filter | `SELECT * FROM (prev) WHERE c` |
| `ORDER BY ...`, `LIMIT n [OFFSET m]`, `OFFSET m`, `SORT BY`... | Sort, Limit, Offset... | `SELECT * FROM (prev) ORDER BY ...` |
| `PIVOT (...)`, `UNPIVOT (...)` | the same over the relation | `SELECT * FROM (prev) PIVOT (...)` |
| `[kind] JOIN r ...` | Join | `(prev) [kind] JOIN r ...`, a FROM item |
| `UNION / INTERSECT / EXCEPT / MINUS [ALL / DISTINCT] q` | the set operation | `prev UNION q` |
| `AGGREGATE aggs [GROUP BY keys]` | Aggregate(keys, keys ++ aggs) | `SELECT keys, aggs FROM (prev) GROUP BY keys` |
| `SET a = e, b = f` | Project(* with `a` replaced), one per assignment | `SELECT x, (e) AS a, y FROM (prev)`, then `b` over it |

The first operator reads a FROM clause or `TABLE t` directly (`SELECT * FROM t WHERE c`),
so its references keep the table's qualifier, as Spark's do.  A derived table drops the
qualifiers its query's columns had, which Spark's Project keeps: a later reference by
such a qualifier (`FROM t |> SELECT a |> WHERE t.a > 1`) does not resolve in the text
written here, and the statement passes through (the caller's part), never rejected.
Spark's errors of pipe syntax that the text written here would not raise are kept by
passing the statement through: an aggregate function in SELECT, EXTEND or WHERE, an
AGGREGATE item without one, GROUP BY ALL / ROLLUP / CUBE / GROUPING SETS / a position
past the columns / GROUPING() / a window function in AGGREGATE, two result clauses in one
operator, SET of a column the query has not once.  (Spark 4.3 takes an aggregate function
in SELECT, and SELECT with GROUP BY, where earlier releases refuse them: they pass
through.)  SET and a grouping key by position (`GROUP BY 2`, the query's second column)
need the names of the columns before them, which the caller's analysis gives (`columns`);
where it cannot tell, they pass through.  TABLESAMPLE, a CTE before the chain, a pipe
inside a subquery and the `|` spelling pass through too.

`as_standard` returns the text and where each copied piece came from, so that a finding
placed in the text written here can be placed in the user's (`Standard.placed`).
"""

from __future__ import annotations

from typing import Callable

from sqlglot import exp
from sqlglot.errors import TokenError
from sqlglot.tokens import TokenType

from ..ir.dialect import DIALECT, function_name, is_aggregate_call
from ..ir.errors import SparkfoldError
from ..ir.records import record
from .expr_context import NotModelled

# the names of a query's columns, None where sparkfold cannot tell (optimizer.api)
Columns = Callable[[str], "list[str] | None"]

KEY = "spark.sql.operatorPipeSyntaxEnabled"
REASON = "SQL pipe syntax (`|>`)"

_OPENS = frozenset({TokenType.L_PAREN, TokenType.L_BRACKET})
_CLOSES = frozenset({TokenType.R_PAREN, TokenType.R_BRACKET})
# clauses of a SELECT block or a query's result clauses, which no operator below holds
# but where this says
_CLAUSES = frozenset({TokenType.FROM, TokenType.WHERE, TokenType.GROUP_BY, TokenType.HAVING, TokenType.QUALIFY,
                      TokenType.WINDOW, TokenType.ORDER_BY, TokenType.SORT_BY, TokenType.CLUSTER_BY,
                      TokenType.DISTRIBUTE_BY, TokenType.LIMIT, TokenType.OFFSET, TokenType.UNION,
                      TokenType.INTERSECT, TokenType.EXCEPT, TokenType.PIPE_GT, TokenType.LATERAL,
                      TokenType.SELECT, TokenType.WITH})
_RESULT_CLAUSES = frozenset({TokenType.ORDER_BY, TokenType.SORT_BY, TokenType.CLUSTER_BY, TokenType.DISTRIBUTE_BY,
                             TokenType.LIMIT, TokenType.OFFSET, TokenType.WINDOW, TokenType.QUALIFY})
_ORGANIZING = frozenset({TokenType.ORDER_BY, TokenType.LIMIT, TokenType.OFFSET, TokenType.SORT_BY,
                         TokenType.CLUSTER_BY, TokenType.DISTRIBUTE_BY})
_JOINS = frozenset({TokenType.JOIN, TokenType.INNER, TokenType.LEFT, TokenType.RIGHT, TokenType.FULL,
                    TokenType.CROSS, TokenType.NATURAL, TokenType.SEMI, TokenType.ANTI, TokenType.OUTER})
_SET_OPERATIONS = frozenset({TokenType.UNION, TokenType.INTERSECT, TokenType.EXCEPT})
_NAMES = frozenset({TokenType.VAR, TokenType.IDENTIFIER})


@record
class Standard:
    """The standard SQL for a pipe statement (`text`), and its pieces copied from the
    user's text: (offset here, offset in the user's text, length)."""

    text: str
    copied: tuple[tuple[int, int, int], ...]

    def placed(self, offset: int) -> int | None:
        """The user's offset of the character at `offset` here, or None (generated text)."""
        for at, source, length in self.copied:
            if at <= offset < at + length:
                return source + offset - at
        return None


@record
class _State:
    """The text so far: a FROM item (`item`) or a query; `compound` for a query that is a
    set operation or ends with ORDER BY / LIMIT / OFFSET (a set operation after it must
    read it as a derived table); `comma` for a FROM item of comma-separated relations (a
    JOIN after it would bind to the last one)."""

    pieces: tuple
    item: bool
    compound: bool = False
    comma: bool = False
    # the one name that qualifies every column (a FROM item: `t`, `t AS a`, `(...) AS q`;
    # a query: its FROM item's, kept through WHERE and the result clauses), which a derived
    # table of it is aliased with, as Spark's Filter and Sort keep their input's qualifier
    qualifier: str | None = None


def has_pipe(sql: str) -> bool:
    return "|>" in sql


def as_standard(sql: str, columns: Columns | None = None, ordinals: bool = True) -> Standard | None:
    """The statement written without pipe syntax, or None when it has no pipe operator
    at its top level (or its text cannot be read into tokens: the parser says why).
    Raises NotModelled for what is not read so.  `columns` gives the names of a query's
    columns (None where it cannot tell), which SET and a grouping key by position need;
    `ordinals` is spark.sql.groupByOrdinal (without it, `GROUP BY 1` groups by the
    constant, passed through)."""
    try:
        tokens = DIALECT.tokenize(sql)
    except TokenError:
        return None
    depth = 0
    pipes: list[int] = []
    for i, t in enumerate(tokens):
        if t.token_type in _OPENS:
            depth += 1
        elif t.token_type in _CLOSES:
            depth -= 1
        elif t.token_type == TokenType.PIPE_GT:
            if depth:
                raise NotModelled(f"{REASON} inside a subquery")
            pipes.append(i)
        elif t.token_type == TokenType.PIPE and depth == 0 and i + 1 < len(tokens) \
                and tokens[i + 1].token_type != TokenType.NUMBER:
            raise NotModelled(f"{REASON}: `|` as the pipe operator")
    if not pipes:
        return None
    ends = [*pipes, len(tokens)]
    state = _source(sql, tokens, 0, pipes[0])
    for k, at in enumerate(pipes):
        state = _operator(sql, tokens, at + 1, ends[k + 1], state, columns, ordinals)
    return _written(sql, _query(state))


def _source(sql: str, tokens: list, i: int, j: int) -> _State:
    """The query before the first `|>`: `FROM items`, `TABLE t`, a SELECT block, or a
    query in parentheses."""
    if i == j:
        raise NotModelled(f"{REASON} after nothing")
    first = tokens[i].token_type
    if first == TokenType.TABLE:
        if j - i < 2 or any(t.token_type not in _NAMES | {TokenType.DOT} for t in tokens[i + 1:j]):
            raise NotModelled(f"{REASON} after TABLE of something other than a name")
        return _State((_span(tokens, i + 1, j),), item=True, qualifier=tokens[j - 1].text)
    if first == TokenType.FROM:
        top = _top(tokens, i + 1, j)
        if any(tokens[k].token_type in _CLAUSES or tokens[k].text.upper() in ("TRANSFORM", "MAP", "REDUCE")
               for k in top):
            raise NotModelled(f"{REASON} after a FROM clause with more than its relations")
        tree = _parses(f"SELECT * FROM {sql[tokens[i + 1].start:tokens[j - 1].end + 1]}", "the FROM clause")
        source = tree.args["from_"].this if isinstance(tree, exp.Select) and tree.args.get("from_") else None
        single = isinstance(source, exp.Table) and isinstance(source.this, exp.Identifier) \
            and not tree.args.get("joins") and not source.args.get("pivots")
        return _State((_span(tokens, i + 1, j),), item=True,
                      comma=any(tokens[k].token_type == TokenType.COMMA for k in top),
                      qualifier=source.alias_or_name if single and source is not None else None)
    if first == TokenType.SELECT:
        if any(tokens[k].token_type in _CLAUSES - {TokenType.FROM, TokenType.WHERE, TokenType.GROUP_BY,
                                                   TokenType.HAVING, TokenType.SELECT, TokenType.LATERAL}
               for k in _top(tokens, i + 1, j)):
            raise NotModelled(f"{REASON} after a SELECT block with a result clause or a set operation")
        return _State((_span(tokens, i, j),), item=False)
    if first == TokenType.VALUES:  # an inline table, a FROM item (`VALUES (1), (2) AS t(a)`)
        if any(tokens[k].token_type in _CLAUSES for k in _top(tokens, i + 1, j)):
            raise NotModelled(f"{REASON} after VALUES with a clause")
        _parses(f"SELECT * FROM {sql[tokens[i].start:tokens[j - 1].end + 1]}", "the VALUES")
        return _State((_span(tokens, i, j),), item=True)
    if first == TokenType.L_PAREN and _closing(tokens, i) == j - 1:
        return _State((_span(tokens, i, j),), item=True)
    raise NotModelled(f"{REASON} after {tokens[i].text.upper()}")


def _operator(sql: str, tokens: list, i: int, j: int, state: _State, columns: Columns | None,
              ordinals: bool) -> _State:
    if i == j:
        raise NotModelled(f"{REASON}: an operator is missing")
    t = tokens[i]
    word = t.text.upper()
    top = _top(tokens, i + 1, j)
    clauses = {tokens[k].token_type for k in top if tokens[k].token_type in _CLAUSES}
    if t.token_type == TokenType.SELECT:
        # (`* EXCEPT (y)` is a star's, not a set operation)
        clauses -= {TokenType.EXCEPT} if all(tokens[k - 1].token_type == TokenType.STAR for k in top
                                              if tokens[k].token_type == TokenType.EXCEPT) else set()
        windows = [k for k in top if tokens[k].token_type == TokenType.WINDOW]
        if clauses - {TokenType.WINDOW} or len(windows) > 1:
            raise NotModelled(f"{REASON}: |> SELECT with another clause")
        stop = windows[0] if windows else j
        _no_aggregates(sql, tokens, i + 1, stop, "SELECT")
        after: tuple = (" ", _span(tokens, stop, j)) if windows else ()
        return _State(("SELECT ", _span(tokens, i + 1, stop), " FROM ", *_item(state), *after), item=False)
    if word == "EXTEND" and t.token_type == TokenType.VAR:
        if clauses:
            raise NotModelled(f"{REASON}: |> EXTEND with a clause")
        items = _no_aggregates(sql, tokens, i + 1, j, "EXTEND").expressions
        if any(isinstance(n, exp.Star) or isinstance(n, exp.Column) and isinstance(n.this, exp.Star) for n in items):
            raise NotModelled(f"{REASON}: a star in |> EXTEND")  # (Spark's INVALID_USAGE_OF_STAR_OR_REGEX)
        return _State(("SELECT *, ", _span(tokens, i + 1, j), " FROM ", *_item(state)), item=False)
    if t.token_type == TokenType.DROP:
        if j == i + 1 or any(u.token_type not in _NAMES | {TokenType.COMMA, TokenType.DOT} for u in tokens[i + 1:j]):
            raise NotModelled(f"{REASON}: |> DROP of something other than columns by name")
        return _State(("SELECT * EXCEPT (", _span(tokens, i + 1, j), ") FROM ", *_item(state)), item=False)
    if t.token_type == TokenType.ALIAS:
        if j != i + 2 or tokens[i + 1].token_type not in _NAMES:
            raise NotModelled(f"{REASON}: |> AS with something other than a name")
        return _State(("(", *_query(state), ") AS ", _span(tokens, i + 1, j)), item=True,
                      qualifier=tokens[i + 1].text)
    if t.token_type == TokenType.WHERE:
        if clauses:
            raise NotModelled(f"{REASON}: |> WHERE with another clause")
        _no_aggregates(sql, tokens, i + 1, j, "WHERE", windows=True)
        return _State(("SELECT * FROM ", *_item(state), " WHERE ", _span(tokens, i + 1, j)), item=False,
                      qualifier=state.qualifier)
    if t.token_type in _ORGANIZING:
        allowed = {TokenType.ORDER_BY: set(), TokenType.LIMIT: {TokenType.OFFSET}, TokenType.OFFSET: set(),
                   TokenType.SORT_BY: set(), TokenType.CLUSTER_BY: set(), TokenType.DISTRIBUTE_BY: {TokenType.SORT_BY}}
        if not clauses <= allowed[t.token_type]:
            raise NotModelled(f"{REASON}: |> {word} with another clause")
        return _State(("SELECT * FROM ", *_item(state), " ", _span(tokens, i, j)), item=False, compound=True,
                      qualifier=state.qualifier)
    if t.token_type in _JOINS:
        if clauses - {TokenType.LATERAL} or sum(tokens[k].token_type == TokenType.JOIN for k in [i, *top]) != 1:
            raise NotModelled(f"{REASON}: |> JOIN with a clause, or of more than one relation")
        left = _item(state) if not state.comma else ("(", *_query(state), ")")
        return _State((*left, " ", _span(tokens, i, j)), item=True)
    if t.token_type in _SET_OPERATIONS:
        # (the right side is one query block: `SELECT ...`, `TABLE t`, `VALUES`, `(query)`)
        if clauses & (_RESULT_CLAUSES | _SET_OPERATIONS | {TokenType.WITH, TokenType.PIPE_GT}):
            raise NotModelled(f"{REASON}: |> {word} of a query with a result clause or a set operation")
        left = _query(state) if not state.compound else ("SELECT * FROM (", *_query(state), ")")
        return _State((*left, " ", _span(tokens, i, j)), item=False, compound=True)
    if t.token_type in (TokenType.PIVOT, TokenType.UNPIVOT):
        if clauses or any(tokens[k].token_type in (TokenType.PIVOT, TokenType.UNPIVOT) for k in top):
            raise NotModelled(f"{REASON}: |> {word} with a clause or with another PIVOT / UNPIVOT")
        left = _item(state) if not state.comma else ("(", *_query(state), ")")
        return _State(("SELECT * FROM ", *left, " ", _span(tokens, i, j)), item=False)
    if word == "AGGREGATE" and t.token_type == TokenType.VAR:
        return _aggregate(sql, tokens, i + 1, j, top, state, columns if ordinals else None)
    if t.token_type == TokenType.SET:
        return _set(sql, tokens, i + 1, j, top, state, columns)
    raise NotModelled(f"{REASON}: |> {word}")


def _names(sql: str, state: _State, columns: Columns | None, what: str) -> list[str]:
    """The names of the columns of the query so far, each once (a name twice could not
    be written by name)."""
    names = columns(_written(sql, _query(state)).text) if columns is not None else None
    if names is None:
        raise NotModelled(f"{REASON}: {what} over a query whose columns sparkfold cannot tell")
    if len({n.lower() for n in names}) != len(names):
        raise NotModelled(f"{REASON}: {what} over a query with a column name twice")
    return names


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _set(sql: str, tokens: list, i: int, j: int, top: list[int], state: _State, columns: Columns | None) -> _State:
    """`SET a = e, b = f`: Spark's Project of the star with `a` replaced where it stands
    by `e AS a` (UnresolvedStarExceptOrReplace), one Project per assignment, so that a
    later one reads the earlier ones; written with the columns by name.  An assignment to
    a column the query has not exactly once, to a field (`a.b = ...`), with an alias or an
    aggregate function is Spark's error: passed through."""
    if any(tokens[k].token_type in _CLAUSES for k in top):
        raise NotModelled(f"{REASON}: |> SET with a clause")
    start = i
    for end in [*(k for k in top if tokens[k].token_type == TokenType.COMMA), j]:
        if end - start < 3 or tokens[start].token_type not in _NAMES or tokens[start + 1].token_type != TokenType.EQ:
            raise NotModelled(f"{REASON}: |> SET of something other than `column = expression`")
        value = _no_aggregates(sql, tokens, start + 2, end, "SET").expressions
        if len(value) != 1 or isinstance(value[0], exp.Alias):
            raise NotModelled(f"{REASON}: |> SET of something other than `column = expression`")
        target = tokens[start].text
        names = _names(sql, state, columns, "|> SET")
        at = [k for k, n in enumerate(names) if n.lower() == target.lower()]
        if len(at) != 1:
            raise NotModelled(f"{REASON}: |> SET of a column the query does not have")
        items: list = []
        for k, n in enumerate(names):
            items += [", "] if items else []
            items += ["(", _span(tokens, start + 2, end), ") AS ", _quoted(target)] if k == at[0] else [_quoted(n)]
        state = _State(("SELECT ", *items, " FROM ", *_item(state)), item=False)
        start = end + 1
    return state


def _aggregate(sql: str, tokens: list, i: int, j: int, top: list[int], state: _State,
               columns: Columns | None) -> _State:
    """`AGGREGATE aggs [GROUP BY keys]`: the keys (with their aliases) then the aggregates,
    grouped by the keys.  A key by position (`GROUP BY 2`) is the query's column there,
    written by its name."""
    groups = [k for k in top if tokens[k].token_type == TokenType.GROUP_BY]
    if any(tokens[k].token_type in _CLAUSES for k in top if k not in groups) or len(groups) > 1:
        raise NotModelled(f"{REASON}: |> AGGREGATE with another clause")
    stop = groups[0] if groups else j
    keys: list[tuple[int, int, int | None]] = []  # (from, to, the AS token or None)
    by_position: dict[int, str] = {}  # a key by position: its column's name, by the key's token
    if groups:
        start = stop + 1
        for k in [*[k for k in top if k > stop and tokens[k].token_type == TokenType.COMMA], j]:
            if k == start:
                raise NotModelled(f"{REASON}: |> AGGREGATE with an empty grouping key")
            named = [a for a in _top(tokens, start, k) if tokens[a].token_type == TokenType.ALIAS]
            if len(named) > 1 or named and (named[0] != k - 2 or tokens[k - 1].token_type not in _NAMES):
                raise NotModelled(f"{REASON}: |> AGGREGATE with a grouping key named otherwise than `AS name`")
            keys.append((start, k, named[0] if named else None))
            start = k + 1
        for a, b, alias in keys:
            end = alias if alias is not None else b
            keyed = _parses(f"SELECT {sql[tokens[a].start:tokens[end - 1].end + 1]}", "a grouping key").expressions
            if len(keyed) != 1:
                raise NotModelled(f"{REASON}: |> AGGREGATE with a grouping key sparkfold does not read")
            key = keyed[0]
            if alias is None and isinstance(key, exp.Literal) and key.is_int and columns is not None:
                names = _names(sql, state, columns, "|> AGGREGATE grouping by a position")
                if not 0 < int(key.this) <= len(names):
                    raise NotModelled(f"{REASON}: |> AGGREGATE grouping by a position past the columns")
                by_position[a] = _quoted(names[int(key.this) - 1])
                continue
            if isinstance(key, exp.Literal) and not key.is_string or key.find(exp.Window) is not None \
                    or isinstance(key, (exp.Rollup, exp.Cube, exp.GroupingSets)) \
                    or isinstance(key, exp.Column) and key.name.upper() == "ALL" and not key.table \
                    or any(isinstance(n, exp.Func) and function_name(n) in ("grouping", "grouping_id")
                           for n in key.walk()) \
                    or any(is_aggregate_call(n) for n in key.walk()):
                raise NotModelled(f"{REASON}: |> AGGREGATE grouping by an ordinal, ALL, ROLLUP, CUBE, GROUPING SETS, "
                                  "GROUPING(), an aggregate or a window function")
    pieces: list = []
    for a, b, alias in keys:
        pieces += [", "] if pieces else []
        pieces.append(by_position.get(a, _span(tokens, a, b)))
    if stop > i:
        items = _parses(f"SELECT {sql[tokens[i].start:tokens[stop - 1].end + 1]}", "the aggregates").expressions
        if any(n.find(exp.Window) is not None or not any(is_aggregate_call(m) for m in n.walk()) for n in items):
            raise NotModelled(f"{REASON}: |> AGGREGATE with an item that is not an aggregate")
        pieces += [", "] if pieces else []
        pieces.append(_span(tokens, i, stop))
    if not pieces:
        raise NotModelled(f"{REASON}: |> AGGREGATE of nothing")
    group: list = []
    for a, b, alias in keys:
        group += [", "] if group else [" GROUP BY "]
        group.append(by_position.get(a, _span(tokens, a, alias if alias is not None else b)))
    return _State(("SELECT ", *pieces, " FROM ", *_item(state), *group), item=False)


def _item(state: _State) -> tuple:
    """The text so far as a FROM item."""
    if state.item:
        return state.pieces
    if state.qualifier is None:
        return ("(", *state.pieces, ")")
    return ("(", *state.pieces, ") AS `", state.qualifier.replace("`", "``"), "`")


def _query(state: _State) -> tuple:
    """The text so far as a query."""
    return ("SELECT * FROM ", *state.pieces) if state.item else state.pieces


def _no_aggregates(sql: str, tokens: list, i: int, j: int, where: str, windows: bool = False) -> exp.Expression:
    """Spark's pipe operators refuse an aggregate function (and WHERE a window function)
    where a SELECT block would take one; a subquery's are its own."""
    if i == j:
        raise NotModelled(f"{REASON}: |> {where} of nothing")
    text = sql[tokens[i].start:tokens[j - 1].end + 1]
    tree = _parses(f"SELECT * FROM __sf_pipe WHERE {text}" if where == "WHERE" else f"SELECT {text}", where)
    for n in tree.walk():
        if n.find_ancestor(exp.Select) is not tree:
            continue  # (inside a subquery, whose own query takes them)
        if windows and isinstance(n, exp.Window):
            raise NotModelled(f"{REASON}: a window function in |> {where}")
        if is_aggregate_call(n) and n.find_ancestor(exp.Window) is None:
            raise NotModelled(f"{REASON}: an aggregate function in |> {where}")
    return tree


def _parses(text: str, what: str) -> exp.Expression:
    from .parse import parse_query

    try:
        return parse_query(text, placed=False)
    except SparkfoldError:
        raise NotModelled(f"{REASON}: {what}, which sparkfold does not read") from None


def _top(tokens: list, i: int, j: int) -> list[int]:
    """The positions of the tokens from..to outside any parentheses or brackets."""
    out = []
    depth = 0
    for k in range(i, j):
        tt = tokens[k].token_type
        if tt in _OPENS:
            if depth == 0:
                out.append(k)
            depth += 1
        elif tt in _CLOSES:
            depth -= 1
        elif depth == 0:
            out.append(k)
    return out


def _closing(tokens: list, i: int) -> int | None:
    depth = 0
    for k in range(i, len(tokens)):
        if tokens[k].token_type in _OPENS:
            depth += 1
        elif tokens[k].token_type in _CLOSES:
            depth -= 1
            if depth == 0:
                return k
    return None


def _span(tokens: list, i: int, j: int) -> tuple[int, int]:
    return tokens[i].start, tokens[j - 1].end + 1


def _written(sql: str, pieces: tuple) -> Standard:
    parts: list[str] = []
    copied: list[tuple[int, int, int]] = []
    at = 0
    for p in pieces:
        text = p if isinstance(p, str) else sql[p[0]:p[1]]
        if not isinstance(p, str):
            copied.append((at, p[0], len(text)))
        parts.append(text)
        at += len(text)
    return Standard("".join(parts), tuple(copied))
