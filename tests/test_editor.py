"""The analysis behind `sparkfold lsp` (optimizer/editor.py), without the protocol: the
records are `sparkfold lint`'s, at the same positions; an edit re-analyzes only the
statements whose text it changed; splitting a file again after an edit gives what
splitting it whole gives."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from sparkfold.optimizer import editor as editor_module
from sparkfold.optimizer.editor import Editor, Offsets, resplit
from sparkfold.optimizer.lint import lint_sources
from sparkfold.optimizer.sources import Source, load_catalog, statements

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "examples" / "schema.json"

SHAPES = [
    "SELECT o.id, o.amount,\n       c.name\nFROM orders o\nLEFT JOIN customers c ON c.id = o.customer_id\n"
    "WHERE c.country = 'FR{i}'\n  AND o.amount > {i}\nORDER BY o.id\nLIMIT 10;\n",
    "-- report {i}; by status\nSELECT status, count(id) AS n\nFROM orders\nWHERE status = NULL OR amount > {i}\n"
    "GROUP BY status;\n",
    "SELECT CASE WHEN num IS NULL THEN 'none;'\n            WHEN num > {i} THEN 'big'\n"
    "            ELSE 'small' END AS size /* ; */\nFROM t\nWHERE num IS NOT NULL;\n",
    "SELECT word AS `weird;name` FROM tokens WHERE word NOT IN ('a', NULL) AND id = {i};\n",
]


def generated(lines: int) -> str:
    """A file of `lines` lines or more, of queries with findings, fixes and none."""
    parts, i = [], 0
    while sum(p.count("\n") for p in parts) < lines:
        parts.append(SHAPES[i % len(SHAPES)].format(i=i))
        i += 1
    return "".join(parts)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog((SCHEMA,))


def _lint(text: str, catalog, fixes=False):
    return list(lint_sources([Source("f.sql", text)], catalog, fixes=fixes))


def test_records_are_lints_at_the_same_positions(catalog):
    text = generated(60)
    ed = Editor(catalog)
    assert ed.records("f.sql", text) == _lint(text, catalog)


def test_an_edit_analyzes_only_the_statement_it_changed(catalog, monkeypatch):
    text = generated(120)
    ed = Editor(catalog)
    ed.records("f.sql", text)
    analyzed = []
    real = editor_module.lint_statement
    monkeypatch.setattr(editor_module, "lint_statement",
                        lambda st, *a, **k: analyzed.append(st.text) or real(st, *a, **k))
    at = text.index("amount > 5\n")
    edited = text[:at] + "amount > 57\n" + text[at + len("amount > 5\n"):]
    # a line added above it too: every statement after moves, none is analyzed again
    edited = "-- a new first line\n" + edited
    records = ed.records("f.sql", edited)
    assert len(analyzed) == 1 and "amount > 57" in analyzed[0]
    assert records == _lint(edited, catalog)


def test_fixes_are_lint_fixes_in_the_range(catalog):
    text = generated(30)
    ed = Editor(catalog)
    expected = [r for r in _lint(text, catalog, fixes=True) if r.fix is not None]
    assert expected  # (the shapes have unsafe and safe fixes)
    assert ed.fixes("f.sql", text, 0, len(text)) == expected
    one = expected[0]
    span = Offsets(text).span
    a, b = span(one)
    assert ed.fixes("f.sql", text, a, a) == [r for r in expected if span(r)[0] <= a <= span(r)[1]]


def test_a_statement_that_does_not_parse_is_an_error_record_and_the_rest_are_linted(catalog):
    text = "SELECT num FROM t WHERE num = NULL;\nSELECT FROM WHERE;\nSELECT nope FROM t;\n"
    ed = Editor(catalog)
    records = ed.records("f.sql", text)
    assert records == _lint(text, catalog)
    assert [(r.code, r.line) for r in records] == [("never-true", 1), ("null-comparison", 1), ("input-error", 2),
                                                   ("input-error", 3)]
    unclosed = text + "SELECT 'open\n"  # a text that does not tokenize is one statement, as lint splits it
    assert ed.records("f.sql", unclosed) == _lint(unclosed, catalog)
    assert [r.code for r in ed.records("f.sql", unclosed)] == ["input-error"]


def test_hover_shows_the_optimized_sql(catalog, monkeypatch):
    text = "-- count them\nSELECT count(num) FROM t;\nSELECT num FROM t WHERE num IS NOT NULL;\n"
    ed = Editor(catalog)
    assert ed.hover("f.sql", text, 3) is None  # on the comment
    monkeypatch.setattr(editor_module, "RESULTS_KEPT", 1)  # (the second statement's result pushes the first's out)
    ed.records("f.sql", text)
    markdown = ed.hover("f.sql", text, text.index("count("))
    assert "```sql\nSELECT count(1) AS `count(num)` FROM t\n```" in markdown
    assert "```sql\nSELECT num FROM t\n```" in ed.hover("f.sql", text, text.index("IS NOT"))


PIECES = ["SELECT 1", ";", "'a;b'", "\"x;\"", "`c;d`", "-- c;\n", "/* ; */", "\n", " ", "'", "/*", "*/", "FROM t",
          "WHERE x = NULL", ";;", "--", "`"]


def test_resplitting_after_an_edit_is_splitting_the_whole():
    """Random edits (quotes and comments opened and closed around semicolons) on random
    texts: `resplit` from the last split gives `statements` of the new text."""
    rng = random.Random(39)
    for _ in range(300):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 30)))
        split = statements(Source("f", text))
        for _ in range(5):
            a = rng.randint(0, len(text))
            b = min(len(text), a + rng.choice([0, 0, 1, 3, 10]))
            new = text[:a] + "".join(rng.choice(PIECES) for _ in range(rng.choice([0, 1, 1, 2]))) + text[b:]
            source = Source("f", new)
            got = resplit(text, split, source)
            assert [(s.index, s.start, s.end, s.lead) for s in got] == \
                [(s.index, s.start, s.end, s.lead) for s in statements(source)], (text, new)
            text, split = new, got


# -- the server's settings and schemas (optimizer/lsp_settings.py) ----------------------------

def test_settings_are_read_as_the_command_line_reads_its_options():
    from sparkfold.optimizer.lsp_settings import Settings, settings_from
    from sparkfold.plans.ir.errors import SparkfoldError

    assert settings_from({"sparkfold": {"schema": "s.json", "conf": {"spark.sql.ansi.enabled": "false"},
                                        "excludeRules": ["ConstantFolding"], "debounceMs": 20}}) == \
        Settings(("s.json",), (("spark.sql.ansi.enabled", "false"),), ("ConstantFolding",), 20)
    assert settings_from(None) == Settings()
    for bad in ({"schema": [1]}, {"conf": ["novalue"]}, {"debounceMs": -1}, {"excludeRules": "x"}):
        with pytest.raises(SparkfoldError):
            settings_from(bad)


def test_schemas_from_the_settings_else_the_dbt_project_at_the_root(tmp_path):
    import json

    from sparkfold.optimizer.lsp_settings import NO_SCHEMA_HINT, Settings, load

    (tmp_path / "schema.json").write_text(json.dumps({"t": {"num": "int not null"}}))
    project = load(tmp_path, Settings(schema=("schema.json",)))
    assert [r.code for r in Editor(project.catalog).records("q.sql", "SELECT count(num) FROM t")] == \
        ["count-never-null"]
    assert load(tmp_path, Settings()).schema_hint == NO_SCHEMA_HINT
    # the project's pre-commit hook says how it lints: its --schema and --conf are taken
    (tmp_path / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: local\n    hooks: [{id: black}]\n  - repo: https://example.invalid/sparkfold\n"
        "    rev: v1\n    hooks:\n      - id: sparkfold-lint\n"
        "        args: [--schema, schema.json, --fail-on, error, --conf=spark.sql.ansi.enabled=false]\n")
    project = load(tmp_path, Settings())
    assert project.schema_hint is None and not project.catalog.ansi and "sparkfold-lint hook" in project.described
    assert [r.code for r in Editor(project.catalog).records("q.sql", "SELECT count(num) FROM t")] == \
        ["count-never-null"]
    (tmp_path / ".pre-commit-config.yaml").unlink()
    # a dbt project's artifacts: the model's columns from catalog.json, NOT NULL from a not_null test
    (tmp_path / "dbt_project.yml").write_text("name: p\n")
    (tmp_path / "target").mkdir()
    (tmp_path / "target" / "manifest.json").write_text(json.dumps({"nodes": {
        "model.p.m": {"resource_type": "model", "name": "m", "compiled_code": "select 1 as id",
                      "original_file_path": "models/m.sql"},
        "test.p.not_null_m_id": {"resource_type": "test", "attached_node": "model.p.m", "column_name": "id",
                                 "test_metadata": {"name": "not_null", "kwargs": {"column_name": "id"}},
                                 "config": {"severity": "ERROR", "enabled": True}, "depends_on": {"nodes": ["model.p.m"]}},
    }}))
    (tmp_path / "target" / "catalog.json").write_text(json.dumps({"nodes": {"model.p.m": {
        "metadata": {"schema": "s", "name": "m"}, "columns": {"id": {"name": "id", "type": "int", "index": 1}}}}}))
    project = load(tmp_path, Settings())
    assert project.schema_hint is None and not project.catalog.ansi  # (dbt-spark's sessions)
    records = Editor(project.catalog).records("q.sql", "SELECT count(id) FROM s.m WHERE id = NULL")
    assert sorted({r.code for r in records}) == ["count-never-null", "never-true", "null-comparison"]
