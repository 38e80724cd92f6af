"""A seeded generator of random Spark SQL queries over the standard test tables (and two
more of its own): filters, aggregates, every join type, set operations, subqueries,
CASE / COALESCE / NULLIF / IF, IN lists with NULL, ORDER BY with LIMIT on total orders.

Every query is valid Spark SQL; some raise at run time under ANSI (division by zero,
a bad cast), which is a result too.  Select items are aliased except for simple
expressions, so the result names do not depend on naming corner cases.
"""

from __future__ import annotations

import math
import random
from decimal import Decimal

NAN, INF = math.nan, math.inf

# Extra tables: duplicates (for bag semantics of INTERSECT ALL / EXCEPT ALL) and keys
# that join in every way (NULL, NaN, -0.0).
EXTRA_SCHEMA = {
    "m": {"k": "int", "s": "string", "x": "double", "y": "decimal(5,1)"},
    "r": {"k": "int not null", "s": "string", "x": "double not null"},
}
EXTRA_ROWS = {
    "m": [(1, "a", 1.5, Decimal("1.0")), (1, "a", 1.5, Decimal("1.0")), (2, None, NAN, None),
          (None, "b", -0.0, Decimal("-2.5")), (None, "b", 0.0, Decimal("-2.5")), (3, "", INF, Decimal("9.9")),
          (4, "NaN", None, Decimal("0.0")), (2, None, NAN, None), (5, "c", -INF, Decimal("3.3"))],
    "r": [(1, "a", 1.5), (2, "b", NAN), (2, "b", NAN), (6, None, 0.0), (7, "z", -1.0)],
}

# name -> (table, columns by kind)
TABLES = {
    "t": {"int": ["num", "b"], "dbl": ["x"], "str": ["s"], "bool": ["p"], "dec": ["d"]},
    "u": {"int": ["num", "y"], "dbl": ["z"], "str": ["s"], "bool": [], "dec": []},
    "m": {"int": ["k"], "dbl": ["x"], "str": ["s"], "bool": [], "dec": ["y"]},
    "r": {"int": ["k"], "dbl": ["x"], "str": ["s"], "bool": [], "dec": []},
    "n": {"int": ["k"], "dbl": ["v"], "str": [], "bool": [], "dec": []},
    "e": {"int": ["num"], "dbl": ["x"], "str": [], "bool": [], "dec": []},
}
# a key column per table for joins and correlation (int)
KEY = {"t": "num", "u": "num", "m": "k", "r": "k", "n": "k", "e": "num"}


def register_extra_tables(spark) -> dict:
    from tests.data import register

    for name, cols in EXTRA_SCHEMA.items():
        register(spark, name, cols, EXTRA_ROWS[name])
    return EXTRA_SCHEMA


