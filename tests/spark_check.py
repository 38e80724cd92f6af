"""Running SQL on the test Spark session and comparing results (Spark is the oracle)."""

from __future__ import annotations

from sparkfold.optimizer.compare import compare_rows
from sparkfold.plans.ir import logical as L


def schema_of(df) -> list[tuple[str, str]]:
    return [(f.name, f.dataType.simpleString()) for f in df.schema.fields]


def run(spark, sql: str):
    df = spark.sql(sql)
    return schema_of(df), [tuple(r) for r in df.collect()]


def run_or_error(spark, sql: str):
    """(schema, rows) or ("error", condition) when Spark raises."""
    try:
        return run(spark, sql)
    except Exception as e:  # Spark's error is the result
        return "error", error_class(e)


def error_class(e: Exception) -> str:
    cond = getattr(e, "getCondition", None) or getattr(e, "getErrorClass", None)
    try:
        c = cond() if cond else None
    except Exception:
        c = None
    return c or type(e).__name__


def is_ordered(plan: L.Plan | None) -> bool:
    """Is row order part of the result (a top-level ORDER BY)?"""
    while plan is not None:
        if isinstance(plan, L.Sort):
            return True
        if isinstance(plan, (L.Project, L.Filter, L.Limit, L.Offset, L.SubqueryAlias)):
            plan = plan.child
            continue
        return False
    return False


def assert_same_result(spark, original: str, candidate: str, ordered: bool = False, context: str = ""):
    a = run_or_error(spark, original)
    b = run_or_error(spark, candidate)
    msg = f"{context}\noriginal:  {original}\ncandidate: {candidate}"
    if a[0] == "error" or b[0] == "error":
        assert a == b, f"errors differ: {a[1] if a[0] == 'error' else 'rows'} vs " \
                       f"{b[1] if b[0] == 'error' else 'rows'}\n{msg}"
        return
    assert a[0] == b[0], f"schemas differ: {a[0]} vs {b[0]}\n{msg}"
    diff = compare_rows(a[1], b[1], ordered=ordered)
    assert diff.equal, (f"rows differ ({diff.left_count} vs {diff.right_count}); only in original: "
                        f"{diff.only_left}; only in candidate: {diff.only_right}\n{msg}")
