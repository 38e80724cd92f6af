"""An opaque block's input keeps every column the block may read without naming it.

A PIVOT groups by every input column it does not pivot: pruning `year` from its input
returns one row instead of one per year.  `*` and LATERAL VIEW read unnamed columns too.
Each query runs on Spark as written and as optimized (SQL and DataFrame, through
`verify`), the SQL regenerated from the plan as when any rule fires."""

from __future__ import annotations

import pytest
from sparkfold import optimize

from tests.data import local_copy

SALES = {"sales": {"year": "int", "course": "string", "earnings": "int", "extra": "int"}}

QUERIES = [
    "SELECT * FROM (SELECT year, course, earnings FROM sales WHERE 1 = 1) "
    "PIVOT (sum(earnings) FOR course IN ('a', 'b'))",
    "SELECT * FROM (SELECT year, course, earnings, extra FROM sales) "
    "PIVOT (sum(earnings) FOR course IN ('a' AS a, 'b' AS b)) WHERE 1 = 1",
    "SELECT year, a FROM (SELECT year, course, earnings FROM sales WHERE NULL IS NULL) "
    "PIVOT (sum(earnings) FOR course IN ('a' AS a, 'b' AS b)) ORDER BY year",
    "SELECT * FROM (SELECT year, course, earnings, extra + 0 AS e FROM sales WHERE 1 = 1) "
    "PIVOT (max(earnings) AS m, count(e) AS n FOR course IN ('a', 'b'))",
    "SELECT year, x FROM (SELECT year, earnings FROM sales WHERE 1 = 1) LATERAL VIEW explode(array(earnings, 1)) v AS x",
    # a LATERAL VIEW's column, unaliased, in a block inside the query: named as written
    "SELECT * FROM (SELECT year AS y, V.x FROM sales LATERAL VIEW explode(array(earnings, NULL)) v AS X) q "
    "WHERE 1 = 1",
    "SELECT x, y FROM (SELECT year AS y, `x` FROM sales LATERAL VIEW explode(array(extra, 2)) v AS X) q "
    "WHERE y IS NULL OR 1 = 1",
]


@pytest.fixture(scope="module")
def sales(spark):
    local_copy(spark.createDataFrame(
        [(2020, "a", 10, 1), (2020, "b", 20, 2), (2021, "a", 30, None), (2021, "a", None, 4),
         (2022, "b", 5, 5), (None, "a", 7, 6), (2022, None, 8, 7)],
        "year int, course string, earnings int, extra int")).createOrReplaceTempView("sales")
    return SALES


@pytest.mark.parametrize("sql", QUERIES)
def test_opaque_block_input_is_not_pruned_of_columns_it_reads(spark, sales, sql):
    result = optimize(sql, sales, always_regenerate=True)  # as when any rule fires
    assert result.passthrough is None and result.sql != sql
    report = result.verify(spark)
    assert report.equal, report.to_text()
    assert report.reference.rows == spark.sql(sql).count() > 1


LONG_IN = ", ".join(str(i) for i in range(100))
SHOWN_CASES = [
    # short blocks are printed whole: their trailing keywords and hints are shown
    ("SELECT year, course, count(*) FROM sales GROUP BY year, course WITH ROLLUP", "WITH ROLLUP", None),
    ("select /*+ BROADCAST(sales) */ year, x from sales lateral view explode(array(1)) v as x",
     "SELECT /*+ BROADCAST(sales) */ year, x", None),
    # long blocks: the input's own text from the block's SELECT, not its CTEs or the outer query
    ("SELECT * FROM (SELECT year, course, count(*) AS n FROM (SELECT * FROM sales WHERE year IN ("
     + LONG_IN + ")) s GROUP BY year, course WITH ROLLUP) q", "SELECT year, course, count(*) AS n FROM", 1),
    ("WITH s AS (SELECT * FROM sales) select /*+ BROADCAST(s) */ year,  course, count(*) FROM (SELECT * FROM s "
     "WHERE year IN (" + LONG_IN + ")) s GROUP BY year, course WITH ROLLUP", "select /*+ BROADCAST(s) */ year,  course", 1),
]


@pytest.mark.parametrize("sql,shown,from_input", SHOWN_CASES)
def test_an_opaque_block_is_shown_by_its_own_text(sql, shown, from_input):
    """explain's and the DataFrame program's text of an opaque SELECT block: the block
    itself, from its SELECT keyword, 200 characters at most."""
    from sparkfold.plans.ir import logical as L

    result = optimize(sql, SALES)
    texts = [p.sql_text for p in result.analyzed.walk() if isinstance(p, L.OpaqueRelation)]
    assert len(texts) == 1 and texts[0].upper().startswith("SELECT") and len(texts[0]) <= 200
    assert shown in texts[0]
    if from_input:
        start = sql.index(shown)
        assert texts[0] == sql[start:start + 200]


def test_an_opaque_template_is_copied_without_its_from_clause_and_the_input_is_kept():
    """The template of an opaque block is copied without the FROM, joins and CTEs it
    replaces at once (copying them was most of the analysis of an opaque ROLLUP over a
    union), and the parsed input is left exactly as it was, parents and all."""
    from sparkfold.plans.ir.dialect import DIALECT
    from sparkfold.plans.sql_in.opaque_select import _copy_but
    from sqlglot import parse_one

    sel = parse_one("WITH c AS (SELECT 1 AS a) SELECT a, count(*) FROM (SELECT a FROM c UNION ALL "
                    "SELECT a FROM c) q JOIN c USING (a) GROUP BY a WITH ROLLUP", dialect=DIALECT)
    text, hashed = sel.sql(dialect=DIALECT), hash(sel)
    nodes = [(n, n.parent) for n in sel.walk()]
    copy = _copy_but(sel, ("from_", "joins", "with_"))
    assert copy.args.get("from_") is None and not copy.args.get("joins") and copy.args.get("with_") is None
    assert copy.sql(dialect=DIALECT) == "SELECT a, COUNT(*) GROUP BY a WITH ROLLUP"
    assert sel.sql(dialect=DIALECT) == text and hash(sel) == hashed
    assert all(n.parent is parent for n, parent in nodes)
    assert all(n is not m for n in copy.walk() for m, _ in nodes)
