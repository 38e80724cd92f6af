"""The classes of failures Spark's SQLQueryTestSuite files showed (issue 35, item 6), each
checked over a generated space of queries on Spark, through the same harness as the files
(tests/sqltests/classes.py says what each space holds): on every path (optimized SQL, the
query written whole, the DataFrame program) rows, names, types and errors equal Spark's,
and no query Spark accepts is rejected.  The default run checks every fifth query of each
space; SPARKFOLD_LONG=1 checks them all."""

from __future__ import annotations

import pytest

from tests.sqltests import classes
from tests.sqltests.check import run_file


EVERY = 5  # the default run checks every fifth query of each space; SPARKFOLD_LONG=1 all of them


def _check(spark, files, every: int = EVERY):
    outcomes = [o for t in files for config in t.config_sets()
                for o in run_file(spark, t, config, every=every).outcomes]
    failures = [f"[{', '.join(o.failures)}] {o.name} (Spark: {o.spark})\n  {o.sql}\n  {o.detail}\n  {o.report}"
                for o in outcomes if o.failures]
    return outcomes, failures


def test_literals_spark_rejects_stay_errors_and_the_ones_it_reads_keep_their_values(spark):
    outcomes, failures = _check(spark, classes.literal_files())
    assert failures == []
    # the space holds both: literals Spark rejects (each path must fail too) and ones it reads
    assert {o.spark == "accepts" for o in outcomes} == {True, False}


def test_duplicated_cte_names_and_errors_in_unread_ctes_stay_errors(spark):
    outcomes, failures = _check(spark, classes.cte_files(), every=1)
    assert failures == []
    assert sum(o.spark == "DUPLICATED_CTE_NAMES" for o in outcomes) >= 1
    assert {o.spark for o in outcomes if o.sql.startswith("WITH u AS")} >= {"TABLE_OR_VIEW_NOT_FOUND", "accepts"}


def test_nested_set_operations_keep_their_precedence_when_written_whole(spark):
    outcomes, failures = _check(spark, classes.setop_files(["UNION", "EXCEPT", "INTERSECT"]))
    assert failures == []
    assert sum(o.whole_verdict == "equal" for o in outcomes) >= 4


def test_grouping_expressions_under_not_hidden_grouping_columns_and_count_distinct_star(spark):
    outcomes, failures = _check(spark, classes.grouping_files(), every=3)
    assert failures == []
    assert all(o.df_verdict == "equal" for o in outcomes if o.spark == "accepts" and "SELECT s" in o.sql)


def test_syntax_sqlglot_reads_otherwise_passes_through_or_stays_an_error(spark):
    outcomes, failures = _check(spark, classes.syntax_files(), every=1)
    assert failures == []
    # an error Spark raises stays Spark's error, of its class, on every path
    assert [(o.sql, o.error_class_differs) for o in outcomes if o.error_class_differs] == []
    by_sql = {o.sql: o for o in outcomes}
    # (pipe syntax is read as the standard SQL Spark builds of it: pipe_syntax_files)
    assert by_sql["TABLE p |> WHERE x > 1"].status == "unchanged"
    assert by_sql["SELECT 20181117 >>>> 2"].spark == "PARSE_SYNTAX_ERROR"
    assert by_sql["SELECT COUNT(*) FROM lc WHERE c1 = 'A'"].spark == "accepts"


def test_session_variables_are_read_with_the_type_the_session_gives(spark):
    outcomes, failures = _check(spark, classes.variable_files(), every=1)
    assert failures == []
    # optimized around them, not passed through
    assert sum(o.status == "rewritten" for o in outcomes) >= 8
    assert not any(o.status == "passthrough" and "the session resolves" in (o.detail or "") for o in outcomes)


def test_table_functions_read_with_the_schema_the_session_gives(spark):
    outcomes, failures = _check(spark, classes.table_function_files(), every=2)
    assert failures == []
    assert sum(o.status == "rewritten" for o in outcomes) >= 4
    assert {o.spark == "accepts" for o in outcomes} == {True, False}


