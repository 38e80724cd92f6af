"""`sparkfold explain --format html`: one self-contained page, opened in a real browser.

The page is written by the CLI as a user would (`-o FILE`), then opened in headless
Chromium (Debian's package; .ci/run installs it): its script must draw every statement
(it sets `data-rendered` when done) without an error (a script error sets `data-errors`,
and Chromium logs console errors on stderr), and the drawn page must show what the
explain JSON says: the findings marked in the source, the changed plan nodes, one step
per rewrite.  A screenshot is kept in `test-artifacts/` (or $SPARKFOLD_ARTIFACTS)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from sparkfold import optimize

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = {"t": {"num": "int not null", "x": "double", "s": "string", "b": "bigint"},
          "u": {"num": "int", "y": "bigint not null", "s": "string"}}
QUERIES = """-- two statements: one rewritten with a finding, one left as it is
SELECT t.num, count(u.y) AS c
FROM t LEFT JOIN u ON t.num = u.num
WHERE u.s = 'a' AND x = NULL OR t.num > 3
GROUP BY t.num;

SELECT s, '</script><b>not markup</b>' AS tricky FROM t WHERE num > 1;
"""
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]


@pytest.fixture(scope="module")
def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        # a fresh Debian machine, as root (what .ci/run does first)
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, timeout=900)
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], env=env, capture_output=True, timeout=900)
        path = shutil.which("chromium")
    assert path, "these tests open the page in Chromium: install Debian's package `chromium`"
    return path


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("explain_html")
    (work / "queries.sql").write_text(QUERIES)
    (work / "schema.json").write_text(json.dumps(SCHEMA))
    out = work / "explain.html"
    proc = subprocess.run([sys.executable, "-m", "sparkfold.optimizer.cli", "explain", "-f", "queries.sql",
                           "--schema", "schema.json", "--format", "html", "-o", str(out)],
                          cwd=work, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""  # the page went to the file
    return out


def _browser(chromium: str, page: Path, tmp: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([chromium, *FLAGS, f"--user-data-dir={tmp}", "--enable-logging=stderr", "--v=0",
                           *args, page.as_uri()], capture_output=True, text=True, timeout=120)


def test_the_page_draws_every_statement_in_a_browser_without_errors(chromium, page, tmp_path):
    proc = _browser(chromium, page, tmp_path / "profile", "--dump-dom")
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout
    assert 'data-rendered="2"' in dom, dom[:500]
    assert "data-errors" not in dom
    console = [line for line in proc.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert not console, console

    doc = _explain_json()
    first, second = (s["explain"] for s in doc["statements"])
    # the finding, marked on its own text in the source
    assert re.search(r'<mark class="finding warning"[^>]*>x = NULL</mark>', dom)
    assert "queries.sql:4:21 " in dom  # listed at its place in the file
    # one step per rewrite, in order
    assert re.findall(r'<span class="rule">#\d+ (\w+)</span>', dom) == \
        [r["rule"] for r in first["rewrites"]] + [r["rule"] for r in second["rewrites"]]
    # the filter the rewrites changed: removed on the left, made on the right
    assert re.search(r'class="node removed"[^>]*>Filter \(\(\(s#', dom)
    assert re.search(r'class="node changed"[^>]*>Filter \(num#\d+ &gt; 3\)', dom)
    # text from the query is text, not markup
    assert "<b>not markup</b>" not in dom and "&lt;b&gt;not markup&lt;/b&gt;" in dom


def test_a_screenshot_of_the_page_is_kept(chromium, page, tmp_path):
    artifacts = Path(os.environ.get("SPARKFOLD_ARTIFACTS", ROOT / "test-artifacts"))
    artifacts.mkdir(parents=True, exist_ok=True)
    shot = artifacts / "explain.png"
    shot.unlink(missing_ok=True)
    proc = _browser(chromium, page, tmp_path / "profile", "--window-size=1400,1800", f"--screenshot={shot}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # a drawn page, not a blank one


class _Fetches(HTMLParser):
    """Every URL the page would fetch: script and image sources, stylesheets."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("src", "href"):
            if key in a and not (tag == "a" and key == "href" and a[key].startswith("#")):
                self.urls.append(a[key])


def test_the_page_is_self_contained(page):
    text = page.read_text()
    parser = _Fetches()
    parser.feed(text)
    assert parser.urls == []
    assert not re.search(r"url\(|@import|https?://", text.split('id="sparkfold-data">')[0])


