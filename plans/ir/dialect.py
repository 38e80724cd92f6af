"""The Spark SQL dialect as sparkfold reads and writes it, shared by every layer.

sqlglot's Spark dialect, with what sparkfold needs on both sides of the IR:
- the parser keeps calls of functions the optimizer does not model as written, and
  records each parsed node's source span (for findings' line and column);
- the generator prints the typed-literal markers back (`__sf_lit_bigint(1)` as `1L`),
  `NOT (x IS NULL)` as `x IS NOT NULL` and `<=>` as written;
- `ARG_PREFIX` marks the argument slots of an opaque expression's sqlglot template
  (the IR keeps such templates; the writers fill them in).

sqlglot's parser and generator recurse; `deep_stack` runs a function on a thread with a
large stack and a high recursion limit, so nesting thousands deep does not crash.
"""

from __future__ import annotations

import collections
import contextvars
import functools
import os
import queue
import sys
import threading
from typing import Any, Callable, Hashable, Protocol, cast

from sqlglot import exp, parse_one
from sqlglot.dialects.spark import Spark
from sqlglot.tokens import TokenType

from . import types as T
from .functions import AGGREGATE_FUNCTIONS, KNOWN_AGGREGATE_NAMES, SCALAR_FUNCTIONS, VARIANT_PATH

ARG_PREFIX = "__sf_arg_"

TYPED_LITERAL_PREFIX = "__sf_lit_"
SUFFIX_TYPES = {"L": "bigint", "S": "smallint", "Y": "tinyint", "D": "double", "F": "float",
                "BD": "decimal"}
_TYPE_SUFFIX = {v: k for k, v in SUFFIX_TYPES.items()}
# `DATE '2000-01-01'`-style literals the generator writes (markers with a string argument)
_KEYWORD_LITERALS = {"date": "DATE", "timestamp": "TIMESTAMP", "timestamp_ltz": "TIMESTAMP_LTZ",
                     "timestamp_ntz": "TIMESTAMP_NTZ"}




def _typed_literal_sql(self, e: exp.Anonymous) -> str:
    name = e.name.lower()
    if name == VARIANT_PATH and len(e.expressions) == 2:
        # `v:a.b`, as Spark's syntax writes it (the operand parenthesized unless primary)
        operand = e.expressions[0]
        text = self.sql(operand)
        if not isinstance(operand, (exp.Column, exp.Paren, exp.Func, exp.Dot, exp.Bracket)):
            text = f"({text})"
        return f"{text}:{e.expressions[1].this}"
    if name.startswith(TYPED_LITERAL_PREFIX) and len(e.expressions) == 1:
        kind = name[len(TYPED_LITERAL_PREFIX):]
        suffix = _TYPE_SUFFIX.get(kind)
        if suffix:
            return f"{self.sql(e.expressions[0])}{suffix}"
        if kind in _KEYWORD_LITERALS:
            return f"{_KEYWORD_LITERALS[kind]} {self.sql(e.expressions[0])}"
        if kind == "interval" and isinstance(e.expressions[0], exp.Literal):
            return f"INTERVAL {e.expressions[0].this}"  # a multi-unit interval, as written
    return self.anonymous_sql(e)


def _not_sql(self, e: exp.Not) -> str:
    inner = e.this
    if isinstance(inner, exp.Is) and isinstance(inner.expression, exp.Null):
        return f"{self.sql(inner, 'this')} IS NOT NULL"
    return f"NOT {self.sql(e, 'this')}"


def _null_safe_eq_sql(self, e: exp.NullSafeEQ) -> str:
    return f"{self.sql(e, 'this')} <=> {self.sql(e, 'expression')}"


SPAN = "span"
SPAN_TOKENS = "span_tokens"  # meta: the tokens a node's method consumed, its children not yet counted


class SpanRecord(Protocol):
    """What sets a parsed tree's spans later (`plans.sql_in.spans.Recorder`)."""

    def all(self) -> None:
        """Set the spans of every node of the trees."""

    def place(self, node: exp.Expr) -> None:
        """Set the spans of the node's subtree (and no more)."""


