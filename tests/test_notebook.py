"""Notebooks (issue 39, item 3): `OptimizeResult._repr_html_`, and the `%%sparkfold` cell
magic run the way a user runs it: a real notebook executed by nbclient in an IPython
kernel (ipykernel) with a Spark session inside, its outputs read back (the finding's text,
the rewrite, the DataFrame's rows against Spark's rows for the query as written), and the
cell's rendered output opened in headless Chromium (a screenshot is kept in
`test-artifacts/notebook.png`; docs/img/notebook.png is a copy of it).

One kernel, one notebook execution: the JVM starts once (with the JVM options of
tests/conftest.py, which the kernel inherits through the environment)."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path

import pytest

from sparkfold import optimize
from tests.test_explain_html import FLAGS, chromium  # noqa: F401 - the fixture: Chromium's path

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = {"orders": {"id": "int not null", "cust": "int", "amount": "double not null", "note": "string"},
          "customers": {"id": "int not null", "name": "string", "country": "string not null"}}
QUERY = """SELECT o.id, c.name, o.amount
FROM orders o LEFT JOIN customers c ON o.cust = c.id
WHERE o.note = NULL OR c.country = 'NL'
ORDER BY o.id"""


class _Parsed(HTMLParser):
    """Tags, the URLs anything would fetch, and the text, of an HTML fragment."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[str] = []
        self.urls: list[str] = []
        self.text: list[str] = []
        self._style = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self._style = tag == "style"
        self.urls += [v for k, v in attrs if k in ("src", "href") and v]

    def handle_endtag(self, tag):
        self._style = False

    def handle_data(self, data):
        if not self._style:
            self.text.append(data)


def _diff(page: str) -> tuple[list[str], list[str]]:
    """The first diff's lines (as text), and the words highlighted in them."""
    block = re.search(r'<pre class="sf-diff">(.*?)</pre>', page, re.S).group(1)
    parts = block.split('<span class="sf-line')[1:]  # each: ` sf-add">+text...</span>`
    lines = [html.unescape(re.sub(r"<[^>]+>", "", part.split(">", 1)[1])) for part in parts]
    words = [html.unescape(w) for w in re.findall(r'<span class="sf-hl">(.*?)</span>', block)]
    return lines, words


# -- OptimizeResult._repr_html_, without Spark -----------------------------------------

def test_a_result_shows_its_findings_marked_and_its_rewrites():
    result = optimize(QUERY, SCHEMA)
    page = result._repr_html_()
    assert page.startswith('<div class="sparkfold-nb">')
    # each finding marked on its own text in the source, and listed at its place
    assert re.search(r'<mark class="sf-finding sf-warning" title="null-comparison: [^"]*">o\.note = NULL</mark>', page)
    assert re.search(r'<mark class="sf-finding sf-warning" title="outer-join-not-outer: [^"]*">'
                     r'LEFT JOIN customers c ON o\.cust = c\.id</mark>', page), page
    text = html.unescape("".join(_Parsed(page).text))
    assert len(result.findings) == 2
    for f in result.findings:
        assert f"{f.line}:{f.column} {f.message} [{f.code}]" in text
    # the rewrite: the query as written against the optimized one, line by line
    lines, words = _diff(page)
    q, r = QUERY.split("\n"), result.sql.split("\n")
    assert (q[0], q[3]) == (r[0], r[3]) and r[1] == "FROM orders o JOIN customers c ON o.cust = c.id"
    assert lines == [" " + q[0], "-" + q[1], "-" + q[2], "+" + r[1], "+" + r[2], " " + q[3]], lines
    # the words that changed, highlighted: LEFT went, and the never-true side of the OR
    assert words == ["LEFT", "o.note = NULL OR"], words
    # every rule step, folded
    steps = re.findall(r'<span class="sf-rule">#\d+ (\w+)</span>', page)
    assert steps == [s.rule for s in result.trace.rewrites]


