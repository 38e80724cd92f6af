"""Logical plan -> a PySpark DataFrame program (Python source), and the live DataFrame.

The plan is lowered to Python source text that uses only the public `pyspark.sql` API
(DataFrame, Column, functions), so the same program runs on a classic session and on a
Spark Connect session.  `to_dataframe` executes that very text, so the code users read
(`to_pyspark_code`) is the code that was verified.

Column resolution: every attribute gets one internal column name for the whole program:
its own name when no other attribute of the plan (any case) has it, else `name#id`,
the way Catalyst prints it.  References are then plain unqualified `F.col(...)`s that
cannot be ambiguous; the last step renames the columns to the plan's output names.

Operators map one to one (`filter`, `select`, `groupBy().agg()`, `join`, `union`,
`intersect[All]`, `subtract`/`exceptAll`, `orderBy`, `limit`, `offset`, `distinct`,
`alias`).  Subqueries: an [NOT] EXISTS / [NOT] IN conjunct of a filter becomes a semi /
anti join (NOT IN with Spark's null-aware condition `a = b OR (a = b) IS NULL`), after
pulling simple correlated predicates up into the join condition; any other subquery
uses `DataFrame.exists()` / `.scalar()` / `Column.isin(DataFrame)` with `Column.outer()`
for correlated references.  What sparkfold does not model still gets DataFrame calls where
the API has them: a function it does not know and a window function (`opaque`:
`F.call_function`, `.over(Window...)`), an aggregate with FILTER or DISTINCT
(`expressions.filtered_aggregate`), typed NULL and other literals (`literals`), and the
opaque relations `range(...)` (`relations`), GROUPING SETS / CUBE / ROLLUP
(`grouping_sets`), PIVOT (`pivot`) and generators (`generators`).  The rest goes through
its SQL text from `plans.sql_out` (`F.expr(...)`, `spark.sql(...)`), so nothing is
refused, and the program's comment names each such construct (`text_reasons`).
"""

from __future__ import annotations

import keyword
import re
from typing import Any, Callable

from ..ir import logical as L
from ..ir import types as T
from ..ir.dialect import deep_stack
from ..ir.naming import UnknownName, unnamed_output
from ..sql_out.to_sql import plan_to_sql
from .expressions import is_unnamed
from .frames import Frame, Names
from .lateral import lower_lateral_join
from .operators import (
    lower_aggregate,
    lower_distinct,
    lower_except,
    lower_filter,
    lower_intersect,
    lower_join,
    lower_limit,
    lower_local_relation,
    lower_offset,
    lower_one_row_relation,
    lower_opaque_relation,
    lower_project,
    lower_relation,
    lower_sort,
    lower_subquery_alias,
    lower_union,
)
from .text_reasons import SQL_PREFIX, comment_lines, relation_reason
from .values import col, py_str

# Nesting depth of one Python expression before a sub-expression is hoisted into its own
# variable (CPython's parser allows 200 nested parentheses).


class Lowering:

    def __init__(self, plan: L.Plan, spark_var: str = "spark"):
        self.plan = plan
        self.spark = spark_var
        self.names = Names(plan)
        self.lines: list[str] = []
        self.imports: set[str] = set()
        self.vars: set[str] = {"F", "spark", spark_var, "result", "Decimal", "datetime"}
        self.n_expr = 0
        # output columns only Spark can name (`naming.unnamed_output`), selected unaliased
        self.unnamed = unnamed_output(plan)
        # what the program runs as SQL text, by construct (`text_reasons`)
        self.sql_reasons: list[str] = []
        self.expr_reasons: list[str] = []

    def emit(self, code: str, base: str = "df") -> str:
        var = self.fresh_var(base)
        self.lines.append(f"{var} = {code}")
        return var

    def fresh_var(self, base: str) -> str:
        base = re.sub(r"\W", "_", base).strip("_").lower() or "df"
        if base[0].isdigit() or keyword.iskeyword(base):
            base = "df_" + base
        if base == "df":
            k = 1
            while f"df{k}" in self.vars:
                k += 1
            name = f"df{k}"
        else:
            name, k = base, 1
            while name in self.vars:
                k += 1
                name = f"{base}_{k}"
        self.vars.add(name)
        return name

    def chain(self, frame: Frame, suffix: str) -> Frame:
        """Append a short method call to the statement that defined the frame when that
        statement is the last one (nothing used the variable yet), else a new step."""
        head = f"{frame.var} = "
        if self.lines and self.lines[-1].startswith(head) and len(self.lines[-1]) + len(suffix) < 100:
            self.lines[-1] += suffix
            return Frame(frame.var, frame.names, frame.ids)
        return Frame(self.emit(frame.var + suffix), frame.names, frame.ids)

    def frame(self, code: str, attrs, names: list[str], base: str = "df") -> Frame:
        return Frame.of(self.emit(code, base), attrs, names)

    def column_names(self, attrs) -> list[str]:
        """Names for a new frame's columns: per attribute, repeated ids get fresh names."""
        out, used = [], set()
        for a in attrs:
            n = self.names.of(a)
            if n.lower() in used:
                n = self.names.fresh(n)
            used.add(n.lower())
            out.append(n)
        return out

    def program(self, result_var: str = "result", header: str = "") -> str:
        top = self.lower(self.plan, None)
        out_names = [a.name for a in self.plan.output]
        renamed = {n: o for n, o in zip(top.names, out_names) if n != o and not is_unnamed(n)}
        if not renamed or top.names == ["*"]:
            self.lines.append(f"{result_var} = {top.var}")
        elif len(renamed) < len(out_names) and any(is_unnamed(n) for n in top.names):
            # (columns Spark named are not selected by name: the others renamed)
            pairs = ", ".join(f"{py_str(n)}: {py_str(o)}" for n, o in renamed.items())
            self.lines.append(f"{result_var} = {top.var}.withColumnsRenamed({{{pairs}}})")
        else:
            items = [col(n) if n == o else f"{col(n)}.alias({py_str(o)})"
                     for n, o in zip(top.names, out_names)]
            self.lines.append(f"{result_var} = {top.var}.select({', '.join(items)})")
        head = ([header] if header else []) + comment_lines(self.sql_reasons, self.expr_reasons)
        imports = ["from pyspark.sql import functions as F"] + sorted(self.imports)
        return "\n".join(head + imports + [""] + self.lines) + "\n"

    def lower(self, p: L.Plan, outer: Frame | None) -> Frame:
        lower = _LOWERINGS.get(type(p))
        if lower is None:
            return self.via_sql(p)
        return lower(self, p, outer)

    def via_sql(self, p: L.Plan, why: str = "") -> Frame:
        """Any (uncorrelated) subtree through its SQL text; columns renamed by position
        (`why`: the construct named in the program's comment, when not `relation_reason`'s)."""
        self.sql_reasons.append(why or relation_reason(p))
        text = plan_to_sql(p, whole_query=False)
        if any(a.name == "*" for a in p.output):  # a schema only Spark knows (PIVOT...)
            return Frame(self.emit(f"{self.spark}.sql({py_str(text)})"), ["*"], {})
        if p is self.plan:
            # the whole query's text: Spark names its columns as on the SQL path (a name
            # only Spark knows, such as a persistent function's `catalog.db.f(x)`, is not
            # replaced with sparkfold's guess)
            return self.frame(f"{self.spark}.sql({py_str(text)})", p.output, [a.name for a in p.output])
        if any(a.expr_id in self.unnamed for a in p.output):
            raise UnknownName(", ".join(a.name for a in p.output if a.expr_id in self.unnamed))
        names = self.column_names(p.output)
        code = f"{self.spark}.sql({py_str(text)}).toDF({', '.join(py_str(n) for n in names)})"
        return self.frame(code, p.output, names)


