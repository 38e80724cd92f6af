"""The optimized SQL reads like the input: the user's text with just the rewrites applied
(optimizer/splice.py).  Each case checks what a reviewer sees (the lines that change,
the CTEs, comments and layout that stay) and, on Spark, that the output returns what the
input returns; the check that guards the splice is shown refusing a wrong one."""

from __future__ import annotations

import difflib

import pytest
from sparkfold import optimize
from sparkfold.optimizer import splice
from sparkfold.plans.ir.dialect import DIALECT

from tests.data import STANDARD_SCHEMA
from tests.spark_check import assert_same_result


def _changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """(lines only in before, lines only in after)."""
    a, b = before.splitlines(), after.splitlines()
    gone, new = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            gone.extend(a[i1:i2])
            new.extend(b[j1:j2])
    return gone, new


# (input, the lines a reviewer sees removed, the lines added)
CASES = [
    pytest.param(
        """WITH big AS (
    -- orders above the threshold
    SELECT num, x FROM t WHERE num > 1 + 1
)
SELECT b.num, b.x
FROM big b
WHERE b.x IS NOT NULL""",
        ["    SELECT num, x FROM t WHERE num > 1 + 1"],
        ["    SELECT num, x FROM t WHERE num > 2"],
        id="cte-kept-comment-in-place"),
    pytest.param(
        """select num,
       s
from t
where num <> 3
  and coalesce(x, null) > 0
order by num""",
        ["  and coalesce(x, null) > 0"],
        ["  and x > 0"],
        id="operators-case-and-layout-kept"),
    pytest.param(
        """SELECT u.num, u.y
FROM t
LEFT JOIN u ON t.num = u.num
WHERE u.y > 0 AND t.s = 'a'""",
        ["SELECT u.num, u.y", "LEFT JOIN u ON t.num = u.num"],
        # (u.y is NOT NULL in its table: inner-joined it is NOT NULL, and it keeps the
        # original's nullable type: optimizer/output_nullability.py)
        ["SELECT u.num, IF(TRUE, u.y, NULL) AS y", "JOIN u ON t.num = u.num"],
        id="outer-join-made-inner"),
    pytest.param(
        """SELECT d.num, d.y
FROM t
LEFT JOIN (SELECT num, y FROM u WHERE y > 0) d ON t.num = d.num
WHERE d.y > 1""",
        ["SELECT d.num, d.y", "LEFT JOIN (SELECT num, y FROM u WHERE y > 0) d ON t.num = d.num"],
        ["SELECT d.num, IF(TRUE, d.y, NULL) AS y", "JOIN (SELECT num, y FROM u WHERE y > 0) d ON t.num = d.num"],
        # (the joined subquery's text starts at its parenthesis: the pure-Python parser's
        # span once started at its first column, and the splice found no JOIN before it)
        id="outer-join-over-a-subquery-made-inner"),
    pytest.param(
        """SELECT num, CASE WHEN p THEN 1 ELSE NULL END AS flag
FROM t
WHERE dt >= CAST('2000-01-01' AS DATE)""",
        # (`ELSE NULL` dropped only respells the CASE: the user's text stays)
        ["WHERE dt >= CAST('2000-01-01' AS DATE)"],
        ["WHERE dt >= DATE '2000-01-01'"],
        id="a-respelling-beside-a-rewrite"),
    pytest.param(
        """SELECT num, COALESCE(x, NULL, z) AS v
FROM t JOIN u USING (num)
WHERE x = NULL
   OR EXISTS (SELECT 1 FROM u uu WHERE uu.num = t.num)""",
        ["SELECT num, COALESCE(x, NULL, z) AS v", "WHERE x = NULL", "   OR EXISTS (SELECT 1 FROM u uu WHERE uu.num = t.num)"],
        # (the EXISTS, unchanged, keeps its text; COALESCE its spelling)
        ["SELECT num, COALESCE(x, z) AS v", "WHERE EXISTS (SELECT 1 FROM u uu WHERE uu.num = t.num)"],
        id="unchanged-parts-of-a-rewritten-piece-as-written"),
]


