"""Session settings that change what a query means: those sparkfold models, and those it
does not.

sparkfold models the settings of `SETTINGS` (a Catalog holds each, by its keyword).  The
others here (`UNMODELLED`)
change how Spark parses, resolves, types or evaluates some queries: with one of them set to
other than Spark 4's default, a query it can change is passed through as written (Spark
gives it the meaning the session asks for), and the others are optimized as usual.  Any
other `spark.sql.legacy.*` setting a session sets is taken to change every query.
"""

from __future__ import annotations

import re
from typing import Callable, Mapping

from sqlglot import exp

Affects = Callable[[exp.Expression, str], bool]


def _any(*kinds) -> Affects:
    return lambda tree, sql: tree.find(*kinds) is not None


def _always(tree, sql) -> bool:
    return True


def _having_without_group_by(tree, sql) -> bool:
    return any(s.args.get("having") is not None and s.args.get("group") is None for s in tree.find_all(exp.Select))


def _count_call(test: Callable[[exp.Expression], bool]) -> Affects:
    def affects(tree, sql):
        return any(test(n) for n in tree.find_all(exp.Count, exp.Anonymous)
                   if isinstance(n, exp.Count) or n.name.lower() == "count")
    return affects


def _no_arguments(n) -> bool:
    return not n.this and not n.expressions if isinstance(n, exp.Count) else not n.expressions


def _qualified_star(n) -> bool:
    args = [n.this] if isinstance(n, exp.Count) else list(n.expressions)
    return any(isinstance(a, exp.Column) and isinstance(a.this, exp.Star) and a.table
               for arg in args if arg is not None for a in arg.find_all(exp.Column))


def _integer_position(tree, sql) -> bool:
    keys = [k for g in tree.find_all(exp.Group) for k in g.expressions] + \
        [o.this for o in tree.find_all(exp.Ordered)]
    return any(_position_literal(k) for k in keys)


def _position_literal(k) -> bool:
    """An integer literal, which Spark reads as a position: in parentheses too, and
    negative (`-1` is one literal to its parser)."""
    while isinstance(k, exp.Paren):
        k = k.this
    if isinstance(k, exp.Neg):
        k = k.this
    return isinstance(k, exp.Literal) and not k.is_string


def _nested_with(tree, sql) -> bool:
    return sum(1 for _ in tree.find_all(exp.With)) > 1


def _text(pattern: str) -> Affects:
    found = re.compile(pattern)
    return lambda tree, sql: bool(found.search(sql))


# The settings sparkfold models, by Spark's key: the Catalog's keyword for each, and
# Spark's default
SETTINGS = {"spark.sql.ansi.enabled": ("ansi", "true"),
            "spark.sql.legacy.setopsPrecedence.enabled": ("legacy_setops_precedence", "false"),
            "spark.sql.parser.escapedStringLiterals": ("escaped_string_literals", "false"),
            "spark.sql.decimalOperations.allowPrecisionLoss": ("decimal_precision_loss", "true"),
            "spark.sql.groupByAliases": ("group_by_aliases", "true")}

# The settings sparkfold does not model, by key: (Spark 4's default, which queries the
# setting can change)
UNMODELLED: dict[str, tuple[str, Affects]] = {
    # parsing
    "spark.sql.legacy.parser.havingWithoutGroupByAsWhere": ("false", _having_without_group_by),
    "spark.sql.legacy.bangEqualsNot": ("false", _text(r"!(?!=)")),
    "spark.sql.ansi.doubleQuotedIdentifiers": ("false", _text(r'"')),
    "spark.sql.parser.quotedRegexColumnNames": ("false", _text(r"`")),
    "spark.sql.legacy.exponentLiteralAsDecimal.enabled": ("false", _text(r"\d[eE][-+]?\d")),
    "spark.sql.legacy.interval.enabled": ("false", _text(r"(?i)interval")),
    "spark.sql.legacy.ignoreParenthesesAroundStar": ("false", _any(exp.Star)),
    # resolution
    "spark.sql.caseSensitive": ("false", _always),
    "spark.sql.groupByOrdinal": ("true", _integer_position),
    "spark.sql.orderByOrdinal": ("true", _integer_position),
    "spark.sql.legacy.ctePrecedencePolicy": ("CORRECTED", _nested_with),
    "spark.sql.legacy.allowParameterlessCount": ("false", _count_call(_no_arguments)),
    "spark.sql.legacy.allowStarWithSingleTableIdentifierInCount": ("false", _count_call(_qualified_star)),
    "spark.sql.crossJoin.enabled": ("true", _any(exp.Join)),
    # types
    "spark.sql.function.concatBinaryAsString": ("false", _text(r"(?i)concat|\|\|")),
    "spark.sql.function.eltOutputAsString": ("false", _text(r"(?i)\belt\b")),
    "spark.sql.timestampType": ("TIMESTAMP_LTZ", _always),
    # evaluation
    "spark.sql.ansi.strictIndexOperator": ("true", _any(exp.Bracket)),
    "spark.sql.legacy.nullInEmptyListBehavior": ("false", _any(exp.In)),
    "spark.sql.cte.recursion.level.limit": ("100", _any(exp.With)),
    "spark.sql.optimizer.decorrelateInnerQuery.enabled": ("true", _any(exp.Subquery, exp.Exists, exp.In)),
    "spark.sql.optimizer.decorrelateSubqueryLegacyIncorrectCountHandling.enabled":
        ("false", _any(exp.Subquery, exp.Exists, exp.In)),
    "spark.sql.optimizer.decorrelateExistsSubqueryLegacyIncorrectCountHandling.enabled":
        ("false", _any(exp.Subquery, exp.Exists, exp.In)),
}


def unmodelled_settings(conf: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The (key, value) pairs of a session's settings that sparkfold does not model and
    that differ from Spark's default, in key order."""
    out = []
    for key, value in conf.items():
        if key in SETTINGS:
            continue
        known = UNMODELLED.get(key)
        if known is not None:
            if str(value).strip().lower() != known[0].lower():
                out.append((key, str(value).strip()))
        elif key.startswith("spark.sql.legacy."):
            out.append((key, str(value).strip()))
    return tuple(sorted(out))


def first_affecting(settings: tuple[tuple[str, str], ...], tree: exp.Expression, sql: str) -> str | None:
    """`key=value` of the first setting that can change what the query means, or None."""
    for key, value in settings:
        affects = UNMODELLED[key][1] if key in UNMODELLED else _always
        if affects(tree, sql):
            return f"{key}={value}"
    return None
