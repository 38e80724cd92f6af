"""What an editor shows of a SQL file as it is edited, the analysis behind `sparkfold lsp`
(the protocol is in optimizer/lsp.py; nothing here knows it): the lint records of every
statement (`sparkfold lint`'s, `lint.lint_statement`), the optimized SQL and the rewrites
of the statement under the cursor, and the fixes of the findings in a range (`--fix`'s,
`optimizer.fixes`).

Each statement is analyzed on its own text, so the analysis of a statement whose text an
edit did not change is taken from a cache, wherever it now is in the file: typing in one
statement of a 1,000-line file analyzes that statement again, not the file.  Positions
(1-based lines and columns, as the records have them) are those of the file
(`sources.position`).  An analysis never raises: a statement that cannot be analyzed is
an `input-error` record at the error's position, and a bug in sparkfold met on a half-typed
statement is a record of its own (`internal-error`), never a failure of the editor's server.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from ..plans.ir.records import record, replace
from .lint import INPUT_ERROR, Edit, Record, lint_statement
from .severities import INFO
from .sources import Source, Statement, position, statements, tokenize

INTERNAL_ERROR = "internal-error"
CACHE_SIZE = 4096  # statement texts whose records are kept (about 1 KB each)
RESULTS_KEPT = 256  # and whose optimize results are (about 100 KB each: plans, trace), for hover
MAX_REWRITES_SHOWN = 12


@record(frozen=True)
class Analysis:
    """One statement text's records, positioned in that text alone."""

    records: tuple[Record, ...]


class Editor:
    """The analyses of the statements of the files open in an editor, against one catalog
    (a new `Editor` when the configuration changes)."""

    def __init__(self, catalog, exclude=(), schema_hint: str | None = None):
        self.catalog = catalog
        self.exclude = tuple(exclude)
        # said after an unknown table's message when no schema is configured
        self.schema_hint = schema_hint
        self._lints: OrderedDict[str, Analysis] = OrderedDict()
        self._fixes: OrderedDict[str, Analysis] = OrderedDict()
        self._results: OrderedDict[str, Any] = OrderedDict()
        self._splits: dict[str, tuple[str, list[Statement]]] = {}  # file -> its last text, split

    def forget(self, name: str) -> None:
        """The file was closed: its last split is not needed."""
        self._splits.pop(name, None)

    def statements(self, name: str, text: str) -> list[Statement]:
        """`sources.statements` of the file, split again only around what changed since
        the text it was last asked for (`resplit`)."""
        last = self._splits.get(name)
        out = resplit(last[0], last[1], Source(name, text)) if last is not None else statements(Source(name, text))
        self._splits[name] = (text, out)
        return out

    # -- what the editor asks --------------------------------------------------------

    def records(self, name: str, text: str) -> list[Record]:
        """The records of every statement of the file (opted-out statements have none)."""
        out: list[Record] = []
        for st in self.statements(name, text):
            if not st.opted_out:
                out.extend(_placed(r, st) for r in self._lint(st.text).records)
        return out

    def hover(self, name: str, text: str, offset: int) -> str | None:
        """Markdown about the statement at `offset`: its optimized SQL and the rewrites
        (None outside a statement, or on one that could not be analyzed)."""
        st = self.statement_at(name, text, offset)
        if st is None or st.opted_out:
            return None
        result = self._result(st.text)
        return None if result is None else hover_markdown(result)

    def statement_at(self, name: str, text: str, offset: int) -> Statement | None:
        """The statement whose text holds `offset` (or ends just before it)."""
        return next((st for st in self.statements(name, text) if st.start <= offset <= st.end), None)

    def fixes(self, name: str, text: str, start: int, end: int) -> list[Record]:
        """The records with a fix among those whose text overlaps the offsets [start,
        end] (the fixes are checked only for the statements there)."""
        out: list[Record] = []
        offsets = Offsets(text)
        for st in self.statements(name, text):
            if st.end < start or st.start > end or st.opted_out:
                continue
            for r in self._fixed(st.text).records:
                placed = _placed(r, st)
                if placed.fix is None:
                    continue
                a, b = offsets.span(placed)
                if a <= end and start <= b:
                    out.append(placed)
        return out

    def pending(self, name: str, text: str) -> list[str]:
        """The texts of the file's statements that are not analyzed yet."""
        return [st.text for st in self.statements(name, text) if st.text not in self._lints and not st.opted_out]

    def analyze(self, sql: str) -> None:
        """Analyze a statement's text now (`records` then finds it analyzed)."""
        self._lint(sql)

    # -- the caches ------------------------------------------------------------------

    def _lint(self, sql: str) -> Analysis:
        hit = _recall(self._lints, sql)
        return hit if hit is not None else self._analyze(sql)[1]

    def _result(self, sql: str):
        """The statement's optimize result (None when it cannot be analyzed), analyzed again
        when it is no longer kept."""
        if sql in self._results:
            return _recall(self._results, sql)
        return self._analyze(sql)[0]

    def _fixed(self, sql: str) -> Analysis:
        from .fixes import Checker

        hit = _recall(self._fixes, sql)
        if hit is None:
            hit = _remember(self._fixes, sql, self._records(sql, Checker(self.catalog, self.exclude))[1], CACHE_SIZE)
        return hit

    def _analyze(self, sql: str) -> tuple[Any, Analysis]:
        result, analysis = self._records(sql, None)
        _remember(self._results, sql, result, RESULTS_KEPT)
        return result, _remember(self._lints, sql, analysis, CACHE_SIZE)

    def _records(self, sql: str, checker) -> tuple[Any, Analysis]:
        st = Statement(Source("", sql), 1, 0, len(sql), 0)
        try:
            result, records = lint_statement(st, self.catalog, self.exclude, checker)
        except Exception as e:  # a bug met on a half-typed statement: said, never raised
            first = str(e).strip().splitlines()[0] if str(e).strip() else ""
            return None, Analysis((Record("", 1, 1, INFO, INTERNAL_ERROR,
                                          f"sparkfold could not analyze this statement (a bug in sparkfold: "
                                          f"{type(e).__name__}: {first})"),))
        if self.schema_hint and result is None:
            records = [replace(r, message=f"{r.message} ({self.schema_hint})", severity=INFO)
                       if r.code == INPUT_ERROR and r.message.startswith("unknown table") else r for r in records]
        return result, Analysis(tuple(records))


