"""Table schemas the analyzer resolves names against.

A catalog comes from a mapping `{"table": {"column": "type [not null]"}}` (table names
may be qualified, `db.t`), from the same mapping in a JSON file, or from a live
SparkSession (schemas, nullability included, read lazily with `spark.table(name)`;
the session's `spark.sql.ansi.enabled` too).  Names are case-insensitive, as in Spark
by default.
"""

from __future__ import annotations

import functools
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from ..ir import types as T
from ..ir.errors import SchemaError, UnknownTableError
from .data_types import TypeParseError, parse_type


@dataclass(frozen=True)
class Column:
    name: str
    data_type: T.DataType
    nullable: bool = True


@dataclass(frozen=True)
class TableSchema:
    name: str
    columns: tuple[Column, ...]


def parse_column_type(text: str) -> tuple[T.DataType, bool]:
    """`"int not null"` -> (INT, False); `"decimal(15,2)"` -> (decimal, True)."""
    if not isinstance(text, str):
        raise SchemaError(f"column type must be a string, got {text!r}")
    return _parse_column_type(text)


@functools.lru_cache(maxsize=4096)
def _parse_column_type(text: str) -> tuple[T.DataType, bool]:
    body = text.strip()
    nullable = True
    lowered = body.lower()
    if lowered.endswith(" not null"):
        body, nullable = body[: -len(" not null")].strip(), False
    elif lowered.endswith(" null"):
        body = body[: -len(" null")].strip()
    try:
        return parse_type(body), nullable
    except TypeParseError as e:
        raise SchemaError(str(e)) from None


def _normalize(name: str) -> str:
    return ".".join(p.strip("`").lower() for p in name.split("."))


class Catalog:
    """Resolves table names to schemas.  Thread-safe; holds no query state."""

    def __init__(self, tables: Mapping[str, TableSchema] | None = None, *, ansi: bool = True,
                 loader: Callable[[str], TableSchema | None] | None = None):
        self._tables: dict[str, TableSchema] = {_normalize(k): v for k, v in (tables or {}).items()}
        self._loader = loader
        self._lock = threading.Lock()
        self.ansi = ansi

    # -- construction ------------------------------------------------------
    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Mapping[str, str]], *, ansi: bool = True) -> "Catalog":
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
            tables[table] = TableSchema(str(table), tuple(columns))
        return cls(tables, ansi=ansi)

    @classmethod
    def from_json(cls, path: str | Path, *, ansi: bool = True) -> "Catalog":
        try:
            text = Path(path).read_text()
        except OSError as e:
            raise SchemaError(f"cannot read schema file {str(path)!r}: {e.strerror}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise SchemaError(f"schema file {str(path)!r} is not valid JSON: {e.msg} "
                              f"(line {e.lineno}, column {e.colno})") from None
        return cls.from_mapping(data, ansi=ansi)

    @classmethod
    def from_spark(cls, spark: Any) -> "Catalog":
        """Schemas from a live session (classic or Spark Connect), read on first use."""
        ansi_text = str(spark.conf.get("spark.sql.ansi.enabled", "true")).lower()

        def load(name: str) -> TableSchema | None:
            try:
                schema = spark.table(name).schema
            except Exception:
                return None
            return TableSchema(name, tuple(_from_spark_field(f) for f in schema.fields))

        return cls({}, ansi=ansi_text == "true", loader=load)

    @classmethod
    def coerce(cls, catalog: Any) -> "Catalog":
        """A Catalog from whatever the public API accepts (Catalog, mapping, session)."""
        if catalog is None:
            return cls({})
        if isinstance(catalog, Catalog):
            return catalog
        if isinstance(catalog, Mapping):
            return cls.from_mapping(catalog)
        if isinstance(catalog, (str, Path)):
            return cls.from_json(catalog)
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
    if name == "StructType":
        return T.StructType(tuple(T.StructField(f.name, from_spark_type(f.dataType), bool(f.nullable))
                                  for f in dt.fields))
    simple = {
        "BooleanType": T.BOOLEAN, "ByteType": T.BYTE, "ShortType": T.SHORT, "IntegerType": T.INT,
        "LongType": T.LONG, "FloatType": T.FLOAT, "DoubleType": T.DOUBLE, "StringType": T.STRING,
        "BinaryType": T.BINARY, "DateType": T.DATE, "TimestampType": T.TIMESTAMP,
        "TimestampNTZType": T.TIMESTAMP_NTZ, "NullType": T.NULL,
        "CharType": T.STRING, "VarcharType": T.STRING,
        "DayTimeIntervalType": T.DAY_TIME_INTERVAL, "YearMonthIntervalType": T.YEAR_MONTH_INTERVAL,
        "CalendarIntervalType": T.CALENDAR_INTERVAL,
    }
    return simple.get(name, T.UNKNOWN)
