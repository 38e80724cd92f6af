"""The quantified LIKE oracle: `v [NOT] LIKE | ILIKE ANY | SOME | ALL (pattern, ...)`, which
sparkfold keeps as written and evaluates (plans.ir.quantified_like) where a Filter over rows
it holds keeps none of them (rules.local_relation), against Spark's value for each value.

The space: every form (LIKE / ILIKE x ANY / SOME / ALL x NOT or not) over every list of
patterns (each pattern alone; every ordered pair of a set of patterns, NULL among them;
some triples), each over every value of a column (`VALUES`, NULL among them), in ANSI mode
and out of it.  The values and patterns hold what LIKE reads apart: `%` and `_`, the
escape character before `%`, `_`, itself, another character and at the end (Spark raises
on the last two), the empty string, upper and lower case, a newline, a non-ASCII letter.

    python -m tests.oracles.quantified_like --regenerate   # record Spark's answers (a minute)
    python -m tests.oracles.quantified_like                # sparkfold against them

The golden file (`golden/quantified_like.jsonl.gz`) is `golden_queries`': one line per
mode and query, `[mode, query, schema, rows]` (the rows `[i, value]`, by i), or
`[mode, query, "!ERROR_CLASS", null]` when Spark raises.
"""

from __future__ import annotations

import functools
import itertools
import sys
from pathlib import Path

from . import cli, golden_queries

GOLDEN = Path(__file__).parent / "golden" / "quantified_like.jsonl.gz"
MODES = {"ansi": "true", "legacy": "false"}

VALUES = ("abc", "ABC", "", "a_c", "a%c", "a\\c", "aé", "a\nc", "Abc", None)
PATTERNS = ("%", "", "a%", "%C", "_b_", "a\\%c", "a\\_c", "a\\\\c", "\\", "\\a", None, "ABC", "%b%", "É%",
            "a_c", "a%\nc")
PAIRED = ("%", "a%", "%C", None, "\\a", "ABC", "", "_b_")
TRIPLES = (("%b%", None, "x"), ("x", "y", None), ("a%", "%c", "%b%"), (None, None, None), ("a%", "\\", "x"))
FORMS = tuple(f"{neg}{op} {q}" for op in ("LIKE", "ILIKE") for q in ("ANY", "SOME", "ALL") for neg in ("", "NOT "))


def literal(v: str | None) -> str:
    """A Spark SQL string literal of v (backslash escapes read, as Spark's default)."""
    if v is None:
        return "NULL"
    return "'" + v.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"


def malformed(pattern: str) -> bool:
    """Does Spark raise on this LIKE pattern (the escape character before a character
    other than `_`, `%` and itself, or last)?"""
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\":
            if i + 1 == len(pattern) or pattern[i + 1] not in "_%\\":
                return True
            i += 1
        i += 1
    return False


def pattern_lists() -> list[tuple[str | None, ...]]:
    out: list[tuple[str | None, ...]] = [(p,) for p in PATTERNS]
    out += list(itertools.product(PAIRED, repeat=2))
    out += list(TRIPLES)
    return list(dict.fromkeys(out))


def table(values: tuple[str | None, ...] = VALUES) -> str:
    return "VALUES " + ", ".join(f"({i}, {literal(v)})" for i, v in enumerate(values)) + " AS t(i, v)"


def query(form: str, patterns: tuple[str | None, ...]) -> str:
    return f"SELECT i, v {form} ({', '.join(map(literal, patterns))}) AS r FROM {table()} ORDER BY i"


def cases() -> list[tuple[str, tuple[str | None, ...]]]:
    """(form, patterns): each is a query over every value."""
    return [(form, ps) for form in FORMS for ps in pattern_lists()]


def regenerate(path: Path = GOLDEN) -> int:
    return golden_queries.record(path, MODES, [query(f, ps) for f, ps in cases()], lambda spark: None, rows=True)


def load(path: Path = GOLDEN) -> dict[tuple[str, str], tuple]:
    return {case: tuple(answer) for case, answer in golden_queries.load(path).items()}


@functools.cache
def _catalog(ansi: bool):
    from sparkfold.plans.sql_in.catalog import Catalog

    return Catalog.from_mapping({"t": {"i": "int not null", "v": "string"}}, ansi=ansi)


@functools.cache
def expression(form: str, patterns: tuple[str | None, ...], ansi: bool):
    """sparkfold's analysis of `v FORM (patterns)` over t(v STRING), and v's id."""
    from sparkfold import optimize

    r = optimize(f"SELECT v {form} ({', '.join(map(literal, patterns))}) AS r FROM t", _catalog(ansi))
    project = r.analyzed
    (alias,) = project.projections
    (v,) = [a for a in project.child.output if a.name == "v"]
    return alias.child, v


def sparkfold_value(form: str, patterns: tuple[str | None, ...], value: str | None, ansi: bool):
    """("value", v) | ("raises", why) | ("unknown", why): the evaluator's answer for one row."""
    from sparkfold.plans.ir import expressions as E
    from sparkfold.plans.ir.evaluate import CannotEvaluate, EvaluationError, evaluate
    from sparkfold.rules.local_relation import _bound

    e, v = expression(form, patterns, ansi)
    try:
        return "value", evaluate(_bound(e, {v.expr_id: E.Literal(value, v.data_type)}), ansi)
    except EvaluationError as x:
        return "raises", str(x)
    except CannotEvaluate as x:
        return "unknown", str(x)


def verdicts(golden: dict[tuple[str, str], tuple], sample=None) -> tuple[dict[str, int], list[str]]:
    """Counts by verdict over the space (or `sample` of its cases) and the wrong cases: a
    value must be Spark's; where Spark raises, sparkfold may not give a value."""
    from tests.oracles.golden_queries import cell_text

    counts = {"ok": 0, "unknown": 0, "wrong": 0}
    wrong: list[str] = []
    for mode in MODES:
        ansi = MODES[mode] == "true"
        for form, ps in (sample or cases()):
            sql = query(form, ps)
            schema, rows = golden[(mode, sql)]
            spark = {int(i): r for i, r in rows} if rows is not None else None
            for i, value in enumerate(VALUES):
                kind, got = sparkfold_value(form, ps, value, ansi)
                if kind != "value":
                    counts["unknown"] += 1
                    continue
                expected = spark[i] if spark is not None else schema
                if spark is None or cell_text(got) != expected:
                    counts["wrong"] += 1
                    wrong.append(f"{mode}: {literal(value)} {form} {ps}: Spark {expected}, sparkfold {got}")
                else:
                    counts["ok"] += 1
    return counts, wrong


def main(argv: list[str] | None = None) -> int:
    return cli.verdicts_main(argv, sys.modules[__name__])


if __name__ == "__main__":
    sys.exit(main())