def _recall(cache: OrderedDict, key: str):
    hit = cache.get(key)
    if hit is not None:
        cache.move_to_end(key)
    return hit


def _remember(cache: OrderedDict, key: str, value, limit: int):
    cache[key] = value
    cache.move_to_end(key)
    if len(cache) > limit:
        cache.popitem(last=False)
    return value


# -- splitting again after an edit ------------------------------------------------------

def resplit(old: str, split: list[Statement], source: Source) -> list[Statement]:
    """`statements(source)`, given the statements `split` of the file's previous text
    `old`, tokenizing only from the last statement boundary before the edit to the first
    one after it.  A boundary is where a top-level `;` ends: the tokenizer starts afresh
    there, so the text before the edit splits as before, and from the first boundary after
    the edit at which the new text's tokens end with that same `;`, the unchanged rest splits
    as before too, shifted.  (Tokenizing a 1,000-line file whole takes about 0.1 s.)"""
    new = source.text
    if old == new:
        return [replace(st, source=source) for st in split]
    p = common_prefix(old, new)
    s = common_suffix(old, new, min(len(old), len(new)) - p)
    delta = len(new) - len(old)
    bounds = [0] + [st.lead for st in split[1:]]  # (the first statement's lead is 0 or after a `;`)
    if split and split[0].lead:
        bounds.append(split[0].lead)
    bounds = sorted(set(bounds))
    a = max(b for b in bounds if b <= p)
    # (a boundary after 0 is one of a text that tokenized: a text that does not is split
    # as one statement, and so is the new text when its tail does not)
    after = [b + delta for b in bounds if b > 0 and b >= len(old) - s and b + delta > a]
    before = [st for st in split if st.end <= a and st.lead < a]
    for b in after:
        part = new[a:b]
        if not part.endswith(";") or not _ends_at_semicolon(part):
            continue
        middle = statements(Source("", part))
        rest = [st for st in split if st.lead >= b - delta]
        return _renumber(source, before, [(st.start + a, st.end + a, st.lead + a) for st in middle],
                         [(st.start + delta, st.end + delta, st.lead + delta) for st in rest])
    if not _tokenizes(new[a:]):
        return statements(source)
    middle = statements(Source("", new[a:]))
    return _renumber(source, before, [(st.start + a, st.end + a, st.lead + a) for st in middle], [])


def _tokenizes(text: str) -> bool:
    try:
        tokenize(text)
    except Exception:
        return False
    return True


