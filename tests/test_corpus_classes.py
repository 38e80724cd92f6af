"""The failure classes the corpus (tests/corpus) found, each named and checked on Spark:
SQL that Spark accepts and sparkfold rejected or passed through whole."""

from __future__ import annotations

import pytest
from sparkfold import optimize

from tests.spark_check import assert_same_result


def _agrees(spark, tables, sql, *, rewritten=True):
    result = optimize(sql, tables)
    assert result.passthrough is None, result.passthrough
    if rewritten:
        assert result.sql != sql
    assert_same_result(spark, sql, result.sql, context=sql)
    return result


@pytest.mark.parametrize("sql", [
    # a derived table joined inside parentheses: the join is part of the FROM item (it was
    # read as the derived table alone: its columns only, the join dropped)
    "SELECT y FROM ((SELECT num AS k FROM t) JOIN u ON k = u.num) WHERE 1 = 1",
    "SELECT u.y FROM ((SELECT t.num FROM t) AS a JOIN u ON a.num = u.num) WHERE NULL IS NULL",
    # an aliased parenthesized join: its columns are the alias's
    "SELECT j.x, j.y FROM (t LEFT JOIN u ON t.num = u.num) AS j WHERE j.y > 100",
    "SELECT * FROM ((t)) WHERE s = NULL OR num > 8",
    "SELECT count(*) FROM (t LEFT JOIN u ON t.num = u.num) LEFT JOIN n ON u.y = n.k WHERE n.v > 0",
])
def test_parenthesized_joins_are_relations(spark, tables, sql):
    _agrees(spark, tables, sql)


def test_a_name_outside_an_aliased_parenthesized_join_is_unknown(tables):
    from sparkfold.optimizer.errors import UnknownColumnError

    with pytest.raises(UnknownColumnError):  # Spark: UNRESOLVED_COLUMN (the alias hides t and u)
        optimize("SELECT t.x FROM (t LEFT JOIN u ON t.num = u.num) AS j", tables)


@pytest.mark.parametrize("sql", [
    "SELECT s, sum(b) FROM t WHERE 1 = 1 GROUP BY (1) ORDER BY (1)",
    "SELECT num + 1, count(*) FROM t WHERE x = NULL OR b > 0 GROUP BY ((1)) ORDER BY (2), 1",
])
def test_parenthesized_positions_are_positions(spark, tables, sql):
    _agrees(spark, tables, sql)


def test_top_level_hints_stay_on_the_rewritten_query(spark, tables):
    sql = "SELECT /*+ BROADCAST(u), REPARTITION(3) */ t.s, count(*) FROM t LEFT JOIN u ON t.num = u.num " \
          "WHERE u.y > 0 GROUP BY t.s"
    result = _agrees(spark, tables, sql)
    assert result.sql.startswith("SELECT /*+ BROADCAST(u), REPARTITION(3) */ ")
    assert "LEFT JOIN" not in result.sql


@pytest.mark.parametrize("sql, hint", [
    ("SELECT * FROM (SELECT /*+ BROADCAST(u) */ t.s FROM t JOIN u ON t.num = u.num) q WHERE 1 = 1",
     "/*+ BROADCAST(u) */"),
    ("WITH c AS (SELECT /*+ REPARTITION(3) */ num, s FROM t WHERE s = NULL OR num > 1) "
     "SELECT c.s, u.y FROM c JOIN u ON c.num = u.num", "/*+ REPARTITION(3) */"),
])
def test_a_hint_inside_stays_where_it_is_written(spark, tables, sql, hint):
    # the query is optimized; the hint, which never changes the rows, stays in the
    # kept-layout output, in its place
    result = _agrees(spark, tables, sql)
    assert result.passthrough is None and result.sql != sql
    assert hint in result.sql


def test_a_hint_inside_keeps_the_query_as_written_when_it_must_be_written_whole(tables):
    sql = "SELECT * FROM (SELECT /*+ BROADCAST(u) */ t.s FROM t JOIN u ON t.num = u.num) q WHERE 1 = 1"
    result = optimize(sql, tables, keep_layout=False)
    assert result.passthrough is None and result.sql == sql
    assert any("hints inside" in w for w in result.trace.warnings)


