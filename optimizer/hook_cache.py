"""What the spark.sql hook keeps from one query to the next, and how it knows it still holds.

A hooked `spark.sql` call optimizes against the session's schemas and settings.  Read
afresh through py4j for every query they cost more than the optimization itself (a
round trip per setting and several per table).  The hook keeps instead:

- `SessionSchemas`: each table's schema, as read once.  It is never trusted blindly:
  after a query is optimized, every table it read is checked again, in one JVM call
  for all of them (`SessionSchemas.snapshot`, a small helper compiled in the JVM with
  Janino, which Spark ships).  That call returns the session's settings and current
  namespace, and for each table name a token naming the object the session reads for
  it: the same token means the very same object (see "Why a token is enough" below).
  A table whose token the helper cannot give (a view kept as SQL text, a permanent view,
  a table of another catalog or source, one this session has not read since it was last
  refreshed, a name it cannot quote) is checked by its fingerprint instead: its
  columns as Spark's JSON (names, types, nullability), read for all such tables in one
  more JVM call (one query that selects `struct(t.*)` of each, analyzed, never run).
  A table dropped and made again with other nullability shows in one or the other,
  however it was done (SQL through the hook or not, `createOrReplaceTempView`, the JVM
  directly, another session); the query is then optimized again with the new schema.
  So a stale schema never reaches Spark in a rewrite.
- `Results`: the outcome of recent statements, by text and session settings (LRU,
  bounded), each with what the tables it read were verified against (their tokens, or
  their fingerprints): a statement sent again is not optimized again while those still
  match.  For a statement whose tables all have tokens that costs the one JVM call that
  also reads the settings.  A view whose definition it read (which neither shows) is
  looked up in the session again instead, and must be the same whole: columns,
  qualifier, definition text, the temporary views it read when made, and sparkfold's
  reading of it under the settings and database now (the hook's `SqlHook._still_holds`).
  A result that asked the session about a function (a UDF's determinism) is not kept:
  that answer is not re-verified.

Why a token is enough.  The helper gives a token to two kinds of tables.  First, a
temporary view (`v`) or a global temporary view (`global_temp.v`) that keeps its analyzed
plan (`TemporaryViewRelation.plan` defined: every view made from a DataFrame).  Spark reads
such a view as that plan (`SessionCatalog.getTempViewPlan`), never analyzing it again,
so its columns, types, nullability and qualifier are fixed by the object and by the
settings (`spark.sql.caseSensitive` formats the names).  Every way of changing a view
(`createOrReplaceTempView`, even of the same DataFrame; CREATE OR REPLACE; ALTER VIEW;
DROP) puts a new object in the catalog or none, and a global temporary view lives in the
one `GlobalTempViewManager` every session of the SparkContext shares.  The helper looks
the name up as Spark's analyzer does (`getRawTempView`, `getRawGlobalTempView`: a
temporary view shadows any table of the name) and gives each object it sees under a name
a serial number, held with a weak reference (no view is kept alive) and never given
twice.  Second, a table of the session catalog (`t`, `db.t`, `spark_catalog.db.t`, in
the session catalog, with no temporary view of the name) whose metadata, read again at
every probe, says a table (managed or external, not a view) of a built-in file source
(parquet, orc, json, csv, text, avro), while no setting replaces the session catalog or
the sources read as such (`spark.sql.catalog.spark_catalog`,
`spark.sql.sources.useV1SourceList` unset).  Spark's analyzer reads such a table as the
relation this session caches under its qualified name (`FindDataSourceTable`,
`SessionCatalog.getCachedPlan`), whatever the metadata says since; the token names that
relation, and there is none until the session has read the table.  Another session
dropping the table and making it again leaves this session's relation in place, and this
session's Spark goes on reading it: the token stays, and so does what Spark reads (a
REFRESH TABLE, or an ALTER or DROP in this session, drops the relation, and with it the
token; a view made in the table's place fails the metadata's test).  A token also carries an id of the settings and the current catalog and namespace
it was taken under, given anew for every other state.  A token is taken before the schema
it vouches for is read (or, for a kept one, before its fingerprint is checked): the same
token afterwards means no change came between.
"""

