"""Table schemas read from where the data lives, without Spark.

- **Parquet**, a file or a folder of them (`pyarrow`, the `parquet` extra): Spark keeps
  its own schema in the footer (`org.apache.spark.sql.parquet.row.metadata`), which is
  used when present; otherwise the Parquet schema.  A column is NOT NULL when every
  file stores it as `required`, which the format enforces (no NULL can be written
  there), even though Spark reads file sources as nullable.
- **Delta** tables (a folder with `_delta_log/`): the schema of the table's latest
  metadata, read from its JSON commits (Spark's schema JSON, nullability included;
  Delta enforces NOT NULL on write).

A table is named after the file (`orders.parquet` -> orders) or the folder, or as given
(`NAME=PATH` on the command line).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, cast

from ..ir import types as T
from ..ir.errors import SchemaError

SPARK_ROW_METADATA = b"org.apache.spark.sql.parquet.row.metadata"


def is_data_path(path: Path) -> bool:
    """Is `path` Parquet data or a Delta table (rather than a schema file)?"""
    if path.is_dir():
        return (path / "_delta_log").is_dir() or any(path.glob("*.parquet"))
    return path.suffix.lower() == ".parquet"


def table_fields(path: Path, name: str | None = None) -> tuple[str, list[tuple[str, T.DataType, bool]]]:
    """(table name, [(column, type, nullable)]) of Parquet data or a Delta table at `path`."""
    if not path.exists():
        raise SchemaError(f"cannot read {path}: no such file or folder")
    table = name or (path.stem if path.is_file() else path.resolve().name)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", table):
        raise SchemaError(f"{path}: {table!r} is not a table name; give one as NAME={path}")
    if path.is_dir() and (path / "_delta_log").is_dir():
        return table, _delta_fields(path)
    return table, _parquet_fields(path)


# -- Parquet --------------------------------------------------------------------------

def _parquet_fields(path: Path) -> list[tuple[str, T.DataType, bool]]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise SchemaError(f"reading the schema of {path} needs pyarrow: pip install 'sparkfold[parquet]'") \
            from None
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*.parquet") if not p.name.startswith((".", "_")))
    if not files:
        raise SchemaError(f"{path}: no Parquet files in it")
    fields = None
    for f in files:  # every file's footer: a column is NOT NULL only if it is in all of them
        try:
            schema = pq.read_schema(f)
        except Exception as e:  # noqa: BLE001 - pyarrow's errors: not a Parquet file, unreadable
            raise SchemaError(f"cannot read the Parquet schema of {f}: {e}") from None
        spark_json = (schema.metadata or {}).get(SPARK_ROW_METADATA)
        if spark_json:
            these = _spark_struct_fields(json.loads(spark_json), str(f))
        else:
            these = [(x.name, _from_arrow(x.type, f"{f}: column {x.name}"), bool(x.nullable)) for x in schema]
        if fields is None:
            fields = these
        elif [(n, t) for n, t, _ in these] != [(n, t) for n, t, _ in fields]:
            raise SchemaError(f"{path}: its files have different schemas ({files[0].name}, {f.name})")
        else:
            fields = [(n, t, a or b) for (n, t, a), (_, _, b) in zip(fields, these)]
    return cast("list[tuple[str, T.DataType, bool]]", fields)


def _from_arrow(t: Any, where: str) -> T.DataType:
    import pyarrow as pa
    import pyarrow.types as at

    simple = [(at.is_boolean, T.BOOLEAN), (at.is_int8, T.BYTE), (at.is_int16, T.SHORT), (at.is_int32, T.INT),
              (at.is_int64, T.LONG), (at.is_float32, T.FLOAT), (at.is_float64, T.DOUBLE),
              (at.is_date32, T.DATE), (at.is_binary, T.BINARY), (at.is_large_binary, T.BINARY)]
    for test, ours in simple:
        if test(t):
            return ours
    if at.is_string(t) or at.is_large_string(t):
        return T.STRING
    if at.is_decimal(t):
        return T.DecimalType(t.precision, t.scale)
    if at.is_timestamp(t):
        return T.TIMESTAMP if t.tz is not None else T.TIMESTAMP_NTZ
    if at.is_list(t) or at.is_large_list(t):
        return T.ArrayType(_from_arrow(t.value_type, where), bool(t.value_field.nullable))
    if at.is_map(t):
        return T.MapType(_from_arrow(t.key_type, where), _from_arrow(t.item_type, where),
                         bool(t.item_field.nullable))
    if at.is_struct(t):
        return T.StructType(tuple(T.StructField(f.name, _from_arrow(f.type, where), bool(f.nullable))
                                  for f in (t.field(i) for i in range(t.num_fields))))
    if isinstance(t, pa.DataType) and at.is_null(t):
        return T.NULL
    raise SchemaError(f"{where}: Parquet type {t} is not one Spark reads as a SQL type sparkfold knows")


# -- Delta ----------------------------------------------------------------------------

def _delta_fields(path: Path) -> list[tuple[str, T.DataType, bool]]:
    log = path / "_delta_log"
    commits = sorted(log.glob("*.json"), key=lambda p: int(p.stem) if p.stem.isdigit() else -1)
    for commit in reversed(commits):  # the latest metadata action wins
        try:
            lines = commit.read_text(encoding="utf-8").splitlines()
        except OSError as e:
            raise SchemaError(f"cannot read {commit}: {e.strerror or e}") from None
        for line in reversed(lines):
            if not line.strip():
                continue
            try:
                action = json.loads(line)
            except json.JSONDecodeError:
                raise SchemaError(f"{commit}: not a Delta log (a line is not JSON)") from None
            meta = action.get("metaData")
            if meta and meta.get("schemaString"):
                return _spark_struct_fields(json.loads(meta["schemaString"]), str(commit))
    raise SchemaError(f"{path}: no table schema in its _delta_log JSON commits (a log kept only as "
                      f"checkpoints is not read)")


# -- Spark's schema JSON --------------------------------------------------------------

_SPARK_JSON_TYPES = {"boolean": T.BOOLEAN, "byte": T.BYTE, "short": T.SHORT, "integer": T.INT,
                     "long": T.LONG, "float": T.FLOAT, "double": T.DOUBLE, "string": T.STRING,
                     "binary": T.BINARY, "date": T.DATE, "timestamp": T.TIMESTAMP,
                     "timestamp_ntz": T.TIMESTAMP_NTZ, "void": T.NULL}


def _spark_struct_fields(doc: dict, where: str) -> list[tuple[str, T.DataType, bool]]:
    if not isinstance(doc, dict) or doc.get("type") != "struct":
        raise SchemaError(f"{where}: the stored Spark schema is not a struct")
    return [(f["name"], _from_spark_json(f["type"], f"{where}: column {f['name']}"), bool(f.get("nullable", True)))
            for f in doc.get("fields", [])]


def _from_spark_json(t: Any, where: str) -> T.DataType:
    if isinstance(t, str):
        if t in _SPARK_JSON_TYPES:
            return _SPARK_JSON_TYPES[t]
        m = re.fullmatch(r"decimal\((\d+),\s*(-?\d+)\)", t)
        if m:
            return T.DecimalType(int(m.group(1)), int(m.group(2)))
        if re.fullmatch(r"(var)?char\(\d+\)", t):
            return T.STRING
        raise SchemaError(f"{where}: Spark type {t!r} is not one sparkfold knows")
    kind = t.get("type")
    if kind == "array":
        return T.ArrayType(_from_spark_json(t["elementType"], where), bool(t.get("containsNull", True)))
    if kind == "map":
        return T.MapType(_from_spark_json(t["keyType"], where), _from_spark_json(t["valueType"], where),
                         bool(t.get("valueContainsNull", True)))
    if kind == "struct":
        return T.StructType(tuple(T.StructField(n, d, nullable) for n, d, nullable in _spark_struct_fields(t, where)))
    raise SchemaError(f"{where}: Spark type {kind!r} is not one sparkfold knows")
