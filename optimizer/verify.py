"""Verification: run the original and the optimized query on Spark and compare.

    report = optimize(sql, spark).verify(spark)
    report.equal        # True when every candidate agrees with the reference
    print(report.to_text())

The reference is the ORIGINAL SQL, run with the Catalyst rules sparkfold also
implements excluded (`spark.sql.optimizer.excludedRules`, set for the reference's jobs
and restored after), so the check is not Catalyst checking itself.  The candidates are
the optimized SQL and the lowered DataFrame (`plans.pyspark`).

Schemas are compared first, column by column: names, types and nullability as Spark's
`df.schema` has them (a column's, and inside nested types an array element's, a map
value's and a struct field's; `schema_of`), then rows, inside Spark: each side runs once
as an order-independent fingerprint (count and sums of 64- and 32-bit hashes of the
normalized rows: NaN canonical, -0.0 as 0.0, doubles rounded to 9 significant digits,
NULL flags hashed), so in the common equal case nothing but one row per side reaches
the driver.  Results under a top-level ORDER BY are collected (up to `collect_limit`
rows) and compared in order, rows with equal sort keys as one group.  Only when
fingerprints differ are rows compared exactly, with Spark's equality and a relative
tolerance for floating point: on the driver when small, otherwise by `exceptAll` both
ways in Spark, showing a sample.  An error is a result: the reference and a candidate
must both raise or both not raise.
"""

from __future__ import annotations

import re
import time
from contextlib import contextmanager
from dataclasses import field
from typing import Any, Iterable, Mapping, Sequence

from ..plans.ir import expressions as E
from ..plans.ir import logical as L
from ..plans.ir.records import record
from .compare import RowDiff, compare_ordered, compare_rows

CATALYST_PACKAGE = "org.apache.spark.sql.catalyst.optimizer."
EXCLUDED_RULES_KEY = "spark.sql.optimizer.excludedRules"

# Catalyst rules that do not live in the optimizer package under their own name.
_CATALYST_CLASS = {
    "OptimizeSubqueries": CATALYST_PACKAGE + "Optimizer$OptimizeSubqueries",
}

# Rules Spark needs for correct results although it lets them be excluded: without
# UpdateAttributeNullability, columns an outer join made nullable keep their old
# nullability and Spark returns wrong rows (seen: an EXCEPT ALL over a RIGHT JOIN lost
# rows with a NULL from the join).  Without PushDownPredicates a join written as a
# WHERE condition (`FROM a, b WHERE a.k = b.k`, all of TPC-H) is a cartesian product:
# the reference would run for hours, and the rule moves filters without changing a
# result.  The reference never runs without them.  EliminateView is an analysis rule
# (Spark's, in no optimizer batch): nothing to exclude.
NEVER_EXCLUDE = frozenset({"UpdateAttributeNullability", "PushDownPredicates", "EliminateView"})


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


@record
class Side:
    """One query run: the reference or a candidate."""

    name: str
    text: str = ""                                  # SQL text or Python code
    schema: list[tuple[str, str]] | None = None     # (name, type and nullability) per column: schema_of
    rows: int | None = None
    seconds: float | None = None
    method: str = ""                                # "fingerprint" or "collect"
    error: str | None = None                        # Spark's error condition (or class)
    error_message: str | None = None
    fingerprint: tuple | None = None
    out_of_order: int = 0                           # rows out of ORDER BY order
    exclude: list[str] = field(default_factory=list)  # Catalyst rules excluded for this side
    data: list | None = field(default=None, repr=False)  # collected rows, when collected
    df: Any = field(default=None, repr=False)

    def to_dict(self) -> dict:
        return {"name": self.name, "text": self.text, "schema": self.schema, "rows": self.rows,
                "seconds": self.seconds, "method": self.method, "error": self.error,
                "error_message": self.error_message}


@record
class Comparison:
    """The verdict for one candidate against the reference."""

    candidate: str
    equal: bool
    schema_equal: bool | None = None
    rows_equal: bool | None = None
    method: str = ""
    only_in_reference: list = field(default_factory=list)
    only_in_candidate: list = field(default_factory=list)
    detail: str = ""
    schema_differences: list[str] = field(default_factory=list)  # one line per column that differs
    nullability_only: bool = False  # the schemas differ, in nullability only (names and types the same)

    def to_dict(self) -> dict:
        return {"candidate": self.candidate, "equal": self.equal, "schema_equal": self.schema_equal,
                "schema_differences": self.schema_differences, "nullability_only": self.nullability_only,
                "rows_equal": self.rows_equal,
                "method": self.method,
                "only_in_reference": [list(map(_json_value, r)) for r in self.only_in_reference],
                "only_in_candidate": [list(map(_json_value, r)) for r in self.only_in_candidate],
                "detail": self.detail}


