"""The constructor oracle: Spark's value constructors (`array(...)`, `struct(...)`,
`named_struct(...)`), the concatenation of arrays and `array_contains`, which sparkfold
keeps as opaque calls typed as Spark types them (plans/sql_in/constructors.py), over
arguments of every kind the space's table holds (NOT NULL and nullable columns of several
types, a struct, an array, literals, NULL, an expression), alone, in pairs and nested;
and what is built of them: VALUES columns, a struct column's star over one, a field read
by the name Spark gives it, recursive CTEs whose columns are arrays (Spark's held-out
postgreSQL/with.sql, which passed through whole).  Each query in ANSI mode and out of it.

    python -m tests.oracles.constructors --regenerate   # record Spark's schemas (a minute)
    python -m tests.oracles.constructors                # sparkfold's model against them

The golden file (`golden/constructors.jsonl.gz`, see `golden_queries`) holds Spark's
schema of each query (names, types, nullability, nested included) or its error class.
sparkfold's model is its analyzed plan's output: a column of a type it does not know
is not modelled (no verdict); one it types must be Spark's type, nested nullability
included, and a column it calls NOT NULL must be NOT NULL in Spark (a constructor's
column exactly so); a query Spark rejects must not be typed as accepted (one with a
column of a type sparkfold does not know is left to Spark, which rejects it there).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from . import cli, golden_queries

GOLDEN = Path(__file__).parent / "golden" / "constructors.jsonl.gz"

COLUMNS = {"i": "int not null", "n": "int", "l": "bigint not null", "s": "string not null", "ns": "string",
           "st": "struct<a:int,b:string>", "ar": "array<int>"}
CATALOG = {"ct": COLUMNS, "tree": {"id": "int", "parent_id": "int"}}
MODES = {"ansi": "true", "legacy": "false"}

ARGS = ("i", "n", "l", "s", "ns", "NULL", "1", "'x'", "st", "ar", "ct.I", "i + 1", "CAST(NULL AS INT)")
PAIRS = (("i", "n"), ("n", "i"), ("i", "NULL"), ("NULL", "n"), ("s", "ns"), ("i", "l"), ("i", "s"),
         ("st", "st"), ("ar", "ar"), ("1", "i + 1"), ("'x'", "ns"), ("st", "NULL"), ("ar", "NULL"))
CONSTRUCTORS = ("array({})", "struct({})", "named_struct('k', {})")


def items() -> list[str]:
    out = ["array()", "struct()", "CAST(array() AS ARRAY<INT>)", "CAST(array() AS ARRAY<STRING>)", "array(NULL)",
           "array(NULL, NULL)"]
    for a in ARGS:
        out += [f.format(a) for f in CONSTRUCTORS]
        out += [f"struct({a} AS k)", f"array(array({a}))", f"array(struct({a}), struct({a}))",
                f"array({a}) || array({a})", f"concat(ar, array({a}))", f"array_contains(array({a}), {a})",
                f"array_contains(ar, {a})"]
    for a, b in PAIRS:
        out += [f"array({a}, {b})", f"struct({a}, {b})", f"struct({a} AS k, {b})", f"named_struct('k', {a}, 'K2', {b})",
                f"named_struct('k', {a}, 'k', {b})", f"named_struct('k', {a}, 'K', {b})",
                f"array(named_struct('k', {a}), named_struct('k', {b}))", f"array(array({a}), array({b}))",
                f"array(struct({a}, {b}), struct({b}, {a}))", f"array({a}) || array({b})",
                f"concat(array({a}), array({b}), array({a}))", f"struct(array({a}), named_struct('x', {b}))",
                f"array_contains(array({a}), {b})"]
    out += ["array(1, 2) || array(3)", "array() || array(1)", "ar || ar", "concat(ar, ar, array(i))",
            "array(st, named_struct('a', 1, 'b', 'x'))", "array(named_struct('a', i, 'b', s), st)",
            "array(named_struct('A', i, 'b', s), st)", "struct(ct.i, CT.N, st.a)", "struct(st.*)",
            "array_contains(array(struct(i, n)), struct(n, i))", "array_contains(array(1), 1L)"]
    return list(dict.fromkeys(out))


def queries() -> list[str]:
    out = []
    for e in items():
        out += [f"SELECT {e} FROM ct WHERE 1 = 1", f"SELECT {e} AS c, i FROM ct WHERE i > 1 OR 1 = 1"]
    values = ["named_struct('a', 1, 'b', 'x')", "named_struct('a', NULL, 'b', 'y')", "array(1, NULL)", "array(2)",
              "CAST(array() AS ARRAY<INT>)", "struct(1, 'z')", "array(named_struct('k', 1))", "array()"]
    for a in values:
        for b in values:
            out.append(f"SELECT * FROM VALUES ({a}), ({b}) AS v(c) WHERE 1 = 1")
        out += [f"SELECT * FROM VALUES (1, {a}) WHERE 1 = 1", f"SELECT col2 FROM VALUES (1, {a}), (2, {a}) WHERE 1 = 1"]
    out += ["SELECT c1.* FROM VALUES (named_struct('a', 1, 'b', 2), 10, 20) AS t(c1, c2, c3) WHERE 1 = 1",
            "SELECT c.*, c.a + 1 FROM VALUES (named_struct('a', 1, 'b', NULL)), (named_struct('a', NULL, 'b', 'x')) "
            "AS v(c) WHERE 1 = 1",
            "SELECT col1.field, field FROM VALUES (named_struct('field', 1))",
            "SELECT col1.field, field FROM VALUES (named_struct('field', 1)) WHERE 1 = 1",
            "SELECT c1.* FROM VALUES (struct(1, 'a')) AS t(c1)"]
    # recursive CTEs whose columns are arrays (Spark's postgreSQL/with.sql)
    out += ["WITH RECURSIVE t(id, path) AS (VALUES (1, CAST(array() AS ARRAY<INT>)) UNION ALL "
            "SELECT tree.id, t.path || array(tree.id) FROM tree JOIN t ON (tree.parent_id = t.id)) "
            "SELECT t1.*, t2.* FROM t AS t1, t AS t2 WHERE t1.id = t2.id OR 1 = 1",
            "WITH RECURSIVE t(id, path) AS (VALUES (1, CAST(array() AS ARRAY<INT>)) UNION ALL "
            "SELECT tree.id, t.path || array(tree.id) FROM tree JOIN t ON (tree.parent_id = t.id)) "
            "SELECT id, size(path) FROM t WHERE 1 = 1",
            "WITH RECURSIVE g(f, t, path, cycle) AS (SELECT i, n, array(struct(i, n)), false FROM ct UNION ALL "
            "SELECT ct.i, ct.n, path || array(struct(ct.i, ct.n)), array_contains(path, struct(ct.i, ct.n)) "
            "FROM ct, g WHERE ct.i = g.t + 1 AND NOT cycle) SELECT * FROM g WHERE 1 = 1",
            "WITH RECURSIVE t(n, a) AS (SELECT 1, array(1) UNION ALL SELECT n + 1, a || array(n) FROM t WHERE n < 3) "
            "SELECT * FROM t WHERE 1 = 1",
            "WITH RECURSIVE t(n, a) AS (SELECT 1, array(1) UNION ALL SELECT n + 1, a || array(NULL) FROM t WHERE n < 3) "
            "SELECT * FROM t WHERE 1 = 1",
            "WITH RECURSIVE t(n, s) AS (SELECT 1, named_struct('x', 1) UNION ALL "
            "SELECT n + 1, named_struct('x', n) FROM t WHERE n < 3) SELECT * FROM t WHERE 1 = 1"]
    return list(dict.fromkeys(out))


ROWS = [(1, None, 2, "a", None, None, None), (2, 3, 4, "b", "x", (1, "y"), [1, None])]
TREE = [(1, None), (2, 1), (3, 1), (4, 2)]


def register(spark) -> dict:
    from tests.data import register as register_table

    register_table(spark, "ct", COLUMNS, ROWS)
    register_table(spark, "tree", CATALOG["tree"], TREE)
    return CATALOG


def cases() -> list[tuple[str, str]]:
    return [(mode, sql) for mode in MODES for sql in queries()]


def regenerate(path: Path = GOLDEN) -> int:
    return golden_queries.record(path, MODES, queries(), register)


def load(path: Path = GOLDEN) -> dict[tuple[str, str], object]:
    return golden_queries.schemas(path)


def catalog(mode: str):
    from sparkfold.plans.sql_in.catalog import Catalog

    return Catalog.from_mapping(CATALOG, ansi=MODES[mode] == "true")


def _constructed(sql: str, i: int) -> bool:
    """Is the query's i-th select item a constructor call (its column typed exactly)?"""
    head = sql.split(" FROM ")[0][len("SELECT "):]
    first = head.split(" AS c")[0] if " AS c, " in head else head
    return i == 0 and first.split("(")[0].lower() in ("array", "struct", "named_struct")


