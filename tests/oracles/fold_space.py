"""The space of constant expressions sparkfold's evaluator folds (plans/ir/evaluate.py):
every form it evaluates, over the edge values of every type (tests/oracles/edge_values.py).

A form is a template with operand slots.  Its type combinations are every assignment of
the types to its slots; Spark's analysis decides which combinations exist (the recorder
asks it once per combination, with each type's representative value).  For a
combination Spark accepts, the expressions are the form over the values of its types:

- one operand: every value of the type;
- two operands: every value of one against the core values of the other, and the core
  values against each other (so every edge value meets every type, and every pair of
  edges of one type meets: `2147483647 + 1`, `NaN = NaN`, `'NaN' = NaN`);
- conditionals (IF, CASE, coalesce): every value in the branch taken, the other
  branch's type representative in the branch not taken (the result is the taken value
  cast to the common type), and a raising operand where it is not evaluated;
- the lazy forms below: an operand that raises (edge_values.RAISING) where Spark does
  not evaluate it, and where it does.

Every expression is a string of Spark SQL; the same text goes to Spark and to sparkfold.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from .edge_values import RAISING, TYPES, VALUES, Value, representative, values

CAST_TARGETS = ("boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "decimal(1,0)",
                "decimal(10,2)", "decimal(38,0)", "decimal(38,18)", "decimal(38,38)", "string", "date",
                "timestamp", "timestamp_ntz", "binary")


@dataclass(frozen=True)
class Form:
    name: str
    template: str                        # slots {0}, {1}, {2}
    arity: int
    shape: str = "pairs"                 # how values fill the slots (see `expressions`)
    slot_types: tuple = ()               # a fixed type per slot (None: every type)
    tier: str = "edges"                  # "edges", "core" or "types": how many values (see `expressions`)

    def sql(self, *operands: str) -> str:
        return self.template.format(*operands)


def _forms() -> list[Form]:
    out: list[Form] = []
    unary = ["NOT {0}", "-({0})", "{0} IS NULL", "{0} IS NOT NULL", "isnan({0})", "abs({0})", "upper({0})",
             "lower({0})", "length({0})", "trim({0})", "ltrim({0})", "rtrim({0})", "year({0})", "month({0})",
             "dayofmonth({0})", "round({0})"]
    out += [Form(t, t, 1) for t in unary]
    out += [Form(t, t, 1, tier="core") for t in ("ucase({0})", "lcase({0})", "char_length({0})",
                                                 "character_length({0})")]
    for target in CAST_TARGETS:
        out.append(Form(f"CAST(_ AS {target})", "CAST({0} AS " + target.upper() + ")", 1))
        out.append(Form(f"TRY_CAST(_ AS {target})", "TRY_CAST({0} AS " + target.upper() + ")", 1))
    # the operators whose edges are the point: every pair of edge values of a type
    edges = ["{0} = {1}", "{0} < {1}", "{0} <=> {1}", "{0} + {1}", "{0} - {1}", "{0} * {1}", "{0} / {1}",
             "{0} % {1}", "{0} div {1}", "{0} AND {1}", "{0} OR {1}"]
    out += [Form(t, t, 2) for t in edges]
    core = ["{0} <> {1}", "nullif({0}, {1})", "nanvl({0}, {1})", "greatest({0}, {1})", "round({0}, {1})",
            "date_add({0}, {1})", "datediff({0}, {1})", "substring({0}, {1})", "{0} IN ({1})"]
    out += [Form(t, t, 2, tier="core") for t in core]
    # the other orderings, the mirrors and spellings of the forms above
    types = ["{0} <= {1}", "{0} > {1}", "{0} >= {1}", "least({0}, {1})", "date_sub({0}, {1})",
             "{0} NOT IN ({1})"]
    out += [Form(t, t, 2, tier="types") for t in types]
    # (their operands are cast to strings, which the casts check value by value)
    out += [Form(t, t, 2, tier="types") for t in ("concat({0}, {1})", "{0} || {1}", "{0} LIKE {1}")]
    # conditionals: the value taken, the other branch's type
    out.append(Form("coalesce({0}, {1})", "coalesce({0}, {1})", 2, "first_taken"))
    for t in ("nvl({0}, {1})", "ifnull({0}, {1})"):
        out.append(Form(t, t, 2, "first_taken", tier="types"))
    out.append(Form("IF({2}, {0}, {1})", "IF({2}, {0}, {1})", 3, "branch_taken", (None, None, "boolean")))
    out.append(Form("CASE WHEN {2} THEN {0} ELSE {1} END", "CASE WHEN {2} THEN {0} ELSE {1} END", 3,
                    "branch_taken", (None, None, "boolean"), tier="types"))
    out.append(Form("CASE WHEN {1} THEN {0} END", "CASE WHEN {1} THEN {0} END", 2, "branch_taken",
                    (None, "boolean")))
    # three operands, the last two of one type: between, IN lists, substring...
    for t in ("{0} BETWEEN {1} AND {2}", "{0} NOT BETWEEN {1} AND {2}", "{0} IN ({1}, {2})", "greatest({0}, {1}, {2})",
              "coalesce({0}, {1}, {2})", "substring({0}, {1}, {2})"):
        out.append(Form(t, t, 3, "range", tier="types"))
    return out


FORMS = _forms()

# Forms that leave an operand unevaluated: {0} is a value, {1} an operand that raises.
LAZY = ["IF(TRUE, {0}, {1})", "IF(FALSE, {1}, {0})", "IF(NULL, {1}, {0})", "IF({1} IS NULL, {0}, {0})",
        "CASE WHEN FALSE THEN {1} ELSE {0} END", "CASE WHEN TRUE THEN {0} ELSE {1} END",
        "CASE WHEN TRUE THEN {0} WHEN {1} IS NULL THEN {0} END", "coalesce({0}, {1})", "coalesce({1}, {0})",
        "nvl({0}, {1})", "nanvl({0}, {1})", "nullif({0}, {1})", "greatest({0}, {1})", "{0} IN ({0}, {1})",
        "{0} IN ({1}, {0})", "{1} IN ({0})", "{0} = {1}", "{1} = {0}", "{0} <=> {1}", "{1} IS NULL",
        "{1} IS NOT NULL"]
LAZY_BOOLEAN = ["FALSE AND {1}", "{1} AND FALSE", "TRUE OR {1}", "{1} OR TRUE", "NULL AND {1}", "{1} AND NULL",
                "NOT ({1} AND FALSE)", "IF({1}, 1, 1)", "CASE WHEN {1} THEN 1 ELSE 1 END", "{1} = {1}",
                "{1} <=> {1}", "{1} AND NOT {1}", "{1} OR NOT {1}", "{1} = TRUE", "{1} <=> NULL"]
# LIKE patterns: wildcards, escapes (valid, invalid, at the end), case, the empty pattern
PATTERNS = ["'%'", "'_'", "'a%'", "'%c'", "'a_c'", r"'a\_c'", r"'a\%'", r"'\\\\'", r"'a\\b'", r"'a\\'",
            "''", "'ABC'", "'%ß%'", "'%NaN'"]


def type_combinations(form: Form) -> list[tuple[str, ...]]:
    """Every assignment of types to the form's slots (a fixed slot keeps its type)."""
    if form.shape == "range":  # the second and third operands share a type
        return [(a, b, b) for a in TYPES for b in TYPES]
    slots = [TYPES if (not form.slot_types or form.slot_types[i] is None) else (form.slot_types[i],)
             for i in range(form.arity)]
    return list(itertools.product(*slots))


