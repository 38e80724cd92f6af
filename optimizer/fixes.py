"""Fixes for findings, as `ruff --fix` makes them: minimal edits of the user's text.

A fix is one edit of a statement's text (replace `text[start:end]`), of one of two kinds:

- *safe*: the fixed statement is proven to give the original's result (rows, column
  names, types and nullability, errors): the optimizer, whose every rewrite keeps the
  result, takes the original and the fixed text to the same plan (`L.same_but_ids`), in
  ANSI and in legacy mode, and both have the same schema, nullability included
  (`proven_same`).  A LEFT JOIN a filter makes inner written as JOIN, a conjunct that is
  always TRUE (`num IS NOT NULL` of a NOT NULL column) left out, an OR branch or a CASE
  WHEN that is never TRUE left out, a WHERE that is always TRUE left out.  An edit the
  optimizer cannot prove (a CASE whose Spark-generated column name would change, a LEFT
  JOIN whose padded side would become NOT NULL) is not a safe fix.
- *unsafe*: the likely intent, which changes the result: `x = NULL` to `x IS NULL`,
  `x <> NULL` to `x IS NOT NULL`, a NULL dropped from a NOT IN list, `x NOT IN (SELECT
  y ...)` over a nullable y to `NOT EXISTS (SELECT ... AND y = x)`.  Checked to be a
  statement sparkfold analyzes (no new error).

An edit never removes a comment (a fix whose edit would is not offered).  `fix_statement`
applies fixes one at a time, linting again after each, until none is left.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable

from sqlglot import exp

from ..plans.ir.dialect import node_span
from ..plans.ir.errors import SparkfoldError
from ..plans.ir.records import record, replace

SAFE = "safe"
UNSAFE = "unsafe"
MAX_FIXES = 50  # per statement: a bound, never reached by a real file


@record(frozen=True)
class Fix:
    """Replace `sql[start:end]` (offsets in the statement's text) by `text`."""

    safety: str
    start: int
    end: int
    text: str
    title: str  # what the fix does, for people ("write `x IS NULL`")

    def apply(self, sql: str) -> str:
        return sql[:self.start] + self.text + sql[self.end:]


# -- where a finding is -------------------------------------------------------------------

def offset(sql: str, line: int, column: int) -> int:
    """The offset of a 1-based (line, column) in `sql` (lines split at \\n, as findings count)."""
    at = 0
    for _ in range(line - 1):
        at = sql.index("\n", at) + 1
    return at + column - 1


def _span_of(sql: str, finding) -> tuple[int, int] | None:
    """(first, last) offsets of the finding's text."""
    if finding.end_line is None or finding.end_column is None:
        return None
    try:
        return offset(sql, finding.line, finding.column), offset(sql, finding.end_line, finding.end_column)
    except ValueError:
        return None


def _node_at(tree: exp.Expression, span: tuple[int, int]) -> exp.Expr | None:
    """The outermost expression (not a clause) whose text is exactly `span`."""
    for node in tree.walk():
        if node_span(node) == span and not isinstance(node, _CLAUSES):
            return node
    return None


_CLAUSES = (exp.Where, exp.Having, exp.Select, exp.From, exp.Join, exp.Group, exp.Order, exp.Subquery)


def _text(sql: str, node: exp.Expression) -> str:
    span = node_span(node)
    assert span is not None
    return sql[span[0]:span[1] + 1]


_COMMENT = re.compile(r"--|/\*")
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`")


def _cuts_a_comment(sql: str, start: int, end: int) -> bool:
    return bool(_COMMENT.search(_QUOTED.sub("", sql[start:end])))


class _Words:
    """Keywords in the input's case (lower when the input writes its keywords so)."""

    def __init__(self, sql: str, tree: exp.Expression):
        from .splice import _Style

        self.lower = _Style(sql, tree).lower_keywords

    def __call__(self, text: str) -> str:
        return text.lower() if self.lower else text


# -- candidate edits, by finding code ---------------------------------------------------------

def candidates(sql: str, tree: exp.Expression, finding) -> list[Fix]:
    """The edits that may fix `finding` (not yet checked), most wanted first."""
    span = _span_of(sql, finding)
    if span is None:
        return []
    make = _MAKERS.get(finding.code)
    if make is None:
        return []
    words = _Words(sql, tree)
    node = None if finding.code == "outer-join-not-outer" else _node_at(tree, span)
    if node is None and finding.code != "outer-join-not-outer":
        return []
    out = make(sql, node, span, finding, words)
    return [f for f in out if not _cuts_a_comment(sql, f.start, f.end)]


def _null_comparison(sql, node, span, finding, words) -> list[Fix]:
    from .findings import _is_null

    if not isinstance(node, (exp.EQ, exp.NEQ)):
        return []
    left, right = node.this, node.expression
    if _is_null(left) == _is_null(right):
        return []
    other = right if _is_null(left) else left
    test = words("IS NULL" if isinstance(node, exp.EQ) else "IS NOT NULL")
    text = f"{_text(sql, other)} {test}"
    if not isinstance(node.parent, (exp.Where, exp.Having, exp.Join, exp.Connector, exp.Paren, exp.Not,
                                    exp.Select, exp.Alias, exp.If)):
        text = f"({text})"
    return [Fix(UNSAFE, span[0], span[1] + 1, text, f"write `{text}`")]


def _not_in_null(sql, node, span, finding, words) -> list[Fix]:
    from .findings import _is_null, _negated_in

    in_ = _negated_in(node) if isinstance(node, exp.Not) else None
    if in_ is None or not in_.expressions:
        return []
    rest = [_text(sql, i) for i in in_.expressions if not _is_null(i)]
    if not rest:
        return []
    text = f"{_text(sql, in_.this)} {words('NOT IN')} ({', '.join(rest)})"
    return [Fix(UNSAFE, span[0], span[1] + 1, text, f"write `{text}` (the NULL left out)")]


def _not_in_subquery(sql, node, span, finding, words) -> list[Fix]:
    """`v NOT IN (SELECT c FROM ... [WHERE w])` -> `NOT EXISTS (SELECT c FROM ... WHERE
    [(w) AND] c = v)`: the NOT EXISTS the message advises, with the outer value's columns
    qualified so that the subquery's own columns cannot capture them."""
    from .findings import _negated_in

    in_ = _negated_in(node) if isinstance(node, exp.Not) else None
    query = in_.args.get("query") if in_ is not None else None
    select = query.this if isinstance(query, exp.Subquery) else query
    if in_ is None or not isinstance(select, exp.Select) or len(select.expressions) != 1:
        return []
    if any(select.args.get(k) for k in ("group", "having", "limit", "offset", "distinct", "qualify", "order",
                                         "with", "joins", "laterals")):
        return []
    item = select.expressions[0]
    if isinstance(item, exp.Alias):
        item = item.this
    value = in_.this
    inner_table, outer_table = _only_table(select), _only_table(node.find_ancestor(exp.Select))
    if not isinstance(item, exp.Column) or not isinstance(value, exp.Column) or inner_table is None:
        return []
    # both columns qualified, by tables of different names: the subquery's own columns
    # cannot capture the outer one
    value_table = value.table or outer_table
    item_table = item.table or inner_table
    if not value_table or item_table.lower() != inner_table.lower() or value_table.lower() == inner_table.lower():
        return []
    where = select.args.get("where")
    cond = f"{_qualified(sql, item, item_table)} = {_qualified(sql, value, value_table)}"
    try:
        sel_start = node_span(select)[0]  # type: ignore[index]
        sel_end = node_span(select)[1]  # type: ignore[index]
    except TypeError:
        return []
    inner = sql[sel_start:sel_end + 1]
    if where is not None:
        w = node_span(where.this)
        if w is None:
            return []
        wtext = sql[w[0]:w[1] + 1]
        if isinstance(where.this, exp.Or):
            wtext = f"({wtext})"
        inner = sql[sel_start:w[0]] + f"{wtext} {words('AND')} {cond}" + sql[w[1] + 1:sel_end + 1]
    else:
        inner = f"{inner} {words('WHERE')} {cond}"
    text = f"{words('NOT EXISTS')} ({inner})"
    return [Fix(UNSAFE, span[0], span[1] + 1, text, "write NOT EXISTS, which keeps the rows without a match")]


def _only_table(select: exp.Expression | None) -> str | None:
    """The name a SELECT's only table goes by (its alias, or its name), or None."""
    if not isinstance(select, exp.Select) or select.args.get("joins") or select.args.get("laterals"):
        return None
    from_ = select.args.get("from_") or select.args.get("from")
    table = from_.this if from_ is not None else None
    return table.alias_or_name if isinstance(table, exp.Table) and table.alias_or_name else None


def _qualified(sql: str, column: exp.Column, table: str) -> str:
    text = _text(sql, column)
    return text if column.table else f"{table}.{text}"


_OUTER_WORDS = re.compile(r"(LEFT|RIGHT|FULL)(?:\s+OUTER)?\s+JOIN\b", re.IGNORECASE)
_WRITE = re.compile(r"write ((?:LEFT |RIGHT )?JOIN),")


def _outer_join(sql, node, span, finding, words) -> list[Fix]:
    m = _OUTER_WORDS.match(sql, span[0])
    want = _WRITE.search(finding.message)
    if m is None or want is None:
        return []
    text = words(want.group(1))
    return [Fix(SAFE, m.start(), m.end(), text, f"write {want.group(1)}")]


def _unreachable(sql, node, span, finding, words) -> list[Fix]:
    parent = node.parent
    if isinstance(parent, exp.If) and isinstance(parent.parent, exp.Case) and node.arg_key == "this":
        case, branch = parent.parent, parent
        if "never taken: an earlier WHEN" in finding.message:
            return _cut_to_end(sql, case, branch, words)
        ifs = case.args.get("ifs") or []
        if len(ifs) == 1:  # the CASE is its ELSE (NULL without one)
            default = case.args.get("default")
            return _replace_whole(sql, case, _text(sql, default) if default is not None else words("NULL"))
        start = _keyword_before(sql, node, "WHEN")
        nxt = ifs[ifs.index(branch) + 1] if branch is not ifs[-1] else None
        end_node = branch.args.get("true")
        if start is None or end_node is None:
            return []
        end = node_span(end_node)
        if end is None:
            return []
        if nxt is not None:  # up to the next WHEN
            after = _keyword_before(sql, nxt.this, "WHEN")
        else:  # up to the ELSE or END after it
            after = _next_word(sql, end[1] + 1, ("ELSE", "END"))
        if after is None:
            return []
        return [Fix(SAFE, start, after, "", "leave out the WHEN branch that is never taken")]
    if isinstance(parent, exp.Case) and node.arg_key == "default":  # an ELSE after a WHEN always TRUE
        ifs = parent.args.get("ifs") or []
        return _cut_to_end(sql, parent, ifs[-1], words) if ifs else []
    if isinstance(parent, exp.If) and node.arg_key in ("true", "false"):  # IF(c, a, b)
        kept = parent.args.get("false" if node.arg_key == "true" else "true")
        if kept is None or node_span(kept) is None:
            return []
        return _replace_whole(sql, parent, _text(sql, kept))
    return []


def _cut_to_end(sql: str, case: exp.Case, branch: exp.If, words) -> list[Fix]:
    """A CASE whose WHEN `branch` is always TRUE: that branch's value, when it is the
    first; else that value as the ELSE, the branches after it left out."""
    value = branch.args.get("true")
    end = node_span(value) if value is not None else None
    case_span = node_span(case)
    start = _keyword_before(sql, branch.this, "WHEN")
    if end is None or case_span is None or start is None:
        return []
    at = case_span[1] + 1 - 3
    if sql[at:case_span[1] + 1].upper() != "END":
        return []
    out = []
    if branch is (case.args.get("ifs") or [None])[0]:
        out += _replace_whole(sql, case, sql[end[0]:end[1] + 1])
    out.append(Fix(SAFE, start, case_span[1] + 1, f"{words('ELSE')} {sql[end[0]:end[1] + 1]} {sql[at:at + 3]}",
                   "leave out the branches after the WHEN that is always TRUE"))
    return out


def _replace_whole(sql: str, node: exp.Expression, text: str) -> list[Fix]:
    span = node_span(node)
    if span is None:
        return []
    if node.parent is not None and not isinstance(node.parent, (exp.Select, exp.Alias, exp.Paren, exp.Where,
                                                                 exp.Having, exp.Func)) \
            or isinstance(node.parent, (exp.Binary, exp.Unary, exp.Predicate)):
        text = f"({text})"
    return [Fix(SAFE, span[0], span[1] + 1, text, "write the value that is always taken")]


def _keyword_before(sql: str, node: exp.Expression, word: str) -> int | None:
    span = node_span(node)
    if span is None:
        return None
    m = re.search(rf"(?<![\w`]){word}\s+\Z", sql[:span[0]], re.IGNORECASE)
    return m.start() if m else None


