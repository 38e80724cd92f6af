"""ReplaceNullWithFalseInPredicate: only where NULL acts as FALSE, with a null context
that NOT flips; never in a SELECT value; on Spark."""

from __future__ import annotations

from sparkfold.plans.ir import expressions as E
from sparkfold.plans.ir import logical as L
from sparkfold.plans.ir import types as T

from tests.rule_helpers import (
    assert_rewrites,
    assert_sql_rewrite,
    assert_unchanged,
    col,
    lit,
    null,
    rule,
)

RN = rule("ReplaceNullWithFalseInPredicate")


def b(name="b"):
    return col(name, T.BOOLEAN)


def raising():
    return E.GreaterThan(E.Divide(lit(1), col("i")), lit(1.0))


def test_null_condition_is_false():
    assert_rewrites(RN, E.NULL_BOOL, E.FALSE, where=True)
    assert_rewrites(RN, null(), E.FALSE, where=True)


def test_or_null_in_filter():
    x = b()
    assert_rewrites(RN, E.Or(x, E.NULL_BOOL), E.Or(x, E.FALSE), where=True)


def test_and_null_in_filter():
    x = b()
    assert_rewrites(RN, E.And(x, E.NULL_BOOL), E.And(x, E.FALSE), where=True)


def test_null_and_raising_right_operand_is_kept():
    # NULL AND e evaluates e; FALSE AND e would not: the error must survive
    assert_unchanged(RN, E.And(E.NULL_BOOL, raising()), where=True)


def test_null_and_droppable_right_operand_is_false():
    x = b()
    assert_rewrites(RN, E.And(E.NULL_BOOL, x), E.And(E.FALSE, x), where=True)


def test_if_branches_in_filter():
    i = col("i")
    c = E.GreaterThan(i, lit(10))
    assert_rewrites(RN, E.If(c, E.FALSE, null()), E.If(c, E.FALSE, E.FALSE), where=True)


def test_case_without_else_gets_false_in_filter():
    i = col("i")
    c1, c2 = E.LessThan(i, lit(10)), E.GreaterThan(i, lit(40))
    before = E.CaseWhen(((c1, E.TRUE), (c2, E.FALSE)), E.NULL_BOOL)
    assert_rewrites(RN, before, E.CaseWhen(((c1, E.TRUE), (c2, E.FALSE)), E.FALSE), where=True)
    assert_rewrites(RN, E.CaseWhen(((c1, E.TRUE),)), E.CaseWhen(((c1, E.TRUE),), E.FALSE), where=True)


def test_not_flips_the_context():
    # NOT (x AND NULL) in a WHERE: NULL inside counts as TRUE
    x = b()
    assert_rewrites(RN, E.Not(E.And(x, E.NULL_BOOL)), E.Not(E.And(x, E.TRUE)), where=True)


def test_not_in_list_with_null_is_false_in_filter():
    # SPARK-34692: NOT (i IN (1, 2, NULL)) is never TRUE
    i = col("i")
    assert_rewrites(RN, E.Not(E.In(i, (lit(1), lit(2), null()))), E.FALSE, where=True)
    assert_rewrites(RN, E.Not(E.In(null(T.INT), (lit(1), lit(2)))), E.FALSE, where=True)


def test_not_in_list_without_null_is_kept():
    assert_unchanged(RN, E.Not(E.In(col("i"), (lit(1), lit(2)))), where=True)


def test_in_list_with_null_without_not_is_kept():
    # i IN (1, NULL) is TRUE for i = 1
    assert_unchanged(RN, E.In(col("i"), (lit(1), null())), where=True)


def test_null_under_comparison_is_kept():
    # 5 > IF(i = 15, NULL, 3): the NULL is an int, not a predicate
    i = col("i")
    cond = E.GreaterThan(lit(5), E.If(E.EqualTo(i, lit(15)), null(T.INT), lit(3)))
    assert_unchanged(RN, cond, where=True)


def test_boolean_case_under_equality_is_kept():
    x, i, d = b(), col("i"), col("d")
    case = E.CaseWhen(((E.GreaterThan(d, i), E.NULL_BOOL), (E.EqualTo(d, i), E.TRUE)), E.FALSE)
    assert_unchanged(RN, E.EqualTo(x, case), where=True)


def test_select_value_is_kept():
    # NOT (1 IN (2, NULL)) is NULL as a value
    assert_unchanged(RN, E.Not(E.In(lit(1), (lit(2), null()))))
    assert_unchanged(RN, E.Or(b(), E.NULL_BOOL))


def test_if_predicate_in_select_value():
    i = col("i")
    before = E.If(E.And(E.GreaterThan(i, lit(0)), E.NULL_BOOL), lit(5), lit(1))
    after = E.If(E.And(E.GreaterThan(i, lit(0)), E.FALSE), lit(5), lit(1))
    assert_rewrites(RN, before, after)


def test_case_condition_in_select_value():
    i = col("i")
    before = E.CaseWhen(((E.Or(E.GreaterThan(i, lit(0)), E.NULL_BOOL), lit(5)),), lit(2))
    after = E.CaseWhen(((E.Or(E.GreaterThan(i, lit(0)), E.FALSE), lit(5)),), lit(2))
    assert_rewrites(RN, before, after)


def test_null_safe_true_operand():
    x = b()
    assert_rewrites(RN, E.EqualNullSafe(E.Or(x, E.NULL_BOOL), E.TRUE),
                    E.EqualNullSafe(E.Or(x, E.FALSE), E.TRUE))


