"""The three oracles of issue 6, over cases built by the generators of this package.

1. Differential: the original query (run with the Catalyst rules sparkfold implements
   excluded) against sparkfold's optimized SQL and lowered DataFrame, on Spark: names,
   types, rows (as multisets, or in order under a top-level ORDER BY) and raised errors.
2. Ternary logic partitioning (SQLancer): `Q` against `Q WHERE p UNION ALL Q WHERE NOT p
   UNION ALL Q WHERE p IS NULL`, each part optimized by sparkfold on its own (also the
   DISTINCT, HAVING and MIN/MAX/SUM/COUNT variants, see `QueryGen.tlp`).
3. Idempotence: optimizing the optimized SQL gives it back, and one more run of the
   batches leaves the optimized plan as it is.

Spark work is batched: `check_cases` optimizes every case in Python, then verifies all
of them in a few Spark jobs (`tests.spark_check.verify_batched`: a fingerprint per side,
computed inside Spark, the references of a batch in one job and its candidates in
another).

A query sparkfold rejects (parse or analysis error) is checked against Spark: when
Spark accepts it, that is a finding too ("rejected"); an internal error is a "crash".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .choices import RandomChooser, ReplayChooser
from .queries import QueryGen
from .world import World

DIFF, TLP = "diff", "tlp"
OUTER_JOINS = "outer-joins"

# Tiny data runs fastest interpreted, in one shuffle partition, from cached tables.
# Cached batches must not be pruned by their column statistics: Spark 4.3 prunes wrongly
# for NaN (`x = 'NaN'` on a cached table loses the NaN rows; see tests/test_verify.py).
FAST_CONF = {"spark.sql.codegen.wholeStage": "false", "spark.sql.codegen.factoryMode": "NO_CODEGEN",
             "spark.sql.shuffle.partitions": "1", "spark.sql.inMemoryColumnarStorage.partitionPruning": "false"}


def quiet() -> None:
    """PySpark logs every query's error (with its JVM stack) as JSON on stderr; for the
    fuzzer an error is an ordinary result."""
    import logging

    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        logging.getLogger(name).disabled = True


@dataclass
class Case:
    """One generated test: a query (DIFF) or a TLP family (TLP), and how to replay it."""

    oracle: str
    world: World
    record: list[int]
    sql: str                                   # DIFF: the query; TLP: Q
    parts: list[str] = field(default_factory=list)  # TLP: the partitions, combined with UNION ALL
    combine: str = "{}"                        # TLP: how the union of the parts becomes Q's answer
    shape: str = ""                            # "" (any query) or OUTER_JOINS (see `build`)


def build(oracle: str, world: World, chooser, shape: str = "") -> Case:
    """A case of the oracle; `shape` "outer-joins": a DIFF case over a chain of outer
    joins (`QueryGen.outer_joins`), not any query."""
    gen = QueryGen(chooser, world, safe=oracle == TLP)
    if oracle == DIFF:
        return Case(DIFF, world, chooser.record, gen.outer_joins() if shape == OUTER_JOINS else gen.query(),
                    shape=shape)
    q, parts, combine = gen.tlp()
    return Case(TLP, world, chooser.record, q, parts, combine)


def replay_case(oracle: str, world: World, record, shape: str = "") -> Case:
    return build(oracle, world, ReplayChooser(record), shape)


def make_cases(world: World, seed: int, count: int, oracle: str, shape: str = "") -> list[Case]:
    import random

    rnd = random.Random(f"{oracle}:{shape}:{seed}" if shape else f"{oracle}:{seed}")
    return [build(oracle, world, RandomChooser(rnd.getrandbits(64)), shape) for _ in range(count)]


# ---------------------------------------------------------------------------
# Outcomes
# ---------------------------------------------------------------------------


@dataclass
class Finding:
    kind: str            # "disagreement", "rejected", "crash", "not idempotent"
    case: Case
    text: str            # what to print: the query, the optimized SQL, the report

    def __str__(self) -> str:
        return f"[{self.kind}] ({self.case.oracle}, world {self.case.world.seed})\n{self.text}"


@dataclass
class Stats:
    queries: int = 0          # queries optimized (a TLP case counts its Q and its parts)
    analyzed: int = 0
    passthrough: int = 0
    rewritten: int = 0
    raised: int = 0           # references that raise on Spark (an error is a result)
    rejected: int = 0         # sparkfold and Spark both reject the query
    idempotent_once: int = 0  # analyzed queries whose optimized SQL optimizes to itself
    plan_idempotent_once: int = 0  # ... whose optimized plan one more run of the batches keeps
    order_dependent_errors: int = 0  # raise or not depends on Spark's plan (see _spark_decides_the_error)
    errors_dropped_empty: int = 0    # an error never evaluated past an empty relation (allowed)
    errors_spark_drops: int = 0      # an error still in our SQL that Spark's optimizer drops (see _error_kept)
    tlp_predicates_raising: int = 0  # TLP parts raise where Q does not, optimized or not (see _parts_raise)
    references_off_without_rules: int = 0  # rows differ from the reference only (see _whole_optimizer_agrees)
    originals_failing_in_spark: int = 0  # the original hits a Spark bug (an internal JVM error)
    cases: dict = field(default_factory=lambda: {DIFF: 0, TLP: 0})

    def add(self, other: "Stats") -> None:
        for k in ("queries", "analyzed", "passthrough", "rewritten", "raised", "rejected", "idempotent_once",
                  "plan_idempotent_once", "order_dependent_errors", "errors_dropped_empty",
                  "errors_spark_drops", "originals_failing_in_spark", "tlp_predicates_raising",
                  "references_off_without_rules"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        for k, v in other.cases.items():
            self.cases[k] = self.cases.get(k, 0) + v

    def line(self) -> str:
        return (f"cases diff={self.cases.get(DIFF, 0)} tlp={self.cases.get(TLP, 0)}; queries {self.queries}: "
                f"analyzed {self.analyzed}, passthrough {self.passthrough}, rewritten {self.rewritten}, "
                f"rejected by both {self.rejected}; references raising on Spark {self.raised}; "
                f"optimized SQL optimizing to itself {self.idempotent_once}/{self.analyzed}, plans kept by "
                f"the batches {self.plan_idempotent_once}/{self.analyzed}; errors that "
                f"Spark's plan decides {self.order_dependent_errors}, errors dropped with an empty relation "
                f"{self.errors_dropped_empty}, errors kept in our SQL that Spark's optimizer drops "
                f"{self.errors_spark_drops}, originals failing inside Spark {self.originals_failing_in_spark}, "
                f"TLP parts raising unoptimized too {self.tlp_predicates_raising}, references Spark computes "
                f"otherwise without the excluded rules {self.references_off_without_rules}")


@dataclass
class _Combined:
    """A stand-in for an OptimizeResult: the TLP union of optimized parts as the
    candidate SQL against Q's original text as the reference."""

    original_sql: str
    sql: str
    analyzed: Any = None
    passthrough: Any = None

    @property
    def query_original_sql(self) -> str:  # a query, not a statement wrapping one
        return self.original_sql

    @property
    def query_sql(self) -> str:
        return self.sql


