"""Session settings that change what a query means: those sparkfold models, and those it
does not.

sparkfold models the settings of `SETTINGS` (a Catalog holds each, by its keyword).  The
others here (`UNMODELLED`)
change how Spark parses, resolves, types or evaluates some queries: with one of them set to
other than Spark 4's default, a query it can change is passed through as written (Spark
gives it the meaning the session asks for), and the others are optimized as usual.  Any
other `spark.sql.legacy.*` setting a session sets is taken to change every query.

Two of `UNMODELLED` are modelled before the analysis, as a text the session reads alike
with and without them (optimizer.api `_READ_AS_TEXT`): spark.sql.ansi.doubleQuotedIdentifiers
(plans.sql_in.double_quoted) and spark.sql.legacy.ctePrecedencePolicy=LEGACY
(plans.sql_in.cte_legacy); their entries here pass through what they can change when
the analyzer is given them directly.
"""

from __future__ import annotations

import re
from typing import Callable, Mapping

from sqlglot import exp

from ..ir import expressions as E
from ..ir import logical as L
from ..ir.evaluate import in_cutover_gap

Affects = Callable[[exp.Expression, str], bool]


def _any(*kinds) -> Affects:
    return lambda tree, sql: tree.find(*kinds) is not None


_subquery = _any(exp.Subquery, exp.Exists, exp.In)


def _always(tree, sql) -> bool:
    return True


def _never(tree, sql) -> bool:
    return False


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


def _cte_precedence(tree, sql) -> bool:
    """Where spark.sql.legacy.ctePrecedencePolicy=LEGACY can read a query otherwise: a
    WITH besides another (the outer definitions may win over the inner ones, and a WITH
    inside a CTE's definition does not see the outer CTEs: checked on Spark 4.3), a
    recursive WITH (rejected), and a CTE read more than once (always inlined: a
    non-deterministic one is computed at each read)."""
    withs = list(tree.find_all(exp.With))
    if len(withs) > 1 or any(w.args.get("recursive") for w in withs):
        return True
    defined = {c.alias.lower() for w in withs for c in w.expressions}
    reads: dict[str, int] = {}
    for t in tree.find_all(exp.Table):
        if not t.args.get("db") and t.name.lower() in defined:
            reads[t.name.lower()] = reads.get(t.name.lower(), 0) + 1
    return any(n > 1 for n in reads.values())


def _nested_cte_names(tree, sql) -> bool:
    """Where spark.sql.legacy.ctePrecedencePolicy=EXCEPTION can read a query otherwise: a
    WITH inside another (in a CTE's definition, the query or a subquery) that defines a
    name the outer one defines, on which Spark may raise AMBIGUOUS_ALIAS_IN_NESTED_CTE.
    Without such a pair the policy reads the query as CORRECTED does (CTESubstitution)."""
    for outer in tree.find_all(exp.With):
        names = {c.alias.lower() for c in outer.expressions}
        scope = outer.parent if outer.parent is not None else outer
        for inner in scope.find_all(exp.With):
            if inner is not outer and names & {c.alias.lower() for c in inner.expressions}:
                return True
    return False


def _parenthesized_star(tree, sql) -> bool:
    """`(*)`: Spark 4 reads it as `*` in a select list either way (checked on Spark 4.3,
    and so does sparkfold); elsewhere (`count((*))`, `struct((*))`) the setting may change
    it."""
    return any(isinstance(s.parent, exp.Paren) and not _select_item(s) for s in tree.find_all(exp.Star))


def _select_item(star: exp.Expression) -> bool:
    n = star if not isinstance(star.parent, exp.Column) else star.parent
    while isinstance(n.parent, exp.Paren):
        n = n.parent
    return isinstance(n.parent, exp.Select) and n.arg_key == "expressions"


def _text(pattern: str) -> Affects:
    found = re.compile(pattern)
    return lambda tree, sql: bool(found.search(sql))


# The functions that encode or decode text in a charset (CharsetProvider in Spark):
# encode/decode, to_binary/to_char with 'utf-8', and the JSON/CSV/XML readers and writers
# (their `encoding`/`charset` options), array_insert, raise_error and assert_true: what
# the legacy settings of charsets, of negative indexes and of raised errors change
CHARSET_FUNCTIONS = frozenset({"encode", "decode", "to_binary", "try_to_binary", "to_char", "to_varchar",
                               "from_json", "to_json", "schema_of_json", "from_csv", "to_csv", "schema_of_csv",
                               "from_xml", "to_xml", "schema_of_xml", "json_tuple", "get_json_object",
                               "array_insert", "raise_error", "assert_true"})