class Gen:
    def __init__(self, seed: int):
        self.rnd = random.Random(seed)
        self.alias_n = 0

    def pick(self, xs):
        return self.rnd.choice(xs)

    def chance(self, p: float) -> bool:
        return self.rnd.random() < p

    # -- expressions over the columns in scope: list of (qualifier, table) --------
    def cols(self, scope, kind):
        out = [f"{q}.{c}" for q, t in scope for c in TABLES[t][kind]]
        return out

    def num(self, scope, depth=0):
        ints, dbls = self.cols(scope, "int"), self.cols(scope, "dbl")
        r = self.rnd.random()
        if depth > 2 or r < 0.35:
            return self.pick(ints + dbls) if ints + dbls else str(self.rnd.randint(-3, 5))
        if r < 0.45:
            return self.pick(["0", "1", "2", "-1", "2.5D", "CAST('NaN' AS DOUBLE)", "CAST(NULL AS INT)",
                              "-0.0D", "1.5"])
        if r < 0.65:
            op = self.pick(["+", "-", "*", "+", "-"])
            return f"({self.num(scope, depth + 1)} {op} {self.num(scope, depth + 1)})"
        if r < 0.72:
            a = self.num(scope, depth + 1)
            return f"coalesce({a}, {self.num(scope, depth + 1)})"
        if r < 0.78:
            return f"nullif({self.num(scope, depth + 1)}, {self.pick(['0', '1', '2'])})"
        if r < 0.84:
            return f"IF({self.cond(scope, depth + 1)}, {self.num(scope, depth + 1)}, {self.num(scope, depth + 1)})"
        if r < 0.9:
            return (f"CASE WHEN {self.cond(scope, depth + 1)} THEN {self.num(scope, depth + 1)} "
                    f"WHEN {self.cond(scope, depth + 1)} THEN {self.num(scope, depth + 1)} "
                    f"{'ELSE ' + self.num(scope, depth + 1) + ' ' if self.chance(0.6) else ''}END")
        if r < 0.93 and dbls:
            return f"nanvl({self.pick(dbls)}, -1.0D)"
        if r < 0.955 and ints:
            return f"({self.pick(ints)} % {self.pick(['2', '3', str(self.rnd.randint(1, 4))])})"
        if r < 0.965 and ints:
            # may divide by zero, or fail a cast (ANSI): an error is a result too
            strs = self.cols(scope, "str")
            if strs and self.chance(0.3):
                return f"CAST({self.pick(strs)} AS INT)"
            return f"({self.pick(ints)} / ({self.pick(ints)} - {self.rnd.randint(1, 4)}))"
        return f"abs({self.num(scope, depth + 1)})"

    def text(self, scope, depth=0):
        strs = self.cols(scope, "str")
        r = self.rnd.random()
        if not strs or r < 0.15:
            return self.pick(["'a'", "'b'", "''", "'NaN'", "CAST(NULL AS STRING)"])
        if r < 0.7 or depth > 1:
            return self.pick(strs)
        if r < 0.8:
            return f"coalesce({self.pick(strs)}, 'z')"
        if r < 0.9:
            return f"upper({self.pick(strs)})"
        return f"nullif({self.pick(strs)}, 'a')"

    def cond(self, scope, depth=0):
        r = self.rnd.random()
        strs = self.cols(scope, "str")
        bools = self.cols(scope, "bool")
        if depth > 2:
            r = min(r, 0.5)
        if r < 0.3:
            op = self.pick(["=", "<>", "<", "<=", ">", ">=", "<=>"])
            return f"{self.num(scope, depth + 1)} {op} {self.num(scope, depth + 1)}"
        if r < 0.38 and strs:
            op = self.pick(["=", "<>", "<=>", "<"])
            return f"{self.text(scope, depth + 1)} {op} {self.text(scope, depth + 1)}"
        if r < 0.46:
            items = [self.pick(["1", "2", "3", "NULL", "-1", "4"]) for _ in range(self.rnd.randint(1, 4))]
            neg = "NOT " if self.chance(0.4) else ""
            return f"{self.pick(self.cols(scope, 'int') or ['1'])} {neg}IN ({', '.join(items)})"
        if r < 0.5 and strs:
            items = [self.pick(["'a'", "'b'", "NULL", "''"]) for _ in range(self.rnd.randint(1, 3))]
            return f"{self.pick(strs)} {'NOT ' if self.chance(0.4) else ''}IN ({', '.join(items)})"
        if r < 0.58:
            e = self.pick(self.cols(scope, "int") + self.cols(scope, "dbl") + strs)
            return f"{e} IS {'NOT ' if self.chance(0.5) else ''}NULL"
        if r < 0.62 and bools:
            return self.pick([f"{bools[0]}", f"NOT {bools[0]}", f"{bools[0]} IS TRUE",
                              f"{bools[0]} IS NOT FALSE", f"coalesce({bools[0]}, false)"])
        if r < 0.66 and self.cols(scope, "dbl"):
            return f"isnan({self.pick(self.cols(scope, 'dbl'))})"
        if r < 0.8:
            op = self.pick(["AND", "OR"])
            return f"({self.cond(scope, depth + 1)} {op} {self.cond(scope, depth + 1)})"
        if r < 0.86:
            return f"NOT ({self.cond(scope, depth + 1)})"
        if r < 0.9:
            return self.pick(["true", "false", "CAST(NULL AS BOOLEAN)", "1 = NULL", "NULL IS NULL"])
        if r < 0.95:
            e = self.pick(self.cols(scope, "int") or ["1"])
            return f"{e} BETWEEN {self.rnd.randint(-1, 3)} AND {self.rnd.randint(2, 8)}"
        return f"{self.num(scope, depth + 1)} > {self.num(scope, depth + 1)}"

    # -- subqueries -----------------------------------------------------------
    def subquery_cond(self, scope):
        outer_q, outer_t = self.pick(scope)
        t = self.pick(["u", "m", "r", "n", "e", "t"])
        q = self.fresh("sq")
        inner = [(q, t)]
        key = f"{q}.{KEY[t]}"
        corr = f"{key} = {outer_q}.{KEY[outer_t]}" if self.chance(0.5) else None
        where = [c for c in (corr, self.cond(inner, 1) if self.chance(0.5) else None) if c]
        where_sql = f" WHERE {' AND '.join(where)}" if where else ""
        kind = self.rnd.random()
        if kind < 0.4:
            neg = "NOT " if self.chance(0.5) else ""
            return f"{neg}EXISTS (SELECT 1 FROM {t} {q}{where_sql})"
        if kind < 0.8:
            neg = "NOT " if self.chance(0.5) else ""
            return f"{outer_q}.{KEY[outer_t]} {neg}IN (SELECT {key} FROM {t} {q}{where_sql})"
        agg = self.pick(["max", "min", "count", "sum"])
        col = self.pick(TABLES[t]["int"])
        op = self.pick(["=", "<", ">=", "<>"])
        return f"{outer_q}.{KEY[outer_t]} {op} (SELECT {agg}({q}.{col}) FROM {t} {q}{where_sql})"

    def fresh(self, base):
        self.alias_n += 1
        return f"{base}{self.alias_n}"

    # -- queries -------------------------------------------------------------------
    def from_clause(self):
        t1 = self.pick(list(TABLES))
        a1 = self.fresh("a")
        scope = [(a1, t1)]
        sql = f"{t1} {a1}"
        if self.chance(0.45):
            t2 = self.pick(list(TABLES))
            a2 = self.fresh("b")
            jt = self.pick(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "LEFT SEMI JOIN",
                            "LEFT ANTI JOIN", "CROSS JOIN", "JOIN"])
            if jt == "CROSS JOIN":
                sql += f" CROSS JOIN {t2} {a2}"
            else:
                op = self.pick(["=", "=", "<=>"])
                on = f"{a1}.{KEY[t1]} {op} {a2}.{KEY[t2]}"
                if self.chance(0.3):
                    on += f" AND {self.cond([(a1, t1), (a2, t2)], 2)}"
                sql += f" {jt} {t2} {a2} ON {on}"
            if jt not in ("LEFT SEMI JOIN", "LEFT ANTI JOIN"):
                scope.append((a2, t2))
        return sql, scope

    def simple_select(self):
        """SELECT items FROM ... [WHERE ...]; returns (sql, kinds of the output columns)."""
        from_sql, scope = self.from_clause()
        n = self.rnd.randint(1, 4)
        items, kinds = [], []
        for i in range(n):
            kind = self.pick(["num", "num", "str", "bool"])
            e = {"num": self.num, "str": self.text, "bool": self.cond}[kind](scope)
            items.append(f"{e} AS c{i}")
            kinds.append(kind)
        where = []
        if self.chance(0.6):
            where.append(self.cond(scope))
        if self.chance(0.25):
            where.append(self.subquery_cond(scope))
        sql = f"SELECT {', '.join(items)} FROM {from_sql}"
        if where:
            sql += " WHERE " + " AND ".join(where)
        return sql, kinds, scope

    def aggregate_select(self):
        from_sql, scope = self.from_clause()
        groups = []
        if self.chance(0.75):
            for _ in range(self.rnd.randint(1, 2)):
                groups.append(self.pick(self.cols(scope, "int") + self.cols(scope, "str") + self.cols(scope, "dbl")))
            groups = list(dict.fromkeys(groups))
        items = [f"{g} AS g{i}" for i, g in enumerate(groups)]
        aggs = []
        for i in range(self.rnd.randint(1, 3)):
            f = self.pick(["count(*)", "count({})", "sum({})", "avg({})", "min({})", "max({})",
                           "count(DISTINCT {})", "sum({}) FILTER (WHERE {})", "max(DISTINCT {})"])
            arg = self.num(scope, 1)
            aggs.append(f.format(arg, self.cond(scope, 2)) + f" AS m{i}")
        where = f" WHERE {self.cond(scope)}" if self.chance(0.5) else ""
        sql = f"SELECT {', '.join(items + aggs)} FROM {from_sql}{where}"
        if groups:
            sql += f" GROUP BY {', '.join(groups)}"
            if self.chance(0.3):
                sql += f" HAVING count(*) {self.pick(['>', '>=', '='])} {self.rnd.randint(0, 2)}"
        return sql, len(items) + len(aggs)

    def set_operation(self):
        # two selects with the same column kinds
        left, kinds, _ = self.simple_select()
        right_scope_sql, scope = self.from_clause()
        items = []
        for i, k in enumerate(kinds):
            e = {"num": self.num, "str": self.text, "bool": self.cond}[k](scope)
            items.append(f"{e} AS c{i}")
        right = f"SELECT {', '.join(items)} FROM {right_scope_sql}"
        if self.chance(0.5):
            right += f" WHERE {self.cond(scope)}"
        op = self.pick(["UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL"])
        return f"{left} {op} {right}", len(kinds)

    def query(self) -> str:
        r = self.rnd.random()
        if r < 0.4:
            sql, kinds, _ = self.simple_select()
            ncols = len(kinds)
            if self.chance(0.2):
                sql = sql.replace("SELECT ", "SELECT DISTINCT ", 1)
        elif r < 0.75:
            sql, ncols = self.aggregate_select()
        else:
            sql, ncols = self.set_operation()
        if self.chance(0.25):
            # a total order (every output column) so that LIMIT is deterministic
            keys = [f"{i + 1} {self.pick(['ASC', 'DESC'])} NULLS {self.pick(['FIRST', 'LAST'])}"
                    for i in range(ncols)]
            sql += f" ORDER BY {', '.join(keys)}"
            if self.chance(0.7):
                sql += f" LIMIT {self.rnd.randint(0, 6)}"
        return sql