@pytest.mark.parametrize("sql", [
    "SELECT * EXCEPT (x) FROM t WHERE num = NULL OR num > 3",
    "SELECT * EXCEPT (t.num, u.s) FROM t JOIN u ON t.num = u.num WHERE 1 = 1",
    "SELECT t.* EXCEPT (num, s), u.y FROM t JOIN u ON t.num = u.num WHERE 1 = 1",
    "SELECT * EXCEPT (NUM) FROM t JOIN u USING (num) WHERE 1 = 1",
])
def test_star_except(spark, tables, sql):
    _agrees(spark, tables, sql)


@pytest.mark.parametrize("sql, error", [
    ("SELECT * EXCEPT (num) FROM t JOIN u ON t.num = u.num", "AmbiguousReferenceError"),
    ("SELECT * EXCEPT (u.num) FROM t LEFT JOIN u USING (num)", "UnknownColumnError"),  # not in the star
    ("SELECT * EXCEPT (nope) FROM t", "UnknownColumnError"),
])
def test_star_except_errors_as_spark(spark, tables, sql, error):
    from tests.spark_check import run_or_error

    assert run_or_error(spark, sql)[0] == "error"
    with pytest.raises(Exception) as e:
        optimize(sql, tables)
    assert type(e.value).__name__ == error


# A tuple as a value, Spark's struct of its values (named `named_struct(...)`, a name
# sparkfold leaves to Spark): opaque where it stands, the rest of the query optimized
# (it passed the whole query through; Spark's comparator.sql and count.sql)
@pytest.mark.parametrize("sql", [
    "SELECT num, (num, s) = (1, 'a'), (x, num) < (1.5D, 2) AS lt FROM t WHERE 1 = 1",
    "SELECT count((num, s)), count(DISTINCT (x, p)) FROM t WHERE s = NULL OR num > 2",
    "SELECT (num, s) AS st, num FROM t WHERE (num, s) = (3, 'c') AND 1 = 1",
    # a struct's fields are named after its arguments: `col2` for coalesce(x, NULL), which
    # must not become `x` when the argument is rewritten (struct(...) did, before tuples)
    "SELECT (num, coalesce(x, NULL)) AS st FROM t",
    "SELECT struct(num, coalesce(x, NULL), s AS q, 1 + 1) AS st, struct(T.NUM, coalesce(s, NULL)) FROM t",
])
def test_a_tuple_value(spark, tables, sql):
    _agrees(spark, tables, sql)


# A unary plus, which sqlglot's parser drops, read as Spark's positive(x) (named `(+ x)`)
# when its operand is plain; the rest of the query optimized (it passed the whole query
# through: 12 of Spark's held-out operators.sql and subexp-elimination.sql)
@pytest.mark.parametrize("sql", [
    "SELECT +num, - + num, + - x, +(num + (1 - 1)) AS p FROM t WHERE 1 = 1",
    "SELECT +max(num), +count(s) * 2, 1 + +2L FROM t WHERE s = NULL OR num > 1",
    "SELECT +(x), +t.num, + +num FROM t WHERE NULL IS NULL",
])
def test_a_unary_plus(spark, tables, sql):
    _agrees(spark, tables, sql)


# `TABLE t`, Spark's query of a table's rows, wherever a query may stand (Spark's held-out
# postgreSQL/select.sql: sqlglot read it as a column `TABLE` aliased `t`, and rejected a
# set operation ending with one); a column named `table` stays a column
@pytest.mark.parametrize("sql, rewritten", [
    ("TABLE n", False),
    ("SELECT num, x FROM t WHERE 1 = 1 UNION ALL TABLE e", True),
    ("SELECT * FROM (TABLE u) WHERE num = NULL OR y > 1", True),
    ("WITH c AS (TABLE n) SELECT k, v FROM c WHERE 1 = 1 INTERSECT DISTINCT TABLE n", True),
    ("SELECT * FROM n WHERE EXISTS (TABLE e) AND 1 = 1", True),
    ("SELECT table FROM (SELECT k AS table FROM n) WHERE 1 = 1", True),
])
def test_table_query(spark, tables, sql, rewritten):
    _agrees(spark, tables, sql, rewritten=rewritten)


