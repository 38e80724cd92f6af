"""BooleanSimplification: three-valued identities, evaluation order kept; on Spark."""

from __future__ import annotations

from sparkfold.plans.ir import expressions as E
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

BS = rule("BooleanSimplification")
RAND_GT = E.GreaterThan(E.Opaque(None, (), T.DOUBLE, "scalar", "rand()"), lit(0.5))


def b(name: str, nullable: bool = True) -> E.Attribute:
    return col(name, T.BOOLEAN, nullable)


def raising() -> E.Expr:
    return E.GreaterThan(E.Divide(lit(1), col("a")), lit(1.0))


# -- identity and annihilation ------------------------------------------------------------


def test_true_and_e_is_e():
    e = b("e")
    assert_rewrites(BS, E.And(E.TRUE, e), e)
    assert_rewrites(BS, E.And(e, E.TRUE), e)


def test_false_or_e_is_e():
    e = b("e")
    assert_rewrites(BS, E.Or(E.FALSE, e), e)
    assert_rewrites(BS, E.Or(e, E.FALSE), e)


def test_true_and_null_keeps_boolean_type():
    assert_rewrites(BS, E.And(E.TRUE, null()), E.NULL_BOOL)


def test_false_and_e_is_false_even_if_e_raises():
    # Spark never evaluates e after FALSE AND
    assert_rewrites(BS, E.And(E.FALSE, raising()), E.FALSE)


def test_e_and_false_is_false_for_droppable_e():
    assert_rewrites(BS, E.And(b("e"), E.FALSE), E.FALSE)


def test_raising_e_and_false_is_kept():
    assert_unchanged(BS, E.And(raising(), E.FALSE))


def test_non_deterministic_e_and_false_is_kept():
    assert_unchanged(BS, E.And(RAND_GT, E.FALSE))


def test_true_or_e_is_true():
    assert_rewrites(BS, E.Or(E.TRUE, raising()), E.TRUE)
    assert_rewrites(BS, E.Or(b("e"), E.TRUE), E.TRUE)


def test_raising_e_or_true_is_kept():
    assert_unchanged(BS, E.Or(raising(), E.TRUE))


def test_null_and_e_is_kept():
    # NULL AND e is FALSE or NULL depending on e
    assert_unchanged(BS, E.And(E.NULL_BOOL, b("e")))


# -- idempotence, complement, absorption --------------------------------------------------


def test_a_and_a_is_a():
    a = E.LessThan(lit(1), col("a"))
    assert_rewrites(BS, E.And(a, a), a)


def test_non_deterministic_a_and_a_is_kept():
    assert_unchanged(BS, E.And(RAND_GT, RAND_GT))


def test_complement_and_of_non_nullable_is_false():
    e = b("e", nullable=False)
    assert_rewrites(BS, E.And(e, E.Not(e)), E.FALSE)


def test_complement_or_of_non_nullable_is_true():
    e = b("e", nullable=False)
    assert_rewrites(BS, E.Or(E.Not(e), e), E.TRUE)


def test_complement_of_flipped_comparison_is_false():
    a = col("a", nullable=False)
    assert_rewrites(BS, E.And(E.LessThan(a, lit(1)), E.GreaterThanOrEqual(a, lit(1))), E.FALSE)


def test_complement_not_applied_to_nullable():
    e = b("e")
    assert_unchanged(BS, E.And(e, E.Not(e)))
    assert_unchanged(BS, E.Or(e, E.Not(e)))


def test_absorption_of_non_nullable():
    e, f = b("e", nullable=False), b("f")
    assert_rewrites(BS, E.And(e, E.Or(E.Not(e), f)), E.And(e, f))
    assert_rewrites(BS, E.Or(e, E.And(E.Not(e), f)), E.Or(e, f))


def test_absorption_with_flipped_comparison():
    a, f = col("a", nullable=False), b("f")
    lt = E.LessThan(a, lit(1))
    assert_rewrites(BS, E.And(lt, E.Or(E.GreaterThanOrEqual(a, lit(1)), f)), E.And(lt, f))


def test_absorption_not_applied_to_nullable():
    e, f = b("e"), b("f")
    assert_unchanged(BS, E.And(e, E.Or(E.Not(e), f)))
    assert_unchanged(BS, E.Or(e, E.And(E.Not(e), f)))
    assert_unchanged(BS, E.And(E.Or(f, E.Not(e)), e))


def test_absorption_mirror_keeps_a_raising_operand_evaluated_first():
    # (c OR NOT e) AND e: c is evaluated before e; if c raises it must still raise
    e = b("e", nullable=False)
    assert_unchanged(BS, E.And(E.Or(raising(), E.Not(e)), e))


def test_absorption_mirror_with_droppable_operand():
    e, f = b("e", nullable=False), b("f")
    assert_rewrites(BS, E.And(E.Or(f, E.Not(e)), e), E.And(e, f))


# -- common factors and duplicates -------------------------------------------------------