@record
class VerifyReport:
    original_sql: str
    optimized_sql: str
    reference: Side
    candidates: list[Side]
    comparisons: list[Comparison]
    ordered: bool = False
    excluded_rules: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def equal(self) -> bool:
        return all(c.equal for c in self.comparisons)

    def comparison(self, candidate: str) -> Comparison:
        return next(c for c in self.comparisons if c.candidate == candidate)

    def speedup(self, candidate: str) -> float | None:
        """Reference time / candidate time (> 1: the candidate ran faster)."""
        ref = self.reference.seconds
        cand = next((s.seconds for s in self.candidates if s.name == candidate), None)
        if not ref or not cand:
            return None
        return ref / cand

    def to_dict(self) -> dict:
        return {"equal": self.equal, "ordered": self.ordered, "original_sql": self.original_sql,
                "optimized_sql": self.optimized_sql, "reference": self.reference.to_dict(),
                "candidates": [s.to_dict() for s in self.candidates],
                "comparisons": [c.to_dict() for c in self.comparisons],
                "speedup": {s.name: self.speedup(s.name) for s in self.candidates},
                "excluded_rules": self.excluded_rules, "notes": self.notes, "seconds": self.seconds}

    def to_text(self, excluded_note: bool = True) -> str:
        """The verdict, then each side; `excluded_note=False` leaves out which Catalyst rules
        the reference ran without (a caller that said it once for many statements)."""
        out = [f"verification: {'EQUAL' if self.equal else 'DIFFERENT'}"
               f"{' (ordered by ORDER BY)' if self.ordered else ''}"]
        note = _excluded_note(self.excluded_rules) if excluded_note else ""
        out.append(f"  reference: original SQL{note}; {_side_summary(self.reference)}")
        for side, comp in zip(self.candidates, self.comparisons):
            speed = self.speedup(side.name)
            figure = f", {speed:.2f}x the reference's speed" if speed else ""
            out.append(f"  {side.name}: {'equal' if comp.equal else 'DIFFERENT'}; "
                       f"{_side_summary(side)}{figure}")
            if comp.detail:
                out.append(f"    {comp.detail}")
            if comp.schema_equal is False:
                out.extend(f"    {d}" for d in comp.schema_differences)
                out.append(f"    reference schema: {_schema_text(self.reference.schema)}")
                out.append(f"    candidate schema: {_schema_text(side.schema)}")
            for label, rows in (("only in reference", comp.only_in_reference),
                                ("only in candidate", comp.only_in_candidate)):
                if rows:
                    out.append(f"    {label} ({len(rows)} shown):")
                    out.extend(f"      {tuple(r)!r}" for r in rows)
        out.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(out)

    def __str__(self) -> str:
        return self.to_text()


def _json_value(v):
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if v == v and v not in (float("inf"), float("-inf")) else repr(v)
    return str(v)


def excluded_note(rules: list[str]) -> str:
    """' with Catalyst's A, B excluded', or '' with none."""
    return _excluded_note(rules)


def _excluded_note(rules: list[str]) -> str:
    if not rules:
        return ""
    short = [r.rsplit(".", 1)[-1].split("$")[-1] for r in rules]
    return f" with Catalyst's {', '.join(short)} excluded"


def _schema_text(schema) -> str:
    return "(none)" if schema is None else ", ".join(f"{n}: {t}" for n, t in schema)


def _side_summary(s: Side) -> str:
    if s.method == "same text as the original":
        return "not run: the same text as the original"
    if s.error:
        return f"raised {s.error}: {(s.error_message or '').splitlines()[0][:200] if s.error_message else ''}"
    rows = "?" if s.rows is None else s.rows
    secs = "" if s.seconds is None else f" in {s.seconds:.3f}s"
    return f"{rows} rows{secs}"


# ---------------------------------------------------------------------------
# Excluded rules
# ---------------------------------------------------------------------------


_CLASS_NAME = __import__("re").compile(r"^[A-Za-z_][A-Za-z0-9_$.]*$")


def catalyst_rule_classes(names: Iterable[str] | None = None) -> list[str]:
    """Fully qualified Catalyst class names for sparkfold rules (all of the default batches' rules by
    default).  Spark ignores names it does not know and warns about non-excludable ones."""
    if names is None:
        from .batches import RULES

        names = [r.catalyst or r.name for r in RULES.values()]
    out: list[str] = []
    for n in names:
        for part in str(n).replace(",", " ").split():
            if not _CLASS_NAME.match(part) or part.rsplit(".", 1)[-1] in NEVER_EXCLUDE:
                continue  # "(none)": a sparkfold rule with no Catalyst counterpart
            cls = part if "." in part else _CATALYST_CLASS.get(part, CATALYST_PACKAGE + part)
            if cls not in out:
                out.append(cls)
    return sorted(out)


def broken_not_null(spark, catalog) -> list[str]:
    """The NOT NULL declarations of a schema file that the data in the session breaks.

    A schema's `not null` is the user's word (Spark keeps none for a file read as a table,
    and enforces none on a file-source table); rewrites rest on it (`count(id)` becomes
    `count(1)`), so before comparing results, verify counts the NULLs of each declared
    NOT NULL column of each table the session has."""
    out = []
    for name in catalog.table_names():
        try:
            table = catalog.lookup(name)
            if not spark.catalog.tableExists(name):
                continue
        except Exception:  # a name Spark cannot look up is no table of this session
            continue
        columns = [c for c in table.columns if not c.nullable]
        if not columns:
            continue
        quoted = ".".join(f"`{p}`" for p in name.split("."))
        counts = spark.sql("SELECT " + ", ".join(f"count_if(`{c.name}` IS NULL)" for c in columns)
                           + f" FROM {quoted}").first()
        for c, n in zip(columns, counts):
            if n:
                out.append(f"{name}.{c.name} has {n} NULL{'s' if n != 1 else ''}; the schema says NOT NULL "
                           f"(rewrites that rest on it can change the results)")
    return out