# Trees whose spans are still to be read from their tokens (sqlglotc: `plans.sql_in.spans`,
# only for the nodes a finding or the splice asks about): the root's id -> what records
# them.  The owner of a tree that no longer needs spans takes it out with `forget_spans`
# (optimize() does, for its trees), so these are the trees of the runs in flight, in
# every thread; bounded all the same: the oldest are recorded whole when more come (each
# entry holds its trees, so ids stay unique).  One lock for the table and the recording,
# so that a thread asking for a tree's spans waits for a recording another thread started.
_PENDING_SPANS: dict[int, SpanRecord] = {}
_PENDING_LIMIT = 64
_PENDING_LOCK = threading.RLock()


def spans_later(roots: list, record: SpanRecord) -> None:
    """Have `record` set the spans of the trees `roots` as `node_span` needs them."""
    with _PENDING_LOCK:
        while len(_PENDING_SPANS) >= _PENDING_LIMIT:
            _run_pending(next(iter(_PENDING_SPANS)))
        for root in roots:
            _PENDING_SPANS[id(root)] = record


def forget_spans(root: exp.Expression) -> None:
    """The tree `root` will not be asked for its spans again: drop its pending record
    unrecorded (its owner is done with it), so that it is neither kept alive nor
    recorded for nothing when more trees come."""
    with _PENDING_LOCK:
        _PENDING_SPANS.pop(id(root), None)


def _run_pending(key: int) -> None:
    """Record whole the trees of the pending entry `key`, and drop it."""
    with _PENDING_LOCK:
        record = _PENDING_SPANS.pop(key, None)
        if record is not None:
            for other in [k for k, v in _PENDING_SPANS.items() if v is record]:
                _PENDING_SPANS.pop(other, None)
            record.all()


def node_span(node: exp.Expr) -> tuple[int, int] | None:
    """(first, last) character offsets of the text a parsed node came from, or None.
    Nodes built by the methods `_spanning` wraps carry a span; others (a few built
    inside those methods, like IN or a chain of ORs) get one from their children's,
    computed here without recursion and remembered."""
    if _PENDING_SPANS:
        root = node
        while root.parent is not None:
            root = root.parent
        with _PENDING_LOCK:
            record = _PENDING_SPANS.get(id(root))
            if record is not None:
                record.place(node)
    span = _own_span(node)
    if span is not None:
        return span
    stack: list[tuple[exp.Expr, bool]] = [(node, False)]
    found: dict[int, tuple[int, int]] = {}
    while stack:
        n, expanded = stack.pop()
        if not expanded:
            stack.append((n, True))
            for c in n.iter_expressions():
                if _own_span(c) is None:
                    stack.append((c, False))
            continue
        spans = [x for c in n.iter_expressions() if (x := _own_span(c) or found.get(id(c))) is not None]
        consumed = n._meta.get(SPAN_TOKENS) if n._meta else None
        if consumed is not None:
            spans.append(consumed)
        if spans:
            found[id(n)] = (min(x[0] for x in spans), max(x[1] for x in spans))
            n.meta[SPAN] = found[id(n)]
    return found.get(id(node))


def _own_span(n: exp.Expr) -> tuple[int, int] | None:
    """The span `n` records, else its token's (sqlglot's `start` and `end`), else None."""
    meta = n._meta
    if not meta:
        return None
    span = meta.get(SPAN)
    if span is None:
        start, end = meta.get("start"), meta.get("end")
        if start is not None and end is not None:
            span = (start, end)
    return span


def _spanning_lazily(method):
    """`_spanning` for a parser method whose nodes hold many others (a SELECT): only the
    tokens it consumed are recorded (`SPAN_TOKENS`), and `node_span` widens them to the
    children's spans when one is asked for (widening at once walked every clause)."""

    def parse(self, *args, **kwargs):
        i = self._index
        out = method(self, *args, **kwargs)
        j = self._index
        if j > i and isinstance(out, exp.Expression):
            start, end = self._tokens[i].start, self._tokens[j - 1].end
            meta = out._meta
            if meta is None:
                out._meta = meta = {}
            old = meta.get(SPAN_TOKENS)
            meta[SPAN_TOKENS] = (start, end) if old is None else (min(start, old[0]), max(end, old[1]))
        return out

    parse.__name__ = method.__name__
    return parse