def representative_sql(form: Form, types: tuple[str, ...]) -> str:
    return form.sql(*(representative(t).sql for t in types))


def _sql(vs: list[Value]) -> list[str]:
    return [v.sql for v in vs]


def _pairs(a: str, b: str, tier: str) -> list[tuple[str, str]]:
    """Operand pairs of types a and b.  edges: within a numeric (or boolean, or date)
    type every pair of its values, within another type each value against the core;
    across types the core values against each other.  core: the core values of both.
    types: each core value against the other type's representative."""
    a_full, b_full = _sql(values(a)), _sql(values(b))
    a_core, b_core = _sql(values(a, True)), _sql(values(b, True))
    a_rep, b_rep = a_core[:1], b_core[:1]
    if tier == "types":
        pairs = list(itertools.product(a_core, b_rep)) + list(itertools.product(a_rep, b_core))
    else:
        pairs = list(itertools.product(a_core, b_core))
    if tier == "edges" and a == b:
        if a in ORDERED_TYPES:
            pairs += list(itertools.product(a_full, b_full))
        else:
            pairs += list(itertools.product(a_full, b_core)) + list(itertools.product(a_core, b_full))
    return list(dict.fromkeys(pairs))


def _hangs(form: Form, types: tuple[str, ...], second: str) -> bool:
    """round(x, 2147483647) makes Spark build a number of two billion digits (it does not
    return), and a scale of another type is cast to an int first (99999999.99BD is
    99999999): round's scale is an integer Spark computes with, or its types are checked
    by analysis only."""
    if not form.name.startswith("round("):
        return False
    if types[1] not in ("void", "tinyint", "smallint", "int"):
        return True
    digits = second.rstrip("LSYD").lstrip("-")
    return digits.isdigit() and int(digits) > 10_000


ORDERED_TYPES = frozenset(("void", "boolean", "tinyint", "smallint", "int", "bigint", "float", "double",
                           "decimal(1,0)", "decimal(10,2)", "decimal(38,0)", "decimal(38,18)", "decimal(38,38)",
                           "date"))