def _next_word(sql: str, at: int, words: tuple[str, ...]) -> int | None:
    m = re.compile(r"\s*(" + "|".join(words) + r")\b", re.IGNORECASE).match(sql, at)
    return m.start(1) if m else None


def _never_true(sql, node, span, finding, words) -> list[Fix]:
    """An OR branch that is never TRUE: left out, with its OR."""
    if "side of the OR" not in finding.message:
        return []
    return _cut_operand(sql, node, exp.Or, "leave out the OR branch that is never TRUE")


def _always_true(sql, node, span, finding, words) -> list[Fix]:
    parent = node.parent
    if isinstance(parent, (exp.Where, exp.Having)) and node.arg_key == "this":
        word = "WHERE" if isinstance(parent, exp.Where) else "HAVING"
        start = _keyword_before(sql, node, word)
        if start is None:
            return []
        start = len(sql[:start].rstrip())
        return [Fix(SAFE, start, span[1] + 1, "", f"leave out the {word} that is always TRUE")]
    return _cut_operand(sql, node, exp.And, "leave out the condition that is always TRUE")


def _cut_operand(sql: str, node: exp.Expr, kind: type, title: str) -> list[Fix]:
    """Cut `node`, an operand of an AND / OR link, with the keyword that joins it."""
    parent = node.parent
    if parent is None or type(parent) is not kind:
        return []
    try:
        if node is parent.expression:  # from the end of the operand before it
            before = node_span(parent.this)
            start, end = before[1] + 1, node_span(node)[1] + 1  # type: ignore[index]
        else:  # up to the operand after it
            after = node_span(parent.expression)
            start, end = node_span(node)[0], after[0]  # type: ignore[index]
    except TypeError:
        return []
    out = [Fix(SAFE, start, end, "", title)]
    other = parent.this if node is parent.expression else parent.expression
    paren = parent.parent
    if isinstance(paren, exp.Paren) and type(other) is not kind and node_span(paren) and node_span(other):
        # `(a OR b)` left as `a`, not `(a)`, where the parentheses are not needed (the
        # check reads the result: where they are, the plan differs and this is not used)
        out.insert(0, Fix(SAFE, node_span(paren)[0], node_span(paren)[1] + 1,  # type: ignore[index]
                          _text(sql, other), title))
    return out


