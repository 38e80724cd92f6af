"""The simplification oracle: each case of each expression rule over the columns of
the edge table (tests/oracles/simplify_space.py, edge_table.py), in ANSI and legacy mode.

    python -m tests.oracles.simplifications --regenerate   # ask Spark, write golden/simplifications.jsonl.gz
    python -m tests.oracles.simplifications --check        # sparkfold against it (no Spark)
    python -m tests.oracles.simplifications --write-open   # list today's disagreements in simplifications_open.txt

The golden file holds Spark's outcome for each expression over the table's rows (by
id), in each mode: `[type, [value per row]]` or `"!ERROR_CLASS"` (the first row that
raises decides it: the table has one partition, in id order).

The check without Spark: sparkfold optimizes each expression as a SELECT value and, when
Spark types it boolean, as a WHERE condition.  Where a rule rewrote it, the rewritten
expression is evaluated on every row by sparkfold's evaluator (which the folding oracle
checks against Spark value by value), the columns read as the row's values: it must
give Spark's values for the original (doubles bit for bit) and its type, keep the rows
where the original is TRUE, and raise where the original raises.  What the evaluator
does not model (a non-deterministic operand, a cast it leaves to Spark) is checked on
live Spark only: there original and optimized SQL run side by side.  The disagreements
not fixed yet are listed in simplifications_open.txt, which the test holds as a ratchet.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from . import cli, edge_table
from .folds import in_share, read_rows, write_rows
from .simplify_space import cases

GOLDEN = Path(__file__).parent / "golden" / "simplifications.jsonl.gz"
OPEN = Path(__file__).parent / "simplifications_open.txt"
MODES = (("ansi", True), ("legacy", False))
SOURCE = "edge"


def _to_golden(o):
    from .folds import to_golden

    return to_golden(o)


def _from_golden(g):
    from .folds import from_golden

    return from_golden(g)


def load(path: Path = GOLDEN) -> dict[str, dict]:
    return {row["expr"]: {"rule": row["rule"], **{m: _from_golden(row[m]) for m, _ in MODES}}
            for row in read_rows(path)}


def stale(golden: dict) -> list[str]:
    wanted = {c.sql for c in cases()}
    return [e for e in wanted if e not in golden][:10] + [e for e in golden if e not in wanted][:10]


# ---------------------------------------------------------------------------
# Recording (Spark)
# ---------------------------------------------------------------------------


def record(spark) -> dict[str, dict]:
    from .spark_eval import Evaluator, mode

    edge_table.register(spark)
    all_cases = cases()
    exprs = [c.sql for c in all_cases if not c.sql.startswith("SELECT ")]
    whole = [c.sql for c in all_cases if c.sql.startswith("SELECT ")]
    out = {c.sql: {"rule": c.rule} for c in all_cases}
    ev = Evaluator(spark, batch=200, source=SOURCE)
    for m, ansi in MODES:
        t0 = time.time()
        with mode(spark, ansi):
            for e, o in zip(exprs, ev.outcomes(exprs)):
                out[e][m] = o
            for q in whole:
                out[q][m] = query_outcome(spark, q)
        print(f"{m}: {len(exprs)} expressions, {len(whole)} queries ({time.time() - t0:.0f} s, "
              f"{ev.queries + len(whole)} queries)", file=sys.stderr)
    return out


def query_outcome(spark, sql: str) -> dict:
    """A whole query's outcome: the ids it returns, in order, or its error class."""
    from .spark_eval import condition_of

    try:
        return {"t": "ids", "v": sorted(r[0] for r in spark.sql(sql).collect())}
    except Exception as e:  # noqa: BLE001 - the error is the answer
        return {"e": condition_of(e)}


def write(golden: dict, path: Path = GOLDEN) -> None:
    write_rows(path, ({"expr": e, "rule": row["rule"], **{m: _to_golden(row[m]) for m, _ in MODES}}
                      for e, row in golden.items()))


# ---------------------------------------------------------------------------
# Checking without Spark: the rewritten expression evaluated row by row
# ---------------------------------------------------------------------------


class Unchecked(Exception):
    """sparkfold's evaluator cannot decide this (a non-deterministic operand, a cast it
    leaves to Spark, an operator the interpreter below does not run): live Spark only."""


class Raised(Exception):
    """Evaluating the plan raises (sparkfold's evaluator says Spark would)."""