# `s.*` over a struct column (no FROM item named `s`): its fields, each named after its
# field; with EXCEPT, less those named (Spark's held-out selectExcept.sql; sparkfold
# rejected them as an unknown column)
@pytest.fixture(scope="module")
def structs(spark, tables):
    from sparkfold.plans.sql_in.catalog import Catalog

    spark.sql("CREATE OR REPLACE TEMP VIEW sv AS SELECT num, named_struct('a', num, 'b', s, "
              "'c', named_struct('x', x, 'p', p)) AS st, if(p, named_struct('a', 1), NULL) AS ns FROM t")
    return Catalog.from_spark(spark)


@pytest.mark.parametrize("sql", [
    "SELECT st.* FROM sv WHERE 1 = 1",
    "SELECT q.st.* EXCEPT (b), num FROM sv AS q WHERE num = NULL OR num > 3",
    "SELECT st.c.*, st.* EXCEPT (A, c), ns.* FROM sv WHERE NULL IS NULL",
])
def test_star_over_a_struct(spark, structs, sql):
    _agrees(spark, structs, sql)


@pytest.mark.parametrize("sql", [
    "SELECT num.* FROM sv",
    "SELECT st.* EXCEPT (a, a) FROM sv",
    "SELECT st.* EXCEPT (nope) FROM sv",
])
def test_star_over_a_struct_errors_as_spark(spark, structs, sql):
    from sparkfold.optimizer.errors import SparkfoldError

    from tests.spark_check import run_or_error

    assert run_or_error(spark, sql)[0] == "error"
    with pytest.raises(SparkfoldError):
        optimize(sql, structs)


def test_star_except_of_every_column_passes_through(spark, tables):
    result = optimize("SELECT * EXCEPT (k, v) FROM n WHERE 1 = 1", tables)
    assert result.passthrough  # Spark returns rows with no column; the writer cannot say that


def test_with_recursive_without_recursion_is_an_ordinary_with(spark, tables):
    _agrees(spark, tables, "WITH RECURSIVE a(c, d) AS (SELECT num, x FROM t), b AS (SELECT c FROM a) "
                           "SELECT c FROM b WHERE c = NULL OR c > 2")


def _agrees_as_lowered(spark, tables, sql, *, rewritten=True):
    """`_agrees`, and more: no column the analysis calls never-null is nullable in Spark's
    schema of the original (the optimized plan may know more: a join key is not NULL),
    and the lowered DataFrame returns the original's rows."""
    from sparkfold.optimizer.compare import compare_rows
    from sparkfold.plans.pyspark.to_pyspark import run_code, to_pyspark_code

    from tests.spark_check import is_ordered, run, schema_of

    result = _agrees(spark, tables, sql, rewritten=rewritten)
    fields = spark.sql(sql).schema.fields
    assert [a.nullable or not f.nullable for a, f in zip(result.analyzed.output, fields)] == [True] * len(fields)
    code = to_pyspark_code(result)
    df = run_code(code, spark)
    expected_schema, expected_rows = run(spark, sql)
    assert schema_of(df) == expected_schema, code
    diff = compare_rows(expected_rows, [tuple(r) for r in df.collect()], ordered=is_ordered(result.analyzed))
    assert diff.equal, f"only in Spark: {diff.only_left}; only lowered: {diff.only_right}\n{code}"
    return result


