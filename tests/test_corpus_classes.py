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


def test_a_hint_inside_passes_the_query_through(tables):
    result = optimize("SELECT * FROM (SELECT /*+ BROADCAST(u) */ t.s FROM t JOIN u ON t.num = u.num) q "
                      "WHERE 1 = 1", tables)
    assert result.passthrough and "hint" in result.passthrough


@pytest.mark.parametrize("sql", [
    "SELECT * EXCEPT (x) FROM t WHERE s = NULL OR num > 3",
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


def test_star_except_of_every_column_passes_through(spark, tables):
    result = optimize("SELECT * EXCEPT (k, v) FROM n WHERE 1 = 1", tables)
    assert result.passthrough  # Spark returns rows with no column; the writer cannot say that


def test_with_recursive_without_recursion_is_an_ordinary_with(spark, tables):
    _agrees(spark, tables, "WITH RECURSIVE a(c, d) AS (SELECT num, x FROM t), b AS (SELECT c FROM a) "
                           "SELECT c FROM b WHERE c = NULL OR c > 2")
    result = optimize("WITH RECURSIVE r(c) AS (SELECT 1 UNION ALL SELECT c + 1 FROM r WHERE c < 3) "
                      "SELECT c FROM r WHERE 1 = 1", tables)
    assert result.passthrough == "recursive CTE"


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
    # dropping the join would hide the division's error
    "SELECT t.s FROM t LEFT JOIN (SELECT num, 1 / 0 AS z FROM u GROUP BY num) v ON t.num = v.num",
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