from __future__ import annotations

import collections
import itertools
import json
import re
import threading
import uuid
from typing import Any, Callable, Hashable, Iterable, NamedTuple

from ..plans.sql_in.catalog import TableSchema, _from_spark_field, settings_of_conf

# a name the check query can quote part by part as `spark.table` would read it
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*){0,2}")


def checkable(name: str) -> bool:
    return _PLAIN_NAME.fullmatch(name) is not None


# The JVM side of the check (compiled once per JVM with Janino, which Spark ships for its
# code generation): one call returns the session's settings, its current catalog and
# namespace, and for each name a token that names the object the session's catalog holds
# for it (`T<n>`, `G<n>`), or `?` where it cannot vouch for the table.  A token is a serial
# number the helper gives each object it sees under a name (held weakly: the helper keeps
# no view alive), never given twice: the same token twice means the very same object.
_PROBE_SOURCE = r"""
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.TreeMap;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.spark.sql.catalyst.QualifiedTableName;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.catalog.CatalogTableType;
import org.apache.spark.sql.catalyst.catalog.SessionCatalog;
import org.apache.spark.sql.catalyst.catalog.TemporaryViewRelation;
import org.apache.spark.sql.connector.catalog.CatalogManager;
import org.apache.spark.sql.internal.SQLConf;

private SessionCatalog catalog;
private SQLConf conf;
private CatalogManager manager;
private final ObjectMapper json = new ObjectMapper();
private final HashMap seen = new HashMap();
private long serial;

public void init(SessionCatalog catalog, SQLConf conf, CatalogManager manager) {
    this.catalog = catalog;
    this.conf = conf;
    this.manager = manager;
}

public synchronized String probe(String names) throws Exception {
    StringBuilder out = new StringBuilder();
    if (names.length() > 0) {
        String[] list = names.split("\n", -1);
        for (int i = 0; i < list.length; i++) {
            if (i > 0) out.append(' ');
            out.append(token(list[i]));
        }
    }
    TreeMap settings = new TreeMap();
    scala.collection.Iterator it = conf.getAllConfs().iterator();
    while (it.hasNext()) {
        scala.Tuple2 kv = (scala.Tuple2) it.next();
        settings.put(kv._1(), kv._2());
    }
    out.append('\n').append(json.writeValueAsString(settings));
    out.append('\n').append(manager.currentCatalog().name());
    String[] namespace = manager.currentNamespace();
    for (int i = 0; i < namespace.length; i++) out.append('.').append(namespace[i]);
    return out.toString();
}

private String token(String name) {
    String[] parts = name.split("\\.", -1);
    scala.Option found;
    String kind;
    if (parts.length == 1) {
        found = catalog.getRawTempView(parts[0]);
        kind = "T";
    } else if (parts.length == 2 && catalog.isGlobalTempViewDB(parts[0])) {
        found = catalog.getRawGlobalTempView(parts[1]);
        kind = "G";
    } else {
        return permanent(name, parts);
    }
    if (found.isEmpty()) return parts.length == 1 ? permanent(name, parts) : "?";
    TemporaryViewRelation view = (TemporaryViewRelation) found.get();
    if (view.plan().isEmpty()) return "?";
    return serial(kind, name, view);
}

private String serial(String kind, String name, Object object) {
    String key = kind + name;
    Object[] kept = (Object[]) seen.get(key);
    if (kept != null && ((WeakReference) kept[0]).get() == object) return kind + kept[1];
    if (seen.size() > 100000) seen.clear();
    serial++;
    seen.put(key, new Object[] {new WeakReference(object), Long.valueOf(serial)});
    return kind + serial;
}

"""