def _spanning(method):
    """Wrap a parser method so the expression it returns records `meta["span"]`: the
    first and last character of the tokens it consumed, widened to its children's
    spans (an operator's left operand is parsed before the method is called).  (It runs
    at every operand the parser reads, a sixth of a parse: the children are read from
    `args` directly, and `node_span` is called only for a child with no span of its own.)"""

    def parse(self, *args, **kwargs):
        i = self._index
        out = method(self, *args, **kwargs)
        j = self._index
        if j > i and isinstance(out, exp.Expression):
            tokens = self._tokens
            start, end = tokens[i].start, tokens[j - 1].end
            meta = out._meta
            if meta is None:
                out._meta = meta = {}
            old = meta.get(SPAN)
            if old is None:
                for value in out.args.values():
                    for child in value if isinstance(value, list) else (value,):
                        if isinstance(child, exp.Expr):
                            s = _own_span(child) or node_span(child)
                            if s is not None:
                                start, end = min(start, s[0]), max(end, s[1])
                meta[SPAN] = (start, end)
            elif start < old[0] or end > old[1]:
                meta[SPAN] = (min(start, old[0]), max(end, old[1]))
        return out

    parse.__name__ = method.__name__
    return parse


# Functions whose sqlglot node the analyzer models (by class or by name, with Spark's
# name for the column): parsed by sqlglot's builders, when called with a number of
# arguments sparkfold models.  Every other call is kept as written (`exp.Anonymous`),
# printed back as it came and judged by Spark: sqlglot's builders rewrite calls into
# other functions, which changes values (`max_by(x, y, 2)` lost its third argument,
# `listagg(DISTINCT c)` gained a delimiter, `to_char(d, '999')` became `CAST(d AS
# STRING)`), validity (`max(c, c)` and `int(1, 1)` became valid, `timestampadd(DAY, 1,
# ts)` `DATE_ADD(DAY, 1, ts)`) or Spark's column names (`date_sub(dt, 1)` became
# `DATE_ADD(dt, 1 * -1)`).
# Of the modelled ones, these are kept as written, since sqlglot's node spells them
# differently (`ltrim` is a TRIM(LEADING ...), `year(d)` is `year(TO_DATE(d))`).
_MODELLED_AS_WRITTEN = frozenset({"LTRIM", "RTRIM", "DATE_SUB", "DATEDIFF", "YEAR", "MONTH", "DAYOFMONTH"})
# `first_value(v, true)` is sqlglot's `FIRST_VALUE(v) IGNORE NULLS`, which Spark names
# `first(v)`: the two-argument form stays as written (the one-argument form and the
# IGNORE NULLS syntax keep sqlglot's nodes)
_IGNORE_NULLS_ARGUMENT = frozenset({"FIRST", "LAST", "FIRST_VALUE", "LAST_VALUE", "ANY_VALUE"})

# modelled by their sqlglot class, with the numbers of arguments Spark takes: coalesce /
# nvl / ifnull, if, count, the calls sqlglot builds with IGNORE NULLS, and the casts
# `double(x)` (Spark's CAST(x AS DOUBLE), named like one; sqlglot has no builder for
# bigint(x) and the like: the analyzer makes those casts)
_TYPED_EXTRA: dict[str, tuple[int, int | None]] = {
    "COALESCE": (1, None), "NVL": (2, 2), "IFNULL": (2, 2), "IF": (3, 3), "IIF": (3, 3), "COUNT": (1, None),
    "FIRST": (1, 1), "LAST": (1, 1), "FIRST_VALUE": (1, 1), "LAST_VALUE": (1, 1), "ANY_VALUE": (1, 1),
    "COLLECT_LIST": (1, 1), "NULLIF": (2, 2), "NANVL": (2, 2), "ROUND": (1, 2), "GREATEST": (2, None),
    "LEAST": (2, None), "CONCAT": (1, None), "DATE_ADD": (2, 2), "ISNAN": (1, 1), "ISNULL": (1, 1),
    "ISNOTNULL": (1, 1), **{t: (1, 1) for t in ("BOOLEAN", "INT", "FLOAT", "DOUBLE", "STRING", "DATE",
                                                  "TIMESTAMP")}}