def verdict(mode: str, sql: str, answer) -> tuple[str, str]:
    """("ok" | "unknown" | "named otherwise" | "passthrough" | "rejected" | "wrong", detail)
    of sparkfold's model of one query against Spark's answer.  A column sparkfold names
    otherwise than Spark is one whose name it does not know (an opaque call's, which no
    reference may read: `refuse_unnamed`), counted apart."""
    from sparkfold import optimize
    from sparkfold.optimizer.errors import SparkfoldError
    from sparkfold.plans.ir import types as T

    try:
        r = optimize(sql, catalog(mode))
    except SparkfoldError as e:
        return ("rejected", "") if isinstance(answer, str) else ("wrong", f"rejected: {e}")
    if r.passthrough:
        return "passthrough", r.passthrough
    output = r.analyzed.output
    if isinstance(answer, str):
        # (a call sparkfold does not type is left to Spark, which rejects it there)
        if any(T.contains_unknown(a.data_type) for a in output):
            return "unknown", ""
        return "wrong", f"Spark rejects it ({answer}); sparkfold types it"
    if len(output) != len(answer):
        return "wrong", f"{len(output)} columns, Spark's {len(answer)}"
    seen = "ok"
    for i, (a, (name, spark_type)) in enumerate(zip(output, answer)):
        if T.contains_unknown(a.data_type):
            seen = "unknown"
            continue
        mine = T.schema_text(a.data_type, a.nullable)
        spark_nullable = not spark_type.endswith(" not null")
        base = spark_type[:-len(" not null")] if not spark_nullable else spark_type
        if T.schema_text(a.data_type) != base:
            return "wrong", f"column {i + 1}: {mine}, Spark's {spark_type}"
        if (not a.nullable and spark_nullable) or (_constructed(sql, i) and a.nullable != spark_nullable):
            return "wrong", f"column {i + 1} nullability: {mine}, Spark's {spark_type}"
        if a.name != name:
            seen = "named otherwise" if seen == "ok" else seen
    return seen, ""


def differences(golden: dict) -> list[str]:
    return [f"{mode}: {sql}\n  {detail}" for (mode, sql), answer in golden.items()
            for v, detail in [verdict(mode, sql, answer)] if v == "wrong"]


def main(argv: list[str] | None = None) -> int:
    def check(_write_open: bool) -> int:
        golden = load()
        counts = Counter(verdict(mode, sql, answer)[0] for (mode, sql), answer in golden.items())
        wrong = differences(golden)
        print(f"{len(golden)} cases: {dict(counts)}")
        print("\n".join(wrong[:30]))
        return 1 if wrong else 0

    return cli.main(argv, __doc__, lambda: f"{regenerate()} cases written to {GOLDEN}", check)


if __name__ == "__main__":
    sys.exit(main())