def test_constants_read_through_an_aggregate_fold_as_spark(spark):
    outcomes, failures = _check(spark, classes.aggregate_constant_files(), every=2)
    assert failures == []
    assert sum(o.status == "rewritten" for o in outcomes) >= 6


def test_identifier_clauses_read_as_the_names_they_give(spark):
    outcomes, failures = _check(spark, classes.identifier_clause_files(), every=2)
    assert failures == []
    assert sum(o.status == "rewritten" for o in outcomes) >= 6
    assert {o.spark == "accepts" for o in outcomes} == {True, False}
    # under the legacy clause: a column, a table, a function's name optimized; an alias
    # written so is Spark's syntax error, kept
    legacy = [o for o in outcomes if o.file == "identifier-clause-legacy.sql"]
    assert sum(o.status == "rewritten" for o in legacy) >= 4
    assert sum(o.status == "passthrough" and o.spark == "PARSE_SYNTAX_ERROR" for o in legacy) >= 5


def test_set_operations_widen_each_pair_of_types_as_spark(spark):
    outcomes, failures = _check(spark, classes.setop_type_files())
    assert failures == []
    assert sum(o.status == "rewritten" for o in outcomes) >= 40


def test_an_in_subquery_keeps_the_error_spark_raises_for_its_pair_of_types(spark):
    outcomes, failures = _check(spark, classes.in_subquery_type_files())
    assert failures == []
    assert {o.spark == "accepts" for o in outcomes} == {True, False}
    assert sum(o.status == "rewritten" for o in outcomes) >= 20


def test_session_settings_sparkfold_does_not_model(spark):
    outcomes, failures = _check(spark, classes.settings_files())
    assert failures == []
    assert any(o.status == "passthrough" and "the session sets" in o.detail for o in outcomes)


@pytest.mark.slow
def test_every_class_over_its_whole_space(spark):
    assert _check(spark, classes.all_files(), every=1)[1] == []


def test_session_settings_change_only_what_they_read(spark):
    """Spark's answers for the queries of tests/test_settings_scope.py's decisions, a
    sample here (every query with SPARKFOLD_LONG=1, below)."""
    outcomes, failures = _check(spark, classes.settings_scope_files(), every=10)
    assert failures == []
    assert {o.status == "passthrough" for o in outcomes} == {True, False}


@pytest.mark.slow
def test_session_settings_change_only_what_they_read_every_query(spark):
    outcomes, failures = _check(spark, classes.settings_scope_files(), every=1)
    assert failures == []
    by_file: dict = {}
    for o in outcomes:
        by_file.setdefault(o.file, []).append(o.status == "passthrough")
    # `!` for NOT: passed through where Spark rejects it (without the setting), optimized under it
    assert by_file["bang-not.sql"] == [True] * 3 + [False] * 3
    assert [o.spark == "accepts" for o in outcomes if o.file == "bang-not.sql"] == [False] * 3 + [True] * 3
    # the settings modelled: nothing passes through
    assert not any(by_file["concat-binary.sql"] + by_file["null-in-empty.sql"])
    # "x" is an identifier with ANSI on only: a string (optimized) with it off
    assert by_file["double-quoted.sql"] == [True, False]
    # nested WITHs, and a CTE read twice, under the legacy CTE precedence: read as Spark
    # reads them (a WITH in a definition does not see the CTEs around it: rejected there)
    assert by_file["cte-precedence.sql"] == [False] * 6
    assert [o.status for o in outcomes if o.file == "cte-precedence.sql"][1] == "rejected"
    # a correlated subquery under a decorrelation setting: frozen, written as in the text,
    # the query around it optimized (or kept as written where it could not be without it)
    assert not any(by_file["decorrelation.sql"])
    decorrelation = [o for o in outcomes if o.file == "decorrelation.sql"]
    assert sum(o.status == "rewritten" and o.sql.startswith("SELECT *, (SELECT count(*)") for o in decorrelation) == 3
    assert sum(o.status == "unchanged" and "false AND EXISTS" in o.sql for o in decorrelation) == 2


