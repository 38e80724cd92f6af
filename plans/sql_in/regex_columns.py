"""spark.sql.parser.quotedRegexColumnNames: a backquoted column name in a select list is a
Java regular expression over the input's column names.

Spark's AstBuilder reads a column reference (`a`, or the last part of `t.a`) written in
backquotes, with a character other than a letter, a digit or `_` in it, as
`UnresolvedRegex` when the setting is on and some enclosing rule of the text is a named
expression: a select item, at any depth (inside a function's arguments,
a subquery of the item), a PIVOT's aggregate, a key of `GROUP BY ... WITH ROLLUP|CUBE`
or `GROUP BY ... GROUPING SETS (...)`.  It expands like a star
(`UnresolvedRegex.expand`): the input's columns, in order, whose name the pattern
matches whole (`String.matches`), case-insensitively (`(?i)`, ASCII only) unless
spark.sql.caseSensitive; `t.`re`` only those whose qualifier's last part is `t`.  A
pattern that matches nothing gives no column.

Modelled here: a select item that is such a name, or `t.`name``, with a pattern of
the common syntax (literal characters, `.`, `|`, groups, classes, quantifiers, possessive
and lazy ones: Python's `re` reads them as Java does).  Anywhere else such a name is read
otherwise than as a column (inside a function's arguments, which it expands into, an
alias, which it rejects, a subquery of a select item, a GROUP BY): the query passes
through.
"""

from __future__ import annotations

import re

from sqlglot import exp

from ..ir import expressions as E
from ..ir.dialect import DIALECT
from .expr_context import NotModelled
from .scope import Scope, column_name

KEY = "spark.sql.parser.quotedRegexColumnNames"

# the pattern syntax read alike by Java's java.util.regex and Python's re: no escapes,
# anchors, inline flags, nested or intersected classes, named groups, comments
_SAFE = re.compile(r"[A-Za-z0-9_ ()|?+*.{},\[\]-]*")
# a class holds no `[` and is not empty; a `{` is a count ({m}, {m,}, {m,n})
_CLASSES_AND_COUNTS = re.compile(r"(?:[^\[{]|\[[^\[\]][^\[\]]*\]|\{\d+(?:,\d*)?\})*")


def regex_items(tree: exp.Expression) -> set[int]:
    """The ids of the select items Spark reads as regular expressions, in a query under
    the setting; NotModelled where it reads one elsewhere in a named expression."""
    items: set[int] = set()
    for col in tree.find_all(exp.Column):
        if not _regex_parts(col):
            continue
        named = _named_context(col)
        if named is None:
            continue  # a WHERE, ON, ORDER BY, plain GROUP BY: a column as usual
        parts = _regex_parts(col)
        if named is col and len(parts) == 1 and parts[0] is col.this and not col.args.get("db") \
                and not col.args.get("catalog"):
            items.add(id(col))
            continue
        raise NotModelled(f"a backquoted name ({col.sql(dialect=DIALECT)}) inside a select item, read as a "
                          f"regular expression under {KEY}")
    return items


def sensitive(tree: exp.Expression) -> bool:
    """Does the text hold a backquoted name that Spark would read as a regular expression
    under the setting?"""
    return any(_regex_parts(c) and _named_context(c) is not None for c in tree.find_all(exp.Column))


def _regex_parts(col: exp.Column) -> list[exp.Identifier]:
    """The parts of a column name Spark may read as a regular expression: backquoted, with
    a character other than a letter, a digit or `_` (AstBuilder's isRegex; a plain name
    in backquotes is a name)."""
    out = []
    for p in col.parts:
        if isinstance(p, exp.Identifier) and p.quoted:
            name = p.name
            if not name.isascii():
                raise NotModelled(f"a backquoted name with a character outside ASCII under {KEY}")
            if any(not (ch.isalnum() or ch == "_") for ch in name):
                out.append(p)
    return out


def _named_context(col: exp.Column) -> exp.Expr | None:
    """The outermost named expression holding `col` (a select item, a PIVOT's
    aggregate, a key of a GROUP BY with ROLLUP / CUBE / GROUPING SETS), or None."""
    found = None
    n: exp.Expr = col
    while n.parent is not None:
        parent = n.parent
        if isinstance(parent, exp.Select) and n.arg_key == "expressions":
            found = n
        elif isinstance(parent, exp.Pivot):
            found = n
        elif isinstance(parent, exp.Group) and any(parent.args.get(k) for k in ("rollup", "cube", "grouping_sets")):
            found = n
        n = parent
    return found


def expand(item: exp.Column, scope: Scope) -> list[E.Expr]:
    """The columns of the scope a regex select item stands for, in order."""
    pattern = item.this.name
    if not _SAFE.fullmatch(pattern) or not _CLASSES_AND_COUNTS.fullmatch(pattern):
        raise NotModelled(f"the regular expression `{pattern}` under {KEY}, of a syntax Python and Java may "
                          f"read otherwise")
    try:
        rx = re.compile(pattern, re.IGNORECASE | re.ASCII)
    except re.error:
        raise NotModelled(f"the regular expression `{pattern}` under {KEY}, which Python does not read") from None
    columns = list(scope.star)
    table = item.args.get("table")
    if table is not None:
        owner: dict[int, tuple[str, ...]] = {}
        for en in scope.entries:
            for c in en.columns:
                owner.setdefault(_key(c), en.qualifier)
        if any(_key(c) not in owner for c in columns):
            raise NotModelled(f"a qualified regular expression under {KEY} over a USING join's merged key")
        t = table.name.lower()
        columns = [c for c in columns if owner[_key(c)] and owner[_key(c)][-1] == t]
    return [c for c in columns if not _line_break(column_name(c)) and rx.fullmatch(column_name(c))]


def _key(c: E.Expr) -> int:
    return c.expr_id if isinstance(c, (E.Attribute, E.Alias)) else id(c)


def _line_break(name: str) -> bool:
    """Java's `.` matches none of these; Python's matches all but a newline."""
    if any(ch in name for ch in "\r\n\u0085\u2028\u2029"):
        raise NotModelled(f"a column name with a line break, matched by a regular expression under {KEY}")
    return False
