"""Run SQLQueryTestSuite files through Spark and sparkfold, and compare.

Each run of a file (one per combination of its settings, see `source`) gets a session of
its own (`spark.newSession()`: the SparkContext, and the catalog of persistent tables, are
shared) set up as Spark's suite sets it up, and the active one while the file runs (as a
user's session is in their program: the DataFrame API reads some settings from it).  Commands (CREATE, INSERT, SET...) run on it
as written and build the state the queries read.  For every query:
- Spark's analysis of the original says whether Spark accepts it;
- sparkfold optimizes it over the session's catalog (`Catalog.from_spark`, as the hooks
  read it: schemas with nullability, ANSI mode), and once more with
  `always_regenerate=True` (the optimized plan written whole, so the writer is checked on
  every query, not only where a rule fired);
- `optimizer.verify` runs the original (with the Catalyst rules sparkfold implements
  excluded) against the optimized SQL, the DataFrame program and the whole text: rows,
  column names and types, errors (both raise or neither).  Beside it, the harness compares
  each side's `df.schema` field by field with the original's (nullability included) and
  the error classes when both raise.
Queries wait until a command changes the state, then are verified together.  Catalyst's
reach (outer joins removed, queries folded to an empty relation) is read from Spark's
optimized plan of the original, sparkfold's from its plans, as `tests/corpus/check.py`
does.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field

from tests.corpus.check import _catalyst_reach, _is_empty, _outer_joins
from tests.fuzz.oracles import FAST_CONF

from .source import TestFile
from .tables import cleanup, register_udfs, snapshot, test_tables

CANDIDATES = ("optimized SQL", "DataFrame")
WHOLE = "whole SQL"


@dataclass
class Outcome:
    file: str
    config: str                   # the run's settings from --CONFIG_DIM lines ("" when none)
    index: int                    # the statement's position in the file
    sql: str
    spark: str = "accepts"        # "accepts", or Spark's error class when its analysis rejects the query
    status: str = ""              # rejected | bug | passthrough | unchanged | rewritten
    detail: str = ""
    optimized_sql: str = ""
    whole_sql: str = ""
    # equal | wrong | spark-inconsistent (see FileChecker._spark_disagrees_with_itself) |
    # nondeterministic (SQL only: not compared) | "" (not compared); and for the whole SQL
    # bug (writing it failed), for the DataFrame lowering-failed
    sql_verdict: str = ""
    whole_verdict: str = ""
    df_verdict: str = ""
    error_class_differs: list[str] = field(default_factory=list)  # sides raising another error than the original
    # sides raising another error than the original's reference (run with the rules sparkfold
    # implements excluded) but the one Spark raises for the original text with its whole
    # optimizer: Spark's own difference (see FileChecker._spark_raises_so_itself), with the reason
    error_class_spark_inconsistent: list[str] = field(default_factory=list)
    nullability_differs: list[str] = field(default_factory=list)  # sides whose df.schema nullability differs
    df_sql_text: bool = False     # the DataFrame program runs a part of the plan as Spark SQL (spark.sql)
    df_expr_text: bool = False    # ... or an expression as SQL text (F.expr, selectExpr)
    df_text_reasons: list[str] = field(default_factory=list)  # what runs as text, by construct
    catalyst_outer_removed: int = 0
    sparkfold_outer_removed: int = 0
    catalyst_empty: bool = False
    sparkfold_empty: bool = False
    report: str = field(default="", repr=False)

    @property
    def name(self) -> str:
        return f"{self.file}:{self.index}" + (f" [{self.config}]" if self.config else "")

    @property
    def failures(self) -> list[str]:
        """What is wrong with this outcome (empty when nothing is)."""
        out = []
        if self.status == "rejected" and self.spark == "accepts":
            out.append("rejected")
        if self.status == "bug":
            out.append("internal failure")
        for path, verdict in (("SQL", self.sql_verdict), ("whole SQL", self.whole_verdict),
                              ("DataFrame", self.df_verdict)):
            if verdict in ("wrong", "lowering-failed", "bug"):
                out.append(f"{path} {verdict}")
        return out


@dataclass
class Run:
    """One run of one file: its outcomes, and what its commands did."""

    file: str
    config: str
    outcomes: list[Outcome]
    commands: int = 0
    command_errors: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _program_texts(code: str) -> tuple[bool, bool]:
    body = "\n".join(line for line in code.splitlines() if not line.lstrip().startswith("#"))
    return "spark.sql(" in body, bool(re.search(r"\bF\.expr\(|\.selectExpr\(", body))


def _text_reasons(code: str) -> list[str]:
    """The constructs a program runs as SQL text, as its comment names them
    (`plans.pyspark.text_reasons`): `spark.sql: <construct>`, `F.expr: <construct>`."""
    from sparkfold.plans.pyspark.text_reasons import EXPR_PREFIX, SQL_PREFIX

    out = []
    for line in code.splitlines():
        for prefix, label in ((SQL_PREFIX, "spark.sql"), (EXPR_PREFIX, "F.expr")):
            if line.startswith(prefix):
                out += [f"{label}: {r}" for r in line[len(prefix):].split("; ")]
    return out


def _error_class(e: BaseException) -> str:
    from sparkfold.optimizer.verify import _error_of

    return _error_of(e)[0]


def _nullability(ref_df, side_df) -> bool:
    """Do two schemas with the same names and types differ in nullability (anywhere,
    nested fields and array elements included)?"""
    try:
        a, b = ref_df.schema, side_df.schema
    except Exception:  # noqa: BLE001 - a side without a schema is compared elsewhere
        return False
    return _bare(a.jsonValue()) != _bare(b.jsonValue()) and [f.name for f in a.fields] == [f.name for f in b.fields] and \
        [f.dataType.simpleString() for f in a.fields] == [f.dataType.simpleString() for f in b.fields]


def _bare(schema):
    """A schema's JSON without the fields' metadata (Spark marks a column it named itself
    `__autoGeneratedAlias`, a column aliased in the text not: not a difference in
    nullability, and no writer or `assertSchemaEqual` reads it)."""
    if isinstance(schema, dict):
        return {k: _bare(v) for k, v in schema.items() if k != "metadata"}
    if isinstance(schema, list):
        return [_bare(v) for v in schema]
    return schema


class FileChecker:
    """Runs the queries of one file's run, verifying them in batches."""

    def __init__(self, session, name: str, config: str, *, dataframe: bool = True, whole: bool = True):
        self.session = session
        self.name, self.config = name, config
        self.dataframe, self.whole = dataframe, whole
        self.pending: list[tuple[Outcome, object, object]] = []
        self.outcomes: list[Outcome] = []
        self._catalog = None
        self._whole_optimizer_errors: dict[str, str | None] = {}  # text: Spark's error with its whole optimizer

    def catalog(self):
        from sparkfold.plans.sql_in.catalog import Catalog

        if self._catalog is None:  # read afresh after every command
            self._catalog = Catalog.from_spark(self.session)
        return self._catalog

    def query(self, index: int, sql: str) -> None:
        from sparkfold import optimize
        from sparkfold.optimizer.errors import InternalError, SparkfoldError
        from sparkfold.optimizer.verify import _nondeterministic, reads_clock

        out = Outcome(self.name, self.config, index, sql)
        self.outcomes.append(out)
        try:
            df = self.session.sql(sql)
        except Exception as e:  # noqa: BLE001 - Spark's parse or analysis error is the query's result
            out.spark = _error_class(e)
        else:
            out.catalyst_outer_removed, out.catalyst_empty = _catalyst_reach(df)
        catalog = self.catalog()
        try:
            result = optimize(sql, catalog)
        except InternalError as e:
            out.status, out.detail = "bug", str(e)
            return
        except SparkfoldError as e:
            out.status, out.detail = "rejected", str(e)
            return
        except Exception as e:  # noqa: BLE001 - anything else escaping optimize() is a bug
            out.status, out.detail = "bug", f"{type(e).__name__}: {e}"
            return
        out.optimized_sql = result.sql
        if result.passthrough:
            out.status, out.detail = "passthrough", str(result.passthrough)
        else:
            out.status = "rewritten" if result.trace and result.sql != sql else "unchanged"
            out.sparkfold_outer_removed = max(0, _outer_joins(result.analyzed) - _outer_joins(result.optimized))
            out.sparkfold_empty = _is_empty(result.optimized)
        whole = None
        if self.whole and not result.passthrough:
            try:
                whole = optimize(sql, catalog, always_regenerate=True)
                out.whole_sql = whole.sql
            except Exception as e:  # noqa: BLE001 - writing what it already read is sparkfold's job
                out.whole_verdict, out.detail = "bug", f"writing the whole query: {type(e).__name__}: {e}"
        if (_nondeterministic(result.analyzed) if result.analyzed is not None else reads_clock(sql)):
            out.sql_verdict = "nondeterministic"
            return
        self.pending.append((out, result, whole))

    def command(self, sql: str) -> str | None:
        """Run a command (after verifying the queries before it); its error, if any."""
        self.flush()
        self._catalog = None
        try:
            self.session.sql(sql)  # a command runs when it is read
        except Exception as e:  # noqa: BLE001 - a file may hold commands that fail (tests of errors)
            return _error_class(e)
        return None

    def flush(self) -> None:
        from sparkfold.optimizer.verify import verify_many

        if not self.pending:
            return
        pending, self.pending = self.pending, []
        results = [r for _, r, _ in pending]
        wholes = [(i, w) for i, (_, _, w) in enumerate(pending) if w is not None]
        cands = CANDIDATES if self.dataframe else CANDIDATES[:1]
        reports = verify_many(results + [w for _, w in wholes], self.session, candidates=cands, timed=False)
        whole_reports = dict(zip((i for i, _ in wholes), reports[len(results):]))
        for i, ((out, result, _), rep) in enumerate(zip(pending, reports)):
            self._read(out, rep, result, "optimized SQL", "sql_verdict", "SQL")
            if self.dataframe:
                side = next(s for s in rep.candidates if s.name == "DataFrame")
                comp = rep.comparison("DataFrame")
                if not comp.equal and side.error and side.df is None and side.text == "":
                    out.df_verdict = "lowering-failed"
                    out.report += rep.to_text() + "\n"
                else:
                    self._read(out, rep, result, "DataFrame", "df_verdict", "DataFrame")
                out.df_sql_text, out.df_expr_text = _program_texts(side.text or "")
                out.df_text_reasons = _text_reasons(side.text or "")
            if i in whole_reports:
                self._read(out, whole_reports[i], result, "optimized SQL", "whole_verdict", "whole SQL")

    def _read(self, out: Outcome, rep, result, candidate: str, attr: str, label: str) -> None:
        comp = rep.comparison(candidate)
        side = next(s for s in rep.candidates if s.name == candidate)
        setattr(out, attr, "equal" if comp.equal else "wrong")
        if not comp.equal:
            if self._spark_disagrees_with_itself(rep, result, side):
                setattr(out, attr, "spark-inconsistent")
                out.detail = (out.detail + "; " if out.detail else "") + (
                    f"{label}: the original gives other rows with the Catalyst rules sparkfold implements "
                    f"excluded than with Spark's whole optimizer, and the candidate gives the latter's")
            out.report += f"[{label}] " + rep.to_text() + "\n"
            return
        ref = rep.reference
        if ref.error and side.error and ref.error != side.error:
            if self._spark_raises_so_itself(ref, side.error):
                out.error_class_spark_inconsistent.append(
                    f"{label}: {ref.error} -> {side.error}: Spark raises {side.error} for the original text too, "
                    f"with its whole optimizer ({ref.error} with the rules sparkfold implements excluded)")
            else:
                out.error_class_differs.append(f"{label}: {ref.error} -> {side.error}")
        if ref.df is not None and side.df is not None and ref.error is None and side.error is None \
                and _nullability(ref.df, side.df):
            out.nullability_differs.append(label)


    def _spark_raises_so_itself(self, ref, error: str) -> bool:
        """Does Spark raise `error` for the reference's text run with its whole optimizer,
        where the reference (the same text with the rules sparkfold implements excluded)
        raised another?  Then the error's class is Spark's own choice between two runs of
        one text (seen: `format_string('%s %s', 'a')` raises IllegalArgumentException where
        ConstantFolding evaluates it while planning, a SparkException from the task that
        evaluates it without), not a difference sparkfold made."""
        from sparkfold.optimizer.verify import Side, _build, run_fingerprints

        if not ref.exclude or not ref.text:
            return False
        key = ref.text
        if key not in self._whole_optimizer_errors:
            again = Side(name="original, whole optimizer", text=ref.text)
            _build(again, lambda: self.session.sql(ref.text))
            if again.error is None:
                run_fingerprints(self.session, [again], [None], ())
            self._whole_optimizer_errors[key] = again.error
        return self._whole_optimizer_errors[key] == error

    def _spark_disagrees_with_itself(self, rep, result, side) -> bool:
        """Does the candidate agree with the original run with Spark's whole optimizer,
        where it disagrees with the reference (run with the rules sparkfold implements
        excluded)?  Then Spark's own result depends on those rules: a Spark bug that the
        exclusion exposes (seen: `NOT (a NOT IN (subquery))` without BooleanSimplification
        keeps the rows where a is NULL), not a difference sparkfold made."""
        from sparkfold.optimizer.verify import compare_dataframes, ordering_of

        if not rep.reference.exclude or side.df is None or rep.reference.df is None:
            return False
        try:
            full = self.session.sql(rep.reference.text)
            return compare_dataframes(full, side.df, self.session, order=ordering_of(result.analyzed)).equal
        except Exception:  # noqa: BLE001 - no second opinion: the verdict stands
            return False


