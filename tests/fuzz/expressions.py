"""Random typed Spark SQL expressions over the columns in scope.

Four families: numeric (int, bigint, double, decimal: Spark widens among them), string,
boolean and date; an expression of a family only combines with the same family, so
every generated query passes Spark's analysis.  The shapes are the ones NULL rules
rewrite: NULL literals (typed and untyped) in comparisons, arithmetic, IN lists,
CASE / IF / coalesce / nullif / nanvl / greatest / least; `<=>`; BETWEEN; isnan;
NOT over IN lists with NULL; reflexive comparisons (`e = e`) and the complement /
absorption patterns of BooleanSimplification (`p AND (NOT p OR q)`), made by reusing
a predicate.

`safe` generators never raise at run time (no division, no narrowing casts, no
arithmetic on extreme columns), which the TLP oracle needs; otherwise a few
expressions may raise under ANSI (division by zero, overflow, a malformed cast).

In an aggregate context (`Scope.groups` set) leaves are grouping expressions,
literals and aggregate calls whose arguments range over the rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .choices import Chooser
from .world import BOOL, DATE, NUM, STR

FAMILIES = (NUM, STR, BOOL, DATE)

LITERALS = {
    NUM: ["1", "0", "2", "-1", "3", "1.5", "-0.0D", "0.0D", "2.5D", "CAST('NaN' AS DOUBLE)",
          "CAST('Infinity' AS DOUBLE)", "CAST('-Infinity' AS DOUBLE)", "10L", "1.25", "CAST(NULL AS INT)",
          "CAST(NULL AS DOUBLE)", "CAST(-0.0 AS DOUBLE)", "CAST(NULL AS DECIMAL(10,2))"],
    STR: ["'a'", "''", "'b'", "'NaN'", "'A'", "CAST(NULL AS STRING)", "'Infinity'", "' a'"],
    BOOL: ["TRUE", "FALSE", "CAST(NULL AS BOOLEAN)"],
    DATE: ["DATE'2000-01-01'", "DATE'1970-01-01'", "CAST(NULL AS DATE)", "DATE'2024-02-29'"],
}
UNSAFE_LITERALS = ["2147483647", "-2147483648", "9223372036854775807L"]
COMPARISONS = ["=", "<=>", "<>", "<", ">=", ">", "<=", "!="]


@dataclass(frozen=True)
class Ref:
    """A column in scope: `qual.name`."""

    qual: str | None
    name: str
    family: str
    extreme: bool = False

    @property
    def sql(self) -> str:
        return f"{self.qual}.{self.name}" if self.qual else self.name


@dataclass(frozen=True)
class Scope:
    cols: tuple[Ref, ...]
    outer: tuple[Ref, ...] = ()               # columns of an enclosing query (correlation)
    groups: tuple[Ref, ...] | None = None     # grouping expressions (as unqualified Refs)
    subqueries: bool = False                  # may predicates hold subqueries (WHERE)?
    aggregates: bool = False                  # may leaves be aggregate calls?

    def of(self, family: str, extreme: bool = True) -> list[Ref]:
        return [c for c in self.cols if c.family == family and (extreme or not c.extreme)]

    def rows(self) -> "Scope":
        """The scope an aggregate's argument ranges over."""
        return replace(self, groups=None, aggregates=False, subqueries=False)


