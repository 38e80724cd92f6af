"""Verification (optimizer/verify.py): the original SQL against the optimized SQL and the
lowered DataFrame on Spark.  Deliberately wrong rules must be caught, with the rows."""

from __future__ import annotations

import json
import math
from decimal import Decimal

import pytest
from sparkfold.optimizer import optimize
from sparkfold.optimizer.verify import (
    EXCLUDED_RULES_KEY,
    Ordering,
    catalyst_rule_classes,
    compare_dataframes,
    excluded_rules,
    schema_of,
    verify,
    verify_many,
)
from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import logical as L
from sparkfold.rules.base import Rule, transform_expressions, transform_plan


@pytest.fixture(scope="module", autouse=True)
def fast_small_jobs(spark, tables):
    """Tiny data: interpreted evaluation, one shuffle partition and cached tables (the
    views are Python-made RDDs, which every scan would convert again) run much faster.
    Cached batches are not pruned by their column statistics: Spark 4.3 prunes wrongly
    for NaN (`x = 'NaN'` on a cached table loses the NaN rows)."""
    from tests.test_verify_random import register_extra_tables

    names = list(tables) + list(register_extra_tables(spark))
    keys = {"spark.sql.codegen.wholeStage": "false", "spark.sql.codegen.factoryMode": "NO_CODEGEN",
            "spark.sql.shuffle.partitions": "1", "spark.sql.inMemoryColumnarStorage.partitionPruning": "false"}
    old = {k: spark.conf.get(k, None) for k in keys}
    for k, v in keys.items():
        spark.conf.set(k, v)
    for name in names:
        spark.catalog.cacheTable(name)
    yield
    for name in names:
        spark.catalog.uncacheTable(name)
    for k, v in old.items():
        spark.conf.unset(k) if v is None else spark.conf.set(k, v)


# -- deliberately wrong rules ------------------------------------------------------------


def _flip(plan, ctx):
    """WRONG: x > y rewritten to x <= y."""
    return transform_expressions(plan, lambda e: E.LessThanOrEqual(e.left, e.right)
                                 if isinstance(e, E.GreaterThan) else e)


FLIP_COMPARISON = Rule("FlipComparison", _flip)


def _not_in_as_not_exists(plan, ctx):
    """WRONG: `v NOT IN (SELECT c ...)` as `NOT EXISTS (SELECT ... WHERE c = v)`, which
    forgets that a NULL on either side makes NOT IN unknown."""
    def fix(e):
        match e:
            case E.Not(E.InSubquery((v,), sub)) if len(sub.output) == 1:
                return E.Not(E.Exists(L.Filter(E.EqualTo(sub.output[0], v), sub)))
            case _:
                return e
    return transform_expressions(plan, fix)


NOT_IN_AS_NOT_EXISTS = Rule("NotInAsNotExists", _not_in_as_not_exists)


def _drop_filters(plan, ctx):
    """WRONG: drops every filter (and with it any error the filter raises)."""
    return transform_plan(plan, lambda p: p.child if isinstance(p, L.Filter) else p)


DROP_FILTERS = Rule("DropFilters", _drop_filters)


def _reverse_sort(plan, ctx):
    """WRONG: sorts descending (idempotent, so the rule engine reaches a fixed point)."""
    def fix(p):
        if isinstance(p, L.Sort) and any(o.ascending for o in p.orders):
            return L.Sort(tuple(E.SortOrder(o.child, False, False) for o in p.orders), p.child)
        return p
    return transform_plan(plan, fix)


REVERSE_SORT = Rule("ReverseSort", _reverse_sort)


# -- reports ------------------------------------------------------------------------------


def test_equal_query_gives_a_complete_report(spark, tables):
    report = optimize("SELECT s, count(*) AS c, sum(x) AS sx FROM t WHERE num > 2 GROUP BY s", tables,
                      always_regenerate=True).verify(spark)
    assert report.equal
    assert [s.name for s in report.candidates] == ["optimized SQL", "DataFrame"]
    assert report.reference.schema == [("s", "string"), ("c", "bigint not null"), ("sx", "double")]
    assert all(s.schema == report.reference.schema for s in report.candidates)
    assert report.reference.rows == 7 and all(s.rows == 7 for s in report.candidates)
    assert all(c.method == "fingerprint" for c in report.comparisons)
    assert report.reference.seconds > 0 and report.speedup("DataFrame") > 0
    text = report.to_text()
    assert text.startswith("verification: EQUAL") and "the reference's speed" in text
    data = json.loads(json.dumps(report.to_dict()))
    assert data["equal"] is True and data["candidates"][1]["text"].startswith("# sparkfold")


