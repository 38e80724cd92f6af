"""The HTML a notebook shows for an optimized query: `OptimizeResult._repr_html_`, and the
`%%sparkfold` cell magic's report (optimizer/notebook.py).

The same content as the explain page (`explain --format html`, optimizer/explain_html.py),
read from the same explain JSON (`explain.explain_dict`), drawn as a fragment a notebook
can hold: the source with each finding marked where it is, the findings, the SQL as
written against the optimized SQL (a line diff), every rule step and both plans (folded).

Drawn here, in Python, not by a script: a notebook shows an output's script only when it
trusts the notebook (JupyterLab runs none in a notebook it did not execute itself, and
GitHub's viewer none at all), and several outputs share one page, so a page's element
ids would collide.  No script, no fetch (fonts, stylesheets, images): the fragment shows
wherever HTML shows, and where a viewer strips styles its text, marks and lists remain.
Its style is scoped to its own root element, and sets its own colours, so that it neither
restyles the notebook nor vanishes in a dark theme.
"""

from __future__ import annotations

import difflib
import html
import re
from typing import Any, Iterable

from .explain import Where

ROOT = "sparkfold-nb"  # the class of the fragment's root element, the scope of its style

_STYLE = """
.sparkfold-nb { --sf-fg: #1d2330; --sf-muted: #667085; --sf-line: #d0d5dd; --sf-add: #e7f6ec;
  --sf-add-fg: #05603a; --sf-del: #fdecea; --sf-del-fg: #b42318; --sf-mark: #fff3c4;
  --sf-accent: #3538cd; --sf-code-bg: #f8f9fb;
  color: var(--sf-fg); background: #fff; font: 13px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  border: 1px solid var(--sf-line); border-radius: 6px; padding: 6px 12px 10px; margin: 2px 0;
  max-width: 100%; overflow-x: auto; text-align: left; }
.sparkfold-nb section + section { border-top: 1px solid var(--sf-line); margin-top: 8px; padding-top: 4px; }
.sparkfold-nb .sf-head { margin: 4px 0 6px; }
.sparkfold-nb .sf-name { font-weight: 600; }
.sparkfold-nb .sf-where { color: var(--sf-muted); margin-left: 6px; }
.sparkfold-nb .sf-badge { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px;
  background: #eef4ff; color: var(--sf-accent); margin-left: 6px; }
.sparkfold-nb .sf-badge.sf-same { background: #f2f4f7; color: var(--sf-muted); }
.sparkfold-nb .sf-badge.sf-pass { background: #fffaeb; color: #b54708; }
.sparkfold-nb .sf-badge.sf-error { background: var(--sf-del); color: var(--sf-del-fg); }
.sparkfold-nb .sf-note { color: var(--sf-muted); margin-left: 8px; }
.sparkfold-nb h4 { font-size: 12px; margin: 10px 0 4px; color: var(--sf-muted); text-transform: uppercase;
  letter-spacing: .04em; font-weight: 600; }
.sparkfold-nb pre { font: 12.5px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; margin: 0;
  padding: 6px 10px; background: var(--sf-code-bg); border: 1px solid var(--sf-line); border-radius: 4px;
  white-space: pre; overflow-x: auto; color: var(--sf-fg); }
.sparkfold-nb .sf-src { display: flex; border: 1px solid var(--sf-line); border-radius: 4px;
  background: var(--sf-code-bg); overflow-x: auto; }
.sparkfold-nb .sf-src pre { border: 0; border-radius: 0; background: transparent; overflow: visible; }
.sparkfold-nb .sf-src pre.sf-gutter { color: var(--sf-muted); text-align: right; user-select: none;
  border-right: 1px solid var(--sf-line); padding-right: 8px; }
.sparkfold-nb mark.sf-finding { background: var(--sf-mark); color: inherit; border-bottom: 2px solid #f79009;
  padding: 0; }
.sparkfold-nb mark.sf-finding.sf-error { border-bottom-color: var(--sf-del-fg); }
.sparkfold-nb mark.sf-finding.sf-info { border-bottom-color: var(--sf-accent); }
.sparkfold-nb ul.sf-findings { margin: 6px 0; padding-left: 18px; }
.sparkfold-nb ul.sf-findings li { margin: 2px 0; }
.sparkfold-nb code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.sparkfold-nb .sf-sev-error { color: var(--sf-del-fg); font-weight: 600; }
.sparkfold-nb .sf-sev-warning { color: #b54708; font-weight: 600; }
.sparkfold-nb .sf-sev-info { color: var(--sf-accent); font-weight: 600; }
.sparkfold-nb .sf-fix { color: var(--sf-muted); }
.sparkfold-nb .sf-diff .sf-line { display: block; }
.sparkfold-nb .sf-diff .sf-add { background: var(--sf-add); color: var(--sf-add-fg); }
.sparkfold-nb .sf-diff .sf-del { background: var(--sf-del); color: var(--sf-del-fg); }
.sparkfold-nb .sf-diff .sf-add .sf-hl { background: #b7e4c7; }
.sparkfold-nb .sf-diff .sf-del .sf-hl { background: #f9c0bb; text-decoration: line-through; }
.sparkfold-nb mark.sf-finding mark.sf-finding { background: #ffe08a; }
.sparkfold-nb details { margin: 6px 0; }
.sparkfold-nb details > summary { cursor: pointer; color: var(--sf-muted); }
.sparkfold-nb .sf-step { margin: 4px 0 8px 14px; }
.sparkfold-nb .sf-step .sf-rule { font-weight: 600; }
.sparkfold-nb .sf-plans { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 10px; }
.sparkfold-nb .sf-message { color: var(--sf-del-fg); font-weight: 600; margin: 4px 0; white-space: pre-wrap; }
.sparkfold-nb .sf-detail { color: var(--sf-muted); margin: 2px 0 6px; white-space: pre-wrap; }
"""