# A recursive CTE is an opaque relation in place: each reference reads the text
# `WITH RECURSIVE <the WITH up to it> SELECT * FROM it`, typed as its anchor (Spark's
# type), every column nullable; the rest of the query is optimized around it.
RECURSIVE_CTES = [
    "WITH RECURSIVE r(c) AS (SELECT 1 UNION ALL SELECT c + 1 FROM r WHERE c < 3) SELECT c FROM r WHERE 1 = 1",
    # earlier CTEs of the WITH go into the text; a later CTE reads the recursive one
    "WITH RECURSIVE base AS (SELECT num, s FROM t WHERE num < 3), "
    "r AS (SELECT num, s, 0 AS depth FROM base UNION ALL SELECT num + 10, s, depth + 1 FROM r WHERE depth < 2), "
    "top AS (SELECT * FROM r WHERE depth = 2) SELECT top.s, u.y FROM top LEFT JOIN u ON top.num - 20 = u.num "
    "WHERE 1 = 1 AND top.num IS NOT NULL",
    # read twice (deterministic, so Spark inlines it too), joined with a table
    "WITH RECURSIVE r(c) AS (SELECT 1 AS c UNION ALL SELECT c + 1 AS c FROM r WHERE c <= 4) "
    "SELECT a.c, b.c AS d, t.s FROM r a JOIN r b ON a.c = b.c + 1 JOIN t ON t.num = a.c WHERE t.x = NULL OR a.c > 1",
    # several anchors, a recursive term reading it twice, a string column
    "WITH RECURSIVE r(c, w) AS (SELECT 1, 'a' UNION ALL SELECT 2, 'b' UNION ALL "
    "SELECT * FROM (SELECT c + 1, w || 'x' FROM r WHERE c < 3 UNION ALL SELECT c + 2, w FROM r WHERE c < 3)) "
    "SELECT w, count(*) FROM r WHERE NULL IS NULL GROUP BY w",
    # read in a subquery of the main query, its anchor reading a table
    "WITH RECURSIVE r(c) AS (SELECT num FROM u WHERE num IS NOT NULL UNION ALL SELECT c + 1 FROM r WHERE c < 5) "
    "SELECT * FROM t WHERE num IN (SELECT c FROM r) AND 1 = 1",
    # inside a derived table, under a query that is optimized
    "SELECT q.c FROM (WITH RECURSIVE r(c) AS (SELECT 1 UNION ALL SELECT c * 2 FROM r WHERE c < 100) "
    "SELECT c FROM r) AS q WHERE q.c > 10 OR NULL",
]


@pytest.mark.parametrize("sql", RECURSIVE_CTES)
def test_a_recursive_cte_is_an_opaque_relation(spark, tables, sql):
    result = _agrees_as_lowered(spark, tables, sql)
    assert result.trace, "the rest of the query was optimized"


@pytest.mark.parametrize("sql, reason", [
    # Spark types the column as the anchor (BIGINT into INT is an error, INT into BIGINT a cast)
    ("WITH RECURSIVE r(c) AS (SELECT CAST(1 AS BIGINT) UNION ALL SELECT CAST(c + 1 AS INT) FROM r "
     "WHERE c < 3) SELECT c FROM r WHERE 1 = 1", "types differ"),
    ("WITH RECURSIVE r(c) AS (SELECT 1 UNION ALL SELECT c + 1.5 FROM r WHERE c < 3) SELECT c FROM r "
     "WHERE 1 = 1", "types differ"),
    # its errors would go with it
    ("WITH RECURSIVE r(c) AS (SELECT 1 UNION ALL SELECT c + 1 FROM r WHERE c < 3) SELECT 1 AS one "
     "WHERE 1 = 1", "no query reads"),
    # the text would not be self-contained
    ("WITH a AS (SELECT num FROM t) SELECT * FROM (WITH RECURSIVE r(c) AS (SELECT num FROM a UNION ALL "
     "SELECT c + 1 FROM r WHERE c < 3) SELECT c FROM r) WHERE 1 = 1", "enclosing WITH"),
    # Spark's checks of a recursive term (its errors must not go with a dropped relation):
    # UNION_NOT_SUPPORTED_IN_RECURSIVE_CTE, INVALID_RECURSIVE_REFERENCE
    ("WITH RECURSIVE r(c) AS (SELECT 1 UNION SELECT c + 1 FROM r WHERE c < 3) SELECT c FROM r "
     "WHERE 1 = 0", "not UNION ALL"),
    ("WITH RECURSIVE r(c) AS (SELECT 1 UNION ALL SELECT max(c) + 1 FROM r HAVING max(c) < 3) "
     "SELECT c FROM r WHERE 1 = 0", "under an aggregate"),
    ("WITH RECURSIVE r(c) AS (SELECT 1 UNION ALL SELECT r.c + 1 FROM t LEFT JOIN r ON r.c = t.num "
     "WHERE r.c < 3) SELECT c FROM r WHERE 1 = 0", "outer join"),
    ("WITH RECURSIVE r(c) AS (SELECT 1 UNION ALL SELECT num FROM t WHERE num IN (SELECT c + 1 FROM r)) "
     "SELECT c FROM r WHERE 1 = 1", "subquery expression"),
])
def test_recursive_ctes_we_cannot_type_pass_through(spark, tables, sql, reason):
    result = optimize(sql, tables)
    assert result.passthrough and reason in result.passthrough, result.passthrough
    assert result.sql == sql


