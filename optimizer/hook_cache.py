"""What the spark.sql hook keeps from one query to the next, and how it knows it still holds.

A hooked `spark.sql` call optimizes against the session's schemas and settings.  Read
afresh through py4j for every query they cost more than the optimization itself (a
round trip per setting and several per table).  The hook keeps instead:

- `SessionSchemas`: each table's schema, as read once, with its fingerprint (the table's
  columns as Spark's JSON: names, types, nullability).  It is never trusted blindly: after
  a query is optimized, the fingerprints of every table it read are read again in one
  JVM call (one query that selects `struct(t.*)` of each table, analyzed, never run) and
  compared.  A table dropped and re-created with other nullability shows there, however
  it was done (SQL through the hook or not, `createOrReplaceTempView`, another session);
  the query is then optimized again with the new schema.  So a stale schema never reaches
  Spark in a rewrite; what is saved is the parsing and converting of schemas, and all but
  one round trip per query.  Only what the fingerprint shows is kept: a schema carrying
  more (a view's definition, say) is read afresh for every query.
- `Results`: the outcome of recent statements, by text and session settings (LRU,
  bounded), each with the fingerprints of the tables it read: a statement sent again is
  not optimized again when those still match.  A view whose definition it read (which
  the fingerprint does not show) is looked up in the session again instead, and must be
  the same whole: columns, qualifier, definition text, the temporary views it read when
  made, and sparkfold's reading of it under the settings and database now (the hook's
  `SqlHook._still_holds`).  A result that asked the session about a function (a UDF's
  determinism) is not kept: that answer is not re-verified.
"""

from __future__ import annotations

import collections
import json
import re
import threading
from typing import Any, Callable, Hashable

from ..plans.sql_in.catalog import TableSchema, _from_spark_field

# a name the check query can quote part by part as `spark.table` would read it
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*){0,2}")


def checkable(name: str) -> bool:
    return _PLAIN_NAME.fullmatch(name) is not None