def test_settings_of_views_parsing_and_nested_ctes_change_only_what_they_read(spark):
    """spark.sql.legacy.ctePrecedencePolicy=EXCEPTION (only nested WITHs whose names meet
    pass through), parseQueryWithoutEof (views made under it are read as tables; every
    query is optimized), viewSchemaBindingMode / viewSchemaCompensation (nothing passes
    through) and the legacy IDENTIFIER clause (only IDENTIFIER(...) passes through)."""
    names = ("cte-exception.sql", "view-text-without-eof.sql", "view-schema-binding.sql", "legacy-identifierClause.sql")
    files = [t for t in classes.settings_scope_files() if t.name in names]
    assert len(files) == len(names)
    outcomes, failures = _check(spark, files, every=1)
    assert failures == []
    passed = {name: [o.sql for o in outcomes if o.file == name and o.status == "passthrough"] for name in names}
    assert passed["view-text-without-eof.sql"] == passed["view-schema-binding.sql"] == []
    # (the nested WITHs that define `t` twice, in either case; the others read as CORRECTED)
    assert passed["cte-exception.sql"] and all(q.lower().count("with t as") == 2 for q in passed["cte-exception.sql"])
    assert sum(o.file == "cte-exception.sql" and o.status != "passthrough" for o in outcomes) >= 4
    assert passed["legacy-identifierClause.sql"] and all("IDENTIFIER(" in q for q in passed["legacy-identifierClause.sql"])
    # the views made under parseQueryWithoutEof are Spark's, not their text read whole
    without_eof = [o for o in outcomes if o.file == "view-text-without-eof.sql"]
    assert any(o.status == "rewritten" for o in without_eof)


def test_a_trailing_comma_in_any_list_stays_a_syntax_error(spark):
    outcomes, failures = _check(spark, classes.trailing_comma_files(), every=1)
    assert failures == []
    by_sql = {o.sql: o for o in outcomes}
    assert by_sql["SELECT x, FROM p WHERE 1 = 1"].spark == "TRAILING_COMMA_IN_SELECT"
    assert by_sql["SELECT rank() OVER (PARTITION BY x, ORDER BY x) AS r FROM p WHERE 1 = 1"].spark == "PARSE_SYNTAX_ERROR"
    assert by_sql["SELECT array(1, 2) AS a"].spark == "accepts"


def test_a_field_of_a_name_in_order_by_or_having_reads_what_spark_reads(spark):
    outcomes, failures = _check(spark, classes.alias_field_files(), every=1)
    assert failures == []
    by_sql = {o.sql: o for o in outcomes}
    # Spark reads the alias's field where the column has none, the column's element where the alias is no array
    assert by_sql["SELECT named_struct('a', 1) AS col1 FROM VALUES ('a') AS t(col1) GROUP BY col1 ORDER BY col1.a"].spark \
        == "accepts"
    assert by_sql["SELECT 'a' AS col1 FROM VALUES (array(1)) AS t(col1) GROUP BY col1 ORDER BY col1[0]"].spark == "accepts"


def test_grouping_sets_over_renamed_inputs_keep_spark_names(spark):
    outcomes, failures = _check(spark, classes.grouping_set_name_files(), every=2)
    assert failures == []
    assert sum(o.whole_verdict == "equal" for o in outcomes) >= 15


def test_a_parameterless_function_name_reads_a_column_of_the_from_first(spark):
    outcomes, failures = _check(spark, classes.parameterless_files(), every=1)
    assert failures == []
    assert sum(o.spark == "accepts" for o in outcomes) >= 30


def test_a_wrapped_aggregate_as_an_argument_of_an_opaque_call_is_read(spark):
    outcomes, failures = _check(spark, classes.wrapped_call_files(), every=2)
    assert failures == []
    assert sum(o.spark == "accepts" for o in outcomes) >= 10
    # a call whose name sparkfold cannot write passes through only where a query reads
    # the column by the name Spark gives it
    passed = [o.sql for o in outcomes if o.status == "passthrough"]
    assert all(q.startswith("SELECT * FROM (SELECT g,") for q in passed), passed
    assert sum("DISTINCT" in o.sql and o.status == "rewritten" for o in outcomes) >= 5