# The settings sparkfold models, by Spark's key: the Catalog's keyword for each, and
# Spark's default
SETTINGS = {"spark.sql.ansi.enabled": ("ansi", "true"),
            "spark.sql.legacy.setopsPrecedence.enabled": ("legacy_setops_precedence", "false"),
            "spark.sql.parser.escapedStringLiterals": ("escaped_string_literals", "false"),
            "spark.sql.decimalOperations.allowPrecisionLoss": ("decimal_precision_loss", "true"),
            "spark.sql.groupByAliases": ("group_by_aliases", "true"),
            # `x ! IN (...)`, `x IS ! NULL`: `!` for NOT after an operand (Spark's parser
            # rejects it otherwise; sqlglot's reads it as NOT)
            "spark.sql.legacy.bangEqualsNot": ("bang_equals_not", "false"),
            # concat (and `||`) of binaries only: a string (each cast to one), not a binary
            "spark.sql.function.concatBinaryAsString": ("concat_binary_as_string", "false"),
            # `NULL IN (empty subquery)`: NULL, not FALSE.  Spark's default is this with ANSI
            # off, which sparkfold assumes there whatever the setting says (see
            # `Catalog.null_in_empty_is_false`)
            "spark.sql.legacy.nullInEmptyListBehavior": ("legacy_null_in_empty", "false"),
            # a backquoted name in a select list: a regular expression over column names
            "spark.sql.parser.quotedRegexColumnNames": ("quoted_regex_column_names", "false"),
            # an integer literal in GROUP BY / ORDER BY: a select item's position, or a constant
            "spark.sql.groupByOrdinal": ("group_by_ordinal", "true"),
            "spark.sql.orderByOrdinal": ("order_by_ordinal", "true"),
            # the type the name TIMESTAMP stands for in a query's text (a cast, a literal
            # without a time zone) and to_timestamp's result: TIMESTAMP_NTZ, or not
            # (TIMESTAMP_LTZ).  What it changes besides, JSON/CSV/XML schema inference, is
            # in UNMODELLED
            "spark.sql.timestampType": ("timestamp_ntz", "TIMESTAMP_LTZ")}

# the value that makes a setting of SETTINGS true, where it is not `true`
SETTING_ON = {"spark.sql.timestampType": "timestamp_ntz"}

