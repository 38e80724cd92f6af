"""What a client sent to `spark.sql`, as sparkfold's hook saw it, with what the
statement needs to be run again without the client: the schemas of the tables it
reads, the functions the session registered that it calls, and the session's
settings that change what it means.

A `Recorder` is an `on_query` callback of the hook (`install(spark, on_query=...)`, or
`autohook.on_query` in a process run by `sparkfold run`).  One record per distinct text
(and table schemas, settings): a text sent again counts as another send."""

from __future__ import annotations

import json
from typing import Any

from sqlglot import exp


def _setting_keys() -> tuple[dict, dict]:
    from sparkfold.plans.sql_in.settings import SETTINGS, UNMODELLED

    return SETTINGS, UNMODELLED


def query_part(sql: str) -> str | None:
    """The query a statement is or wraps (`CREATE TABLE ... AS <query>`, `INSERT ...`),
    as the hook optimizes it; None when it holds none (SHOW, DESCRIBE, DROP, ...)."""
    from sparkfold.optimizer.statements import holds_no_query, wrapped_query
    from sparkfold.plans.ir.dialect import DIALECT

    if holds_no_query(sql):
        return None
    try:
        trees = DIALECT.parse(sql)
    except Exception:  # noqa: BLE001 - sparkfold cannot read it: the statement as a whole
        return sql
    if len(trees) != 1 or trees[0] is None:
        return sql
    tree = trees[0]
    if isinstance(tree, exp.Query):
        return sql
    span = wrapped_query(sql, tree)
    return sql[span[0]:span[1]] if span else None


def names_read(sql: str) -> tuple[list[str], list[tuple[str, int]]]:
    """The tables a query reads (its CTEs' names left out) and the calls of functions
    sqlglot does not know (name, number of arguments): the candidates for a session's own."""
    from sparkfold.plans.ir.dialect import DIALECT

    try:
        tree = DIALECT.parse(sql)[0]
    except Exception:  # noqa: BLE001
        return [], []
    if tree is None:
        return [], []
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    tables = []
    for t in tree.find_all(exp.Table):
        if not t.name or (not t.db and t.name.lower() in ctes) or isinstance(t.this, exp.Func):
            continue
        name = ".".join(p.name for p in t.parts)
        if name not in tables:
            tables.append(name)
    calls = []
    for f in tree.find_all(exp.Anonymous):
        key = (str(f.this).lower(), len(f.expressions))
        if key not in calls:
            calls.append(key)
    return tables, calls


def column_types(schema) -> dict[str, str]:
    """A Spark schema as the corpus's mapping: column -> type (`not null` when it is)."""
    return {f.name: f.dataType.simpleString() + ("" if f.nullable else " not null") for f in schema.fields}


class Recorder:
    """The hook's `on_query`: each statement with what it reads, once per distinct text."""

    def __init__(self, client: str, spark: Any = None):
        self.client = client
        self.spark = spark
        self.records: dict[tuple, dict] = {}

    def session(self):
        if self.spark is not None:
            return self.spark
        from pyspark.sql import SparkSession

        # (dbt's session is made in one of its threads: the process's session, not the thread's)
        return SparkSession._instantiatedSession or SparkSession.getActiveSession()

    def __call__(self, record) -> None:
        spark = self.session()
        sql = record.sql
        query = query_part(sql)
        tables, functions = {}, {}
        accepted: bool | None = None
        error = ""
        if query is not None and spark is not None:
            names, calls = names_read(query)
            for name in names:
                try:
                    tables[name] = column_types(spark.table(name).schema)
                except Exception:  # noqa: BLE001 - not a table (yet): Spark will say
                    pass
            for name, n in calls:
                described = _session_function(spark, name, n)
                if described:
                    functions[f"{name}/{n}"] = described
            accepted, error = _analyzes(spark, query)
        conf = _conf(spark) if spark is not None else {}
        key = (sql, json.dumps(tables, sort_keys=True), json.dumps(conf, sort_keys=True))
        kept = self.records.get(key)
        if kept is not None:
            kept["sends"] += 1
            return
        self.records[key] = {"client": self.client, "sql": sql, "query": query, "tables": tables,
                             "functions": functions, "conf": conf, "spark_accepts": accepted,
                             "spark_error": error, "sends": 1}

    def write(self, path: str, mode: str = "a") -> int:
        with open(path, mode, encoding="utf-8") as f:
            for r in self.records.values():
                f.write(json.dumps(r, sort_keys=True) + "\n")
        return len(self.records)


def _analyzes(spark, query: str) -> tuple[bool | None, str]:
    """Does Spark analyze the query (nothing runs)?  Asked of the JVM session directly,
    not through `spark.sql`, where the hook sits."""
    jss = getattr(spark, "_jsparkSession", None)
    if jss is None:
        return None, ""
    try:
        jss.sql(query)
        return True, ""
    except Exception as e:  # noqa: BLE001 - Spark's answer
        text = str(e).strip()
        return False, (text.splitlines()[0][:200] if text else type(e).__name__)


def _session_function(spark, name: str, n: int) -> dict | None:
    """A function the session registered (a Java or Python UDF, a temporary function):
    its return type and whether a call of it is deterministic, as Spark resolves it."""
    try:
        if not name.isidentifier() or not spark.catalog.functionExists(name) or not _registered(spark, name):
            return None
        df = spark.range(1).selectExpr(f"{name}({', '.join(['NULL'] * n)}) AS r")
        deterministic = bool(df._jdf.queryExecution().analyzed().expressions().head().deterministic())
        return {"returns": df.schema.fields[0].dataType.simpleString(), "deterministic": deterministic}
    except Exception:  # noqa: BLE001 - the session does not say
        return None


def _registered(spark, name: str) -> bool:
    """Did the session register the function (not one of Spark's built-ins, which the
    catalog lists as temporary too)?  Spark's SessionCatalog.isTemporaryFunction says."""
    try:
        ident = spark._jvm.org.apache.spark.sql.catalyst.FunctionIdentifier.apply(name)
        return bool(spark._jsparkSession.sessionState().catalog().isTemporaryFunction(ident))
    except Exception:  # noqa: BLE001 - no JVM to ask: Spark's built-ins are its expressions' classes
        fn = spark.catalog.getFunction(name)
        return bool(fn.isTemporary) and not str(fn.className or "").startswith("org.apache.spark.sql.catalyst.")


def _conf(spark) -> dict[str, str]:
    """The session's settings that change what a query means, where not Spark's default."""
    settings, unmodelled = _setting_keys()
    out = {}
    for key, default in [(k, d) for k, (_, d) in settings.items()] + [(k, d) for k, (d, _) in unmodelled.items()]:
        try:
            value = spark.conf.get(key, default)
        except Exception:  # noqa: BLE001
            continue
        if value is not None and str(value).strip().lower() != str(default).lower():
            out[key] = str(value)
    return out
