"""Random Spark SQL queries over a world (see world.py), of every shape sparkfold models.

Filters; global and grouped aggregates (count, count DISTINCT, sum, min, max, avg,
FILTER) with HAVING; joins of every type (inner, left, right, full, cross, semi, anti)
on `=` or `<=>` keys, with extra ON conditions, or USING; subqueries in FROM, scalar
(correlated or not), [NOT] IN and [NOT] EXISTS (correlated or not); CTEs; DISTINCT;
UNION / INTERSECT / EXCEPT with and without ALL; ORDER BY (ASC/DESC, NULLS FIRST/LAST)
with LIMIT and OFFSET, always over every output column, so the rows a LIMIT keeps are
determined; top-level select items are left unaliased half of the time, so Spark's
generated column names are part of what is compared.

`QueryGen(chooser, world).query()` returns one SQL text; everything it decides comes
from the chooser (choices.py), so a recorded run replays and shrinks.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .choices import Chooser
from .expressions import COMPARISONS, ExprGen, Ref, Scope
from .world import BOOL, DATE, NUM, STR, World

JOINS = [(3, "JOIN"), (2, "LEFT JOIN"), (1.5, "RIGHT JOIN"), (1.5, "FULL JOIN"), (1, "LEFT SEMI JOIN"),
         (1, "LEFT ANTI JOIN"), (0.7, "CROSS JOIN"), (0.5, "INNER JOIN")]
SET_OPS = ["UNION ALL", "UNION", "INTERSECT", "EXCEPT", "INTERSECT ALL", "EXCEPT ALL"]


@dataclass(frozen=True)
class Rel:
    """A query and its output columns: (name, family, may hold extreme values)."""

    sql: str
    cols: tuple[tuple[str, str, bool], ...]


class QueryGen:
    def __init__(self, ch: Chooser, world: World, safe: bool = False, max_depth: int = 2):
        self.ch = ch
        self.world = world
        self.safe = safe
        self.max_depth = max_depth
        self.ex = ExprGen(ch, safe, queries=self)
        self.n = 0
        self.ctes: list[tuple[str, tuple[tuple[str, str, bool], ...]]] = []

    def fresh(self, base: str = "t") -> str:
        self.n += 1
        return f"{base}{self.n}"

    # -- FROM -----------------------------------------------------------------------
    def table(self):
        t = self.ch.pick(self.world.tables)
        alias = self.fresh()
        return f"{t.name} {alias}", tuple(Ref(alias, c.name, c.family, c.extreme) for c in t.columns)

    def from_item(self, depth: int):
        kind = self.ch.weighted([(6, "table"), (1.5 if self.ctes else 0, "cte"),
                                 (1.5 if depth < self.max_depth else 0, "subquery")])
        if kind == "cte":
            name, cols = self.ch.pick(self.ctes)
            alias = self.fresh()
            return f"{name} {alias}", tuple(Ref(alias, n, f, x) for n, f, x in cols)
        if kind == "subquery":
            rel = self.body(depth + 1, aliased=True)
            alias = self.fresh()
            return f"({rel.sql}) {alias}", tuple(Ref(alias, n, f, x) for n, f, x in rel.cols)
        return self.table()

    def from_clause(self, depth: int):
        sql, refs = self.from_item(depth)
        for _ in range(self.ch.weighted([(5, 0), (3, 1), (0.8, 2)])):
            right_sql, right = self.from_item(depth)
            jt = self.ch.weighted(JOINS)
            if jt == "CROSS JOIN":
                sql += f" CROSS JOIN {right_sql}"
            else:
                sql += f" {jt} {right_sql} {self.join_condition(refs, right, jt)}"
            if jt not in ("LEFT SEMI JOIN", "LEFT ANTI JOIN"):
                refs = refs + right
        return sql, refs

    def join_condition(self, left, right, jt: str) -> str:
        both = Scope(left + right)
        shared = [(a, b) for a in left for b in right if a.family == b.family]
        using = [(a, b) for a, b in shared if a.name == b.name
                 and sum(1 for x in left if x.name == a.name) == 1 and sum(1 for x in right if x.name == b.name) == 1]
        kind = self.ch.weighted([(6, "keys"), (1, "using"), (1.2, "other")])
        if kind == "using" and using and jt not in ("LEFT SEMI JOIN", "LEFT ANTI JOIN"):
            return f"USING ({self.ch.pick(using)[0].name})"
        if kind == "other" or not shared:
            return f"ON {self.ex.pred(both, 1)}"
        a, b = self.ch.pick(shared)
        cond = f"{a.sql} {self.ch.weighted([(4, '='), (1.5, '<=>')])} {b.sql}"
        if self.ch.chance(0.35):
            cond += f" AND {self.ex.pred(both, 1)}"
        return f"ON {cond}"

    # -- subqueries -------------------------------------------------------------------
    def _correlation(self, inner: tuple[Ref, ...], outer: tuple[Ref, ...], ops=("=", "<=>")) -> str | None:
        pairs = [(i, o) for i in inner for o in outer if i.family == o.family and o.family != BOOL]
        if not pairs or not self.ch.chance(0.55):
            return None
        i, o = self.ch.pick(pairs)
        return f"{i.sql} {self.ch.pick(list(ops))} {o.sql}"

    def _sub_where(self, inner, sc: Scope, ops=("=", "<=>")) -> str:
        conds = [c for c in (self._correlation(inner, sc.cols, ops),
                             self.ex.pred(Scope(inner), 1) if self.ch.chance(0.5) else None) if c]
        return f" WHERE {' AND '.join(conds)}" if conds else ""

    def scalar_subquery(self, family: str, sc: Scope) -> str:
        sql, inner = self.table()
        cols = [c for c in inner if c.family == family]
        if family == NUM:
            agg = self.ch.pick(["max", "count", "min", "sum"])
            if agg == "sum" and self.safe:
                cols = [c for c in cols if not c.extreme]
            arg = self.ch.pick(cols).sql if cols else "1"
            call = "count(*)" if agg == "count" and self.ch.chance(0.3) else f"{agg}({arg})"
        else:
            call = f"{self.ch.pick(['max', 'min'])}({self.ch.pick(cols).sql if cols else self.ex.literal(family)})"
        return f"(SELECT {call} FROM {sql}{self._sub_where(inner, sc, ('=',))})"

    def scalar_comparison(self, sc: Scope) -> str:
        fam = self.ch.pick([NUM, NUM, STR, DATE])
        left = self.ex.expr(fam, replace(sc, subqueries=False), 1)
        return f"{left} {self.ch.pick(['=', '<', '>=', '<>', '<=>'])} {self.scalar_subquery(fam, sc)}"

    def predicate_subquery(self, sc: Scope) -> str:
        """A WHERE conjunct: [NOT] EXISTS or [NOT] IN over a (correlated) subquery."""
        sql, inner = self.table()
        neg = "NOT " if self.ch.chance(0.45) else ""
        if self.ch.chance(0.4):
            where = self._sub_where(inner, sc, ("=", "<=>", "<"))
            return f"{neg}EXISTS (SELECT 1 FROM {sql}{where})"
        fams = [f for f in (NUM, STR, DATE) if any(c.family == f for c in inner) and sc.of(f)]
        if not fams:
            return f"{neg}EXISTS (SELECT 1 FROM {sql}{self._sub_where(inner, sc)})"
        fam = self.ch.pick(fams)
        value = self.ex.expr(fam, replace(sc, subqueries=False), 2)
        item = self.ch.pick([c for c in inner if c.family == fam]).sql
        if fam == NUM and self.ch.chance(0.2):
            item = f"{item} + 1"
        return f"{value} {neg}IN (SELECT {item} FROM {sql}{self._sub_where(inner, sc)})"

    # -- SELECT ------------------------------------------------------------------------
    def _families(self, refs) -> list[str]:
        have = [c.family for c in refs]
        return have + [NUM, NUM]

    def _items(self, exprs: list[tuple[str, str, bool]], aliased: bool, top: bool):
        items, cols = [], []
        for i, (e, fam, extreme) in enumerate(exprs):
            name = f"c{i}"
            if aliased or not (top and self.ch.chance(0.5)):
                items.append(f"{e} AS {name}")
            else:
                items.append(e)
            cols.append((name, fam, extreme))
        return ", ".join(items), tuple(cols)

    def select(self, depth: int = 0, aliased: bool = False, families: list[str] | None = None,
               top: bool = False, ordered: bool = True) -> Rel:
        from_sql, refs = self.from_clause(depth)
        kind = self.ch.weighted([(5, "plain"), (3, "grouped"), (1.5, "global"), (1.2, "distinct")])
        fams = families or [self.ch.pick(self._families(refs)) for _ in range(self.ch.between(1, 4))]
        where = []
        if self.ch.chance(0.6):
            where.append(self.ex.pred(Scope(refs, subqueries=depth < self.max_depth), 0))
        if depth < self.max_depth and self.ch.chance(0.25):
            where.append(self.predicate_subquery(Scope(refs)))
        where_sql = f" WHERE {' AND '.join(where)}" if where else ""
        tail = ""
        if kind in ("plain", "distinct"):
            sc = Scope(refs, subqueries=depth < self.max_depth)
            exprs = [(self.ex.expr(f, sc, 0), f, True) for f in fams]
            items, cols = self._items(exprs, aliased, top)
            head = "SELECT DISTINCT " if kind == "distinct" else "SELECT "
        else:
            groups: tuple[Ref, ...] = ()
            if kind == "grouped":
                for _ in range(self.ch.between(1, 2)):
                    if self.ch.chance(0.8):
                        c = self.ch.pick(refs)
                        groups += (Ref(None, c.sql, c.family, c.extreme),)
                    else:
                        fam = self.ch.pick([NUM, STR, BOOL])
                        g = self.ex.expr(fam, Scope(refs), 1)
                        if g.lstrip("-").isdigit():
                            continue  # Spark reads an integer literal in GROUP BY as a position
                        # parenthesized: written again inside other expressions, it must stay whole
                        groups += (Ref(None, f"({g})", fam, True),)
                groups = tuple(dict.fromkeys(groups))
            sc = Scope(refs, groups=groups, aggregates=True)
            exprs = [(self.ex.expr(f, sc, 1), f, True) for f in fams]
            items, cols = self._items(exprs, aliased, top)
            head = "SELECT "
            if groups:
                tail += f" GROUP BY {', '.join(g.sql for g in groups)}"
            if self.ch.chance(0.3):
                tail += f" HAVING {self.ex.pred(sc, 1)}"
        sql = f"{head}{items} FROM {from_sql}{where_sql}{tail}"
        if ordered and depth > 0 and self.ch.chance(0.1):
            sql += self.order_by(len(cols))
        return Rel(sql, cols)

    def order_by(self, ncols: int) -> str:
        """ORDER BY every output column (a total order of the rows), and a LIMIT."""
        keys = ", ".join(f"{i + 1}{self.ch.pick(['', ' ASC', ' DESC'])}"
                         f"{self.ch.pick(['', ' NULLS FIRST', ' NULLS LAST'])}" for i in range(ncols))
        out = f" ORDER BY {keys}"
        if self.ch.chance(0.75):
            out += f" LIMIT {self.ch.pick([1, 2, 3, 0, 5])}"
            if self.ch.chance(0.15):
                out += f" OFFSET {self.ch.pick([1, 2])}"
        return out

    def body(self, depth: int = 0, aliased: bool = False, top: bool = False) -> Rel:
        """A SELECT or a chain of set operations."""
        if not self.ch.chance(0.2):
            return self.select(depth, aliased, top=top)
        left = self.select(depth, aliased, top=top, ordered=False)
        fams = [f for _, f, _ in left.cols]
        sql = left.sql
        for _ in range(self.ch.weighted([(4, 1), (1, 2)])):
            right = self.select(depth, True, families=fams, ordered=False)
            sql = f"{sql} {self.ch.pick(SET_OPS)} {right.sql}"
        if depth > 0:
            # a set operation in FROM: name its columns
            inner = self.fresh("s")
            cols = ", ".join(f"{inner}.{n}" for n, _, _ in left.cols)
            sql = f"SELECT {cols} FROM ({sql}) {inner}"
        return Rel(sql, left.cols)

    # -- the whole query ---------------------------------------------------------------
    def query(self) -> str:
        with_sql = ""
        if self.ch.chance(0.12):
            defs = []
            for _ in range(self.ch.between(1, 2)):
                rel = self.body(1, aliased=True)
                name = self.fresh("w")
                defs.append(f"{name} AS ({rel.sql})")
                self.ctes.append((name, rel.cols))
            with_sql = f"WITH {', '.join(defs)} "
        rel = self.body(0, top=True)
        sql = with_sql + rel.sql
        if self.ch.chance(0.25):
            sql += self.order_by(len(rel.cols))
        return sql

    # -- chains of outer joins ----------------------------------------------------------
    def outer_side(self):
        """A join input: a table, or a subquery whose select list computes a column from
        a table and (half of the time) the padded side of an outer join inside it."""
        if not self.ch.chance(0.35):
            return self.table()
        sql, refs = self.table()
        alias = refs[0].qual
        every = refs
        if self.ch.chance(0.5):
            right_sql, right = self.table()
            jt = self.ch.weighted([(3, "LEFT JOIN"), (1, "RIGHT JOIN"), (1, "FULL JOIN")])
            sql += f" {jt} {right_sql} {self.join_condition(refs, right, jt)}"
            every = refs + right
        fam = self.ch.pick([NUM, NUM, STR, BOOL])
        e = self.ex.expr(fam, Scope(every), 1)
        name, outer = self.fresh("e"), self.fresh()
        cols = tuple(Ref(outer, r.name, r.family, r.extreme) for r in refs) + (Ref(outer, name, fam, True),)
        return f"(SELECT {alias}.*, {e} AS {name} FROM {sql}) {outer}", cols

    def _across(self, sides) -> str:
        """A WHERE conjunct over the columns of the joined sides: mostly a comparison of
        two sides' columns (NULL-rejecting on both), else IS [NOT] NULL, a predicate on
        one side, <=>, coalesce (not rejecting), a subquery."""
        kind = self.ch.weighted([(5, "compare"), (1.5, "not null"), (2, "one side"), (1, "null-safe"),
                                 (0.8, "coalesce"), (1, "subquery")])
        a, b = self.ch.pick(sides), self.ch.pick(sides)
        pairs = [(x, y) for x in a for y in b if x.family == y.family and x != y]
        if kind in ("compare", "null-safe", "coalesce") and pairs:
            x, y = self.ch.pick(pairs)
            if kind == "null-safe":
                return f"{x.sql} <=> {y.sql}"
            if kind == "coalesce":
                return f"coalesce({x.sql}, {y.sql}) {self.ch.pick(COMPARISONS)} {self.ex.literal(x.family)}"
            return f"{x.sql} {self.ch.pick(['=', '<>', '<', '>=', '!='])} {y.sql}"
        if kind == "not null":
            return f"{self.ch.pick(a).sql} IS {self.ch.pick(['NOT ', 'NOT ', ''])}NULL"
        if kind == "subquery":
            every = tuple(c for side in sides for c in side)
            return self.ch.pick([self.predicate_subquery, self.scalar_comparison])(Scope(every))
        return self.ex.pred(Scope(a), 1)

    def outer_joins(self) -> str:
        """A chain of 2-3 joins, mostly outer, of tables and subqueries (see
        `outer_side`), under a WHERE of 1-3 conjuncts over several sides, read by a select
        list over every side, a DISTINCT or a duplicate-agnostic aggregate of the first
        side (which lets the joins after it go), or a grouped aggregate."""
        sql, first = self.outer_side()
        sides, refs = [first], first
        for _ in range(self.ch.weighted([(3, 2), (1, 3)])):
            right_sql, right = self.outer_side()
            jt = self.ch.weighted([(3, "LEFT JOIN"), (2, "RIGHT JOIN"), (2, "FULL JOIN"), (1.5, "JOIN")])
            sql += f" {jt} {right_sql} {self.join_condition(refs, right, jt)}"
            sides.append(right)
            refs = refs + right
        where = " AND ".join(self._across(sides) for _ in range(self.ch.between(1, 3)))
        kind = self.ch.weighted([(3, "plain"), (1.5, "distinct"), (1.5, "agnostic"), (1, "grouped")])
        if kind == "agnostic":
            c = self.ch.pick(first)
            call = self.ch.pick([f"max({c.sql})", f"min({c.sql})", f"count(DISTINCT {c.sql})"])
            group = self.ch.pick(first)
            tail = f" GROUP BY {group.sql}" if self.ch.chance(0.5) else ""
            items = f"{call} AS c0" + (f", {group.sql} AS c1" if tail else "")
            return f"SELECT {items} FROM {sql} WHERE {where}{tail}"
        if kind == "grouped":
            group = self.ch.pick(refs)
            sc = Scope(refs, groups=(Ref(None, group.sql, group.family, group.extreme),), aggregates=True)
            return f"SELECT {group.sql} AS c0, {self.ex.expr(NUM, sc, 1)} AS c1 FROM {sql} WHERE {where} " \
                   f"GROUP BY {group.sql}"
        pool = first if kind == "distinct" else refs
        items, _ = self._items([(self.ch.pick(pool).sql, "", True) for _ in range(self.ch.between(1, 3))],
                               True, False)
        head = "SELECT DISTINCT " if kind == "distinct" else "SELECT "
        return f"{head}{items} FROM {sql} WHERE {where}"

    # -- SQLancer's ternary logic partitioning ------------------------------------------
    def tlp(self) -> tuple[str, list[str], str]:
        """A query Q, its three partitions by a random predicate p (`p`, `NOT p`,
        `p IS NULL`), and how the UNION ALL of the partitions becomes Q's answer
        (`combine.format(union)`).  Variants: WHERE (plain SELECT), DISTINCT, HAVING (over
        GROUP BY) and MIN/MAX/COUNT (a global aggregate recombined).  Build with safe=True:
        nothing may raise, or the parts could raise where Q does not."""
        from_sql, refs = self.from_clause(0)
        rows = Scope(refs, subqueries=True)
        variant = self.ch.weighted([(5, "where"), (1.5, "distinct"), (1.5, "having"), (1.5, "aggregate")])
        where = self.ex.pred(rows, 0) if self.ch.chance(0.35) else None
        fams = [self.ch.pick(self._families(refs)) for _ in range(self.ch.between(1, 3))]
        if variant == "having":
            groups = []
            for _ in range(self.ch.between(1, 2)):
                c = self.ch.pick(refs)
                groups.append(Ref(None, c.sql, c.family, c.extreme))
            groups = tuple(dict.fromkeys(groups))
            sc = Scope(refs, groups=groups, aggregates=True)
            items, _ = self._items([(self.ex.expr(f, sc, 1), f, True) for f in fams], True, False)
            p = self.ex.pred(sc, 0)
            head = f"SELECT {items} FROM {from_sql}{f' WHERE {where}' if where else ''}"
            tail = f" GROUP BY {', '.join(g.sql for g in groups)}"
            q = head + tail
            parts = [f"{head}{tail} HAVING {x}" for x in (f"({p})", f"NOT ({p})", f"({p}) IS NULL")]
            return q, parts, "{}"
        p = self.ex.pred(rows, 0)
        conds = [f"({where}) AND ({x})" if where else f"({x})" for x in (p, f"NOT ({p})", f"({p}) IS NULL")]
        if variant == "aggregate":
            agg = self.ch.pick(["max", "min", "count"])
            fam = self.ch.pick(fams)
            arg = self.ex.expr(fam, Scope(refs), 0)
            items = f"{agg}({arg}) AS c0"
            # (a sum of counts is nullable where a count is not: coalesce keeps Q's NOT NULL)
            combine = "SELECT coalesce(sum(c0), 0L) AS c0 FROM ({})" if agg == "count" else \
                "SELECT {f}(c0) AS c0 FROM ({{}})".format(f=agg)
            head = "SELECT "
        else:
            items, _ = self._items([(self.ex.expr(f, Scope(refs, subqueries=True), 0), f, True) for f in fams],
                                   True, False)
            head = "SELECT DISTINCT " if variant == "distinct" else "SELECT "
            combine = "SELECT DISTINCT * FROM ({})" if variant == "distinct" else "{}"
        q = f"{head}{items} FROM {from_sql}{f' WHERE {where}' if where else ''}"
        parts = [f"{head}{items} FROM {from_sql} WHERE {c}" for c in conds]
        return q, parts, combine


def random_queries(world: World, seed: int, count: int, safe: bool = False) -> list[tuple[str, list[int]]]:
    """`count` queries, each with the choice record that replays it."""
    import random

    from .choices import RandomChooser

    rnd = random.Random(seed)
    out = []
    for _ in range(count):
        ch = RandomChooser(rnd.getrandbits(64))
        out.append((QueryGen(ch, world, safe).query(), ch.record))
    return out


def replay(world: World, record, safe: bool = False) -> str:
    from .choices import ReplayChooser

    return QueryGen(ReplayChooser(record), world, safe).query()