def _count_star(sql, node, span, finding, words) -> list[Fix]:
    return [Fix(SAFE, span[0], span[1] + 1, "count(*)" if not words.lower else "count(*)", "write `count(*)`")]


_MAKERS: dict[str, Callable[..., list[Fix]]] = {
    "null-comparison": _null_comparison,
    "not-in-null": _not_in_null,
    "not-in-nullable-subquery": _not_in_subquery,
    "outer-join-not-outer": _outer_join,
    "unreachable-branch": _unreachable,
    "never-true": _never_true,
    "always-true": _always_true,
    "count-never-null": _count_star,
}


# -- checking a fix ------------------------------------------------------------------------

class Checker:
    """Optimizes statements (each text once per mode) to check fixes against them."""

    def __init__(self, catalog, exclude: Iterable[str] = ()):
        from .output_nullability import NAME as KEEP_NULLABILITY

        self.catalog = catalog
        # the rules' plan, without the last step that types the output as the original's
        # (the schemas are compared on their own)
        self.exclude = (*exclude, KEEP_NULLABILITY)
        self._runs: dict[tuple[str, bool], Any] = {}


    def run(self, sql: str, ansi: bool):
        key = (sql, ansi)
        if key not in self._runs:
            from .api import optimize

            try:
                self._runs[key] = optimize(sql, self.catalog.with_settings(ansi=ansi), exclude=self.exclude,
                                           keep_layout=False)
            except SparkfoldError:
                self._runs[key] = None
            except Exception:  # a bug met on an edited text: no fix, never a failure
                self._runs[key] = None
        return self._runs[key]

    def proven_same(self, before: str, after: str) -> str | None:
        """Do `before` and `after` give the same result, as the optimizer proves it?
        "same"; "narrower" when all but some columns' nullability is (NOT NULL in `after`,
        nullable in `before`); else None."""
        from ..plans.ir.logical import same_but_ids

        verdict = "same"
        for ansi in (self.catalog.ansi, not self.catalog.ansi):
            a, b = self.run(before, ansi), self.run(after, ansi)
            if a is None or b is None or a.optimized is None or b.optimized is None:
                return None
            old, new = _schema(a.analyzed), _schema(b.analyzed)
            if [c[:2] for c in old] != [c[:2] for c in new] or any(n and not o for (*_, o), (*_, n) in zip(old, new)):
                return None
            if old != new:
                verdict = "narrower"
            if not same_but_ids(a.optimized, b.optimized):
                return None
        return verdict

    def analyzes(self, before: str, after: str) -> bool:
        """Is `after` a statement sparkfold reads (and analyzes, where `before` was)?"""
        a, b = self.run(before, self.catalog.ansi), self.run(after, self.catalog.ansi)
        return b is not None and (a is None or a.optimized is None or b.optimized is not None)

    def check(self, fix: Fix, sql: str) -> Fix | None:
        """The fix, if it checks: a safe one whose result would differ only in columns
        becoming NOT NULL is an unsafe one (a schema is part of the result)."""
        after = fix.apply(sql)
        if fix.safety == UNSAFE:
            return fix if self.analyzes(sql, after) else None
        verdict = self.proven_same(sql, after)
        if verdict == "narrower":
            a = self.run(sql, self.catalog.ansi).analyzed
            b = self.run(after, self.catalog.ansi).analyzed
            names = [x.name for x, y in zip(a.output, b.output) if x.nullable != y.nullable]
            return replace(fix, safety=UNSAFE, title=f"{fix.title} (the same rows; the column"
                                                     f"{'s' if len(names) > 1 else ''} {', '.join(names)} "
                                                     f"become{'' if len(names) > 1 else 's'} NOT NULL)")
        return fix if verdict == "same" else None


