"""What a live session knows about a view: its definition's SQL text, and whether
sparkfold may read that text as Spark does.

Spark keeps a view's SQL text (a temporary view's too, since 3.1, unless
`spark.sql.legacy.storeAnalyzedPlanForView`), and analyzes it every time the view is
read, under what was in force when the view was created: the SQL settings captured
then (`viewSQLConfigs`: the session's modified ones; the others at Spark's defaults),
the current catalog and database of the time (`viewCatalogAndNamespace`), and, for a
temporary view, which names were temporary views then (`viewReferredTempViewNames`;
a persistent view reads none).  sparkfold reads the text under the session's settings
now and resolves its names in the current database, so it takes a view's definition
only when those are the same; otherwise the view stays opaque (a table with the
schema the session reports, as any table).

Read through the JVM (`df._jdf`): a classic session only.  Spark Connect shows the
client no analyzed plan, and any failure to read is no definition.
"""

from __future__ import annotations

from typing import Any, Callable

from ..ir.records import record
from .settings import SETTINGS, unmodelled_settings


_SEPARATOR = "\u0000"
_CONFIG = "view.sqlConfig."
_NAMESPACE = "view.catalogAndNamespace."
_TEMP_VIEWS = "view.referredTempViewNames"
_QUERY_COLUMNS = "view.query.out."


@record(frozen=True)
class ViewDefinition:
    temporary: bool
    text: str = ""       # the SQL text sparkfold may analyze; "" when the view stays opaque
    why_opaque: str = ""  # why it does, for explain
    # (temporary views) the names that were temporary views when it was created, lower case
    temp_references: frozenset[str] = frozenset()
    # the names by which Spark picks the view's columns from its definition's output
    # (`viewQueryColumnNames`: the k-th column named n is the definition's k-th column
    # named n, whatever its position); None: the view's own column names
    query_columns: tuple[str, ...] | None = None


def read_view(df: Any, settings: dict[str, Any], namespace: Callable[[], tuple[str, ...]]) -> ViewDefinition | None:
    """The definition of the view `df` (a `spark.table(name)`) reads, or None when it
    is no view (or the session does not say).  `settings`: the session's, as
    `catalog.session_settings` gives them; `namespace()`: the session's current
    catalog and database, lower case (asked only for a view)."""
    jdf = getattr(df, "_jdf", None)
    if jdf is None:
        return None  # Spark Connect
    try:
        plan = jdf.queryExecution().analyzed()
        while plan.nodeName() == "SubqueryAlias":
            plan = plan.child()
        if plan.nodeName() != "View":
            return None
        temporary = bool(plan.isTempView())
        desc = plan.desc()
        text = str(desc.viewText().toString())  # Some(...) or None: one call
        if not (text.startswith("Some(") and text.endswith(")")):
            return ViewDefinition(temporary, why_opaque="the session keeps no SQL text for it")
        if _default_collation(desc):
            # `CREATE VIEW v DEFAULT COLLATION UTF8_LCASE AS ...`: its text's strings are
            # collated ('a' = 'A' is true in it), which sparkfold does not model
            return ViewDefinition(temporary, why_opaque="it has a default collation")
        # the captured settings, namespace and temporary views are the view's properties
        # (view.sqlConfig.KEY, view.catalogAndNamespace.part.N, view.referredTempViewNames):
        # read in one call
        properties = dict(entry.partition(" -> ")[::2] for entry in
                          str(desc.properties().mkString(_SEPARATOR)).split(_SEPARATOR) if entry)
        definition = text[len("Some("):-1]
    except Exception:  # noqa: BLE001 - the session does not say: an opaque table
        return None
    captured = {k[len(_CONFIG):]: v for k, v in properties.items() if k.startswith(_CONFIG)}
    parts = int(properties.get(_NAMESPACE + "numParts", "0") or 0)
    created_in = tuple(properties.get(f"{_NAMESPACE}part.{i}", "").lower() for i in range(parts))
    import json

    try:
        referred = frozenset(".".join(p.lower() for p in name)
                             for name in json.loads(properties.get(_TEMP_VIEWS, "[]")))
    except (ValueError, TypeError, AttributeError):
        return ViewDefinition(temporary, why_opaque="its temporary views are not known")
    if str(captured.get("spark.sql.legacy.parseQueryWithoutEof", "false")).strip().lower() == "true":
        # Spark reads its text without EOF (`SELECT 1 UNION SELECT 2` as `SELECT 1 AS UNION`)
        return ViewDefinition(temporary, why_opaque="it was created under spark.sql.legacy.parseQueryWithoutEof=true, "
                                                     "which reads its text otherwise")
    differs = _settings_differ(captured, settings)
    if differs:
        return ViewDefinition(temporary, why_opaque=f"it was created under other settings ({differs})")
    try:
        now = namespace()
    except Exception:  # noqa: BLE001
        return ViewDefinition(temporary, why_opaque="the session's current database is not known")
    if created_in != now:
        return ViewDefinition(temporary, why_opaque=f"it was created in {'.'.join(created_in)}, "
                                                    f"not in the current {'.'.join(now)}")
    try:
        count = int(properties.get(_QUERY_COLUMNS + "numCols", "0") or 0)
        picked = tuple(properties[f"{_QUERY_COLUMNS}col.{i}"] for i in range(count)) if count else None
    except (ValueError, KeyError):
        return ViewDefinition(temporary, why_opaque="the names of its definition's columns are not known")
    return ViewDefinition(temporary, definition, temp_references=referred, query_columns=picked)


def _default_collation(desc: Any) -> bool:
    """Was the view made with a DEFAULT COLLATION (Spark 4's `CatalogTable.collation`)?"""
    try:
        return str(desc.collation().toString()).startswith("Some(")
    except Exception:  # noqa: BLE001 - a Spark without collations: none
        return False


def _settings_differ(captured: dict[str, str], settings: dict[str, Any]) -> str:
    """The first setting sparkfold reads a query under whose value in the view (captured,
    else Spark's default) is not the session's now, as `key=value`; "" when none."""
    for key, (name, default) in SETTINGS.items():
        if (str(captured.get(key, default)).strip().lower() == "true") != settings.get(name):
            return f"{key}={captured.get(key, default)}"
    mine = unmodelled_settings(captured)
    if mine != tuple(settings.get("unmodelled", ())):
        return ", ".join(f"{k}={v}" for k, v in mine) or "settings the session has set since"
    return ""