_SEVERITIES = ("error", "warning", "info")


def fragment(sections: Iterable[str]) -> str:
    """The notebook output: the style and the sections, in one root element."""
    return f'<div class="{ROOT}"><style>{_STYLE}</style>{"".join(sections)}</div>'


def result_html(result) -> str:
    """`OptimizeResult._repr_html_`: one result's section, as a notebook output."""
    from .explain import explain_dict

    return fragment([section(explain_dict(result))])


def section(d: dict, where: Where | None = None, note: str | None = None, error: str | None = None) -> str:
    """One statement, from its explain dict `d`: a head line (what happened, and `note`),
    the source with its findings marked, the findings, the rewrites.  `where` places the
    statement in its cell (findings say `cell:line:column`); `error`: the statement ran
    into it after the optimization (Spark's error: shown in the head, the rest as usual)."""
    findings = d.get("findings") or []
    rewrites = d.get("rewrites") or []
    changed = bool(d.get("changed")) and d.get("sql") != d.get("original_sql")
    badges = []
    if d.get("passthrough"):
        badges.append(_badge(f"passed through: {d['passthrough']}", "sf-pass"))
    elif changed:
        badges.append(_badge(_count(len(rewrites), "rewrite")))
    else:
        badges.append(_badge("unchanged", "sf-same"))
    badges.append(_badge(_count(len(findings), "finding"), "" if findings else "sf-same"))
    parts = [_head(where, badges, note)]
    if error is not None:
        parts.append(f'<p class="sf-message">{html.escape(error)}</p>')
    if not findings and not changed:
        return "<section>" + "".join(parts) + "</section>"
    parts.append(_source(d.get("original_sql") or "", findings, where))
    if findings:
        parts.append(_findings(findings, where))
    if changed:
        parts.append("<h4>Rewrites: the query as written (&minus;) and optimized (+)</h4>")
        parts.append(_sql_diff(d.get("original_sql") or "", d.get("sql") or ""))
        parts.append(_steps(rewrites))
        plans = d.get("plans") or {}
        if plans.get("analyzed"):
            parts.append("<details><summary>Plans: analyzed | optimized</summary><div class=\"sf-plans\">"
                         f"<pre>{html.escape(plans['analyzed'])}</pre>"
                         f"<pre>{html.escape(plans.get('optimized') or '')}</pre></div></details>")
    return "<section>" + "".join(parts) + "</section>"


