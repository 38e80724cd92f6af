"""A dbt project's compiled models with the schemas dbt knows (`sparkfold dbt`).

dbt writes what it knows to its target folder:

- `manifest.json` (after `dbt compile`, `run` or `build`): every model's compiled SQL and
  the file it is in, the project's data tests and its model contracts;
- `catalog.json` (after `dbt docs generate`): the columns of every model and source
  relation, with their types as the warehouse reports them.

Column types come from catalog.json.  A column is NOT NULL only where the project says
so: a `not_null` data test on it (of a model or a source), or a `not_null` constraint of
a model whose contract is enforced.  A warehouse's own nullability is not in
catalog.json, and nothing else is assumed: a rewrite that rests on NOT NULL rests on a
test dbt runs or a constraint dbt enforces.

dbt-spark runs every session with `spark.sql.ansi.enabled=false` (its connection code
forces it, "to prevent it from being overwritten"), so the models are optimized for ANSI
off unless `--conf spark.sql.ansi.enabled=true` says otherwise (another adapter).
"""

from __future__ import annotations

import json
from pathlib import Path

from ..plans.ir.records import record
from ..plans.sql_in.catalog import Catalog, Column, TableSchema, parse_column_type
from .errors import SchemaError
from .sources import InputError, Source


@record
class Project:
    root: Path
    models: list[Source]  # compiled models, named by their compiled file
    catalog: Catalog
    not_null: list[str]  # "relation.column (why)", the NOT NULL facts taken
    skipped: list[str]  # columns whose type sparkfold cannot read (the relation is left out)


def load_project(root: Path, target: Path | None = None, compile: bool = True) -> Project:
    """The project's models and schemas from its target folder (`target`: the project's
    own `target/`, or a --target-path, taken relative to the project when it is not a
    folder from here).  Without a manifest.json, dbt's own `compile` runs first, in this
    process (when dbt-core is installed: a dbt project's tools are), as sqlfluff's dbt
    templater does; the column types still need the catalog.json of `dbt docs generate`,
    which reads the warehouse."""
    root = Path(root)
    if target is None:
        target = root / "target"
    elif not Path(target).is_absolute() and not Path(target).exists():
        target = root / target
    target = Path(target)
    if compile and not (target / "manifest.json").exists():
        _compile(root, target)
    manifest = _read(target / "manifest.json", "run `dbt compile` (or `dbt build`) in the project first")
    catalog_json = _read(target / "catalog.json", "run `dbt docs generate` in the project first: its "
                                                  "catalog.json has the column types")
    nodes = manifest.get("nodes", {})
    relations = {**catalog_json.get("nodes", {}), **catalog_json.get("sources", {})}
    not_null = _not_null_columns(manifest, _failed_tests(target / "run_results.json"))
    tables: dict[str, TableSchema] = {}
    facts, skipped = [], []
    for uid, rel in sorted(relations.items()):
        meta = rel.get("metadata", {})
        schema, name = meta.get("schema"), meta.get("name")
        if not name:
            continue
        qualified = f"{schema}.{name}" if schema else name
        columns, bad = [], None
        ordered = sorted(rel.get("columns", {}).values(), key=lambda c: c.get("index", 0))
        for col in ordered:
            try:
                dt, _ = parse_column_type(str(col.get("type", "")))
            except SchemaError:
                bad = f"{qualified}.{col.get('name')} ({col.get('type')})"
                break
            why = not_null.get((uid, str(col.get("name", "")).lower()))
            if why:
                facts.append(f"{qualified}.{col['name']} ({why})")
            columns.append(Column(str(col["name"]), dt, not why, f"the dbt project's {why}" if why else ""))
        if bad is not None:
            skipped.append(bad)
            continue
        tables[qualified] = TableSchema(qualified, tuple(columns), "dbt's catalog.json")
    models = []
    for uid, node in sorted(nodes.items()):
        if node.get("resource_type") != "model" or node.get("language", "sql") != "sql":
            continue
        code = node.get("compiled_code")
        if code is None:
            continue  # not compiled (disabled, or an ephemeral model's parent only)
        path = node.get("compiled_path") or node.get("original_file_path") or uid
        models.append(Source(path, code, Path(node.get("original_file_path") or f"{node.get('name')}.sql")))
    if not models:
        raise InputError(f"{target / 'manifest.json'}: no compiled SQL model; run `dbt compile` "
                         f"(or `dbt build`) in the project first")
    return Project(root, models, Catalog(tables, ansi=False), facts, skipped)


def _compile(root: Path, target: Path) -> None:
    """`dbt compile` with dbt's programmatic runner, here; says so on stderr first (dbt
    may open the warehouse's connection, which can take a while)."""
    import sys

    try:
        from dbt.cli.main import dbtRunner
    except ImportError:
        return  # no dbt here: the message about manifest.json says what to run
    sys.stderr.write(f"sparkfold: no {target / 'manifest.json'}: running `dbt compile` (dbt-core, in this "
                     f"process)\n")
    import os

    args = ["compile", "--project-dir", str(root), "--target-path", str(target.resolve()), "--quiet"]
    if (root / "profiles.yml").exists() and "DBT_PROFILES_DIR" not in os.environ:
        args += ["--profiles-dir", str(root)]  # a project that carries its profile (as dbt's docs show)
    try:
        result = dbtRunner().invoke(args)
    except Exception as e:  # noqa: BLE001 - dbt's own failure is the user's to see, not a sparkfold bug
        raise InputError(f"`dbt compile` failed in {root}: {type(e).__name__}: {e}") from None
    if not result.success:
        why = " ".join(str(result.exception).split()) if result.exception else "see dbt's output above"
        raise InputError(f"`dbt compile` failed in {root}: {why}")


def _read(path: Path, hint: str) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: not found; {hint}") from None
    except (OSError, ValueError) as e:
        raise InputError(f"{path}: cannot read it ({getattr(e, 'strerror', None) or e})") from None


def _failed_tests(path: Path) -> set[str]:
    """The tests whose last run (run_results.json, if there) did not pass."""
    try:
        results = json.loads(path.read_text(encoding="utf-8")).get("results", [])
    except (OSError, ValueError):
        return set()
    return {r.get("unique_id") for r in results if r.get("status") not in ("pass", "success", None)}


def _not_null_columns(manifest: dict, failed: set[str] | frozenset[str] = frozenset()) -> dict[tuple[str, str], str]:
    """(relation's unique_id, column) -> why it is NOT NULL: a not_null data test (one
    that fails the build: not `severity: warn`, not limited by `where:`, and not failed or
    warned in the last run that run_results.json records), or an enforced contract's
    not_null constraint."""
    out: dict[tuple[str, str], str] = {}
    for uid, node in manifest.get("nodes", {}).items():
        meta = node.get("test_metadata") or {}
        if node.get("resource_type") == "test" and meta.get("name") == "not_null":
            column = node.get("column_name") or (meta.get("kwargs") or {}).get("column_name")
            attached = node.get("attached_node") or next(iter((node.get("depends_on") or {}).get("nodes", [])), None)
            config = node.get("config") or {}
            if column and attached and config.get("enabled", True) and not config.get("where") \
                    and str(config.get("severity", "error")).lower() == "error" and uid not in failed:
                out[(attached, str(column).strip("`\"").lower())] = "not_null test"
        if node.get("resource_type") == "model" and (node.get("contract") or {}).get("enforced"):
            for name, col in (node.get("columns") or {}).items():
                if any(c.get("type") == "not_null" for c in col.get("constraints") or ()):
                    out[(node["unique_id"], str(name).lower())] = "enforced contract"
    return out