def run_file(spark, test: TestFile, config: list[tuple[str, str]], *, dataframe: bool = True,
             whole: bool = True, every: int = 1) -> Run:
    """One run of one file, in a new session (with `every` > 1, only every so many
    queries are checked; every command runs)."""
    from tests.oracles.session import quiet

    quiet()  # Spark logs every query's error with its stack: errors are results here
    t0 = time.perf_counter()
    session = spark.newSession()
    before = snapshot(session) if test.persistent else None
    test_tables(session, test)
    if test.kind == "postgresql":
        register_udfs(session)
    for key, value in list(FAST_CONF.items()) + test.session_settings() + test.settings + config:
        session.conf.set(key, value)
    label = ",".join(f"{k}={v}" for k, v in config)
    checker = FileChecker(session, test.name, label, dataframe=dataframe, whole=whole)
    run = Run(test.name, label, checker.outcomes)
    # the file's session is the active one, as a user's is in their program: the
    # DataFrame API reads some settings from the active session, not the DataFrame's (a
    # type in `.cast("TIMESTAMP_NTZ(9)")`, a nanosecond column's alias, under
    # spark.sql.timestampNanosTypes.enabled)
    active = getattr(session, "_jvm", None)
    if active is not None:
        active.SparkSession.setActiveSession(session._jsparkSession)
    try:
        queries = 0
        for st in test.statements:
            if st.query:
                queries += 1
                if (queries - 1) % every == 0:
                    checker.query(st.index, st.sql)
            else:
                run.commands += 1
                error = checker.command(st.sql)
                if error:
                    run.command_errors.append(f"{st.index}: {error}")
        checker.flush()
    finally:
        if before is not None:
            cleanup(session, before)
        if active is not None:
            active.SparkSession.setActiveSession(spark._jsparkSession)
    run.seconds = time.perf_counter() - t0
    return run