def _evaluate_on(e, env: dict[int, object], ansi: bool):
    """e's value on a row (the values of the attributes it reads)."""
    from sparkfold.plans.ir import expressions as E
    from sparkfold.plans.ir.evaluate import CannotEvaluate, EvaluationError, evaluate
    from sparkfold.plans.ir.tree import transform_up

    def bind(n):
        if isinstance(n, E.Attribute):
            if n.expr_id not in env:
                raise Unchecked(f"column {n.name}")
            return E.Literal(env[n.expr_id], n.data_type)
        return n

    try:
        return evaluate(transform_up(e, bind), ansi)
    except CannotEvaluate as x:
        raise Unchecked(str(x)) from None
    except EvaluationError as x:
        raise Raised(str(x)) from None


def run_plan(plan, ansi: bool) -> list[dict[int, object]]:
    """The rows of a plan over the edge table, each as attribute id -> value, evaluated
    by sparkfold's evaluator: scans, projections, filters, inner joins, aliases, local
    relations (anything else is Unchecked).  Raises Raised where a row raises."""
    from sparkfold.plans.ir import expressions as E
    from sparkfold.plans.ir import logical as L

    match plan:
        case L.Relation(table, output) if table.lower() == SOURCE:
            names = list(edge_table.SCHEMA)
            return [{a.expr_id: dict(zip(names, row))[a.name.lower()] for a in output} for row in edge_table.rows()]
        case L.LocalRelation(output, rows):
            return [{a.expr_id: v for a, v in zip(output, row)} for row in rows]
        case L.OneRowRelation():
            return [{}]
        case L.SubqueryAlias(_, child):
            return run_plan(child, ansi)
        case L.Filter(condition, child):
            return [env for env in run_plan(child, ansi) if _evaluate_on(condition, env, ansi) is True]
        case L.Project(projections, child):
            out = []
            for env in run_plan(child, ansi):
                row = {}
                for p in projections:
                    if isinstance(p, E.Attribute):
                        row[p.expr_id] = env[p.expr_id]
                    elif isinstance(p, E.Alias):
                        row[p.expr_id] = _evaluate_on(p.child, env, ansi)
                    else:
                        raise Unchecked("projection")
                out.append(row)
            return out
        case L.Join(left, right, jt, condition) if jt in (L.INNER, L.CROSS):
            rights = run_plan(right, ansi)
            out = []
            for a in run_plan(left, ansi):
                for b in rights:
                    env = {**a, **b}
                    if condition is None or _evaluate_on(condition, env, ansi) is True:
                        out.append(env)
            return out
        case _:
            raise Unchecked(f"plan node {type(plan).__name__}")


def rows_of(plan, ansi: bool) -> list[tuple]:
    return [tuple(env[a.expr_id] for a in plan.output) for env in run_plan(plan, ansi)]


@dataclass
class Report:
    checked: Counter = field(default_factory=Counter)      # (mode, context) -> cases
    rewritten: Counter = field(default_factory=Counter)    # (mode, context) -> cases a rule rewrote
    unchecked: Counter = field(default_factory=Counter)    # (mode, context) -> rewritten, left to live Spark
    mismatches: list = field(default_factory=list)         # (class, mode, context, expr, detail)

    def summary(self) -> str:
        offline = {k: self.rewritten[k] - self.unchecked[k] for k in self.rewritten}
        return (f"checked {dict(self.checked)}; rewritten {dict(self.rewritten)}; evaluated offline {offline}; "
                f"mismatches {len(self.mismatches)} {dict(Counter((c, m, x) for c, m, x, *_ in self.mismatches))}")


def queries_of(e: str, outcome: dict) -> list[tuple[str, str]]:
    """(context, query) the oracle checks an expression in: a SELECT value; a WHERE
    condition when Spark types it boolean (or rejects it); a query template as it is."""
    if e.startswith("SELECT "):
        return [("query", e)]
    out = [("select", f"SELECT {e} AS c FROM {SOURCE}")]
    if outcome.get("t") == "boolean" or "e" in outcome:
        out.append(("where", f"SELECT id FROM {SOURCE} WHERE {e}"))
    return out


def expected_rows(context: str, outcome: dict):
    """What Spark's outcome says each context returns: a SELECT value's values by row,
    a WHERE condition's kept ids (rows where the value is TRUE), a query's ids."""
    if "e" in outcome:
        return None
    if context == "where":
        return [(k,) for k, v in enumerate(outcome["v"]) if v is True]
    if context == "query":
        return [(v,) for v in outcome["v"]]
    return outcome["v"]


