"""The schema oracle: queries whose result schema the optimizer is most likely to change,
and Spark's `df.schema` of each (names, types, nullability; nested types included).

sparkfold's optimized query must have the original's schema on both paths, nullability
included (optimizer/output_nullability.py).  Nullability is where rewrites most often
move it, so the space is built from the rewrites that do:
- folded projections: a nullable expression folded to a NOT NULL literal (`false AND
  NULL`, `coalesce(NULL, 1)`, `1 + 3.2`), a NOT NULL one folded to a literal whose only
  text is nullable (`greatest(CAST('NaN' AS DOUBLE), 1D)`, `CAST(1 AS FLOAT)`), each
  unaliased too (Spark names it), under ORDER BY, LIMIT, DISTINCT and a subquery;
- empty relations (`WHERE FALSE`, `x = NULL`, `LIMIT 0`, an empty table, an inner join
  with one), with NOT NULL and nullable columns of every type of the catalog;
- outer joins made inner by a filter that rejects the padded side's NULLs (LEFT, RIGHT,
  FULL), reading that side's NOT NULL and nullable columns, bare, in an expression,
  grouped, and through `*`;
- set operations (UNION [ALL], INTERSECT [ALL], EXCEPT [ALL]) of NOT NULL, nullable and
  folded columns, with an input made empty;
- aggregates over an empty input, global (one row: count NOT NULL, sum nullable) and
  grouped (no row);
- what sparkfold reads past sqlglot's parser or names itself: structs and tuples whose
  field names come from rewritten arguments, a unary plus among operators, `TABLE t`
  as a query, in a subquery and in a set operation, a struct's star (`q.st.*`, with
  EXCEPT), casts to complex types (which Spark's names leave out).
Each query in ANSI mode and out of it (`MODES`).  Besides the model of the optimized
query's schema, the text sparkfold writes is read back by sparkfold's own analyzer
(whose names and types the expression-type oracle holds to Spark's): its column names
and types must be Spark's for the original.

    python -m tests.oracles.query_schemas --regenerate   # record Spark's schemas (a minute or two)
    python -m tests.oracles.query_schemas                # sparkfold's model against them

The golden file (`golden/query_schemas.jsonl.gz`) has a header line, then one line per
mode and query: `[mode, query, schema]`, the schema as `optimizer.verify.schema_of`
writes it (`[[name, "int not null"], ...]`), or `"!ERROR_CLASS"` when Spark rejects the
query.
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import cli, golden_queries

GOLDEN = Path(__file__).parent / "golden" / "query_schemas.jsonl.gz"

COLUMNS = {"i": "int not null", "n": "int", "d": "double not null", "x": "double", "f": "float not null",
           "m": "decimal(10,2) not null", "s": "string not null", "b": "boolean", "dt": "date not null"}
# two tables of rows (NULLs in the nullable columns, NaN and -0.0 in the doubles) and an empty one
CATALOG = {"nt": COLUMNS, "nu": COLUMNS, "ne": COLUMNS}
# the session's spark.sql.ansi.enabled per mode
MODES = {"ansi": "true", "legacy": "false"}

# Select items: what the rules fold, and what they leave
FOLDS_TO_NOT_NULL = ("false AND CAST(NULL AS BOOLEAN)", "NULL OR TRUE", "coalesce(NULL, 1)", "IF(TRUE, 1, NULL)",
                     "nvl(CAST(NULL AS INT), 2)", "1 + 3.2", "CAST(1 AS DECIMAL(4,1))", "round(2.5, 0)",
                     "CAST('2020-01-01' AS DATE)", "CASE WHEN 1 > 2 THEN NULL ELSE 'a' END", "nullif(2, 1)",
                     "1.5D / 0.5D", "CAST(NULL AS INT) IS NULL", "coalesce(nt.n, 0) + 0 * 1")
FOLDS_TO_NULLABLE_TEXT = ("greatest(CAST('NaN' AS DOUBLE), 1D)", "CAST(1 AS FLOAT)", "CAST(1.5 AS FLOAT) + CAST(1 AS FLOAT)",
                          "-CAST('Infinity' AS DOUBLE)", "CAST(-0.0 AS DOUBLE)", "CASE WHEN TRUE THEN 1 END",
                          "CAST(2.5 AS DECIMAL(10,3))", "1.5D + CAST('NaN' AS DOUBLE)")
COLUMN_ITEMS = tuple(f"nt.{c}" for c in COLUMNS) + ("coalesce(nt.n, nt.i)", "coalesce(nt.i, nt.n)",
                                                   "IF(nt.i IS NULL, 0, nt.i)", "nt.n IS NULL", "nt.x + 1",
                                                   "concat_ws('-', nt.s)", "array(nt.i, 1)")
LITERALS = ("1", "'a'", "1.5D", "2.50", "DATE'2020-01-01'", "CAST('NaN' AS DOUBLE)", "CAST(NULL AS INT)")
# field names taken from arguments the rules rewrite; a unary plus, which sqlglot drops
WRITTEN_NAMES = ("struct(nt.i, coalesce(nt.x, NULL))", "struct(nt.s, upper('a'), 1 + 1)",
                 "named_struct('a', coalesce(NULL, nt.n), 'b', nt.b AND TRUE)", "struct(nt.i AS k, 2 * 3)", "struct(nt.s AS `k x`, nt.n AS K)",
                 "array(struct(nt.n, NULL OR nt.b))", "+ nt.i", "1 - + nt.i", "+ nt.i * 2", "- + nt.x",
                 "+ (1 + 2)", "nt.d / + nt.i", "abs(+ nt.n)", "+ nt.m + 0")
# casts to complex types, which Spark leaves out of a name (`CAST(NULL AS ARRAY<INT>)` is `NULL`)
COMPLEX_CASTS = ("CAST(NULL AS ARRAY<INT>)", "CAST(NULL AS MAP<INT, ARRAY<INT>>)", "CAST(NULL AS STRUCT<a: INT>)",
                 "TRY_CAST(NULL AS ARRAY<STRING>)", "CAST(array(nt.i) AS ARRAY<BIGINT>)",
                 "CAST(array(nt.n, 1) AS ARRAY<STRING>)", "CAST(struct(nt.i, nt.s) AS STRUCT<x: BIGINT, y: STRING>)",
                 "CAST(map(nt.s, nt.i) AS MAP<STRING, DOUBLE>)", "array(CAST(NULL AS ARRAY<INT>))",
                 "CAST(NULL AS ARRAY<INT>)[0]", "size(CAST(array(nt.i) AS ARRAY<STRING>))")
ITEMS = FOLDS_TO_NOT_NULL + FOLDS_TO_NULLABLE_TEXT + COLUMN_ITEMS + LITERALS + WRITTEN_NAMES + COMPLEX_CASTS
STRUCT = "struct(nt.i, nt.s, coalesce(nt.n, NULL), nt.b OR FALSE)"

EMPTYING = ("WHERE FALSE", "WHERE nt.n = NULL", "WHERE nt.i IS NULL", "LIMIT 0")
JOINS = ("LEFT", "RIGHT", "FULL")
SET_OPERATIONS = ("UNION ALL", "UNION", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL")
SET_ITEMS = ("nt.i", "nt.n", "coalesce(NULL, 1)", "IF(TRUE, 2, NULL)", "CAST(NULL AS INT)", "1", "coalesce(nt.n, 0)")


def queries() -> list[str]:
    """The whole space, in a fixed order."""
    out: list[str] = []
    for e in ITEMS:
        out += [f"SELECT {e} AS c, nt.i FROM nt WHERE 1 = 1",
                f"SELECT {e} FROM nt WHERE nt.i > 0 OR TRUE",  # unaliased: Spark names it
                f"SELECT {e} AS c FROM nt ORDER BY 1 LIMIT 3",
                f"SELECT DISTINCT {e} AS c FROM nt WHERE TRUE",
                f"SELECT q.c FROM (SELECT {e} AS c FROM nt) AS q WHERE 1 = 1",
                f"SELECT {e} AS c FROM ne AS nt WHERE 1 = 1"]
        out += [f"SELECT {e} AS c, nt.s FROM nt {cond}" for cond in EMPTYING]
        out.append(f"SELECT {e} AS c FROM nt JOIN (SELECT * FROM nu WHERE FALSE) AS v ON nt.i = v.i")
    for jt in JOINS:
        reject = "nu.i > 0" + (" AND nt.i > 0" if jt == "FULL" else "")
        if jt == "RIGHT":
            reject = "nt.i > 0"
        padded = "nt" if jt == "RIGHT" else "nu"
        for c in COLUMNS:
            out += [f"SELECT nt.i AS a, nu.i AS b, {padded}.{c} FROM nt {jt} JOIN nu ON nt.i = nu.i WHERE {reject}",
                    f"SELECT {padded}.{c} AS c, count(*) AS k FROM nt {jt} JOIN nu ON nt.i = nu.i WHERE {reject} "
                    f"GROUP BY {padded}.{c}"]
        out += [f"SELECT * FROM nt {jt} JOIN nu ON nt.i = nu.i WHERE {reject}",
                f"SELECT {padded}.i + 1 AS c, {padded}.s FROM nt {jt} JOIN nu ON nt.i = nu.i WHERE {reject} "
                f"ORDER BY 1 LIMIT 3",
                f"SELECT DISTINCT {padded}.d FROM nt {jt} JOIN nu USING (i) WHERE {reject.replace('nu.i', 'i')}"]
    for op in SET_OPERATIONS:
        for a in SET_ITEMS:
            for b in SET_ITEMS:
                right = b.replace("nt.", "nu.")
                out += [f"SELECT {a} AS c FROM nt WHERE 1 = 1 {op} SELECT {right} AS c FROM nu",
                        f"SELECT {a} AS c FROM nt {op} SELECT {right} AS c FROM nu WHERE FALSE"]
    for where in ("WHERE FALSE", "WHERE nt.n = NULL"):
        out += [f"SELECT count(*) AS c, sum(nt.i) AS s, max(nt.s) AS m, count(nt.n) AS k, avg(nt.d) FROM nt {where}",
                f"SELECT nt.s, count(*) AS c, sum(nt.m) AS s FROM nt {where} GROUP BY nt.s",
                f"SELECT count(*) AS c FROM nt {where} HAVING count(*) = 0",
                f"SELECT min(nt.dt), max(nt.f), count(DISTINCT nt.b) FROM nt {where}"]
    out += ["TABLE nt", "SELECT * FROM (TABLE nt) WHERE 1 = 1", "SELECT q.i + 0 FROM (TABLE nt) AS q WHERE TRUE",
            "TABLE nt UNION ALL SELECT * FROM nu WHERE FALSE", "SELECT * FROM nu WHERE nu.n = NULL UNION TABLE nt",
            "SELECT * FROM nt WHERE nt.i > 0 OR TRUE EXCEPT TABLE nu",
            "WITH w AS (TABLE nt) SELECT w.i, w.n FROM w WHERE 1 = 1"]
    for star in ("q.st.*", "q.st.* EXCEPT (col2)", "q.st.* EXCEPT (i, col4)", "q.st.*, q.st.i + 1"):
        out += [f"SELECT {star} FROM (SELECT {STRUCT} AS st FROM nt) AS q WHERE 1 = 1",
                f"SELECT {star} FROM (SELECT {STRUCT} AS st FROM nt WHERE FALSE) AS q"]
    return list(dict.fromkeys(out))


ROWS = [(1, None, 1.5, None, 1.5, "1.25", "a", True, "2020-01-01"),
        (2, 3, float("nan"), -0.0, -0.0, "-3.00", "", None, "2000-02-29"),
        (3, None, -0.0, float("nan"), 2.5, "0.00", "b", False, "1999-12-31")]


def register(spark) -> dict:
    """The tables on `spark` (nt and nu hold ROWS, ne none); returns the catalog mapping."""
    import datetime as dt
    from decimal import Decimal

    from tests.data import register as register_table

    rows = [(i, n, d, x, f, Decimal(m), s, b, dt.date.fromisoformat(day)) for i, n, d, x, f, m, s, b, day in ROWS]
    for name in CATALOG:
        register_table(spark, name, COLUMNS, [] if name == "ne" else rows)
    return CATALOG


def cases() -> list[tuple[str, str]]:
    """(mode, query) over the whole space, in a fixed order."""
    return [(mode, sql) for mode in MODES for sql in queries()]


def set_mode(spark, mode: str) -> None:
    spark.conf.set("spark.sql.ansi.enabled", MODES[mode])


def regenerate(path: Path = GOLDEN) -> int:
    return golden_queries.record(path, MODES, queries(), register)


def load(path: Path = GOLDEN) -> dict[tuple[str, str], object]:
    return golden_queries.schemas(path)


def catalog(mode: str):
    from sparkfold.plans.sql_in.catalog import Catalog

    return Catalog.from_mapping(CATALOG, ansi=MODES[mode] == "true")


def modelled_schema(sql: str, mode: str = "ansi") -> list[list] | None:
    """The schema sparkfold's optimized query has as written, by its own model: per
    column [name, type, nullable], nullable None where it depends on an expression
    sparkfold does not model (`written_nullability`); None for a query passed through."""
    from sparkfold import optimize
    from sparkfold.optimizer.output_nullability import written_nullability

    r = optimize(sql, catalog(mode))
    if r.optimized is None:
        return None
    nullable = written_nullability(r.optimized)
    return [[a.name, a.data_type.simple_string(), n] for a, n in zip(r.optimized.output, nullable)]


def written_schema(sql: str, mode: str = "ansi") -> list[list] | None:
    """The schema of the text sparkfold writes for the query, as sparkfold's analyzer reads
    it back: per column [name, type]; None when the text is the input's."""
    from sparkfold import optimize

    r = optimize(sql, catalog(mode))
    if r.sql == sql:
        return None
    back = optimize(r.sql, catalog(mode), rules=[])
    if back.analyzed is None:
        return [["(passed through)", back.passthrough or ""]]
    return [[a.name, a.data_type.simple_string()] for a in back.analyzed.output]


