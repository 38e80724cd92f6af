"""The captured clients' statements (statements.jsonl, written by `python -m
tests.corpus.clients`), and what each needs to run again without its client: a catalog
for sparkfold (the recorded schemas, session functions and settings), and the same
tables and functions on a Spark session, with small generated rows."""

from __future__ import annotations

import json
import os
import random
import re
import zlib
from dataclasses import dataclass, field
from typing import Any

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


# -- the same world on Spark ----------------------------------------------------------

_POOLS: dict[str, list[Any]] = {
    "tinyint": [0, 1, -1, 2], "smallint": [0, 1, -2, 7], "int": [0, 1, 2, -1, 3, 1], "bigint": [0, 1, 2, -1, 10, 3],
    "double": [0.0, -0.0, 0.5, 1.5, 2.0, 1.0, 0.9, 0.05], "float": [0.0, 1.5, 2.0, 0.5],
    "string": ["", "a", "b", "1", "john", "smith", "a b", "2020-01-02"], "boolean": [True, False, True],
    "binary": [b"", b"a"],
}


def _value(rnd: random.Random, typ: str, nullable: bool, words: tuple = ()):
    import datetime as dt
    import decimal

    if nullable and rnd.random() < 0.25:
        return None
    if typ == "string" and words and rnd.random() < 0.5:
        return rnd.choice(words)
    if typ in _POOLS:
        return rnd.choice(_POOLS[typ])
    if typ == "date":
        return rnd.choice([dt.date(2023, 1, 1), dt.date(2020, 2, 29), dt.date(1999, 12, 31)])
    if typ.startswith("timestamp"):
        return rnd.choice([dt.datetime(2023, 1, 1, 12, 0), dt.datetime(2020, 2, 29)])
    if typ.startswith("decimal"):
        return decimal.Decimal(rnd.choice(["0", "1.5", "-2", "10"]))
    if typ.startswith("array<"):
        inner = typ[len("array<"):-1]
        return [_value(rnd, inner, True, words) for _ in range(rnd.randrange(3))]
    return None


def rows_of(table: str, columns: dict, count: int = 8, words: tuple = ()) -> list[tuple]:
    """Rows of small values full of NULLs; strings drawn half the time from `words` (the
    string literals of the statement, so that its filters and joins select something)."""
    from sparkfold.plans.sql_in.catalog import parse_column_type

    rnd = random.Random(zlib.crc32(table.encode()))
    types = []
    for text in columns.values():
        dtype, nullable = parse_column_type(text)
        simple = dtype.simple_string()
        # a type the generator has no values for: NULL where the column allows it
        types.append((simple, nullable or not (simple in _POOLS or simple.startswith(("date", "timestamp", "decimal",
                                                                                        "array<")))))
    return [tuple(_value(rnd, t, n, words) for t, n in types) for _ in range(count)]


class SparkWorld:
    """Registers on one session what each statement reads: its tables (temp views, or
    tables under a temporary path for a qualified name), with generated rows, and its
    session functions (a deterministic Python stand-in of the recorded return type).
    A table is registered again only when a statement reads it with another schema."""

    def __init__(self, spark, scratch: str):
        self.spark = spark
        self.scratch = scratch
        self._tables: dict[str, str] = {}
        self._functions: set[str] = set()
        self._databases: list[str] = []

    def changes(self, st: ClientStatement) -> bool:
        """Would using the statement register again a table registered with another schema?"""
        return any(self._tables.get(name.lower()) not in (None, json.dumps(columns, sort_keys=True))
                   for name, columns in st.tables.items())

    def drop(self) -> None:
        """Drop what was registered (the tables under a qualified name, the temp views)."""
        for name in self._tables:
            try:
                if "." in name:
                    self.spark.sql(f"DROP TABLE IF EXISTS {name}")
                else:
                    self.spark.catalog.dropTempView(name)
            except Exception:  # noqa: BLE001 - gone already
                pass
        self._tables.clear()
        for db in self._databases:
            self.spark.sql(f"DROP DATABASE IF EXISTS {db} CASCADE")
        self._databases.clear()

    def use(self, st: ClientStatement) -> None:
        from tests.data import spark_schema

        for name, columns in st.tables.items():
            key = json.dumps(columns, sort_keys=True)
            if self._tables.get(name.lower()) == key:
                continue
            words = tuple(sorted(set(re.findall(r"'([^'\\]{1,40})'", st.query or ""))))
            df = self.spark.createDataFrame(rows_of(name, columns, words=words), spark_schema(columns))
            if "." in name:
                db = name.rsplit(".", 1)[0]
                if not self.spark.catalog.databaseExists(db):
                    self.spark.sql(f"CREATE DATABASE {db}")
                    self._databases.append(db)
                path = os.path.join(self.scratch, name.replace(".", "_") + str(len(self._tables)))
                df.write.mode("overwrite").option("path", path).saveAsTable(name)
            else:
                df.createOrReplaceTempView(name)
            self._tables[name.lower()] = key
        for key, fn in st.functions.items():
            name = key.rsplit("/", 1)[0]
            if name not in self._functions:
                self.spark.udf.register(name, _stand_in(fn["returns"]), fn["returns"])
                self._functions.add(name)


def _stand_in(returns: str):
    """A deterministic function of its arguments, of the recorded type (the session's own
    function, such as splink's jaro_winkler, lives in a jar the corpus does not carry)."""
    def similarity(*args):
        if any(a is None for a in args):
            return None
        texts = [str(a) for a in args]
        if returns == "string":
            return texts[0][:3]
        common = len(set(texts[0]) & set(texts[-1]))
        score = common / max(len(set(texts[0]) | set(texts[-1])), 1)
        return score if returns in ("double", "float") else int(score * 10)

    return similarity