def declare_not_null(spark, catalog, names: Iterable[str]) -> list[str]:
    """Give the session's views `names` the NOT NULLs the schema declares: Spark types
    every column of a file read as a table nullable, while the optimizer typed the
    query as the schema says (and a rewritten query that no longer reads such a column,
    an empty relation's, is NOT NULL where the original read it as nullable).  Each
    view is registered again with the column as `coalesce(c, v)` (v a NOT NULL value
    of its type), which is c: run `broken_not_null` first.  Returns the columns so
    declared, as `table.column`."""
    from ..plans.ir.dialect import DIALECT
    from ..plans.sql_out.literals import non_null_value
    from ..plans.sql_out.to_sql import ExprWriter, SqlGenerator

    out = []
    for name in names:
        try:
            table = catalog.lookup(name)
            df = spark.table(name)
        except Exception:  # noqa: BLE001 - not a table of both: nothing to declare
            continue
        declared = {c.name.lower(): c for c in table.columns if not c.nullable}
        items, changed = [], False
        for field in df.schema.fields:
            column = declared.get(field.name.lower())
            value = non_null_value(column.data_type) if column is not None and field.nullable else None
            quoted = f"`{field.name.replace('`', '``')}`"
            if value is not None:
                text = ExprWriter(SqlGenerator(), {})(value).sql(dialect=DIALECT)
                items.append(f"coalesce({quoted}, {text}) AS {quoted}")
                out.append(f"{name}.{field.name}")
                changed = True
            else:
                items.append(quoted)
        if changed:
            df.selectExpr(*items).createOrReplaceTempView(name)
    return out


@contextmanager
def excluded_rules(spark, classes: Sequence[str]):
    """Set `spark.sql.optimizer.excludedRules` for the block; restore the old value."""
    if not classes:
        yield
        return
    old = spark.conf.get(EXCLUDED_RULES_KEY, None)
    merged = list(classes) + ([c for c in old.split(",") if c and c not in classes] if old else [])
    spark.conf.set(EXCLUDED_RULES_KEY, ",".join(merged))
    try:
        yield
    finally:
        if old is None:
            spark.conf.unset(EXCLUDED_RULES_KEY)
        else:
            spark.conf.set(EXCLUDED_RULES_KEY, old)


# ---------------------------------------------------------------------------
# Fingerprints and normalization (inside Spark)
# ---------------------------------------------------------------------------

_MASK32 = 0xFFFFFFFF


def _normalized(c: str, data_type, rounded: bool = False) -> str:
    """SQL for a column as it is hashed.  Spark's hashes already treat -0.0 as 0.0 and
    every NaN alike; maps go as JSON (they cannot be hashed).  Doubles are hashed exactly
    first (rounding costs about 3x a pass over the rows); only when those fingerprints
    differ are they hashed again `rounded` to 9 significant digits, so that a sum over
    partitions in another order still matches.  The rounding: rint (Spark's round() goes
    through BigDecimal, many times slower), `+ 0.0` for -0.0, NaN and the infinities kept
    (the exponent is capped before floor(), which raises on an infinite input under ANSI,
    so x * p stays x for them)."""
    from pyspark.sql import types as ST

    if rounded and isinstance(data_type, (ST.DoubleType, ST.FloatType)):
        x = c if isinstance(data_type, ST.DoubleType) else f"CAST({c} AS DOUBLE)"
        p = f"power(10.0D, 8 - floor(least(log10(abs({x}) + 1e-300D), 300.0D)))"
        return f"(rint({x} * {p}) / {p} + 0.0D)"
    if isinstance(data_type, ST.MapType):
        return f"to_json({c})"
    return c


def _has_floats(schema) -> bool:
    return any(base_type(t) in ("double", "float") for _, t in schema or ())


def positional(df):
    """The DataFrame with columns renamed `_c0, _c1, ...` (result columns may repeat a name)."""
    return df.toDF(*[f"_c{i}" for i in range(len(df.columns))])


def _null_flags(fields) -> list[str]:
    """Which columns are NULL, as bitmasks (hashing skips NULLs: without them (NULL, 1)
    and (1, NULL) would hash alike).  Every column, nullable or not: the candidate may
    know a column is never NULL where the reference does not, and the same rows must
    hash alike on both sides."""
    nullable = list(range(len(fields)))
    out = []
    for start in range(0, len(nullable), 62):
        bits = [f"IF(_c{i} IS NULL, {1 << k}L, 0L)" for k, i in enumerate(nullable[start:start + 62])]
        out.append("(" + " + ".join(bits) + ")")
    return out


def _hashed(df, tag: int, order: "Ordering | None" = None, rounded: bool = False):
    """Per row: the tag, a 64-bit hash of the normalized row and, with an order whose
    keys are output columns, 1 when the row sorts before its predecessor (else 0).
    Written as SQL text: one call builds it (fast on classic sessions, one message on
    Connect)."""
    from pyspark.sql import functions as F

    fields = df.schema.fields
    d = positional(df)
    args = [_normalized(f"_c{i}", f.dataType, rounded) for i, f in enumerate(fields)] + _null_flags(fields)
    h1 = f"xxhash64({', '.join(args)})" if args else "0L"
    violation = "0"
    if order is not None and order.key_positions:
        # the position in the result: increasing across partitions, then within one
        d = d.withColumn("_pos", F.monotonically_increasing_id())
        violation = f"CASE WHEN {_out_of_order(order)} THEN 1 ELSE 0 END"
    return d.selectExpr(f"{int(tag)} AS q", f"{h1} AS h1", f"{violation} AS v")


def _out_of_order(order: "Ordering") -> str:
    """SQL: the row's sort keys come strictly before its predecessor's."""
    terms: list[str] = []
    same_so_far: list[str] = []
    for pos, asc, nulls_first in zip(order.key_positions, order.ascending, order.nulls_first):
        cur, prev = f"_c{pos}", f"lag(_c{pos}, 1) OVER (ORDER BY _pos)"
        # prev sorts after cur under this key
        after = (f"(CASE WHEN {prev} IS NULL AND {cur} IS NULL THEN false "
                 f"WHEN {prev} IS NULL THEN {str(not nulls_first).lower()} "
                 f"WHEN {cur} IS NULL THEN {str(nulls_first).lower()} "
                 f"ELSE {prev} {'>' if asc else '<'} {cur} END)")
        terms.append(" AND ".join(same_so_far + [after]))
        same_so_far.append(f"({prev} <=> {cur})")
    has_prev = "lag(1, 1) OVER (ORDER BY _pos) IS NOT NULL"
    return f"{has_prev} AND ({' OR '.join(f'({t})' for t in terms)})"


