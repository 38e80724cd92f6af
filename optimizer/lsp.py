"""`sparkfold lsp`: a language server for Spark SQL files (LSP over standard input and
output, with pygls: the `lsp` extra).

- Diagnostics: `sparkfold lint`'s records of every statement of an open `.sql` file, on
  open, on save, and on each change after `debounceMs` without one; severity error,
  warning, info as LSP's Error, Warning, Information, the rule's code as `code`, source
  `sparkfold`, the range the flagged expression's text (an error's: its one character).
  A statement that does not parse is a diagnostic at the syntax error; the others are
  still linted.
- Hover: on a statement, its optimized SQL and the rewrites, in Markdown.
- Code actions: each finding's fix that checks (`sparkfold lint --fix`'s); a safe fix is a
  preferred `quickfix`, an unsafe fix a `quickfix` whose title says it changes the
  results; `source.fixAll.sparkfold` applies every safe fix of the file.
- Settings and schemas: optimizer/lsp_settings.py.

The analysis is optimizer/editor.py's: each statement's text is analyzed once and cached,
so an edit re-analyzes the statements it changed.  Positions go out in the encoding the
client and pygls agreed on (UTF-16 code units unless the client offers another).
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any, Callable

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import ServerTextPosition

from ..plans.ir.errors import SparkfoldError
from .editor import Editor, Offsets, common_prefix, common_suffix, hover_markdown
from .lint import Record
from .lsp_settings import Settings, load, settings_from
from .severities import ERROR, INFO, WARNING

log = logging.getLogger("sparkfold.lsp")

SEVERITY = {ERROR: T.DiagnosticSeverity.Error, WARNING: T.DiagnosticSeverity.Warning,
            INFO: T.DiagnosticSeverity.Information}
FIX_ALL = "source.fixAll.sparkfold"
UNSAFE_NOTE = "unsafe fix, changes the query's results"
SLICE = 0.05  # seconds of analysis between two looks at the client's messages


def _templated(text: str) -> bool:
    """Is the text a Jinja template (dbt's models before they are compiled)?"""
    return "{{" in text or "{%" in text


def guarded(fn: Callable) -> Callable:
    """A handler that never fails the server or shows the client a traceback: a bug is
    logged (stderr, the editor's server log) and said in one line; the answer is None."""
    import functools

    @functools.wraps(fn)
    def run(server, *args):
        try:
            return fn(server, *args)
        except Exception as e:
            log.exception("sparkfold: internal error in %s", fn.__name__)
            server.tell(T.MessageType.Error, f"sparkfold: internal error ({type(e).__name__}: {e}); "
                                             f"this is a bug in sparkfold, please report it")
            return None
    return run


class SparkfoldServer(LanguageServer):
    def __init__(self) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            mine = version("sparkfold")
        except PackageNotFoundError:  # (a source tree never installed)
            mine = "unknown"
        super().__init__("sparkfold", mine)
        self.settings = Settings()
        self.editor: Editor | None = None
        self.root: Path | None = None
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._tasks: dict[str, asyncio.Future] = {}

    # -- configuration ---------------------------------------------------------------

    def configure(self, options: Any) -> None:
        """New settings: load the schemas again; on a bad setting, say so and keep no schema."""
        try:
            self.settings = settings_from(options) if options is not None else self.settings
            project = load(self.root, self.settings)
        except SparkfoldError as e:
            self.tell(T.MessageType.Error, f"sparkfold: {e.message}")
            project = load(None, Settings())
        log.info("sparkfold: analyzing with %s", project.described)
        self.editor = Editor(project.catalog, project.exclude, project.schema_hint)

    def tell(self, kind: T.MessageType, message: str) -> None:
        self.window_show_message(T.ShowMessageParams(kind, message))

    # -- diagnostics -----------------------------------------------------------------

    def later(self, uri: str) -> None:
        """Analyze the file when no change came for `debounceMs`."""
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        loop = asyncio.get_running_loop()
        self._timers[uri] = loop.call_later(self.settings.debounce_ms / 1000, self.start, uri)

    def start(self, uri: str) -> None:
        """Analyze the file and publish its diagnostics, in a task that a newer change of
        the file cancels."""
        self._timers.pop(uri, None)
        task = self._tasks.pop(uri, None)
        if task is not None:
            task.cancel()
        self._tasks[uri] = asyncio.ensure_future(self.analyze(uri))

    async def analyze(self, uri: str) -> None:
        """The statements not analyzed yet first, a few at a time: between them the server
        answers (a hover, a code action), and takes the next change, which cancels this.
        (Opening a 1,000-line file analyzes 210 statements: some 2.5 s.)"""
        doc = self.workspace.get_text_document(uri)
        if self.editor is not None and _is_sql(doc) and not _templated(doc.source):
            since = time.perf_counter()
            for sql in self.editor.pending(_name(doc), doc.source):
                self.editor.analyze(sql)
                if time.perf_counter() - since > SLICE:
                    await asyncio.sleep(0)
                    since = time.perf_counter()
        self._tasks.pop(uri, None)
        self.publish(uri)

    @guarded
    def publish(self, uri: str) -> None:
        doc = self.workspace.get_text_document(uri)
        if not _is_sql(doc) or self.editor is None:
            return
        text = doc.source
        if _templated(text):  # a dbt model's Jinja: `sparkfold dbt` lints it compiled
            self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri, [], doc.version))
            return
        records = self.editor.records(_name(doc), text)
        codec = Positions(doc, text)
        diagnostics = [diagnostic(r, text, codec) for r in records]
        self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri, diagnostics, doc.version))

    def closed(self, uri: str) -> None:
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        task = self._tasks.pop(uri, None)
        if task is not None:
            task.cancel()
        if self.editor is not None:
            self.editor.forget(_name_of(uri))
        self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri, []))