SAMPLED_TABLES = [
    # ROWS takes the first rows (all of these small tables); the joins around it are optimized
    "SELECT a.num, u.y FROM t TABLESAMPLE (10 ROWS) AS a LEFT JOIN u ON a.num = u.num WHERE u.y > 0",
    "SELECT s, k FROM t TABLESAMPLE (100 ROWS) CROSS JOIN n TABLESAMPLE (5 ROWS) WHERE 1 = 1",
    # a full sample (100 PERCENT) keeps every row, whatever the seed
    "SELECT count(*), sum(v) FROM n TABLESAMPLE (100 PERCENT) WHERE k = NULL OR k > 0",
]


@pytest.mark.parametrize("sql", SAMPLED_TABLES)
def test_a_sampled_table_is_an_opaque_relation(spark, tables, sql):
    result = _agrees_as_lowered(spark, tables, sql)
    assert result.trace, "the rest of the query was optimized"


def test_a_random_sample_is_read_once_and_stays_where_it_is(tables):
    from sparkfold.plans.ir import logical as L

    sql = "SELECT * FROM t TABLESAMPLE (50 PERCENT) AS a WHERE a.num > 1 AND 1 = 1"
    result = optimize(sql, tables)
    assert result.passthrough is None and result.sql != sql
    opaque = [p for p in result.optimized.walk() if isinstance(p, L.OpaqueRelation)]
    assert len(opaque) == 1 and "TABLESAMPLE (50 PERCENT)" in result.sql
    assert isinstance(result.optimized.child if isinstance(result.optimized, L.Project) else result.optimized,
                      (L.Filter, L.SubqueryAlias, L.Project))
    # a CTE sampling at random, read twice, would be two samples once inlined
    twice = optimize("WITH s AS (SELECT * FROM t TABLESAMPLE (50 PERCENT)) "
                     "SELECT * FROM s a JOIN s b ON a.num = b.num WHERE 1 = 1", tables)
    assert twice.passthrough and "more than once" in twice.passthrough


def test_regression_aggregates_with_distinct_are_kept(spark, tables):
    _agrees(spark, tables, "SELECT regr_avgy(DISTINCT x, num) AS r, regr_sxy(DISTINCT x, b), regr_count(x, b) "
                           "FROM t WHERE s = NULL OR true")


def test_bare_current_time_is_left_to_spark(spark, tables):
    result = optimize("SELECT localtime AS r, num FROM t WHERE x = NULL", tables)
    assert result.passthrough and "current_time" in result.passthrough


@pytest.mark.parametrize("sql", [
    "SELECT * FROM explode(array(1, 2)) AS e(v) CROSS JOIN t WHERE v = NULL OR num > 8",
    "SELECT count(col), count(pos) FROM posexplode(array('a', NULL, 'b')) WHERE 1 = 1",
    "SELECT count(key), count(value) FROM explode(map(1, 'a', 2, CAST(NULL AS STRING))) m WHERE m.key > 0",
    "SELECT (SELECT min(a) FROM explode(array(3, 1)) AS g(a)) AS f, s FROM t WHERE 1 = 1 GROUP BY s",
])
def test_explode_of_a_constant_is_a_relation(spark, tables, sql):
    _agrees(spark, tables, sql)


@pytest.mark.parametrize("sql", [
    "SELECT * FROM explode(array(1, 2.5)) WHERE 1 = 1",            # a coercion to model
    "SELECT * FROM explode((SELECT collect_list(num) FROM t)) WHERE 1 = 1",  # reads a table
])
def test_other_explodes_pass_through(spark, tables, sql):
    result = optimize(sql, tables)
    assert result.passthrough and result.sql == sql