def error_section(sql: str, message: str, line: int | None, column: int | None, where: Where | None = None,
                  note: str | None = None, detail: str | None = None) -> str:
    """A statement that could not be run: its error (and `detail`: Spark's), and its
    source with the word at the error's place marked."""
    parts = [_head(where, [_badge("error", "sf-error")], note), f'<p class="sf-message">{html.escape(message)}</p>']
    if detail:
        parts.append(f'<p class="sf-detail">{html.escape(detail)}</p>')
    if sql.strip():
        spot = [] if line is None else [_error_spot(sql, line, column or 1, message)]
        parts.append(_source(sql, spot, where))
    return "<section>" + "".join(parts) + "</section>"


_TOKEN = re.compile(r"[\w.`]+|\S")


def _error_spot(sql: str, line: int, column: int, message: str) -> dict:
    """The error as a finding over the word (or the character) at its place."""
    lines = sql.split("\n")
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    word = _TOKEN.match(text, column - 1)
    end = column + len(word.group(0)) - 1 if word else column
    return {"line": line, "column": column, "end_line": line, "end_column": end, "severity": "error",
            "code": "error", "message": message}


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' * (n != 1)}"


def _badge(text: str, cls: str = "") -> str:
    return f'<span class="sf-badge {cls}">{html.escape(text)}</span>'


def _head(where: Where | None, badges: list[str], note: str | None) -> str:
    place = f'<span class="sf-where">{html.escape(where.name)}:{where.line}</span>' if where else ""
    tail = f'<span class="sf-note">{html.escape(note)}</span>' if note else ""
    return f'<div class="sf-head"><span class="sf-name">sparkfold</span>{place}{"".join(badges)}{tail}</div>'


def _position(where: Where | None, f: dict) -> str:
    if not f.get("line"):
        return ""
    if where is None:
        return f"{f['line']}:{f.get('column') or 1}"
    line, column = where.position(f["line"], f.get("column") or 1)
    return f"{where.name}:{line}:{column}"


def _findings(findings: list[dict], where: Where | None) -> str:
    items = []
    for f in findings:
        sev = f.get("severity") if f.get("severity") in _SEVERITIES else "warning"
        fix = f' <span class="sf-fix">&mdash; {html.escape(f["suggestion"])}</span>' if f.get("suggestion") else ""
        items.append(f'<li><span class="sf-sev-{sev}">{sev}</span> {html.escape(_position(where, f))} '
                     f'{html.escape(f.get("message") or "")} <code>[{html.escape(f.get("code") or "")}]</code>{fix}'
                     f"</li>")
    return '<ul class="sf-findings">' + "".join(items) + "</ul>"


def _spans(sql: str, findings: list[dict]) -> list[tuple[int, int, dict]]:
    """Each finding's [start, end) in `sql`, outermost first where two start together."""
    starts = [0]
    for line in sql.split("\n"):
        starts.append(starts[-1] + len(line) + 1)

    def offset(line: int, column: int) -> int:
        return min(len(sql), starts[min(line, len(starts) - 1) - 1] + column - 1)

    out = []
    for f in findings:
        if not f.get("line"):
            continue
        a = offset(f["line"], f.get("column") or 1)
        b = offset(f["end_line"], f.get("end_column") or 1) + 1 if f.get("end_line") else a + 1
        out.append((a, max(b, a + 1), f))
    return sorted(out, key=lambda s: (s[0], -s[1]))


def _marked(text: str, a: int, b: int, spans: list[tuple[int, int, dict]]) -> str:
    """text[a:b], escaped, each finding inside it marked (a finding inside another's span
    inside that one's mark; one that only overlaps an earlier one is not marked)."""
    out, at = [], a
    for s in spans:
        if s[0] < at or s[1] > b:
            continue
        out.append(html.escape(text[at:s[0]]))
        f = s[2]
        sev = f.get("severity") if f.get("severity") in _SEVERITIES else "warning"
        title = html.escape(f"{f.get('code')}: {f.get('message')}", quote=True)
        inner = [t for t in spans if t is not s and t[0] >= s[0] and t[1] <= s[1]]
        out.append(f'<mark class="sf-finding sf-{sev}" title="{title}">{_marked(text, s[0], s[1], inner)}</mark>')
        at = s[1]
    out.append(html.escape(text[at:b]))
    return "".join(out)


def _source(sql: str, findings: list[dict], where: Where | None) -> str:
    first = where.line if where else 1
    numbers = "\n".join(str(first + i) for i in range(sql.count("\n") + 1))
    return (f'<div class="sf-src"><pre class="sf-gutter">{numbers}</pre>'
            f'<pre class="sf-source">{_marked(sql, 0, len(sql), _spans(sql, findings))}</pre></div>')


