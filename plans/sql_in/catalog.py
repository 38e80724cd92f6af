"""Table schemas the analyzer resolves names against.

A catalog comes from a mapping `{"table": {"column": "type [not null]"}}` (table names
may be qualified, `db.t`), from the same mapping in a JSON file, from a `.sql` file of
CREATE TABLE statements (`SHOW CREATE TABLE`'s output), from the data itself (Parquet
files, Delta tables: `file_schemas`), or from a live
SparkSession (schemas, nullability included, read lazily with `spark.table(name)`;
the session's settings too: those sparkfold models, `settings.SETTINGS`, and the others
that change what a query means, `settings.UNMODELLED`).  Names are case-insensitive, as in
Spark by default.
"""

from __future__ import annotations

import functools
import re
import threading
import weakref
from pathlib import Path
from typing import Any, Callable, Mapping

from ..ir import types as T
from ..ir.errors import SchemaError, UnknownTableError
from ..ir.records import record
from .data_types import TypeParseError, parse_type
from .session_views import ViewDefinition, read_view
from .settings import SETTING_ON, SETTINGS, unmodelled_settings


@record(frozen=True)
class Column:
    name: str
    data_type: T.DataType
    nullable: bool = True
    source: str = ""  # where its NOT NULL comes from, when not the table's (a dbt test)


@record(frozen=True)
class TableSchema:
    name: str
    columns: tuple[Column, ...]
    source: str = ""  # where the schema comes from (a file, a session), for explain
    # the name parts Spark qualifies the table's columns with, lower case, when a session
    # says: ("spark_catalog", "db", "t") for a table of the current database `db`, ("v",)
    # for a temporary view, ("global_temp", "v") for a global one; () when unknown (a
    # table written `t` is then taken to be in `default`, see from_clause)
    qualifier: tuple[str, ...] = ()
    # a session's view: its definition, when sparkfold may read it (`session_views`)
    view: ViewDefinition | None = None

    def fact_source(self, column: Column) -> str:
        return column.source or self.source or "the schema given"


def parse_column_type(text: str) -> tuple[T.DataType, bool]:
    """`"int not null"` -> (INT, False); `"decimal(15,2)"` -> (decimal, True)."""
    if not isinstance(text, str):
        raise SchemaError(f"column type must be a string, got {text!r}")
    return _parse_column_type(text)


# a column type's constraint: `NOT NULL` (any case, any spacing), or a redundant `NULL`
_CONSTRAINT = re.compile(r"^(?P<body>.*?)\s+(?P<constraint>not\s+null|null)\s*$", re.IGNORECASE | re.DOTALL)


@functools.lru_cache(maxsize=4096)
def _parse_column_type(text: str) -> tuple[T.DataType, bool]:
    body = text.strip()
    nullable = True
    m = _CONSTRAINT.match(body)
    if m is not None:
        body, nullable = m["body"].strip(), not m["constraint"].lower().startswith("not")
    try:
        return parse_type(body), nullable
    except TypeParseError as e:
        where = f" in {text.strip()!r}" if body != text.strip() else ""
        raise SchemaError(f"{e}{where} (expected a Spark type such as int, decimal(15,2) or array<string>, "
                          f"optionally followed by NOT NULL)") from None


def session_settings(spark: Any) -> dict[str, Any]:
    """The settings of a live session (classic or Connect) that change what a query means:
    the Catalog's keywords, `unmodelled` (see plans.sql_in.settings) among them.  One call
    reads them all."""
    conf = _conf_in_one_call(spark)
    if conf is None:
        try:
            conf = {str(k): str(v) for k, v in dict(spark.conf.getAll).items()}
        except Exception:  # noqa: BLE001 - a session without getAll (Spark < 4): ask key by key
            conf = {key: spark.conf.get(key, default) for key, (_, default) in SETTINGS.items()}
    return settings_of_conf(conf)