# Catalyst's EliminateOuterJoin also drops an outer join whose padded side nothing reads
# when that cannot change the rows read: the other side matches each row at most once
# (unique on the equated columns), or the aggregate above ignores duplicates.
@pytest.mark.parametrize("sql", [
    "SELECT t.s FROM t LEFT JOIN (SELECT DISTINCT num FROM u) AS v ON t.num = v.num",
    "SELECT t.s FROM t LEFT JOIN (SELECT num, max(y) FROM u GROUP BY num) AS v ON t.num = v.num",
    "SELECT t.s FROM t LEFT JOIN (SELECT num FROM u LIMIT 1) AS v ON t.num = v.num",
    "SELECT v.num FROM (SELECT num FROM u GROUP BY num) AS w RIGHT JOIN t AS v ON w.num = v.num",
    "SELECT DISTINCT t.s FROM t LEFT JOIN u ON t.num = u.num",
    "SELECT t.s, max(t.x), count(DISTINCT t.b) FROM t LEFT JOIN u ON t.s = u.s GROUP BY t.s",
])
def test_an_outer_join_nothing_reads_is_removed(spark, tables, sql):
    result = _agrees(spark, tables, sql)
    assert " JOIN " not in result.sql


@pytest.mark.parametrize("sql", [
    "SELECT t.s FROM t LEFT JOIN u ON t.num = u.num",                         # u.num repeats
    "SELECT t.s, count(t.b) FROM t LEFT JOIN u ON t.num = u.num GROUP BY t.s",  # counts repeats
    "SELECT t.s FROM t LEFT JOIN (SELECT num, s FROM u GROUP BY num, s) v ON t.num = v.num",
    "SELECT t.s FROM t LEFT JOIN (SELECT num FROM u GROUP BY num) v ON t.num < v.num",
    # dropping the join would hide the division's error: the condition reads z, and Spark
    # divides while optimizing a Project over an inline table (a side Catalyst drops
    # itself before dividing: see test_rules_plan_outer_join)
    "SELECT t.s FROM t LEFT JOIN (SELECT num, max(z) AS m FROM VALUES (1, 0) AS w(num, z) WHERE 1 div z > 0 "
    "GROUP BY num) v ON t.num = v.num AND v.m > 0",
])
def test_an_outer_join_that_may_change_the_rows_stays(spark, tables, sql):
    result = optimize(sql, tables)
    assert " JOIN " in result.sql
    assert_same_result(spark, sql, result.sql, context=sql)


def test_an_element_of_an_array_call_is_not_an_array_constructor(spark, tables):
    # sqlglot's default parser read `array(1, 2)[0]` as the constructor `ARRAY[0]`
    result = _agrees(spark, tables, "SELECT array(1, 2)[0] AS v, array(num, b)[1] AS w FROM t WHERE 1 = 1")
    assert "array(1, 2)[0]" in result.sql


# FoldablePropagation: a column that is one constant in every row, read by a condition
@pytest.mark.parametrize("sql", [
    "WITH a AS (SELECT 1 AS id), b AS (SELECT 2 AS id) SELECT struct(id) AS f FROM a JOIN b USING (id)",
    "SELECT * FROM (SELECT 1 AS k, s FROM t) q WHERE k = 2",
    "WITH c AS (SELECT 5 AS id) SELECT c.id, t.s FROM c JOIN t ON c.id = t.num AND c.id > 9",
    "SELECT * FROM (SELECT * FROM VALUES (1, 'a') AS v(k, w)) q JOIN t ON q.k = t.num WHERE q.k = 3",
])
def test_constant_columns_fold_conditions_to_an_empty_relation(spark, tables, sql):
    result = _agrees(spark, tables, sql)
    assert "WHERE FALSE" in result.sql


@pytest.mark.parametrize("sql", [
    # the padded side of an outer join is not a constant above it (it may be NULL)
    "SELECT * FROM t LEFT JOIN (SELECT 1 AS k) q ON t.num = q.k WHERE q.k IS NULL",
    # a constant read together with a column keeps its text
    "SELECT * FROM (SELECT 1 AS k, num FROM t) q WHERE k + num > 5",
])
def test_constant_columns_elsewhere_agree(spark, tables, sql):
    result = optimize(sql, tables)
    assert "WHERE FALSE" not in result.sql
    assert_same_result(spark, sql, result.sql, context=sql)


@pytest.mark.parametrize("sql", [
    # `t.*` after a USING / NATURAL join lists the keys first, as Spark orders them (the
    # rewritten query listed t's columns in table order: the same rows under other names)
    "SELECT t.* FROM t JOIN u USING (s) WHERE 1 = 1",
    "SELECT u.*, t.* FROM t LEFT JOIN u USING (s, num) WHERE 1 = 1",
    "SELECT t.* FROM t FULL JOIN u USING (s) WHERE 1 = 1",
    "SELECT t.*, n.* FROM t NATURAL JOIN (SELECT x, num AS k FROM t) w JOIN n ON n.k = t.num WHERE 1 = 1",
])
def test_qualified_star_after_a_using_join_lists_the_keys_first(spark, tables, sql):
    _agrees(spark, tables, sql)


