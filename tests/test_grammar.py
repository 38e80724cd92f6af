"""The corrections to sqlglot's Spark grammar made around its stock parser (what runs with
sqlglot's compiled build, sqlglotc, plans/sql_in/grammar.py) give the trees of sparkfold's
parser subclass (what runs with pure-Python sqlglot): same nodes, same spelled names, same
SQL.  Runs on either build's stock parser; tests/test_architecture.py runs the CLI on both."""

from __future__ import annotations

import pytest
from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.errors import ParseError

from sparkfold.plans.ir import dialect
from sparkfold.plans.ir.dialect import DIALECT, SPAN, _Parser, compiled_sqlglot, node_span, to_sql
from sparkfold.plans.sql_in import grammar
from sparkfold.plans.sql_in.parse import IS_UNKNOWN, UNARY_PLUS, _fix_tokens, parse_query
from tests import tpc

QUERIES = [
    "SELECT 'four: ' || 2 + 2",
    "SELECT a || b - c || d * 2, a + b || c, -a || b FROM t",
    "SELECT a & b || c, a || b & c, a | b || c + d FROM t",
    "SELECT a /* c1 */ || /* c2 */ b AS x FROM t",
    "SELECT 'store' || s_store_id AS id, ('a' || b) || c FROM t",
    "SELECT any(v), any(v > 1) OVER (PARTITION BY k) FROM t",
    "SELECT x FROM t WHERE x = ANY (SELECT y FROM u) AND s LIKE ANY ('a%', 'b%')",
    "SELECT to_char(d, '999'), date_sub(dt, 1), timestampadd(DAY, 1, ts), initcap(s), ceil(x), char(65) FROM t",
    "SELECT first(v, true), first(v), last_value(v, true) OVER (ORDER BY k), first(v) IGNORE NULLS OVER () FROM t",
    "SELECT CAST(x AS CHAR(5)), CAST('1' AS INT), double(x), int(y), substr(s, 1), substring(s, 1), trim(s) FROM t",
    "SELECT CASE WHEN a = 1 THEN 2 END, case x when 1 then 2 end, IF(a, 1, 2), iif(a, 1, 2) FROM t",
    "SELECT transform(array(a, b), x -> x + 1), filter(arr, x -> x > 0), exists(arr, x -> x > 0) FROM t",
    "SELECT x FROM t WHERE EXISTS (SELECT 1 FROM u) AND NOT exists (SELECT 2 FROM u)",
    "SELECT left(s, 2), right(s, 2), replace(s, 'a', 'b'), map(1, 2), struct(1, 2), uuid() FROM t",
    "SELECT x FROM t WHERE s LIKE left(s, 1) OR s RLIKE ('a') OR a DIV (b) = 1",
    "WITH year(y) AS (SELECT 1) SELECT y, year(d) FROM year",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), `to_char`(d, 'x') FROM t",
    "SELECT 1L, 2S, 3Y, 1.5D, 2.5F, 1.0BD, -.5e1F, x <=> NULL, NOT (x IS NULL) FROM t",
    "SELECT DATE'2024-01-01'::STRING, TIMESTAMP '2024-01-01'::INT, -1::STRING, - 1.5D::INT, x - -1::INT FROM t",
]


def _parse(sql: str, parser_class):
    tokens = _fix_tokens(DIALECT.tokenize(sql), sql)
    parser = parser_class(dialect=DIALECT)
    if parser_class is _Parser:
        return parser.parse(tokens, sql)
    tokens, dpipes = grammar.prepare(tokens)
    return grammar.restore(parser.parse(tokens, sql), tokens, dpipes, parser)


def _shape(tree):
    return [(type(n).__name__, {k: v for k, v in n.args.items() if isinstance(v, (str, bool))},
             (n.meta or {}).get("name"), n.comments or None) for n in tree.walk(bfs=False)]


@pytest.mark.skipif(compiled_sqlglot(), reason="the subclass needs pure-Python sqlglot")
@pytest.mark.parametrize("sql", QUERIES)
def test_corrections_around_the_stock_parser_give_the_subclass_trees(sql):
    ours, theirs = _parse(sql, Spark.parser_class), _parse(sql, _Parser)
    assert [to_sql(t) for t in ours] == [to_sql(t) for t in theirs]
    assert [_shape(t) for t in ours] == [_shape(t) for t in theirs]