def test_a_types_parameters_stay_the_types_on_every_path(spark):
    outcomes, failures = _check(spark, classes.parameterized_type_files(), every=3)
    assert failures == []
    assert [(o.sql, o.error_class_differs) for o in outcomes if o.error_class_differs] == []
    assert {o.spark == "accepts" for o in outcomes} == {True, False}


def test_nanosecond_timestamps_are_opaque_where_they_stand(spark):
    """Casts to TIMESTAMP_NTZ(9) and the like, and literals with nanoseconds, with
    spark.sql.timestampNanosTypes.enabled off (FEATURE_NOT_ENABLED) and on: kept as
    written inside queries optimized around them, never passed through whole."""
    outcomes, failures = _check(spark, classes.nanos_files(), every=1)
    assert failures == []
    assert {o.spark == "accepts" for o in outcomes} == {True, False}
    assert not any(o.status == "passthrough" for o in outcomes)
    assert sum(o.status == "rewritten" for o in outcomes) >= 20


def test_time_windows_are_opaque_blocks_with_the_query_around_them_optimized(spark):
    """window / session_window in GROUP BY, the select list, ROLLUP, HAVING, ORDER BY and
    under an outer query, over TIMESTAMP and TIMESTAMP_NTZ, and the forms Spark rejects:
    the block kept as written, never the whole query passed through but for a window
    outside the select list and GROUP BY."""
    outcomes, failures = _check(spark, classes.time_window_files(), every=1)
    assert failures == []
    assert {o.spark == "accepts" for o in outcomes} == {True, False}
    passed = [o.sql for o in outcomes if o.status == "passthrough"]
    assert len(passed) <= 2 and all("WHERE window(" in q or "window, " in q for q in passed), passed
    assert sum(o.status == "rewritten" for o in outcomes) >= 30


def test_generators_as_lateral_table_functions_keep_their_call_as_written(spark):
    """explode, posexplode, inline (and their _outer forms), stack and json_tuple after
    `, LATERAL`, CROSS JOIN LATERAL, JOIN LATERAL ... ON and LEFT JOIN LATERAL ... ON,
    with and without an alias and column names: the query is optimized around the call
    (every one is rewritten), and the forms Spark rejects keep their error."""
    outcomes, failures = _check(spark, classes.lateral_generator_files(), every=2)
    assert failures == []
    assert {o.spark == "accepts" for o in outcomes} == {True, False}
    assert [o.sql for o in outcomes if o.spark == "accepts" and o.status != "rewritten"] == []


def test_pipe_syntax_means_on_every_path_what_spark_reads(spark):
    """Chains of pipe operators after each kind of first query, read as standard SQL and
    optimized: the same rows, names, types and errors as Spark's pipe query on every path;
    the pipe forms Spark rejects (where the standard SQL would not) pass through."""
    outcomes, failures = _check(spark, classes.pipe_syntax_files(), every=3)
    assert failures == []
    assert {o.spark == "accepts" for o in outcomes} == {True, False}
    assert all(o.status == "passthrough" for o in outcomes if o.spark != "accepts")
    assert sum(o.status == "rewritten" for o in outcomes) >= 30


def test_subqueries_in_blocks_kept_as_written_on_every_path(spark):
    """Uncorrelated scalar subqueries in the select list, HAVING and ORDER BY of ROLLUP,
    CUBE, GROUPING SETS, QUALIFY, WINDOW and generator blocks, and IN / EXISTS / correlated
    subqueries in their WHERE: optimized with the block, equal on every path; only a
    correlated one in the select list passes through."""
    outcomes, failures = _check(spark, classes.opaque_block_subquery_files(), every=2)
    assert failures == []
    passed = [o.sql for o in outcomes if o.status == "passthrough"]
    assert all("sr.y = sq.g) AS c" in q for q in passed), passed
    assert sum(o.status == "rewritten" for o in outcomes) >= 10