def fingerprint_df(df, order: "Ordering | None" = None):
    """One-row DataFrame: row count, order-independent sums of row hashes, and the count
    of rows out of ORDER BY order (0 without an order)."""
    return _aggregate_fingerprints(_hashed(df, 0, order))


def _aggregate_fingerprints(hashed):
    """Count, and the sums of the hashes' low and high 32 bits (exact in a bigint up to
    2^31 rows; a sum, unlike XOR, keeps duplicates apart)."""
    from pyspark.sql import functions as F

    return hashed.groupBy("q").agg(F.expr("count(1)").alias("n"),
                                   F.expr(f"sum(h1 & {_MASK32}L)").alias("lo"),
                                   F.expr("sum(shiftrightunsigned(h1, 32))").alias("hi"),
                                   F.expr("sum(v)").alias("v"))


def fingerprint(df, order: "Ordering | None" = None) -> tuple[int, int, int]:
    rows = fingerprint_df(df, order).collect()
    if not rows:
        return 0, 0, 0
    r = rows[0]
    return int(r["n"]), int(r["lo"]), int(r["hi"])


# ---------------------------------------------------------------------------
# Ordering facts of the original query
# ---------------------------------------------------------------------------


@record
class Ordering:
    ordered: bool = False
    key_positions: list[int] = field(default_factory=list)  # output columns of a prefix of the keys
    ascending: list[bool] = field(default_factory=list)
    nulls_first: list[bool] = field(default_factory=list)
    all_keys_visible: bool = False
    limit: bool = False   # a LIMIT over the sort: the last run of ties may be cut anywhere
    offset: bool = False  # an OFFSET over the sort: likewise the first run


def ordering_of(plan: L.Plan | None) -> Ordering:
    """Is row order part of the result (a top-level ORDER BY), and which output columns
    hold (a prefix of) the sort keys?"""
    if plan is None:
        return Ordering()
    out = Ordering()
    # output position of each attribute id, traced down through the operators above the sort
    positions: dict[int, int] = {}
    for i, a in enumerate(plan.output):
        positions.setdefault(a.expr_id, i)
    p = plan
    while isinstance(p, (L.Project, L.Filter, L.Limit, L.Offset, L.SubqueryAlias)):
        if isinstance(p, L.Project):
            mapped: dict[int, int] = {}
            for e in p.projections:
                a = E.to_attribute(e)
                inner = e.child if isinstance(e, E.Alias) else e
                if a.expr_id in positions and isinstance(inner, E.Attribute):
                    mapped.setdefault(inner.expr_id, positions[a.expr_id])
            positions = mapped
        out.limit |= isinstance(p, L.Limit)
        out.offset |= isinstance(p, L.Offset)
        p = p.child
    if not isinstance(p, L.Sort):
        return Ordering()
    out.ordered = True
    for o in p.orders:
        c = o.child
        if not (isinstance(c, E.Attribute) and c.expr_id in positions):
            break
        out.key_positions.append(positions[c.expr_id])
        out.ascending.append(o.ascending)
        out.nulls_first.append(bool(o.nulls_first))
    out.all_keys_visible = len(out.key_positions) == len(p.orders)
    return out


# ---------------------------------------------------------------------------
# Running sides
# ---------------------------------------------------------------------------


_WRAPPED_ERROR = re.compile(r"org\.apache\.spark\.\w+Exception: \[([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)\]")


def _error_of(e: BaseException) -> tuple[str, str]:
    cond = None
    for attr in ("getCondition", "getErrorClass"):
        fn = getattr(e, attr, None)
        if fn is not None:
            try:
                cond = fn()
            except Exception:  # noqa: BLE001 - best effort
                cond = None
            if cond:
                break
    text = str(e).strip()
    if not cond:
        # a Spark error wrapped in a JVM one (an ExecutionException from a broadcast):
        # its class is in the message, `SparkArithmeticException: [DIVIDE_BY_ZERO] ...`
        m = _WRAPPED_ERROR.search(text)
        cond = m.group(1) if m else None
    if not cond:
        # a JVM exception with no Spark error class (py4j's first line only names the
        # call): name it by its Java class, `java.util.NoSuchElementException: key not found`
        java: Any = getattr(e, "java_exception", None)
        try:
            cond, message = java.getClass().getName(), java.getMessage()
            text = str(message) if message else text
        except Exception:  # noqa: BLE001 - no JVM object: keep the Python error
            pass
    return cond or type(e).__name__, text


def spark_internal_failure(error: str | None) -> bool:
    """Whether a side's error is Spark failing inside itself (an INTERNAL_ERROR, a bare
    JVM exception such as `java.util.NoSuchElementException`, or its analyzer losing an
    attribute it resolved, MISSING_ATTRIBUTES.RESOLVED_ATTRIBUTE_APPEAR_IN_OPERATION, which
    SQL text cannot cause), not an error of the query."""
    return bool(error and (error.startswith(("INTERNAL_ERROR", "java.", "scala.", "MISSING_ATTRIBUTES.",
                                             "PLAN_VALIDATION_FAILED"))
                           or error in _UNCLASSIFIED))


