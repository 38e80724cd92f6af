"""The captured clients' statements (statements.jsonl, written by `python -m
tests.corpus.clients`), and what each needs to run again without its client: a catalog
for sparkfold (the recorded schemas, session functions and settings)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from . import STATEMENTS


@dataclass(frozen=True)
class ClientStatement:
    name: str                 # client:n, e.g. splink:12
    client: str
    sql: str                  # the statement as the client sent it
    query: str | None         # the query it is or wraps; None when it holds none (SHOW, DROP...)
    tables: dict = field(hash=False)     # table -> {column: type}, as the session had them
    functions: dict = field(hash=False)  # "name/arity" -> {"returns": type, "deterministic": bool}
    conf: dict = field(hash=False)       # the session's settings that differ from Spark's default
    spark_accepts: bool | None = None    # did Spark analyze the query when the client sent it
    sends: int = 1            # how many times the client sent it


def statements(path: str | None = None) -> list[ClientStatement]:
    out, counts = [], {}
    with open(path or STATEMENTS, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            counts[r["client"]] = counts.get(r["client"], 0) + 1
            out.append(ClientStatement(f"{r['client']}:{counts[r['client']]}", r["client"], r["sql"], r["query"],
                                       r["tables"], r["functions"], r["conf"], r["spark_accepts"], r["sends"]))
    return out


def ansi(st: ClientStatement) -> bool:
    return str(st.conf.get("spark.sql.ansi.enabled", "true")).lower() != "false"


def catalog(st: ClientStatement):
    """sparkfold's catalog for the statement: what the hook read from the client's session."""
    from sparkfold.plans.ir.errors import SparkfoldError
    from sparkfold.plans.sql_in.catalog import Catalog, settings_from
    from sparkfold.plans.sql_in.settings import unmodelled_settings

    tables = Catalog.from_mapping(st.tables, source="the client's session")
    functions = {tuple(k.rsplit("/", 1)): v["deterministic"] for k, v in st.functions.items()}

    def load(name: str):
        try:
            return tables.lookup(name)
        except SparkfoldError:
            return None

    settings = settings_from(lambda key, default: st.conf.get(key, default))
    return Catalog(None, functions=lambda name, n: functions.get((name.lower(), str(n))),
                   unmodelled=unmodelled_settings(st.conf), **settings).with_loader(load)