@pytest.mark.parametrize("sql", [
    # a semi / anti join USING lists its keys first too
    "SELECT * FROM t LEFT SEMI JOIN u USING (s) WHERE 1 = 1",
    "SELECT * FROM t LEFT ANTI JOIN u USING (s, num) WHERE 1 = 1",
    # a USING key is the first column of its name on each side (no ambiguity check)
    "SELECT * FROM t JOIN u USING (num) LEFT SEMI JOIN (SELECT 'a' AS s) w USING (s) WHERE 1 = 1",
    # GROUP BY ALL leaves window functions out of the grouping, as aggregates
    "SELECT s, count(*) OVER () AS c FROM t WHERE 1 = 1 GROUP BY ALL",
    "SELECT num FROM t WHERE EXISTS (SELECT count(*) OVER () FROM u WHERE u.num = t.num GROUP BY ALL) AND 1 = 1",
])
def test_using_keys_and_group_by_all_as_spark(spark, tables, sql):
    _agrees(spark, tables, sql)


def test_in_of_a_parenthesized_subquery_is_left_to_spark(spark, tables):
    # Spark reads `IN ((SELECT ...))` as a list holding one scalar subquery: more than one
    # row is an error there, where `IN (SELECT ...)` is a semi-join
    sql = "SELECT * FROM t WHERE num IN ((SELECT num FROM u)) AND 1 = 1"
    from tests.spark_check import run_or_error

    assert run_or_error(spark, sql)[0] == "error"
    result = optimize(sql, tables)
    assert result.passthrough and result.sql == sql


# A SELECT without FROM whose select list has one generator of constants reads nothing:
# it is a relation (as explode(...) in a FROM clause is), its text the block as written
GENERATOR_SELECTS = [
    "SELECT t.s, g.v FROM t CROSS JOIN (SELECT explode(array(1, 2)) AS v) AS g WHERE g.v = NULL OR t.num > 1",
    "SELECT t.num FROM t LEFT JOIN (SELECT explode(array(1, 1)) AS v) AS g ON t.num = g.v WHERE 1 = 1",
    "SELECT c, n, w FROM (SELECT 'a' AS c, stack(3, 1, 'x', 2, NULL, 3) AS (n, w)) AS q WHERE 1 = 1 AND q.n > 1",
    "SELECT * FROM (SELECT 1 + 1, stack(2, 1.5, CAST(NULL AS DECIMAL(2, 1)))) WHERE NULL IS NULL",
    "SELECT p, c FROM (SELECT posexplode(array(10, NULL, 30)) AS (p, c)) WHERE c IS NOT NULL AND 1 = 1",
    "SELECT key, value FROM (SELECT explode(map('a', 1, 'b', 2))) WHERE NULL IS NULL AND value > 1",
]


@pytest.mark.parametrize("sql", GENERATOR_SELECTS)
def test_a_constant_generator_select_is_a_relation(spark, tables, sql):
    result = _agrees_as_lowered(spark, tables, sql)
    assert result.trace, "the rest of the query was optimized"


@pytest.mark.parametrize("sql, reason", [
    ("SELECT * FROM (SELECT stack(2, 1, 2L)) WHERE 1 = 1", "several types"),  # STACK_COLUMN_DIFF_TYPES
    ("SELECT * FROM (SELECT explode(array(1)) AS (a, b)) WHERE 1 = 1", "name each"),  # UDTF_ALIAS_NUMBER_MISMATCH
    ("SELECT * FROM (SELECT 1 AS a, explode(array(a))) WHERE 1 = 1", "reading columns"),
    ("SELECT * FROM (SELECT explode(array(1)), explode(array(2)) AS b) WHERE 1 = 1", "generator"),
])
def test_other_generator_selects_pass_through(spark, tables, sql, reason):
    result = optimize(sql, tables)
    assert result.passthrough and reason in result.passthrough, result.passthrough
    assert result.sql == sql