def test_flipped_comparison_is_caught_with_differing_rows(spark, tables):
    result = optimize("SELECT num, s FROM t WHERE num > 7", tables, rules=[FLIP_COMPARISON])
    assert "<=" in result.sql
    report = result.verify(spark)
    assert not report.equal
    for comp in report.comparisons:
        assert not comp.equal and comp.schema_equal
        assert sorted(comp.only_in_reference) == [(8, "b"), (9, None), (10, "d")]
        assert (1, "a") in comp.only_in_candidate
    text = report.to_text()
    assert "DIFFERENT" in text and "only in reference" in text and "(8, 'b')" in text


def test_not_in_rewritten_as_not_exists_is_caught(spark, tables):
    # u.num holds a NULL, so NOT IN returns nothing; NOT EXISTS returns rows
    sql = "SELECT num FROM t WHERE num NOT IN (SELECT num FROM u)"
    assert optimize(sql, tables).verify(spark).equal
    report = optimize(sql, tables, rules=[NOT_IN_AS_NOT_EXISTS]).verify(spark)
    assert not report.equal
    assert report.reference.rows == 0
    assert all(c.only_in_candidate and not c.only_in_reference for c in report.comparisons)


def test_verify_many_untimed_agrees_with_one_job_per_side(spark, tables):
    """timed=False fingerprints all references in one Spark job and all candidates in
    another; a side that raises fails its job, is run again alone and keeps its own error."""
    sqls = ["SELECT num FROM t WHERE x > 1", "SELECT s, max(num) AS m FROM t GROUP BY s ORDER BY s",
            "SELECT num FROM t WHERE s = 1", "SELECT t.num, u.y FROM t FULL JOIN u ON t.num = u.num"]
    results = [optimize(q, tables, always_regenerate=True) for q in sqls] \
        + [optimize(sqls[0], tables, rules=[FLIP_COMPARISON])]
    batched = verify_many(results, spark, timed=False)
    alone = verify_many(results, spark)
    assert [r.equal for r in batched] == [r.equal for r in alone] == [True, True, True, True, False]
    for a, b in zip(batched, alone):
        assert (a.reference.fingerprint, a.reference.error) == (b.reference.fingerprint, b.reference.error)
        assert [(s.fingerprint, s.error) for s in a.candidates] == [(s.fingerprint, s.error) for s in b.candidates]
    assert batched[2].reference.error == "CAST_INVALID_INPUT"


def test_an_error_is_a_result_both_ways(spark, tables):
    # under ANSI the cast of 'a' to a number raises
    sql = "SELECT num FROM t WHERE s = 1"
    report = optimize(sql, tables, always_regenerate=True).verify(spark)
    assert report.equal and report.reference.error == "CAST_INVALID_INPUT"
    assert all(s.error == "CAST_INVALID_INPUT" for s in report.candidates)
    wrong = optimize(sql, tables, rules=[DROP_FILTERS]).verify(spark)
    assert not wrong.equal
    assert all("the reference raises CAST_INVALID_INPUT but the candidate does not" in c.detail
               for c in wrong.comparisons)


def test_wrong_order_is_caught_on_the_driver_and_in_spark(spark, tables):
    sql = "SELECT num, x FROM t ORDER BY num"
    assert optimize(sql, tables).verify(spark).equal
    result = optimize(sql, tables, rules=[REVERSE_SORT])
    small = result.verify(spark)
    assert not small.equal and small.ordered
    assert all(c.method == "rows on the driver, in order" for c in small.comparisons)
    # more rows than may be collected: the multisets agree, the order check in Spark does not
    large = result.verify(spark, collect_limit=3)
    assert not large.equal
    assert all(c.method == "exceptAll in Spark" and "out of ORDER BY order" in c.detail
               for c in large.comparisons)


def test_order_by_result_larger_than_collect_limit_is_checked_in_spark(spark, tables):
    report = optimize("SELECT num, x FROM t ORDER BY x DESC NULLS FIRST, num", tables,
                      always_regenerate=True).verify(spark, collect_limit=2)
    assert report.equal
    assert all(c.method == "fingerprint, in order" for c in report.comparisons)