@pytest.mark.parametrize("sql, gone, new", CASES)
def test_only_the_rewritten_lines_change(spark, tables, sql, gone, new):
    result = optimize(sql, STANDARD_SCHEMA)
    assert result.changed, result.sql
    assert _changed_lines(sql, result.sql) == (gone, new), result.sql
    assert_same_result(spark, sql, result.sql, ordered="order by" in sql.lower())
    # the output is a fixed point, and the whole regenerated query is still at hand
    assert optimize(result.sql, STANDARD_SCHEMA).sql == result.sql
    assert result.regenerated_sql is not None and result.regenerated_sql != result.sql


def test_cte_read_twice_is_rewritten_once(spark, tables):
    sql = ("WITH c AS (SELECT num, x FROM t WHERE coalesce(num, 0) > 1)\n"
           "SELECT a.num, b.x FROM c a JOIN c b ON a.num = b.num")
    out = optimize(sql, STANDARD_SCHEMA).sql
    assert out == sql.replace("coalesce(num, 0) > 1", "num > 1")
    assert_same_result(spark, sql, out)


def test_same_expression_in_two_branches(spark, tables):
    sql = ("SELECT num, 'a' || ',' || 'b' AS tag FROM t\n"
           "UNION ALL\n"
           "SELECT num, 'a' || ',' || 'b' AS tag FROM u")
    out = optimize(sql, STANDARD_SCHEMA).sql
    assert out == sql.replace("'a' || ',' || 'b'", "'a,b'")
    assert_same_result(spark, sql, out)


def test_added_and_removed_conjuncts_keep_the_others_as_written(spark, tables):
    sql = """SELECT t.num
FROM t, u
WHERE t.num = u.num
  AND 1 = 1
  AND u.y > 2"""
    out = optimize(sql, STANDARD_SCHEMA).sql
    assert _changed_lines(sql, out) == (["  AND 1 = 1"], []), out
    assert_same_result(spark, sql, out)
    first = sql.replace("WHERE t.num = u.num\n  AND 1 = 1", "WHERE 1 = 1\n  AND t.num = u.num")
    out = optimize(first, STANDARD_SCHEMA).sql
    assert out == sql.replace("\n  AND 1 = 1", ""), out


def test_comment_inside_a_replaced_piece_is_kept(spark, tables):
    sql = "SELECT num FROM t WHERE coalesce(x /* the price */, NULL) > 0"
    out = optimize(sql, STANDARD_SCHEMA).sql
    assert "the price" in out and "coalesce" not in out
    assert_same_result(spark, sql, out)


def test_keep_layout_false_writes_the_whole_query(spark, tables):
    sql = "WITH c AS (SELECT num FROM t WHERE num > 1 + 1) SELECT num FROM c"
    whole = optimize(sql, STANDARD_SCHEMA, keep_layout=False)
    assert "WITH" not in whole.sql and whole.sql == whole.regenerated_sql
    kept = optimize(sql, STANDARD_SCHEMA)
    assert kept.sql.startswith("WITH c AS") and kept.regenerated_sql == whole.sql
    assert_same_result(spark, whole.sql, kept.sql)


def test_inferred_filters_alone_leave_the_text_as_written():
    sql = "SELECT t.num FROM t JOIN u ON t.num = u.num WHERE u.num = 2"
    result = optimize(sql, STANDARD_SCHEMA)
    assert any(s.rule == "InferFiltersFromConstraints" for s in result.trace.rewrites)
    assert result.sql == sql


def test_a_rewrite_written_back_the_same_leaves_the_text_as_written():
    """ConstantFolding turns the cast of '-Infinity' into a double literal, which the
    writer writes as that same cast: the rewrite does not show in SQL, so the input text
    is kept (and optimizing the output again is a fixed point), not written whole."""
    sql = "select cast('-Infinity' as double) as x, num from t"
    result = optimize(sql, STANDARD_SCHEMA)
    assert [s.rule for s in result.trace.rewrites] == ["ConstantFolding"]
    assert result.optimized != result.analyzed
    assert result.sql == sql and result.regenerated_sql is None