def test_a_long_querys_diff_keeps_the_changes_and_a_few_lines_around_them():
    items = ",\n".join(f"  num + {i} AS c{i}" for i in range(60))
    query = f"SELECT\n{items}\nFROM t\nWHERE x = NULL OR num > 1"
    result = optimize(query, {"t": {"num": "int", "x": "double"}})
    assert result.sql.endswith("WHERE num > 1") and result.sql.count("\n") == query.count("\n")
    lines, words = _diff(result._repr_html_())
    assert lines == [" ...", "   num + 58 AS c58,", "   num + 59 AS c59", " FROM t",  # (CONTEXT lines)
                     "-WHERE x = NULL OR num > 1", "+WHERE num > 1"], lines
    assert words == ["x = NULL OR"]


def test_the_fragment_is_self_contained_and_keeps_text_as_text():
    result = optimize("SELECT '</style><script>alert(1)</script>' AS s, num FROM t WHERE num = NULL",
                      {"t": {"num": "int"}})
    page = result._repr_html_()
    parsed = _Parsed(page)
    assert "script" not in parsed.tags and parsed.urls == []  # no script, nothing fetched
    assert not re.search(r"url\(|@import|https?://", page)
    assert "&lt;/style&gt;&lt;script&gt;" in page and "<script>alert" not in page
    # its style is scoped: every rule starts at the fragment's root class
    style = re.search(r"<style>(.*)</style>", page, re.S).group(1)
    selectors = [s.strip() for block in re.findall(r"([^{}]+)\{", style) for s in block.split(",")]
    assert selectors and all(s.startswith(".sparkfold-nb") for s in selectors), selectors


def test_an_unchanged_query_without_findings_is_one_line():
    page = optimize("SELECT num FROM t WHERE num > 1", {"t": {"num": "int"}})._repr_html_()
    text = " ".join(_Parsed(page).text)
    assert text == "sparkfold unchanged 0 findings", text
    assert 'class="sf-src"' not in page


def test_a_passed_through_statement_says_why():
    page = optimize("SHOW TABLES", {})._repr_html_()
    assert "passed through: Command statement (only queries are optimized)" in page


def test_import_sparkfold_does_not_import_ipython():
    code = ("import sys, sparkfold\n"
            "sparkfold.optimize('SELECT 1', {})._repr_html_()\n"
            "assert callable(sparkfold.load_ipython_extension)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('IPython', 'pyspark')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_the_magic_has_help_and_rejects_a_bad_option():
    """In an IPython shell of its own (a shell takes over the process's `__main__`)."""
    code = """
import json, sys
from traitlets.config import Config
from IPython.core.interactiveshell import InteractiveShell
config = Config()
config.HistoryManager.enabled = False
shell = InteractiveShell.instance(config=config)
shell.run_line_magic("load_ext", "sparkfold")
print(json.dumps({"magic": shell.find_cell_magic("sparkfold") is not None}), flush=True)
for cell in ("%%sparkfold?\\n", "%%sparkfold --no-such-option\\nSELECT 1\\n",
             "%%sparkfold --exclude-rule NoSuchRule\\nSELECT 1\\n"):
    print("@@", cell.split("\\n")[0], flush=True)
    print("@@", "failed" if shell.run_cell(cell).error_in_exec is not None else "ok", flush=True)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "PAGER": "cat", "TERM": "dumb"})
    assert proc.returncode == 0, proc.stderr
    shown = proc.stdout + proc.stderr
    assert '{"magic": true}' in proc.stdout
    help_text = proc.stdout.split("@@ %%sparkfold --no-such-option")[0]
    for option in ("--lint-only", "--no-run", "-o NAME, --out NAME", "--exclude-rule RULE", "--spark NAME"):
        assert option in help_text, help_text
    assert "Lint, optimize and run the cell's Spark SQL" in help_text
    assert re.findall(r"@@ (ok|failed)", proc.stdout) == ["ok", "failed", "failed"], proc.stdout
    assert "UsageError" in shown and "NoSuchRule" in shown and "Traceback" not in shown, shown


# -- a real notebook, executed -------------------------------------------------------

SETUP = """\
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[2]").appName("sparkfold-notebook")
         .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
         .config("spark.sql.shuffle.partitions", "2").config("spark.default.parallelism", "2")
         .config("spark.sql.session.timeZone", "UTC").config("spark.driver.memory", "1g")
         .config("spark.sql.adaptive.enabled", "false")
         .config("spark.sql.repl.eagerEval.enabled", "true")  # a DataFrame shows its rows
         .config("spark.sql.codegen.wholeStage", "false")  # (a few rows: compiling them costs more)
         .getOrCreate())