def test_original_text_returned_unchanged_is_not_run_again(spark, tables):
    result = optimize("SELECT num, s FROM t", tables)
    assert result.sql == result.original_sql
    report = result.verify(spark)
    assert report.equal
    sql = report.comparison("optimized SQL")
    assert sql.method == "same text as the original" and report.candidates[0].seconds is None
    assert report.comparison("DataFrame").method == "fingerprint"
    assert "not run: the same text as the original" in report.to_text()


def test_verify_many_agrees_with_verify(spark, tables):
    sqls = ["SELECT num FROM t WHERE x > 1", "SELECT s, max(num) AS m FROM t GROUP BY s ORDER BY s",
            "SELECT num FROM t WHERE s = 1", "SELECT t.num, u.y FROM t FULL JOIN u ON t.num = u.num"]
    results = [optimize(q, tables) for q in sqls] + [optimize(sqls[0], tables, rules=[FLIP_COMPARISON])]
    many = verify_many(results, spark)
    one = [verify(r, spark) for r in results]
    assert [r.equal for r in many] == [r.equal for r in one] == [True, True, True, True, False]
    for a, b in zip(many, one):
        assert a.reference.fingerprint == b.reference.fingerprint
        assert [s.fingerprint for s in a.candidates] == [s.fingerprint for s in b.candidates]


def test_tables_are_registered_from_dataframes_and_paths(spark, tmp_path):
    df = spark.createDataFrame([(1, "a"), (2, None), (None, "c")], "k INT, v STRING")
    df.write.parquet(str(tmp_path / "kv.parquet"))
    schema = {"kv_df": {"k": "int", "v": "string"}, "kv_pq": {"k": "int", "v": "string"}}
    result = optimize("SELECT a.k, b.v FROM kv_df a JOIN kv_pq b ON a.k <=> b.k", schema)
    report = verify(result, spark, tables={"kv_df": df, "kv_pq": str(tmp_path / "kv.parquet")})
    assert report.equal and report.reference.rows == 3


# -- the reference's excluded rules ------------------------------------------------------------


def test_excluded_rules_are_set_for_the_reference_and_restored(spark, tables):
    assert spark.conf.get(EXCLUDED_RULES_KEY, None) is None
    with excluded_rules(spark, ["org.apache.spark.sql.catalyst.optimizer.NullPropagation"]):
        assert spark.conf.get(EXCLUDED_RULES_KEY) == "org.apache.spark.sql.catalyst.optimizer.NullPropagation"
    assert spark.conf.get(EXCLUDED_RULES_KEY, None) is None
    spark.conf.set(EXCLUDED_RULES_KEY, "org.apache.spark.sql.catalyst.optimizer.LikeSimplification")
    try:
        optimize("SELECT num FROM t", tables).verify(spark)
        assert spark.conf.get(EXCLUDED_RULES_KEY) == "org.apache.spark.sql.catalyst.optimizer.LikeSimplification"
    finally:
        spark.conf.unset(EXCLUDED_RULES_KEY)


def test_cached_tables_are_not_pruned_by_column_statistics(spark):
    # the fixture's guard: with pruning, Spark 4.3 drops NaN rows of a cached table
    assert spark.sql("SELECT count(*) FROM t WHERE x = 'NaN'").collect()[0][0] == 2


def test_catalyst_class_names():
    assert catalyst_rule_classes(["NullPropagation", "OptimizeSubqueries", "UpdateAttributeNullability",
                                  "(none)"]) == [
        "org.apache.spark.sql.catalyst.optimizer.NullPropagation",
        "org.apache.spark.sql.catalyst.optimizer.Optimizer$OptimizeSubqueries",
    ]  # never UpdateAttributeNullability: without it Spark returns wrong rows


def test_reference_needing_spark_rules_falls_back_to_the_whole_optimizer(spark, tables):
    # without ConstantFolding Spark fails on the frame bound `1 PRECEDING` (INTERNAL_ERROR)
    sql = "SELECT num, sum(num) OVER (ORDER BY num ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS w FROM t"
    report = verify(optimize(sql, tables), spark,
                    exclude_rules=["org.apache.spark.sql.catalyst.optimizer.ConstantFolding"])
    assert report.equal and report.reference.error is None
    assert report.excluded_rules == [] and any("whole optimizer" in n for n in report.notes)