def schema_of(df) -> list[tuple[str, str]]:
    """(name, type) per column of `df.schema`, nullability included: the type is Spark's
    `simpleString` with ` not null` after whatever is never NULL, the column itself or,
    inside it, an array's elements, a map's values or a struct's fields (`bigint not null`,
    `array<int not null>`, `map<string,int not null> not null`, `struct<a:int not null,b:string>`).
    Two schemas are the same result when these lists are equal."""
    return [(f.name, type_text(f.dataType, f.nullable)) for f in df.schema.fields]


def type_text(data_type, nullable: bool = True) -> str:
    """A PySpark data type as `schema_of` writes it (nullability included)."""
    from pyspark.sql import types as ST

    if isinstance(data_type, ST.ArrayType):
        text = f"array<{type_text(data_type.elementType, data_type.containsNull)}>"
    elif isinstance(data_type, ST.MapType):
        text = f"map<{type_text(data_type.keyType)},{type_text(data_type.valueType, data_type.valueContainsNull)}>"
    elif isinstance(data_type, ST.StructType):
        text = "struct<" + ",".join(f"{f.name}:{type_text(f.dataType, f.nullable)}" for f in data_type.fields) + ">"
    else:
        text = data_type.simpleString()
    return text if nullable else text + " not null"


_NOT_NULL = re.compile(r" not null(?=[,>]|$)")


def base_type(text: str) -> str:
    """A `schema_of` type without its nullability: Spark's `simpleString`."""
    return _NOT_NULL.sub("", text)


def schema_differences(reference, candidate) -> list[str]:
    """What differs between two `schema_of` lists, one line per column (none: equal)."""
    if reference is None or candidate is None:
        return []
    if len(reference) != len(candidate):
        return [f"{len(reference)} columns in the reference, {len(candidate)} in the candidate"]
    out = []
    for i, ((n1, t1), (n2, t2)) in enumerate(zip(reference, candidate), 1):
        if n1 != n2:
            out.append(f"column {i}: named `{n1}` in the reference, `{n2}` in the candidate")
        if base_type(t1) != base_type(t2):
            out.append(f"column {i} `{n1}`: type {base_type(t1)} in the reference, {base_type(t2)} in the "
                       f"candidate")
        elif t1 != t2:
            top1, top2 = t1.endswith(" not null"), t2.endswith(" not null")
            if _strip_top(t1) == _strip_top(t2):
                out.append(f"column {i} `{n1}`: {'NOT NULL' if top1 else 'nullable'} in the reference, "
                           f"{'NOT NULL' if top2 else 'nullable'} in the candidate")
            else:
                out.append(f"column {i} `{n1}`: nullability differs inside the type: {t1} in the reference, "
                           f"{t2} in the candidate")
    return out


def _strip_top(text: str) -> str:
    return text[:-len(" not null")] if text.endswith(" not null") else text


def _internal_error(side: Side) -> bool:
    text = f"{side.error or ''} {side.error_message or ''}"
    return "INTERNAL_ERROR" in text or "PLAN_VALIDATION_FAILED" in text


def _retry_references(spark, refs: list[Side], sql_of: dict[int, str]) -> None:
    """A reference that fails inside Spark with rules excluded (Spark needs them: without
    ConstantFolding a window frame `1 PRECEDING` is an INTERNAL_ERROR) runs again with
    Spark's whole optimizer."""
    again = [r for r in refs if r.exclude and _internal_error(r)]
    for r in again:
        r.error = r.error_message = None
        r.exclude = []
        _build(r, lambda: spark.sql(sql_of[id(r)]))
    run_fingerprints(spark, again, [None] * len(again), ())


def _build(side: Side, make) -> None:
    try:
        side.df = make()
        side.schema = schema_of(side.df)
    except Exception as e:  # the query's error is its result
        side.error, side.error_message = _error_of(e)


_UNCLASSIFIED = ("Py4JJavaError", "Py4JError", "Py4JNetworkError")


def run_fingerprints(spark, sides: list[Side], orders: list[Ordering | None],
                     exclude: Sequence[str] = (), retried: bool = False, rounded: bool = False) -> None:
    """Fingerprint every side in one Spark job (each side's rows hashed, the union
    aggregated by side).  When the job fails, each side runs again alone: a side's error
    is its result.  A side run alone is timed.
    An error with no Spark error class (a JVM or py4j failure, such as a timeout on a
    loaded machine, not the query's own error) gets one more run before it counts."""
    from functools import reduce

    todo = [(s, o) for s, o in zip(sides, orders) if s.error is None and s.df is not None]
    if not todo:
        return
    t0 = time.perf_counter()
    try:
        with excluded_rules(spark, exclude):
            parts = [_hashed(s.df, i, o, rounded) for i, (s, o) in enumerate(todo)]
            rows = _aggregate_fingerprints(reduce(lambda a, b: a.unionAll(b), parts)).collect()
    except Exception as e:  # some side raised: find which
        if len(todo) == 1:
            side = todo[0][0]
            error, message = _error_of(e)
            if spark_internal_failure(error) and not error.startswith(("INTERNAL_ERROR", "MISSING_ATTRIBUTES.",
                                                                        "PLAN_VALIDATION_FAILED")) \
                    and not retried:
                run_fingerprints(spark, [side], [todo[0][1]], exclude, retried=True, rounded=rounded)
                return
            side.error, side.error_message = error, message
            side.seconds = time.perf_counter() - t0
            return
        # each side once more, alone: what a side costs is mostly its own planning, not the
        # job's scheduling, so halving (each level planning half the sides again, about
        # 2 log2(n) jobs per raising side) cost more than one more job per side
        for side, order in todo:
            run_fingerprints(spark, [side], [order], exclude, rounded=rounded)
        return
    elapsed = time.perf_counter() - t0
    by_tag = {int(r["q"]): r for r in rows}
    for i, (side, _) in enumerate(todo):
        r = by_tag.get(i)
        side.fingerprint = (int(r["n"]), int(r["lo"]), int(r["hi"])) if r else (0, 0, 0)
        side.out_of_order = int(r["v"]) if r else 0
        side.rows = side.fingerprint[0]
        side.method = "fingerprint"
        side.seconds = elapsed if len(todo) == 1 else None