@pytest.mark.parametrize("sql", [
    "SELECT num, CASE WHEN p THEN 1 ELSE NULL END AS flag FROM t",
    "SELECT num FROM t WHERE p = false",
    "SELECT num FROM t WHERE TRUE = p OR (s IS NULL) = false",
    "SELECT num,\n  CASE WHEN x > 0 THEN 'a'\n       WHEN x < 0 THEN 'b'\n       ELSE NULL\n  END AS sign\nFROM t\nWHERE p = true",
])
def test_a_rewrite_that_only_respells_leaves_the_text_as_written(sql):
    """`ELSE NULL` dropped, `p = false` written `NOT p`, `p = true` written `p`: the plan
    changes, the query does not (the same values, NULL included), and a reviewer is not
    shown a diff for it (on a generated 5,000-line query, one `ELSE NULL` made a
    9,600-line diff)."""
    result = optimize(sql, STANDARD_SCHEMA)
    assert result.optimized != result.analyzed and result.regenerated_sql != sql
    assert result.sql == sql


# a number the analyzer casts to a decimal (coercion), which ConstantFolding makes the
# decimal's literal, in every form that coerces a literal to a decimal column's type
_COERCING = ["coalesce(d, {n})", "greatest(d, {n})", "CASE WHEN num > 2 THEN d ELSE {n} END", "nvl(d, {n})",
             "if(num > 2, d, {n})", "d + {n}", "d IN ({n}, 1.25)"]
_NUMBERS = ["0", "-2", "1.5", "100000", "0.125"]
_IN_A_CTE = ("with c as (\n  select num, {e} as v\n  from t\n)\n"
             "select num, count(num) as n, max(v) as m\nfrom c\ngroup by num")


@pytest.mark.parametrize("form", _COERCING)
def test_a_number_cast_to_a_decimal_is_left_as_written(form):
    """`coalesce(amount, 0)` over a decimal(5,2) is `coalesce(CAST(amount AS
    DECIMAL(12,2)), CAST(0 AS DECIMAL(12,2)))` to the analyzer, whose number ConstantFolding
    makes the literal 0.00.  The text's `0` already says that: only the other rewrite
    (count(num) made count(1)) changes the text.  dbt's order_summary model, a CTE like
    this one, was written whole with the CTE inlined, 39% longer, since the splice put
    `'0.00'` in place of `0`, which read back otherwise."""
    for n in _NUMBERS:
        sql = _IN_A_CTE.format(e=form.format(n=n))
        result = optimize(sql, STANDARD_SCHEMA)
        assert {s.rule for s in result.trace.rewrites} >= {"NullPropagation"}
        assert result.sql == sql.replace("count(num)", "count(1)"), result.sql


def test_a_number_cast_to_a_decimal_on_spark(spark, tables):
    for form, n in (("coalesce(d, {n})", "0"), ("greatest(d, {n})", "-2"), ("d IN ({n}, 1.25)", "100000")):
        sql = _IN_A_CTE.format(e=form.format(n=n))
        assert_same_result(spark, sql, optimize(sql, STANDARD_SCHEMA).sql)


def test_a_text_left_as_written_must_type_its_columns_as_the_plan(spark, tables):
    """The CASE, nullable, folds to 'a', which would make the column NOT NULL where the
    original's is nullable: the output keeps it nullable, and the splice, which leaves
    `coalesce(d, 0)`'s number as written where the plan has the literal 0.00, must give
    a text that types each column as the optimized plan written does (its read-back
    checks that).  Its schema is the original's, nullability included."""
    sql = "select num, concat(coalesce(d, 0), CASE WHEN false THEN NULL ELSE 'a' END) as v\nfrom t"
    out = optimize(sql, STANDARD_SCHEMA).sql
    assert out != sql
    assert_same_result(spark, sql, out)


def test_a_read_back_that_types_a_column_otherwise_is_refused(spark):
    """The read-back's nullability guard, called directly: Spark types `CAST(0 AS
    DECIMAL(3,2))` nullable in both modes (an int may not fit in decimal(3,2)), the
    literal `CAST(0.00 AS DECIMAL(3,2))` NOT NULL.  No query of the rules' reaches this
    guard today (the output keeps the original's nullability, and a number left as
    written keeps it too), so it is checked here: a text is refused when it types a
    column otherwise than asked, and accepted when it types it so."""
    from sparkfold.plans.sql_in.catalog import Catalog
    # the premise, Spark's: the number cast nullable, the literal cast NOT NULL
    assert [f.nullable for f in spark.sql("SELECT CAST(0 AS DECIMAL(3,2)) AS x, "
                                          "CAST(0.00 AS DECIMAL(3, 2)) AS y").schema.fields] == [True, False]
    catalog = Catalog.coerce(STANDARD_SCHEMA)
    target = "SELECT CAST(0.00 AS DECIMAL(3, 2)) AS x"
    text = "SELECT CAST(0 AS DECIMAL(3,2)) AS x"
    spelled = lambda tree: tree  # noqa: E731  (the text's own spelling: compare as printed)
    assert splice._reads_as(target, catalog, lambda: target, None, spelled, [False])
    assert not splice._reads_as(text, catalog, lambda: "SELECT CAST(0 AS DECIMAL(3, 2)) AS x", None, spelled,
                                [False])
    assert splice._reads_as(text, catalog, lambda: "SELECT CAST(0 AS DECIMAL(3, 2)) AS x", None, spelled, [True])