# the tables of the session catalog (written for Spark 4.1+: QualifiedTableName with its
# catalog, as FindDataSourceTable keys its cache); where it does not compile, the helper
# is made without it (only temporary views have tokens)
_PROBE_PERMANENT = r"""
// A table of the session catalog, read as Spark's analyzer reads it: its metadata says a
// table (not a view) of a built-in file source, which FindDataSourceTable reads as the
// relation this session caches under its qualified name (getCachedPlan), whatever the
// metadata says since: the token names that relation.  None cached (not read yet, or
// refreshed), another catalog, a catalog or source set up by the user: "?".
private String permanent(String name, String[] parts) {
    if (conf.contains("spark.sql.catalog.spark_catalog") || conf.contains("spark.sql.sources.useV1SourceList"))
        return "?";
    boolean inSession = "spark_catalog".equals(manager.currentCatalog().name());
    String db;
    String table;
    if (parts.length == 1 && inSession) {
        db = null;
        table = parts[0];
    } else if (parts.length == 2 && inSession && !manager.isCatalogRegistered(parts[0])
               && !"spark_catalog".equalsIgnoreCase(parts[0])) {
        db = parts[0];
        table = parts[1];
    } else if (parts.length == 3 && "spark_catalog".equalsIgnoreCase(parts[0])) {
        db = parts[1];
        table = parts[2];
    } else {
        return "?";
    }
    CatalogTable meta;
    try {
        meta = catalog.getTableRawMetadata(new TableIdentifier(table, scala.Option.apply(db)));
    } catch (Exception e) {
        return "?";
    }
    if (!(meta.tableType().equals(CatalogTableType.MANAGED()) || meta.tableType().equals(CatalogTableType.EXTERNAL())))
        return "?";
    if (meta.provider().isEmpty() || !FILE_SOURCES.contains(((String) meta.provider().get()).toLowerCase(java.util.Locale.ROOT)))
        return "?";
    Object cached = catalog.getCachedTable(new QualifiedTableName("spark_catalog", meta.database(), meta.identifier().table()));
    if (cached == null) return "?";
    return serial("P", name, cached);
}

private static final java.util.Set FILE_SOURCES = new java.util.HashSet(java.util.Arrays.asList(
    new String[] {"parquet", "orc", "json", "csv", "text", "avro"}));
"""

_PROBE_NO_PERMANENT = r"""
private String permanent(String name, String[] parts) {
    return "?";
}
"""

_PROBE_CLASSES: dict[int, tuple[Any, Any]] = {}  # id(py4j gateway) -> (gateway, compiled class)
_PROBE_LOCK = threading.Lock()


def _probe_helper(spark: Any) -> Any:
    """A new instance of the JVM helper, bound to this session's catalog and settings
    (its class compiled once per JVM), or None when it cannot be had."""
    jss = spark._jsparkSession
    try:
        gateway = spark.sparkContext._gateway
        with _PROBE_LOCK:
            kept = _PROBE_CLASSES.get(id(gateway))
            if kept is None or kept[0] is not gateway:
                for source in (_PROBE_SOURCE + _PROBE_PERMANENT, _PROBE_SOURCE + _PROBE_NO_PERMANENT):
                    try:
                        evaluator = spark._jvm.org.codehaus.janino.ClassBodyEvaluator()
                        # a name of its own: py4j caches methods by class name, and Janino
                        # names every class it makes `SC` unless told otherwise
                        evaluator.setClassName(f"sparkfold.HookProbe{uuid.uuid4().hex}")
                        evaluator.setParentClassLoader(jss.getClass().getClassLoader())
                        evaluator.cook(source)
                        break
                    except Exception:  # noqa: BLE001 - (an older Spark: try without the tables)
                        if source.endswith(_PROBE_NO_PERMANENT):
                            raise
                kept = _PROBE_CLASSES[id(gateway)] = (gateway, evaluator.getClazz())
        helper = kept[1].newInstance()
        state = jss.sessionState()
        helper.init(state.catalog(), state.conf(), state.catalogManager())
        return helper
    except Exception:  # noqa: BLE001 - no helper: every table is checked by its fingerprint
        return None


Kept = tuple  # (fingerprint or None, TableSchema, token or None)