spark.sparkContext.setLogLevel("OFF")
%load_ext sparkfold"""
VIEWS = """\
%%sparkfold
CREATE OR REPLACE TEMP VIEW orders AS
SELECT * FROM VALUES (1, 10, 5.0D, NULL), (2, 20, 7.5D, 'gift'), (3, NULL, 1.0D, NULL), (4, 30, 2.0D, NULL)
  AS t(id, cust, amount, note);
CREATE OR REPLACE TEMP VIEW customers AS
SELECT * FROM VALUES (10, 'Ann', 'NL'), (20, 'Bo', 'SE'), (30, NULL, 'NL') AS t(id, name, country)"""
CELLS = {
    "setup": SETUP,
    "views": VIEWS,
    "query": "%%sparkfold -o df\n" + QUERY,
    "rows": f"as_written = spark.sql({QUERY!r})  # Spark alone\n"
            "print(json.dumps({'magic': [list(r) for r in df.collect()], 'spark': [list(r) for r in as_written.collect()]}))",
    "hook": "from sparkfold.optimizer.hooks import install\nhook = install(spark)  # sparkfold's spark.sql hook",
    "lint_only": "%%sparkfold --lint-only\n" + QUERY,
    "hook_queries": "print(json.dumps({'hook': hook.queries}))\nhook.uninstall()",
    # a session that rejects the optimized text, as Spark would a text a sparkfold bug wrote
    "picky": "class Picky:\n"
             "    def __init__(self, spark):\n"
             "        self._spark = spark\n"
             "    def __getattr__(self, name):\n"
             "        return getattr(self._spark, name)\n"
             "    def sql(self, text, args=None, **kwargs):\n"
             "        if ' JOIN customers' in text and 'LEFT JOIN' not in text:\n"
             "            raise ValueError('rejected on purpose')\n"
             "        return self._spark.sql(text, args, **kwargs)\n"
             "picky = Picky(spark)",
    "rejected": "%%sparkfold --spark picky -o rejected\n" + QUERY,
    "rejected_rows": "print(json.dumps([list(r) for r in rejected.collect()]))",
    "no_run": "%%sparkfold --no-run -o res\n" + QUERY,
    "no_run_value": "import sparkfold\n"
                    "print(json.dumps({'stored': res.sql, 'api': sparkfold.optimize(res.original_sql, spark).sql}))",
    "syntax_error": "%%sparkfold\nSELECT id\nFORM orders",
    "unknown_table": "%%sparkfold\nSELECT * FROM nope",
    "passed_through": "%%sparkfold\nSHOW VIEWS",
}
RAISES = {"syntax_error", "unknown_table"}


@pytest.fixture(scope="module")
def notebook(tmp_path_factory):
    """The notebook, executed: {cell name: the executed cell}, and the seconds it took."""
    import nbformat  # (the test extra's: a missing one fails the run)
    from nbclient import NotebookClient

    work = tmp_path_factory.mktemp("notebook")
    nb = nbformat.v4.new_notebook()
    for name, source in CELLS.items():
        if name == "rows":
            source = "import json\n" + source
        cell = nbformat.v4.new_code_cell(source, metadata={"name": name})
        if name in RAISES:
            cell.metadata["tags"] = ["raises-exception"]  # nbclient goes on past its error
        nb.cells.append(cell)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    t0 = time.perf_counter()
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(work)}}).execute()
    seconds = time.perf_counter() - t0
    nbformat.write(nb, work / "executed.ipynb")
    print(f"notebook executed in {seconds:.1f} s; cells:", ", ".join(
        f"{c.metadata['name']} {_seconds(c):.1f} s" for c in nb.cells))
    return {c.metadata["name"]: c for c in nb.cells}, seconds


def _seconds(cell) -> float:
    from datetime import datetime

    times = cell.metadata.get("execution", {})
    start, end = times.get("iopub.status.busy"), times.get("iopub.status.idle")
    if not (start and end):
        return float("nan")
    return (datetime.fromisoformat(end.replace("Z", "+00:00")) -
            datetime.fromisoformat(start.replace("Z", "+00:00"))).total_seconds()


def _outputs(cell, kind: str) -> list[dict]:
    return [o for o in cell.outputs if o.output_type == kind]


def _html(cell) -> str:
    """The cell's sparkfold report (its display_data's HTML)."""
    shown = [o.data["text/html"] for o in _outputs(cell, "display_data") if "text/html" in o.data]
    assert len(shown) == 1, cell.outputs
    return shown[0]


def _stdout(cell) -> str:
    return "".join(o.text for o in _outputs(cell, "stream") if o.name == "stdout")


def test_the_magic_shows_the_finding_and_the_rewrite_and_returns_the_dataframe(notebook):
    cells, _ = notebook
    cell = cells["query"]
    page = _html(cell)
    text = html.unescape(" ".join(_Parsed(page).text))
    assert "`o.note = NULL` is always NULL, never TRUE" in text and "[null-comparison]" in text
    assert "cell:4:7" in text  # the finding's place in the cell (line 1 is the magic's)
    assert re.search(r'<mark class="sf-finding sf-warning"[^>]*>o\.note = NULL</mark>', page)
    assert "+FROM orders o JOIN customers c ON o.cust = c.id" in _diff(page)[0]
    assert "ran the optimized query" in text
    plain = [o.data["text/plain"] for o in _outputs(cell, "display_data")][0]
    assert "cell:4:7: warning: `o.note = NULL` is always NULL" in plain  # (a terminal's view)
    # the value: the DataFrame, its rows shown (eager evaluation), Spark's rows for the query as written
    rows = json.loads(_stdout(cells["rows"]))
    assert rows["magic"] == rows["spark"] and rows["spark"], rows
    value = _outputs(cell, "execute_result")
    assert len(value) == 1
    table = value[0].data["text/html"]
    for row in rows["spark"]:  # (PySpark shows None as NULL)
        assert "".join(f"<td>{'NULL' if v is None else v}</td>" for v in row) in table.replace("\n", ""), table


def test_lint_only_runs_the_sql_as_written_and_no_run_runs_nothing(notebook):
    cells, _ = notebook
    lint = cells["lint_only"]
    assert "ran as written (--lint-only)" in _html(lint)
    assert "+FROM orders o JOIN customers c" in html.unescape(_html(lint))  # what it would rewrite
    assert len(_outputs(lint, "execute_result")) == 1
    no_run = cells["no_run"]
    assert "not run (--no-run)" in _html(no_run) and not _outputs(no_run, "execute_result")
    stored = json.loads(_stdout(cells["no_run_value"]))  # -o NAME with --no-run: the OptimizeResult
    assert stored["stored"] == stored["api"] == optimize(QUERY, SCHEMA).sql != QUERY


def test_the_magic_runs_its_text_past_a_hook_on_the_session(notebook):
    """With sparkfold's spark.sql hook on the session, --lint-only still runs the SQL as
    written: the magic sends its text through the session's own spark.sql."""
    cells, _ = notebook
    assert json.loads(_stdout(cells["hook_queries"])) == {"hook": 0}


