"""The subquery-clause oracle: which subquery forms Spark takes in which clause.

    python -m tests.oracles.subquery_clauses --regenerate   # ask Spark, write golden/subquery_clauses.jsonl.gz
    python -m tests.oracles.subquery_clauses                # sparkfold against it (no Spark)

Spark's CheckAnalysis takes an IN or EXISTS subquery in a filter, a join, a projection,
an aggregation or a window only, and a correlated scalar subquery in fewer places; its
resolution reads a subquery's outer references from the operator's input only (in ORDER
BY, the select list's output).  The space: each subquery form (EXISTS, NOT EXISTS, IN,
NOT IN, a scalar subquery compared, EXISTS under CASE, IN under coalesce), correlated
with the query's own column or not, in each clause (ORDER BY, as its second key, under
an aggregate function there, HAVING, WHERE, the select list, GROUP BY, a window's ORDER
BY and PARTITION BY, an aggregate's argument, a join condition, a derived table's ORDER
BY, SORT BY, DISTRIBUTE BY, CLUSTER BY, the ORDER BY of a set operation) of a query with
no aggregate, with GROUP BY, with a global aggregate, or DISTINCT.  Spark's answer in
each mode (ANSI and not) is the outcome of its analysis: the query's schema, or its
error class.  Without Spark, sparkfold must, for each query and mode:
- where Spark rejects it: reject it with Spark's error class, or pass it through;
- where Spark takes it: not reject it (its rows, written and whole, are the live test's:
  tests/test_oracle_subquery_clauses.py).
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from . import cli
from .folds import in_share, read_rows, write_rows

GOLDEN = Path(__file__).parent / "golden" / "subquery_clauses.jsonl.gz"
MODES = (("ansi", True), ("legacy", False))
TABLES = {"hv": {"a": "int", "b": "int", "c": "int"}}
ROWS = [(1, 20, 1), (30, 5, 1), (2, 20, 2), (4, 1, 2), (None, 20, None)]

# {x}: a value of the query's rows; {r}: the subquery's outer reference (or a constant)
FORMS = {
    "exists": "EXISTS (SELECT 1 FROM hv h2 WHERE h2.b = {r})",
    "not exists": "NOT EXISTS (SELECT 1 FROM hv h2 WHERE h2.b = {r})",
    "in": "{x} IN (SELECT h2.a FROM hv h2 WHERE h2.b = {r})",
    "not in": "{x} NOT IN (SELECT h2.a FROM hv h2 WHERE h2.b = {r})",
    "scalar": "(SELECT max(h2.a) FROM hv h2 WHERE h2.b = {r}) > 0",
    "case exists": "CASE WHEN EXISTS (SELECT 1 FROM hv h2 WHERE h2.b = {r}) THEN 1 ELSE 0 END = 1",
    "coalesce in": "coalesce({x} IN (SELECT h2.a FROM hv h2 WHERE h2.b = {r}), false)",
}
# kind: (select list, FROM and GROUP BY, {x}, the outer reference, ORDER BY's first key)
KINDS = {
    "no aggregate": ("c, a", "FROM hv", "a", "hv.c", "c"),
    "group by": ("c, max(a) AS m", "FROM hv GROUP BY c", "c", "hv.c", "c"),
    "global aggregate": ("max(a) AS m", "FROM hv", "max(a)", "hv.b", "m"),
    "distinct": ("DISTINCT c", "FROM hv", "c", "hv.c", "c"),
}


def _queries() -> list[tuple[str, str, str, str, str]]:
    """(form, correlated or not, kind, clause, query) over the whole space."""
    out = []
    for fk, form in FORMS.items():
        for corr in ("correlated", "uncorrelated"):
            for kind, (items, frm, x, ref, key) in KINDS.items():
                r = ref if corr == "correlated" else "1"
                p = form.format(x=x, r=r)
                q = [("ORDER BY", f"SELECT {items} {frm} ORDER BY {p}"),
                     ("ORDER BY, second key", f"SELECT {items} {frm} ORDER BY {key} DESC, {p}")]
                if kind in ("group by", "global aggregate"):
                    q += [("HAVING", f"SELECT {items} {frm} HAVING {p}"),
                          ("ORDER BY, under an aggregate",
                           f"SELECT {items} {frm} ORDER BY max({form.format(x='a', r=r)})")]
                if kind == "group by":
                    q += [("select list", f"SELECT c, {p} AS z {frm}")]
                if kind == "no aggregate":
                    q += [("WHERE", f"SELECT {items} {frm} WHERE {p}")]
                    q += [(clause, f"SELECT {items} {frm} {clause} ({p})")
                          for clause in ("SORT BY", "DISTRIBUTE BY", "CLUSTER BY")]
                    q += [("select list", f"SELECT c, {p} AS z FROM hv"),
                          ("GROUP BY", f"SELECT count(*) AS n FROM hv GROUP BY {p}"),
                          ("window ORDER BY", f"SELECT c, rank() OVER (ORDER BY {p}) AS r FROM hv"),
                          ("window PARTITION BY", f"SELECT c, rank() OVER (PARTITION BY {p} ORDER BY c) AS r FROM hv"),
                          ("aggregate argument", f"SELECT max(CAST({p} AS INT)) AS z FROM hv"),
                          ("join condition",
                           f"SELECT hv.c FROM hv JOIN hv h3 ON h3.a = hv.a AND {form.format(x='hv.a', r=r)}"),
                          ("derived table's ORDER BY", f"SELECT * FROM (SELECT {items} {frm} ORDER BY {p}) AS q")]
                out += [(fk, corr, kind, clause, sql) for clause, sql in q]
        out.append((fk, "uncorrelated", "set operation", "ORDER BY",
                    "SELECT c, a FROM hv UNION ALL SELECT a, c FROM hv ORDER BY "
                    + form.format(x="a", r="1")))
    return out


def space() -> list[str]:
    return list(dict.fromkeys(q for *_, q in _queries()))


def register(spark) -> None:
    from tests.data import local_copy

    local_copy(spark.createDataFrame(ROWS, "a int, b int, c int")).createOrReplaceTempView("hv")


def spark_outcome(spark, sql: str) -> str:
    """"ok" when Spark's analysis takes the query, else its error class."""
    from .spark_items import error_class

    try:
        spark.sql(sql).schema
        return "ok"
    except Exception as e:  # noqa: BLE001 - Spark's error is the answer
        return error_class(e)


