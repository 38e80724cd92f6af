"""How fast `sparkfold lsp` answers an edit, on a generated file of 1,000 lines
(tests/test_editor.py's shapes: outer joins, `= NULL`, CASE, NOT IN; about 190 statements).

    python bench/lsp_bench.py              # 40 edits, in this process and over LSP
    python bench/lsp_bench.py --edits 200 --lines 5000

- in this process: `Editor.records` after an edit (one character typed in a statement
  picked at random): split the file again around the edit, analyze the changed statement,
  take the others from the cache, position every record;
- over LSP: pygls's client starts `python -m sparkfold lsp`, opens the file, then sends
  each edit as an incremental `didChange` and waits for the `publishDiagnostics` of it:
  what an editor sees, with the server's debounce (`debounceMs`, 50 by default) and with
  none.
Medians, 95th percentiles and maxima, in milliseconds.  Times are the machine's at hand.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SCHEMA = ROOT / "examples" / "schema.json"


def edits(text: str, n: int, seed: int = 39) -> list[tuple[int, str]]:
    """`n` edits, each typing one digit after a digit of the file (inside a statement)."""
    rng = random.Random(seed)
    digits = [i for i, c in enumerate(text) if c.isdigit()]
    return [(rng.choice(digits) + 1, str(rng.randint(0, 9))) for _ in range(n)]


def stats(ms: list[float]) -> dict:
    s = sorted(ms)
    return {"median": statistics.median(s), "p95": s[min(len(s) - 1, round(0.95 * (len(s) - 1)))], "max": s[-1],
            "n": len(s)}


def in_process(text: str, n: int) -> dict:
    from sparkfold.optimizer.editor import Editor
    from sparkfold.optimizer.sources import load_catalog

    editor = Editor(load_catalog((SCHEMA,)))
    t0 = time.perf_counter()
    editor.records("f.sql", text)
    cold = (time.perf_counter() - t0) * 1000
    times = []
    for at, char in edits(text, n):
        text = text[:at] + char + text[at:]
        t0 = time.perf_counter()
        editor.records("f.sql", text)
        times.append((time.perf_counter() - t0) * 1000)
    return {"open_ms": cold, "edit_ms": stats(times)}


async def over_lsp(text: str, n: int, debounce_ms: int) -> dict:
    from lsprotocol import types as T
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("sparkfold-bench", "1")
    published: dict[int | None, float] = {}

    @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params: T.PublishDiagnosticsParams):
        published[params.version] = time.perf_counter()

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "schema.json").write_text(SCHEMA.read_text())
        uri = (root / "f.sql").as_uri()
        await client.start_io(sys.executable, "-m", "sparkfold", "lsp", cwd=str(ROOT))
        await client.initialize_async(T.InitializeParams(
            capabilities=T.ClientCapabilities(), root_uri=root.as_uri(),
            initialization_options={"schema": ["schema.json"], "debounceMs": debounce_ms}))
        client.initialized(T.InitializedParams())

        async def answer(version: int, since: float) -> float:
            while version not in published:
                await asyncio.sleep(0.0005)
            return (published[version] - since) * 1000

        t0 = time.perf_counter()
        client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri, "sql", 1, text)))
        cold = await answer(1, t0)
        lines = text.split("\n")
        times = []
        for version, (at, char) in enumerate(edits(text, n), start=2):
            line = text.count("\n", 0, at)
            column = at - (text.rfind("\n", 0, at) + 1)  # (ASCII: UTF-16 units are characters)
            text = text[:at] + char + text[at:]
            where = T.Range(T.Position(line, column), T.Position(line, column))
            t0 = time.perf_counter()
            client.text_document_did_change(T.DidChangeTextDocumentParams(
                T.VersionedTextDocumentIdentifier(version, uri),
                [T.TextDocumentContentChangePartial(where, char)]))
            times.append(await answer(version, t0))
        del lines
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    return {"open_ms": cold, "edit_ms": stats(times), "debounce_ms": debounce_ms}


def main(argv=None) -> int:
    from tests.test_editor import generated

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=1000)
    ap.add_argument("--edits", type=int, default=40)
    ap.add_argument("--json", metavar="FILE", help="also write the numbers as JSON")
    args = ap.parse_args(argv)
    text = generated(args.lines)
    report = {"lines": text.count("\n"), "statements": text.count(";\n"), "load": os.getloadavg()[0]}
    report["in_process"] = in_process(text, args.edits)
    report["lsp"] = asyncio.run(over_lsp(text, args.edits, 50))
    report["lsp_no_debounce"] = asyncio.run(over_lsp(text, args.edits, 0))
    print(f"{report['lines']} lines, {report['statements']} statements (load average {report['load']:.1f})")
    for key, title in (("in_process", "Editor.records after an edit (in process)"),
                       ("lsp", "didChange -> publishDiagnostics, debounce 50 ms"),
                       ("lsp_no_debounce", "didChange -> publishDiagnostics, no debounce")):
        r = report[key]
        e = r["edit_ms"]
        print(f"{title}: median {e['median']:.1f} ms, p95 {e['p95']:.1f} ms, max {e['max']:.1f} ms "
              f"({e['n']} edits); the first analysis of the file {r['open_ms']:.0f} ms")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