def random_queries(seed: int, count: int) -> list[str]:
    g = Gen(seed)
    return [g.query() for _ in range(count)]


# ---------------------------------------------------------------------------
# The test
# ---------------------------------------------------------------------------

import os  # noqa: E402

import pytest  # noqa: E402

LONG = os.environ.get("SPARKFOLD_LONG") == "1"
COUNT = int(os.environ.get("SPARKFOLD_RANDOM_QUERIES", "2000" if LONG else "100"))
SEED = int(os.environ.get("SPARKFOLD_RANDOM_SEED", "20261122"))


from tests.test_verify import fast_small_jobs  # noqa: E402,F401  (module fixture)


@pytest.fixture(scope="module")
def all_tables(spark, tables):
    return {**tables, **register_extra_tables(spark)}


def test_generator_is_seeded_and_covers_the_features():
    qs = random_queries(SEED, 300)
    assert qs == random_queries(SEED, 300)
    text = "\n".join(qs)
    for feature in ("LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "LEFT SEMI JOIN", "LEFT ANTI JOIN", "CROSS JOIN",
                    "<=>", "UNION ALL", "INTERSECT ALL", "EXCEPT ALL", " INTERSECT ", " EXCEPT ",
                    "NOT EXISTS", "NOT IN (SELECT", "IN (SELECT", "(SELECT max", "CASE WHEN", "coalesce(",
                    "nullif(", "IF(", "NULL)", "ORDER BY", "LIMIT", "GROUP BY", "HAVING", "DISTINCT",
                    "FILTER (WHERE", "NULLS FIRST", "NULLS LAST"):
        assert feature in text, feature