def _collect(side: Side, limit: int) -> list | None:
    """The side's rows, or None when it has more than `limit`."""
    if side.data is None:
        rows = side.df.limit(limit + 1).collect()
        if len(rows) > limit:
            return None
        side.data = [tuple(r) for r in rows]
    return side.data


# ---------------------------------------------------------------------------
# Comparing
# ---------------------------------------------------------------------------


def _compare(ref: Side, cand: Side, order: Ordering, spark, exclude: Sequence[str],
             collect_limit: int, sample: int) -> Comparison:
    comp = Comparison(cand.name, False)
    if cand.method == "same text as the original":
        return Comparison(cand.name, True, method=cand.method,
                          detail="the optimized SQL is the original text; not run again")
    if ref.error or cand.error:
        comp.method = "error"
        if ref.error and cand.error:
            comp.equal = True
            if ref.error != cand.error:
                comp.detail = f"both raise, with different errors: {ref.error} vs {cand.error}"
            return comp
        comp.detail = (f"the reference raises {ref.error} but the candidate does not" if ref.error
                       else f"the candidate raises {cand.error} but the reference does not")
        failed = ref if ref.error else cand
        if spark_internal_failure(failed.error):
            comp.detail += (f" ({'the original' if ref.error else 'the candidate'} fails inside Spark, a Spark "
                            f"bug rather than an error of the query)")
        return comp
    comp.schema_equal = ref.schema == cand.schema
    comp.schema_differences = schema_differences(ref.schema, cand.schema)
    comp.nullability_only = not comp.schema_equal and ref.schema is not None and cand.schema is not None \
        and [(n, base_type(t)) for n, t in ref.schema] == [(n, base_type(t)) for n, t in cand.schema]
    if ref.schema is None or cand.schema is None or len(ref.schema) != len(cand.schema):
        comp.detail = "different numbers of columns"
        return comp
    try:
        diff = _compare_rows(ref, cand, order, spark, exclude, collect_limit, sample, comp)
    except Exception as e:  # comparing failed (e.g. types exceptAll cannot group)
        kind, msg = _error_of(e)
        comp.detail = f"could not compare the rows: {kind}: {msg.splitlines()[0][:200]}"
        return comp
    comp.rows_equal = diff.equal
    comp.only_in_reference = [tuple(r) for r in diff.only_left]
    comp.only_in_candidate = [tuple(r) for r in diff.only_right]
    comp.equal = bool(comp.schema_equal and diff.equal)
    if not comp.schema_equal and not comp.detail:
        comp.detail = "schemas differ" + (" in nullability only" if comp.nullability_only else "")
    if not diff.equal and not comp.detail:
        comp.detail = f"rows differ ({diff.left_count} in the reference, {diff.right_count} in the candidate)"
    return comp


def _compare_rows(ref: Side, cand: Side, order: Ordering, spark, exclude, collect_limit, sample,
                  comp: Comparison) -> RowDiff:
    if ref.fingerprint is not None and ref.fingerprint == cand.fingerprint and not cand.out_of_order:
        comp.method = "fingerprint"
        if order.ordered:
            comp.method = "fingerprint, in order"
            if not order.key_positions:
                comp.detail = "ORDER BY keys are not output columns: compared as multisets only"
        return RowDiff(True, [], [], ref.rows or 0, cand.rows or 0)
    if (ref.fingerprint is not None and cand.fingerprint is not None and ref.rows == cand.rows
            and ref.rows > collect_limit and _has_floats(ref.schema)):
        # doubles may differ in their last bits: fingerprint both again, rounded
        rounded = [Side(s.name, s.text, df=s.df, schema=s.schema) for s in (ref, cand)]
        run_fingerprints(spark, rounded[:1], [None], ref.exclude, rounded=True)
        run_fingerprints(spark, rounded[1:], [order if order.key_positions else None], rounded=True)
        if (rounded[0].error is None and rounded[0].fingerprint == rounded[1].fingerprint
                and not rounded[1].out_of_order):
            comp.method = "fingerprint, doubles to 9 digits" + (", in order" if order.ordered else "")
            return RowDiff(True, [], [], ref.rows or 0, cand.rows or 0)
    # fingerprints differ (doubles may round across a boundary, a LIMIT may cut ties
    # elsewhere) or the candidate is out of order: compare the rows themselves
    with excluded_rules(spark, ref.exclude):
        left = _collect(ref, collect_limit)
    right = _collect(cand, collect_limit) if left is not None else None
    if left is not None and right is not None:
        comp.method = "rows on the driver"
        if order.ordered:
            comp.method += ", in order"
            return compare_ordered(left, right, order.key_positions, loose_first=order.offset,
                                   loose_last=order.limit, sample=sample)
        return compare_rows(left, right, sample=sample)
    comp.method = "exceptAll in Spark"
    diff = _diff_in_spark(ref, cand, spark, exclude, collect_limit, sample)
    if diff.equal and cand.out_of_order:
        comp.detail = f"same rows, but {cand.out_of_order} rows of the candidate are out of ORDER BY order"
        return RowDiff(False, [], [], diff.left_count, diff.right_count)
    return diff