@pytest.mark.parametrize("cast, same", [
    ("CAST(0.00 AS DECIMAL(7,2))", True),  # written back as this cast: decimal(7,2) is wider than 0.00
    ("CAST(-1.5000 AS DECIMAL(10,4))", True),
    ("CAST(NULL AS DECIMAL(7,2))", True),  # the typed NULL
    ("CAST(-1.5 AS DECIMAL(10,4))", False),  # written CAST(-1.5000 AS DECIMAL(10,4))
    ("CAST('0.00' AS DECIMAL(7,2))", False),  # written CAST(0.00 AS DECIMAL(7,2)), NOT NULL
    ("CAST('12345.67' AS DECIMAL(7,2))", False),  # written 12345.67, its natural type
])
def test_a_folded_cast_is_the_same_plan_exactly_when_it_is_written_the_same(cast, same):
    """The rules make the cast a literal.  `same_but_ids` says the plans before and after
    are the same exactly when the writer writes them as one text: that is what lets the
    splice's read-back be accepted without writing its plan again."""
    from sparkfold.plans.ir import logical as L
    from sparkfold.plans.sql_out.to_sql import SqlGenerator

    def text(plan):
        return SqlGenerator().query(plan).sql(dialect=DIALECT, normalize_functions=False)

    result = optimize(f"SELECT {cast} AS x FROM t", {"t": {"d": "decimal(7,2)"}})
    assert result.trace.rewrites and result.optimized != result.analyzed
    assert L.same_but_ids(result.analyzed, result.optimized) is same
    assert (text(result.analyzed) == text(result.optimized)) is same


def test_a_splice_that_reads_otherwise_is_refused(monkeypatch):
    """The splice is checked, not trusted: a replacement that makes another query (here
    forced, `1 + 1` written as `1 + 2`) is refused, and the whole optimized query is
    written instead."""
    sql = "SELECT num FROM t WHERE num > 1 + 1"
    assert optimize(sql, STANDARD_SCHEMA).sql == "SELECT num FROM t WHERE num > 2"
    monkeypatch.setattr(splice._Style, "write", lambda self, node, *args, **kw: "1 + 2")
    result = optimize(sql, STANDARD_SCHEMA)
    assert result.sql == result.regenerated_sql == "SELECT t.num FROM t WHERE t.num > 2"


def test_splice_check_catches_a_captured_column(spark, tables):
    """A replacement whose unqualified column would be captured by an inner scope reads
    as another query: the check refuses it and the qualified form is used."""
    sql = ("SELECT num FROM t WHERE x > 0 AND EXISTS "
           "(SELECT 1 FROM u WHERE u.num = t.num AND coalesce(t.s, NULL) = u.s)")
    out = optimize(sql, STANDARD_SCHEMA).sql
    assert "coalesce" not in out
    assert "t.s = u.s" in out, out
    assert_same_result(spark, sql, out)


def test_wrapped_statement_keeps_its_text(spark, tables):
    sql = "CREATE TABLE x USING parquet AS\nSELECT num FROM t WHERE num > 1 + 1"
    out = optimize(sql, STANDARD_SCHEMA).sql
    assert out == "CREATE TABLE x USING parquet AS\nSELECT num FROM t WHERE num > 2"
    query = out.split("AS\n", 1)[1]
    assert_same_result(spark, sql.split("AS\n", 1)[1], query)