# -- comparing rows: Spark's equality, tolerance, ties ----------------------------------------------


def _df(spark, rows, schema="a DOUBLE, b STRING"):
    return spark.createDataFrame(rows, schema)


def test_rows_compare_with_sparks_equality(spark):
    nan = math.nan
    ref = _df(spark, [(nan, "x"), (-0.0, None), (None, "y"), (1.0, "z")])
    same = _df(spark, [(1.0, "z"), (0.0, None), (float("nan"), "x"), (None, "y")])
    comp = compare_dataframes(ref, same, spark)
    assert comp.equal and comp.method == "fingerprint"
    other = _df(spark, [(1.0, "z"), (0.0, None), (nan, "x"), (0.0, "y")])  # NULL is not 0
    assert not compare_dataframes(ref, other, spark).equal


def test_doubles_within_relative_tolerance_are_equal(spark):
    ref = _df(spark, [(1.0, "a"), (3.0e10, "b")])
    close = _df(spark, [(1.0 + 1e-13, "a"), (3.0e10 * (1 + 1e-13), "b")])
    assert compare_dataframes(ref, close, spark).equal
    # straddling a rounding boundary of the fingerprint: the rows decide, within tolerance
    edge = _df(spark, [(1.0000000150001, "a")])   # rounds to 1.00000002
    edge2 = _df(spark, [(1.0000000149999, "a")])  # rounds to 1.00000001
    comp = compare_dataframes(edge, edge2, spark)
    assert comp.equal and comp.method == "rows on the driver"
    far = _df(spark, [(1.0001, "a"), (3.0e10, "b")])
    assert not compare_dataframes(ref, far, spark).equal


def test_large_results_with_doubles_off_in_the_last_bits_match_rounded_in_spark(spark):
    # more rows than may be collected, every double a little off (as a sum over partitions
    # in another order is): the exact fingerprints differ, the rounded ones agree
    ref = spark.range(3000).selectExpr("id", "id * 0.1D AS x")
    close = spark.range(3000).selectExpr("id", "id * 0.1D * (1.0D + 1e-13D) AS x")
    comp = compare_dataframes(ref, close, spark, collect_limit=100)
    assert comp.equal and comp.method == "fingerprint, doubles to 9 digits"
    far = spark.range(3000).selectExpr("id", "IF(id = 2999, 0.5D, id * 0.1D) AS x")
    comp = compare_dataframes(ref, far, spark, collect_limit=100)
    assert not comp.equal and comp.only_in_reference == [(2999, 299.90000000000003)]


def test_decimals_and_duplicates(spark):
    ref = spark.createDataFrame([(Decimal("1.50"),), (Decimal("1.50"),), (None,)], "d DECIMAL(5,2)")
    once = spark.createDataFrame([(Decimal("1.50"),), (None,)], "d DECIMAL(5,2)")
    comp = compare_dataframes(ref, once, spark)
    assert not comp.equal and comp.only_in_reference == [(Decimal("1.50"),)]


def test_schema_difference_is_reported(spark):
    comp = compare_dataframes(spark.createDataFrame([(1,)], "a INT"), spark.createDataFrame([(1,)], "a BIGINT"), spark)
    assert not comp.equal and comp.schema_equal is False and comp.rows_equal
    assert comp.schema_differences == ["column 1 `a`: type int in the reference, bigint in the candidate"]
    assert not comp.nullability_only


