"""The type, nullability and name oracle: every expression form sparkfold models, over
Spark's types as operands (nullable columns, NOT NULL columns, literals), in ANSI and
non-ANSI mode (and with `spark.sql.decimalOperations.allowPrecisionLoss=false` for
decimal arithmetic).  For each expression Spark's analyzer gives the unaliased column's
name, type and nullability, or rejects it; sparkfold's analyzed plan must give the same
output attribute, and must not accept with a concrete type what Spark rejects.

The grid (`candidates`): each form of `FORMS` with every operand of `operands()` (one
operand forms), or every pair of column types, NOT NULL columns, and literals next to
columns and to each other (two operand forms, see `_pairs`).  A combination of types
Spark rejects is recorded once with nullable columns, and its other operand kinds (NOT
NULL columns, literals of those types) for one case in eight (`_sampled`): Spark rejects
by type, and each rejection costs a whole analysis.

    python -m tests.oracles.expr_types --regenerate    # record Spark's answers (minutes)
    python -m tests.oracles.expr_types                 # sparkfold against the golden file

The golden file (`golden/expr_types.jsonl.gz`) has a header line and then one line per
expression: `[form, expression, {mode: answer}]`, an answer being `[name, type,
nullable]` or `"!ERROR_CLASS"`; a mode missing from a line was not recorded there.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import hashlib
import json
import sys
import time
import zlib
from collections import Counter
from pathlib import Path
from typing import Iterator, NamedTuple

from tests.oracles import cli
from tests.oracles.spark_items import Answer
from tests.oracles.sparkfold_items import Outcome

GOLDEN = Path(__file__).parent / "golden" / "expr_types.jsonl.gz"
# The disagreements known and not fixed yet, counted by class (verdict, mode, form)
# (written by `--write-open`; the test fails when a class has more, or fewer)
OPEN = Path(__file__).parent / "expr_types_open.txt"
TABLE = "ot"

# Spark's types as column operands: (code, type).  Decimals at the edges of precision and
# scale; every ANSI interval sparkfold types, and one it does not (day to hour).
TYPES: tuple[tuple[str, str], ...] = (
    ("bool", "BOOLEAN"), ("i1", "TINYINT"), ("i2", "SMALLINT"), ("i4", "INT"), ("i8", "BIGINT"),
    ("f4", "FLOAT"), ("f8", "DOUBLE"),
    ("d1_0", "DECIMAL(1,0)"), ("d1_1", "DECIMAL(1,1)"), ("d10_2", "DECIMAL(10,2)"), ("d38_0", "DECIMAL(38,0)"),
    ("d38_18", "DECIMAL(38,18)"), ("d38_38", "DECIMAL(38,38)"),
    ("s", "STRING"), ("bin", "BINARY"), ("date", "DATE"), ("ts", "TIMESTAMP"), ("ntz", "TIMESTAMP_NTZ"),
    ("void", "VOID"),
    ("iy", "INTERVAL YEAR"), ("im", "INTERVAL MONTH"), ("iym", "INTERVAL YEAR TO MONTH"),
    ("id", "INTERVAL DAY"), ("ih", "INTERVAL HOUR"), ("isec", "INTERVAL SECOND"),
    ("ids", "INTERVAL DAY TO SECOND"), ("idh", "INTERVAL DAY TO HOUR"),
)
TYPE_OF = dict(TYPES)
NUMERIC = frozenset(c for c, _ in TYPES if c[0] in "id" and c[1].isdigit() or c == "void")  # integral, decimal, void

# Literal spellings.  The core ones also stand on the left of a two operand form and next
# to each other; `numeric` ones take part in the decimal-precision modes.
CORE_LITERALS = ("TRUE", "1Y", "1S", "1", "1L", "1.5F", "1.5D", "1.5", "1BD", "'a'", "NULL", "X'AB'",
                 "DATE'2024-01-01'", "TIMESTAMP'2024-01-01 00:00:00'", "INTERVAL '1' DAY",
                 "INTERVAL '1-2' YEAR TO MONTH")
EXTRA_LITERALS = ("FALSE", "-1", "0", "2147483648", "-1.5D", "1e3", "0.5BD", "1.00", "1.5E2BD",
                  "12345678901234567890", "9" * 38, "0." + "0" * 37 + "1", "'1'", "'2024-01-01'",
                  "TIMESTAMP_NTZ'2024-01-01 00:00:00'", "INTERVAL '1' YEAR", "INTERVAL '1' MONTH",
                  "INTERVAL '1' HOUR", "INTERVAL '1' SECOND", "INTERVAL '1 02:03:04' DAY TO SECOND",
                  "INTERVAL 3 DAYS", "INTERVAL '1 2' DAY TO HOUR", "INTERVAL '10:20' MINUTE TO SECOND",
                  "CAST(NULL AS INT)", "-0.0D")
# The extra literals whose type in a two operand form is not that of a column of the grid
# (decimals of their own precision, integral literals Spark widens by their digits) or
# that are typed nulls; the others' names are checked by the one operand forms.
PAIRED_EXTRA_LITERALS = ("-1", "2147483648", "0.5BD", "1.00", "1.5E2BD", "12345678901234567890", "9" * 38,
                         "0." + "0" * 37 + "1", "CAST(NULL AS INT)", "INTERVAL '1 02:03:04' DAY TO SECOND",
                         "INTERVAL '10:20' MINUTE TO SECOND")
NUMERIC_LITERALS = frozenset({"1Y", "1S", "1", "1L", "1.5", "1BD", "NULL", "-1", "0", "2147483648", "0.5BD",
                              "1.00", "1.5E2BD", "12345678901234567890", "9" * 38, "0." + "0" * 37 + "1"})


class Operand(NamedTuple):
    text: str
    type: str  # a column's type code; "" for a literal (typed by Spark, see `literal_types`)

    @property
    def column(self) -> bool:
        return bool(self.type)


def col(code: str) -> Operand:
    return Operand(f"n_{code}", code)


def nn(code: str) -> Operand:
    return Operand(f"nn_{code}", code)


def lit(text: str) -> Operand:
    return Operand(text, "")


class Form(NamedTuple):
    key: str
    template: str  # `{0}`, `{1}`: the operands
    arity: int
    # two operands: "full" (see `_pairs`), "mixed" (full, and NOT NULL next to nullable),
    # "light" (pairs of columns, literals on the right), "spelling" (another spelling of a
    # full form: each type with itself, core literals on the right)
    grid: str = "full"
    aggregate: bool = False
    decimal_modes: bool = False  # also recorded without precision loss


def _binary(key, template, grid="full", decimal_modes=False) -> Form:
    return Form(key, template, 2, grid, decimal_modes=decimal_modes)


def _unary(key, template, aggregate=False, decimal_modes=False) -> Form:
    return Form(key, template, 1, "", aggregate, decimal_modes)


# Cast targets: every column type but void, and the spellings Spark reads as others.
CAST_TARGETS = tuple(t for c, t in TYPES if c != "void") + ("DECIMAL", "VARCHAR(3)", "CHAR(3)")
_CONSTRUCTORS = ("boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "decimal", "string",
                 "binary", "date", "timestamp")
_SCALAR_ONE = {  # modelled one-argument calls (plans/ir/functions.py SCALAR_FUNCTIONS)
    "isnan": "isnan({0})", "abs": "abs({0})", "upper": "upper({0})", "lower": "lower({0})",
    "ucase": "ucase({0})", "lcase": "lcase({0})", "length": "length({0})", "char_length": "char_length({0})",
    "character_length": "character_length({0})", "trim": "trim({0})", "ltrim": "ltrim({0})",
    "rtrim": "rtrim({0})", "round": "round({0})", "round_1": "round({0}, 1)", "round_scale": "round(n_d10_2, {0})",
    "year": "year({0})", "month": "month({0})", "dayofmonth": "dayofmonth({0})", "concat_1": "concat({0})",
    "substring": "substring({0}, 1, 2)", "substring_pos": "substring('abc', {0})",
    "substring_len": "substring('abc', 1, {0})", "substr": "substr({0}, 2)", "like_pattern": "{0} LIKE 'a%'",
    "like_text": "'abc' LIKE {0}", "greatest_3": "greatest({0}, {0}, NULL)", "least_1": "least({0}, 1)",
    "nullif_1": "nullif({0}, 1)", "nanvl_1": "nanvl({0}, 1.5D)", "date_add_1": "date_add({0}, 1)",
    "date_sub_1": "date_sub({0}, 1)", "datediff_1": "datediff({0}, DATE'2024-01-01')",
    "isnull": "isnull({0})", "isnotnull": "isnotnull({0})",
}
_OPAQUE_ONE = {  # functions sparkfold keeps opaque with a type (OPAQUE_RESULT_TYPES)
    "to_date": "to_date({0})", "trunc": "trunc({0}, 'MM')", "last_day": "last_day({0})",
    "add_months": "add_months({0}, 1)", "add_months_n": "add_months(DATE'2024-01-31', {0})",
    "next_day": "next_day({0}, 'Mon')", "date_trunc": "date_trunc('MONTH', {0})",
    "to_timestamp": "to_timestamp({0})", "date_format": "date_format({0}, 'yyyy')",
    "from_unixtime": "from_unixtime({0})", "concat_ws": "concat_ws('-', {0}, 'b')",
    "concat_ws_sep": "concat_ws({0}, 'a', 'b')", "regexp_replace": "regexp_replace({0}, 'a', 'b')",
    "regexp_extract": "regexp_extract({0}, '(a)', 1)", "lpad": "lpad({0}, 5, '*')", "rpad": "rpad({0}, 5, '*')",
    "md5": "md5({0})", "sha1": "sha1({0})", "sha2": "sha2({0}, 256)", "initcap": "initcap({0})",
    "translate": "translate({0}, 'a', 'b')", "format_number": "format_number({0}, 2)", "base64": "base64({0})",
    "hex": "hex({0})", "dayofweek": "dayofweek({0})", "weekofyear": "weekofyear({0})", "quarter": "quarter({0})",
    "hour": "hour({0})", "minute": "minute({0})", "second": "second({0})", "size": "size({0})",
    "instr": "instr({0}, 'a')", "locate": "locate('a', {0})",
    "months_between": "months_between({0}, TIMESTAMP'2024-01-01 00:00:00')",
    "unix_timestamp": "unix_timestamp({0})", "split": "split({0}, ',')",
}
_AGGREGATES = {  # AGGREGATE_FUNCTIONS
    **{n: f"{n}({{0}})" for n in ("count", "sum", "avg", "mean", "min", "max", "stddev_samp", "stddev", "std",
                                  "stddev_pop", "variance", "var_samp", "var_pop", "first", "last", "any_value",
                                  "collect_list", "collect_set", "count_if", "bool_and", "bool_or", "every",
                                  "some")},
    "count_distinct": "count(DISTINCT {0})", "sum_distinct": "sum(DISTINCT {0})",
    "first_ignore_nulls": "first({0}, true)",
}

FORMS: tuple[Form, ...] = (
    # arithmetic
    *(_binary(op, f"{{0}} {op} {{1}}", decimal_modes=True) for op in ("+", "-", "*", "/", "%", "div")),
    _unary("neg", "- {0}"), _unary("pos", "+ {0}"), _unary("bitnot", "~ {0}"),
    # comparisons
    *(_binary(op, f"{{0}} {op} {{1}}") for op in ("=", "<", "<=>", "<>", ">=")),
    *(_binary(op, f"{{0}} {op} {{1}}", "spelling") for op in ("==", "!=", ">", "<=")),
    _binary("distinct", "{0} IS DISTINCT FROM {1}", "mixed"),
    _binary("not_distinct", "{0} IS NOT DISTINCT FROM {1}", "spelling"),
    # logic and predicates
    _binary("AND", "{0} AND {1}", "mixed"), _binary("OR", "{0} OR {1}", "mixed"), _unary("not", "NOT {0}"),
    _unary("is_null", "{0} IS NULL"), _unary("is_not_null", "{0} IS NOT NULL"),
    *(_unary(f"is_{w.lower()}", f"{{0}} IS {w}") for w in ("TRUE", "FALSE", "UNKNOWN")),
    *(_unary(f"is_not_{w.lower()}", f"{{0}} IS NOT {w}") for w in ("TRUE", "FALSE", "UNKNOWN")),
    _binary("like", "{0} LIKE {1}"), _binary("not_like", "{0} NOT LIKE {1}", "spelling"),
    _binary("in", "{0} IN ({1})", "mixed"), _binary("not_in", "{0} NOT IN ({1})"),
    _unary("in_list", "{0} IN (1, 2)"), _unary("in_null", "{0} IN (NULL)"), _unary("in_string", "{0} IN ('a')"),
    _binary("between", "{0} BETWEEN {1} AND {1}"), _binary("not_between", "{0} NOT BETWEEN {1} AND {1}", "spelling"),
    # strings and bits
    _binary("||", "{0} || {1}"), _binary("concat", "concat({0}, {1})"),
    *(_binary(op, f"{{0}} {op} {{1}}", "light") for op in ("&", "|", "^", "<<", ">>", ">>>")),
    # conditionals
    _binary("case", "CASE WHEN n_bool THEN {0} ELSE {1} END", "mixed"),
    _binary("case_simple", "CASE {0} WHEN {1} THEN 1 END"),
    _unary("case_no_else", "CASE WHEN n_bool THEN {0} END"), _unary("case_condition", "CASE WHEN {0} THEN 1 END"),
    _binary("if", "IF(n_bool, {0}, {1})", "mixed"), _unary("if_condition", "IF({0}, 1, 2)"),
    _binary("coalesce", "coalesce({0}, {1})", "mixed"), _unary("coalesce_1", "coalesce({0})"),
    _binary("nvl", "nvl({0}, {1})", "spelling"), _binary("ifnull", "ifnull({0}, {1})", "spelling"),
    _binary("nullif", "nullif({0}, {1})", "mixed"),
    _binary("greatest", "greatest({0}, {1})", "mixed"), _binary("least", "least({0}, {1})", "light"),
    _binary("nanvl", "nanvl({0}, {1})", "mixed"),
    # dates
    _binary("date_add", "date_add({0}, {1})"), _binary("date_sub", "date_sub({0}, {1})", "light"),
    _binary("datediff", "datediff({0}, {1})"),
    # functions of one operand, casts, typed-literal constructors, aggregates
    *(_unary(k, t) for k, t in _SCALAR_ONE.items()),
    *(_unary(k, t) for k, t in _OPAQUE_ONE.items()),
    *(_unary(f"cast {t}", f"CAST({{0}} AS {t})") for t in CAST_TARGETS),
    *(_unary(f"try_cast {t}", f"TRY_CAST({{0}} AS {t})") for t in CAST_TARGETS),
    _unary("::int", "{0}::INT"), _unary("::string", "{0}::STRING"),
    *(_unary(f"{c}()", f"{c}({{0}})") for c in _CONSTRUCTORS),
    *(_unary(k, t, aggregate=True, decimal_modes=k in ("sum", "avg")) for k, t in _AGGREGATES.items()),
    Form("current_date", "current_date()", 0), Form("current_date_bare", "current_date", 0),
    Form("current_timestamp", "current_timestamp()", 0), Form("count(*)", "count(*)", 0, aggregate=True),
)

# Modes: the session settings of each, and the forms they are recorded for.
MODES: dict[str, dict[str, str]] = {
    "ansi": {"spark.sql.ansi.enabled": "true", "spark.sql.decimalOperations.allowPrecisionLoss": "true"},
    "legacy": {"spark.sql.ansi.enabled": "false", "spark.sql.decimalOperations.allowPrecisionLoss": "true"},
    "ansi_exact": {"spark.sql.ansi.enabled": "true", "spark.sql.decimalOperations.allowPrecisionLoss": "false"},
    "legacy_exact": {"spark.sql.ansi.enabled": "false",
                     "spark.sql.decimalOperations.allowPrecisionLoss": "false"},
}


def _decimal_mode(mode: str) -> bool:
    return mode.endswith("_exact")


# ---------------------------------------------------------------------------
# The grid
# ---------------------------------------------------------------------------


class Case(NamedTuple):
    form: Form
    operands: tuple[Operand, ...]

    @property
    def expr(self) -> str:
        return self.form.template.format(*(o.text for o in self.operands))

    @property
    def columns_only(self) -> bool:
        """All operands nullable columns: the case that stands for its types."""
        return all(o.text.startswith("n_") for o in self.operands)


def operands(mode: str) -> list[Operand]:
    """Every operand of a one operand form: each type as a nullable and a NOT NULL
    column, and every literal."""
    codes = [c for c, _ in TYPES if not _decimal_mode(mode) or c in NUMERIC]
    lits = [t for t in CORE_LITERALS + EXTRA_LITERALS if not _decimal_mode(mode) or t in NUMERIC_LITERALS]
    return [col(c) for c in codes] + [nn(c) for c in codes if c != "void"] + [lit(t) for t in lits]


def _pairs(form: Form, mode: str) -> Iterator[tuple[Operand, Operand]]:
    codes = [c for c, _ in TYPES if not _decimal_mode(mode) or c in NUMERIC]
    solid = [c for c in codes if c != "void"]
    core = [t for t in CORE_LITERALS if not _decimal_mode(mode) or t in NUMERIC_LITERALS]
    extra = [t for t in PAIRED_EXTRA_LITERALS if not _decimal_mode(mode) or t in NUMERIC_LITERALS]
    if form.grid == "spelling":
        for a in codes:
            yield col(a), col(a)
        for t in core:
            for b in codes:
                yield col(b), lit(t)
        return
    for a in codes:  # every pair of types, as nullable columns
        for b in codes:
            yield col(a), col(b)
    if form.grid in ("full", "mixed") and not _decimal_mode(mode):
        for a in solid:  # and as NOT NULL columns
            for b in solid:
                yield nn(a), nn(b)
    if form.grid == "mixed" and not _decimal_mode(mode):
        for a in solid:  # a NOT NULL column next to a nullable one
            yield nn(a), col(a)
            yield col(a), nn(a)
    for t in core:  # literals next to columns
        for b in codes:
            if form.grid != "light":
                yield lit(t), col(b)
            yield col(b), lit(t)
    if form.grid == "light":
        return
    for t in extra:
        for b in codes:
            yield col(b), lit(t)
    for t in core:  # and to each other
        for u in core:
            yield lit(t), lit(u)


@functools.lru_cache(maxsize=None)
def candidates(mode: str) -> tuple[Case, ...]:
    """Every case of the grid in a mode, the columns-only cases first."""
    out: list[Case] = []
    for form in FORMS:
        if _decimal_mode(mode) and not form.decimal_modes:
            continue
        if form.arity == 0:
            out.append(Case(form, ()))
        elif form.arity == 1:
            out.extend(Case(form, (o,)) for o in operands(mode))
        else:
            out.extend(Case(form, p) for p in _pairs(form, mode))
    seen: set[str] = set()
    unique = []
    for c in sorted(out, key=lambda c: not c.columns_only):
        if c.expr not in seen:
            seen.add(c.expr)
            unique.append(c)
    return tuple(unique)


def grid_hash() -> str:
    h = hashlib.sha256()
    for mode in MODES:
        for c in candidates(mode):
            h.update(f"{mode}\t{c.form.key}\t{c.expr}\n".encode())
    return h.hexdigest()[:16]


def _sampled(expr: str) -> bool:
    """One case in eight of a combination of types Spark rejects is recorded beyond the
    columns-only one (chosen by the expression's text, so the same ones each time)."""
    return zlib.crc32(expr.encode()) % 8 == 0


def signature(case: Case, literal_types: dict[str, str]) -> tuple | None:
    """The form and the operands' types (type codes; a literal's from Spark), or None
    when a literal's type is not a column type of the grid."""
    codes = []
    for o in case.operands:
        code = o.type or literal_types.get(o.text)
        if code is None:
            return None
        codes.append(code)
    return case.form.key, tuple(codes)


# ---------------------------------------------------------------------------
# Recording Spark's answers
# ---------------------------------------------------------------------------


def register_table(spark) -> None:
    """The table `ot`: for each type, a nullable column `n_<code>` and (void aside) a NOT
    NULL column `nn_<code>`, no rows."""
    cols = [f"n_{c} {t}" for c, t in TYPES] + [f"nn_{c} {t} NOT NULL" for c, t in TYPES if c != "void"]
    spark.createDataFrame([], ", ".join(cols)).createOrReplaceTempView(TABLE)


def catalog_mapping() -> dict:
    cols = {f"n_{c}": t.lower() for c, t in TYPES}
    cols.update({f"nn_{c}": f"{t.lower()} not null" for c, t in TYPES if c != "void"})
    return {TABLE: cols}


def literal_types(spark) -> dict[str, str]:
    """Each literal's type code, as Spark types it (in the session's mode)."""
    from tests.oracles.spark_items import analyze_items

    by_type = {f.dataType.simpleString(): name[2:] for name, f in
               ((f.name, f) for f in spark.table(TABLE).schema.fields) if name.startswith("n_")}
    texts = list(CORE_LITERALS + EXTRA_LITERALS)
    answers = analyze_items(spark, texts, TABLE)
    return {t: by_type[a.type] for t, a in zip(texts, answers) if not a.error and a.type in by_type}


def record_mode(spark, mode: str, progress=None, known: dict[str, Answer] | None = None) -> dict[str, Answer]:
    """Spark's answers for a mode's grid: {expression: answer}.  An analysis that fails
    costs as much as one of hundreds of items, so the cases Spark likely rejects (those
    sparkfold declines, and those of a combination of types Spark rejected with columns)
    are analyzed one by one, the others in batches.  `known`: answers recorded before in
    this mode and Spark version, not asked again."""
    for k, v in MODES[mode].items():
        spark.conf.set(k, v)
    lit_types = literal_types(spark)
    cases = candidates(mode)
    answers: dict[str, Answer] = {}
    known = known or {}
    declined = _declined_by_sparkfold(mode, [c for c in cases if c.expr not in known])
    first = [c for c in cases if c.columns_only]
    _record(spark, first, answers, progress, declined, known)
    rejected = {signature(c, lit_types) for c in first if answers[c.expr].error}
    rest = [c for c in cases if not c.columns_only and
            (signature(c, lit_types) not in rejected or _sampled(c.expr))]
    likely = declined | {c.expr for c in rest if signature(c, lit_types) in rejected}
    _record(spark, rest, answers, progress, likely, known)
    return answers


def _declined_by_sparkfold(mode: str, cases: list[Case]) -> set[str]:
    """The expressions sparkfold does not accept with a concrete type (a guess at those
    Spark rejects, for scheduling only)."""
    golden = Golden({}, [(c.form.key, c.expr, {mode: Answer()}) for c in cases])
    return {e for (_, e), o in sparkfold_answers(golden, [mode]).items() if o.kind != "ok" or o.opaque}


def _record(spark, cases: list[Case], answers: dict[str, Answer], progress, likely_rejected: set[str],
            known: dict[str, Answer]) -> None:
    from tests.oracles.spark_items import analyze_items

    for c in cases:
        if c.expr in known:
            answers[c.expr] = known[c.expr]
    cases = [c for c in cases if c.expr not in known]
    for aggregate in (False, True):
        for alone in (False, True):
            part = [c for c in cases if c.form.aggregate == aggregate and (c.expr in likely_rejected) == alone]
            step = 1000
            for lo in range(0, len(part), step):
                chunk = part[lo:lo + step]
                for c, a in zip(chunk, analyze_items(spark, [c.expr for c in chunk], TABLE, 1 if alone else 250)):
                    answers[c.expr] = a
                if progress:
                    progress(len(chunk))


def regenerate(path: Path = GOLDEN, cache: Path | None = None) -> None:
    """Record Spark's answers over the grid into `path`.  With `cache`, every answer is
    also kept there (by mode and Spark version), and a later run asks Spark only for
    expressions it has no answer for (a grid grown by a form records that form)."""
    from tests.oracles.session import spark_session

    spark = spark_session()
    register_table(spark)
    by_expr: dict[str, dict] = {}
    order: list[tuple[str, str]] = []
    t0 = time.time()
    done = [0]

    def progress(n):
        done[0] += n
        print(f"\r{done[0]:,} answers, {time.time() - t0:.0f} s", end="", file=sys.stderr, flush=True)

    for mode in MODES:
        kept = cache / f"expr_types.spark-{spark.version}.{mode}.json" if cache is not None else None
        known = {e: Answer.decoded(a) for e, a in json.loads(kept.read_text()).items()} \
            if kept is not None and kept.exists() else {}
        recorded = record_mode(spark, mode, progress, known)
        if kept is not None:
            kept.write_text(json.dumps({e: a.encoded() for e, a in {**known, **recorded}.items()}))
        for expr, answer in recorded.items():
            if expr not in by_expr:
                by_expr[expr] = {}
            by_expr[expr][mode] = answer.encoded()
    listed: set[str] = set()
    for mode in MODES:
        for c in candidates(mode):
            if c.expr in by_expr and c.expr not in listed:
                listed.add(c.expr)
                order.append((c.form.key, c.expr))
    print(file=sys.stderr)
    header = {"oracle": "expr_types", "spark": spark.version, "grid": grid_hash(),
              "table": catalog_mapping(), "modes": MODES, "expressions": len(order),
              "answers": sum(len(v) for v in by_expr.values())}
    with gzip.GzipFile(path, "wb", mtime=0) as raw:
        raw.write((json.dumps(header) + "\n").encode())
        for form, expr in order:
            raw.write((json.dumps([form, expr, by_expr[expr]], ensure_ascii=False) + "\n").encode())
    print(f"{header['answers']:,} answers for {len(order):,} expressions written to {path}", file=sys.stderr)


# ---------------------------------------------------------------------------
# The golden file, and sparkfold against it
# ---------------------------------------------------------------------------


class Golden(NamedTuple):
    header: dict
    entries: list[tuple[str, str, dict[str, Answer]]]  # (form, expression, {mode: answer})


def load(path: Path = GOLDEN) -> Golden:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        header = json.loads(f.readline())
        entries = []
        for line in f:
            form, expr, answers = json.loads(line)
            entries.append((form, expr, {m: Answer.decoded(a) for m, a in answers.items()}))
    return Golden(header, entries)


AGGREGATE_FORMS = frozenset(f.key for f in FORMS if f.aggregate)


def catalog_for(mode: str):
    """sparkfold's catalog of the table in a mode (a column of a type sparkfold cannot
    read is left out: the cases that use it count as rejected by sparkfold)."""
    from sparkfold.plans.ir.errors import SchemaError
    from sparkfold.plans.sql_in.catalog import Catalog, parse_column_type

    readable = {}
    for name, type_ in catalog_mapping()[TABLE].items():
        try:
            parse_column_type(type_)
        except SchemaError:
            continue
        readable[name] = type_
    settings = MODES[mode]
    return Catalog.from_mapping({TABLE: readable}, ansi=settings["spark.sql.ansi.enabled"] == "true",
                                decimal_precision_loss=settings["spark.sql.decimalOperations.allowPrecisionLoss"] == "true")


def sparkfold_answers(golden: Golden, modes=None) -> dict[tuple[str, str], Outcome]:
    """sparkfold's outcome for every (mode, expression) of the golden file."""
    from tests.oracles.sparkfold_items import analyze_items

    catalogs = {mode: catalog_for(mode) for mode in modes or MODES}
    out: dict[tuple[str, str], Outcome] = {}
    for aggregate in (False, True):
        for rejected in (False, True):  # (those Spark rejects, sparkfold likely declines)
            part = [(e, ans) for form, e, ans in golden.entries if (form in AGGREGATE_FORMS) == aggregate
                    and any(m in catalogs for m in ans) and any(a.error for a in ans.values()) == rejected]
            outcomes = analyze_items(catalogs, [e for e, _ in part], TABLE, aggregate=aggregate, alone=rejected)
            for mode, found in outcomes.items():
                for (e, ans), o in zip(part, found):
                    if mode in ans:
                        out[(mode, e)] = o
    return out


# Verdicts: the bad ones break the oracle; the others are counted.
BAD = ("mismatch", "rejects valid", "accepts invalid", "crash")


def verdict(spark: Answer, sf: Outcome) -> str:
    """How sparkfold's outcome compares with Spark's answer: "agrees", "opaque" (kept as
    its text, named as Spark names it or left for Spark to name, with an unknown type or Spark's type and taken as
    nullable), "passed through", "declined" (Spark rejects it too), or one of BAD."""
    if sf.kind == "crash":
        return "crash"
    if spark.error:
        if sf.kind in ("pass", "reject") or sf.opaque or sf.holds_unmodelled:
            return "declined"  # (kept as written where Spark may reject it: Spark's error survives)
        return "accepts invalid"
    if sf.kind == "pass":
        return "passed through"
    if sf.kind == "reject":
        return "rejects valid"
    if sf.opaque or sf.kept or sf.holds_unmodelled:
        # kept as its text: its type unknown, or known but its nullability taken as
        # nullable (nothing rewrites it; Spark computes both again); named as Spark
        # names it, or marked as a name only Spark knows (written unaliased for Spark)
        same_type = sf.opaque or sf.type == spark.type
        wider = sf.nullable or not spark.nullable
        same_name = sf.name == spark.name or not sf.name_known
        return "opaque" if same_name and same_type and wider else "mismatch"
    if (sf.name, sf.type, sf.nullable) == (spark.name, spark.type, spark.nullable):
        return "agrees"
    return "mismatch"


class Report(NamedTuple):
    counts: Counter  # verdict -> cases
    bad: list[tuple[str, str, str, str, Answer, Outcome]]  # (verdict, mode, form, expr, spark, sparkfold)

    def summary(self, examples: int = 3) -> str:
        lines = [f"{sum(self.counts.values()):,} cases: " +
                 ", ".join(f"{v} {n:,}" for v, n in self.counts.most_common())]
        by_class = Counter((v, m, f) for v, m, f, _, _, _ in self.bad)
        shown: Counter = Counter()
        for (v, m, f), n in sorted(by_class.items(), key=lambda kv: (-kv[1], kv[0])):
            lines.append(f"  {v:16} {m:12} {f:18} {n:6,}")
            for bv, bm, bf, e, sp, sf in self.bad:
                if (bv, bm, bf) == (v, m, f) and shown[(v, m, f)] < examples:
                    shown[(v, m, f)] += 1
                    lines.append(f"      {e}\n        spark     {_shown(sp)}\n        sparkfold {_shown_sf(sf)}")
        return "\n".join(lines)


def _shown(a: Answer) -> str:
    return f"!{a.error}" if a.error else f"{a.name} | {a.type} | {'null' if a.nullable else 'not null'}"


def _shown_sf(o: Outcome) -> str:
    if o.kind != "ok":
        return f"{o.kind}: {o.why[:100]}"
    return f"{o.name} | {o.type} | {'null' if o.nullable else 'not null'}"


def compare(golden: Golden, outcomes: dict[tuple[str, str], Outcome]) -> Report:
    counts: Counter = Counter()
    bad = []
    for form, expr, answers in golden.entries:
        for mode, a in answers.items():
            o = outcomes.get((mode, expr))
            if o is None:
                continue
            v = verdict(a, o)
            counts[v] += 1
            if v in BAD:
                bad.append((v, mode, form, expr, a, o))
    return Report(counts, bad)


def open_counts(path: Path = OPEN) -> Counter:
    """The disagreements not fixed yet, counted by (verdict, mode, form)."""
    counts: Counter = Counter()
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                v, m, f, n = line.rsplit("\t", 3)
                counts[(v, m, f)] = int(n)
    return counts


def bad_counts(report: Report) -> Counter:
    return Counter((v, m, f) for v, m, f, _e, _a, _o in report.bad)


def write_open(report: Report, path: Path = OPEN) -> None:
    cli.write_open(((v, m, f, str(n)) for (v, m, f), n in bad_counts(report).items()), path,
                   "The type oracle's", "verdict, mode, form, cases",
                   fails="when a class\n# has more (a new disagreement) or fewer")


def sample(golden: Golden, per_form: int = 1) -> list[tuple[str, str, Answer]]:
    """A spread sample of (mode, expression, answer): for each form and mode, cases Spark
    accepts (from the middle of the grid), and for one form in eight a case it rejects."""
    by: dict[tuple[str, str, bool], list[tuple[str, Answer]]] = {}
    for form, expr, answers in golden.entries:
        for mode, a in answers.items():
            by.setdefault((form, mode, bool(a.error)), []).append((expr, a))
    out = []
    for (form, mode, rejected), cases in sorted(by.items()):
        if rejected and zlib.crc32(f"{form}{mode}".encode()) % 8:
            continue
        step = max(1, len(cases) // (per_form + 1))
        out.extend((mode, e, a) for e, a in cases[step::step][:1 if rejected else per_form])
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--regenerate", action="store_true", help="record Spark's answers into the golden file")
    ap.add_argument("--cache", type=Path, help="keep Spark's answers in this folder (a rerun asks only for new ones)")
    ap.add_argument("--write-open", action="store_true", help=f"list today's disagreements in {OPEN.name}")
    ap.add_argument("--examples", type=int, default=3, help="examples shown per class of disagreement")
    args = ap.parse_args(argv)
    if args.regenerate:
        regenerate(cache=args.cache)
        return 0
    golden = load()
    t0, c0 = time.time(), time.process_time()
    report = compare(golden, sparkfold_answers(golden))
    print(report.summary(args.examples))
    print(f"({time.time() - t0:.1f} s, {time.process_time() - c0:.1f} s of CPU)")
    if args.write_open:
        write_open(report)
    return 1 if report.bad else 0


if __name__ == "__main__":
    sys.exit(main())