def check(golden: dict, share: int = 1) -> Report:
    """The rewrites of every expression (or of one `share`, see folds.in_share)."""
    from .sparkfold_side import plans_of

    report = Report()
    exprs = in_share(list(golden), share)
    for m, ansi in MODES:
        todo = [(e, c, q) for e in exprs if golden[e][m] is not None for c, q in queries_of(e, golden[e][m])]
        pairs = plans_of([q for _, _, q in todo], {SOURCE: edge_table.SCHEMA}, ansi)
        for (e, context, _), (before, after) in zip(todo, pairs):
            report.checked[(m, context)] += 1
            if before is None or after == before:
                continue  # rejected, passed through, or left as it is: Spark's own answer
            report.rewritten[(m, context)] += 1
            try:
                problem = _compare(context, after, golden[e][m], ansi, _replaced(before, after), before)
            except Unchecked:
                report.unchecked[(m, context)] += 1
                continue
            if problem is not None:
                report.mismatches.append((problem[0], m, context, e, problem[1]))
    return report


def _replaced(before, after) -> bool:
    """Is the SELECT value's expression replaced by one of another kind (whose type is
    then sparkfold's to write)?  A rewrite below the same operator leaves its type to
    Spark (the type oracle, tests/oracles/expr_types.py, checks sparkfold's model)."""
    from sparkfold.plans.ir import expressions as E

    def root(plan):
        p = plan.projections[0] if hasattr(plan, "projections") else None
        return p.child if isinstance(p, E.Alias) else p

    return type(root(before)) is not type(root(after))


def _compare(context: str, plan, theirs: dict, ansi: bool, replaced: bool = True, original=None):
    """(class, detail) where the rewritten plan, run by the evaluator, differs from
    Spark's outcome for the original; None where it agrees.  An error the evaluator
    raises on the original plan too is not the rewrite's: Spark's optimizer drops it
    from the text (`(i + 1) + NULL` is NULL, the overflow never evaluated), which the
    evaluator does not model; such a case is left to the live check."""
    from .sparkfold_side import _spark_text, same_value

    if context == "select":
        t = plan.output[0].data_type.simple_string()
        # (an opaque type is Spark's to decide: sparkfold keeps the text)
        if replaced and "e" not in theirs and t != theirs["t"] and t != "unknown":
            return "type differs", f"{t} vs Spark's {theirs['t']}"
        if "e" not in theirs and t != theirs["t"]:
            # kept below the same operator, whose type Spark gives the written text; the
            # evaluator would compute at sparkfold's model of it (IF(NULL, f, i) at float
            # where Spark's is a double under ANSI): the type oracle's matter, live only
            raise Unchecked(f"the model's type {t} is not Spark's {theirs['t']}")
    try:
        got = rows_of(plan, ansi)
    except Raised as x:
        if "e" in theirs:
            return None
        if original is not None and _raises(original, ansi):
            raise Unchecked(f"the evaluator raises on the original too ({x}), where Spark's optimizer drops it")
        return "error introduced", str(x)
    if "e" in theirs:
        return "error dropped", f"Spark raises {theirs['e']}; the rewrite returns {len(got)} rows"
    expected = expected_rows(context, theirs)
    if context == "select":
        values = [_spark_text(r[0], t) for r in got]
        for k, (a, b) in enumerate(zip(values, expected)):
            if not same_value(a, b, t):
                return "value differs", f"row {k}: {a!r} vs Spark's {b!r}"
        return None
    if sorted(got) != sorted(expected):
        return "rows differ", f"{sorted(got)} vs Spark's {sorted(expected)}"
    return None


def _raises(plan, ansi: bool) -> bool:
    try:
        rows_of(plan, ansi)
    except Raised:
        return True
    return False


def mismatch_keys(report: Report) -> set[tuple[str, str, str, str]]:
    return {(c, m, x, e) for c, m, x, e, _d in report.mismatches}


def open_keys(path: Path = OPEN, share: int = 1) -> set[tuple[str, ...]]:
    """The disagreements listed as not fixed yet: (class, mode, context, expression)."""
    return {k for k in cli.read_open(path, 4) if in_share([k[3]], share)}