# The lowering of each logical operator (anything else goes through its SQL text).
_LOWERINGS: dict[type, Callable[..., Frame]] = {
    L.Relation: lower_relation,
    L.LocalRelation: lower_local_relation,
    L.OneRowRelation: lower_one_row_relation,
    L.OpaqueRelation: lower_opaque_relation,
    L.SubqueryAlias: lower_subquery_alias,
    L.Project: lower_project,
    L.Filter: lower_filter,
    L.Aggregate: lower_aggregate,
    L.Sort: lower_sort,
    L.Limit: lower_limit,
    L.Offset: lower_offset,
    L.Distinct: lower_distinct,
    L.Join: lower_join,
    L.LateralJoin: lower_lateral_join,
    L.Union: lower_union,
    L.Intersect: lower_intersect,
    L.Except: lower_except,
}


def plan_to_pyspark_code(plan: L.Plan, result_var: str = "result", spark_var: str = "spark",
                         header: str = "") -> str:
    """Python source that builds the plan's result as DataFrame `result_var` from a
    SparkSession bound to `spark_var`."""
    return deep_stack(lambda: Lowering(plan, spark_var).program(result_var, header))


def _header(result) -> str:
    lines = ["# sparkfold: the optimized query as PySpark DataFrame calls.",
             "# Needs a SparkSession named `spark`; the result is the DataFrame `result`."]
    for ln in (result.original_sql or "").strip().splitlines():
        lines.append("#   " + ln)
    return "\n".join(lines)


def to_pyspark_code(result, result_var: str = "result", spark_var: str = "spark",
                    header: bool = True) -> str:
    """The optimized plan of an `OptimizeResult` as a Python program (see module doc).
    A query sparkfold passed through (unmodelled) becomes one `spark.sql(...)` call."""
    with T.writing_for(result.catalog.timestamp_ntz):
        return _program(result, result_var, spark_var, _header(result) if header else "")


def _program(result, result_var: str, spark_var: str, head: str) -> str:
    if result.optimized is None:
        why = f"# not modelled by sparkfold ({result.passthrough}): the query runs as written\n" \
            if result.passthrough else ""
        why += SQL_PREFIX + "the whole query, passed through" + (f" ({result.passthrough})\n"
                                                                 if result.passthrough else "\n")
        body = f"{why}{result_var} = {spark_var}.sql({py_str(result.query_original_sql)})\n"
        return (head + "\n" if head else "") + body
    try:
        return plan_to_pyspark_code(result.optimized, result_var, spark_var, head)
    except UnknownName as e:
        why = (f"# Spark names the column {e} with a name sparkfold does not know, which a DataFrame "
               f"program cannot give it here: the optimized query runs as SQL\n"
               f"{SQL_PREFIX}the whole query, for a column only Spark can name\n")
        body = f"{why}{result_var} = {spark_var}.sql({py_str(result.query_sql)})\n"
        return (head + "\n" if head else "") + body


def run_code(code: str, spark, result_var: str = "result"):
    """Execute generated code with `spark` bound; returns the DataFrame it builds."""
    namespace: dict[str, Any] = {"spark": spark}
    exec(compile(code, "<sparkfold lowering>", "exec"), namespace)
    return namespace[result_var]


def to_dataframe(result, spark):
    """The optimized plan as a live DataFrame on `spark` (classic or Spark Connect)."""
    return run_code(to_pyspark_code(result, header=False), spark)


def plan_to_dataframe(plan: L.Plan, spark):
    return run_code(plan_to_pyspark_code(plan), spark)
