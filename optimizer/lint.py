"""`sparkfold lint`: findings only, with positions in the files, in the formats that CI
tools read, and an exit code that can gate a build.

Every statement of every source is analyzed on its own: one that cannot be (a syntax
error, an unknown table) is reported as an `error` record with its position and the
rest are still linted.  Formats:

- `text`: `file:line:column: severity: message [code]`, one per line (compilers' style);
- `jsonl`: one JSON object per record;
- `github`: GitHub Actions workflow commands (`::warning file=...,line=...::message`),
  which the Actions runner shows as annotations on the pull request;
- `sarif`: one SARIF 2.1.0 log (`github/codeql-action/upload-sarif` reads it).

Exit codes (`exit_code`): 2 when a statement could not be analyzed (bad input), else 1
when a finding is at or above `--fail-on`, else 0.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from ..plans.ir.errors import SparkfoldError
from ..plans.ir.records import as_dict, record
from .severities import ERROR, INFO, WARNING
from .sources import Source, Statement, caret_lines, in_statement, located, position, statements

SEVERITIES = (INFO, WARNING, ERROR)
FORMATS = ("text", "jsonl", "github", "sarif")
INPUT_ERROR = "input-error"  # the code of a statement that could not be analyzed
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@record(frozen=True)
class Edit:
    """A fix of a finding: replace the text from (line, column) up to, not including,
    (end_line, end_column) by `text`; `safety` is `safe` (the result is proven the same)
    or `unsafe` (the likely intent: the result changes; see `optimizer.fixes`)."""

    safety: str
    title: str
    line: int
    column: int
    end_line: int
    end_column: int
    text: str


@record(frozen=True)
class Record:
    """One finding (or input error), positioned in its source file."""

    file: str
    line: int
    column: int
    severity: str
    code: str
    message: str
    end_line: int | None = None
    end_column: int | None = None
    snippet: str = ""
    suggestion: str | None = None
    fix: Edit | None = None

    def text(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.message} [{self.code}]" + \
            (f" ({self.fix.safety} fix available)" if self.fix is not None else "")

    def as_json(self) -> dict:
        out = as_dict(self)
        out["fix"] = as_dict(self.fix) if self.fix is not None else None
        return out


def lint_sources(sources: Iterable[Source], catalog, exclude=(), fixes: bool = False) -> Iterator[Record]:
    """The records of every statement of every source, in order; with `fixes`, each
    finding's fix (`optimizer.fixes`), when one checks."""
    from .fixes import Checker

    checker = Checker(catalog, exclude) if fixes else None
    for source in sources:
        for st in statements(source):  # an empty or comment-only file has nothing to lint
            if not st.opted_out:
                yield from lint_statement(st, catalog, exclude, checker)[1]


def lint_statement(st: Statement, catalog, exclude=(), checker=None) -> tuple[Any, list[Record]]:
    """One statement's optimize result (None when it could not be analyzed) and its
    records; with a `fixes.Checker`, each finding's fix, when one checks."""
    from .fixes import fix_for, parsed
    from .hooks import rewrite

    try:
        _, result = rewrite(st.text, catalog, exclude=exclude)
    except SparkfoldError as e:
        return None, [_input_error(st, e)]
    findings = getattr(result, "findings", None) or ()
    tree = None
    if checker is not None and findings and result is not None and result.original_sql == st.text:
        tree = parsed(st.text)  # (a statement with parameter markers read otherwise: no fixes)
    records = []
    for f in findings:
        line, col = position(st, f.line, f.column)
        end_line = end_col = None
        if f.end_line is not None and f.end_column is not None:
            end_line, end_col = position(st, f.end_line, f.end_column)
        fix = fix_for(st.text, tree, f, checker) if checker is not None and tree is not None else None
        records.append(Record(st.source.name, line, col, f.severity, f.code, f.message, end_line, end_col,
                              f.snippet, f.suggestion, _edit(st, fix) if fix is not None else None))
    return result, records


@record
class Fixed:
    """A source with its fixes applied (`text` is the source's own when none applied)."""

    source: Source
    text: str
    fixes: int = 0
    unreadable: bool = False  # a statement could not be analyzed: the source is left as it was