def settings_of_conf(conf: Mapping[str, str]) -> dict[str, Any]:
    """`session_settings` from a session's settings as set (key -> value)."""
    return {**settings_from(lambda key, default: conf.get(key, default)), "unmodelled": unmodelled_settings(conf)}


_JSON_WRITERS: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()


def _conf_in_one_call(spark: Any) -> dict[str, str] | None:
    """A classic session's settings as one JSON text from its JVM (Jackson, which Spark
    ships), or None (Spark Connect, or no answer).  py4j's view of the map, which
    `spark.conf.getAll` iterates, costs a round trip per entry and one more for the
    exception that ends the iteration: tens of milliseconds per query in a hook."""
    jss = getattr(spark, "_jsparkSession", None)
    jvm = getattr(spark, "_jvm", None)
    if jss is None or jvm is None:
        return None
    import json

    try:
        kept = _JSON_WRITERS.get(spark)
        if kept is None:  # (the session's RuntimeConfig is one object: its proxy is kept too)
            kept = _JSON_WRITERS[spark] = (jvm.com.fasterxml.jackson.databind.ObjectMapper(), jss.conf())
        writer, jconf = kept
        conf = json.loads(writer.writeValueAsString(jconf.getAllAsJava()))
    except Exception:  # noqa: BLE001 - ask the usual way
        return None
    return {str(k): str(v) for k, v in conf.items()} if isinstance(conf, dict) else None


def settings_from(get: Callable[[str, str], Any]) -> dict[str, bool]:
    """The Catalog's settings from `get(spark_key, default)` (a session's conf, or the
    `--conf KEY=VALUE` pairs of the command line)."""
    return {name: str(get(key, default)).strip().lower() == SETTING_ON.get(key, "true")
            for key, (name, default) in SETTINGS.items()}


def _session_function_determinism(spark: Any) -> Callable[[str, int], bool | None]:
    """Ask a classic session whether a call of a function is deterministic: Spark's
    analysis of `SELECT f(NULL, ...)` (that many arguments) resolves the call to the
    function's expression, which says so (a Python UDF is deterministic unless marked
    `asNondeterministic()`; a Java or Scala UDF carries the flag).  Nothing runs.  A
    Spark Connect session shows no analyzed plan to the client, and any failure is no
    answer: None, and the function counts as possibly non-deterministic, as without a
    session."""
    def ask(name: str, n_args: int) -> bool | None:
        if getattr(spark, "_jsparkSession", None) is None or not name.isidentifier():
            return None  # Spark Connect; a name to quote
        try:
            if not spark.catalog.functionExists(name):  # (analysis would log Spark's error)
                return None
            df = spark.sql(f"SELECT {name}({', '.join(['NULL'] * n_args)})")
            return bool(df._jdf.queryExecution().analyzed().expressions().head().deterministic())
        except Exception:  # noqa: BLE001 - no answer: sparkfold assumes the worst
            return None

    def resolves(parts: tuple[str, ...]) -> bool:
        """Does the session resolve this name with no table (a session variable, DECLAREd:
        `v`, `session.v`, `system.session.v`)?  Spark's analysis of `SELECT <name>` says;
        nothing runs.  Asked only for a name sparkfold cannot resolve."""
        jss = getattr(spark, "_jsparkSession", None)
        if jss is None:
            return False  # Spark Connect: no answer (the JVM's, not spark.sql, which a hook may wrap)
        try:
            jss.sql("SELECT " + ".".join("`" + p.replace("`", "``") + "`" for p in parts)).schema()
            return True
        except Exception:  # noqa: BLE001 - not such a name
            return False

    def fields(text: str):
        """The fields of the schema Spark's analysis gives the query `text` (nothing
        runs), as pyspark's; raises where Spark rejects it or on Spark Connect."""
        import json

        from pyspark.sql.types import StructType

        plan = spark._jsparkSession.sql(text).queryExecution().analyzed()
        return plan, StructType.fromJson(json.loads(plan.schema().json())).fields

    def variable(parts: tuple[str, ...]) -> tuple[T.DataType, str, str] | None:
        """A session variable's type, its column name at the top of a select list and its
        text inside another expression's name, as Spark's analysis of `SELECT <name>,
        coalesce(<name>)` gives them; None when the name is not one."""
        name = ".".join("`" + p.replace("`", "``") + "`" for p in parts)
        try:
            plan, (top, inner) = fields(f"SELECT {name}, coalesce({name})")
            if "variablereference(" not in plan.expressions().head().toString().lower():
                return None  # (a function called without parentheses, `current_date`...)
            return from_spark_type(top.dataType), top.name, inner.name[len("coalesce("):-1]
        except Exception:  # noqa: BLE001 - not such a name, or no JVM to ask
            return None

    def relation(text: str) -> list[tuple[str, T.DataType, bool]] | None:
        """The (name, type, nullability) of each column of `SELECT * FROM <text>` (a
        table-valued function over constants) as Spark's analysis gives them, or None
        when Spark rejects it."""
        try:
            return [(f.name, from_spark_type(f.dataType), bool(f.nullable)) for f in fields(f"SELECT * FROM {text}")[1]]
        except Exception:  # noqa: BLE001 - Spark reports its own error for the query
            return None

    def hidden(table: str) -> tuple[T.DataType, bool] | None:
        """The type and nullability of the hidden column `_metadata` of the relation
        `table` (a file source's: file_path, file_name, file_size...), as Spark's
        analysis of `SELECT _metadata FROM <table>` gives them; None when it has none
        (or the name is something else there: a session variable)."""
        name = ".".join("`" + p.replace("`", "``") + "`" for p in table.split("."))
        try:
            plan, (top,) = fields(f"SELECT _metadata FROM {name}")
            if "variablereference(" in plan.expressions().head().toString().lower():
                return None
            return from_spark_type(top.dataType), bool(top.nullable)
        except Exception:  # noqa: BLE001 - no such column, or no JVM to ask
            return None

    ask.hidden = hidden  # type: ignore[attr-defined]
    ask.resolves = resolves  # type: ignore[attr-defined]
    ask.relation = relation  # type: ignore[attr-defined]
    ask.variable = variable  # type: ignore[attr-defined]
    return ask