class Snapshot(NamedTuple):
    """What one probe said: the session's settings (as `session_settings` gives them), an
    id for them and the current namespace (`state`: the same id, the same settings and
    namespace), and each name's token (`state/T12`), None where it cannot vouch."""

    settings: dict[str, Any]
    state: str
    tokens: dict[str, str | None]


class SessionSchemas:
    """The schemas of a classic session's tables, by the name a query gave (case kept:
    the name is part of the schema the analyzer builds), each with its token (what the
    session read for the name when it was verified) or its fingerprint, or both."""

    LIMIT = 4096  # tables kept

    def __init__(self, spark: Any):
        self._spark = spark
        self._jss = spark._jsparkSession
        self._lock = threading.Lock()
        # name -> (fingerprint or None, schema, token or None): a schema is kept verified
        # by its fingerprint, or by its token (then the fingerprint was never read)
        self._known: collections.OrderedDict[str, Kept] = collections.OrderedDict()
        self._helper: Any = None  # the JVM side of `snapshot` (see `prepare`); False: none to be had
        self._making: threading.Thread | None = None
        # the settings and namespace the helper said, each with an id never given twice
        self._states: collections.OrderedDict[str, tuple[str, dict]] = collections.OrderedDict()
        self._serial = itertools.count()

    def kept_entry(self, name: str) -> Kept | None:
        """What is kept for a name: (fingerprint or None, schema, token or None)."""
        with self._lock:
            hit = self._known.get(name)
            if hit is not None:
                self._known.move_to_end(name)
        return hit

    def prepare(self) -> threading.Thread:
        """Start making the JVM helper in the background, once (compiling it costs 0.1 to
        0.5 s the first time in a JVM: the hook starts it when installed, so that it is
        made while the program does something else); the thread making it."""
        with self._lock:
            if self._making is None:
                def make() -> None:
                    self._helper = _probe_helper(self._spark) or False

                self._making = threading.Thread(target=make, name="sparkfold-probe", daemon=True)
                self._making.start()
            return self._making

    def snapshot(self, names: Iterable[str] = ()) -> Snapshot | None:
        """One JVM call: the session's settings and namespace, and a token for each name
        (checkable ones only) that stays the same exactly while the session reads the same
        object for it (a temporary or global temporary view that keeps its analyzed plan,
        a file-source table's cached relation: their columns are then fixed), under the
        same settings and namespace; None when the helper cannot be had (the fingerprints
        check then).  See the module's docstring."""
        names = [n for n in names if checkable(n)]
        helper = self._helper
        if helper is None:
            self.prepare().join()
            helper = self._helper
        if helper is False:
            return None
        try:
            text = helper.probe("\n".join(names))
        except Exception:  # noqa: BLE001 - no answer: nothing vouched for
            return None
        first, _, header = text.partition("\n")
        with self._lock:
            known = self._states.get(header)
            if known is not None:
                self._states.move_to_end(header)
        if known is None:
            conf_text, _, _namespace = header.partition("\n")
            conf = json.loads(conf_text)
            known = (f"s{next(self._serial)}", settings_of_conf({str(k): str(v) for k, v in conf.items()}))
            with self._lock:
                known = self._states.setdefault(header, known)
                while len(self._states) > 64:
                    self._states.popitem(last=False)
        state, settings = known
        tokens = dict(zip(names, first.split(" "))) if names else {}
        return Snapshot(settings, state, {n: None if t == "?" else f"{state}/{t}" for n, t in tokens.items()})

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

    def verified(self, fresh: dict[str, TableSchema], reused: dict[str, Kept], pre: dict[str, str | None] | None = None,
                 state: str | None = None) -> dict[str, tuple[str, str]] | None:
        """After a query was optimized: did every schema it used hold?  `fresh`: the
        schemas read from the session during the query (kept if they are confirmed);
        `reused`: each name whose kept schema was used, with what was kept for it then
        (`kept_entry`: another statement may have kept another since); `pre`: the token of each fresh
        name taken just before it was read; `state`: the settings and namespace the query
        was optimized under (`Snapshot.state`).  A kept schema that no longer holds is
        forgotten.

        One probe (`snapshot`) gives each name's token now.  A name whose token is what it
        was when its schema was read (fresh: `pre`; kept: the token kept with it) is
        confirmed without asking Spark anything more: the catalog holds the very same
        object, whose columns are fixed.  The others are checked by their fingerprints,
        in one JVM call (`fingerprints`).  Returns what the query's schemas were verified
        against, name -> ("token", token) or ("print", fingerprint) (a result kept for
        reuse rests on exactly these), or None.  A name is kept with the token of the
        probe, taken before its fingerprint was read: the same token later means the same
        object as when the fingerprint said the schema holds."""
        names = sorted({*fresh, *reused})
        kept = reused
        now: dict[str, str | None] = {}
        if names:
            snap = self.snapshot(names)
            if snap is not None and (state is None or snap.state == state):
                now = snap.tokens
        vouched = {n for n in names if now.get(n) is not None
                   and now[n] == ((pre or {}).get(n) if n in fresh else kept[n][2])}
        rest = [n for n in names if n not in vouched]
        prints: dict[str, str] = {}
        if rest:
            got = self.fingerprints([fresh[n] if n in fresh else kept[n][1] for n in rest], rest)
            if got is None:
                with self._lock:
                    for n in reused:
                        if n not in vouched and self._known.get(n) is kept[n]:
                            self._known.pop(n, None)
                return None
            prints = got
        ok = True
        for n in reused:
            if n in vouched:
                continue
            hit = kept[n]  # (what the query used, whatever is kept now)
            # kept by its token, it has no fingerprint yet: its columns are compared (a view
            # made again from the same DataFrame is a new object with the same schema)
            if hit[0] == prints[n] if hit[0] is not None else \
                    all_in_fingerprint(hit[1]) and _columns_of(prints[n]) == hit[1].columns:
                with self._lock:
                    if self._known.get(n) is hit:
                        self._known[n] = (prints[n], hit[1], now.get(n))
            else:
                with self._lock:
                    if self._known.get(n) is hit:
                        self._known.pop(n, None)
                ok = False
        for n, schema in fresh.items():
            entry: Kept
            if n in vouched:
                entry = (None, schema, now[n])
            elif not all_in_fingerprint(schema):
                continue  # it says more than its columns (a view's definition): read afresh each time
            elif _columns_of(prints[n]) == schema.columns:
                entry = (prints[n], schema, now.get(n))
            else:  # changed between its read and the check: the query used a stale one
                ok = False
                continue
            with self._lock:
                self._known[n] = entry
                while len(self._known) > self.LIMIT:
                    self._known.popitem(last=False)
        if not ok:
            return None
        return {n: ("token", now[n]) if now.get(n) is not None else ("print", prints[n]) for n in names}  # type: ignore[misc]

    def current(self, expected: dict[str, tuple[str, str]], snap: Snapshot | None = None) -> bool:
        """Do these tables still hold what a kept result was verified against (`expected`,
        as `verified` returned it)?  Tokens are compared with those of `snap` (a probe
        taken for these names) or of a new probe; fingerprints are read again in one JVM
        call.  Not the schemas kept now: another statement may have read a table made
        again since, and kept its new schema."""
        tokens = {n: v for n, (kind, v) in expected.items() if kind == "token"}
        if tokens:
            if snap is None or not tokens.keys() <= snap.tokens.keys():
                snap = self.snapshot(tokens)
            if snap is None or any(snap.tokens.get(n) != t for n, t in tokens.items()):
                return False
        prints = {n: v for n, (kind, v) in expected.items() if kind == "print"}
        if not prints:
            return True
        names = list(prints)
        with self._lock:
            kept = [self._known.get(n) for n in names]
        if any(hit is None for hit in kept):
            return False
        got = self.fingerprints([hit[1] for hit in kept], names)  # type: ignore[index]
        return got is not None and all(got[n] == prints[n] for n in names)


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
