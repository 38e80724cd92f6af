"""One statement's optimized text with its parameter markers kept: what the hooks send and
the command line writes (`rewrite`), and the `/* sparkfold:off */` opt-out.

Parameter markers (`?`, `:name`, and the pyformat `%s` and `%(name)s` of PyHive and the
SQLAlchemy Hive/Spark dialects, with `%%` for `%`) are kept: the analyzer treats them as
opaque values that no rule drops or duplicates, and positional markers are checked to
come out in the same order (otherwise the original SQL is used).

A module of its own so that the command line (`sparkfold optimize`) starts without the
spark.sql hook's machinery (its caches, logger and threads).
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from ..plans.ir.records import record
from .api import OptimizeResult, optimize
from .logger import log

OPT_OUT = re.compile(r"/\*\s*sparkfold\s*:\s*off\s*\*/", re.IGNORECASE)
_MARKER = "__sf_p"


def opted_out(sql: str) -> bool:
    """Does the query carry the `/* sparkfold:off */` comment?"""
    return bool(OPT_OUT.search(sql))


def rewrite(sql: str, catalog: Any, *, exclude: Iterable[str] = (),
            pretty: bool = False, keep_layout: bool = True) -> tuple[str, OptimizeResult | None]:
    """The optimized text of one statement, with its parameter markers kept, and the
    result (None when the query opted out).  Raises what `optimize` raises."""
    if opted_out(sql):
        return sql, None
    pyformat = _pyformat(sql)
    text = pyformat.text if pyformat else sql
    marked, n = _name_positional_markers(text)
    result = optimize(marked, catalog, exclude=exclude, pretty=pretty, keep_layout=keep_layout)
    if not result.changed:
        return sql, result
    out: str | None
    out = result.sql
    if n:
        restored = _restore_positional_markers(out, n)
        if restored is None:
            log.info("the optimized query would bind its positional parameters in another "
                     "order; running the original SQL")
            return sql, result
        out = restored
    if pyformat:
        out = pyformat.restore(out)
        if out is None:
            log.info("the optimized query lost a %%(name)s parameter marker; running the original SQL")
            return sql, result
    return out, result


# -- pyformat markers ----------------------------------------------------------------
# DB-API drivers with the `pyformat` paramstyle (PyHive, the SQLAlchemy Hive and Spark
# dialects) send `%s` and `%(name)s`, and `%%` for a literal `%` (inside strings too),
# and apply Python's `%` formatting to the whole text.  Such a text is read as the SQL it
# stands for: `%s` as `?`, `%(name)s` as a named marker, `%%` as `%`; the output is
# escaped the same way again.

_PYFORMAT = re.compile(r"%(?:\((\w+)\)s|s|%)")
_QUOTED = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|--[^\n]*|/\*.*?\*/", re.DOTALL)
_NAMED = "__sf_k"


@record(frozen=True)
class _Pyformat:
    text: str              # the SQL the driver's text stands for, with markers
    names: tuple[str, ...]  # the i-th named marker's name

    def restore(self, sql: str) -> str | None:
        """sql escaped for the driver again, with its markers; None if one was lost."""
        out = sql.replace("%", "%%").replace("?", "%s")
        for i, name in enumerate(self.names):
            marker = f":{_NAMED}{i}"
            if marker not in out:
                return None
            out = re.sub(re.escape(marker) + r"\b", f"%({name})s", out)
        return out


def _pyformat(sql: str) -> _Pyformat | None:
    """The pyformat reading of sql, or None when it has no `%s`, `%(name)s` or `%%`
    (a lone `%` is then the modulo operator, or text)."""
    if "%" not in sql or not _PYFORMAT.search(sql) or "?" in sql:
        return None
    names: list[str] = []
    out, last = [], 0
    code_spans = _code_spans(sql)
    for m in _PYFORMAT.finditer(sql):
        out.append(sql[last:m.start()])
        last = m.end()
        if m.group(0) == "%%":
            out.append("%")
        elif not any(a <= m.start() < b for a, b in code_spans):
            return None  # `%s` inside a string or comment: not a marker this reading knows
        elif m.group(1):
            out.append(f":{_NAMED}{len(names)}")
            names.append(m.group(1))
        else:
            out.append("?")
    out.append(sql[last:])
    return _Pyformat("".join(out), tuple(names))


def _code_spans(sql: str) -> list[tuple[int, int]]:
    """The stretches of sql outside strings, quoted names and comments."""
    spans, last = [], 0
    for m in _QUOTED.finditer(sql):
        spans.append((last, m.start()))
        last = m.end()
    spans.append((last, len(sql)))
    return spans


# -- positional markers -------------------------------------------------------------
# Each `?` becomes the named marker `:__sf_p<i>` before optimizing, so that afterwards we
# can check that every one is still there, once, in the same order, and put `?` back.

def _tokens(sql: str):
    from ..plans.ir.dialect import DIALECT

    return DIALECT.tokenize(sql)


def _name_positional_markers(sql: str) -> tuple[str, int]:
    from sqlglot.tokens import TokenType

    if "?" not in sql:
        return sql, 0
    try:
        tokens = _tokens(sql)
    except Exception:  # the parser will report it
        return sql, 0
    spots = [t.start for t in tokens if t.token_type == TokenType.PLACEHOLDER and t.text == "?"]
    if not spots:
        return sql, 0
    out, last = [], 0
    for i, pos in enumerate(spots):
        out.append(sql[last:pos])
        out.append(f":{_MARKER}{i}")
        last = pos + 1
    out.append(sql[last:])
    return "".join(out), len(spots)


def _restore_positional_markers(sql: str, n: int) -> str | None:
    from sqlglot.tokens import TokenType

    tokens = _tokens(sql)
    found: list[tuple[int, int, int]] = []  # (index, start, end)
    for a, b in zip(tokens, tokens[1:]):
        if (a.token_type == TokenType.COLON and b.start == a.end + 1
                and re.fullmatch(rf"{_MARKER}\d+", b.text)):
            found.append((int(b.text[len(_MARKER):]), a.start, b.end))
    if [i for i, _, _ in found] != list(range(n)):
        return None
    out, last = [], 0
    for _, start, end in found:
        out.append(sql[last:start])
        out.append("?")
        last = end + 1
    out.append(sql[last:])
    return "".join(out)
