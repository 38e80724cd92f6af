"""A CTE read more than once: each reference is the definition with fresh ids.

The analyzer analyzes a CTE at its first reference and copies that plan with new ids at
the others (`plans.ir.logical.with_fresh_ids`).  The copy must be what analyzing the
definition again gives: the same operators and expressions, ids included, and the same
source nodes for the findings and the kept-layout output."""

from __future__ import annotations

import pytest
from sparkfold import optimize
from sparkfold.optimizer.findings import SourceMap
from sparkfold.plans.ir import logical as L
from sparkfold.plans.ir.expressions import id_scope
from sparkfold.plans.sql_in.analyzer import Analyzer
from sparkfold.plans.sql_in.catalog import Catalog
from sparkfold.plans.sql_in.parse import parse_query

from tests.data import STANDARD_SCHEMA
from tests.spark_check import assert_same_result

CAT = Catalog.from_mapping(STANDARD_SCHEMA)

BODIES = [
    "SELECT num, sum(y) AS total FROM u GROUP BY num",
    "SELECT t.num, t.x + 1 AS x1 FROM t WHERE t.s IN (SELECT s FROM u WHERE u.num = t.num)",
    "WITH inner_c AS (SELECT num FROM u WHERE y > 1) SELECT num, count(*) AS c FROM inner_c GROUP BY num",
    "SELECT num, (SELECT max(k) FROM n WHERE n.k = t.num) AS m FROM t",
]


def _analyzed(sql: str) -> tuple[L.Plan, SourceMap]:
    sources = SourceMap()
    with id_scope():
        return sources.record(Analyzer(CAT, sql)).analyze(parse_query(sql)), sources


@pytest.mark.parametrize("body", BODIES)
def test_a_second_reference_is_the_body_analyzed_again(body):
    # the same body as two derived tables is analyzed twice, in this order
    twice, twice_sources = _analyzed(f"SELECT * FROM ({body}) a JOIN ({body}) b ON a.num = b.num")
    cte, cte_sources = _analyzed(f"WITH c AS ({body}) SELECT * FROM c a JOIN c b ON a.num = b.num")
    a_twice, b_twice = [j for j in twice.walk() if isinstance(j, L.Join)][0].children
    a_cte, b_cte = [j for j in cte.walk() if isinstance(j, L.Join)][0].children
    assert a_cte.child == a_twice.child and b_cte.child == b_twice.child  # ids included
    assert a_cte.output_ids.isdisjoint(b_cte.output_ids)
    # each reference's expressions are recorded from the definition's nodes
    assert [e for _, e in cte_sources.pairs] == [e for _, e in twice_sources.pairs]


def test_a_cte_read_twice_optimizes_as_spark_runs_it(spark, tables):
    sql = ("WITH c AS (SELECT num, count(num) AS k FROM t WHERE x = NULL OR num > 2 GROUP BY num) "
           "SELECT a.num, b.k FROM c a JOIN c b ON a.num = b.num + 1")
    result = optimize(sql, tables)
    assert "count(1)" in result.sql and "NULL" not in result.sql
    assert_same_result(spark, sql, result.sql, context=sql)
