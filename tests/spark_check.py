"""Running SQL on the test Spark session and comparing results (Spark is the oracle)."""

from __future__ import annotations

from sparkfold.optimizer.compare import compare_rows
from sparkfold.optimizer.verify import base_type, schema_of
from sparkfold.plans.ir import logical as L

__all__ = ["schema_of", "names_and_types", "run", "run_or_error", "error_class", "is_ordered",
           "assert_same_result", "verify_batched"]

# Results verified per batch by `verify_batched`: each batch is two Spark jobs (every
# reference in one, every candidate in the other) unless a side raises, when each side
# of the failing job runs again alone.  Small batches keep that retry short where many
# queries raise (ANSI errors are results too).
BATCH = 20


def names_and_types(df) -> list[tuple[str, str]]:
    """(name, simple type) per column, nullability left out: for comparing with a plan's
    inferred types, where nullability is compared on its own."""
    return [(n, base_type(t)) for n, t in schema_of(df)]


def run(spark, sql: str, nullability: bool = True):
    df = spark.sql(sql)
    return (schema_of(df) if nullability else names_and_types(df)), [tuple(r) for r in df.collect()]


def run_or_error(spark, sql: str, nullability: bool = True):
    """(schema, rows) or ("error", condition) when Spark raises."""
    try:
        return run(spark, sql, nullability)
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


def assert_same_result(spark, original: str, candidate: str, ordered: bool = False, context: str = "",
                       nullability: bool = True):
    """Spark gives both texts the same result: rows, names, types and (unless told
    otherwise, for a rule's own output, which the optimizer's last step retypes) nullability."""
    a = run_or_error(spark, original, nullability)
    b = run_or_error(spark, candidate, nullability)
    msg = f"{context}\noriginal:  {original}\ncandidate: {candidate}"
    if a[0] == "error" or b[0] == "error":
        assert a == b, f"errors differ: {a[1] if a[0] == 'error' else 'rows'} vs " \
                       f"{b[1] if b[0] == 'error' else 'rows'}\n{msg}"
        return
    assert a[0] == b[0], f"schemas differ: {a[0]} vs {b[0]}\n{msg}"
    diff = compare_rows(a[1], b[1], ordered=ordered)
    assert diff.equal, (f"rows differ ({diff.left_count} vs {diff.right_count}); only in original: "
                        f"{diff.only_left}; only in candidate: {diff.only_right}\n{msg}")


def verify_batched(results, spark, batch: int = BATCH, **options):
    """`verify_many` over many results in a few Spark jobs (its untimed mode, `batch`
    results at a time): the same comparisons, sides and reports, without one Spark job
    per side.  Job scheduling, not the tiny data, is what a side costs on its own."""
    from sparkfold.optimizer.verify import verify_many

    results = list(results)
    return [report for i in range(0, len(results), batch)
            for report in verify_many(results[i:i + batch], spark, timed=False, **options)]
