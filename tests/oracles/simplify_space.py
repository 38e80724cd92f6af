"""The space of the simplification oracle: each case of each expression rule, over
operands that are columns of the edge table (tests/oracles/edge_table.py).

A template is a rule's case written as SQL with slots; a slot takes the operand shapes
of its family (`SHAPES`): nullable and NOT NULL columns, literals at the edges, a typed
and an untyped NULL, an operand that raises on some rows (ANSI), a non-deterministic
one.  A template of one slot takes every shape; of two, every shape of each slot meets
the other slot's core shapes (`CORE`); of three, each slot takes every shape while the
others hold their family's first.  A boolean case is checked both as a SELECT value
(NULL stays NULL) and as a WHERE condition (where NULL and FALSE both drop the row).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

# operand shapes by family: the first is the plain nullable column
SHAPES = {
    "p": ["b", "nb", "i > 0", "ni > 0", "d = 'NaN'", "s IS NULL", "isnan(d)", "CAST(s AS INT) > 0",
          "rand(7) > 0.5", "TRUE", "FALSE", "CAST(NULL AS BOOLEAN)", "NULL"],
    "n": ["i", "ni", "l", "d", "nd", "f", "m", "w", "0", "-0.0D", "CAST('NaN' AS DOUBLE)", "2.5", "NULL",
          "CAST(NULL AS INT)", "i + 1", "rand(7)"],
    "s": ["s", "ns", "''", "'NaN'", "'1'", "NULL", "CAST(NULL AS STRING)", "upper(s)"],
    "t": ["dt", "DATE'2020-02-29'", "CAST(NULL AS DATE)", "NULL"],
}

# the shapes a slot takes when it meets another slot's every shape: a nullable and a NOT
# NULL column, a NULL, one that raises, a non-deterministic one
CORE = {"p": ["b", "nb", "CAST(s AS INT) > 0", "rand(7) > 0.5", "NULL"],
        "n": ["i", "ni", "d", "NULL", "i + 1", "rand(7)"],
        "s": ["s", "ns", "NULL", "upper(s)"],
        "t": ["dt", "NULL"]}

# A template: (rule, SQL with {p0} {p1} {n0} ... slots, family of each slot by its letter)
TEMPLATES: list[tuple[str, str]] = [
    # BooleanSimplification
    ("BooleanSimplification", "TRUE AND {p0}"), ("BooleanSimplification", "{p0} AND TRUE"),
    ("BooleanSimplification", "FALSE AND {p0}"), ("BooleanSimplification", "{p0} AND FALSE"),
    ("BooleanSimplification", "FALSE OR {p0}"), ("BooleanSimplification", "{p0} OR FALSE"),
    ("BooleanSimplification", "TRUE OR {p0}"), ("BooleanSimplification", "{p0} OR TRUE"),
    ("BooleanSimplification", "NULL AND {p0}"), ("BooleanSimplification", "{p0} OR NULL"),
    ("BooleanSimplification", "{p0} AND {p0}"), ("BooleanSimplification", "{p0} OR {p0}"),
    ("BooleanSimplification", "{p0} AND NOT {p0}"), ("BooleanSimplification", "{p0} OR NOT {p0}"),
    ("BooleanSimplification", "NOT {p0} AND {p0}"), ("BooleanSimplification", "NOT {p0} OR {p0}"),
    ("BooleanSimplification", "{p0} AND (NOT {p0} OR {p1})"), ("BooleanSimplification", "(NOT {p0} OR {p1}) AND {p0}"),
    ("BooleanSimplification", "({p1} OR NOT {p0}) AND {p0}"), ("BooleanSimplification", "{p0} OR (NOT {p0} AND {p1})"),
    ("BooleanSimplification", "({p1} AND NOT {p0}) OR {p0}"),
    ("BooleanSimplification", "({p0} OR {p1}) AND ({p0} OR {p2})"),
    ("BooleanSimplification", "({p0} AND {p1}) OR ({p0} AND {p2})"),
    ("BooleanSimplification", "{p0} AND {p1} AND {p0}"), ("BooleanSimplification", "{p0} OR {p1} OR {p0}"),
    ("BooleanSimplification", "NOT NOT {p0}"), ("BooleanSimplification", "NOT ({p0} AND {p1})"),
    ("BooleanSimplification", "NOT ({p0} OR {p1})"), ("BooleanSimplification", "NOT ({n0} > {n1})"),
    ("BooleanSimplification", "NOT ({n0} <= {n1})"), ("BooleanSimplification", "NOT ({n0} IS NULL)"),
    ("BooleanSimplification", "NOT TRUE"), ("BooleanSimplification", "NOT ({p0} AND NOT ({p1} OR {p0}))"),
    # NullPropagation
    ("NullPropagation", "{n0} IS NULL"), ("NullPropagation", "{n0} IS NOT NULL"),
    ("NullPropagation", "{s0} IS NULL"), ("NullPropagation", "{p0} IS NOT NULL"),
    ("NullPropagation", "{n0} <=> NULL"), ("NullPropagation", "NULL <=> {n0}"),
    ("NullPropagation", "{s0} <=> CAST(NULL AS INT)"), ("NullPropagation", "{n0} <=> CAST(NULL AS STRING)"),
    ("NullPropagation", "coalesce(NULL, {n0}, {n1})"), ("NullPropagation", "coalesce({n0}, NULL)"),
    ("NullPropagation", "coalesce({n0}, {n1}, {n0})"), ("NullPropagation", "coalesce({s0}, 'x')"),
    ("NullPropagation", "NULL IN ({n0}, {n1})"), ("NullPropagation", "{n0} + NULL"),
    ("NullPropagation", "NULL - {n0}"), ("NullPropagation", "{n0} * CAST(NULL AS INT)"),
    ("NullPropagation", "{n0} / NULL"), ("NullPropagation", "{n0} = NULL"), ("NullPropagation", "NULL < {n0}"),
    ("NullPropagation", "{s0} = CAST(NULL AS INT)"), ("NullPropagation", "{n0} = CAST(NULL AS STRING)"),
    ("NullPropagation", "NOT NULL"), ("NullPropagation", "upper(NULL)"), ("NullPropagation", "concat({s0}, NULL)"),
    ("NullPropagation", "abs(CAST(NULL AS INT))"), ("NullPropagation", "{s0} LIKE NULL"),
    ("NullPropagation", "-(CAST(NULL AS INT))"), ("NullPropagation", "CAST(NULL AS INT) + {n0}"),
    ("NullPropagation", "nullif({n0}, NULL)"), ("NullPropagation", "nanvl({n0}, NULL)"),
    ("NullPropagation", "greatest({n0}, NULL)"), ("NullPropagation", "{n0} BETWEEN NULL AND {n1}"),
    ("NullPropagation", "substring({s0}, NULL)"), ("NullPropagation", "date_add({t0}, NULL)"),
    ("NullPropagation", "{n0} IN (NULL, {n1})"), ("NullPropagation", "isnan(NULL)"),
    # SimplifyConditionals
    ("SimplifyConditionals", "IF(TRUE, {n0}, {n1})"), ("SimplifyConditionals", "IF(FALSE, {n0}, {n1})"),
    ("SimplifyConditionals", "IF(CAST(NULL AS BOOLEAN), {n0}, {n1})"), ("SimplifyConditionals", "IF({p0}, {n0}, {n0})"),
    ("SimplifyConditionals", "IF({p0}, TRUE, FALSE)"), ("SimplifyConditionals", "IF({p0}, FALSE, TRUE)"),
    ("SimplifyConditionals", "IF({p0}, NULL, FALSE)"), ("SimplifyConditionals", "IF({p0}, NULL, TRUE)"),
    ("SimplifyConditionals", "IF({p0}, FALSE, NULL)"), ("SimplifyConditionals", "IF({p0}, TRUE, NULL)"),
    ("SimplifyConditionals", "IF({p0}, {s0}, {s0})"), ("SimplifyConditionals", "IF({p0}, {n0}, NULL)"),
    ("SimplifyConditionals", "CASE WHEN FALSE THEN {n0} WHEN {p0} THEN {n1} END"),
    ("SimplifyConditionals", "CASE WHEN TRUE THEN {n0} ELSE {n1} END"),
    ("SimplifyConditionals", "CASE WHEN {p0} THEN {n0} WHEN TRUE THEN {n1} ELSE {n0} END"),
    ("SimplifyConditionals", "CASE WHEN {p0} THEN {n0} WHEN {p1} THEN {n1} ELSE {n1} END"),
    ("SimplifyConditionals", "CASE WHEN {p0} THEN {n0} ELSE NULL END"),
    ("SimplifyConditionals", "CASE WHEN {p0} THEN {n0} ELSE {n0} END"),
    ("SimplifyConditionals", "CASE WHEN {p0} THEN TRUE ELSE FALSE END"),
    ("SimplifyConditionals", "CASE WHEN {p0} THEN FALSE END"),
    ("SimplifyConditionals", "CASE WHEN CAST(NULL AS BOOLEAN) THEN {n0} ELSE {n1} END"),
    ("SimplifyConditionals", "CASE {n0} WHEN {n1} THEN 'a' ELSE 'b' END"),
    # SimplifyBinaryComparison
    ("SimplifyBinaryComparison", "{n0} = {n0}"), ("SimplifyBinaryComparison", "{n0} >= {n0}"),
    ("SimplifyBinaryComparison", "{n0} <= {n0}"), ("SimplifyBinaryComparison", "{n0} > {n0}"),
    ("SimplifyBinaryComparison", "{n0} < {n0}"), ("SimplifyBinaryComparison", "{n0} <=> {n0}"),
    ("SimplifyBinaryComparison", "{s0} = {s0}"), ("SimplifyBinaryComparison", "{t0} < {t0}"),
    ("SimplifyBinaryComparison", "{p0} = TRUE"), ("SimplifyBinaryComparison", "{p0} = FALSE"),
    ("SimplifyBinaryComparison", "TRUE = {p0}"), ("SimplifyBinaryComparison", "{p0} <=> TRUE"),
    ("SimplifyBinaryComparison", "{p0} <=> FALSE"), ("SimplifyBinaryComparison", "FALSE <=> {p0}"),
    ("SimplifyBinaryComparison", "{n0} IS NOT NULL AND {n0} = {n0}"),
    ("SimplifyBinaryComparison", "{n0} IS NOT NULL AND {n0} < {n0}"),
    # OptimizeIn
    ("OptimizeIn", "{n0} IN ({n1})"), ("OptimizeIn", "{n0} IN ({n1}, {n1})"),
    ("OptimizeIn", "{n0} NOT IN ({n1})"), ("OptimizeIn", "{n0} IN (1, 1, 2)"),
    ("OptimizeIn", "{n0} IN (1, 1L, 1.0)"), ("OptimizeIn", "{n0} IN ('1', '1')"),
    ("OptimizeIn", "{s0} IN ({s1})"), ("OptimizeIn", "{s0} IN (1)"), ("OptimizeIn", "{s0} IN ('a', NULL, 'a')"),
    ("OptimizeIn", "{n0} IN (NULL)"), ("OptimizeIn", "{t0} IN ({t0})"), ("OptimizeIn", "{p0} IN (TRUE, TRUE)"),
    # ConstantFolding over columns: string literals cast once
    ("ConstantFolding", "{n0} = 'NaN'"), ("ConstantFolding", "{n0} < '-Infinity'"),
    ("ConstantFolding", "{n0} >= ' 1 '"), ("ConstantFolding", "{n0} = '1.5'"), ("ConstantFolding", "{n0} <=> 'x'"),
    ("ConstantFolding", "{n0} IN ('NaN', 'inf')"), ("ConstantFolding", "{n0} IN ('1', 2)"),
    ("ConstantFolding", "{t0} = '2020-02-29'"), ("ConstantFolding", "{p0} = 'true'"),
    ("ConstantFolding", "{n0} + (1 + 1)"), ("ConstantFolding", "IF({p0}, 1 / 0, 2 + 3)"),
    ("ConstantFolding", "coalesce({n0}, 1 + 1, 1 / 0)"),
    # ReplaceNullWithFalseInPredicate (as conditions and in IF / CASE conditions)
    ("ReplaceNullWithFalseInPredicate", "{p0} AND NULL"), ("ReplaceNullWithFalseInPredicate", "NOT ({p0} AND NULL)"),
    ("ReplaceNullWithFalseInPredicate", "IF({p0}, NULL, {p1})"),
    ("ReplaceNullWithFalseInPredicate", "CASE WHEN {p0} THEN NULL ELSE {p1} END"),
    ("ReplaceNullWithFalseInPredicate", "CASE WHEN {p0} THEN {p1} END"),
    ("ReplaceNullWithFalseInPredicate", "NOT ({n0} IN (1, NULL))"),
    ("ReplaceNullWithFalseInPredicate", "NOT (NULL IN ({n0}))"),
    ("ReplaceNullWithFalseInPredicate", "IF({p0} OR NULL, 1, 2)"),
    ("ReplaceNullWithFalseInPredicate", "CASE WHEN NULL AND {p0} THEN 1 ELSE 2 END"),
    ("ReplaceNullWithFalseInPredicate", "({p0} AND NULL) <=> TRUE"),
    ("ReplaceNullWithFalseInPredicate", "NOT ({p0} AND NOT {p0})"),
    ("ReplaceNullWithFalseInPredicate", "NOT ({p0} OR NOT {p0})"),
    ("ReplaceNullWithFalseInPredicate", "{p0} OR NULL AND {p1}"),
]


@dataclass(frozen=True)
class Case:
    rule: str
    template: str
    sql: str


def _slots(template: str) -> list[str]:
    import re

    return list(dict.fromkeys(re.findall(r"\{([pnst]\d)\}", template)))


def _fill(template: str, slots: list[str]) -> list[dict[str, str]]:
    if len(slots) == 1:
        return [{slots[0]: shape} for shape in SHAPES[slots[0][0]]]
    if len(slots) == 2:
        a, b = slots
        pairs = itertools.chain(itertools.product(SHAPES[a[0]], CORE[b[0]]),
                                itertools.product(CORE[a[0]], SHAPES[b[0]]))
        return [{a: x, b: y} for x, y in dict.fromkeys(pairs)]
    base = {s: SHAPES[s[0]][0] for s in slots}
    out = []
    for s in slots:
        for shape in SHAPES[s[0]]:
            out.append({**base, s: shape})
    return out


def cases() -> list[Case]:
    """Every template over its slots' shapes (a boolean one is also a WHERE condition:
    the oracle tells by Spark's type), and the whole queries (`queries`)."""
    out: dict[str, Case] = {}
    for rule, template in TEMPLATES:
        for filling in _fill(template, _slots(template)):
            sql = template.format(**filling)
            out.setdefault(sql, Case(rule, template, sql))
    for c in queries():
        out.setdefault(c.sql, c)
    return list(out.values())