def _diff_in_spark(ref: Side, cand: Side, spark, exclude, collect_limit, sample) -> RowDiff:
    """Rows of one side missing from the other (Spark's equality: NULL, NaN, -0.0),
    then a tolerant match of the leftovers when few."""
    left, right = positional(ref.df), positional(cand.df)
    if schema_of(left) != schema_of(right):
        types = [f.dataType for f in left.schema.fields]
        right = right.select(*[right[c].cast(t) for c, t in zip(right.columns, types)])
    with excluded_rules(spark, ref.exclude):
        rows_l = [tuple(r) for r in left.exceptAll(right).limit(collect_limit + 1).collect()]
        rows_r = [tuple(r) for r in right.exceptAll(left).limit(collect_limit + 1).collect()]
    if len(rows_l) <= collect_limit and len(rows_r) <= collect_limit:
        d = compare_rows(rows_l, rows_r, sample=sample)
        return RowDiff(d.equal and ref.rows == cand.rows, d.only_left, d.only_right,
                       ref.rows or 0, cand.rows or 0)
    return RowDiff(False, rows_l[:sample], rows_r[:sample], ref.rows or 0, cand.rows or 0)


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------


def register_tables(spark, tables: Mapping[str, Any] | None) -> list[str]:
    """Register tables as temp views: a DataFrame, or a path (Parquet, CSV with a
    header, JSON, ORC by extension; a folder is read as Parquet)."""
    names = []
    for name, source in (tables or {}).items():
        df = read_table(spark, source) if isinstance(source, str) else source
        df.createOrReplaceTempView(name)
        names.append(name)
    return names


def read_table(spark, path: str):
    lower = path.lower().rstrip("/")
    if lower.endswith(".csv"):
        return spark.read.option("header", "true").option("inferSchema", "true").csv(path)
    if lower.endswith((".json", ".jsonl")):
        return spark.read.json(path)
    if lower.endswith(".orc"):
        return spark.read.orc(path)
    return spark.read.parquet(path)


CANDIDATES = ("optimized SQL", "DataFrame")


@record
class _Job:
    result: Any
    order: Ordering
    reference: Side
    sides: list[Side]
    notes: list[str]
    t0: float


# Functions that read the clock: fixed within one query, so two runs of the same query
# (the reference, then a candidate) may differ, as with rand()
CLOCK_NAMES = frozenset("""current_date curdate current_time current_timestamp localtime localtimestamp
    now""".split())


def reads_clock(sql: str) -> bool:
    """Does SQL text name a clock function (`now()`, bare `current_time`,
    `unix_timestamp()` of no argument...)?  A word check: a column named so only costs the
    comparison a note."""
    import re

    lower = sql.lower()
    return bool(set(re.findall(r"[a-z_][a-z0-9_]*", lower)) & CLOCK_NAMES) \
        or re.search(r"\bunix_timestamp\s*\(\s*\)", lower) is not None