def _sql_diff(before: str, after: str) -> str:
    """The query as written (-) against the optimized one (+), line by line, the words
    that changed inside a changed line highlighted; a long unchanged run of a query of
    more than FULL_DIFF_LINES lines is cut to CONTEXT lines around the changes."""
    from .explain import CONTEXT, FULL_DIFF_LINES

    a, b = before.split("\n"), after.split("\n")
    short = len(a) <= FULL_DIFF_LINES and len(b) <= FULL_DIFF_LINES
    rows: list[tuple[str, str]] = []
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    for k, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag == "equal":
            same = [html.escape(line) for line in a[i1:i2]]
            if not short and len(same) > 2 * CONTEXT:
                same = (same[:CONTEXT] if k > 0 else []) + ["..."] + (same[-CONTEXT:] if k < len(ops) - 1 else [])
            rows += [(" ", line) for line in same]
        elif tag == "replace" and i2 - i1 == j2 - j1:
            pairs = [_words(x, y) for x, y in zip(a[i1:i2], b[j1:j2])]
            rows += [("-", x) for x, _ in pairs] + [("+", y) for _, y in pairs]
        else:
            rows += [("-", html.escape(line)) for line in a[i1:i2]] + [("+", html.escape(line)) for line in b[j1:j2]]
    cls = {"+": " sf-add", "-": " sf-del", " ": ""}
    return '<pre class="sf-diff">' + "".join(f'<span class="sf-line{cls[m]}">{m}{text}</span>'
                                                for m, text in rows) + "</pre>"


_WORD = re.compile(r"\w+|\s+|[^\w\s]")


def _words(x: str, y: str) -> tuple[str, str]:
    """Two versions of a line, escaped, with the words only one of them has highlighted
    (when the lines have enough in common for that to help)."""
    wx, wy = _WORD.findall(x), _WORD.findall(y)
    matcher = difflib.SequenceMatcher(None, wx, wy, autojunk=False)
    if matcher.ratio() < 0.3:
        return html.escape(x), html.escape(y)
    out_x: list[str] = []
    out_y: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for words, out, lo, hi in ((wx, out_x, i1, i2), (wy, out_y, j1, j2)):
            text = "".join(words[lo:hi])
            core = text.strip()
            if tag == "equal" or not core:
                out.append(html.escape(text))
            else:  # (the blanks around the changed words are not highlighted)
                lead, trail = text[:len(text) - len(text.lstrip())], text[len(text.rstrip()):]
                out.append(f'{lead}<span class="sf-hl">{html.escape(core)}</span>{trail}')
    return "".join(out_x), "".join(out_y)


def _diff_lines(lines: Iterable[str]) -> str:
    """Lines prefixed "-", "+" or " ", coloured."""
    spans = []
    for line in lines:
        cls = {"+": " sf-add", "-": " sf-del"}.get(line[:1], "")
        spans.append(f'<span class="sf-line{cls}">{html.escape(line)}</span>')
    return f'<pre class="sf-diff">{"".join(spans)}</pre>'


def _steps(rewrites: list[dict[str, Any]]) -> str:
    """Every rule step, folded: rule, batch, iteration, and the smallest expressions it
    changed (before -> after), or its plan diff when it changed no expression."""
    if not rewrites:
        return ""
    names = ", ".join(dict.fromkeys(r["rule"] for r in rewrites))
    body = []
    for r in rewrites:
        head = (f'<div class="sf-step"><span class="sf-rule">#{r["index"] + 1} {html.escape(r["rule"])}</span> '
                f'<span class="sf-note">{html.escape(r["batch"])}, iteration {r["iteration"]}</span>')
        changes = [c for p in r.get("places") or () for c in p.get("changes") or ()]
        if changes:
            text = "\n".join(f"{c['before']}  \u2192  {c['after']}" for c in changes)
            body.append(f"{head}<pre>{html.escape(text)}</pre></div>")
            continue
        body.append(head + _diff_lines(line for p in r.get("places") or () for line in p.get("diff") or ()) + "</div>")
    return (f"<details><summary>{_count(len(rewrites), 'rule step')}: {html.escape(names)}</summary>"
            f"{''.join(body)}</details>")