def modelled_arity(name: str) -> tuple[int, int | None] | None:
    """The numbers of arguments sparkfold builds a call of `name` (upper case) with, or
    None: kept as written."""
    if name in _MODELLED_AS_WRITTEN:
        return None
    if name in _TYPED_EXTRA:
        return _TYPED_EXTRA[name]
    spec = SCALAR_FUNCTIONS.get(name.lower()) or AGGREGATE_FUNCTIONS.get(name.lower())
    return None if spec is None else (spec.min_args, spec.max_args)


def _within(arity: tuple[int, int | None], n: int) -> bool:
    return arity[0] <= n and (arity[1] is None or n <= arity[1])


def _guarded(name: str, build, arity: tuple[int, int | None]):
    """sqlglot's builder for calls with a modelled number of arguments; any other call
    kept as written (Spark raises its own error for it, or takes it as another overload)."""
    def parse(args, *rest, **kwargs):
        if not _within(arity, len(args)) or (name in _IGNORE_NULLS_ARGUMENT and len(args) == 2):
            return exp.Anonymous(this=name.lower(), expressions=args)
        return build(args, *rest, **kwargs)

    return parse


def call_kept_as_written(name: str, n_args: int) -> bool:
    """Is a call of `name` (upper case) with n arguments kept as written, although
    sqlglot's stock parser has a builder for it?"""
    arity = modelled_arity(name)
    return arity is None or not _within(arity, n_args) or (name in _IGNORE_NULLS_ARGUMENT and n_args == 2)


# Special-syntax parsers for calls that have that syntax in Spark (`CAST(x AS INT)`,
# `TRIM(BOTH ' ' FROM s)`, `EXTRACT(YEAR FROM d)`, `POSITION(a IN b)`, `OVERLAY(s PLACING r
# FROM 1)`, `SUBSTRING(s FROM 1 FOR 2)`) and for hints; sqlglot's others read plain calls
# their own way (`listagg(c)` became `LISTAGG(c, ',')`, `max_by(x, y, 2)` `MAX_BY(x, y)`,
# `initcap(s)` `initcap(s, ' ')`)
_SPARK_SYNTAX = frozenset({"CAST", "TRY_CAST", "EXTRACT", "POSITION", "OVERLAY", "SUBSTR", "SUBSTRING", "TRIM",
                           "BROADCAST", "BROADCASTJOIN", "MAPJOIN", "MERGE", "MERGEJOIN", "SHUFFLE_HASH",
                           "SHUFFLEMERGE", "SHUFFLE_REPLICATE_NL"})


# sqlglot's Spark parser as it comes (with sqlglotc, a compiled class)
_STOCK: Any = Spark.parser_class

# The calls sparkfold builds with sqlglot's builders, by upper-case name, each guarded by
# the numbers of arguments it is modelled with.
FUNCTIONS = {name: _guarded(name, build, arity) for name, build in _STOCK.FUNCTIONS.items()
             if (arity := modelled_arity(name)) is not None}
# Calls whose special syntax sparkfold keeps (`CAST(x AS INT)`, `TRIM(BOTH ...)`)
SYNTAX_CALLS = frozenset(name for name in _STOCK.FUNCTION_PARSERS if name in _SPARK_SYNTAX)
# The names whose calls sqlglot's stock parser reads otherwise than sparkfold: those
# kept as written, and those sparkfold builds its own way (`first(v, true)`).  Not the
# ones sqlglot parses without parentheses (CASE, IF), which never reach a builder.
AS_WRITTEN_CALLS = frozenset(
    name for name in {*_STOCK.FUNCTIONS, *_STOCK.FUNCTION_PARSERS}
    if name not in SYNTAX_CALLS and name not in _STOCK.NO_PAREN_FUNCTION_PARSERS
    and (name in _STOCK.FUNCTION_PARSERS or FUNCTIONS.get(name) is not _STOCK.FUNCTIONS.get(name)))


@functools.lru_cache(maxsize=1)
def compiled_sqlglot() -> bool:
    """Is sqlglot's parser the compiled one of `sqlglotc` (`pip install "sqlglot[c]"`)?
    Its classes cannot be subclassed from Python: sparkfold then corrects the grammar
    around the stock parser (`plans.sql_in.grammar`) and reads the source spans from
    the tokens after parsing (`plans.sql_in.spans`)."""
    import sqlglot.parser

    return not str(getattr(sqlglot.parser, "__file__", "parser.py")).endswith(".py")