def _nondeterministic(plan: L.Plan) -> bool:
    """Does the query call a non-deterministic function (rand(), uuid()...) or read the
    clock?  (The plan's own flag is also False for anything unmodelled, windows included.)"""
    import re

    from ..plans.ir.functions import NONDETERMINISTIC_NAMES

    stack = [plan]
    while stack:
        p = stack.pop()
        stack.extend(p.children)
        for e in p.expressions:
            for n in e.walk():
                if isinstance(n, E.Func) and (not n.spec.deterministic or n.name in CLOCK_NAMES):
                    return True
                if isinstance(n, E.Opaque):
                    names = set(re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", n.sql_text.lower()))
                    if names & NONDETERMINISTIC_NAMES or reads_clock(n.sql_text):
                        return True
                if isinstance(n, E.SubqueryExpr):
                    stack.append(n.plan)
        if isinstance(p, L.OpaqueRelation) and not _repeatable_text(p.template, NONDETERMINISTIC_NAMES):
            return True
    return False


def _repeatable_text(template, nondeterministic_names) -> bool:
    """Does an opaque relation's text surely give the same rows on each run?  Yes when it
    has no window, LIMIT, sample or non-deterministic call (a recursive CTE, a GROUPING
    SETS or PIVOT query, a generator): the others (windows over ties, LIMIT without an
    order...) may not."""
    from sqlglot import exp

    if template.find(exp.Window, exp.Limit, exp.Fetch, exp.TableSample) is not None:
        return False
    names = {n.lower() for n in re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", template.sql(dialect="spark"))}
    return not names & nondeterministic_names


def _prepare(result, spark, candidates: Sequence[str], exclude: Sequence[str],
             references: dict[str, Side], known: dict[tuple, Side]) -> _Job:
    """Build the reference and candidate DataFrames of one result.  A reference (by
    original SQL) or a candidate (by original SQL, kind and text) seen before is shared."""
    from ..plans.pyspark.to_pyspark import run_code, to_pyspark_code

    t0 = time.perf_counter()
    order = ordering_of(result.analyzed)
    notes: list[str] = []
    if result.passthrough:
        notes.append(f"the query was passed through unoptimized: {result.passthrough}")
    if (_nondeterministic(result.analyzed) if result.analyzed is not None
            else reads_clock(result.query_original_sql)):
        notes.append("the query is non-deterministic (or reads the clock): results may differ between runs")
    if order.ordered and not order.all_keys_visible:
        notes.append("some ORDER BY keys are not output columns: ties on the visible keys cannot be "
                     "told apart")
    ref = references.get(result.query_original_sql)
    if ref is None:
        ref = Side("reference", result.query_original_sql, exclude=list(exclude))
        with excluded_rules(spark, exclude):
            _build(ref, lambda: spark.sql(result.query_original_sql))
        references[result.query_original_sql] = ref
    sides: list[Side] = []
    side: Side | None
    for name in candidates:
        if name == "optimized SQL":
            text = result.query_sql
        elif name == "DataFrame":
            try:
                text = to_pyspark_code(result)
            except Exception as e:  # a lowering bug: reported as this side's error
                side = Side(name)
                side.error, side.error_message = _error_of(e)
                sides.append(side)
                continue
        else:
            raise ValueError(f"unknown candidate {name!r}; choose from {CANDIDATES}")
        if name == "optimized SQL" and text == result.query_original_sql:
            # sparkfold returned the query as it came: nothing of ours to run
            sides.append(Side(name, text, method="same text as the original"))
            continue
        key = (result.query_original_sql, name, text)
        side = known.get(key)
        if side is None:
            side = known[key] = Side(name, text)
            if name == "optimized SQL":
                _build(side, lambda: spark.sql(text))
            else:
                _build(side, lambda: run_code(text, spark))
        sides.append(side)
    return _Job(result, order, ref, sides, notes, t0)


def _finish(job: _Job, spark, exclude, collect_limit, sample) -> VerifyReport:
    comparisons = [_compare(job.reference, s, job.order, spark, exclude, collect_limit, sample)
                   for s in job.sides]
    notes = list(job.notes)
    if exclude and not job.reference.exclude:
        notes.append("the reference failed inside Spark with sparkfold's rules excluded (Spark needs "
                     "them for this query), so it ran with Spark's whole optimizer")
    return VerifyReport(job.result.original_sql, job.result.sql, job.reference, job.sides, comparisons,
                        job.order.ordered, list(job.reference.exclude), notes,
                        time.perf_counter() - job.t0)


def verify(result, spark, tables: Mapping[str, Any] | None = None, *,
           candidates: Sequence[str] = CANDIDATES, exclude_rules: Sequence[str] | None = None,
           collect_limit: int = 10_000, sample: int = 10) -> VerifyReport:
    """Run `result.original_sql` (the reference, with the Catalyst rules sparkfold
    implements excluded) and the candidates (`"optimized SQL"`, `"DataFrame"`) on
    `spark`, and compare them.  `tables` registers temp views first (name -> DataFrame
    or path).  `exclude_rules`: Catalyst class names (default: catalyst_rule_classes()).
    Each side runs once, as one Spark job, and is timed."""
    return verify_many([result], spark, tables, candidates=candidates, exclude_rules=exclude_rules,
                       collect_limit=collect_limit, sample=sample)[0]


def verify_many(results: Sequence[Any], spark, tables: Mapping[str, Any] | None = None, *,
                candidates: Sequence[str] = CANDIDATES, exclude_rules: Sequence[str] | None = None,
                collect_limit: int = 10_000, sample: int = 10, parallel: int = 1,
                timed: bool = True) -> list[VerifyReport]:
    """`verify` for many results.  A reference shared by several results (the same
    original SQL) runs once, and so does a candidate they share (the same optimized SQL
    or the same DataFrame program), e.g. when no rule changed a query.  With `parallel`
    > 1 that many Spark jobs run at a time (all references first, under the excluded
    rules, then the candidates); a side's time is then not its time alone.  Without
    `timed`, all references run as one Spark job and all candidates as another (when that
    job fails, each of its sides runs again alone; a candidate of a reference that raised
    runs alone from the start):
    fastest for many small queries, and untimed."""
    register_tables(spark, tables)
    exclude = list(exclude_rules) if exclude_rules is not None else catalyst_rule_classes()
    references: dict[str, Side] = {}
    known: dict[tuple, Side] = {}
    jobs = [_prepare(r, spark, candidates, exclude, references, known) for r in results]
    refs = [(s, None) for s in references.values() if s.error is None]
    with excluded_rules(spark, exclude):
        if timed:
            _run_all(spark, refs, parallel)
        else:
            run_fingerprints(spark, [s for s, _ in refs], [None] * len(refs))
    _retry_references(spark, list(references.values()), {id(r): sql for sql, r in references.items()})
    seen: set[int] = set()
    sides = []
    for job in jobs:
        for s in job.sides:
            if id(s) not in seen and s.error is None and s.df is not None:
                seen.add(id(s))
                sides.append((s, job.order))
    if timed:
        _run_all(spark, sides, parallel)
    else:
        # a candidate of a reference that raised most likely raises too: run alone, it
        # does not fail the others' job (a failed job runs each of its sides again alone)
        raised = {id(s) for job in jobs if job.reference.error is not None for s in job.sides}
        for group in ([(s, o) for s, o in sides if id(s) not in raised],
                      *([(s, o)] for s, o in sides if id(s) in raised)):
            run_fingerprints(spark, [s for s, _ in group], [o for _, o in group])
    return [_finish(job, spark, exclude, collect_limit, sample) for job in jobs]


def _run_all(spark, sides: Sequence[tuple[Side, Ordering | None]], parallel: int) -> None:
    """Fingerprint each side in a job of its own (the session's conf as it is)."""
    def one(item):
        run_fingerprints(spark, [item[0]], [item[1]], ())

    if parallel <= 1 or len(sides) <= 1:
        for item in sides:
            one(item)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=parallel) as pool:
        list(pool.map(one, sides))


def compare_dataframes(reference, candidate, spark, *, order: Ordering | None = None,
                       collect_limit: int = 10_000, sample: int = 10) -> Comparison:
    """Compare two DataFrames the way `verify` compares a candidate with the reference
    (no rules excluded).  `order`: the ORDER BY facts when row order matters."""
    order = order or Ordering()
    ref, cand = Side("reference"), Side("candidate")
    _build(ref, lambda: reference)
    _build(cand, lambda: candidate)
    run_fingerprints(spark, [ref], [None])
    run_fingerprints(spark, [cand], [order if order.ordered else None])
    return _compare(ref, cand, order, spark, (), collect_limit, sample)
