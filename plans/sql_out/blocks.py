"""A SELECT block being filled bottom-up, in SQL's clause order."""

from __future__ import annotations

from dataclasses import field

from sqlglot import exp

from ..ir import expressions as E
from ..ir.records import record


@record
class Block:
    """A SELECT being assembled (or a finished set operation)."""

    output: list[E.Attribute]
    refs: dict[int, exp.Expression]  # how WHERE/GROUP BY/SELECT refer to FROM columns
    from_: exp.Expression | None = None
    joins: list[exp.Join] = field(default_factory=list)
    where: list[exp.Expression] = field(default_factory=list)
    group: list[exp.Expression] | None = None
    having: list[exp.Expression] = field(default_factory=list)
    select: list[tuple[E.Attribute, exp.Expr]] | None = None
    provisional: bool = False  # the select list of an aggregate, which a Project may replace
    definitions: dict[int, E.Expr] = field(default_factory=dict)  # aggregate outputs' expressions
    # the select items (by id) holding an expression Spark's analysis may reject (an
    # unmodelled call: plans.ir.opaque_values.unmodelled_in), which no Project above may
    # drop: Spark analyzes a column nothing reads all the same
    unmodelled: set[int] = field(default_factory=set)
    distinct: bool = False
    order: list[exp.Expression] | None = None
    order_aliases: set[int] = field(default_factory=set)
    offset: int | None = None
    limit: int | None = None
    setop: exp.Expression | None = None
    union_all: bool = False  # setop is a chain of UNION ALL that DISTINCT may turn into UNION

    @property
    def from_only(self) -> bool:
        return (self.setop is None and not self.where and self.group is None and not self.having
                and self.select is None and not self.distinct and self.order is None
                and self.offset is None and self.limit is None)

    @property
    def closed(self) -> bool:
        """Nothing but a subquery wrapper can sit on top (ordering clauses are set)."""
        return self.order is not None or self.offset is not None or self.limit is not None