def _optimize(sql: str, catalog):
    from sparkfold.optimizer import optimize
    from sparkfold.plans.ir.errors import (
        AnalysisError,
        InternalError,
        ParseError,
        SparkfoldError,
    )

    try:
        return optimize(sql, catalog), None
    except (ParseError, AnalysisError) as e:
        return None, ("rejected", e)
    except InternalError as e:
        return None, ("crash", e)
    except SparkfoldError as e:
        return None, ("rejected", e)
    except Exception as e:  # noqa: BLE001 - a bug: reported as a crash
        return None, ("crash", e)


def _spark_rejects(spark, sql: str) -> str | None:
    """Spark's analysis error for `sql`, or None when Spark accepts it."""
    try:
        spark.sql(sql).schema
        return None
    except Exception as e:  # noqa: BLE001
        return str(e).splitlines()[0][:300]


def idempotence_problem(result, catalog, stats: "Stats | None" = None) -> str | None:
    """None when optimizing again is stable, else what changed.

    Checked: running the default batches again on the optimized plan (and keeping the
    original's output nullability, as `optimize` does) reaches a fixed point by the
    second run; the optimized SQL optimizes again without error; and the
    SQL text reaches its fixed point by the second round, `optimize(optimize(s)) ==
    optimize(s)` for s = `optimize(q).sql`.  Whether the first round is already the
    fixed point is counted (`stats.plan_idempotent_once`, `stats.idempotent_once`) and
    bounded by tests/test_fuzz.py; known causes of a second round: a filter that
    InferFiltersFromConstraints (a Once batch) could infer from a filter pushed later,
    and forms the SQL writer prints that the rules simplify once more after parsing
    (`CAST(0 AS DOUBLE)`, parenthesized ORDER BY keys)."""
    from sparkfold.optimizer import optimize
    from sparkfold.optimizer.batches import default_batches
    from sparkfold.optimizer.engine import Trace, execute
    from sparkfold.optimizer.output_nullability import keep_output_nullability
    from sparkfold.plans.ir.printer import plan_str
    from sparkfold.rules.base import RuleContext

    if result.analyzed is None:
        return None
    ctx = RuleContext(ansi=catalog.ansi)

    def again(p):  # what optimize() does after analysis: the batches, then the output's nullability kept
        return keep_output_nullability(result.analyzed, execute(p, default_batches(), ctx, ())[0], Trace())

    plan = again(result.optimized)
    if plan is not result.optimized and plan_str(plan) != plan_str(result.optimized):
        third = again(plan)
        if third is not plan and plan_str(third) != plan_str(plan):
            return (f"the batches do not reach a fixed point:\n{plan_str(result.optimized)}\n"
                    f"-- became --\n{plan_str(plan)}\n-- and then --\n{plan_str(third)}")
    elif stats is not None:
        stats.plan_idempotent_once += 1
    again = optimize(result.sql, catalog)
    if again.sql == result.sql:
        if stats is not None:
            stats.idempotent_once += 1
        return None
    third = optimize(again.sql, catalog)
    if third.sql != again.sql:
        return (f"optimize does not reach a fixed point:\n  once:   {result.sql}\n  twice:  {again.sql}\n"
                f"  thrice: {third.sql}")
    return None