def agrees_written(written: list[list], answer: list[list]) -> bool:
    """Do the written text's names and types (read back) agree with Spark's of the original?"""
    from sparkfold.optimizer.verify import base_type

    return len(written) == len(answer) and all(
        name == spark_name and t in (base_type(spark_type), "unknown")
        for (name, t), (spark_name, spark_type) in zip(written, answer))


def differences(golden: dict) -> list[str]:
    """Every case whose optimized schema (as modelled, and as its text reads back) is not
    Spark's of the original."""
    out = []
    for (mode, sql), answer in golden.items():
        if isinstance(answer, str):
            continue
        got = modelled_schema(sql, mode)
        if got is not None and not agrees(got, answer):
            out.append(f"{mode}: {sql}\n  Spark:     {answer}\n  sparkfold: {got}")
        written = written_schema(sql, mode) if got is not None else None
        if written is not None and not agrees_written(written, answer):
            out.append(f"{mode}: {sql}\n  Spark:     {answer}\n  as written: {written}")
    return out


def agrees(modelled: list[list], answer: list[list]) -> bool:
    """Does the model give Spark's schema (its nullability, where the model knows it)?"""
    from sparkfold.optimizer.verify import base_type

    if len(modelled) != len(answer):
        return False
    for (name, t, nullable), (spark_name, spark_type) in zip(modelled, answer):
        if name != spark_name or t not in (base_type(spark_type), "unknown"):  # (an unmodelled type)
            return False
        if nullable is not None and nullable != (not spark_type.endswith(" not null")):
            return False
    return True


def main(argv: list[str] | None = None) -> int:
    def check(_write_open: bool) -> int:
        golden = load()
        bad = differences(golden)
        print("\n".join(bad))
        print(f"{len(golden)} cases, {len(bad)} whose optimized schema differs from Spark's of the original")
        return 1 if bad else 0

    return cli.main(argv, __doc__, lambda: f"{regenerate()} cases written to {GOLDEN}", check)


if __name__ == "__main__":
    sys.exit(main())