def test_nullability_is_part_of_the_schema(spark):
    """The same rows, names and types, but a column NOT NULL on one side only: different,
    and the report says where, at the top of a column and inside a nested type."""
    from pyspark.sql import types as ST

    rows = [(1, [1, 2], {"k": 1.5}, (1, "a"))]

    def frame(not_null: str):
        schema = ST.StructType([
            ST.StructField("a", ST.IntegerType(), not_null != "a"),
            ST.StructField("arr", ST.ArrayType(ST.IntegerType(), not_null != "element"), True),
            ST.StructField("m", ST.MapType(ST.StringType(), ST.DoubleType(), not_null != "value"), True),
            ST.StructField("st", ST.StructType([ST.StructField("f", ST.IntegerType(), not_null != "field"),
                                                ST.StructField("g", ST.StringType(), True)]), True)])
        return spark.createDataFrame(rows, schema)

    reference = frame("")
    assert schema_of(reference) == [("a", "int"), ("arr", "array<int>"), ("m", "map<string,double>"),
                                    ("st", "struct<f:int,g:string>")]
    assert schema_of(frame("a"))[0] == ("a", "int not null")
    expected = {
        "a": "column 1 `a`: nullable in the reference, NOT NULL in the candidate",
        "element": "column 2 `arr`: nullability differs inside the type: array<int> in the reference, "
                   "array<int not null> in the candidate",
        "value": "column 3 `m`: nullability differs inside the type: map<string,double> in the reference, "
                 "map<string,double not null> in the candidate",
        "field": "column 4 `st`: nullability differs inside the type: struct<f:int,g:string> in the reference, "
                 "struct<f:int not null,g:string> in the candidate",
    }
    for where, line in expected.items():
        comp = compare_dataframes(reference, frame(where), spark)
        assert not comp.equal and comp.schema_equal is False and comp.rows_equal, where
        assert comp.nullability_only and comp.schema_differences == [line], where
        assert comp.detail == "schemas differ in nullability only"
    assert compare_dataframes(reference, frame(""), spark).equal


def test_ties_on_sort_keys_and_at_a_limit(spark):
    ref = _df(spark, [(1.0, "a"), (2.0, "b"), (2.0, "c")])
    swapped = _df(spark, [(1.0, "a"), (2.0, "c"), (2.0, "b")])
    order = Ordering(True, [0], [True], [True], True)
    assert compare_dataframes(ref, swapped, spark, order=order).equal
    other_tie = _df(spark, [(1.0, "a"), (2.0, "b"), (2.0, "d")])
    assert not compare_dataframes(ref, other_tie, spark, order=order).equal
    limited = Ordering(True, [0], [True], [True], True, limit=True)
    assert compare_dataframes(ref, other_tie, spark, order=limited).equal
    moved = _df(spark, [(2.0, "b"), (1.0, "a"), (2.0, "c")])
    assert not compare_dataframes(ref, moved, spark, order=limited).equal


def test_large_difference_is_computed_in_spark_with_a_sample(spark):
    comp = compare_dataframes(spark.range(100), spark.range(1, 101), spark, collect_limit=5, sample=3)
    assert not comp.equal and comp.method == "exceptAll in Spark"
    assert comp.only_in_reference == [(0,)] and comp.only_in_candidate == [(100,)]
    comp = compare_dataframes(spark.range(100), spark.range(99, -1, -1), spark, collect_limit=5)
    assert comp.equal and comp.method == "fingerprint"


def test_a_spark_error_wrapped_in_a_jvm_one_keeps_its_class():
    # a DIVIDE_BY_ZERO raised inside a broadcast reaches Python as an ExecutionException
    from sparkfold.optimizer.verify import _error_of

    wrapped = Exception("An error occurred while calling o1.collectToPython.\n: java.util.concurrent."
                        "ExecutionException: org.apache.spark.SparkArithmeticException: [DIVIDE_BY_ZERO] "
                        "Division by zero.")
    assert _error_of(wrapped)[0] == "DIVIDE_BY_ZERO"
    assert _error_of(Exception("no class here"))[0] == "Exception"


def test_a_jvm_failure_without_an_error_class_is_named_by_its_java_class(spark):
    # found by the fuzzer: Spark failing inside itself (`key not found`) reached the report as
    # "Py4JJavaError: An error occurred while calling o18765.collectToPython."
    from sparkfold.optimizer.verify import _error_of, spark_internal_failure

    with pytest.raises(Exception) as info:
        spark.sparkContext._jvm.java.util.ArrayList().get(5)
    error, message = _error_of(info.value)
    assert error == "java.lang.IndexOutOfBoundsException"
    assert "5" in message and "An error occurred while calling" not in message
    assert spark_internal_failure(error) and spark_internal_failure("INTERNAL_ERROR_ATTRIBUTE_NOT_SUPPORTED")
    assert spark_internal_failure("MISSING_ATTRIBUTES.RESOLVED_ATTRIBUTE_APPEAR_IN_OPERATION")
    assert not spark_internal_failure("DIVIDE_BY_ZERO") and not spark_internal_failure(None)