def test_grouping_keys_read_with_their_operands_swapped(spark):
    """`GROUP BY i + 1 ... ORDER BY 1 + i` (and HAVING, the select list; +, *, AND, OR, =,
    <=>, chains of three) is the grouping key to Spark: modelled, equal on every path; over
    decimals (whose sums Spark does not always reorder) and in an ORDER BY over a HAVING
    passed through, and Spark indeed rejects the three-term decimal chain."""
    outcomes, failures = _check(spark, classes.commuted_grouping_files(), every=1)
    assert failures == []
    # (passed through: over decimals, and an ORDER BY of the swapped key over a HAVING)
    passed = [o.sql for o in outcomes if o.status == "passthrough"
              and not ("HAVING" in o.sql and not o.sql.endswith("ORDER BY c"))]
    assert passed and all(" m" in q or "(m" in q or "n + m" in q for q in passed), passed
    assert {o.spark for o in outcomes if "m + n + i" in o.sql} - {"accepts"}
    assert sum(o.status == "rewritten" for o in outcomes) >= 15


def test_a_view_reads_its_definition_by_name_after_the_view_under_it_is_made_again(spark):
    """Filters over views whose definitions read a view made again since (columns in
    another order, renamed into each other's places, widened, one fewer, one more), as a
    temporary view and persistent ones of each schema mode: Spark picks the view's
    columns from the definition's output by name; sparkfold reads rows through such a
    definition only where its columns stand where Spark picks them.  (Read by position,
    25 of these queries were folded to empty relations that Spark's rows contradict.)"""
    outcomes, failures = _check(spark, classes.view_redefinition_files(), every=EVERY)
    assert failures == []
    accepted = [o for o in outcomes if o.spark == "accepts"]
    assert sum(o.status == "rewritten" for o in accepted) >= 8  # folded where the definition still proves it
    assert {o.spark == "accepts" for o in outcomes} == {True, False}  # a column gone: Spark's error on every path


def test_variant_paths_are_read_where_they_stand_and_named_as_spark_names_them(spark):
    """`v:a.b` in every clause and form (tests/sqltests/classes.py `variant_path_files`):
    optimized around, written back as written, named as Spark names it; a path Spark
    rejects keeps Spark's error."""
    outcomes, failures = _check(spark, classes.variant_path_files(), every=4)
    assert failures == []
    accepted = [o for o in outcomes if o.spark == "accepts"]
    assert sum(o.status == "rewritten" for o in accepted) >= 0.7 * len(accepted)
    assert all(o.status != "passthrough" or "`b`" in o.sql for o in accepted)


def test_script_transformations_are_kept_as_written_and_optimized_around(spark):
    """`SELECT TRANSFORM(...) USING 'cat' ...` blocks (tests/sqltests/classes.py
    `transform_files`): the block as written, its input and the query around it optimized,
    its columns named and typed as Spark's AS list makes them.  (Each runs a process per
    task: every fifth statement by default.)"""
    outcomes, failures = _check(spark, classes.transform_files(), every=EVERY)
    assert failures == []
    accepted = [o for o in outcomes if o.spark == "accepts"]
    assert sum(o.status == "rewritten" for o in accepted) >= 0.7 * len(accepted)


def test_unmodelled_operators_and_calls_stay_where_spark_analyzes_them(spark):
    """Operators over type pairs sparkfold does not coerce and calls that raise on some
    inputs (tests/sqltests/classes.py `opaque_operator_files`), in a select list, a WHERE,
    over an empty relation and in a column nothing reads, in both modes: Spark's rows and
    errors on every path.  (Before: the whole query passed through for the operators; a
    pruned column lost Spark's analysis error, and an empty relation's row of constants
    made Spark fold `to_date('')` into an error.)"""
    outcomes, failures = _check(spark, classes.opaque_operator_files(), every=8)
    assert failures == []
    assert sum(o.status == "rewritten" for o in outcomes) >= 0.9 * len(outcomes)