def test_lower_case_keywords_stay_lower_case(spark, tables):
    sql = "select num from t where coalesce(x, null) is not null and num between 1 and 1 + 2"
    out = optimize(sql, STANDARD_SCHEMA).sql
    assert out == "select num from t where not x is null and num between 1 and 3" or \
        out == "select num from t where x is not null and num between 1 and 3", out
    assert_same_result(spark, sql, out)


def test_splice_output_is_text_spark_reads(spark, tables):
    """Every case's output parses in sqlglot's Spark dialect too (a replacement is never
    cut in the middle of a token)."""
    import sqlglot

    for param in CASES:
        out = optimize(param.values[0], STANDARD_SCHEMA).sql
        sqlglot.parse_one(out, read=DIALECT)


def test_cli_keeps_the_layout_and_regenerate_writes_the_whole_query(tmp_path):
    from tests.test_cli import sparkfold

    (tmp_path / "schema.json").write_text(__import__("json").dumps(STANDARD_SCHEMA))
    query = tmp_path / "q.sql"
    query.write_text("-- revenue\nwith c as (select num from t where num > 1 + 1)\nselect num from c;\n")
    kept = sparkfold("optimize", "-f", query, "--schema", tmp_path / "schema.json", "-q")
    assert kept.returncode == 0, kept.stderr
    assert kept.stdout == "-- revenue\nwith c as (select num from t where num > 2)\nselect num from c;\n"
    whole = sparkfold("optimize", "-f", query, "--schema", tmp_path / "schema.json", "-q", "--regenerate")
    assert whole.returncode == 0, whole.stderr
    assert "with" not in whole.stdout.lower().replace("-- revenue", "") and "t.num > 2" in whole.stdout


@pytest.mark.parametrize("sql, out", [
    ("SELECT num FROM t WHERE coalesce(CAST(NULL AS BOOLEAN), (p))", "SELECT num FROM t WHERE p"),
    ("SELECT num FROM t WHERE (TRUE) IS NOT NULL AND (p)", "SELECT num FROM t WHERE p"),
])
def test_a_part_kept_as_written_is_not_misread_by_sparks_grammar(spark, tables, sql, out):
    """Spark reads `FROM t WHERE (p)` as the table alias WHERE with a column list (a
    keyword is a name to its default grammar): a part kept as the user wrote it, moved
    to stand alone after WHERE, is kept without its parentheses (sqlglot, which the
    splice's check reads with, reads both alike).  Found by the expression fuzzer."""
    result = optimize(sql, STANDARD_SCHEMA)
    assert result.sql == out
    assert_same_result(spark, sql, result.sql)


def test_a_query_written_whole_does_not_read_its_ctes_in_several_places():
    """When the rewrites cannot be applied to the text in place, the query written whole
    has no CTEs: each read of one is written out where it is read.  For a query reading
    its CTEs more than once that is more text than the user's (a generated query grew
    from 5.8 KB to 38 KB, its layout and comments lost): the text is kept as written,
    the query written whole is still there (`regenerated_sql`), and so are the findings."""
    sql = ("WITH c AS (\n"
           "  SELECT num, s FROM u WHERE s = NULL  -- never true\n"
           "), d AS (SELECT num, soundex(s) AS code FROM t)\n"
           "SELECT d.num, d.code, c.s FROM d LEFT JOIN c ON d.num = c.num\n"
           "UNION ALL\n"
           "SELECT d.num, d.code, c.s FROM d JOIN c ON d.num = c.num")
    result = optimize(sql, STANDARD_SCHEMA)
    assert result.sql == sql
    assert len(result.regenerated_sql) > 1.1 * len(sql) and "WITH" not in result.regenerated_sql
    assert any("read a CTE in several places" in w for w in result.trace.warnings), result.trace.warnings
    assert "null-comparison" in {f.code for f in result.findings}


@pytest.mark.parametrize("sql", ["select 10.300000000000000000 * 3.000000000000000000",
                                 "select (5e36BD + 0.1) + 5e36BD",
                                 "select 123456789123456789.1234567890 * 1.123456789123456789"])
def test_a_decimal_near_precision_38_is_respelled_without_failing(sql):
    """Held-out decimalArithmeticOperations.sql: the respelling of a cast to a decimal
    quantized to 34 places, past the 28 digits of Python's default decimal context, and
    failed inside sparkfold (InvalidOperation) on main for an hour."""
    out = optimize(sql, {}).sql
    assert out != sql and "please report" not in out