def fix_sources(sources: Iterable[Source], catalog, exclude=(), unsafe: bool = False) -> list[Fixed]:
    """Each source with the fixes of its statements applied (`fixes.fix_statement`); a
    source with a statement that cannot be analyzed is left as it was."""
    from .fixes import Checker, fix_statement
    from .hooks import rewrite

    checker = Checker(catalog, exclude)
    out = []
    for source in sources:
        pieces: list[tuple[Statement, str]] = []
        count, unreadable = 0, False
        for st in statements(source):
            if st.opted_out:
                continue
            try:
                _, result = rewrite(st.text, catalog, exclude=exclude)
            except SparkfoldError:
                unreadable = True
                break
            if result is None or result.original_sql != st.text or not result.findings:
                continue  # (parameter markers: read as another text, not fixed)
            text, applied = fix_statement(st.text, checker, unsafe)
            if applied:
                pieces.append((st, text))
                count += len(applied)
        if unreadable or not pieces:
            out.append(Fixed(source, source.text, 0, unreadable))
            continue
        text = source.text
        for st, new in reversed(pieces):
            text = text[:st.start] + new + text[st.end:]
        out.append(Fixed(source, text, count))
    return out


def unified_diff(fixed: Iterable[Fixed]) -> str:
    """What the fixes change, as `diff -u` prints it, file by file."""
    import difflib

    out = []
    for f in fixed:
        if f.text == f.source.text:
            continue
        for line in difflib.unified_diff(f.source.text.splitlines(keepends=True), f.text.splitlines(keepends=True),
                                         f.source.name, f.source.name):
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _edit(st: Statement, fix) -> Edit:
    """The fix (offsets in the statement) as an edit of the source (lines and columns)."""
    def at(offset: int) -> tuple[int, int]:
        text = st.source.text
        i = st.start + offset
        return text.count("\n", 0, i) + 1, i - (text.rfind("\n", 0, i) + 1) + 1

    (line, col), (end_line, end_col) = at(fix.start), at(fix.end)
    return Edit(fix.safety, fix.title, line, col, end_line, end_col, fix.text)


def _input_error(st: Statement, e: SparkfoldError) -> Record:
    """The error at its position in the source (syntax errors and unknown names say
    where in the statement they are), or at the statement's start; its snippet is that
    source line (the text format prints it with a caret, as the other commands do)."""
    where = located(e, st).location  # type: ignore[attr-defined]
    return Record(st.source.name, where.line, where.column, ERROR, INPUT_ERROR, in_statement(e)[0],
                  snippet=where.text)


def exit_code(records: list[Record], fail_on: str) -> int:
    if any(r.code == INPUT_ERROR for r in records):
        return 2
    if fail_on == "never":
        return 0
    floor = SEVERITIES.index(fail_on)
    return 1 if any(SEVERITIES.index(r.severity) >= floor for r in records) else 0


def fix_summary(records: list[Record], fixed: int | None = None) -> str | None:
    """ruff's lines: `Found 3 findings (2 fixed, 1 remaining).` after --fix; before, how
    many findings --fix (and --unsafe-fixes) would fix.  None when there is nothing to say."""
    findings = [r for r in records if r.code != INPUT_ERROR]
    safe = sum(r.fix is not None and r.fix.safety == "safe" for r in findings)
    unsafe = sum(r.fix is not None and r.fix.safety == "unsafe" for r in findings)
    more = f" ({unsafe} more with --fix --unsafe-fixes)" if unsafe else ""
    if fixed is not None:
        found = fixed + len(findings)
        text = f"Found {found} finding{'' if found == 1 else 's'} ({fixed} fixed, {len(findings)} remaining)."
        return text + (f" {unsafe} fixable with --unsafe-fixes." if unsafe else "")
    if not safe and not unsafe:
        return None
    return f"{safe} fixable with --fix{more}."


def summary(records: list[Record], statements: int) -> str:
    """`N statements linted: E errors, W warnings, I infos`; a statement that could not be
    analyzed is printed as an `error:` line, so it counts among the errors, and how many
    of them are such is said after."""
    counts = {s: sum(r.severity == s for r in records) for s in SEVERITIES}
    unanalyzed = sum(r.code == INPUT_ERROR for r in records)
    parts = [f"{counts[s]} {s}{'' if counts[s] == 1 else 's'}" for s in (ERROR, WARNING, INFO)]
    text = f"{statements} statement{'' if statements == 1 else 's'} linted: " + ", ".join(parts)
    if unanalyzed:
        text += f" ({unanalyzed} of the errors: could not be analyzed)"
    return text