def _schema(plan) -> list[tuple]:
    return [(a.name, a.data_type, a.nullable) for a in plan.output]


def _findings_of(result) -> list:
    return list(getattr(result, "findings", None) or ())


def fix_for(sql: str, tree: exp.Expression | None, finding, checker: Checker) -> Fix | None:
    """The first candidate fix of `finding` that checks, or None."""
    if tree is None:
        return None
    for fix in candidates(sql, tree, finding):
        checked = checker.check(fix, sql)
        if checked is not None:
            return checked
    return None


def parsed(sql: str) -> exp.Expression | None:
    from ..plans.sql_in.parse import parse_query

    try:
        return parse_query(sql)
    except Exception:
        return None


def fix_statement(sql: str, checker: Checker, unsafe: bool) -> tuple[str, list[Fix]]:
    """The statement with every fix that checks applied (safe ones; unsafe too when
    `unsafe`), one at a time, and the fixes applied."""
    applied: list[Fix] = []
    for _ in range(MAX_FIXES):
        result = checker.run(sql, checker.catalog.ansi)
        if result is None:
            break
        tree = parsed(sql)
        found = None
        for f in _findings_of(result):
            fix = fix_for(sql, tree, f, checker)
            if fix is not None and (fix.safety == SAFE or unsafe):
                found = fix
                break
        if found is None:
            break
        sql = found.apply(sql)
        applied.append(found)
    return sql, applied


__all__ = ["Fix", "Checker", "SAFE", "UNSAFE", "candidates", "fix_for", "fix_statement", "offset", "parsed"]