def check_cases(cases: list[Case], spark, *, dataframe: bool = True,
                idempotence: bool = True) -> tuple[Stats, list[Finding]]:
    """Run every oracle on `cases` (all of one world, registered on `spark`)."""
    from tests.spark_check import verify_batched

    quiet()
    stats, findings = Stats(), []
    jobs: list[tuple[Case, Any]] = []   # (case, result for verify_many)
    for case in cases:
        stats.cases[case.oracle] = stats.cases.get(case.oracle, 0) + 1
        catalog = case.world.catalog
        texts = [case.sql] + case.parts
        results = []
        for sql in texts:
            stats.queries += 1
            result, err = _optimize(sql, catalog)
            if err is not None:
                kind, e = err
                spark_says = _spark_rejects(spark, sql)
                if kind == "rejected" and spark_says is not None:
                    stats.rejected += 1
                else:
                    findings.append(Finding(kind, case, f"query:\n  {sql}\nsparkfold: {type(e).__name__}: {e}\n"
                                                        f"Spark: {spark_says or 'accepts the query'}"))
                results.append(None)
                continue
            if result.passthrough:
                stats.passthrough += 1
            else:
                stats.analyzed += 1
                stats.rewritten += result.sql != sql
            if idempotence:
                try:
                    problem = idempotence_problem(result, catalog, stats)
                except Exception as e:  # noqa: BLE001
                    problem = f"optimizing again raised {type(e).__name__}: {e}"
                if problem:
                    findings.append(Finding("not idempotent", case, f"query:\n  {sql}\n{problem}"))
            results.append(result)
        if any(r is None for r in results):
            continue
        if case.oracle == DIFF:
            jobs.append((case, results[0]))
        else:
            union = " UNION ALL ".join(f"SELECT * FROM ({r.sql})" for r in results[1:])
            jobs.append((case, _Combined(case.sql, case.combine.format(union))))
    if not jobs:
        return stats, findings
    diff = [(c, r) for c, r in jobs if c.oracle == DIFF]
    tlp = [(c, r) for c, r in jobs if c.oracle == TLP]
    candidates = ("optimized SQL", "DataFrame") if dataframe else ("optimized SQL",)
    for group, cands in ((diff, candidates), (tlp, ("optimized SQL",))):
        if not group:
            continue
        reports = verify_batched([r for _, r in group], spark, candidates=cands)
        for (case, result), report in zip(group, reports):
            stats.raised += report.reference.error is not None
            if report.equal:
                continue
            if _spark_decides_the_error(result, report, spark, cands):
                stats.order_dependent_errors += 1
            elif _error_dropped_with_empty_relation(result, report):
                stats.errors_dropped_empty += 1
            elif _original_fails_inside_spark(report):
                stats.originals_failing_in_spark += 1
            elif _error_kept(result, report, spark):
                stats.errors_spark_drops += 1
            elif case.oracle == TLP and _parts_raise(case, report, spark):
                stats.tlp_predicates_raising += 1
            elif _whole_optimizer_agrees(result, report, spark, cands):
                stats.references_off_without_rules += 1
            else:
                findings.append(Finding("disagreement", case, _explain(case, result, report)))
    return stats, findings


def _spark_decides_the_error(result, report, spark, candidates) -> bool:
    """Whether `1 / 0` in a WHERE raises depends on the plan Spark picks (which conjunct
    or join runs first): the reference, run with the Catalyst rules sparkfold implements
    excluded, may raise where Spark's whole optimizer does not, or the reverse.  When
    the only difference is raising or not, the original runs again with Spark's whole
    optimizer; if it then agrees with every candidate, the user sees no difference."""
    raised = report.reference.error is not None
    if not all(c.equal or (s.error is not None) != raised for c, s in zip(report.comparisons, report.candidates)):
        return False  # some candidate differs in rows or names, not in raising
    return _whole_optimizer_equal(result, spark, candidates)