def _is_sql(doc: TextDocument) -> bool:
    return doc.language_id in (None, "", "sql", "sparksql", "spark-sql") or doc.uri.lower().endswith(".sql")


def _name_of(uri: str) -> str:
    return to_fs_path(uri) or uri


def _name(doc: TextDocument) -> str:
    return _name_of(doc.uri)


class Positions:
    """Offsets in a document's text as LSP positions in the client's encoding."""

    def __init__(self, doc: TextDocument, text: str):
        self.doc = doc
        self.offsets = Offsets(text)  # (records' lines and columns as offsets)
        self.lines = doc.lines
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def position(self, offset: int) -> T.Position:
        import bisect

        if offset >= self.starts[-1]:  # the end of the text: after its last line end, or on its last line
            if not self.lines or self.lines[-1].endswith(("\n", "\r")):
                return T.Position(len(self.lines), 0)
            offset = self.starts[-1]
            row = len(self.lines) - 1
        else:
            row = max(0, bisect.bisect_right(self.starts, offset) - 1)
        server = ServerTextPosition(row, offset - self.starts[row])
        return self.doc.position_codec.position_to_client_units(self.lines, server)

    def range(self, start: int, end: int) -> T.Range:
        return T.Range(self.position(start), self.position(end))

    def offset(self, position: T.Position) -> int:
        return self.doc.offset_at_position(position)


def diagnostic(r: Record, text: str, codec: Positions) -> T.Diagnostic:
    start, end = codec.offsets.span(r)
    return T.Diagnostic(codec.range(start, end), r.message, severity=SEVERITY.get(r.severity, T.DiagnosticSeverity.Information), code=r.code,
                        source="sparkfold")


@guarded
def code_actions(server: SparkfoldServer, params: T.CodeActionParams) -> list[T.CodeAction]:
    doc = server.workspace.get_text_document(params.text_document.uri)
    if not _is_sql(doc) or server.editor is None:
        return []
    text = doc.source
    codec = Positions(doc, text)
    only = params.context.only
    out: list[T.CodeAction] = []
    if _wanted(T.CodeActionKind.QuickFix.value, only):
        start, end = codec.offset(params.range.start), codec.offset(params.range.end)
        for r in server.editor.fixes(_name(doc), text, start, end):
            out.append(_quickfix(doc.uri, r, text, codec))
    if only is not None and _wanted(FIX_ALL, only):  # (asked for by name: on save, say)
        action = _fix_all(server, doc, text, codec)
        if action is not None:
            out.append(action)
    return out