def _explain_json() -> dict:
    import tempfile

    with tempfile.TemporaryDirectory() as work:
        Path(work, "q.sql").write_text(QUERIES)
        Path(work, "schema.json").write_text(json.dumps(SCHEMA))
        proc = subprocess.run([sys.executable, "-m", "sparkfold.optimizer.cli", "explain", "-f", "q.sql",
                               "--schema", "schema.json", "--format", "json"], cwd=work, capture_output=True,
                              text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_the_page_carries_the_explain_json(page):
    text = page.read_text()
    block = re.search(r'<script type="application/json" id="sparkfold-data">(.*?)</script>', text, re.S)
    embedded = json.loads(block.group(1))
    expected = _explain_json()

    def stable(doc):  # times differ from run to run
        for s in doc["statements"]:
            e = s["explain"]
            e.pop("timings", None)
            e.pop("summary", None)
            for r in e["rewrites"]:
                r.pop("seconds", None)
        return doc

    assert stable(embedded)["statements"][0]["explain"]["plans"] == stable(expected)["statements"][0]["explain"]["plans"]
    assert [s["explain"]["sql"] for s in embedded["statements"]] == [s["explain"]["sql"] for s in expected["statements"]]


def test_the_api_writes_the_same_page_for_one_result():
    result = optimize("SELECT num FROM t WHERE x = NULL OR num > 1", SCHEMA)
    text = result.explain(format="html")
    assert text.startswith("<!DOCTYPE html>") and 'id="sparkfold-data"' in text
    doc = json.loads(re.search(r'id="sparkfold-data">(.*?)</script>', text, re.S).group(1))
    assert doc["statements"][0]["explain"]["sql"] == result.sql


def test_output_never_overwrites_an_input(tmp_path):
    q = tmp_path / "q.sql"
    q.write_text("SELECT 1")
    proc = subprocess.run([sys.executable, "-m", "sparkfold.optimizer.cli", "explain", "-f", str(q),
                           "--format", "html", "-o", str(q)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "would overwrite an input" in proc.stderr
    assert q.read_text() == "SELECT 1"


def test_a_bad_file_in_the_folder_is_drawn_as_its_error_and_the_rest_still_are(chromium, tmp_path):
    """explain -f DIR goes on past a statement it cannot analyze: the page shows that
    statement's error in its place, the others drawn as usual, and the exit code is 2."""
    (tmp_path / "q").mkdir()
    (tmp_path / "q" / "a.sql").write_text("SELECT num FROM t WHERE x = NULL")
    (tmp_path / "q" / "b.sql").write_text("SELECT nope FROM t")
    (tmp_path / "q" / "c.sql").write_text("SELECT s FROM u")
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    out = tmp_path / "explain.html"
    proc = subprocess.run([sys.executable, "-m", "sparkfold.optimizer.cli", "explain", "-f", "q", "--schema",
                           "schema.json", "--format", "html", "-o", str(out)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "q/b.sql:1:8: error: unknown column `nope`" in proc.stderr, proc.stderr
    dom = _browser(chromium, out, tmp_path / "profile", "--dump-dom").stdout
    assert 'data-rendered="3"' in dom and "data-errors" not in dom, dom[:500]
    assert "q/b.sql:1:8: error: unknown column `nope`" in dom and "1 not analyzed" in dom
    assert dom.count('class="statement"') == 3


def test_the_source_panel_numbers_the_files_lines_keeps_comments_and_sets_are_no_cards(chromium, tmp_path):
    """The source panel: the file's line numbers beside the text, the comment written above
    the statement shown with it; a SET statement is a line above the cards, not a card;
    and a plan wider than the window scrolls in its box instead of widening the page."""
    wide = " OR ".join(f"t.s = 'value number {i} of a long list'" for i in range(40))
    (tmp_path / "q.sql").write_text("SET spark.sql.ansi.enabled=false;\n\n"
                                    "-- the orders nobody shipped\n-- (a second line)\n"
                                    f"SELECT num FROM t\nWHERE x = NULL OR ({wide});\n")
    (tmp_path / "schema.json").write_text(json.dumps(SCHEMA))
    out = tmp_path / "explain.html"
    proc = subprocess.run([sys.executable, "-m", "sparkfold.optimizer.cli", "explain", "-f", "q.sql", "--schema",
                           "schema.json", "--format", "html", "-o", str(out)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    dom = _browser(chromium, out, tmp_path / "profile", "--window-size=1200,900", "--dump-dom").stdout
    assert 'data-rendered="2"' in dom and "data-errors" not in dom, dom[:500]
    assert dom.count('class="statement"') == 1  # the query's card; the SET is a line
    assert "Settings: SET spark.sql.ansi.enabled=false (q.sql:1)" in dom
    assert re.search(r'<pre class="gutter">3\n4\n5\n6</pre>', dom), dom[dom.find("gutter") - 100:][:300]
    assert '<span class="comment">-- the orders nobody shipped\n-- (a second line)\n</span>' in dom
    assert re.search(r'<mark class="finding warning"[^>]*>x = NULL</mark>', dom)
    scroll, window = map(int, re.search(r'data-width="(\d+)/(\d+)"', dom).groups())
    assert scroll <= window, (scroll, window)