# The settings sparkfold does not model, by key: (Spark 4's default, which queries the
# setting can change)
UNMODELLED: dict[str, tuple[str, Affects]] = {
    # parsing
    "spark.sql.legacy.parser.havingWithoutGroupByAsWhere": ("false", _having_without_group_by),
    "spark.sql.ansi.doubleQuotedIdentifiers": ("false", _text(r'"')),
    "spark.sql.legacy.exponentLiteralAsDecimal.enabled": ("false", _text(r"\d[eE][-+]?\d")),
    "spark.sql.legacy.interval.enabled": ("false", _text(r"(?i)interval")),
    # the legacy IDENTIFIER(constant expression) clause, read at analysis in fewer places
    # (plans.sql_in.identifier_clause reads a clause as its name where the legacy clause
    # stands too, a column, a table, a function; any other is left to Spark)
    "spark.sql.legacy.identifierClause": ("false", _text(r"(?i)\bidentifier\b")),
    # the grammar a view's text is read with (Spark's parseQuery, for views only): without
    # EOF, trailing text after a query is dropped.  sparkfold reads no view's text made
    # under it (plans.sql_in.session_views); a query itself is read as before
    "spark.sql.legacy.parseQueryWithoutEof": ("false", _never),
    "spark.sql.legacy.ignoreParenthesesAroundStar": ("false", _parenthesized_star),
    # SQL pipe syntax (`|>`), which Spark refuses without it: a query written in it is
    # optimized as the standard SQL it stands for, which reads alike without it
    "spark.sql.operatorPipeSyntaxEnabled": ("true", _text(r"\|>")),
    # resolution
    "spark.sql.caseSensitive": ("false", _always),
    # (LEGACY: `_cte_precedence`; EXCEPTION: `_nested_cte_names`, in BY_VALUE)
    "spark.sql.legacy.ctePrecedencePolicy": ("CORRECTED", _cte_precedence),
    "spark.sql.legacy.allowParameterlessCount": ("false", _count_call(_no_arguments)),
    "spark.sql.legacy.allowStarWithSingleTableIdentifierInCount": ("false", _count_call(_qualified_star)),
    "spark.sql.crossJoin.enabled": ("true", _any(exp.Join)),
    # how a SQL function's body reads a parameter named as a parameterless function
    # (`current_user`): sparkfold never reads a body (a call is opaque, its determinism the
    # session's answer under the setting), so no query it optimizes reads otherwise
    "spark.sql.legacy.allowUdfParameterToShadowParameterlessFunction": ("false", _never),
    # types: the one JSON/CSV/XML schemas infer (and the type TIMESTAMP names in a
    # schema's text), besides what SETTINGS models
    "spark.sql.timestampType": ("TIMESTAMP_LTZ", _text(r"(?i)\b(from|schema_of)_(json|csv|xml)\b")),
    # Spark 4.3's nanosecond types: a timestamp literal with 7 to 9 digits of a second is a
    # TIMESTAMP_LTZ(p) / TIMESTAMP_NTZ(p), a cast may name one (FEATURE_NOT_ENABLED without
    # it).  sparkfold reads none of them (such a literal, cast or column is opaque, of a
    # type it does not know, and kept as written), so no query it optimizes reads otherwise
    "spark.sql.timestampNanosTypes.enabled": ("false", _never),
    # a view's schema binding: whether CREATE VIEW takes WITH SCHEMA (Spark rejects it
    # without, the text sparkfold writes keeps it), and how a view's columns are cast to
    # its schema's types when read.  sparkfold reads a view's definition only where the
    # definition's columns are of the view's types (optimizer.views), so no cast changes
    # a value there
    "spark.sql.legacy.viewSchemaBindingMode": ("true", _never),
    "spark.sql.legacy.viewSchemaCompensation": ("true", _never),
    # evaluation
    "spark.sql.ansi.strictIndexOperator": ("true", _any(exp.Bracket)),
    # what encode/decode and the other charset functions (`CHARSET_FUNCTIONS`) give or
    # raise, and where array_insert puts a value at a negative index: sparkfold keeps
    # every such call as written, never folded, possibly raising (no rule drops it or feeds
    # it values Spark does not), so Spark computes it under the session's setting
    # (tests/test_settings_scope.py holds that sparkfold models none of them)
    "spark.sql.legacy.codingErrorAction": ("false", _never),
    "spark.sql.legacy.javaCharsets": ("false", _never),
    "spark.sql.legacy.negativeIndexInArrayInsert": ("false", _never),
    # how raise_error and assert_true raise (without an error class), calls sparkfold
    # keeps as written as well
    "spark.sql.legacy.raiseErrorWithoutErrorClass": ("false", _never),
    # the formatter that parses and formats datetimes (a cast to a string, to_date with a
    # pattern, date_format, from_json...): it changes only what Spark computes, never
    # what sparkfold folds (no datetime function is evaluated, a cast of a date to a
    # string only off the cutover gap: `evaluate.in_cutover_gap`), but for the name of a
    # literal on a day the legacy calendar lacks (`PLAN_CHECKS`)
    "spark.sql.legacy.timeParserPolicy": ("CORRECTED", _never),
    # (correlated subqueries only: see CORRELATION)
    "spark.sql.optimizer.decorrelateInnerQuery.enabled": ("true", _subquery),
    "spark.sql.optimizer.decorrelateSubqueryLegacyIncorrectCountHandling.enabled": ("false", _subquery),
    "spark.sql.optimizer.decorrelateExistsSubqueryLegacyIncorrectCountHandling.enabled": ("false", _subquery),
    "spark.sql.legacy.scalarSubqueryCountBugBehavior": ("false", _subquery),
    "spark.sql.legacy.scalarSubqueryAllowGroupByNonEqualityCorrelatedPredicate": ("false", _subquery),
}

# Settings that change nothing sparkfold models, so no query passes through for them:
# spark.sql.function.eltOutputAsString (elt's result type: sparkfold types no elt call,
# tests/test_settings_modelled.py says so) and spark.sql.cte.recursion.level.limit (a
# recursive CTE is kept as its text, which Spark runs under the session's limit).

# The settings that change only how Spark decorrelates a correlated subquery: whether it
# takes it (decorrelateInnerQuery, a GROUP BY under a non-equality correlation) and what
# an aggregate over no row gives there (the legacy COUNT bugs).  A query whose subqueries
# are all uncorrelated means the same under them; under them the analyzer freezes the
# correlated ones (E.SubqueryExpr's `frozen`), and `first_affecting` leaves them out.
CORRELATION = frozenset({"spark.sql.optimizer.decorrelateInnerQuery.enabled",
                         "spark.sql.optimizer.decorrelateSubqueryLegacyIncorrectCountHandling.enabled",
                         "spark.sql.optimizer.decorrelateExistsSubqueryLegacyIncorrectCountHandling.enabled",
                         "spark.sql.legacy.scalarSubqueryCountBugBehavior",
                         "spark.sql.legacy.scalarSubqueryAllowGroupByNonEqualityCorrelatedPredicate"})


# settings Spark reads only with ANSI on (SQLConf: `ansiEnabled && ...`)
ANSI_ONLY = frozenset({"spark.sql.ansi.doubleQuotedIdentifiers"})