def _whole_optimizer_equal(result, spark, candidates) -> bool:
    """Does the original, run with Spark's whole optimizer, agree with every candidate?"""
    from sparkfold.optimizer.verify import verify_many

    return verify_many([result], spark, candidates=candidates, exclude_rules=[])[0].equal


def _error_dropped_with_empty_relation(result, report) -> bool:
    """The reference raises, no candidate does, and sparkfold proved a relation empty
    (PropagateEmptyRelation): the raising rows are then never evaluated, which issue 6
    allows ("unless the rows that would raise are provably never evaluated, as in an
    empty relation").  Counted apart, not as a disagreement; the proof itself is what
    the row comparisons of every other query check."""
    if report.reference.error is None or any(s.error is not None for s in report.candidates):
        return False
    trace = getattr(result, "trace", None)
    return bool(trace) and "PropagateEmptyRelation" in trace.effective_rules


def _original_fails_inside_spark(report) -> bool:
    """The original fails inside Spark, with Spark's whole optimizer too (else
    `_spark_decides_the_error` took it), on a JVM exception that is no error of the query
    (seen: `java.util.NoSuchElementException: key not found` from a correlated scalar
    subquery under a null-aware anti join), and every candidate that differs runs: there
    is nothing to compare with.  Counted apart; the verifier's report says so too."""
    from sparkfold.optimizer.verify import spark_internal_failure

    return spark_internal_failure(report.reference.error) and not any(
        s.error is not None for s, c in zip(report.candidates, report.comparisons) if not c.equal)


def _error_kept(result, report, spark) -> bool:
    """The reference raises and a candidate does not, but that candidate raises the same
    error once run with the same Catalyst rules excluded as the reference: the raising
    expression is still in our SQL and evaluated by its semantics, and Spark's own
    optimizer drops it (its NullPropagation folds `x = NULL` without evaluating x, its
    PropagateEmptyRelation skips a scalar subquery) after our rewrite made a NULL or an
    empty input visible to it.  A rewrite that dropped the error itself fails this test."""
    from sparkfold.optimizer.verify import (
        Side,
        _build,
        catalyst_rule_classes,
        run_fingerprints,
    )

    error = report.reference.error
    if error is None:
        return False
    for side, comp in zip(report.candidates, report.comparisons):
        if comp.equal:
            continue
        if side.error is not None:
            return False
        again = Side(side.name)
        _build(again, (lambda: result.to_dataframe(spark)) if side.name == "DataFrame"
               else (lambda: spark.sql(result.sql)))
        if again.error is None:
            run_fingerprints(spark, [again], [None], catalyst_rule_classes())
        if again.error != error:
            return False
    return True


def _whole_optimizer_agrees(result, report, spark, candidates) -> bool:
    """Rows or names differ from the reference, run with the Catalyst rules sparkfold
    implements excluded, but the original run with Spark's whole optimizer agrees with
    every candidate.  Seen: Spark 4.3 returns the rows of `FULL JOIN ... ON (NULL <=> NULL)`
    as for a FALSE condition (12 rows, not 36) once those rules are excluded, and the right
    ones with them.  The user, who runs the original with the whole optimizer, sees no
    difference; a rewrite of ours that is wrong where Spark's own rule is right fails here."""
    if report.reference.error is not None or any(s.error is not None for s in report.candidates):
        return False
    return _whole_optimizer_equal(result, spark, candidates)


def _parts_raise(case: Case, report, spark) -> bool:
    """TLP: Q does not raise, the union of the optimized parts does, and so does the union
    of the parts as written (run with Spark's whole optimizer): the partition predicate
    evaluates an expression Q never does (`t.k * t.k` overflowing, where Q only counts
    another column), so the difference is the oracle's, not the optimizer's."""
    from sparkfold.optimizer.verify import _error_of

    cand = report.candidates[0]
    if report.reference.error is not None or cand.error is None:
        return False
    union = case.combine.format(" UNION ALL ".join(f"SELECT * FROM ({p})" for p in case.parts))
    try:
        spark.sql(union).collect()
    except Exception as e:  # noqa: BLE001 - the error is the result
        return _error_of(e)[0] == cand.error
    return False


def _explain(case: Case, result, report) -> str:
    if case.oracle == DIFF:
        return f"query:\n  {case.sql}\noptimized SQL:\n  {result.sql}\n{report.to_text()}"
    return (f"Q:\n  {case.sql}\npartitions:\n" + "".join(f"  {p}\n" for p in case.parts)
            + f"union of the optimized partitions:\n  {result.sql}\n{report.to_text()}")