def summary(outcomes: list[Outcome], runs: list[Run] | None = None) -> dict:
    """The counts the issue asks for."""
    accepted = [o for o in outcomes if o.spark == "accepts"]
    refused = [o for o in outcomes if o.spark != "accepts"]
    status = Counter(o.status for o in accepted)
    passthrough = Counter(o.detail for o in accepted if o.status == "passthrough")
    lowered = [o for o in outcomes if o.df_verdict]
    return {
        "files": len({o.file for o in outcomes} | {r.file for r in runs or ()}),
        "runs": len(runs) if runs is not None else None,
        "statements": sum(len(r.outcomes) + r.commands for r in runs) if runs else None,
        "commands": sum(r.commands for r in runs) if runs else None,
        "queries": len(outcomes),
        "spark_accepts": len(accepted),
        "spark_rejects": len(refused),
        "rewritten": status["rewritten"],
        "unchanged": status["unchanged"],
        "passthrough": status["passthrough"],
        "passthrough_reasons": dict(passthrough.most_common()),
        "rejected": status["rejected"],
        "bugs": sum(o.status == "bug" for o in outcomes),
        "spark_rejects_sparkfold_too": sum(o.status == "rejected" for o in refused),
        "compared": sum(o.sql_verdict in ("equal", "wrong") for o in outcomes),
        "nondeterministic": sum(o.sql_verdict == "nondeterministic" for o in outcomes),
        "wrong_sql": sum(o.sql_verdict == "wrong" for o in outcomes),
        "spark_inconsistent": Counter(p for o in outcomes for p, v in (("SQL", o.sql_verdict),
                                      ("whole SQL", o.whole_verdict), ("DataFrame", o.df_verdict))
                                      if v == "spark-inconsistent"),
        "wrong_whole_sql": sum(o.whole_verdict == "wrong" for o in outcomes),
        "whole_sql_bugs": sum(o.whole_verdict == "bug" for o in outcomes),
        "dataframe_compared": len(lowered),
        "wrong_dataframe": sum(o.df_verdict == "wrong" for o in lowered),
        "lowering_failed": sum(o.df_verdict == "lowering-failed" for o in lowered),
        "dataframe_sql_text": sum(o.df_sql_text for o in lowered),
        "dataframe_expr_text": sum(o.df_expr_text for o in lowered),
        "dataframe_text_reasons": dict(Counter(r for o in lowered for r in set(o.df_text_reasons)).most_common()),
        "error_class_differs": Counter(p.split(":")[0] for o in outcomes for p in o.error_class_differs),
        "error_class_spark_inconsistent": Counter(p.split(":")[0] for o in outcomes
                                                  for p in o.error_class_spark_inconsistent),
        "nullability_differs": Counter(p for o in outcomes for p in o.nullability_differs),
        "nullability_differs_rewritten": sum(bool(o.nullability_differs) and o.status == "rewritten"
                                             for o in outcomes),
        "catalyst_outer_joins_removed": sum(o.catalyst_outer_removed for o in accepted),
        "sparkfold_outer_joins_removed": sum(o.sparkfold_outer_removed for o in accepted),
        "catalyst_empty": sum(o.catalyst_empty for o in accepted),
        "sparkfold_empty": sum(o.sparkfold_empty for o in accepted),
        "command_errors": sum(len(r.command_errors) for r in runs) if runs else None,
    }