def _session_qualifier(spark: Any, df: Any, name: str) -> tuple[str, ...]:
    """The name parts a session qualifies the columns of table `name` with (see
    TableSchema.qualifier): the current database's for a name written alone, none but its
    own for a temporary view.  A classic session shows them on the analyzed plan's alias
    (no call to the catalog); Spark Connect through its catalog.  () when neither says."""
    try:
        if getattr(df, "_jdf", None) is not None:
            alias = df._jdf.queryExecution().analyzed()
            if alias.nodeName() != "SubqueryAlias":
                return ()
            ident = alias.identifier()
            qualifier = ident.qualifier().mkString("\x00")
            parts = (qualifier.split("\x00") if qualifier else []) + [ident.name()]
        else:
            table = spark.catalog.getTable(name)
            parts = ([table.catalog] if table.catalog else []) + list(table.namespace or []) + [table.name]
    except Exception:  # noqa: BLE001 - no answer: the default database is assumed, as without a session
        return ()
    return tuple(str(p).lower() for p in parts)


def _normalize(name: str) -> str:
    return ".".join(p.strip("`").lower() for p in name.split("."))


class Catalog:
    """Resolves table names to schemas.  Thread-safe; holds no query state."""

    def __init__(self, tables: Mapping[str, TableSchema] | None = None, *, ansi: bool = True,
                 loader: Callable[[str], TableSchema | None] | None = None,
                 legacy_setops_precedence: bool = False, escaped_string_literals: bool = False,
                 decimal_precision_loss: bool = True, group_by_aliases: bool = True,
                 bang_equals_not: bool = False, concat_binary_as_string: bool = False,
                 legacy_null_in_empty: bool = False, quoted_regex_column_names: bool = False,
                 group_by_ordinal: bool = True, order_by_ordinal: bool = True, timestamp_ntz: bool = False,
                 unmodelled: tuple[tuple[str, str], ...] = (),
                 functions: Callable[[str, int], bool | None] | None = None):
        self._tables: dict[str, TableSchema] = {_normalize(k): v for k, v in (tables or {}).items()}
        self._loader = loader
        # a session's answer: is a call of this function (name, number of arguments)
        # deterministic?  None where the session does not say (see `function_deterministic`)
        self._functions = functions
        self._function_answers: dict[tuple[str, int], bool | None] = {}
        self._asked_session = False  # (a session variable or a relation's schema read)
        self._lock = threading.Lock()
        self.ansi = ansi
        # Spark's legacy option: set operations evaluated left to right, with no
        # precedence for INTERSECT (such chains pass through, see the analyzer)
        self.legacy_setops_precedence = legacy_setops_precedence
        # Spark's legacy option: a backslash in a string literal is itself, no escape
        # (such literals pass through, see the analyzer)
        self.escaped_string_literals = escaped_string_literals
        # spark.sql.decimalOperations.allowPrecisionLoss: decimal arithmetic past 38
        # digits gives up fraction digits (true) or keeps its scale bounded (false)
        self.decimal_precision_loss = decimal_precision_loss
        # spark.sql.groupByAliases: GROUP BY may name a select alias (no FROM column having
        # the name), or not
        self.group_by_aliases = group_by_aliases
        # spark.sql.legacy.bangEqualsNot: `x ! IN (...)`, `x IS ! NULL` read `!` as NOT
        # (without it Spark rejects them: such queries pass through, see the analyzer)
        self.bang_equals_not = bang_equals_not
        # spark.sql.function.concatBinaryAsString: concat of binaries only is a string
        self.concat_binary_as_string = concat_binary_as_string
        # spark.sql.legacy.nullInEmptyListBehavior set to true (see `null_in_empty_is_false`)
        self.legacy_null_in_empty = legacy_null_in_empty
        # spark.sql.parser.quotedRegexColumnNames: a backquoted name in a select list is a
        # regular expression over the input's column names (plans.sql_in.regex_columns)
        self.quoted_regex_column_names = quoted_regex_column_names
        # spark.sql.groupByOrdinal / orderByOrdinal: an integer literal in GROUP BY / ORDER
        # BY (SORT BY) names a select item by its position (true), or is a constant
        self.group_by_ordinal = group_by_ordinal
        self.order_by_ordinal = order_by_ordinal
        # spark.sql.timestampType=TIMESTAMP_NTZ: the name TIMESTAMP in a query's text (a
        # cast, a literal without a time zone) is TIMESTAMP_NTZ, as is to_timestamp's
        # result.  A schema's `timestamp` (a session's, a file's) is TIMESTAMP_LTZ still
        self.timestamp_ntz = timestamp_ntz
        # settings sparkfold does not model, set to other than Spark's default: the
        # queries they can change pass through (plans.sql_in.settings)
        self.unmodelled = tuple(unmodelled)

    @property
    def null_in_empty_is_false(self) -> bool:
        """Is `NULL IN (empty subquery)` FALSE (not NULL)?  Spark's default is FALSE with
        ANSI on and NULL with it off (SQLConf.legacyNullInEmptyBehavior: the setting, else
        not ANSI); with ANSI off it is taken to be NULL whatever the setting says (the
        rules then keep such an IN as it is: either answer holds)."""
        return self.ansi and not self.legacy_null_in_empty

    # -- construction ------------------------------------------------------
    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Mapping[str, str]], *, ansi: bool = True,
                     source: str = "the schema mapping", decimal_precision_loss: bool = True) -> "Catalog":
        if not isinstance(mapping, Mapping):
            raise SchemaError("a schema must map table names to {column: type} mappings")
        tables = {}
        for table, cols in mapping.items():
            if not isinstance(cols, Mapping):
                raise SchemaError(f"table {table!r}: expected a mapping of column names to types")
            columns = []
            for cname, ctype in cols.items():
                try:
                    dt, nullable = parse_column_type(ctype)
                except SchemaError as e:
                    raise SchemaError(f"table {table!r}, column {cname!r}: {e.message}") from None
                columns.append(Column(str(cname), dt, nullable))
            tables[table] = TableSchema(str(table), tuple(columns), source)
        return cls(tables, ansi=ansi, decimal_precision_loss=decimal_precision_loss)

    @classmethod
    def from_json(cls, path: str | Path, *, ansi: bool = True) -> "Catalog":
        import json

        try:
            text = Path(path).read_text()
        except OSError as e:
            raise SchemaError(f"cannot read schema file {str(path)!r}: {e.strerror}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise SchemaError(f"schema file {str(path)!r} is not valid JSON: {e.msg} "
                              f"(line {e.lineno}, column {e.colno})") from None
        return cls.from_mapping(data, ansi=ansi, source=str(path))

    @classmethod
    def from_file(cls, path: str | Path, name: str | None = None) -> "Catalog":
        """Schemas from a file: `.sql` (CREATE TABLE statements) or JSON; or one table's
        from its data: a Parquet file or folder, a Delta table (see `file_schemas`),
        named `name` or after the file or folder."""
        from .file_schemas import is_data_path, table_fields

        p = Path(path)
        if is_data_path(p):
            table, fields = table_fields(p, name)
            return cls({table: TableSchema(table, tuple(Column(n, t, nullable) for n, t, nullable in fields),
                                           f"the data's own schema ({p})")})
        if name is not None:
            raise SchemaError(f"{path}: NAME=PATH names a table of Parquet data or a Delta table; "
                              f"a schema file names its own tables")
        if str(path).lower().endswith((".sql", ".ddl")):
            try:
                text = Path(path).read_text(encoding="utf-8-sig")
            except (OSError, UnicodeDecodeError) as e:
                raise SchemaError(f"cannot read schema file {str(path)!r}: {getattr(e, 'strerror', None) or e}") \
                    from None
            return cls.from_ddl(text, str(path))
        return cls.from_json(path)

    @classmethod
    def from_ddl(cls, text: str, source: str = "the DDL") -> "Catalog":
        """Schemas from `CREATE TABLE name (column type [NOT NULL], ...)` statements, as
        Spark's `SHOW CREATE TABLE` prints them; other statements are skipped."""
        import sqlglot
        from sqlglot import exp
        from sqlglot.errors import ParseError as SqlglotParseError

        from .data_types import from_sqlglot

        try:
            statements = sqlglot.parse(text, read="spark")
        except SqlglotParseError as e:
            raise SchemaError(f"{source}: cannot read the CREATE TABLE statements: "
                              f"{str(e).splitlines()[0]}") from None
        tables: dict[str, TableSchema] = {}
        for st in statements:
            if not (isinstance(st, exp.Create) and str(st.args.get("kind", "")).upper() == "TABLE"
                    and isinstance(st.this, exp.Schema)):
                continue
            name = ".".join(p.name for p in st.this.this.parts)
            columns = []
            for cd in st.this.expressions:
                if not isinstance(cd, exp.ColumnDef) or cd.args.get("kind") is None:
                    raise SchemaError(f"{source}: table {name}: cannot read column {cd.sql('spark')!r}")
                try:
                    dt = from_sqlglot(cd.args["kind"])
                except TypeParseError as e:
                    raise SchemaError(f"{source}: table {name}, column {cd.name}: {e}") from None
                not_null = any(isinstance(c.args.get("kind"), exp.NotNullColumnConstraint)
                               and not c.args["kind"].args.get("allow_null")
                               for c in cd.args.get("constraints") or [])
                columns.append(Column(cd.name, dt, not not_null))
            tables[name] = TableSchema(name, tuple(columns), source)
        if not tables:
            raise SchemaError(f"{source}: no CREATE TABLE statement with columns")
        return cls(tables)

    @classmethod
    def from_spark(cls, spark: Any, settings: dict[str, Any] | None = None) -> "Catalog":
        """Schemas from a live session (classic or Spark Connect), read on first use; a
        view's definition too, where sparkfold may read it as Spark does
        (`session_views`).  `settings`: the session's (`session_settings`), when the
        caller read them already."""
        if settings is None:
            settings = session_settings(spark)
        current: list[tuple[str, ...]] = []

        def namespace() -> tuple[str, ...]:
            if not current:
                current.append((str(spark.catalog.currentCatalog()).lower(),
                                str(spark.catalog.currentDatabase()).lower()))
            return current[0]

        def load(name: str) -> TableSchema | None:
            try:
                df = spark.table(name)
                schema = df.schema
            except Exception:
                return None
            return TableSchema(name, tuple(_from_spark_field(f) for f in schema.fields), "the Spark session's catalog",
                               _session_qualifier(spark, df, name), read_view(df, settings, namespace))

        return cls({}, loader=load, functions=_session_function_determinism(spark), **settings)

    def session_resolves(self, parts: tuple[str, ...]) -> bool:
        """Does the live session this catalog reads (`from_spark`) resolve a name its
        schemas do not show: a hidden column (`_metadata`, and the other names a source
        may hide, which begin with `_`), a session variable?"""
        resolves = getattr(self._functions, "resolves", None)
        if resolves is None:
            return False
        return any(p.startswith("_") for p in parts) or resolves(parts)

    def session_variable(self, parts: tuple[str, ...]) -> tuple[T.DataType, str, str] | None:
        """(type, column name, name inside a call) of the session variable this name reads
        (DECLARE VARIABLE: `v`, `session.v`, `system.session.v`), asked of the live session
        this catalog reads (`from_spark`); None when there is none or it is no variable.
        A result that read one is not reused (`asked_functions`: a variable may be declared
        again with another type, or set to another value, which its name shows)."""
        return self._ask_session("variable", parts)  # (asked each time: the name inside a call shows the value)

    def hidden_metadata(self, table: str) -> tuple[T.DataType, bool] | None:
        """The type and nullability of the hidden column `_metadata` of a table the live
        session this catalog reads has (a file source's), or None.  A result that read
        one is not reused (`asked_functions`: a table made again from another format has
        other metadata fields under the same schema)."""
        return self._ask_session("hidden", table)

    def session_relation(self, text: str) -> list[tuple[str, T.DataType, bool]] | None:
        """The columns (name, type, nullability) of the relation `text` (a table-valued
        function over constants) as the live session this catalog reads gives them; None
        without a session or where Spark rejects it.  A result that read one is not reused
        (`asked_functions`: a SQL table function may be defined again)."""
        return self._ask_session("relation", text)

    def _ask_session(self, question: str, arg: Any) -> Any:
        """The live session's answer to `question` (a function `from_spark` gives this
        catalog), None without one; an answer marks the results that read it as not to
        be reused (`asked_functions`)."""
        ask = getattr(self._functions, question, None)
        if ask is None:
            return None
        answer = ask(arg)
        if answer is not None:
            self._asked_session = True
        return answer

    def function_deterministic(self, name: str, n_args: int) -> bool | None:
        """Does the session say a call of the function `name` (one it registered: a Python
        or Java UDF, a temporary function) with n_args arguments is deterministic?  None
        when there is no session to ask or it does not know the name."""
        if self._functions is None:
            return None
        key = (name.lower(), n_args)
        if key not in self._function_answers:
            answer = self._functions(*key)
            with self._lock:
                self._function_answers[key] = answer
        return self._function_answers[key]

    @classmethod
    def from_remote(cls, url: str) -> "Catalog":
        """Schemas from a Spark Connect server (`sc://host:port`), read on first use,
        under that session's settings (ANSI mode...)."""
        import socket
        import warnings
        from urllib.parse import urlparse

        # the Connect client retries an unreachable server for minutes: ask first
        try:
            where = urlparse(url)
            with socket.create_connection((where.hostname or "localhost", where.port or 15002), timeout=10):
                pass
        except (OSError, ValueError) as e:
            raise SchemaError(f"cannot read schemas from {url}: no Spark Connect server answers there "
                              f"({getattr(e, 'strerror', None) or e})") from None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # pyspark's about pandas versions
            try:
                from pyspark.sql import SparkSession
            except ImportError:
                raise SchemaError(f"{url}: reading schemas from Spark Connect needs pyspark "
                                  f"(pip install 'sparkfold[spark]')") from None
            try:
                spark = SparkSession.builder.remote(url).getOrCreate()
                spark.conf.get("spark.sql.ansi.enabled", "true")
            except Exception as e:  # noqa: BLE001 - any failure to connect is the user's to fix
                first = (str(e).strip().splitlines() or [type(e).__name__])[0]
                raise SchemaError(f"cannot read schemas from {url}: {first[:200]}") from None
        return cls.from_spark(spark)

    @classmethod
    def merged(cls, catalogs: list["Catalog"]) -> "Catalog":
        """The tables of several catalogs (a table in two of them is an error); tables
        the given ones do not have are looked up in their sessions, in order."""
        tables: dict[str, TableSchema] = {}
        for c in catalogs:
            for key, schema in c._tables.items():
                if key in tables and tables[key] != schema:
                    raise SchemaError(f"table {schema.name!r} is given twice, with different schemas")
                tables[key] = schema
        loaders = [c._loader for c in catalogs if c._loader is not None]

        def load(name: str) -> TableSchema | None:
            return next((found for found in (f(name) for f in loaders) if found is not None), None)

        return cls(tables, loader=load if loaders else None,
                   unmodelled=next((c.unmodelled for c in catalogs if c.unmodelled), ()),
                   functions=next((c._functions for c in catalogs if c._functions is not None), None))

    def without_not_null(self, table: str, column: str) -> "Catalog":
        """The same schemas with one column taken as nullable (what explain asks: which
        rewrites rest on that NOT NULL)."""
        schema = self.lookup(table)
        cols = tuple(Column(c.name, c.data_type, True) if c.name.lower() == column.lower() else c
                     for c in schema.columns)
        out = Catalog(None, loader=self._loader, functions=self._functions, **self.settings_by_name())
        out._tables = {**self._tables, _normalize(table): TableSchema(schema.name, cols, schema.source, schema.qualifier,
                                                                      schema.view)}
        return out

    def settings_by_name(self) -> dict[str, Any]:
        """The session settings this catalog analyzes under, by keyword: those of
        SETTINGS, then `unmodelled` ((key, value) pairs, see plans.sql_in.settings)."""
        return {**{name: getattr(self, name) for name, _default in SETTINGS.values()}, "unmodelled": self.unmodelled}

    def with_loader(self, loader: Callable[[str], TableSchema | None]) -> "Catalog":
        """The same catalog reading the tables it does not hold through `loader` (the
        spark.sql hook's, which keeps schemas between queries)."""
        out = Catalog(None, loader=loader, functions=self._functions, **self.settings_by_name())
        out._tables = dict(self._tables)
        return out

    @property
    def loader(self) -> Callable[[str], TableSchema | None] | None:
        return self._loader

    @property
    def asked_functions(self) -> bool:
        """Did this catalog ask its session about a function, a session variable or a
        table function's schema (what a result then depends on)?"""
        return bool(self._function_answers) or self._asked_session

    def with_settings(self, **settings: Any) -> "Catalog":
        """The same schemas under a session's settings (see `session_settings`); a setting
        not given, or given as None, keeps its value."""
        merged = {**self.settings_by_name(), **{k: v for k, v in settings.items() if v is not None}}
        merged["unmodelled"] = tuple(merged["unmodelled"])
        if merged == self.settings_by_name():
            return self
        out = Catalog(None, loader=self._loader, functions=self._functions, **merged)
        out._tables = self._tables
        return out

    @property
    def settings(self) -> tuple:
        """The session settings the catalog holds, in `settings_by_name` order: what the
        optimization depends on besides the schemas."""
        return tuple(self.settings_by_name().values())

    @classmethod
    def coerce(cls, catalog: Any) -> "Catalog":
        """A Catalog from whatever the public API accepts (Catalog, mapping, session)."""
        if catalog is None:
            return cls({})
        if isinstance(catalog, Catalog):
            return catalog
        if isinstance(catalog, Mapping):
            return cls.from_mapping(catalog)
        if isinstance(catalog, str) and catalog.startswith("sc://"):
            return cls.from_remote(catalog)
        if isinstance(catalog, (str, Path)):
            return cls.from_file(catalog)
        if hasattr(catalog, "table") and hasattr(catalog, "conf"):
            return cls.from_spark(catalog)
        raise SchemaError(f"cannot use {type(catalog).__name__} as a catalog")

    # -- lookup --------------------------------------------------------------
    def candidates(self, name: str) -> list[str]:
        n = _normalize(name)
        parts = n.split(".")
        out = [n]
        if len(parts) == 1:
            out.append("default." + n)
        if len(parts) == 3 and parts[0] == "spark_catalog":
            out.append(".".join(parts[1:]))
        if len(parts) >= 2 and parts[-2] == "default":
            out.append(parts[-1])
        return out

    def lookup(self, name: str) -> TableSchema:
        for key in self.candidates(name):
            if key in self._tables:
                return self._tables[key]
        if self._loader is not None:
            schema = self._loader(name)
            if schema is not None:
                with self._lock:
                    self._tables[_normalize(name)] = schema
                return schema
        raise UnknownTableError(name, list(self._tables))

    def table_names(self) -> list[str]:
        return list(self._tables)


