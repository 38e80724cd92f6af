"""Spark's own documentation of its built-in functions as a corpus (issue 35, item 3).

Spark's function registry documents every built-in function with examples
(`DESCRIBE FUNCTION EXTENDED f`, read here through the JVM: `ExpressionInfo.getExamples()`).
Every example query becomes a case; `SET k=v;` lines before an example are settings it
runs under.  Every function that an example calls by name is also called with one
argument too few (its shortest call less its last argument) and one too many (its longest
call with its last argument repeated): when Spark rejects such a call, its error class must
survive sparkfold.

    python -m tests.oracles.function_docs --regenerate   # read the registry, ask Spark, write the golden file

The golden file (`golden/function_docs.jsonl`, one case a line, written only by the
recorder) holds each case with Spark's answers in ANSI and non-ANSI mode: the schema
(name, type, nullability per column) and the rows, or the error class.
"""

from __future__ import annotations

import argparse
import datetime
import decimal
import json
import math
import re
import sys
import time
from pathlib import Path

from sqlglot.dialects.spark import Spark
from sqlglot.tokens import TokenType

GOLDEN = Path(__file__).parent / "golden" / "function_docs.jsonl"
MODES = {"ansi": "true", "legacy": "false"}     # the answers' key -> spark.sql.ansi.enabled
ROW_LIMIT = 50                                   # rows kept per answer (the examples give a few)

EXAMPLE, TOO_FEW, TOO_MANY = "example", "too_few", "too_many"


# ---------------------------------------------------------------------------
# The registry's examples
# ---------------------------------------------------------------------------


def registry(spark) -> list[tuple[str, str, str]]:
    """(name, usage text, examples text) of every built-in function, sorted by name."""
    reg = spark._jsparkSession.sessionState().functionRegistry()
    out, it = [], reg.listFunction().iterator()
    while it.hasNext():
        fid = it.next()
        info = reg.lookupFunction(fid).get()
        out.append((str(fid.funcName()), str(info.getUsage() or ""), str(info.getExamples() or "")))
    return sorted(out)


REGISTRY = Path(__file__).parent / "golden" / "function_registry.json"
_EXPRESSIONS = "org.apache.spark.sql.catalyst.expressions."


def registry_kinds(spark) -> dict[str, dict]:
    """What each built-in function is, by its expression class: an aggregate (an
    AggregateFunction, or a builder of one: `...expressions.aggregate.MaxByBuilder`), a
    window function (a WindowFunction), a generator, or a scalar function; and whether
    it is non-deterministic."""
    jvm = spark._jvm
    loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()

    def cls(name: str):
        return jvm.java.lang.Class.forName(name, False, loader)

    base = {k: cls(_EXPRESSIONS + v) for k, v in (
        ("aggregate", "aggregate.AggregateFunction"), ("window", "WindowFunction"), ("generator", "Generator"),
        ("nondeterministic", "Nondeterministic"))}
    reg = spark._jsparkSession.sessionState().functionRegistry()
    out, it = {}, reg.listFunction().iterator()
    while it.hasNext():
        fid = it.next()
        info = reg.lookupFunction(fid).get()
        name, class_name = str(fid.funcName()), str(info.getClassName())
        c = cls(class_name)
        if base["window"].isAssignableFrom(c):
            kind = "window"
        elif base["aggregate"].isAssignableFrom(c) or class_name.startswith(_EXPRESSIONS + "aggregate."):
            kind = "aggregate"
        elif base["generator"].isAssignableFrom(c) or str(info.getGroup()) == "generator_funcs":
            kind = "generator"
        else:
            kind = "scalar"
        out[name] = {"class": class_name, "group": str(info.getGroup()), "kind": kind,
                     "deterministic": not base["nondeterministic"].isAssignableFrom(c)}
    return dict(sorted(out.items()))


def load_registry(path: Path = REGISTRY) -> dict[str, dict]:
    return json.loads(path.read_text(encoding="utf-8"))