def write_open(report: Report, path: Path = OPEN) -> None:
    cli.write_open(mismatch_keys(report), path, "The simplification oracle's",
                   "class, mode, context, expression")


# ---------------------------------------------------------------------------
# Live Spark: original and optimized side by side
# ---------------------------------------------------------------------------


def _boolean(outcome: dict) -> bool:
    return "e" not in outcome and outcome.get("t") == "boolean"


def live(spark, golden: dict, exprs: list[str], where_limit: int = 60) -> Report:
    """On Spark now: the original (the golden file must still be Spark's answer), and
    sparkfold's optimized SQL, as SELECT values (in batches) and as WHERE conditions
    (one query each, `where_limit` of them per mode)."""
    from .folds import same_outcome
    from .spark_eval import Evaluator, mode
    from .sparkfold_side import _catalog, optimized_select_columns
    from tests.spark_check import run_or_error

    edge_table.register(spark)
    report = Report()
    ev = Evaluator(spark, batch=200, source=SOURCE)
    for m, ansi in MODES:
        whole = [e for e in exprs if e.startswith("SELECT ") and golden[e][m] is not None]
        todo = [e for e in exprs if not e.startswith("SELECT ") and golden[e][m] is not None]
        cat = _catalog(ansi, {SOURCE: edge_table.SCHEMA})
        with mode(spark, ansi):
            for q in whole:
                from .sparkfold_side import optimized

                report.checked[(m, "query")] += 1
                if not same_outcome(golden[q][m], query_outcome(spark, q)):
                    report.mismatches.append(("golden differs", m, "query", q, ""))
                r = optimized([], cat, sql=q)
                if not isinstance(r, Exception) and r.sql != q \
                        and not same_outcome(golden[q][m], query_outcome(spark, r.sql)):
                    report.mismatches.append(("query differs", m, "query", q, r.sql))
            for e, o in zip(todo, ev.outcomes(todo)):
                report.checked[(m, "spark")] += 1
                if not same_outcome(golden[e][m], o):
                    report.mismatches.append(("golden differs", m, "spark", e, f"{golden[e][m]} vs {o}"))
            texts = optimized_select_columns(todo, cat, SOURCE)
            for e, text, o in zip(todo, texts, ev.outcomes(texts)):
                report.checked[(m, "select")] += 1
                if not same_outcome(golden[e][m], o):
                    report.mismatches.append(("select differs", m, "select", e, f"{text}: {golden[e][m]} vs {o}"))
            for e in [e for e in todo if _boolean(golden[e][m])][:where_limit]:
                from .sparkfold_side import optimized

                sql = f"SELECT id FROM {SOURCE} WHERE {e}"
                r = optimized([], cat, sql=sql)
                if isinstance(r, Exception) or r.sql == sql:
                    continue
                report.checked[(m, "where")] += 1
                a, b = run_or_error(spark, sql), run_or_error(spark, r.sql)
                same = a == b if a[0] == "error" or b[0] == "error" else sorted(a[1]) == sorted(b[1])
                if not same:
                    report.mismatches.append(("where differs", m, "where", e, f"{r.sql}: {a} vs {b}"))
    return report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--regenerate", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--write-open", action="store_true", help=f"list today's disagreements in {OPEN.name}")
    ap.add_argument("--share", type=int, default=1, help="check one share of this many (as the default test run)")
    ap.add_argument("--show", type=int, default=40)
    args = ap.parse_args(argv)
    if args.regenerate:
        from .session import spark_session

        t0 = time.time()
        golden = record(spark_session())
        write(golden)
        print(f"wrote {GOLDEN} ({len(golden)} expressions) in {time.time() - t0:.0f} s", file=sys.stderr)
    if args.check or args.write_open or not args.regenerate:
        golden = load()
        if (problems := stale(golden)):
            print("the golden file is stale, run with --regenerate: " + "; ".join(problems[:5]), file=sys.stderr)
            return 2
        t0, c0 = time.time(), time.process_time()
        report = check(golden, args.share)
        print(report.summary())
        print(f"({time.time() - t0:.1f} s, {time.process_time() - c0:.1f} s of CPU)")
        for c, m, x, e, d in report.mismatches[:args.show]:
            print(f"[{c}] {m} {x}: {e}\n    {d}")
        if args.write_open:
            write_open(report)
        return 1 if report.mismatches else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
