"""Spark's answer for many constant expressions at once: value and type, or error class.

Expressions are evaluated in batches, one `SELECT` of hundreds of columns (one line
each, so that an error's query context names its column), with the Catalyst rules
sparkfold implements excluded: Spark then evaluates what the SQL says (its own
NullPropagation would make `(1/0) = NULL` NULL, hiding the error a fold must keep).

When a batch fails analysis, the column its error points at is recorded as failing and
the rest is tried again (halves when the error names no column).  When it fails at
run time, every expression of the batch is evaluated on its own inside the JVM (the
analyzed and optimized expression's `eval`, which is what Spark's ConstantFolding
calls): those that raise are recorded with their error class, the others run again as
a batch, so every value recorded is one a query returned.

An outcome is a small JSON-able dict: `{"t": type, "v": encoded value}` or
`{"e": error class}`.  Values are encoded exactly (`encode`).
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from decimal import Decimal
from typing import Any, Iterator

Outcome = dict

# Catalyst rules that fold or drop what the SQL says: sparkfold's counterparts, and the
# conversion of a projection over a local relation into its values
REFERENCE_EXCLUDED = ("org.apache.spark.sql.catalyst.optimizer.ConvertToLocalRelation",)
_LINE = re.compile(r"\(line (\d+), pos(?:ition)? \d+\)")
_CONDITION = re.compile(r"^\[([A-Z0-9_.]+)\]")


def reference_rules() -> list[str]:
    from sparkfold.optimizer.verify import catalyst_rule_classes

    return sorted(set(catalyst_rule_classes()) | set(REFERENCE_EXCLUDED))


@contextmanager
def mode(spark, ansi: bool) -> Iterator[None]:
    """ANSI on or off, with the reference rules excluded, for the block."""
    from sparkfold.optimizer.verify import excluded_rules

    settings = {"spark.sql.ansi.enabled": "true" if ansi else "false",
                # each column on its own: Spark's elimination of common subexpressions
                # takes -0.0 and 0.0 for one value across the columns of a batch
                "spark.sql.subexpressionElimination.enabled": "false"}
    old = {k: spark.conf.get(k) for k in settings}
    for k, v in settings.items():
        spark.conf.set(k, v)
    try:
        with excluded_rules(spark, reference_rules()):
            yield
    finally:
        for k, v in old.items():
            spark.conf.set(k, v)


# ---------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------


def encode(value: Any, type_name: str) -> Any:
    """A value of a Spark type as exact JSON (NULL is None): a double or float by
    Python's repr (exact, NaN as one, -0.0 kept), a decimal by its digits, a binary in
    hex, a date or timestamp by Spark's text, booleans and integers as they are."""
    if value is None:
        return None
    if type_name in ("double", "float"):
        return repr(float(value))
    if type_name.startswith("decimal"):
        return format(value if isinstance(value, Decimal) else Decimal(value), "f")
    if type_name == "boolean":
        return bool(value)
    if type_name in ("tinyint", "smallint", "int", "bigint"):
        return int(value)
    if type_name == "binary":
        return bytes(value).hex()
    return str(value)


def error(cls: str) -> Outcome:
    return {"e": cls}


def value(t: str, v: Any) -> Outcome:
    return {"t": t, "v": v}


def condition_of(e: BaseException) -> str:
    """The error class of a PySpark or py4j exception (else its Java or Python class)."""
    get = getattr(e, "getCondition", None)
    if get is not None:
        try:
            c = get()
            if c:
                return c
        except Exception:  # noqa: BLE001
            pass
    java = getattr(e, "java_exception", None)
    if java is not None:
        try:
            c = java.getCondition()
            if c:
                return c
        except Exception:  # noqa: BLE001
            pass
        try:
            return str(java.getClass().getName())
        except Exception:  # noqa: BLE001
            pass
    m = _CONDITION.match(str(e))
    return m.group(1) if m else type(e).__name__