def statements(examples: str) -> list[tuple[str, dict[str, str]]]:
    """The example queries of one function's documentation, each with the settings the
    `SET` lines before it leave (a query starts at a line `> `, ends at a `;` that ends a
    line; the lines after it are its printed output)."""
    out, settings = [], {}
    current: list[str] | None = None
    for line in examples.splitlines():
        text = line.strip()
        if current is None and text.startswith("> "):
            current = [text[2:]]
        elif current is not None:
            current.append(text)
        if current is not None and current[-1].endswith(";"):
            sql = " ".join(current)[:-1].strip()
            current = None
            if sql.upper().startswith("SET "):
                key, _, value = sql[4:].partition("=")
                settings = {**settings, key.strip(): value.strip()}
            else:
                out.append((sql, settings))
    return out


# ---------------------------------------------------------------------------
# Arity mutations
# ---------------------------------------------------------------------------


def calls(sql: str, name: str) -> list[tuple[int, int, list[tuple[int, int]]]]:
    """Every call `name(...)` in the text: (start of the name, position after the closing
    parenthesis, the (start, end) of each top-level argument)."""
    try:
        tokens = Spark().tokenize(sql)
    except Exception:  # noqa: BLE001 - text sqlglot cannot tokenize has no call to find
        return []
    out = []
    for i, tok in enumerate(tokens[:-1]):
        if tok.text.lower() != name or tokens[i + 1].token_type != TokenType.L_PAREN:
            continue
        if i > 0 and tokens[i - 1].token_type == TokenType.DOT:
            continue  # a field or a qualified name, not the function
        depth, args, start = 0, [], None
        for tok2 in tokens[i + 1:]:
            if tok2.token_type in (TokenType.L_PAREN, TokenType.L_BRACKET):
                depth += 1
                if depth == 1:
                    continue
            elif tok2.token_type in (TokenType.R_PAREN, TokenType.R_BRACKET):
                depth -= 1
                if depth == 0:
                    if start is not None:
                        args.append((start, end))
                    out.append((tok.start, tok2.end + 1, args))
                    break
            elif tok2.token_type == TokenType.COMMA and depth == 1:
                args.append((start, end))
                start = None
                continue
            if start is None:
                start = tok2.start
            end = tok2.end + 1
    return out


def arity_mutations(name: str, examples: list[tuple[str, dict]]) -> list[tuple[str, str, dict]]:
    """(kind, SQL, settings): the function's shortest call in its examples with its last
    argument dropped, and its longest with its last argument repeated (a call of no
    arguments gets `1`).  Nothing when no example calls it by name (operators, `CASE`)."""
    found = [(sql, settings, c) for sql, settings in examples for c in calls(sql, name)]
    if not found:
        return []
    out = []
    sql, settings, (_, close, args) = min(found, key=lambda f: len(f[2][2]))
    if args:
        cut = args[-2][1] if len(args) > 1 else args[0][0]
        out.append((TOO_FEW, sql[:cut] + sql[close - 1:], settings))
    sql, settings, (_, close, args) = max(found, key=lambda f: len(f[2][2]))
    extra = sql[args[-1][0]:args[-1][1]] if args else "1"
    at = args[-1][1] if args else close - 1
    out.append((TOO_MANY, sql[:at] + (", " if args else "") + extra + sql[at:], settings))
    return out


_SIGNATURE = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\(([^)]*)\)")


def usage_calls(name: str, usage: str) -> list[tuple[str, dict]]:
    """For a function no example calls (the casts `int(expr)`, `date(expr)`...): a call of
    the shortest and one of the longest signature of its usage text, `1` for each
    argument (Spark counts the arguments before it looks at their types)."""
    m = _SIGNATURE.match(usage)
    if not m or m.group(1).lower() != name or "..." in m.group(2):
        return []
    params = m.group(2)
    required = [p for p in re.sub(r"\[.*", "", params).split(",") if p.strip()]
    every = [p for p in re.sub(r"[\[\]]", "", params).split(",") if p.strip()]
    return [(f"SELECT {name}({', '.join(['1'] * n)})", {}) for n in sorted({len(required), len(every)})]