TPC = [q for _, q in tpc.queries("tpch") + tpc.queries("tpcds")]


def test_text_parsed_unplaced_gives_the_same_trees_without_spans():
    """The splice reads its result back with `placed=False` (no spans recorded): the
    grammar must be the very same, or a read-back would check another query."""
    assert len(QUERIES + TPC) > 100
    for sql in QUERIES + TPC:
        placed, unplaced = parse_query(sql), parse_query(sql, placed=False)
        assert to_sql(unplaced) == to_sql(placed)
        assert _shape(unplaced) == _shape(placed)
        assert node_span(placed) is not None
        assert id(unplaced) not in dialect._PENDING_SPANS  # (sqlglotc: none to read later)
        assert not any((n.meta or {}).get(SPAN) for n in unplaced.walk())
        dialect.forget_spans(placed)


@pytest.mark.parametrize("sql", ["SELECT || 'a'", "SELECT INTERVAL '1' DAY || 'x' FROM t"])
def test_a_concatenation_the_stock_parser_reads_otherwise_is_an_error(sql):
    with pytest.raises(ParseError):
        _parse(sql, Spark.parser_class)


def test_text_that_looks_renamed_is_refused_not_changed():
    """The names renamed before parsing are put back by taking a prefix off: a text of the
    user's with that prefix would lose it too, so it is an error (under sqlglotc only)."""
    from sparkfold.plans.ir.errors import ParseError as SparkfoldParseError

    with pytest.raises(SparkfoldParseError, match="keeps text starting with"):
        _parse("SELECT 'sparkfoldcallx' FROM t", Spark.parser_class)


@pytest.mark.parametrize("sql, read", [
    ("SELECT * FROM t WHERE 5 > ANY(t.arr) AND x IN (SELECT a FROM u WHERE 3 = ANY(u.b))", "postgres"),
    ("SELECT * FROM (SELECT * FROM u WHERE 2 < ANY(u.c)) AS s WHERE x = ANY (SELECT 1)", "postgres"),
    ("SELECT a FROM t QUALIFY ROW_NUMBER() OVER (PARTITION BY a ORDER BY b) = 1", "spark"),
    ("SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, b", "postgres"),
])
def test_select_preprocessing_prints_as_sqlglots_spark_printer(sql, read):
    # sparkfold's printer runs sqlglot's SELECT transforms with any_to_exists limited to
    # each SELECT's own scope (plans/ir/dialect.py, linear in the nesting); the text must
    # be the stock Spark printer's, ANYs in nested SELECTs included
    import sqlglot

    tree = sqlglot.parse_one(sql, read=read)
    assert tree.sql(dialect=DIALECT) == tree.sql(dialect="spark")


def test_is_unknown_is_told_from_is_null_and_unary_plus_from_none():
    tree = parse_query("SELECT x IS NOT UNKNOWN, NOT unknown, unknown IS NULL, x IS UNKNOWN FROM t")
    is_not_unknown, not_column, is_null, is_unknown = tree.expressions
    assert is_not_unknown.this.expression.meta.get(IS_UNKNOWN) and is_unknown.expression.meta.get(IS_UNKNOWN)
    assert isinstance(not_column.this, exp.Column) and not is_null.expression.meta.get(IS_UNKNOWN)
    assert not is_unknown.expression.comments and not tree.meta.get(UNARY_PLUS)
    # a unary plus over a plain operand is Spark's positive(...); over another, the
    # statement is marked (the analyzer passes it through)
    plus = parse_query("SELECT a + +b FROM t").expressions[0].expression
    assert isinstance(plus, exp.Anonymous) and plus.name == "positive" and plus.expressions[0].name == "b"
    assert parse_query("SELECT a + +b[0] FROM t").meta.get(UNARY_PLUS)
    assert not parse_query("SELECT a + b, 1E+5 FROM t").meta.get(UNARY_PLUS)
