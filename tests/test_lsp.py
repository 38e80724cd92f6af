"""`sparkfold lsp` end to end: pygls's own language client starts `python -m sparkfold
lsp` as a subprocess and speaks LSP to it over standard input and output, as an editor
does (the schema from a JSON file, no Spark).  Neovim's built-in client drives it too, in
tests/test_lsp_neovim.py; the analysis itself is tested in tests/test_editor.py."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the lsp extra (pip install -e '.[test]' installs it)")

from lsprotocol import types as T  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = {**json.loads((ROOT / "examples" / "schema.json").read_text()),  # (the tables of test_editor.generated)
          "t": {"num": "int not null", "s": "string"}, "u": {"id": "bigint not null", "name": "string"}}
TIMEOUT = 60  # seconds for one answer (the server's first analysis imports the optimizer)


class Session:
    """A language client connected to `sparkfold lsp`, in a workspace folder; the
    diagnostics the server published, by document."""

    def __init__(self, root: Path, options: dict | None):
        self.root = root
        self.options = options
        self.client = LanguageClient("sparkfold-tests", "1")
        self.diagnostics: dict[str, list[T.Diagnostic]] = {}
        self.count: dict[str, int] = {}  # publications, by document
        self.messages: list[str] = []

        @self.client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def diagnostics(params: T.PublishDiagnosticsParams):
            self.diagnostics[params.uri] = list(params.diagnostics)
            self.count[params.uri] = self.count.get(params.uri, 0) + 1

        @self.client.feature(T.WINDOW_SHOW_MESSAGE)
        def message(params: T.ShowMessageParams):
            self.messages.append(params.message)

    async def __aenter__(self) -> "Session":
        await self.client.start_io(sys.executable, "-m", "sparkfold", "lsp", cwd=str(ROOT))
        await asyncio.wait_for(self.client.initialize_async(T.InitializeParams(
            capabilities=T.ClientCapabilities(), root_uri=self.root.as_uri(),
            initialization_options=self.options)), TIMEOUT)
        self.client.initialized(T.InitializedParams())
        return self

    async def __aexit__(self, *exc) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), TIMEOUT)
            self.client.exit(None)
        finally:
            await self.client.stop()

    def uri(self, name: str) -> str:
        return (self.root / name).as_uri()

    async def open(self, name: str, text: str) -> list[T.Diagnostic]:
        seen = self.count.get(self.uri(name), 0)
        self.client.text_document_did_open(T.DidOpenTextDocumentParams(
            T.TextDocumentItem(self.uri(name), "sql", 1, text)))
        return await self.wait(name, seen)

    async def change(self, name: str, version: int, text: str) -> list[T.Diagnostic]:
        seen = self.count.get(self.uri(name), 0)
        self.client.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(version, self.uri(name)),
            [T.TextDocumentContentChangeWholeDocument(text)]))
        return await self.wait(name, seen)

    async def configure(self, settings: dict) -> None:
        self.client.workspace_did_change_configuration(T.DidChangeConfigurationParams({"sparkfold": settings}))

    async def wait(self, name: str, seen: int) -> list[T.Diagnostic]:
        """The diagnostics of the first publication after the `seen`-th."""
        async def published():
            while self.count.get(self.uri(name), 0) <= seen:
                await asyncio.sleep(0.005)
        await asyncio.wait_for(published(), TIMEOUT)
        return self.diagnostics[self.uri(name)]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One server for the file's tests (each starts ~2 s of imports), in a workspace with
    a schema.json; `run(coroutine_function)` runs a test's conversation with it."""
    root = tmp_path_factory.mktemp("workspace")
    (root / "schema.json").write_text(json.dumps(SCHEMA))
    loop = asyncio.new_event_loop()
    session = Session(root, {"schema": ["schema.json"]})
    loop.run_until_complete(session.__aenter__())
    try:
        yield lambda go: loop.run_until_complete(go(session))
    finally:
        loop.run_until_complete(session.__aexit__())
        loop.close()