# Settings under which a text sparkfold writes may read otherwise than it was written,
# by key: does this output text hold such a construct?  (A query written whole from its
# plan puts a global aggregate's condition in a HAVING without GROUP BY, which the
# legacy setting reads as a WHERE over the select list.)
OUTPUT_CHECKS: dict[str, Affects] = {
    "spark.sql.legacy.parser.havingWithoutGroupByAsWhere": _having_without_group_by,
}


def _plan_holds(plan: L.Plan, test: Callable[[E.Expr], bool]) -> bool:
    """Does an expression of the analyzed plan (in a subquery too) pass `test`?"""
    stack = [plan]
    while stack:
        for node in stack.pop().walk():
            for e in node.expressions:
                for x in e.walk():
                    if test(x):
                        return True
                stack.extend(s.plan for s in L.subquery_plans(e))
    return False


def _cutover_gap_literals(plan: L.Plan) -> bool:
    """Does the analyzed plan hold a literal date or timestamp on a day of the 1582 cutover
    gap?  Its column name is the legacy formatter's."""
    return _plan_holds(plan, lambda x: isinstance(x, E.Literal) and in_cutover_gap(x.value))


_INTERVAL_TYPE = re.compile(r"(^|[<,:])interval( |,|>|$)")


def _interval_values(plan: L.Plan) -> bool:
    """Does the analyzed plan hold a value of an interval type (in a nested type too)?
    Under spark.sql.legacy.interval.enabled each is Spark's CalendarIntervalType, which
    Spark neither orders nor compares: `date - date` whose text holds no INTERVAL is one
    (`max(d1 - d2)`, checked on Spark 4.3, is then INVALID_ORDERING_TYPE, which a fold to
    an empty relation would drop)."""
    return _plan_holds(plan, lambda x: bool(_INTERVAL_TYPE.search(x.data_type.simple_string())))


# Settings that can change a query whose text does not show it, by key: does the
# analyzed plan hold such a part?  (Checked after the analysis, besides `UNMODELLED`'s
# check of the text.)
PLAN_CHECKS: dict[str, Callable[[L.Plan], bool]] = {
    "spark.sql.legacy.timeParserPolicy": _cutover_gap_literals,
    "spark.sql.legacy.interval.enabled": _interval_values,
}


def plan_affecting(settings: tuple[tuple[str, str], ...], plan: L.Plan) -> str | None:
    """`key=value` of the first setting that can change what this analyzed plan means
    (`PLAN_CHECKS`), or None."""
    for key, value in settings:
        check = PLAN_CHECKS.get(key)
        if check is not None and check(plan):
            return f"{key}={value}"
    return None


def output_read_otherwise(settings: tuple[tuple[str, str], ...], tree: exp.Expression, sql: str) -> str | None:
    """`key=value` of a setting under which the output text `sql` (parsed: `tree`) reads
    otherwise than sparkfold wrote it, or None."""
    for key, value in settings:
        check = OUTPUT_CHECKS.get(key)
        if check is not None and check(tree, sql):
            return f"{key}={value}"
    return None


# Settings whose values do not all change the same queries, by (key, value in lower case):
# which queries that value can change (else UNMODELLED's)
BY_VALUE: dict[tuple[str, str], Affects] = {
    ("spark.sql.legacy.ctePrecedencePolicy", "exception"): _nested_cte_names,
}


def unmodelled_settings(conf: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The (key, value) pairs of a session's settings that sparkfold does not model and
    that differ from Spark's default, in key order."""
    out = []
    ansi = str(conf.get("spark.sql.ansi.enabled", "true")).strip().lower() != "false"
    for key, value in conf.items():
        if (key in SETTINGS and key not in UNMODELLED) or (key in ANSI_ONLY and not ansi):
            continue
        known = UNMODELLED.get(key)
        if known is not None:
            if str(value).strip().lower() != known[0].lower():
                out.append((key, str(value).strip()))
        elif key.startswith("spark.sql.legacy."):
            out.append((key, str(value).strip()))
    return tuple(sorted(out))


def first_affecting(settings: tuple[tuple[str, str], ...], tree: exp.Expression, sql: str,
                    correlated: bool = True) -> str | None:
    """`key=value` of the first setting that can change what the query means, or None.
    `correlated=False`: the query has no correlated subquery (the settings of CORRELATION
    then change nothing)."""
    for key, value in settings:
        if key in CORRELATION and not correlated:
            continue
        affects = BY_VALUE.get((key, value.strip().lower())) or (UNMODELLED[key][1] if key in UNMODELLED
                                                                   else _always)
        if affects(tree, sql):
            return f"{key}={value}"
    return None
