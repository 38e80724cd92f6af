"""The language server's settings, and the schemas it analyzes with.

An editor passes the settings as the server's initialization options, or later as the
`sparkfold` section of `workspace/didChangeConfiguration` (each editor's way is in
docs/editors.md):

    {"schema": ["schema.json", "ddl/tables.sql", "events=data/events.parquet"],
     "conf": {"spark.sql.ansi.enabled": "false"},
     "excludeRules": ["ConstantFolding"],
     "debounceMs": 50}

`schema` takes what `--schema` takes (schema files, CREATE TABLE statements, Parquet
data, Delta tables, NAME=PATH, a Spark Connect URL), relative paths from the workspace's
root; `conf` the `--conf` settings; `excludeRules` the `--exclude-rule` names.  Without a
`schema`, the project's own configuration of sparkfold is read, at the workspace's root:
- the `args` of its `sparkfold-lint` (or `sparkfold-lint-fix`) pre-commit hook in
  .pre-commit-config.yaml (`[--schema, schema.json, --conf, ...]`: what `sparkfold lint`
  runs with on every commit; read when PyYAML is installed, as it is with pre-commit);
- else a dbt project (dbt_project.yml), its tables as `sparkfold dbt` reads them: column
  types from target/catalog.json, NOT NULL from the not_null tests and enforced contracts
  of target/manifest.json, ANSI off as dbt-spark runs (unless `conf` says otherwise).
With none of these there is no table: a query reading one gets an information-level
diagnostic saying how to configure the schema, and queries of literals are still linted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..plans.ir.errors import SparkfoldError
from ..plans.ir.records import record

DEBOUNCE_MS = 50  # after the last keystroke, before a file is analyzed again
NO_SCHEMA_HINT = ("no schema configured: set the server's `schema` setting to your schema files, "
                  "as `sparkfold lint --schema` takes them; see docs/editors.md")


@record(frozen=True)
class Settings:
    schema: tuple[str, ...] = ()
    conf: tuple[tuple[str, str], ...] = ()
    exclude: tuple[str, ...] = ()
    debounce_ms: int = DEBOUNCE_MS


def settings_from(options: Any) -> Settings:
    """Settings from an editor's JSON (unknown keys ignored; a key of the wrong type is a
    `SparkfoldError` that says which)."""
    if not isinstance(options, dict):
        return Settings()
    if isinstance(options.get("sparkfold"), dict):  # {"sparkfold": {...}}, as some editors nest it
        options = options["sparkfold"]
    schema = options.get("schema", ())
    if isinstance(schema, str):
        schema = (schema,)
    conf = options.get("conf", {})
    if isinstance(conf, dict):
        conf = [f"{k}={v}" for k, v in conf.items()]
    exclude = options.get("excludeRules", ())
    debounce = options.get("debounceMs", DEBOUNCE_MS)
    for key, value in (("schema", schema), ("conf", conf), ("excludeRules", exclude)):
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise SparkfoldError(f"setting {key}: expected a list of strings, got {value!r}")
    if not isinstance(debounce, (int, float)) or debounce < 0:
        raise SparkfoldError(f"setting debounceMs: expected a number of milliseconds, got {debounce!r}")
    pairs = []
    for c in conf:
        key, eq, value = c.partition("=")
        if not eq or not key.strip():
            raise SparkfoldError(f"setting conf: expected KEY=VALUE, got {c!r}")
        pairs.append((key.strip(), value.strip()))
    return Settings(tuple(schema), tuple(pairs), tuple(exclude), int(debounce))


@record(frozen=True)
class Project:
    """What the server analyzes with: the catalog, the rules left out, where the schemas
    came from (for the log), and the hint an unknown table gets when there is no schema."""

    catalog: Any
    exclude: tuple[str, ...]
    described: str
    schema_hint: str | None = None


def load(root: Path | None, settings: Settings) -> Project:
    """The catalog of the settings' schemas, or the dbt project's at `root`, or none.
    Raises `SparkfoldError` (a schema that cannot be read, an unknown rule)."""
    from .sources import check_rules, load_catalog

    base = root or Path.cwd()
    described = "schema: " + ", ".join(settings.schema)
    hook = None if settings.schema else pre_commit_settings(base)
    if hook is not None and hook.schema:
        settings = Settings(hook.schema, settings.conf or hook.conf, settings.exclude or hook.exclude,
                            settings.debounce_ms)
        described = f"the sparkfold-lint hook's schema in {base / PRE_COMMIT}: " + ", ".join(hook.schema)
    exclude = check_rules(settings.exclude, "excludeRules")
    if settings.schema:
        schema: Any = tuple(_resolved(base, s) for s in settings.schema)  # (as --schema gives them: text)
        return Project(load_catalog(schema, settings.conf), exclude, described)
    if (base / "dbt_project.yml").exists() and (base / "target" / "manifest.json").exists():
        from ..plans.sql_in.catalog import settings_from as session_settings
        from .dbt import load_project

        given = dict(settings.conf)
        project = load_project(base, compile=False)
        catalog = project.catalog.with_settings(**{**session_settings(given.get), "ansi": str(
            given.get("spark.sql.ansi.enabled", "false")).strip().lower() == "true"})
        return Project(catalog, exclude, f"the dbt project at {base} (target/catalog.json, target/manifest.json)")
    return Project(load_catalog((), settings.conf), exclude, "no schema", NO_SCHEMA_HINT)


PRE_COMMIT = ".pre-commit-config.yaml"
_OPTIONS = {"--schema": 0, "--conf": 1, "--exclude-rule": 2}


def pre_commit_settings(root: Path) -> Settings | None:
    """The options of the project's sparkfold-lint hook (.pre-commit-config.yaml at
    `root`), or None (no such hook, no PyYAML, a file that does not read)."""
    path = root / PRE_COMMIT
    if not path.is_file():
        return None
    try:
        import yaml  # type: ignore[import-untyped]

        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except Exception:  # (no PyYAML, or not YAML: the file is pre-commit's to complain about)
        return None
    repos = doc.get("repos") if isinstance(doc, dict) else None
    for repo in repos if isinstance(repos, list) else ():
        for hook in (repo.get("hooks") or []) if isinstance(repo, dict) else ():
            if isinstance(hook, dict) and str(hook.get("id", "")).startswith("sparkfold-lint"):
                return _from_arguments([str(a) for a in hook.get("args") or []])
    return None


def _from_arguments(args: list[str]) -> Settings:
    """--schema, --conf and --exclude-rule out of a command line (`--opt VALUE` or
    `--opt=VALUE`); the rest is left out."""
    found: tuple[list[str], list[str], list[str]] = ([], [], [])
    i = 0
    while i < len(args):
        key, eq, value = args[i].partition("=")
        if key in _OPTIONS and (eq or i + 1 < len(args)):
            if not eq:
                i += 1
                value = args[i]
            found[_OPTIONS[key]].append(value)
        i += 1
    conf = tuple((k.strip(), v.strip()) for k, _, v in (c.partition("=") for c in found[1]))
    return Settings(tuple(found[0]), conf, tuple(found[2]))


def _resolved(base: Path, spec: str) -> str:
    """A --schema spec with its path taken from `base` (URLs as they are)."""
    if spec.startswith("sc://"):
        return spec
    name, eq, path = spec.partition("=")
    if eq and not (base / spec).exists() and not Path(spec).exists():
        return f"{name}={base / Path(path.strip()).expanduser()}"
    return str(base / Path(spec).expanduser())


__all__ = ["DEBOUNCE_MS", "NO_SCHEMA_HINT", "Project", "Settings", "load", "pre_commit_settings", "settings_from"]