def expressions(form: Form, types: tuple[str, ...]) -> list[str]:
    """The form over the values of an accepted type combination."""
    core = form.tier != "edges"
    if form.arity == 1:
        return [form.sql(v) for v in _sql(values(types[0], core))]
    if form.shape == "pairs":
        out = [form.sql(a, b) for a, b in _pairs(types[0], types[1], form.tier) if not _hangs(form, types, b)]
        if form.name == "{0} LIKE {1}" and types == ("string", "string"):
            out += [form.sql(a, p) for a in _sql(values("string", True)) for p in PATTERNS]
        return list(dict.fromkeys(out))
    # a conditional's value is a branch's value cast to the common type: every value of
    # the type where the other branch has its type (or is NULL), the core values across types
    core = core or (types[0] != types[1] and "void" not in types[:2])
    if form.shape == "first_taken":
        b_rep = representative(types[1]).sql
        null_a = f"CAST(NULL AS {types[0].upper()})" if types[0] != "void" else "NULL"
        out = [form.sql(a, b_rep) for a in _sql(values(types[0], core))]
        return list(dict.fromkeys(out + [form.sql(null_a, b) for b in _sql(values(types[1], core))]))
    if form.shape == "branch_taken":
        conditions = ["TRUE", "FALSE", "CAST(NULL AS BOOLEAN)"]
        a_rep = representative(types[0]).sql
        if form.arity == 2:  # CASE WHEN c THEN a END
            return [form.sql(a, "TRUE") for a in _sql(values(types[0]))] + \
                [form.sql(a_rep, c) for c in conditions[1:]]
        b_rep = representative(types[1]).sql
        out = [form.sql(a, b_rep, "TRUE") for a in _sql(values(types[0], core))]
        out += [form.sql(a_rep, b, "FALSE") for b in _sql(values(types[1], core))]
        return list(dict.fromkeys(out + [form.sql(a_rep, b_rep, "CAST(NULL AS BOOLEAN)")]))
    if form.shape == "range":
        a_core = _sql(values(types[0], True))
        b_core, b_rep = _sql(values(types[1], True)), representative(types[1]).sql
        out = [form.sql(a, b_rep, b_rep) for a in a_core]
        out += [form.sql(a_core[0], b, b_rep) for b in b_core] + [form.sql(a_core[0], b_rep, c) for c in b_core]
        return list(dict.fromkeys(out))
    raise ValueError(form.shape)


def lazy_expressions() -> list[str]:
    """Raising operands where Spark does not (or does) evaluate them."""
    out: list[str] = []
    for t, raising in RAISING.items():
        for r in raising:
            for template in LAZY:
                for v in _sql(values(t, True)) + ["NULL"]:
                    out.append(template.format(v, r.sql))
            if t == "boolean":
                out += [template.format("", r.sql) for template in LAZY_BOOLEAN]
    return list(dict.fromkeys(out))


# Literals as written: Spark's parser and sparkfold's both type them (or reject them).
# (Not `0x10`, which Spark reads as 0 named x10 and sqlglot's tokenizer as a binary: a
# parser matter, not a fold.)
LITERALS = ["1e309", "-1e309", "1E308", "1e-400", "128Y", "-129Y", "32768S", "2147483648", "-2147483649",
            "9223372036854775808", "-9223372036854775809L", "9223372036854775808L", "1.5BD", "-0.0BD", "0.00BD",
            "1" + "0" * 38, "9" * 38, "0." + "0" * 38 + "1", "1." + "0" * 38, "1.5E2BD", "3.4028236E38F",
            "3.4028235E38F", "1e-50F", "-0.0F", "1.7976931348623159E308D", "DATE'2020-02-30'", "DATE'2020-13-01'",
            "DATE'mar 11 2016'", "DATE'2020-1-1'", "DATE' 2020-01-01 '", "DATE'10000-01-01'", "DATE'-0001-01-01'",
            "DATE'2020'", "DATE'2020-02'", "TIMESTAMP'2020-02-30 00:00:00'", "TIMESTAMP'2020-01-01 25:00:00'",
            "TIMESTAMP'2020-01-01'", "TIMESTAMP_NTZ'2020-01-01 00:00:00'", "X'0'", "X'GG'", "X'00'", "1.",
            ".5", "1.e3", "1_000", "'\\u0041'", "'\\x41'", "'a\\\\b'", "'\\''", "\"abc\"", "-.5",
            "INTERVAL 1 DAY", "INTERVAL '1' YEAR"]


def literal_expressions() -> list[str]:
    return LITERALS + [f"{lit} + 0" for lit in LITERALS[:24]] + \
        [f"-{v.sql}" for t in TYPES for v in VALUES[t] if v.sql[0].isdigit()]