class _Parser(_STOCK):
    """sparkfold's grammar as a subclass of sqlglot's Spark parser (pure-Python sqlglot;
    with sqlglotc the same corrections are made around the stock parser, see
    `plans.sql_in.grammar`), recording source spans for the linter (optimizer.findings)."""

    # `||` binds like `+` and `-` in Spark's grammar, left to right: `'a: ' || 2 + 2`
    # is `('a: ' || 2) + 2` (an error under ANSI), not `'a: ' || (2 + 2)`, which is
    # where sqlglot's default puts it (with the bitwise operators, looser)
    TERM = {**_STOCK.TERM, TokenType.DPIPE: functools.partial(exp.DPipe, safe=True)}
    # `any(v)` is Spark's aggregate (bool_or): a call, not the `ANY` predicate, which
    # the tokens keep for `x = ANY (...)` (see plans/sql_in/parse.py)
    NO_PAREN_FUNCTION_PARSERS = {k: v for k, v in _STOCK.NO_PAREN_FUNCTION_PARSERS.items() if k != "ANY"}
    # Spark has no `ARRAY[...]` constructor: `array(1, 2)[0]` is an element of the array
    # (sqlglot's default read the call, kept as written, as a name and made `ARRAY(0)`)
    ARRAY_CONSTRUCTORS: dict = {}
    FUNCTIONS = FUNCTIONS
    FUNCTION_PARSERS = {name: parse for name, parse in _STOCK.FUNCTION_PARSERS.items() if name in SYNTAX_CALLS}

    # Source spans for the linter (optimizer.findings): see `_spanning`.
    _parse_range = _spanning(_STOCK._parse_range)
    _parse_unary = _spanning(_STOCK._parse_unary)
    _parse_primary = _spanning(_STOCK._parse_primary)
    _parse_function = _spanning(_STOCK._parse_function)
    _parse_select = _spanning_lazily(_STOCK._parse_select)

    def _parse_function_call(self, *args, **kwargs):
        token = self._curr
        result = super()._parse_function_call(*args, **kwargs)
        if token is not None and result is not None:
            target = result.this if isinstance(result, exp.Window) else result
            if isinstance(target, exp.Func) and not isinstance(target, exp.Anonymous) \
                    and "name" not in target.meta:
                target.meta["name"] = token.text
        return result


class _Unplaced(_Parser):
    """sparkfold's grammar without the source spans: for text whose nodes are never
    placed (the splice's read-back, `parse_statements(placed=False)`), which spares the
    span bookkeeping, a sixth of a parse."""

    _parse_range = _STOCK._parse_range
    _parse_unary = _STOCK._parse_unary
    _parse_primary = _STOCK._parse_primary
    _parse_function = _STOCK._parse_function
    _parse_select = _STOCK._parse_select


def unplaced_parser():
    """A parser that records no source spans (pure-Python sqlglot; with sqlglotc the
    spans are read from the tokens only when asked for, so the stock parser is it)."""
    return DIALECT.parser() if compiled_sqlglot() else _Unplaced(dialect=DIALECT)


def _any_to_exists_in_scope(select: exp.Expr) -> exp.Expr:
    """sqlglot's `transforms.any_to_exists` (`5 > ANY(arr)` as `EXISTS(arr, x -> 5 > x)`)
    for the ANYs of this SELECT's own scope: each SELECT inside it does its own when it
    is printed.  The stock transform searches the whole subtree at every SELECT, which
    made printing quadratic in the nesting of subqueries."""
    for node in _anys_in_scope(select):
        this = node.this
        if isinstance(this, exp.Query) or isinstance(node.parent, (exp.Like, exp.ILike)):
            continue
        binop = node.parent
        if isinstance(binop, exp.Binary):
            arg = exp.to_identifier("x")
            node.replace(arg)
            binop.replace(exp.Exists(this=this.unnest(), expression=exp.Lambda(this=binop.copy(), expressions=[arg])))
    return select