def test_random_queries_agree_on_spark(spark, all_tables):
    """Every random query, optimized with all registered rules and with none, gives on
    Spark what the original gives: on the SQL path and on the DataFrame path."""
    from sparkfold.optimizer import optimize

    from tests.spark_check import verify_batched

    queries = random_queries(SEED, COUNT)
    results = []
    for q in queries:
        results.append(optimize(q, all_tables))
        results.append(optimize(q, all_tables, rules=[], always_regenerate=True))
    reports = verify_batched(results, spark)  # a query's two results in one batch: its reference runs once
    disagreements = {"optimized SQL": [], "DataFrame": []}
    for report in reports:
        for comp in report.comparisons:
            if comp.equal:
                continue
            errors = "".join(f"\n  {s.name} raised: {(s.error_message or '')[:1500]}"
                             for s in report.candidates if s.error)
            disagreements[comp.candidate].append(f"{report.original_sql}\n{report.to_text()}{errors}")
    errors = sum(1 for r in reports[::2] if r.reference.error)
    print(f"{len(queries)} random queries (seed {SEED}), {errors} raise on Spark; disagreements: "
          f"SQL path {len(disagreements['optimized SQL'])}, "
          f"DataFrame path {len(disagreements['DataFrame'])}")
    bad = disagreements["optimized SQL"] + disagreements["DataFrame"]
    assert not bad, "\n\n".join(bad[:5])