def cases(spark) -> list[dict]:
    """Every example and arity mutation of every documented function."""
    out = []
    for name, usage, text in registry(spark):
        examples = statements(text)
        for i, (sql, settings) in enumerate(examples):
            out.append({"function": name, "kind": EXAMPLE, "index": i, "sql": sql, "settings": settings})
        mutations = arity_mutations(name, examples) or arity_mutations(name, usage_calls(name, usage))
        for kind, sql, settings in mutations:
            out.append({"function": name, "kind": kind, "index": 0, "sql": sql, "settings": settings})
    return out


def catalog(mode: str, settings: dict[str, str]):
    """sparkfold's catalog (no tables) under the mode and a case's settings."""
    from sparkfold.plans.sql_in.catalog import Catalog, settings_from

    conf = {"spark.sql.ansi.enabled": MODES[mode], **settings}
    return Catalog().with_settings(**settings_from(conf.get))


def case_id(case: dict) -> str:
    return f"{case['function']}:{case['kind']}:{case['index']}"


# ---------------------------------------------------------------------------
# Spark's answers
# ---------------------------------------------------------------------------


def json_value(v):
    """A value of a collected row as JSON (readable; exact for what JSON holds)."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v) or (v == 0 and math.copysign(1, v) < 0):
            return {"double": repr(v)}
        return v
    if isinstance(v, decimal.Decimal):
        return {"decimal": str(v)}
    if isinstance(v, (bytes, bytearray)):
        return {"binary": bytes(v).hex()}
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return {type(v).__name__: v.isoformat()}
    if isinstance(v, datetime.timedelta):
        return {"interval": str(v)}
    if isinstance(v, dict):
        return {"map": [[json_value(k), json_value(x)] for k, x in v.items()]}
    if isinstance(v, tuple) and hasattr(v, "__fields__"):
        return {"struct": [[k, json_value(x)] for k, x in zip(v.__fields__, v)]}
    if isinstance(v, (list, tuple)):
        return [json_value(x) for x in v]
    return {type(v).__name__: str(v)}


def answer(spark, sql: str) -> dict:
    """Spark's answer to one query: its schema and rows, or its error class and whether
    the analysis raised it or the run."""
    from sparkfold.optimizer.verify import _error_of

    try:
        df = spark.sql(sql)
        schema = [[f.name, f.dataType.simpleString(), f.nullable] for f in df.schema.fields]
    except Exception as e:  # noqa: BLE001 - the query's error is its answer
        return {"error": _error_of(e)[0], "phase": "analysis"}
    try:
        rows = [[json_value(v) for v in r] for r in df.limit(ROW_LIMIT).collect()]
    except Exception as e:  # noqa: BLE001 - an error raised while running
        return {"error": _error_of(e)[0], "phase": "execution", "schema": schema}
    return {"schema": schema, "rows": rows}


class settings_applied:
    """The session with the case's settings (and the mode) for the block, restored after."""

    def __init__(self, spark, settings: dict[str, str]):
        self.spark, self.settings, self.old = spark, settings, {}

    def __enter__(self):
        for k, v in self.settings.items():
            self.old[k] = self.spark.conf.get(k, None)
            self.spark.conf.set(k, v)
        return self.spark

    def __exit__(self, *exc):
        for k, v in self.old.items():
            if v is None:
                self.spark.conf.unset(k)
            else:
                self.spark.conf.set(k, v)


def record(spark, progress=None) -> list[dict]:
    """Every case with Spark's answers in both modes.  A query run twice that gives
    different rows (a random or clock function) is marked `nondeterministic`."""
    out = cases(spark)
    for n, case in enumerate(out):
        case["answers"] = {}
        for mode, ansi in MODES.items():
            with settings_applied(spark, {"spark.sql.ansi.enabled": ansi, **case["settings"]}):
                first = answer(spark, case["sql"])
                if "rows" in first and answer(spark, case["sql"]) != first:
                    first["nondeterministic"] = True
            case["answers"][mode] = first
        if progress:
            progress(n + 1, len(out))
    return out


# ---------------------------------------------------------------------------
# The calls Spark names plainly (plans/ir/call_names.py)
# ---------------------------------------------------------------------------

CALL_NAMES = Path(__file__).parents[2] / "plans" / "ir" / "call_names.py"