class SessionSchemas:
    """The schemas of a classic session's tables, by the name a query gave (case kept:
    the name is part of the schema the analyzer builds), with their fingerprints."""

    LIMIT = 4096  # tables kept

    def __init__(self, spark: Any):
        self._jss = spark._jsparkSession
        self._lock = threading.Lock()
        self._known: collections.OrderedDict[str, tuple[str, TableSchema]] = collections.OrderedDict()

    def cached(self, name: str) -> TableSchema | None:
        with self._lock:
            hit = self._known.get(name)
            if hit is not None:
                self._known.move_to_end(name)
        return hit[1] if hit is not None else None

    def fingerprints(self, tables: list[TableSchema], names: list[str]) -> dict[str, str] | None:
        """The current fingerprint of each table, read by its name in the query (one JVM
        call: a query reading them all is analyzed, never run), or None when Spark cannot
        say (a table gone, changed where it must not be) or the check cannot ask (a name
        it cannot quote, a table of unknown qualifier): then nothing is verified.

        Each table's columns are selected with the qualifier sparkfold took them to have
        (`spark_catalog.db.t.*`, `global_temp.v.*`, `v.*` for a temporary view), which
        Spark resolves only while the name still reads a table so qualified: the same
        columns under another database (after USE) fail the check.  (A temporary view's
        `v.*` also matches a table `v`, whose longer qualifier lets sparkfold accept no
        more than the view's did.)"""
        if not names:
            return {}
        if not all(checkable(n) and t.qualifier for n, t in zip(names, tables)):
            return None
        items = ", ".join(f"struct({'.'.join(_quoted(p) for p in t.qualifier)}.*) AS _sf{i}"
                          for i, t in enumerate(tables))
        read = ", ".join(".".join(_quoted(p) for p in n.split(".")) for n in names)
        try:
            doc = json.loads(self._jss.sql(f"SELECT {items} FROM {read}").schema().json())
            return {n: json.dumps(f["type"], sort_keys=True) for n, f in zip(names, doc["fields"], strict=True)}
        except Exception:  # noqa: BLE001 - no answer: nothing verified
            return None

    def verified(self, fresh: dict[str, TableSchema], reused: list[str]) -> dict[str, str] | None:
        """After a query was optimized: did every schema it used hold?  `fresh`: the
        schemas read from the session during the query (kept if their fingerprint says
        they were read right); `reused`: the names whose kept schema was used.  A kept
        schema that no longer holds is forgotten.  Returns the fingerprints the query's
        schemas were verified against (a result kept for reuse rests on exactly these),
        or None."""
        names = sorted({*fresh, *reused})
        with self._lock:
            kept = {n: self._known.get(n) for n in reused}
        if any(hit is None for hit in kept.values()):
            return None
        tables = [fresh[n] if n in fresh else kept[n][1] for n in names]  # type: ignore[index]
        prints = self.fingerprints(tables, names)
        if prints is None:
            with self._lock:
                for n in reused:
                    self._known.pop(n, None)
            return None
        ok = True
        with self._lock:
            for n in reused:
                hit = self._known.get(n)
                if hit is None or hit[0] != prints[n]:
                    self._known.pop(n, None)
                    ok = False
        for n, schema in fresh.items():
            if not all_in_fingerprint(schema):
                continue  # it says more than its columns (a view's definition): read afresh each time
            if _columns_of(prints[n]) == schema.columns:
                with self._lock:
                    self._known[n] = (prints[n], schema)
                    while len(self._known) > self.LIMIT:
                        self._known.popitem(last=False)
            else:  # changed between its read and the check: the query used a stale one
                ok = False
        return prints if ok else None

    def current(self, expected: dict[str, str]) -> bool:
        """Do these tables still have the fingerprints a kept result was verified against
        (`expected`, name -> fingerprint; one JVM call)?  Not the ones kept now: another
        statement may have read a table made again since, and kept its new schema."""
        names = list(expected)
        with self._lock:
            kept = [self._known.get(n) for n in names]
        if any(hit is None for hit in kept):
            return False
        prints = self.fingerprints([hit[1] for hit in kept], names)  # type: ignore[index]
        return prints is not None and all(prints[n] == expected[n] for n in names)


def _quoted(part: str) -> str:
    return "`" + part.replace("`", "``") + "`"


def all_in_fingerprint(schema: TableSchema) -> bool:
    """Does the check verify all the schema says: its columns and its qualifier (a schema
    that also carried what a fingerprint does not show, such as a view's definition,
    could not be kept)?  A view sparkfold does not read (no definition it may use) says
    only that it is a view, temporary or not, which its qualifier shows."""
    opaque = schema.view if schema.view is not None and not schema.view.text else None
    return schema == TableSchema(schema.name, schema.columns, schema.source, qualifier=schema.qualifier,
                                 view=opaque)


def _columns_of(fingerprint: str) -> tuple:
    from pyspark.sql.types import StructType

    return tuple(_from_spark_field(f) for f in StructType.fromJson(json.loads(fingerprint)).fields)


class Results:
    """The latest statements' outcomes (LRU, `limit` of them), by a key the caller
    builds (the text, the settings), each kept with what it depends on."""

    def __init__(self, limit: int):
        self.limit = max(limit, 0)
        self._lock = threading.Lock()
        self._entries: collections.OrderedDict[Hashable, tuple[Any, Any]] = collections.OrderedDict()
        self.hits = 0

    def get(self, key: Hashable, still_holds: Callable[[Any], bool]) -> Any:
        """The value kept for key when `still_holds(its dependencies)`; else None (and
        the entry is dropped)."""
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None:
                self._entries.move_to_end(key)
        if hit is None:
            return None
        value, depends = hit
        if not still_holds(depends):
            with self._lock:
                if self._entries.get(key) is hit:
                    del self._entries[key]
            return None
        with self._lock:
            self.hits += 1
        return value

    def put(self, key: Hashable, value: Any, depends: Any) -> None:
        if not self.limit:
            return
        with self._lock:
            self._entries[key] = (value, depends)
            self._entries.move_to_end(key)
            while len(self._entries) > self.limit:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