def apply(text: str, edits: list[T.TextEdit]) -> str:
    """The text with LSP edits applied (ASCII text: UTF-16 units are characters)."""
    lines = text.split("\n")

    def offset(p: T.Position) -> int:
        return sum(len(line) + 1 for line in lines[:p.line]) + p.character

    for e in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[:offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text


def test_null_comparison_diagnostic_code_action_and_hover(server):
    text = "-- the rows without a number\nSELECT s FROM t WHERE s = NULL;\nSELECT count(num) FROM t;\n"

    async def go(ls):
        found = await ls.open("q.sql", text)
        by_code = {d.code: d for d in found}
        assert set(by_code) == {"null-comparison", "never-true", "count-never-null"}
        d = by_code["null-comparison"]
        assert (d.source, d.severity) == ("sparkfold", T.DiagnosticSeverity.Warning)
        assert by_code["count-never-null"].severity == T.DiagnosticSeverity.Information
        # `s = NULL` on line 2 (0-based 1), columns 22 to 30
        assert d.range == T.Range(T.Position(1, 22), T.Position(1, 30))
        actions = await asyncio.wait_for(ls.client.text_document_code_action_async(T.CodeActionParams(
            T.TextDocumentIdentifier(ls.uri("q.sql")), d.range, T.CodeActionContext([d]))), TIMEOUT)
        titles = {a.title: a for a in actions}
        unsafe = titles["sparkfold: write `s IS NULL` (unsafe fix, changes the query's results)"]
        assert unsafe.kind == T.CodeActionKind.QuickFix and not unsafe.is_preferred
        fixed = apply(text, unsafe.edit.changes[ls.uri("q.sql")])
        assert fixed == text.replace("s = NULL", "s IS NULL")
        # the edited file analyzed again: the finding is gone
        after = await ls.change("q.sql", 2, fixed)
        assert {d.code for d in after} == {"count-never-null"}
        # hover on the second statement: its optimized SQL and the rewrite
        hover = await asyncio.wait_for(ls.client.text_document_hover_async(T.HoverParams(
            T.TextDocumentIdentifier(ls.uri("q.sql")), T.Position(2, 3))), TIMEOUT)
        assert hover.contents.kind == T.MarkupKind.Markdown
        assert hover.range == T.Range(T.Position(2, 0), T.Position(2, len("SELECT count(num) FROM t")))
        assert hover.contents.value == (
            "**sparkfold**: 1 rewrite (NullPropagation)\n\n"
            "```sql\nSELECT count(1) AS `count(num)` FROM t\n```\n\n"
            "- **NullPropagation** (Operator Optimization before Inferring Filters): `count(num#1)` → `count(1)`")
        # on the comment above the first statement: nothing
        assert await asyncio.wait_for(ls.client.text_document_hover_async(T.HoverParams(
            T.TextDocumentIdentifier(ls.uri("q.sql")), T.Position(0, 3))), TIMEOUT) is None

    server(go)


def test_safe_fix_is_a_preferred_quickfix_and_fix_all(server):
    text = "SELECT u.name\nFROM t LEFT JOIN u ON u.id = t.num\nWHERE u.name = 'x'\n"

    async def go(ls):
        found = await ls.open("j.sql", text)
        d = next(d for d in found if d.code == "outer-join-not-outer")
        actions = await asyncio.wait_for(ls.client.text_document_code_action_async(T.CodeActionParams(
            T.TextDocumentIdentifier(ls.uri("j.sql")), d.range, T.CodeActionContext([d]))), TIMEOUT)
        safe = [a for a in actions if a.is_preferred]
        assert [a.title for a in safe] == ["sparkfold: write JOIN"]
        assert apply(text, safe[0].edit.changes[ls.uri("j.sql")]) == text.replace("LEFT JOIN", "JOIN")
        whole = T.Range(T.Position(0, 0), T.Position(3, 0))
        actions = await asyncio.wait_for(ls.client.text_document_code_action_async(T.CodeActionParams(
            T.TextDocumentIdentifier(ls.uri("j.sql")), whole,
            T.CodeActionContext([], only=[T.CodeActionKind.SourceFixAll]))), TIMEOUT)
        assert [a.kind for a in actions] == ["source.fixAll.sparkfold"]
        assert apply(text, actions[0].edit.changes[ls.uri("j.sql")]) == text.replace("LEFT JOIN", "JOIN")

    server(go)


def test_syntax_error_is_a_diagnostic_at_its_position(server):
    text = "SELECT num FROM t WHERE num = NULL;\nSELECT num FROM t WHERE (num > 1;\n"

    async def go(ls):
        found = await ls.open("bad.sql", text)
        errors = [d for d in found if d.severity == T.DiagnosticSeverity.Error]
        assert len(errors) == 1 and errors[0].code == "input-error"
        assert errors[0].message.startswith("syntax error")
        assert errors[0].range.start.line == 1
        # the statement before it is still linted
        assert any(d.code == "null-comparison" and d.range.start.line == 0 for d in found)
        # a text that does not tokenize (an unclosed string) is a diagnostic too
        found = await ls.change("bad.sql", 2, "SELECT 'abc FROM t\n")
        assert [d.severity for d in found] == [T.DiagnosticSeverity.Error]
        assert ls.messages == []

    server(go)


def test_no_schema_says_how_to_configure_it(server):
    async def go(ls):
        await ls.configure({"schema": []})
        try:
            found = await ls.open("none.sql", "SELECT num FROM t")
            assert [d.severity for d in found] == [T.DiagnosticSeverity.Information]
            assert "no schema configured" in found[0].message
            found = await ls.open("lit.sql", "SELECT 1 WHERE 1 = NULL")
            assert "null-comparison" in {d.code for d in found}
        finally:
            await ls.configure({"schema": ["schema.json"]})

    server(go)


def test_a_bad_setting_is_shown_not_fatal(server):
    async def go(ls):
        await ls.configure({"schema": ["missing.json"]})
        try:
            found = await ls.open("missing.sql", "SELECT 1 WHERE 1 = NULL")
            assert "null-comparison" in {d.code for d in found}
            assert any("missing.json" in m for m in ls.messages)
        finally:
            await ls.configure({"schema": ["schema.json"]})
        found = await ls.open("again.sql", "SELECT num FROM t WHERE num = NULL")
        assert "null-comparison" in {d.code for d in found}

    server(go)


def test_a_dbt_model_before_compilation_gets_no_diagnostics(server):
    """Jinja is not SQL: a model's source is left alone (`sparkfold dbt` lints it compiled)."""
    async def go(ls):
        found = await ls.open("model.sql", "SELECT s FROM {{ ref('t') }} WHERE s = NULL\n")
        assert found == []

    server(go)


def test_positions_are_utf16_units_and_changes_are_incremental(server):
    """An emoji is two UTF-16 code units (the protocol's default encoding): the range after
    it on its line counts it as two; an incremental change is applied where it says."""
    text = "SELECT s FROM t WHERE s = '😀' OR s = NULL\n"

    async def go(ls):
        found = await ls.open("emoji.sql", text)
        d = next(d for d in found if d.code == "null-comparison")
        at = text.index("s = NULL")  # (one code point before it is two units)
        assert d.range == T.Range(T.Position(0, at + 1), T.Position(0, at + 1 + len("s = NULL")))
        seen = ls.count[ls.uri("emoji.sql")]
        ls.client.text_document_did_change(T.DidChangeTextDocumentParams(
            T.VersionedTextDocumentIdentifier(2, ls.uri("emoji.sql")),
            [T.TextDocumentContentChangePartial(T.Range(T.Position(0, at + 1 + 2), T.Position(0, at + 1 + 3)),
                                                "IS")]))
        assert [d.code for d in await ls.wait("emoji.sql", seen)] == []
        # Windows line ends: lines and columns as the editor counts them
        found = await ls.open("crlf.sql", "SELECT s\r\nFROM t\r\nWHERE s = NULL\r\n")
        d = next(d for d in found if d.code == "null-comparison")
        assert d.range == T.Range(T.Position(2, 6), T.Position(2, 14))

    server(go)


def test_changes_in_a_row_are_analyzed_once(server):
    """Debounced: five changes sent at once give one publication, of the last text."""
    async def go(ls):
        await ls.configure({"schema": ["schema.json"], "debounceMs": 1000})
        try:
            await ls.open("typing.sql", "SELECT num FROM t")
            seen = ls.count[ls.uri("typing.sql")]
            for version, text in enumerate(["SELECT num FROM t W", "SELECT num FROM t WHERE", "SELECT num FROM t "
                                            "WHERE num", "SELECT num FROM t WHERE num = NUL",
                                            "SELECT num FROM t WHERE num = NULL"], start=2):
                ls.client.text_document_did_change(T.DidChangeTextDocumentParams(
                    T.VersionedTextDocumentIdentifier(version, ls.uri("typing.sql")),
                    [T.TextDocumentContentChangeWholeDocument(text)]))
            found = await ls.wait("typing.sql", seen)
            await asyncio.sleep(0.2)
            assert ls.count[ls.uri("typing.sql")] == seen + 1
            assert "null-comparison" in {d.code for d in found}
        finally:
            await ls.configure({"schema": ["schema.json"]})

    server(go)


def test_without_pygls_the_command_says_what_to_install():
    probe = ("import sys\nsys.modules['pygls'] = None\nfrom sparkfold.optimizer.cli import main\n"
             "sys.exit(main(['lsp']))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr == "sparkfold: error: the language server needs pygls: pip install 'sparkfold[lsp]'\n"


def test_the_server_answers_while_it_analyzes_a_large_file(server):
    """Opening a file of 2,400 lines analyzes about 500 statements (over a second): a hover
    sent meanwhile is answered before the file's diagnostics are published, not after."""
    from tests.test_editor import generated

    text = generated(2400)  # (600 lines analyzed in under 0.3 s on a quiet machine: the hover came after)

    async def go(ls):
        uri = ls.uri("large.sql")
        ls.client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri, "sql", 1, text)))
        await asyncio.sleep(0.1)
        hover = await asyncio.wait_for(ls.client.text_document_hover_async(T.HoverParams(
            T.TextDocumentIdentifier(uri), T.Position(1, 3))), TIMEOUT)
        published_before_hover = ls.count.get(uri, 0)
        found = await ls.wait("large.sql", 0)
        assert hover is not None and published_before_hover == 0
        assert len(found) == len({(d.code, d.range.start.line, d.range.start.character) for d in found}) > 100

    server(go)