def _anys_in_scope(select: exp.Expr) -> list:
    """The ANY nodes under `select`, not under a query inside it, breadth first: what
    `select.walk()` pruned at queries yields, gathered without its generators (this runs
    for every SELECT printed)."""
    found: list = []
    queue = collections.deque((select,))
    while queue:
        n = queue.popleft()
        if isinstance(n, exp.Any):
            found.append(n)
        for v in n.args.values():
            if isinstance(v, exp.Expression):
                if not isinstance(v, exp.Query):
                    queue.append(v)
            elif type(v) is list:
                queue.extend(x for x in v if isinstance(x, exp.Expression) and not isinstance(x, exp.Query))
    return found


# meta: a CAST the parser made of a typed literal (`TIME '10:00'`, `TIMESTAMP_LTZ '...'`),
# printed as that literal (Spark names `TIME '10:00:00'` so, `CAST(...)` otherwise)
TYPED_LITERAL = "sparkfold_typed_literal"
# meta: a `>>>` (sqlglot has one node for both right shifts)
UNSIGNED_SHIFT = "sparkfold_unsigned_shift"


_TIMESTAMP_NAMES = {exp.DataType.Type.TIMESTAMPNTZ: "TIMESTAMP_NTZ", exp.DataType.Type.TIMESTAMPLTZ: "TIMESTAMP_LTZ",
                    exp.DataType.Type.TIMESTAMPTZ: "TIMESTAMP", exp.DataType.Type.TIMESTAMP: "TIMESTAMP"}


def timestamp_precision(dt: exp.DataType) -> bool:
    """Does the type name a timestamp type with a precision (`TIMESTAMP_NTZ(9)`, nested
    too): Spark 4.3's nanosecond types, which a session reads only with
    spark.sql.timestampNanosTypes.enabled?"""
    return any(t.expressions and t.this in _TIMESTAMP_NAMES for t in dt.find_all(exp.DataType))


def _data_type_sql(stock):
    """Spark 4's TIME type as TIME (sqlglot's Spark printer writes TIMESTAMP, Spark 3's),
    and a timestamp type's precision as written (`TIMESTAMP_NTZ(9)`: sqlglot's drops it)."""
    def sql(self, e: exp.DataType) -> str:
        if e.this == exp.DataType.Type.TIME:
            return "TIME" + (f"({self.expressions(e, flat=True)})" if e.expressions else "")
        if e.expressions and e.this in _TIMESTAMP_NAMES:
            return f"{_TIMESTAMP_NAMES[e.this]}({self.expressions(e, flat=True)})"
        collate = e.args.get("collate")
        if collate is not None:
            # `STRING COLLATE UTF8_LCASE` (sqlglot's printer drops the collation)
            bare = e.copy()
            bare.set("collate", None)
            return f"{stock(self, bare)} COLLATE {self.sql(collate)}"
        return stock(self, e)

    return sql


def _typed_literal_cast_sql(stock):
    def sql(self, e: exp.Cast) -> str:
        meta = e._meta
        if meta and meta.get(TYPED_LITERAL):
            return f"{self.sql(e, 'to')} {self.sql(e, 'this')}"
        return stock(self, e)

    return sql


def _shift_sql(op: str):
    """`a << b`, `a >> b`, `a >>> b` as operators (sqlglot's Spark printer writes the
    functions SHIFTLEFT(a, b)..., which Spark names otherwise, and has no `>>>`)."""
    def sql(self, e: exp.Binary) -> str:
        # (not sqlglot's `binary`, which prints a chain of one node class with one operator)
        meta = e._meta
        shown = ">>>" if meta and meta.get(UNSIGNED_SHIFT) else op
        return f"{self.sql(e, 'this')} {shown} {self.sql(e, 'expression')}"

    return sql