@dataclass
class ExprGen:
    ch: Chooser
    safe: bool = False
    queries: object = None                    # the QueryGen, for subqueries
    reuse: list = field(default_factory=list)  # predicates generated so far (for patterns)

    # -- leaves -------------------------------------------------------------------------
    def literal(self, family: str, null: bool = False) -> str:
        if null and self.ch.chance(0.15):
            return "NULL"
        if family == NUM and not self.safe and self.ch.chance(0.03):
            return self.ch.pick(UNSAFE_LITERALS)
        return self.ch.pick(LITERALS[family])

    def leaf(self, family: str, sc: Scope, null: bool = False, arith: bool = False) -> str:
        """A column (or grouping expression, or aggregate) of the family, else a literal.
        `arith`: the leaf is an operand of arithmetic (no extreme column when safe)."""
        if sc.groups is not None:
            groups = [g for g in sc.groups if g.family == family and not (arith and self.safe and g.extreme)]
            r = self.ch.below(10)
            if r < 4 and groups:
                return self.ch.pick(groups).sql
            if r < 8 and sc.aggregates:
                return self.aggregate(family, sc)
            return self.literal(family, null)
        cols = sc.of(family, extreme=not (arith and self.safe))
        if cols and not self.ch.chance(0.25):
            return self.ch.pick(cols).sql
        if sc.outer and self.ch.chance(0.05):
            outer = [c for c in sc.outer if c.family == family and not (arith and self.safe and c.extreme)]
            if outer:
                return self.ch.pick(outer).sql
        return self.literal(family, null)

    # -- any family -------------------------------------------------------------------
    def expr(self, family: str, sc: Scope, depth: int = 0) -> str:
        return {NUM: self.num, STR: self.text, BOOL: self.pred, DATE: self.date}[family](sc, depth)

    def _conditional(self, family: str, sc: Scope, depth: int) -> str:
        """IF / CASE WHEN / simple CASE / coalesce / nullif / greatest / least of a family."""
        e = lambda: self.expr(family, sc, depth + 1)  # noqa: E731
        # an untyped NULL in every branch would make a BOOLEAN conditional VOID (no condition)
        null = "NULL" if family != BOOL else "CAST(NULL AS BOOLEAN)"
        null_or = lambda: null if self.ch.chance(0.15) else e()  # noqa: E731
        kind = self.ch.below(7 if family in (NUM, DATE) else 5)
        if kind == 0:
            return f"coalesce({e()}, {null_or()}{', ' + e() if self.ch.chance(0.3) else ''})"
        if kind == 1:
            return f"IF({self.pred(sc, depth + 1)}, {null_or()}, {e()})"
        if kind == 2:
            branches = " ".join(f"WHEN {self.pred(sc, depth + 1)} THEN {null_or()}"
                                for _ in range(self.ch.between(1, 2)))
            other = f" ELSE {null_or()}" if self.ch.chance(0.6) else ""
            return f"CASE {branches}{other} END"
        if kind == 3:
            subject = self.leaf(family, sc)
            branches = " ".join(f"WHEN {self.literal(family)} THEN {e()}" for _ in range(self.ch.between(1, 2)))
            other = f" ELSE {e()}" if self.ch.chance(0.5) else ""
            return f"CASE {subject} {branches}{other} END"
        if kind == 4:
            return f"nullif({e()}, {null_or()})"
        fn = self.ch.pick(["greatest", "least"])
        return f"{fn}({e()}, {null_or()}{', ' + e() if self.ch.chance(0.3) else ''})"

    # -- numeric ----------------------------------------------------------------------
    def num(self, sc: Scope, depth: int = 0, arith: bool = False) -> str:
        if depth >= 3 or self.ch.chance(0.4 + 0.2 * depth):
            return self.leaf(NUM, sc, null=depth > 0, arith=arith)
        a = lambda: self.num(sc, depth + 1, arith=True)  # noqa: E731
        kind = self.ch.weighted([(3, "arith"), (2, "cond"), (0.6, "neg"), (0.6, "abs"), (0.8, "nanvl"),
                                 (0.5, "length"), (0.6, "cast"), (0.5, "div"), (0.5, "round"),
                                 (0.7, "subquery")])
        if kind == "arith":
            return f"({a()} {self.ch.pick(['+', '-', '*'])} {'NULL' if self.ch.chance(0.08) else a()})"
        if kind == "cond":
            return self._conditional(NUM, sc, depth)
        if kind == "neg":
            return f"-({a()})"
        if kind == "abs":
            return f"abs({a()})"
        if kind == "nanvl":
            return f"nanvl({self.num(sc, depth + 1)}, {self.num(sc, depth + 1)})"
        if kind == "length":
            return f"length({self.text(sc, depth + 1)})"
        if kind == "round":
            return f"round({self.num(sc, depth + 1)}, {self.ch.pick(['0', '1', '-1'])})"
        if kind == "cast":
            if self.safe:
                return f"CAST({self.num(sc, depth + 1)} AS DOUBLE)"
            to = self.ch.pick(["DOUBLE", "INT", "BIGINT", "DECIMAL(5,1)", "DECIMAL(12,3)"])
            arg = self.text(sc, depth + 1) if self.ch.chance(0.1) else self.num(sc, depth + 1)
            return f"CAST({arg} AS {to})"
        if kind == "div" and not self.safe:
            op = self.ch.pick(["/", "%"])  # (div takes no double)
            return f"({a()} {op} {a()})"
        if kind == "subquery" and self.queries is not None and sc.subqueries and depth < 2:
            return self.queries.scalar_subquery(NUM, sc)
        return self.leaf(NUM, sc, null=True, arith=arith)

    # -- strings and dates -----------------------------------------------------------
    def text(self, sc: Scope, depth: int = 0) -> str:
        if depth >= 3 or self.ch.chance(0.5 + 0.2 * depth):
            return self.leaf(STR, sc, null=depth > 0)
        kind = self.ch.weighted([(2, "cond"), (1, "case"), (1, "cast"), (0.6, "substr"), (0.6, "concat"),
                                 (0.4, "trim"), (0.4, "subquery")])
        s = lambda: self.text(sc, depth + 1)  # noqa: E731
        if kind == "cond":
            return self._conditional(STR, sc, depth)
        if kind == "case":
            return f"{self.ch.pick(['upper', 'lower'])}({s()})"
        if kind == "cast":
            other = self.num(sc, depth + 1) if self.ch.chance(0.7) else self.date(sc, depth + 1)
            return f"CAST({other} AS STRING)"
        if kind == "substr":
            return f"substr({s()}, {self.ch.pick(['1', '2', '0'])}, {self.ch.pick(['1', '2'])})"
        if kind == "concat":
            return f"concat({s()}, {s()})"
        if kind == "trim":
            return f"trim({s()})"
        if kind == "subquery" and self.queries is not None and sc.subqueries and depth < 2:
            return self.queries.scalar_subquery(STR, sc)
        return self.leaf(STR, sc, null=True)

    def date(self, sc: Scope, depth: int = 0) -> str:
        if depth >= 3 or self.ch.chance(0.5 + 0.15 * depth):
            return self.leaf(DATE, sc, null=depth > 0)
        if not self.safe and self.ch.chance(0.15):
            return f"date_add({self.date(sc, depth + 1)}, {self.ch.pick(['1', '-1', '30'])})"
        return self._conditional(DATE, sc, depth)

    # -- predicates ------------------------------------------------------------------
    def pred(self, sc: Scope, depth: int = 0) -> str:
        p = self._pred(sc, depth)
        if len(self.reuse) < 12:
            self.reuse.append((p, sc))
        return p

    def _family(self, sc: Scope) -> str:
        have = {c.family for c in (sc.cols if sc.groups is None else sc.groups)}
        options = [f for f in (NUM, NUM, STR, DATE, BOOL) if f in have] or [NUM]
        return self.ch.pick(options)

    def _reused(self, sc: Scope) -> str | None:
        same = [p for p, s in self.reuse if s == sc]
        return self.ch.pick(same) if same else None

    def _pred(self, sc: Scope, depth: int) -> str:
        if depth >= 3 or (depth == 2 and self.ch.chance(0.5)):
            return self._atom(sc, depth)
        kind = self.ch.weighted([(5, "atom"), (2, "and"), (1.5, "or"), (1, "not"), (1, "pattern"),
                                 (0.6, "cond"), (0.4, "literal")])
        p = lambda: self.pred(sc, depth + 1)  # noqa: E731
        if kind == "and":
            return f"({p()} AND {p()})"
        if kind == "or":
            return f"({p()} OR {p()})"
        if kind == "not":
            return f"NOT ({p()})"
        if kind == "pattern":
            return self._pattern(sc, depth)
        if kind == "cond":
            return self._conditional(BOOL, sc, depth)
        if kind == "literal":
            return self.ch.pick(["TRUE", "FALSE", "CAST(NULL AS BOOLEAN)", "NULL IS NULL", "1 = NULL"])
        return self._atom(sc, depth)

    def _pattern(self, sc: Scope, depth: int) -> str:
        """Shapes BooleanSimplification, SimplifyConditionals and NullPropagation know,
        over a predicate used twice."""
        a = self._reused(sc) or self.pred(sc, depth + 1)
        b = self.pred(sc, depth + 1)
        return self.ch.pick([
            f"({a} AND (NOT ({a}) OR {b}))",
            f"({a} OR (NOT ({a}) AND {b}))",
            f"({a} AND NOT ({a}))",
            f"({a} OR NOT ({a}))",
            f"(({a} AND {b}) OR ({a} AND {self.pred(sc, depth + 1)}))",
            f"(({a} OR {b}) AND ({a} OR {self.pred(sc, depth + 1)}))",
            f"NOT (NOT ({a}))",
            f"({a} AND {a})",
            f"IF({a}, TRUE, FALSE)",
            f"IF({a}, FALSE, {b})",
            f"CASE WHEN {a} THEN TRUE ELSE FALSE END",
            f"NOT ({a} AND {b})",
            f"(({a}) <=> TRUE)",
            f"(({a}) = FALSE)",
            f"NOT (({a}) <=> FALSE)",
            f"coalesce({a}, FALSE)",
        ])

    def _atom(self, sc: Scope, depth: int) -> str:
        f = self._family(sc)
        e = lambda fam=f: self.expr(fam, sc, depth + 1) if fam != BOOL else self.leaf(BOOL, sc)  # noqa: E731
        kind = self.ch.weighted([(4, "cmp"), (1.5, "isnull"), (1.5, "in"), (0.7, "between"), (0.6, "self"),
                                 (0.6, "isnan"), (0.6, "bool"), (0.3, "like"), (0.8, "subquery")])
        if kind == "cmp":
            op = self.ch.pick(COMPARISONS)
            right = "NULL" if self.ch.chance(0.1) else e()
            return f"{e()} {op} {right}"
        if kind == "isnull":
            return f"{e()} IS {'NOT ' if self.ch.chance(0.5) else ''}NULL"
        if kind == "in":
            items = [self.literal(f, null=True) if self.ch.chance(0.8) else e()
                     for _ in range(self.ch.between(1, 4))]
            if self.ch.chance(0.3):
                items.append("NULL")
            neg = "NOT " if self.ch.chance(0.4) else ""
            text = f"{e()} {neg}IN ({', '.join(items)})"
            return f"NOT ({text})" if self.ch.chance(0.15) else text
        if kind == "between":
            neg = "NOT " if self.ch.chance(0.3) else ""
            return f"{e()} {neg}BETWEEN {e()} AND {e()}"
        if kind == "self":
            x = e()
            return f"{x} {self.ch.pick(COMPARISONS)} {x}"
        if kind == "isnan":
            return f"isnan({self.num(sc, depth + 1)})"
        if kind == "bool":
            b = self.leaf(BOOL, sc)
            return self.ch.pick([b, f"NOT {b}", f"{b} IS TRUE", f"{b} IS NOT FALSE", f"{b} IS FALSE",
                                 f"{b} IS NOT TRUE", f"{b} = {self.leaf(BOOL, sc)}"])
        if kind == "like":
            pattern = self.ch.pick(["'a%'", "'%'", "''", "'_'"])
            return f"{self.text(sc, depth + 1)} LIKE {pattern}"
        if kind == "subquery" and self.queries is not None and sc.subqueries and depth < 2:
            return self.queries.scalar_comparison(sc)
        return f"{e()} {self.ch.pick(COMPARISONS)} {e()}"

    # -- aggregates ------------------------------------------------------------------
    def aggregate(self, family: str, sc: Scope) -> str:
        rows = sc.rows()
        if family == NUM:
            kind = self.ch.weighted([(2, "count(*)"), (1.5, "count"), (1, "count_distinct"), (2, "sum"),
                                     (1, "avg"), (1.2, "min"), (1.2, "max"), (0.4, "sum_distinct")])
            if kind in ("count", "count_distinct", "min", "max"):
                arg = self.expr(self._family(rows) if kind.startswith("count") else NUM, rows, 1)
            else:  # sum and avg may overflow on extreme values: not in safe mode
                arg = "" if kind == "count(*)" else self.num(rows, 1, arith=self.safe)
            call = {"count(*)": "count(*)", "count": f"count({arg})", "count_distinct": f"count(DISTINCT {arg})",
                    "sum": f"sum({arg})", "avg": f"avg({arg})", "min": f"min({arg})", "max": f"max({arg})",
                    "sum_distinct": f"sum(DISTINCT {arg})"}[kind]
        elif family == BOOL:
            return f"({self.aggregate(NUM, sc)} {self.ch.pick(COMPARISONS)} {self.literal(NUM, null=True)})"
        else:
            call = f"{self.ch.pick(['min', 'max'])}({self.expr(family, rows, 1)})"
        if self.ch.chance(0.08) and call != "count(*)":
            call += f" FILTER (WHERE {self.pred(rows, 2)})"
        return call