# `*` over a PIVOT inside a query: the input's columns the PIVOT does not read, then one
# column per value, of the aggregate's type (one aggregate, string values)
PIVOT_STARS = [
    "SELECT q.a, q.b FROM (SELECT * FROM (SELECT num, s FROM t) PIVOT (sum(num) FOR s IN ('a', 'b'))) AS q "
    "WHERE 1 = 1",
    "SELECT * FROM (SELECT * FROM (SELECT p, num, s FROM t) PIVOT (count(num) FOR s IN ('a' AS aa, 'b'))) AS q "
    "WHERE q.p IS NOT NULL OR NULL",
    "SELECT q.*, u.y FROM (SELECT * FROM t PIVOT (max(x) FOR s IN ('a', 'c'))) AS q JOIN u ON q.num = u.num "
    "WHERE NULL IS NULL",
]


@pytest.mark.parametrize("sql", PIVOT_STARS)
def test_star_over_a_pivot_inside_a_query(spark, tables, sql):
    result = _agrees_as_lowered(spark, tables, sql)
    assert result.trace, "the rest of the query was optimized"


@pytest.mark.parametrize("sql", [
    # two aggregates (names like a_sum(num)), and a non-string key: not modelled
    "SELECT * FROM (SELECT * FROM (SELECT num, s FROM t) PIVOT (sum(num), max(num) FOR s IN ('a'))) WHERE 1 = 1",
    "SELECT * FROM (SELECT * FROM (SELECT num, b FROM t) PIVOT (sum(b) FOR num IN (1, 2))) WHERE 1 = 1",
])
def test_other_stars_over_a_pivot_pass_through(tables, sql):
    result = optimize(sql, tables)
    assert result.passthrough and "PIVOT" in result.passthrough, result.passthrough


@pytest.mark.parametrize("sql", RECURSIVE_CTES + SAMPLED_TABLES + GENERATOR_SELECTS + PIVOT_STARS)
def test_the_new_opaque_relations_agree_outside_ansi(spark, tables, sql):
    from sparkfold.plans.sql_in.catalog import Catalog

    old = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", "false")
    try:
        result = _agrees_as_lowered(spark, Catalog.from_mapping(tables, ansi=False), sql)
        assert result.trace, "the rest of the query was optimized"
    finally:
        spark.conf.set("spark.sql.ansi.enabled", old)


@pytest.mark.parametrize("sql", [
    # a lambda that reads the query's columns stays in place, those columns bound like
    # any argument, and the rest of the query is optimized (unnest_subqueries:61/62/64)
    "SELECT t.num FROM t WHERE exists(array(t.num, t.b), e -> e > t.num) OR t.s = NULL",
    "SELECT t.num FROM t WHERE aggregate(array(num, 2), 0, (acc, e) -> acc + e * num) > 3 AND 1 = 1",
    "SELECT t.num FROM t LEFT JOIN (SELECT num, collect_list(y) AS ys FROM u GROUP BY num) q ON q.num = t.num "
    "WHERE NOT q.num IS NULL AND (size(q.ys) = 0 OR size(filter(q.ys, _x -> _x <> t.b)) = 0)",
    "SELECT num FROM t WHERE exists(array(1, 2), e -> exists(array(num), f -> f + e > num)) AND 1 = 1",
])
def test_a_lambda_reading_query_columns_is_kept_in_place(spark, tables, sql):
    _agrees_as_lowered(spark, tables, sql)


@pytest.mark.parametrize("sql", [
    # a lambda variable named as a table (or column) would capture the reference the
    # rewritten query writes for that table's column (`t.num` read as the variable's field)
    "SELECT t.num FROM t WHERE exists(array(1), t -> t = num) AND 1 = 1",
    "SELECT t.num FROM t WHERE exists(array(1), s -> s = num) AND 1 = 1",
    "SELECT t.num FROM t WHERE exists(array(1), _q -> _q = num) AND 1 = 1",
    # ... or as an enclosing query's table, whose column it reads (correlated)
    "SELECT num FROM t WHERE EXISTS (SELECT 1 FROM u WHERE exists(array(u.y), t -> t > x)) AND 1 = 1",
])
def test_a_lambda_variable_that_could_capture_a_reference_passes_through(spark, tables, sql):
    result = optimize(sql, tables)
    assert result.passthrough and "lambda" in result.passthrough
