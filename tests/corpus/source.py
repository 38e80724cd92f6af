"""The statements of the corpus: sqlglot's optimizer fixtures, from its sdist on PyPI.

A fixture file is a list of `input; expected;` pairs with `# key: value` comments
(`# dialect: ...`).  Both halves are SQL; both are taken.  Pairs written for a dialect
other than Spark's family (or sqlglot's own, which reads as standard SQL) are left out,
and every statement is transpiled to Spark SQL by sqlglot.  Expression fixtures
(`simplify.sql`, `normalize.sql`, `annotate_functions.sql`) become `SELECT <expr> AS r
FROM <table>` over the first table of their candidates that Spark accepts it on.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

SPARK_DIALECTS = {"", "spark", "spark2", "databricks", "hive"}

# fixture file -> kind ("query" or the candidate tables of an expression fixture)
QUERY_FILES = ("optimizer", "merge_subqueries", "unnest_subqueries", "pushdown_predicates",
               "pushdown_projections", "eliminate_joins", "eliminate_subqueries", "eliminate_ctes",
               "optimize_joins", "qualify_columns", "canonicalize", "isolate_table_selects",
               "pushdown_cte_alias_columns", "qualify_columns__with_invisible")
EXPRESSION_FILES = {
    # bare names: booleans first (`x AND y`), then integers, then strings
    "simplify": ("bools", "ints", "strs", "x"),
    "normalize": ("bools", "ints", "strs"),
    # typed columns tbl.int_col, tbl.str_col, ...
    "annotate_functions": ("tbl",),
}


@dataclass(frozen=True)
class Statement:
    name: str      # file:pair:side, e.g. optimizer:12:in
    sql: str       # Spark SQL
    tables: tuple[str, ...] = ()  # candidate FROM tables of an expression fixture


def cache_dir() -> Path:
    base = os.environ.get("SPARKFOLD_CORPUS_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "sparkfold", "corpus")
    return Path(base)


def sqlglot_fixtures(version: str | None = None) -> Path:
    """The folder of sqlglot's optimizer fixtures: the sdist of the installed sqlglot
    (or `version`), downloaded from PyPI with pip once and kept in the cache."""
    import sqlglot

    version = version or sqlglot.__version__
    root = cache_dir() / f"sqlglot-{version}"
    fixtures = root / "tests" / "fixtures" / "optimizer"
    if fixtures.is_dir():
        return fixtures
    root.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary",
                           ":all:", "--dest", str(root.parent), f"sqlglot=={version}"],
                          capture_output=True, text=True, timeout=600)
    archives = sorted(root.parent.glob(f"sqlglot-{version}.tar.gz"))
    if proc.returncode != 0 or not archives:
        raise RuntimeError(f"cannot download sqlglot {version}'s source distribution from PyPI: "
                           f"{(proc.stderr or proc.stdout).strip()[-500:]}")
    with tarfile.open(archives[0]) as tar:
        members = [m for m in tar.getmembers() if "/tests/fixtures/optimizer/" in m.name and m.isfile()]
        tar.extractall(root.parent, members=members, filter="data")
    if not fixtures.is_dir():
        raise RuntimeError(f"sqlglot {version}'s source distribution has no tests/fixtures/optimizer")
    return fixtures


def _pairs(path: Path):
    """(meta, input, expected) as sqlglot's own tests read them (tests/helpers.py)."""
    text = "\n".join(line for line in path.read_text(encoding="utf-8").splitlines()
                     if line and not line.startswith("--"))
    parts = text.split(";")
    for i in range(0, len(parts) - 1, 2):
        lines = parts[i].strip().split("\n")
        meta = {}
        while lines and lines[0].startswith("#"):
            key, _, value = lines.pop(0).partition(":")
            meta[key.lstrip("#").strip()] = value.strip()
        yield meta, "\n".join(lines).strip(), parts[i + 1].strip()


def _to_spark(sql: str, dialect: str) -> str | None:
    import sqlglot
    from sqlglot.errors import ErrorLevel

    try:
        trees = sqlglot.parse(sql, read=dialect or None, error_level=ErrorLevel.IMMEDIATE)
        if len(trees) != 1 or trees[0] is None:
            return None
        return trees[0].sql("spark", unsupported_level=ErrorLevel.IMMEDIATE)
    except Exception:  # noqa: BLE001 - not parsable or not expressible in Spark SQL: not in the corpus
        return None


def statements(fixtures: Path | None = None) -> list[Statement]:
    import logging

    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    fixtures = fixtures or sqlglot_fixtures()
    out: list[Statement] = []
    seen: set[str] = set()
    for stem in (*QUERY_FILES, *EXPRESSION_FILES):
        path = fixtures / f"{stem}.sql"
        if not path.is_file():
            continue
        tables = EXPRESSION_FILES.get(stem, ())
        for n, (meta, given, expected) in enumerate(_pairs(path), start=1):
            dialects = [d.strip() for d in meta.get("dialect", "").split(",")]
            dialect = next((d for d in dialects if d in SPARK_DIALECTS), None)
            if dialect is None:
                continue
            halves = (("in", given),) if stem == "annotate_functions" else (("in", given), ("out", expected))
            for side, sql in halves:
                if tables:
                    sql = f"SELECT {sql} AS r"
                spark_sql = _to_spark(sql, dialect)
                if not spark_sql or spark_sql in seen:
                    continue
                if tables and " FROM " in spark_sql.upper():
                    continue  # an expression that is itself a query: leave it
                seen.add(spark_sql)
                out.append(Statement(f"{stem}:{n}:{side}", spark_sql, tables))
    return out
