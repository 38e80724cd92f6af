"""Spark's function documentation as a corpus (tests/oracles/function_docs.py): every
example of every built-in function, and every function called with one argument too few
and one too many, against Spark's recorded answers (golden/function_docs.jsonl).

Without Spark, over the whole corpus in both modes: sparkfold never fails inside, never
rejects a query Spark's analysis accepts, and names and types every column as Spark does
(a type it does not know is UNKNOWN, never another).  Live, on a sample spread over the
corpus (all of it with SPARKFOLD_LONG=1): every text sparkfold writes (the spliced SQL, the
query written whole, the query written whole with no rule run, both DataFrame programs)
gives Spark's names, types, rows and error class.
"""

from __future__ import annotations

import pytest

from sparkfold.plans.ir import types as T
from sparkfold.plans.ir.naming import unnamed_output
from tests.oracles import function_docs as docs
from tests.oracles import function_docs_check as check

CASES = docs.load()
SAMPLE = 16


def test_the_corpus_covers_the_registry():
    functions = {c["function"] for c in CASES}
    examples = [c for c in CASES if c["kind"] == docs.EXAMPLE]
    mutations = [c for c in CASES if c["kind"] != docs.EXAMPLE]
    assert len(functions) > 550 and len(examples) > 1200 and len(mutations) > 1000
    # each answer is Spark's: a schema, or an error class
    assert all(("schema" in a) or ("error" in a) for c in CASES for a in c["answers"].values())


def test_the_golden_file_is_the_registry_of_this_spark(spark):
    """The recorded cases are those this Spark's registry documents (else regenerate)."""
    def key(c):
        return docs.case_id(c), c["sql"], c["settings"]

    assert [key(c) for c in docs.cases(spark)] == [key(c) for c in CASES], \
        "the registry changed: python -m tests.oracles.function_docs --regenerate"


def test_the_kinds_of_functions_are_spark_registry_s():
    """Aggregates, window functions, generators and non-deterministic functions are
    analyzed each their own way: every one the registry has is known as such (the
    sparkfold-only extras: GROUPING / GROUPING_ID, Spark's grouping markers, analyzed as
    aggregates; non-deterministic builders Spark's classes do not mark)."""
    from sparkfold.plans.ir import functions as F

    registry = docs.load_registry()

    def of(kind):
        return {n for n, v in registry.items() if v["kind"] == kind}

    assert of("aggregate") - set(F.AGGREGATE_FUNCTIONS) - F.KNOWN_AGGREGATE_NAMES == set()
    assert F.KNOWN_AGGREGATE_NAMES - of("aggregate") == {"grouping", "grouping_id"}
    assert of("window") == F.WINDOW_ONLY_NAMES
    assert of("generator") == F.GENERATOR_NAMES
    assert {n for n, v in registry.items() if not v["deterministic"]} <= F.NONDETERMINISTIC_NAMES


def test_examples_are_read_as_spark_reads_them():
    text = """
    Examples:
      > SET spark.sql.parser.escapedStringLiterals=true;
      spark.sql.parser.escapedStringLiterals\ttrue
      > SELECT f('a;b', 1);
       x
      > SELECT g(1)
        FROM t;
       y
    """
    assert docs.statements(text) == [
        ("SELECT f('a;b', 1)", {"spark.sql.parser.escapedStringLiterals": "true"}),
        ("SELECT g(1) FROM t", {"spark.sql.parser.escapedStringLiterals": "true"})]
    sql = "SELECT f(a, g(b, c)), f(x) FROM t"
    assert docs.arity_mutations("f", [(sql, {})]) == [
        (docs.TOO_FEW, "SELECT f(a, g(b, c)), f() FROM t", {}),
        (docs.TOO_MANY, "SELECT f(a, g(b, c), g(b, c)), f(x) FROM t", {})]
    assert docs.arity_mutations("pi", [("SELECT pi()", {})]) == [(docs.TOO_MANY, "SELECT pi(1)", {})]
    assert docs.usage_calls("int", "int(expr) - Casts the value `expr`") == [("SELECT int(1)", {})]


def test_the_parts_of_the_corpus_split_it_by_whole_functions():
    """`--part K/N` (the whole corpus in short live runs): every case in exactly one part,
    each function's cases in one part, the parts of about the same size."""
    parts = [check.part(CASES, k, 3) for k in (1, 2, 3)]
    assert sorted(docs.case_id(c) for p in parts for c in p) == sorted(docs.case_id(c) for c in CASES)
    owners = [{c["function"] for c in p} for p in parts]
    assert not (owners[0] & owners[1] or owners[1] & owners[2] or owners[0] & owners[2])
    assert max(map(len, parts)) - min(map(len, parts)) < len(CASES) // 30


def _spark_type_or_unknown(t) -> str | None:
    return None if t == T.UNKNOWN else t.simple_string()


@pytest.mark.parametrize("mode", sorted(docs.MODES))
def test_sparkfold_reads_every_case_as_spark_does(mode):
    """The whole corpus, no Spark: no internal failure; no rejection of a query Spark's
    analysis accepts; the analyzed and the optimized plans name every column as Spark
    does, and type it as Spark does or UNKNOWN."""
    from sparkfold import optimize
    from sparkfold.optimizer.errors import InternalError, SparkfoldError

    wrong = []
    for c in CASES:
        answer = c["answers"][mode]
        try:
            result = optimize(c["sql"], docs.catalog(mode, c["settings"]))
        except InternalError as e:
            wrong.append(f"{docs.case_id(c)}: internal failure: {e}")
            continue
        except SparkfoldError as e:
            if not (answer.get("error") and answer.get("phase") == "analysis"):
                wrong.append(f"{docs.case_id(c)}: rejected ({e}); Spark's answer {answer}")
            continue
        if result.analyzed is None or "schema" not in answer:
            continue
        names = [n for n, _, _ in answer["schema"]]
        types = [t for _, t, _ in answer["schema"]]
        for label, plan in (("analyzed", result.analyzed), ("optimized", result.optimized)):
            unnamed = unnamed_output(plan)  # (named by Spark: the live test checks those)
            ours = [n if a.expr_id in unnamed else a.name for a, n in zip(plan.output, names)]
            our_types = [_spark_type_or_unknown(a.data_type) for a in plan.output]
            if ours != names:
                wrong.append(f"{docs.case_id(c)}: {label} names {ours}, Spark's {names}\n  {c['sql']}")
                break
            if any(o is not None and o != t for o, t in zip(our_types, types)):
                wrong.append(f"{docs.case_id(c)}: {label} types {our_types}, Spark's {types}\n  {c['sql']}")
                break
    assert not wrong, f"{len(wrong)} cases:\n" + "\n".join(wrong)


def _live(spark, cases, mode):
    outcomes = check.check(spark, cases, mode)
    failed = [o for o in outcomes if o.failed]
    assert not failed, check.summary(outcomes) + "\n\n" + "\n\n".join(o.to_text() for o in failed)
    return outcomes


def test_a_sample_against_live_spark(spark):
    """Every text sparkfold writes for a spread sample of the cases, run on Spark."""
    outcomes = _live(spark, check.spread(CASES, SAMPLE), "ansi")
    assert sum(o.status == "checked" for o in outcomes) > SAMPLE // 2


@pytest.mark.slow
@pytest.mark.parametrize("mode", sorted(docs.MODES))
def test_the_whole_corpus_against_live_spark(spark, mode):
    _live(spark, CASES, mode)