def test_interval_literals_with_their_units_in_their_text_are_spark_literals(spark):
    """`INTERVAL '1 year 2 months'`, `INTERVAL '-1 day 1 hour'`... (tests/sqltests/classes.py
    `interval_text_files`: every unit, signs, fractions, bounds and texts Spark rejects,
    both modes): the value, type and name Spark's parser gives, on every path.  (Before:
    the whole query passed through.)"""
    outcomes, failures = _check(spark, classes.interval_text_files(), every=12)
    assert failures == []
    assert not any(o.status == "passthrough" for o in outcomes)
    accepted = [o for o in outcomes if o.spark == "accepts"]
    assert sum(o.status == "rewritten" for o in accepted) >= 0.5 * len(accepted)


def test_raising_constants_over_rows_stay_where_spark_reads_rows_first(spark):
    """A constant that raises (an overflowing cast, `1 / 0`, `make_date(0, 0, 0)`, `TIME
    '23:59:59' :: TINYINT`) over a view of VALUES, VALUES in the query or a table
    (tests/sqltests/classes.py `row_source_constant_files`, both modes): Spark evaluates
    it only on the rows its first optimizer batch leaves, where its ConstantFolding
    raises over a table and over the empty relation sparkfold writes.  (Before: 41 of the
    480 wrong, 39 on the SQL path, where such a query folded to an empty relation that
    raised; the DataFrame program of VALUES, a DataFrame of Python rows, raised too.)"""
    outcomes, failures = _check(spark, classes.row_source_constant_files(), every=10)
    assert failures == []
    assert sum(o.status == "rewritten" for o in outcomes) >= 0.8 * len(outcomes)


def test_hidden_metadata_columns_of_file_sources_on_spark(spark):
    """`_metadata` of parquet, csv and json tables with rows (tests/sqltests/classes.py
    `metadata_column_files`): read by name, qualified or not, in each clause, through
    joins, subqueries, a CTE; a view, VALUES and a table with a column of that name
    have none.  Spark's rows and errors on every path.  (Before: the whole query passed
    through.)"""
    outcomes, failures = _check(spark, classes.metadata_column_files(), every=1)
    assert failures == []
    accepted = [o for o in outcomes if o.spark == "accepts"]
    assert sum(o.status != "passthrough" for o in accepted) >= len(accepted) - 1


def test_timestamp_type_and_time_parser_settings_on_spark(spark):
    """spark.sql.timestampType=TIMESTAMP_NTZ (modelled: the name TIMESTAMP, to_timestamp,
    TIMESTAMP_LTZ written back as such) and spark.sql.legacy.timeParserPolicy (only a
    literal on a day of the 1582 cutover passes through), each set and set back."""
    files = [t for t in classes.legacy_scope_files() if "time" in t.name]
    outcomes, failures = _check(spark, files, every=1)
    assert failures == []
    assert sum(o.status == "rewritten" for o in outcomes) >= 60
    assert sum(o.status == "passthrough" for o in outcomes) <= 8


def test_set_operations_of_rows_the_query_holds_fold_as_spark(spark):
    """INTERSECT and EXCEPT, DISTINCT and ALL, of constant rows, VALUES and views over
    them (tests/sqltests/classes.py `set_operation_rows_files`, both modes): emptied where
    Spark's own optimizer finds them empty (NULL the same as NULL, NaN as NaN, -0.0 as
    0.0; EXCEPT ALL counting duplicates), kept where a side raises, is not deterministic or
    keeps a row; a view so defined is empty to a query reading it."""
    outcomes, failures = _check(spark, classes.set_operation_rows_files(), every=4)
    assert failures == []
    assert sum(o.status == "rewritten" for o in outcomes) >= 20


def test_window_functions_a_rewrite_removes_keep_what_spark_reads(spark):
    """count, sum, avg, min and max over windows of no frame, of each type, removed by a
    rewrite (an empty relation, LIMIT 0, a column nothing reads): Spark's analysis
    accepts them whatever the rows, so they fold, named and typed as Spark's (count NOT
    NULL); the forms Spark rejects (a date summed, a map compared, DISTINCT in a window)
    stay its errors (tests/sqltests/classes.py `window_removal_files`, both modes)."""
    outcomes, failures = _check(spark, classes.window_removal_files(), every=6)
    assert failures == []
    assert {o.spark == "accepts" for o in outcomes} == {True, False}
    assert sum(o.status == "rewritten" for o in outcomes) >= 40
