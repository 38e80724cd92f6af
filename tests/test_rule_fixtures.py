"""Rule fixtures: SQL input / expected pairs per rule family (tests/fixtures/rules/).

A file starts with `-- rules: A, B` (the rules its cases run with, to a fixed point);
each case is a comment naming the identity, the query, and the query as the rules leave
it (the same text for a guard, a case that must not be rewritten), each ending in `;`.
Every case checks the rewrite, that the expected text is a fixed point, and, on Spark,
that the query and the expected one agree (names, types, rows, or the error raised), and
that the optimizer's output (the rules' with the original's nullability kept) has the
query's schema, nullability included.

    python -m tests.test_rule_fixtures        # print what the rules make of every case
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sparkfold import optimize
from sparkfold.optimizer.batches import RULES
from sparkfold.optimizer.output_nullability import NAME as KEEP_NULLABILITY

from tests.data import STANDARD_SCHEMA
from tests.spark_check import assert_same_result, schema_of

FIXTURES = Path(__file__).parent / "fixtures" / "rules"


def load(path: Path) -> tuple[list[str], list[tuple[str, str, str, int]]]:
    text = path.read_text()
    rules = re.search(r"^-- rules: (.+)$", text, re.M).group(1).split(", ")
    cases = []
    for block in re.split(r"\n\s*\n", text):
        lines = block.strip().splitlines()
        comments = [ln for ln in lines if ln.startswith("--")]
        body = "\n".join(ln for ln in lines if not ln.startswith("--")).strip()
        if not body:
            continue
        parts = [p.strip() for p in body.split(";") if p.strip()]
        assert len(parts) == 2, f"{path.name}: a case is a query and its expected text: {body!r}"
        line = text[:text.index(block.strip())].count("\n") + 1
        cases.append((comments[-1][3:] if comments else "", parts[0], parts[1], line))
    return rules, cases


def _normal(sql: str) -> str:
    return " ".join(sql.split())


CASES = [(f"{p.stem}:{line}", rules, doc, query, expected)
         for p in sorted(FIXTURES.glob("*.sql")) for rules, cases in [load(p)]
         for doc, query, expected, line in cases]


def _optimize(sql: str, rules: list[str], keep_nullability: bool = False):
    """The rules' own output (the optimizer's last step, which gives the output columns
    the original's nullability back, left out: optimizer/output_nullability.py)."""
    return optimize(sql, STANDARD_SCHEMA, rules=[RULES[n] for n in rules],
                    exclude=() if keep_nullability else (KEEP_NULLABILITY,))


@pytest.mark.parametrize("case, rules, doc, query, expected", CASES, ids=[c[0] for c in CASES])
def test_rule_fixture(spark, tables, case, rules, doc, query, expected):
    result = _optimize(query, rules)
    assert _normal(result.sql) == _normal(expected), f"{case} ({doc}): got {result.sql}"
    again = _optimize(expected, rules)
    assert _normal(again.sql) == _normal(expected), f"{case}: the expected text is not a fixed point"
    # the rule's identity keeps values, names and types (a fold may make a column NOT NULL) ...
    assert_same_result(spark, query, expected, context=f"{case}: {doc}", nullability=False)
    # ... and what the optimizer returns keeps the nullability too
    kept = _optimize(query, rules, keep_nullability=True)
    assert schema_of(spark.sql(kept.sql)) == schema_of(spark.sql(query)), f"{case}: {kept.sql}"


def test_every_family_has_cases_and_guards():
    families = {c[0].split(":")[0] for c in CASES}
    assert len(families) >= 4 and len(CASES) >= 20
    guards = [c for c in CASES if _normal(c[3]) == _normal(c[4])]
    assert guards, "each family should say what it must not rewrite"


if __name__ == "__main__":
    for case, rules, doc, query, expected in CASES:
        got = _optimize(query, rules).sql
        mark = "" if _normal(got) == _normal(expected) else "   <-- differs"
        print(f"{case} ({doc})\n  {query}\n  {got}{mark}")