def test_when_spark_rejects_the_optimized_text_the_query_runs_as_written(notebook):
    cells, _ = notebook
    cell = cells["rejected"]
    text = html.unescape(_html(cell))
    assert "Spark rejected the optimized SQL (ValueError: rejected on purpose); please report this as a bug" in text
    assert "ran as written" in text and not _outputs(cell, "error")
    assert json.loads(_stdout(cells["rejected_rows"])) == json.loads(_stdout(cells["rows"]))["spark"]


def test_a_cell_of_several_statements_runs_them_in_turn(notebook):
    cells, _ = notebook
    page = html.unescape(_html(cells["views"]))
    assert page.count("<section>") == 2 and page.count("ran as written") == 2  # (nothing to rewrite)
    assert "cell:2" in page and "cell:5" in page  # each statement's first line in the cell


def test_a_statement_sparkfold_passes_through_still_runs(notebook):
    cells, _ = notebook
    cell = cells["passed_through"]
    assert "passed through: Command statement (only queries are optimized)" in _html(cell)
    table = _outputs(cell, "execute_result")[0].data["text/html"]
    assert "<td>orders</td>" in table.replace("\n", "") or "orders" in table


@pytest.mark.parametrize("name, expected, marked", [
    ("syntax_error", r"cell:3:6: error: syntax error", "orders"),
    ("unknown_table", r"cell:2:15: error: unknown table `nope`", "nope"),
])
def test_an_error_is_shown_in_place_without_a_traceback(notebook, name, expected, marked):
    cells, _ = notebook
    cell = cells[name]
    errors = _outputs(cell, "error")
    assert len(errors) == 1, cell.outputs
    error = errors[0]
    assert error.ename == "SparkfoldCellError"
    shown = "\n".join(error.traceback)
    assert re.match(expected, shown), shown
    assert "Traceback" not in shown and "File " not in shown and "pyspark" not in shown, shown
    assert "Spark: [" in shown  # Spark's own error class, beside sparkfold's place
    page = _html(cell)
    assert 'class="sf-badge sf-error"' in page
    assert re.search(rf'<mark class="sf-finding sf-error"[^>]*>{marked}</mark>', page), page  # the word at its place
    assert '<p class="sf-detail">Spark: [' in page