def record(spark) -> dict[str, dict[str, str]]:
    from .spark_eval import mode

    register(spark)
    out: dict[str, dict[str, str]] = {q: {} for q in space()}
    for m, ansi in MODES:
        with mode(spark, ansi):
            for q in out:
                out[q][m] = spark_outcome(spark, q)
    return out


def load(path: Path = GOLDEN) -> dict[str, dict[str, str]]:
    return {row["sql"]: {m: row[m] for m, _ in MODES} for row in read_rows(path)}


def write(golden: dict, path: Path = GOLDEN) -> None:
    write_rows(path, ({"sql": q, **row} for q, row in golden.items()))


def stale(golden: dict) -> list[str]:
    wanted = set(space())
    return [q for q in wanted if q not in golden][:10] + [q for q in golden if q not in wanted][:10]


# ---------------------------------------------------------------------------
# Checking without Spark
# ---------------------------------------------------------------------------

_CLASS = re.compile(r"^\[([A-Z_.]+)\]")


def sparkfold_outcome(sql: str, ansi: bool) -> str:
    """"read", "passthrough", or "rejected CLASS" (the class sparkfold names, "?" if none)."""
    from sparkfold import optimize
    from sparkfold.optimizer.errors import SparkfoldError
    from sparkfold.plans.ir.errors import ParseError
    from sparkfold.plans.sql_in.catalog import Catalog

    try:
        result = optimize(sql, Catalog.from_mapping(TABLES, ansi=ansi))
    except ParseError as e:
        return f"rejected {e.error_class or 'PARSE_SYNTAX_ERROR'}"
    except SparkfoldError as e:
        found = _CLASS.match(e.message)
        return f"rejected {found.group(1) if found else '?'}"
    return "passthrough" if result.passthrough else "read"


@dataclass
class Report:
    verdicts: Counter = field(default_factory=Counter)   # (mode, Spark's, sparkfold's) -> queries
    mismatches: list = field(default_factory=list)       # (class, mode, query, detail)

    def summary(self) -> str:
        return f"{dict(sorted(self.verdicts.items()))}; mismatches {len(self.mismatches)} " \
               f"{dict(Counter((c, m) for c, m, *_ in self.mismatches))}"


def check(golden: dict, share: int = 1) -> Report:
    report = Report()
    for q in in_share(list(golden), share):
        for m, ansi in MODES:
            theirs = golden[q][m]
            ours = sparkfold_outcome(q, ansi)
            report.verdicts[(m, "taken" if theirs == "ok" else "rejected", ours.split()[0])] += 1
            if theirs == "ok":
                if ours.startswith("rejected"):
                    report.mismatches.append(("valid rejected", m, q, ours))
            elif ours == "read":
                report.mismatches.append(("error dropped", m, q, f"Spark: {theirs}"))
            elif ours.startswith("rejected") and ours.split()[1] != theirs:
                report.mismatches.append(("rejected with another class", m, q, f"{ours}; Spark: {theirs}"))
    return report


def main(argv=None) -> int:
    return cli.golden_main(argv, sys.modules[__name__], show=60)


if __name__ == "__main__":
    sys.exit(main())