def _ends_at_semicolon(part: str) -> bool:
    """Does the text's last token end it, and is it a `;` (the tokenizer at top level)?"""
    from sqlglot.tokens import TokenType

    try:
        tokens = tokenize(part)
    except Exception:
        return False
    return bool(tokens) and tokens[-1].token_type == TokenType.SEMICOLON and tokens[-1].end == len(part) - 1


def _renumber(source: Source, before: list[Statement], middle, rest) -> list[Statement]:
    out = [replace(st, source=source) for st in before]
    for start, end, lead in [*middle, *rest]:
        out.append(Statement(source, len(out) + 1, start, end, lead))
    return out


def common_prefix(a: str, b: str) -> int:
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:  # (slices compared in C: a few dozen comparisons for a large file)
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def common_suffix(a: str, b: str, limit: int) -> int:
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid:] == b[len(b) - mid:]:
            lo = mid
        else:
            hi = mid - 1
    return lo


# -- positions ------------------------------------------------------------------------


def _placed(r: Record, st: Statement) -> Record:
    """A record of the statement's own text, positioned in the statement's file."""
    line, column = position(st, r.line, r.column)
    end_line = end_column = None
    if r.end_line is not None and r.end_column is not None:
        end_line, end_column = position(st, r.end_line, r.end_column)
    fix = r.fix
    if fix is not None:
        (fl, fc), (tl, tc) = position(st, fix.line, fix.column), position(st, fix.end_line, fix.end_column)
        fix = Edit(fix.safety, fix.title, fl, fc, tl, tc, fix.text)
    snippet = r.snippet
    if r.code == INPUT_ERROR:  # (the error's line of the file, as `sources.located` quotes it)
        lines = st.source.text.splitlines() or [""]
        snippet = lines[min(line, len(lines)) - 1]
    return replace(r, file=st.source.name, line=line, column=column, end_line=end_line, end_column=end_column,
                   fix=fix, snippet=snippet)


class Offsets:
    """1-based (line, column) positions of a text, lines split at \\n as records count
    them, as offsets into it (clamped to the text)."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0]
        at = text.find("\n")
        while at >= 0:
            self.starts.append(at + 1)
            at = text.find("\n", at + 1)

    def at(self, line: int, column: int) -> int:
        if line > len(self.starts):
            return len(self.text)
        return min(self.starts[max(line, 1) - 1] + column - 1, len(self.text))

    def span(self, r: Record) -> tuple[int, int]:
        """The offsets [start, end) a record points at: its expression, or the one
        character at an error's position (none at the end of the text or of a line)."""
        start = self.at(r.line, r.column)
        if r.end_line is not None and r.end_column is not None:
            return start, max(start, self.at(r.end_line, r.end_column) + 1)
        return start, start + (start < len(self.text) and self.text[start] not in "\r\n")

    def edit(self, e: Edit) -> tuple[int, int]:
        return self.at(e.line, e.column), self.at(e.end_line, e.end_column)


# -- hover ----------------------------------------------------------------------------

def hover_markdown(result) -> str:
    """The optimized SQL and each rewrite (rule, and what it changed), in Markdown."""
    from .explain import changed_places, expression_changes

    if result.passthrough is not None:
        return f"**sparkfold**: passed through as written ({result.passthrough})"
    rewrites = list(result.trace.rewrites)
    if not rewrites:
        return "**sparkfold**: no rewrite applies; the query is sent as written."
    rules = list(dict.fromkeys(r.rule for r in rewrites))
    lines = [f"**sparkfold**: {len(rewrites)} rewrite{'' if len(rewrites) == 1 else 's'} "
             f"({', '.join(rules)})", "", "```sql", result.sql.strip(), "```", ""]
    for r in rewrites[:MAX_REWRITES_SHOWN]:
        changes: list[str] = []
        for _, before, after, _ in changed_places(r.before, r.after)[0]:
            changes.extend(f"`{_short(b)}` → `{_short(a)}`" for b, a in expression_changes(before, after))
        lines.append(f"- **{r.rule}** ({r.batch}){': ' + '; '.join(changes[:4]) if changes else ''}")
    if len(rewrites) > MAX_REWRITES_SHOWN:
        lines.append(f"- ... {len(rewrites) - MAX_REWRITES_SHOWN} more (`sparkfold explain` shows them all)")
    return "\n".join(lines)


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split()).replace("`", "'")
    return text if len(text) <= limit else text[:limit - 3] + "..."


__all__ = ["Editor", "Analysis", "INTERNAL_ERROR", "Offsets", "hover_markdown", "resplit", "common_prefix", "common_suffix"]