def test_the_notebook_runs_within_its_budget(notebook):
    _, seconds = notebook
    assert seconds < 120, seconds  # (a JVM start, on a loaded machine; about 20 s alone)


# -- the rendered output, in a browser --------------------------------------------------

def cell_page(cell, prompt_number: int) -> str:
    """One executed cell as a notebook draws it: its source, then its outputs (HTML where
    they have it, else their text)."""
    parts = []
    for o in cell.outputs:
        data = o.get("data", {})
        shown = f'<div class="output">{data["text/html"]}</div>' if "text/html" in data else \
            f'<pre class="output">{html.escape(data.get("text/plain", ""))}</pre>'
        prompt = f"Out[{prompt_number}]:" if o.output_type == "execute_result" else ""
        parts.append(f'<div class="prompt out">{prompt}</div>{shown}')
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><style>
body {{ margin: 16px; font: 13px system-ui, sans-serif; background: #fff; color: #222; }}
.cell {{ display: grid; grid-template-columns: 64px minmax(0, 1fr); gap: 6px 8px; max-width: 1060px; }}
.prompt {{ color: #307fc1; font: 12px ui-monospace, monospace; text-align: right; padding-top: 6px; }}
.prompt.out {{ color: #bf5b3d; }}
pre.input {{ margin: 0; padding: 6px 10px; background: #f7f7f7; border: 1px solid #e0e0e0; border-radius: 2px;
             font: 12.5px/1.45 ui-monospace, monospace; }}
.output table {{ border-collapse: collapse; font: 12.5px ui-monospace, monospace; }}
.output th, .output td {{ border: 1px solid #ccc; padding: 2px 10px; }}
</style></head><body><div class="cell">
<div class="prompt">In&nbsp;[{prompt_number}]:</div><pre class="input">{html.escape(cell.source)}</pre>
{"".join(parts)}
</div></body></html>
"""


def test_the_cells_output_renders_in_a_browser(notebook, chromium, tmp_path):  # noqa: F811
    cells, _ = notebook
    page = tmp_path / "cell.html"
    page.write_text(cell_page(cells["query"], 3))
    artifacts = Path(os.environ.get("SPARKFOLD_ARTIFACTS", ROOT / "test-artifacts"))
    artifacts.mkdir(parents=True, exist_ok=True)
    shot = artifacts / "notebook.png"
    shot.unlink(missing_ok=True)

    def browser(profile: str, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([chromium, *FLAGS, f"--user-data-dir={tmp_path / profile}", "--window-size=1100,680",
                               *args, page.as_uri()], capture_output=True, text=True, timeout=120)

    with ThreadPoolExecutor(2) as pool:  # (the two at once: a browser's start is most of each)
        dom, screenshot = pool.map(browser, ("dom", "shot"), ("--dump-dom", f"--screenshot={shot}"))
    for proc in (dom, screenshot):
        assert proc.returncode == 0, proc.stderr[-2000:]
    out = dom.stdout
    assert re.search(r'<mark class="sf-finding sf-warning"[^>]*>o\.note = NULL</mark>', out)
    assert "<td>Ann</td>" in out.replace("\n", "")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # a drawn page, not a blank one