@functools.lru_cache(maxsize=None)
def _dispatch(generator_class: type) -> dict:
    """sqlglot's Spark generator's table of node printers, with sparkfold's: the
    typed-literal markers, `x IS NOT NULL`, `<=>`, WITHIN GROUP as written (Spark's
    printer turns it into percentile_approx), and a SELECT's preprocessing with
    `any_to_exists` looking at the SELECT's own scope (the same text, linear time)."""
    from sqlglot import transforms

    table = dict(generator_class(dialect="spark")._dispatch)
    table[exp.WithinGroup] = getattr(generator_class, "withingroup_sql")
    table[exp.DataType] = _data_type_sql(table[exp.DataType])
    table[exp.Cast] = _typed_literal_cast_sql(table[exp.Cast])
    table[exp.BitwiseLeftShift] = _shift_sql("<<")
    table[exp.BitwiseRightShift] = _shift_sql(">>")
    table[exp.Select] = transforms.preprocess([transforms.eliminate_qualify, transforms.eliminate_distinct_on,
                                               transforms.unnest_to_explode, _any_to_exists_in_scope])
    table.update({exp.Anonymous: _typed_literal_sql, exp.Not: _not_sql, exp.NullSafeEQ: _null_safe_eq_sql})
    for bare in (exp.CurrentUser, exp.SessionUser, exp.CurrentDate, exp.CurrentTimestamp):
        table[bare] = _bare_call_sql(table.get(bare))
    return table


def written_bare(node: exp.Expr) -> str | None:
    """The name of a parameterless call written without parentheses (`current_user`),
    which sqlglot reads as the call: a call with them has the `line` of its name's token
    in its meta, a bare one has not.  None for anything else."""
    name = node.meta.get("name") if node.meta else None
    return str(name) if name and "line" not in node.meta and not node.args else None


def _bare_call_sql(stock):
    """A parameterless call as written: `current_user` bare (Spark reads a FROM column
    of that name first), `current_user()` always the function."""
    def sql(self, e) -> str:
        name = written_bare(e)
        if name is not None:
            return name
        if stock is not None:
            return stock(self, e)
        method = getattr(self, f"{e.key}_sql", None)
        return method(e) if method is not None else self.function_fallback_sql(e)
    return sql


class SparkSQL(Spark):
    """Spark dialect that remembers how each function was spelled (`substr` or
    `substring`: Spark names columns after the spelling) and prints the typed-literal
    markers back as `1L`.

    It extends sqlglot through what works with sqlglot's compiled build too (sqlglotc,
    whose parser and generator classes Python cannot subclass): dialect settings, the
    generator's table of node printers (per generator), and the corrections to the
    grammar made on the tokens and the tree around the stock parser
    (`plans.sql_in.grammar`)."""

    ORIGINAL_NAME_META_KEY = "name"
    PRESERVE_ORIGINAL_NAMES = True  # (the same, as sqlglot before 30.25 spells it)
    if not compiled_sqlglot():
        Parser = _Parser

    def generator(self, **opts):
        out = super().generator(**opts)
        out._dispatch = _dispatch(cast(Hashable, type(out)))  # (mypy: a generator class is unhashable)
        try:  # Spark reads a WITH inside a derived table (Hive, whose printer Spark's extends, did not)
            setattr(out, "EXPRESSIONS_WITHOUT_NESTED_CTES", set())  # a class variable, set per printer
        except (AttributeError, TypeError):
            pass  # a compiled printer: `nested_with_kept` then tells
        return out


DIALECT = SparkSQL()


@functools.lru_cache(maxsize=None)
def nested_with_kept() -> bool:
    """Does the printer keep a WITH where it is, inside a derived table?  sqlglot's
    Spark printer moves it to the top (Hive's rule), where its names could clash with
    the query's tables; a recursive CTE kept as text needs it in place."""
    tree = parse_one("SELECT * FROM (WITH t AS (SELECT 1) SELECT * FROM t) AS q", dialect=DIALECT)
    return tree.sql(dialect=DIALECT).startswith("SELECT * FROM (WITH")


# ---------------------------------------------------------------------------
# Deep recursion
# ---------------------------------------------------------------------------

_STACK_BYTES = 512 * 1024 * 1024
_RECURSION_LIMIT = 200_000
_local = threading.local()


def deep_stack(fn: Callable[..., Any], *args, **kwargs) -> Any:
    """Run fn on a thread with a 512 MiB stack and a high recursion limit (sqlglot
    recurses once per nesting level); exceptions propagate to the caller.  The limit is
    the interpreter's (CPython has no per-thread one): it is raised while a deep thread
    runs and put back when the last one ends."""
    if getattr(_local, "deep", False):
        return fn(*args, **kwargs)
    with _raised_recursion_limit():
        return _on_deep_thread(T.writing_as_now(fn), *args, **kwargs)