# ---------------------------------------------------------------------------
# Batches
# ---------------------------------------------------------------------------


ROW = "__row"


def _select(exprs: list[str], source: str | None = None) -> str:
    # line i + 2 holds column i; over a table, its `id` comes last, as __row
    items = [f"{e} AS c{i}" for i, e in enumerate(exprs)]
    if source is None:
        return "SELECT\n" + ",\n".join(items)
    return "SELECT\n" + ",\n".join(items + [f"id AS {ROW}"]) + f"\nFROM {source}"


def _failing_column(e: BaseException, count: int) -> int | None:
    """The column whose line the error names; not for a syntax error, which a string
    left open on an earlier line can push to a later one."""
    if condition_of(e).startswith("PARSE_") or "ParseException" in type(e).__name__:
        return None
    lines = {int(m) for m in _LINE.findall(str(e))}
    if len(lines) != 1:
        return None
    k = lines.pop() - 2
    return k if 0 <= k < count else None


_STRING_FORMS = ("date", "timestamp", "timestamp_ntz")  # and the intervals


def _shown(df):
    """The columns as Python reads them exactly: dates, timestamps and intervals as
    Spark's text (Python's dates stop at year 9999; the session's time zone is UTC)."""
    from pyspark.sql import functions as F

    cols = []
    for f in df.schema.fields:
        c = F.col(f.name)
        t = f.dataType.simpleString()
        cols.append(c.cast("string").alias(f.name) if t in _STRING_FORMS or t.startswith("interval") else c)
    return df.select(cols)


def _jvm_errors(df) -> dict[int, str]:
    """Column index -> error class, for the columns whose expression raises when Spark
    evaluates it on its own (its optimized plan's projection, interpreted)."""
    plan = df._jdf.queryExecution().optimizedPlan()
    out: dict[int, str] = {}
    try:
        projections = plan.projectList()
    except Exception:  # noqa: BLE001 - not a projection: nothing to evaluate alone
        return out
    for i in range(projections.size()):
        try:
            projections.apply(i).eval(None)
        except Exception as x:  # noqa: BLE001 - the error is the answer
            out[i] = condition_of(x)
    return out