# Whole queries for the rules that put constants into conditions (FoldablePropagation,
# ConstantPropagation): Spark's answer is the ids they return.
_CONSTANTS = ["1", "0", "-0.0D", "CAST('NaN' AS DOUBLE)", "NULL", "CAST(NULL AS INT)", "'1'", "2147483647"]


def queries() -> list[Case]:
    out: list[Case] = []
    fp = "SELECT id FROM (SELECT {c} AS c, id FROM edge) t WHERE c {op} {w}"
    for c in _CONSTANTS:
        for w in _CONSTANTS:
            out.append(Case("FoldablePropagation", fp, fp.format(c=c, op="=", w=w)))
        for w in dict.fromkeys([c, "NULL", "1"]):
            for op in ("<", "<=>"):
                out.append(Case("FoldablePropagation", fp, fp.format(c=c, op=op, w=w)))
            join = "SELECT a.id FROM (SELECT {c} AS k, id FROM edge) a JOIN (SELECT {w} AS k) b ON a.k = b.k"
            out.append(Case("FoldablePropagation", join, join.format(c=c, w=w)))
    raising = "SELECT id FROM (SELECT 1 / {c} AS c, id FROM edge) t WHERE c > 0"
    out += [Case("FoldablePropagation", raising, raising.format(c=c)) for c in ("0", "1", "NULL")]
    cp = "SELECT id FROM edge WHERE {x} = {v} AND {e}"
    for x, values, conjuncts in (
            ("i", ["0", "1", "2147483647", "-1"], ["i + 1 > 0", "10 / i > 1", "i = 1", "i <=> NULL", "i IN (0, 1)",
                                                  "CAST(i AS STRING) = '0'", "i * 2 < 0", "NOT (i > 0)"]),
            ("d", ["-0.0D", "0.0D", "CAST('NaN' AS DOUBLE)"], ["1 / d < 0", "d > 0", "isnan(d)"]),
            ("m", ["0.00", "1.25", "-0.01"], ["m * 10 > 0"]),
            ("ns", ["'1'", "' 7 '"], ["length(ns) > 1"])):
        for v in values:
            for e in conjuncts:
                out.append(Case("ConstantPropagation", cp, cp.format(x=x, v=v, e=e)))
    return list({c.sql: c for c in out}.values())
