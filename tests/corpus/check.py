"""Run corpus statements through sparkfold and compare with Spark.

For each statement: does Spark accept it (analysis)?  If not, it is not part of the
corpus (Spark SQL only).  Else sparkfold must not reject it (a user error on SQL that
Spark accepts is a rejection), nor fail inside; a pass-through is counted.  Then the
original runs on Spark (with the Catalyst rules sparkfold implements excluded) against
the optimized SQL and the lowered DataFrame program (`optimizer.verify`): names, types,
nullability, rows and errors must be the same (a result wrong in nullability only is
counted apart too, `schema_only`).  Catalyst's own optimized plan of the original gives
its reach: outer joins removed (outer joins of the analyzed plan less those of the
optimized one, when positive) and queries folded to an empty relation; sparkfold's is
read off its analyzed and optimized plans the same way.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import logical as L

from .source import Statement
from .tables import register_world, world_of

OUTER = (L.LEFT_OUTER, L.RIGHT_OUTER, L.FULL_OUTER)
_CATALYST_OUTER = re.compile(r"Join (LeftOuter|RightOuter|FullOuter)\b")


@dataclass
class Outcome:
    name: str
    sql: str
    status: str                   # spark-rejects | no-query | rejected | bug | passthrough | unchanged | rewritten
    detail: str = ""
    optimized_sql: str = ""
    sql_verdict: str = ""         # equal | wrong | nondeterministic | "" (not compared)
    df_verdict: str = ""          # equal | wrong | lowering-failed | nondeterministic | ""
    df_fallback: bool = False     # the DataFrame program runs part of the plan as SQL text
    schema_only: str = ""         # "sql" / "dataframe" / "sql,dataframe": wrong in nullability only
    catalyst_outer_removed: int = 0
    sparkfold_outer_removed: int = 0
    catalyst_empty: bool = False
    sparkfold_empty: bool = False
    report: str = field(default="", repr=False)


def _outer_joins(plan: L.Plan | None) -> int:
    n, stack = 0, [plan] if plan is not None else []
    while stack:
        p = stack.pop()
        if isinstance(p, L.Join) and p.join_type in OUTER:
            n += 1
        stack.extend(p.children)
        for e in p.expressions:
            stack.extend(s.plan for s in e.walk() if isinstance(s, E.SubqueryExpr))
    return n


def _is_empty(plan: L.Plan | None) -> bool:
    while isinstance(plan, (L.Project, L.SubqueryAlias)):
        plan = plan.child
    return isinstance(plan, L.LocalRelation) and plan.is_empty


def _catalyst_reach(df) -> tuple[int, bool]:
    try:
        qe = df._jdf.queryExecution()
        analyzed, optimized = qe.analyzed().toString(), qe.optimizedPlan().toString()
    except Exception:  # noqa: BLE001 - the query fails in Spark's optimizer: no reach
        return 0, False
    removed = len(_CATALYST_OUTER.findall(analyzed)) - len(_CATALYST_OUTER.findall(optimized))
    return max(0, removed), optimized.lstrip().startswith("LocalRelation <empty>")


def _accepted(spark, st: Statement):
    """(Spark SQL text, DataFrame) when Spark accepts the statement, else (None, error)."""
    texts = [f"{st.sql} FROM {t}" for t in st.tables] if st.tables else [st.sql]
    error = ""
    for text in texts:
        try:
            return text, spark.sql(text)
        except Exception as e:  # noqa: BLE001 - Spark's analysis or parse error: not Spark SQL
            error = str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__
    return None, error


def check(spark, statements: list[Statement], *, compare: bool = True, dataframe: bool = True,
          regenerate: bool = False, ansi: bool = True, progress=None) -> list[Outcome]:
    """Check the statements (registering each world's tables in turn).  Without
    `compare` nothing runs on Spark but its analysis and optimizer (reach, rejections,
    pass-through).  With `regenerate` no rule runs and every analyzed query is written
    back as SQL: the analysis and the writer are checked on every statement, not only
    where a rule fires."""
    from sparkfold.plans.sql_in.catalog import Catalog

    spark.conf.set("spark.sql.ansi.enabled", str(ansi).lower())

    outcomes: list[Outcome] = []
    by_world: dict[str, list[Statement]] = {}
    for st in statements:
        by_world.setdefault(world_of(st.name), []).append(st)
    done = 0
    for world, group in by_world.items():
        schema = Catalog.from_mapping(register_world(spark, world), ansi=ansi)
        for start in range(0, len(group), 40):
            chunk, pending = group[start:start + 40], []
            for st in chunk:
                text, df = _accepted(spark, st)
                if text is None:
                    outcomes.append(Outcome(st.name, st.sql, "spark-rejects", df))
                    continue
                out = Outcome(st.name, text, "")
                out.catalyst_outer_removed, out.catalyst_empty = _catalyst_reach(df)
                result = run_sparkfold(out, text, schema, regenerate)
                if result is not None:
                    pending.append((out, result))
                outcomes.append(out)
            if pending and compare:
                compare_on_spark(spark, pending, dataframe)
            done += len(chunk)
            if progress:
                progress(done, len(statements))
    return outcomes


def run_sparkfold(out: Outcome, text: str, schema, regenerate: bool = False):
    """sparkfold on one statement Spark accepts: its status (and reach) in `out`; the
    result to compare on Spark, or None (not optimized, or non-deterministic)."""
    from sparkfold import optimize
    from sparkfold.optimizer.errors import InternalError, SparkfoldError
    from sparkfold.optimizer.verify import _nondeterministic, reads_clock

    try:
        result = optimize(text, schema, rules=[], always_regenerate=True) if regenerate \
            else optimize(text, schema)
    except InternalError as e:
        out.status, out.detail = "bug", str(e)
        return None
    except SparkfoldError as e:
        out.status, out.detail = "rejected", str(e)
        return None
    except Exception as e:  # noqa: BLE001 - anything else escaping optimize() is a bug
        out.status, out.detail = "bug", f"{type(e).__name__}: {e}"
        return None
    out.optimized_sql = result.sql
    if result.passthrough:
        out.status, out.detail = "passthrough", str(result.passthrough)
    else:
        out.status = "rewritten" if result.trace else "unchanged"
        out.sparkfold_outer_removed = max(0, _outer_joins(result.analyzed) - _outer_joins(result.optimized))
        out.sparkfold_empty = _is_empty(result.optimized)
    if _nondeterministic(result.analyzed) if result.analyzed is not None else reads_clock(text):
        out.sql_verdict = "nondeterministic"
        return None
    return result


def compare_on_spark(spark, pending: list, dataframe: bool = True) -> None:
    """Each (outcome, result)'s original against its optimized SQL (and lowered DataFrame
    program) on Spark, in one batch: the verdicts go into the outcomes."""
    from sparkfold.optimizer.verify import verify_many

    cands = ("optimized SQL", "DataFrame") if dataframe else ("optimized SQL",)
    reports = verify_many([r for _, r in pending], spark, candidates=cands)
    for (out, result), rep in zip(pending, reports):
        sql_c = rep.comparison("optimized SQL")
        out.sql_verdict = "equal" if sql_c.equal else "wrong"
        only = ["sql"] if sql_c.nullability_only and sql_c.rows_equal else []
        if dataframe:
            df_side = next(s for s in rep.candidates if s.name == "DataFrame")
            df_c = rep.comparison("DataFrame")
            if df_c.equal:
                out.df_verdict = "equal"
            elif df_side.error and "lower" in (df_side.error_message or "").lower():
                out.df_verdict = "lowering-failed"
            else:
                out.df_verdict = "wrong"
                if df_c.nullability_only and df_c.rows_equal:
                    only.append("dataframe")
            out.df_fallback = "spark.sql(" in (df_side.text or "")
        out.schema_only = ",".join(only)
        if not rep.equal:
            out.report = rep.to_text()


def summary(outcomes: list[Outcome]) -> dict:
    """The counts the issue asks for, over the statements Spark accepts."""
    from sparkfold.optimizer.hooks import _reason

    status = Counter(o.status for o in outcomes)
    accepted = [o for o in outcomes if o.status not in ("spark-rejects", "no-query")]
    compared = [o for o in accepted if o.sql_verdict in ("equal", "wrong")]
    lowered = [o for o in accepted if o.df_verdict]
    return {
        "statements": len(outcomes),
        "spark_rejects": status["spark-rejects"],
        "no_query": status["no-query"],
        "accepted": len(accepted),
        "rewritten": status["rewritten"],
        "unchanged": status["unchanged"],
        "passthrough": status["passthrough"],
        "passthrough_share": status["passthrough"] / len(accepted) if accepted else 0.0,
        # by reason, the query's particulars left out (as the hook counts them)
        "passthrough_reasons": dict(Counter(_reason(o.detail) for o in accepted
                                            if o.status == "passthrough").most_common()),
        "rejected": status["rejected"],
        "bugs": status["bug"],
        "compared": len(compared),
        "wrong_sql": sum(o.sql_verdict == "wrong" for o in accepted),
        "wrong_sql_nullability_only": sum("sql" in o.schema_only.split(",") for o in accepted),
        "nondeterministic": sum(o.sql_verdict == "nondeterministic" for o in accepted),
        "dataframe_compared": len(lowered),
        "wrong_dataframe": sum(o.df_verdict == "wrong" for o in lowered),
        "wrong_dataframe_nullability_only": sum("dataframe" in o.schema_only.split(",") for o in lowered),
        "lowering_failed": sum(o.df_verdict == "lowering-failed" for o in lowered),
        "dataframe_text_fallback": sum(o.df_fallback for o in lowered),
        "catalyst_outer_joins_removed": sum(o.catalyst_outer_removed for o in accepted),
        "sparkfold_outer_joins_removed": sum(o.sparkfold_outer_removed for o in accepted),
        "catalyst_empty": sum(o.catalyst_empty for o in accepted),
        "sparkfold_empty": sum(o.sparkfold_empty for o in accepted),
    }