def test_common_disjunct_is_factored_out():
    a, c, d = col("a"), col("c"), col("d")
    a2 = E.LessThan(a, lit(2))
    before = E.And(E.Or(a2, E.GreaterThan(c, lit(3))), E.Or(a2, E.GreaterThan(d, lit(5))))
    after = E.Or(a2, E.And(E.GreaterThan(c, lit(3)), E.GreaterThan(d, lit(5))))
    assert_rewrites(BS, before, after)


def test_common_conjunct_absorbs_the_other_side():
    a, b_, c = col("a"), col("b"), col("c")
    a2 = E.LessThan(a, lit(2))
    before = E.Or(E.And(E.And(a2, E.GreaterThan(a, lit(3))), E.GreaterThan(b_, lit(5))), a2)
    assert_rewrites(BS, before, a2)


def test_duplicate_conjuncts_are_dropped():
    a, b_, c = col("a"), col("b"), col("c")
    a1 = E.GreaterThan(a, lit(1))
    before = E.And(E.And(E.And(a1, E.GreaterThan(b_, lit(2))), a1), E.And(a1, E.GreaterThan(c, lit(3))))
    after = E.And(E.And(a1, E.GreaterThan(b_, lit(2))), E.GreaterThan(c, lit(3)))
    assert_rewrites(BS, before, after)


def test_common_factor_with_raising_operand_is_kept():
    a2 = E.LessThan(col("a"), lit(2))
    assert_unchanged(BS, E.And(E.Or(a2, raising()), E.Or(a2, b("f"))))


# -- NOT -------------------------------------------------------------------------------------


def test_not_literal_flips():
    assert_rewrites(BS, E.Not(E.TRUE), E.FALSE)
    assert_rewrites(BS, E.Not(E.FALSE), E.TRUE)


def test_not_not_is_identity():
    e = b("e")
    assert_rewrites(BS, E.Not(E.Not(e)), e)


def test_not_over_comparison_flips_it():
    a, c = col("a"), col("c")
    assert_rewrites(BS, E.Not(E.GreaterThan(a, c)), E.LessThanOrEqual(a, c))
    assert_rewrites(BS, E.Not(E.LessThanOrEqual(a, c)), E.GreaterThan(a, c))


def test_not_over_equality_is_kept():
    assert_unchanged(BS, E.Not(E.EqualTo(col("a"), col("c"))))


def test_not_is_not_null_is_is_null():
    a = col("a")
    assert_rewrites(BS, E.Not(E.IsNotNull(a)), E.IsNull(a))


def test_de_morgan():
    e, f = b("e"), b("f")
    assert_rewrites(BS, E.Not(E.And(e, f)), E.Or(E.Not(e), E.Not(f)))
    assert_rewrites(BS, E.Not(E.Or(e, f)), E.And(E.Not(e), E.Not(f)))


def test_de_morgan_distributes_fully_in_one_pass():
    e, f, g = b("e"), b("f"), b("g")
    a = col("a")
    before = E.Not(E.And(e, E.Or(f, E.GreaterThan(a, lit(1)))))
    after = E.Or(E.Not(e), E.And(E.Not(f), E.LessThanOrEqual(a, lit(1))))
    assert_rewrites(BS, before, after)


def test_not_of_plain_attribute_is_kept():
    assert_unchanged(BS, E.Not(b("e")))


def test_long_or_chain_is_fine():
    a = col("a")
    chain = E.disjunction([E.EqualTo(a, lit(i)) for i in range(5000)])
    assert_unchanged(BS, chain)


# -- on Spark --------------------------------------------------------------------------------

SQL_CASES = [
    "SELECT num FROM t WHERE TRUE AND x > 1",
    "SELECT num FROM t WHERE x > 1 AND FALSE",
    "SELECT p AND TRUE, p OR FALSE, p AND NULL, NOT NOT p FROM t",
    "SELECT num FROM t WHERE (num < 2 OR x > 3) AND (num < 2 OR s = 'a')",
    "SELECT num FROM t WHERE (num < 2 AND x > 3 AND b > 5) OR num < 2",
    "SELECT num FROM t WHERE NOT (x > 1 AND s = 'a')",
    "SELECT num FROM t WHERE NOT (x > 1 OR x <= 1)",
    "SELECT NOT (x > 1), NOT (x <= 'NaN'), NOT (s IS NOT NULL) FROM t",
    "SELECT num FROM t WHERE num < 5 AND NOT (num < 5)",
    "SELECT num FROM t WHERE num < 5 OR num >= 5",
    "SELECT num FROM t WHERE num > 3 AND (num <= 3 OR p)",
    "SELECT x > 1 AND x > 1, (x < 1 OR p) AND (x < 1 OR s = 'b') FROM t",
]


def test_boolean_simplification_on_spark(spark, tables):
    for sql in SQL_CASES:
        assert_sql_rewrite(spark, tables, sql, "BooleanSimplification")


def test_complement_of_nullable_keeps_nulls_on_spark(spark, tables):
    # x > 1 is NULL for NULL x: x > 1 OR NOT (x > 1) must not become TRUE
    result = assert_sql_rewrite(spark, tables, "SELECT (x > 1) OR NOT (x > 1) FROM t",
                                "BooleanSimplification")
    assert "TRUE" not in result.sql.upper().split("AS")[0]