class Evaluator:
    """Spark's outcomes for lists of constant expressions, in one mode; or, with a
    `source` table (which has an `id` column), of expressions over its rows: the value
    of an outcome is then the list of the expression's values, by id."""

    def __init__(self, spark, batch: int = 300, source: str | None = None):
        self.spark = spark
        self.batch = batch
        self.source = source
        self.queries = 0

    def outcomes(self, exprs: list[str]) -> list[Outcome]:
        out: list[Outcome] = []
        for start in range(0, len(exprs), self.batch):
            out.extend(self._batch(exprs[start:start + self.batch]))
        return out

    def one(self, expr: str) -> Outcome:
        return self._batch([expr])[0]

    def types(self, exprs: list[str], likely: list[bool] | None = None) -> list[Outcome]:
        """Spark's analysis only: `{"t": type}` or `{"e": class}` for each expression.
        `likely[i]` False: the expression is expected to fail analysis, so it is asked
        alone (a batch pays one more analysis for each of its failures)."""
        likely = likely or [True] * len(exprs)
        out: list[Outcome | None] = [None] * len(exprs)
        batched = [i for i in range(len(exprs)) if likely[i]]
        for start in range(0, len(batched), self.batch):
            part = batched[start:start + self.batch]
            for i, o in zip(part, self._analyze([exprs[i] for i in part])):
                out[i] = o
        for i in range(len(exprs)):
            if not likely[i]:
                out[i] = self._analyze([exprs[i]])[0]
        return _missing(out)

    def _analyze(self, exprs: list[str]) -> list[Outcome]:
        result: list[Outcome | None] = [None] * len(exprs)
        pending = list(range(len(exprs)))
        failures = 0
        while pending:
            self.queries += 1
            try:
                fields = self.spark.sql(_select([exprs[i] for i in pending], self.source)).schema.fields
            except Exception as e:  # noqa: BLE001
                k = _failing_column(e, len(pending))
                failures += 1
                # the column the error names goes; from the third failure on, halves
                # (each failure costs an analysis of the whole rest)
                if (k is None or failures > 2) and len(pending) > 1:
                    mid = len(pending) // 2
                    for part in (pending[:mid], pending[mid:]):
                        for i, o in zip(part, self._analyze([exprs[i] for i in part])):
                            result[i] = o
                    return _missing(result)
                k = 0 if k is None else k
                result[pending[k]] = error(condition_of(e))
                del pending[k]
                continue
            for k, i in enumerate(pending):
                result[i] = {"t": fields[k].dataType.simpleString()}
            break
        return _missing(result)

    def _batch(self, exprs: list[str]) -> list[Outcome]:
        result: list[Outcome | None] = [None] * len(exprs)
        pending = list(range(len(exprs)))
        failures = 0
        while pending:
            self.queries += 1
            try:
                df = self.spark.sql(_select([exprs[i] for i in pending], self.source))
            except Exception as e:  # noqa: BLE001 - analysis (or parse) error
                k = _failing_column(e, len(pending))
                failures += 1
                if (k is None or failures > 2) and len(pending) > 1:
                    return self._halves(exprs, result, pending)
                k = 0 if k is None else k
                result[pending[k]] = error(condition_of(e))
                del pending[k]
                continue
            for i, o in zip(pending, self.frame(df)):
                result[i] = o
            break
        return _missing(result)

    def frame(self, df) -> list[Outcome]:
        """The outcome of each column of a DataFrame (a one-row one, or one over the
        source with its row id last): its values, or the error it raises."""
        names = [c for c in df.columns if c != ROW]
        fields = {f.name: f.dataType.simpleString() for f in df.schema.fields}
        types = [fields[c] for c in names]
        result: list[Outcome | None] = [None] * len(names)
        pending = list(range(len(names)))
        jvm_tried = self.source is not None  # (expressions over rows are not evaluated alone)
        while pending:
            self.queries += 1
            part = df.select([names[k] for k in pending] + ([ROW] if self.source else []))
            try:
                rows = _shown(part).collect()
            except Exception as e:  # noqa: BLE001 - a run-time error
                if len(pending) == 1:
                    result[pending[0]] = error(condition_of(e))
                    break
                if not jvm_tried:
                    jvm_tried = True
                    failing = _jvm_errors(part)
                    if failing:
                        for k, cls in failing.items():
                            result[pending[k]] = error(cls)
                        pending = [i for k, i in enumerate(pending) if k not in failing]
                        continue
                k = _failing_column(e, len(names))  # (the line of the SQL text, if any)
                if k in pending:
                    result[k] = error(condition_of(e))
                    pending.remove(k)
                    continue
                mid = len(pending) // 2  # halves, down to the one that raises
                for half in (pending[:mid], pending[mid:]):
                    sub = df.select([names[i] for i in half] + ([ROW] if self.source else []))
                    for i, o in zip(half, self.frame(sub)):
                        result[i] = o
                break
            if self.source is not None:
                rows = sorted(rows, key=lambda r: r[-1])
            for k, i in enumerate(pending):
                t = types[i]
                if self.source is None:
                    result[i] = value(t, encode(rows[0][k], t))
                else:
                    result[i] = value(t, [encode(r[k], t) for r in rows])
            break
        return _missing(result)

    def _halves(self, exprs, result, pending) -> list[Outcome]:
        mid = len(pending) // 2
        for part in (pending[:mid], pending[mid:]):
            for i, o in zip(part, self._batch([exprs[i] for i in part])):
                result[i] = o
        return _missing(result)


def _missing(result: list) -> list[Outcome]:
    if any(r is None for r in result):
        raise RuntimeError("an expression of the batch got no outcome")
    return list(result)