def _wanted(kind: str, only) -> bool:
    """Is an action of `kind` among the kinds asked for (a kind covers those under it)?"""
    names = [getattr(k, "value", k) for k in only] if only is not None else None
    return names is None or any(kind == k or kind.startswith(f"{k}.") for k in names)


def _quickfix(uri: str, r: Record, text: str, codec: Positions) -> T.CodeAction:
    assert r.fix is not None
    a, b = codec.offsets.edit(r.fix)
    safe = r.fix.safety == "safe"
    title = f"sparkfold: {r.fix.title}" + ("" if safe else f" ({UNSAFE_NOTE})")
    edit = T.WorkspaceEdit(changes={uri: [T.TextEdit(codec.range(a, b), r.fix.text)]})
    return T.CodeAction(title, kind=T.CodeActionKind.QuickFix, diagnostics=[diagnostic(r, text, codec)],
                        edit=edit, is_preferred=safe)


def _fix_all(server: SparkfoldServer, doc: TextDocument, text: str, codec: Positions) -> T.CodeAction | None:
    """Every safe fix of the file, as one edit of the statements they change."""
    from .lint import fix_sources
    from .sources import Source

    editor = server.editor
    assert editor is not None
    fixed = fix_sources([Source(_name(doc), text)], editor.catalog, editor.exclude)[0]
    if fixed.text == text:
        return None
    a = common_prefix(text, fixed.text)
    z = common_suffix(text, fixed.text, min(len(text), len(fixed.text)) - a)
    edit = T.TextEdit(codec.range(a, len(text) - z), fixed.text[a:len(fixed.text) - z])
    return T.CodeAction(f"sparkfold: apply the {fixed.fixes} safe fix{'es' if fixed.fixes != 1 else ''}",
                        kind=FIX_ALL, edit=T.WorkspaceEdit(changes={doc.uri: [edit]}))


@guarded
def hover(server: SparkfoldServer, params: T.HoverParams) -> T.Hover | None:
    doc = server.workspace.get_text_document(params.text_document.uri)
    if not _is_sql(doc) or server.editor is None:
        return None
    text = doc.source
    codec = Positions(doc, text)
    offset = codec.offset(params.position)
    markdown = server.editor.hover(_name(doc), text, offset)
    st = server.editor.statement_at(_name(doc), text, offset)
    if markdown is None or st is None:
        return None
    return T.Hover(T.MarkupContent(T.MarkupKind.Markdown, markdown), codec.range(st.start, st.end))


def build() -> SparkfoldServer:
    server = SparkfoldServer()

    @server.feature(T.INITIALIZE)
    def initialize(ls: SparkfoldServer, params: T.InitializeParams) -> None:
        folders = params.workspace_folders or []
        root = params.root_uri or (folders[0].uri if folders else None)
        path = to_fs_path(root) if root else params.root_path
        ls.root = Path(path) if path else None
        ls.configure(params.initialization_options or {})

    @server.feature(T.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def changed_configuration(ls: SparkfoldServer, params: T.DidChangeConfigurationParams) -> None:
        if isinstance(params.settings, dict) and params.settings:
            ls.configure(params.settings)
            for uri in list(ls.workspace.text_documents):
                ls.start(uri)

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: SparkfoldServer, params: T.DidOpenTextDocumentParams) -> None:
        ls.start(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: SparkfoldServer, params: T.DidChangeTextDocumentParams) -> None:
        ls.later(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: SparkfoldServer, params: T.DidSaveTextDocumentParams) -> None:
        ls.start(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: SparkfoldServer, params: T.DidCloseTextDocumentParams) -> None:
        ls.closed(params.text_document.uri)

    server.feature(T.TEXT_DOCUMENT_HOVER)(hover)
    server.feature(T.TEXT_DOCUMENT_CODE_ACTION, T.CodeActionOptions(
        code_action_kinds=[T.CodeActionKind.QuickFix, T.CodeActionKind.SourceFixAll]))(code_actions)
    return server


def serve() -> None:
    """Serve on standard input and output until the client says exit."""
    build().start_io()


__all__ = ["SparkfoldServer", "build", "serve", "hover_markdown"]