# -- formats ---------------------------------------------------------------------------

def render(records: list[Record], fmt: str, version: str = "unknown") -> str:
    import json

    if fmt == "text":  # (an error's source line and a caret under it follow it, as compilers print)
        return "".join("\n".join([r.text(), *(caret_lines(r.snippet, r.column) if r.code == INPUT_ERROR else ())])
                       + "\n" for r in records)
    if fmt == "jsonl":
        return "".join(json.dumps(r.as_json()) + "\n" for r in records)
    if fmt == "github":
        return "".join(_github(r) + "\n" for r in records)
    if fmt == "sarif":
        return json.dumps(sarif(records, version), indent=2) + "\n"
    raise ValueError(f"unknown format {fmt!r}")


_GITHUB_LEVEL = {ERROR: "error", WARNING: "warning", INFO: "notice"}


def _escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def _github(r: Record) -> str:
    props = [f"file={_escape_property(r.file)}", f"line={r.line}", f"col={r.column}"]
    if r.end_line is not None:
        props.append(f"endLine={r.end_line}")
        if r.end_line == r.line and r.end_column is not None:
            props.append(f"endColumn={r.end_column}")
    props.append(f"title={_escape_property('sparkfold ' + r.code)}")
    fix = f" ({r.fix.safety} fix: {r.fix.title})" if r.fix is not None else ""
    return f"::{_GITHUB_LEVEL[r.severity]} {','.join(props)}::{_escape_data(r.message + fix)}"


_SARIF_LEVEL = {ERROR: "error", WARNING: "warning", INFO: "note"}


def sarif(records: list[Record], version: str) -> dict:
    """A SARIF 2.1.0 log with one run; rule ids are the finding codes."""
    codes = sorted({r.code for r in records})
    index = {c: i for i, c in enumerate(codes)}
    results = []
    for r in records:
        region = {"startLine": r.line, "startColumn": r.column}
        if r.end_line is not None and r.end_column is not None:
            region["endLine"] = r.end_line
            region["endColumn"] = r.end_column + 1  # SARIF's end column is exclusive
        result: dict[str, Any] = {
            "ruleId": r.code,
            "ruleIndex": index[r.code],
            "level": _SARIF_LEVEL[r.severity],
            "message": {"text": r.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(r.file)},
                "region": region,
            }}],
        }
        if r.snippet:
            result["locations"][0]["physicalLocation"]["region"]["snippet"] = {"text": r.snippet}
        if r.fix is not None:
            result["fixes"] = [{
                "description": {"text": r.fix.title},
                "artifactChanges": [{
                    "artifactLocation": {"uri": _uri(r.file)},
                    "replacements": [{
                        "deletedRegion": {"startLine": r.fix.line, "startColumn": r.fix.column,
                                          "endLine": r.fix.end_line, "endColumn": r.fix.end_column},
                        "insertedContent": {"text": r.fix.text},
                    }],
                }],
                "properties": {"safety": r.fix.safety},
            }]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "sparkfold",
                "version": version,
                "rules": [{"id": c, "name": c, "shortDescription": {"text": _RULE_TEXT.get(c, c)}}
                          for c in codes],
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def _uri(name: str) -> str:
    """A relative path as SARIF wants it (forward slashes, no `./`)."""
    uri = name.replace("\\", "/")
    return uri[2:] if uri.startswith("./") else uri


_RULE_TEXT = {
    "null-comparison": "A comparison with NULL is NULL, never TRUE",
    "not-in-null": "NOT IN a list with a NULL is never TRUE",
    "not-in-nullable-subquery": "NOT IN a subquery that may return NULL",
    "never-true": "A condition that is never TRUE",
    "always-true": "A condition that is always TRUE",
    "unreachable-branch": "A CASE / IF branch that is never taken",
    "count-never-null": "count(x) of a never-NULL x is count(*)",
    "outer-join-not-outer": "An outer join that a filter makes inner",
    "always-raises": "An expression that raises an error under ANSI mode whenever it is evaluated",
    INPUT_ERROR: "A statement that could not be analyzed",
}
