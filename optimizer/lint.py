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

import json
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

    def text(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.message} [{self.code}]"


def lint_sources(sources: Iterable[Source], catalog, exclude=()) -> Iterator[Record]:
    """The records of every statement of every source, in order."""
    from .hooks import rewrite

    for source in sources:
        for st in statements(source):  # an empty or comment-only file has nothing to lint
            if st.opted_out:
                continue
            try:
                _, result = rewrite(st.text, catalog, exclude=exclude)
            except SparkfoldError as e:
                yield _input_error(st, e)
                continue
            for f in getattr(result, "findings", None) or ():
                line, col = position(st, f.line, f.column)
                end_line = end_col = None
                if f.end_line is not None and f.end_column is not None:
                    end_line, end_col = position(st, f.end_line, f.end_column)
                yield Record(st.source.name, line, col, f.severity, f.code, f.message, end_line, end_col,
                             f.snippet, f.suggestion)


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
    if fmt == "text":  # (an error's source line and a caret under it follow it, as compilers print)
        return "".join("\n".join([r.text(), *(caret_lines(r.snippet, r.column) if r.code == INPUT_ERROR else ())])
                       + "\n" for r in records)
    if fmt == "jsonl":
        return "".join(json.dumps(as_dict(r)) + "\n" for r in records)
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
    return f"::{_GITHUB_LEVEL[r.severity]} {','.join(props)}::{_escape_data(r.message)}"


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