class _raised_recursion_limit:
    """Raise `sys.getrecursionlimit()` for the block; the last block to end restores the
    limit found by the first (counted, since deep threads may overlap)."""

    _active = 0
    _saved = 0
    _guard = threading.Lock()

    def __enter__(self) -> None:
        cls = type(self)
        with cls._guard:
            if cls._active == 0:
                cls._saved = sys.getrecursionlimit()
                if cls._saved < _RECURSION_LIMIT:
                    sys.setrecursionlimit(_RECURSION_LIMIT)
            cls._active += 1

    def __exit__(self, *exc) -> None:
        cls = type(self)
        with cls._guard:
            cls._active -= 1
            if cls._active == 0 and sys.getrecursionlimit() == _RECURSION_LIMIT > cls._saved:
                sys.setrecursionlimit(cls._saved)


def _on_deep_thread(fn: Callable[..., Any], *args, **kwargs) -> Any:
    return _DeepWorker.take().run(fn, args, kwargs)


class _DeepWorker:
    """A thread with a 512 MiB stack that runs one call at a time, kept for the next call
    when it is done (starting a thread per call cost about 0.5 ms, 5-8% of a small
    query's optimization).  Up to `_KEEP` idle ones are kept (one per thread optimizing
    at once, as in a server); each call runs in a fresh `contextvars` context, as on a
    new thread.  A forked child does not have the parent's threads: it starts afresh."""

    _KEEP = 8
    _idle: list["_DeepWorker"] = []
    _guard = threading.Lock()

    def __init__(self) -> None:
        self._tasks: queue.SimpleQueue = queue.SimpleQueue()
        self._done: queue.SimpleQueue = queue.SimpleQueue()
        with _stack_lock:
            old = threading.stack_size()
            threading.stack_size(_STACK_BYTES)
            try:
                self._thread = threading.Thread(target=self._serve, name="sparkfold-deep", daemon=True)
                self._thread.start()
            finally:
                threading.stack_size(old)

    @classmethod
    def take(cls) -> "_DeepWorker":
        with cls._guard:
            if cls._idle:
                return cls._idle.pop()
        return cls()

    def give_back(self) -> None:
        with self._guard:
            if len(self._idle) < self._KEEP:
                self._idle.append(self)
                return
        self._tasks.put(None)  # enough are kept: this one ends

    def run(self, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        """fn's value (or its exception), the worker given back for the next call; a
        caller interrupted while waiting (Ctrl-C) leaves the worker to end after this
        call, never to be given another."""
        self._tasks.put((fn, args, kwargs))
        try:
            ok, value = self._done.get()
        except BaseException:
            self._tasks.put(None)
            raise
        self.give_back()
        if not ok:
            raise value
        return value

    def _serve(self) -> None:
        _local.deep = True
        while True:
            task = self._tasks.get()
            if task is None:
                return
            fn, args, kwargs = task
            try:
                out = (True, contextvars.Context().run(fn, *args, **kwargs))
            except BaseException as e:  # re-raised in the caller's thread
                out = (False, e)
            del task, fn, args, kwargs
            self._done.put(out)
            del out


def _forget_workers() -> None:
    _DeepWorker._idle = []
    _DeepWorker._guard = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_workers)

_stack_lock = threading.Lock()


def function_name(node: exp.Expr) -> str:
    """The function name as the user spelled it, lower-cased."""
    if isinstance(node, exp.Anonymous):
        return str(node.this).lower()
    name = node.meta.get("name") if node.meta else None
    if name:
        return str(name).lower()
    return node.sql_name().lower() if isinstance(node, exp.Func) else type(node).__name__.lower()


_AGGREGATE_NAMES = frozenset(AGGREGATE_FUNCTIONS) | KNOWN_AGGREGATE_NAMES


def is_aggregate_call(node: exp.Expr) -> bool:
    """Is the node a call of an aggregate function: one sqlglot built (an AggFunc), or one
    kept as written whose name Spark registers as an aggregate (`max_by(x, y)`)?"""
    return isinstance(node, exp.AggFunc) or (isinstance(node, exp.Anonymous)
                                             and str(node.this).lower() in _AGGREGATE_NAMES)


def to_sql(tree: exp.Expression, pretty: bool = False) -> str:
    return tree.sql(dialect=DIALECT, pretty=pretty, normalize_functions=False)