def plain_calls(recorded: list[dict]) -> set[tuple[str, tuple[str, ...]]]:
    """The calls (function, argument types) of unmodelled functions that Spark names as
    `naming.call_name` does: each unaliased column of an example (or of an arity mutation
    Spark runs) that sparkfold names as Spark does confirms the calls in it; a column named
    otherwise blames its calls no other column confirmed, or, when every one of them was
    confirmed elsewhere, all of them (their names depend on more than the types)."""
    from sparkfold import optimize
    from sparkfold.optimizer.errors import SparkfoldError
    from sparkfold.plans.ir import expressions as E
    from sparkfold.plans.ir.naming import spark_name
    from sparkfold.plans.sql_in.expr_calls import opaque_call_key

    confirmed: set = set()
    blamed: list[set] = []
    for mode in MODES:
        for case in recorded:
            answer = case["answers"][mode]
            if "schema" not in answer or "error" in answer:
                continue
            try:
                plan = optimize(case["sql"], catalog(mode, case["settings"]), rules=[]).analyzed
            except SparkfoldError:
                continue
            if plan is None or len(plan.output) != len(answer["schema"]):
                continue
            names = {a.expr_id: n for a, (n, _, _) in zip(plan.output, answer["schema"])}
            for op in plan.walk():
                for e in op.expressions:
                    if not (isinstance(e, E.Alias) and e.auto and e.expr_id in names):
                        continue
                    keys = {opaque_call_key(o) for o in e.child.walk() if isinstance(o, E.Opaque)} - {None}
                    if spark_name(e.child) == names[e.expr_id]:
                        confirmed |= keys
                    elif keys:
                        blamed.append(keys)
    changed = True
    while changed:
        changed = False
        for keys in blamed:
            if keys and keys <= confirmed:
                confirmed -= keys
                changed = True
    return confirmed


def write_plain_calls(calls: set, path: Path = CALL_NAMES) -> None:
    lines = [f"    {c!r}," for c in sorted(calls)]
    text = path.read_text(encoding="utf-8")
    head = text[:text.index("PLAIN_CALLS")]
    path.write_text(head + "PLAIN_CALLS: frozenset[tuple[str, tuple[str, ...]]] = frozenset({\n"
                    + "\n".join(lines) + "\n})\n", encoding="utf-8")


def load(path: Path = GOLDEN) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write(recorded: list[dict], path: Path = GOLDEN) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for case in recorded:
            f.write(json.dumps(case, sort_keys=True, ensure_ascii=False) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--regenerate", action="store_true", help="ask Spark again and write the golden file")
    ap.add_argument("--registry", action="store_true",
                    help="with --regenerate: only write the registry's kinds of functions again")
    ap.add_argument("--call-names", action="store_true",
                    help="only write plans/ir/call_names.py again from the golden file (no Spark)")
    args = ap.parse_args(argv)
    if args.call_names:
        calls = plain_calls(load())
        write_plain_calls(calls)
        print(f"wrote {len(calls)} plainly named calls to {CALL_NAMES}")
        return 0
    if not args.regenerate:
        recorded = load()
        kinds = {k: sum(c["kind"] == k for c in recorded) for k in (EXAMPLE, TOO_FEW, TOO_MANY)}
        print(f"{len({c['function'] for c in recorded})} functions, {kinds[EXAMPLE]} examples, "
              f"{kinds[TOO_FEW] + kinds[TOO_MANY]} arity mutations in {GOLDEN}; "
              f"check them with python -m tests.oracles.function_docs_check")
        return 0
    from .session import spark_session

    spark = spark_session()
    t0 = time.time()

    def progress(done, total):
        print(f"\r  {done}/{total} recorded, {time.time() - t0:.0f} s", end="", file=sys.stderr, flush=True)

    REGISTRY.write_text(json.dumps(registry_kinds(spark), indent=1) + "\n", encoding="utf-8")
    if args.registry:
        print(f"wrote {REGISTRY}")
        return 0
    recorded = record(spark, progress)
    print(file=sys.stderr)
    write(recorded)
    print(f"wrote {len(recorded)} cases to {GOLDEN}")
    calls = plain_calls(recorded)
    write_plain_calls(calls)
    print(f"wrote {len(calls)} plainly named calls to {CALL_NAMES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