def _from_spark_field(f) -> Column:
    return Column(f.name, from_spark_type(f.dataType), bool(f.nullable))


def from_spark_type(dt) -> T.DataType:
    """Convert a pyspark.sql.types.DataType (classic or Connect) to ours."""
    name = type(dt).__name__
    if name == "DecimalType":
        return T.DecimalType(dt.precision, dt.scale)
    if name == "ArrayType":
        return T.ArrayType(from_spark_type(dt.elementType), bool(dt.containsNull))
    if name == "MapType":
        return T.MapType(from_spark_type(dt.keyType), from_spark_type(dt.valueType),
                         bool(dt.valueContainsNull))
    if name == "DayTimeIntervalType":
        return T.day_time_interval(dt.startField, dt.endField)
    if name == "YearMonthIntervalType":
        return T.year_month_interval(dt.startField, dt.endField)
    if name == "StructType":
        return T.StructType(tuple(T.StructField(f.name, from_spark_type(f.dataType), bool(f.nullable))
                                  for f in dt.fields))
    if name == "StringType" and getattr(dt, "collation", "UTF8_BINARY") not in ("UTF8_BINARY", None):
        # a collated string (`STRING COLLATE UTF8_LCASE`), whose comparisons sparkfold
        # does not model ('a' = 'A' is true there): a type it does not know
        return T.UNKNOWN
    simple = {
        "BooleanType": T.BOOLEAN, "ByteType": T.BYTE, "ShortType": T.SHORT, "IntegerType": T.INT,
        "LongType": T.LONG, "FloatType": T.FLOAT, "DoubleType": T.DOUBLE, "StringType": T.STRING,
        "BinaryType": T.BINARY, "DateType": T.DATE, "TimestampType": T.TIMESTAMP,
        "TimestampNTZType": T.TIMESTAMP_NTZ, "NullType": T.NULL,
        "CharType": T.STRING, "VarcharType": T.STRING, "CalendarIntervalType": T.CALENDAR_INTERVAL,
    }
    return simple.get(name, T.UNKNOWN)