def test_join_condition():
    a, c = col("a"), col("c")
    left, right = L.Relation("l", (a,)), L.Relation("r", (c,))
    cond = E.And(E.EqualTo(a, c), E.NULL_BOOL)
    before = L.Join(left, right, L.LEFT_OUTER, cond)
    assert_rewrites(RN, before, L.Join(left, right, L.LEFT_OUTER, E.And(E.EqualTo(a, c), E.FALSE)))


def test_aggregate_filter():
    a = col("a")
    agg = E.Agg("count", (a,), False, E.Or(E.GreaterThan(a, lit(1)), E.NULL_BOOL))
    assert_rewrites(RN, agg, E.Agg("count", (a,), False, E.Or(E.GreaterThan(a, lit(1)), E.FALSE)))


def test_long_or_chain_in_filter():
    i = col("i")
    chain = E.disjunction([E.EqualTo(i, lit(n)) for n in range(5000)] + [E.NULL_BOOL])
    out = RN(L.Filter(chain, L.Relation("r", (i,))))
    assert out.condition.right == E.FALSE


def test_a_and_not_a_is_false_in_filter():
    # FALSE or NULL: FALSE where NULL counts as FALSE (found by the long fuzz run, world 5008:
    # Spark simplified the written `c IN (..) AND NOT c IN (..)` in a correlated count
    # subquery itself and then failed inside its optimizer, `key not found`)
    x = E.In(col("s", T.STRING), (lit("a"), lit("b")))
    assert_rewrites(RN, E.And(x, E.Not(x)), E.FALSE, where=True)
    assert_rewrites(RN, E.Not(E.Or(x, E.Not(x))), E.FALSE, where=True)


def test_a_and_not_a_is_kept_in_a_value_or_when_a_raises():
    x = E.In(col("s", T.STRING), (lit("a"),))
    assert_unchanged(RN, E.And(x, E.Not(x)), where=False)
    assert_unchanged(RN, E.And(raising(), E.Not(raising())), where=True)


# -- on Spark --------------------------------------------------------------------------------

SQL_CASES = [
    "SELECT num FROM t WHERE p OR NULL",
    "SELECT num FROM t WHERE p AND CAST(NULL AS BOOLEAN)",
    "SELECT num FROM t WHERE IF(num > 5, FALSE, NULL) OR x > 1",
    "SELECT num FROM t WHERE CASE WHEN num < 3 THEN TRUE WHEN num > 8 THEN FALSE END",
    "SELECT num FROM t WHERE NOT (num IN (1, 2, NULL))",
    "SELECT num FROM t WHERE NOT (p AND NULL)",
    "SELECT t.num, u.y FROM t LEFT JOIN u ON t.num = u.num AND (u.z > 0 OR NULL)",
    "SELECT t.num FROM t LEFT ANTI JOIN u ON t.num = u.num AND (u.s = 'a' OR NULL)",
    "SELECT IF(x > 1 AND NULL, 5, 1), CASE WHEN p OR NULL THEN 'y' ELSE 'n' END FROM t",
    "SELECT s, count(*) FROM t GROUP BY s HAVING count(*) > 1 OR NULL",
    "SELECT count(num) FILTER (WHERE x > 1 OR NULL) FROM t",
    "SELECT num FROM t WHERE s IN ('a', 'b') AND NOT (s IN ('a', 'b'))",
    "SELECT num FROM t WHERE NOT (x > 1 OR NOT (x > 1))",
    "SELECT u.num, (SELECT count(*) FROM t WHERE t.num = u.num AND (t.s IN ('a') AND NOT t.s IN ('a'))) FROM u",
]


def test_replace_null_with_false_on_spark(spark, tables):
    for sql in SQL_CASES:
        # NullPropagation turns CAST(NULL AS BOOLEAN) into a NULL literal first
        assert_sql_rewrite(spark, tables, sql, ["ReplaceNullWithFalseInPredicate", "NullPropagation"])


def test_select_value_keeps_null_on_spark(spark, tables):
    from sparkfold.optimizer import optimize

    result = optimize("SELECT NOT (num IN (1, NULL)), p OR NULL FROM t", tables, rules=[RN])
    assert not result.trace.rewrites


def _with_simplifications(condition):
    """Run the rule with the simplifications it is tested with in Catalyst's suite."""
    from sparkfold.optimizer.engine import Batch, FixedPoint, execute
    from sparkfold.rules.base import RuleContext

    names = ["NullPropagation", "ConstantFolding", "BooleanSimplification", "SimplifyConditionals",
             "ReplaceNullWithFalseInPredicate"]
    relation = L.Relation("r", tuple({id(a): a for a in condition.walk() if isinstance(a, E.Attribute)}.values()))
    plan, _ = execute(L.Filter(condition, relation), [Batch("b", FixedPoint(100), tuple(rule(n) for n in names))],
                      RuleContext())
    return plan.condition


def test_catalyst_cases_become_false_with_the_simplifications():
    i, x = col("i"), b()
    gt = E.GreaterThan(i, lit(10))
    assert _with_simplifications(E.If(gt, E.FALSE, E.NULL_BOOL)) == E.FALSE
    assert _with_simplifications(E.If(gt, E.And(E.TRUE, E.NULL_BOOL), E.And(x, E.NULL_BOOL))) == E.FALSE
    assert _with_simplifications(E.And(x, E.NULL_BOOL)) == E.FALSE
    assert _with_simplifications(E.Or(x, E.NULL_BOOL)) == x
    assert _with_simplifications(E.If(E.If(x, E.NULL_BOOL, E.FALSE), E.TRUE, E.NULL_BOOL)) == E.FALSE
    all_false = E.CaseWhen(((E.LessThan(i, lit(10)), E.FALSE), (E.GreaterThan(i, lit(40)), E.FALSE)))
    assert _with_simplifications(all_false) == E.FALSE
