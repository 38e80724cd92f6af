"""The precedence oracle: two comparisons or predicates in a row, as Spark reads them.

    python -m tests.oracles.precedence --regenerate   # ask Spark, write golden/precedence.jsonl.gz
    python -m tests.oracles.precedence                # sparkfold against it (no Spark)
    python -m tests.oracles.precedence --write-open   # list today's disagreements in precedence_open.txt

Spark gives every comparison one level, left to right, and lets at most one predicate
(IS ..., IN, BETWEEN, LIKE, ...) follow a value; sqlglot binds `<` tighter than `=` and
reads the predicates as operators (plans/sql_in/precedence.py).  The space: each pair
of the 9 comparison spellings and 16 predicates (a comparison then a comparison, a
comparison then a predicate, a predicate then a comparison, two predicates), a NOT
where Spark wants a value (after a comparison, an arithmetic operator, as a bound or a
pattern), and parenthesized controls, over boolean columns of the edge table
(tests/oracles/edge_table.py), so that most readings type-check and give values.
Spark's outcome in each mode (its values by row, or its error class) is in the golden
file.  Without Spark, for each expression as a SELECT value, sparkfold must:
- reject it (a syntax error) only where Spark's parser does (PARSE_SYNTAX_ERROR);
- never read what Spark's parser rejects (it may pass it through);
- where it reads the expression, give Spark's values for it as analyzed, run row by row
  by its evaluator (which the folding oracle checks), and where it rewrites it, for the
  rewrite too (the simplification oracle's comparison).
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from . import cli, edge_table
from .folds import in_share, read_rows, write_rows
from .simplifications import MODES, SOURCE, Unchecked, _compare, _from_golden, _to_golden

GOLDEN = Path(__file__).parent / "golden" / "precedence.jsonl.gz"
OPEN = Path(__file__).parent / "precedence_open.txt"
SYNTAX = "PARSE_SYNTAX_ERROR"

COMPARISONS = ["=", "==", "<>", "!=", "<=>", "<", "<=", ">", ">="]
PREDICATES = ["IS NULL", "IS NOT NULL", "IS TRUE", "IS NOT FALSE", "IS UNKNOWN", "IS DISTINCT FROM nb",
              "IS NOT DISTINCT FROM b", "IN (nb)", "NOT IN (TRUE, b)", "BETWEEN nb AND b",
              "NOT BETWEEN FALSE AND nb", "LIKE 'true'", "NOT LIKE 'f%'", "RLIKE 'ru'", "ILIKE 'TRUE'",
              "LIKE ANY ('true')"]


def space() -> list[str]:
    out = [f"b {a} nb {c} b" for a in COMPARISONS for c in COMPARISONS]
    out += [f"b {a} nb {p}" for a in COMPARISONS for p in PREDICATES]
    out += [f"b {p} {a} nb" for p in PREDICATES for a in COMPARISONS]
    out += [f"b {p} {q}" for p in PREDICATES for q in PREDICATES]
    out += [f"b {a} NOT nb" for a in COMPARISONS] + [f"NOT b {a} nb" for a in COMPARISONS]
    out += [f"b {a} !nb" for a in COMPARISONS] + [f"!b {a} nb" for a in COMPARISONS]
    # parenthesized, the readings both parsers share
    out += [f"(b {a} nb) {c} b" for a in ("=", "<=>", "<") for c in COMPARISONS]
    out += [f"b {a} (nb {c} b)" for a in ("=", "<=>", "<") for c in COMPARISONS]
    out += [f"(b {p}) {a} nb" for p in PREDICATES[::3] for a in ("=", "<")]
    # a CASE as an operand, and a comparison inside a bound or a pattern
    out += [f"b {a} CASE WHEN nb THEN b END {c} nb" for a in ("=", "<") for c in ("=", "<")]
    out += ["b BETWEEN nb = b AND b", "s LIKE 'a' = b", "s LIKE s = 'true'", "b IS DISTINCT FROM nb = b < nb"]
    # BETWEEN's bounds are values to Spark, comparisons included (`lower=valueExpression`):
    # a comparison in the lower bound (sqlglot's parser reads none), chains of them, both
    # bounds, and what no value holds (a predicate, NOT, OR: Spark's syntax errors)
    out += [f"b BETWEEN nb {a} b AND b" for a in COMPARISONS] + [f"b NOT BETWEEN b {a} nb AND nb" for a in COMPARISONS]
    out += [f"b BETWEEN nb {a} b {c} nb AND b" for a in ("=", "<", "<=>") for c in ("=", "<", "<=>")]
    out += ["b BETWEEN nb = b AND b = nb", "b BETWEEN (nb) = b AND (b)", "b BETWEEN nb = (b) AND b < nb",
            "b BETWEEN CASE WHEN nb = b THEN b END = nb AND b", "(b BETWEEN nb = b AND b) = nb",
            "b BETWEEN nb = b AND b AND nb", "b BETWEEN nb = b AND b OR nb", "NOT b BETWEEN nb <=> b AND b",
            "b BETWEEN nb IS NULL AND b", "b BETWEEN NOT nb AND b", "b BETWEEN nb IN (b) AND b",
            "b BETWEEN nb = b IN (b) AND b", "b BETWEEN nb BETWEEN b AND nb AND b", "b BETWEEN nb LIKE 'a' AND b",
            "b BETWEEN nb = b OR b AND nb", "b BETWEEN nb = NOT b AND b", "b BETWEEN nb = b IS TRUE AND b",
            # NOT starts no value: not as a bound, nor as a pattern (but inside parentheses, and in IN's list)
            "b BETWEEN !nb AND b", "b BETWEEN nb AND NOT b", "s LIKE NOT 'a'", "s RLIKE NOT 'ru'",
            "b BETWEEN (NOT nb) AND b", "b IN (NOT nb)", "b NOT BETWEEN NOT nb AND b"]
    # NOT where Spark wants a value (an operand, a bound, a pattern) starts no value (a
    # syntax error), but `NOT 'a'` there is one, a typed literal of type NOT (Spark's
    # UNSUPPORTED_TYPED_LITERAL); parenthesized, and where a boolean expression starts,
    # NOT is NOT
    wants_value = ["s = {}", "s <=> {}", "s < {}", "s LIKE {}", "s ILIKE {}", "s NOT RLIKE {}", "b BETWEEN {} AND b",
                   "b BETWEEN nb AND {}", "b NOT BETWEEN {} AND nb", "b IS DISTINCT FROM {}",
                   "b IS NOT DISTINCT FROM {}", "1 + {}", "1 - {}", "1 * {}", "1 / {}", "1 % {}", "1 DIV {}",
                   "s || {}", "1 & {}", "1 | {}", "1 ^ {}", "1 << {}", "1 >> {}", "- {}", "~ {}"]
    out += [w.format(v) for w in wants_value for v in ("NOT 'a'", "NOT nb", "(NOT nb)")]
    out += ["NOT 'a' = s", "b AND NOT 'true'", "s LIKE ANY (NOT 'a')", "b IN (NOT 'a')", "CAST(NOT 'a' AS STRING)",
            "s LIKE NOT 'a' 'b'", "s = NOT 'a' AND b", "s LIKE !'a'"]
    return list(dict.fromkeys(out))


def load(path: Path = GOLDEN) -> dict[str, dict]:
    return {row["expr"]: {m: _from_golden(row[m]) for m, _ in MODES} for row in read_rows(path)}


def stale(golden: dict) -> list[str]:
    wanted = set(space())
    return [e for e in wanted if e not in golden][:10] + [e for e in golden if e not in wanted][:10]


def record(spark) -> dict[str, dict]:
    from .spark_eval import Evaluator, mode

    edge_table.register(spark)
    exprs = space()
    out: dict[str, dict] = {e: {} for e in exprs}
    ev = Evaluator(spark, batch=100, source=SOURCE)
    for m, ansi in MODES:
        with mode(spark, ansi):
            for e, o in zip(exprs, ev.outcomes(exprs)):
                out[e][m] = o
    return out


def write(golden: dict, path: Path = GOLDEN) -> None:
    write_rows(path, ({"expr": e, **{m: _to_golden(row[m]) for m, _ in MODES}} for e, row in golden.items()))


# ---------------------------------------------------------------------------
# Checking without Spark
# ---------------------------------------------------------------------------


@dataclass
class Report:
    verdicts: Counter = field(default_factory=Counter)   # (mode, how sparkfold took it) -> expressions
    mismatches: list = field(default_factory=list)       # (class, mode, expression, detail)

    def summary(self) -> str:
        return f"{dict(sorted(self.verdicts.items()))}; mismatches {len(self.mismatches)} " \
               f"{dict(Counter((c, m) for c, m, *_ in self.mismatches))}"


def sparkfold_reading(e: str, ansi: bool):
    """("syntax" | "passthrough" | "rejected" | "rejected CLASS" | "read", analyzed plan,
    the rules' plan); "rejected CLASS": by its parser, with the class Spark's gives."""
    from sparkfold.plans.ir.errors import ParseError
    from sparkfold.plans.sql_in.parse import parse_query
    from sparkfold.plans.sql_in.precedence import MEANING

    from .sparkfold_side import _catalog, _plans, optimized

    sql = f"SELECT {e} AS c FROM {SOURCE}"
    try:
        tree = parse_query(sql, placed=False)
    except ParseError as error:
        return ("syntax" if error.error_class is None else f"rejected {error.error_class}"), None, None
    if tree.meta.get(MEANING) is not None:
        return "passthrough", None, None
    got = _plans(sql, {SOURCE: edge_table.SCHEMA}, ansi)
    if got is None:  # rejected or passed through by the analysis: which one
        r = optimized([], _catalog(ansi, {SOURCE: edge_table.SCHEMA}), sql=sql)
        return ("rejected" if isinstance(r, Exception) else "passthrough"), None, None
    return ("read", *got)


def check(golden: dict, share: int = 1) -> Report:
    """sparkfold against Spark's outcomes (of every expression, or of one `share`)."""
    report = Report()
    for e in in_share(list(golden), share):
        for m, ansi in MODES:
            theirs = golden[e][m]
            how, before, after = sparkfold_reading(e, ansi)
            report.verdicts[(m, how)] += 1
            spark_syntax = theirs.get("e") == SYNTAX
            if how == "syntax" or how.startswith("rejected"):
                if not spark_syntax if how == "syntax" else "e" not in theirs:
                    report.mismatches.append((f"valid rejected ({how})", m, e, f"Spark: {theirs}"))
                elif how.startswith("rejected ") and theirs["e"] != how.split()[1]:
                    report.mismatches.append(("rejected with another class", m, e, f"{how}; Spark: {theirs}"))
                continue
            if how != "read":
                continue
            if spark_syntax:
                report.mismatches.append(("syntax error read", m, e, "Spark's parser rejects it"))
                continue
            for what, plan in (("analyzed", before), ("rewritten", after)):
                if what == "rewritten" and after == before:
                    continue
                if what == "analyzed" and "e" in theirs:
                    continue  # (an error of Spark's analysis: the type oracle's, unless a rewrite drops it)
                try:
                    problem = _compare("select", plan, theirs, ansi, replaced=what == "rewritten")
                except Unchecked:
                    report.verdicts[(m, f"{what} unchecked")] += 1
                    continue
                if problem is not None:
                    report.mismatches.append((f"{what}: {problem[0]}", m, e, problem[1]))
    return report


def live(spark, golden: dict, exprs: list[str]) -> Report:
    """On Spark now: the original gives the golden answer, and the SQL sparkfold writes
    for it (the original where it passes it through or rejects it) gives it too."""
    from .folds import same_outcome
    from .spark_eval import Evaluator, mode
    from .sparkfold_side import _catalog, column_sql, optimized

    edge_table.register(spark)
    report = Report()
    ev = Evaluator(spark, batch=100, source=SOURCE)
    for m, ansi in MODES:
        cat = _catalog(ansi, {SOURCE: edge_table.SCHEMA})
        texts = []
        for e in exprs:
            sql = f"SELECT {e} AS c FROM {SOURCE}"
            r = optimized([], cat, sql=sql)
            written = None if isinstance(r, Exception) or r.passthrough is not None or r.sql == sql else column_sql(r)
            texts.append(written[0] if written else e)
        with mode(spark, ansi):
            for e, text, o, w in zip(exprs, texts, ev.outcomes(exprs), ev.outcomes(texts)):
                report.verdicts[(m, "live")] += 1
                if not same_outcome(golden[e][m], o):
                    report.mismatches.append(("golden differs", m, e, f"{golden[e][m]} vs {o}"))
                elif not same_outcome(golden[e][m], w):
                    report.mismatches.append(("written differs", m, e, f"{text}: {golden[e][m]} vs {w}"))
    return report


def mismatch_keys(report: Report) -> set[tuple[str, str, str]]:
    return {(c, m, e) for c, m, e, _d in report.mismatches}


def open_keys(path: Path = OPEN) -> set[tuple[str, ...]]:
    """The disagreements not fixed yet (class, mode, expression), as --write-open listed them."""
    return cli.read_open(path, 3)


def write_open(report: Report, path: Path = OPEN) -> None:
    cli.write_open(mismatch_keys(report), path, "The precedence oracle's", "class, mode, expression")


def main(argv=None) -> int:
    return cli.golden_main(argv, sys.modules[__name__])


if __name__ == "__main__":
    sys.exit(main())
