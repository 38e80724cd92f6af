"""The sqlglot versions sparkfold works with, checked when its plans are first imported.

sparkfold reads sqlglot's trees, grammar tables and printers (plans/ir/dialect.py,
plans/sql_in/grammar.py), which change between sqlglot's minor versions.  The range is
the widest the test run checks: its lowest version by a run of the parsing and
rewriting tests (tests/test_sqlglot_range.py), its highest by the whole run.  The
lowest is what sqlmesh (`~=30.8.0`) and sqlframe (`<30.30`) can share an environment
with.  pyproject.toml's requirement says the same (a test holds them together)."""

from __future__ import annotations

import importlib.util
import re

LOWEST = (30, 8, 0)
BELOW = (31, 0, 0)  # the first version not supported
REQUIREMENT = f"sqlglot>={'.'.join(map(str, LOWEST[:2]))},<{BELOW[0]}"


def version_tuple(version: str) -> tuple[int, ...]:
    """(30, 8, 0) for '30.8.0' (a pre-release or local part ignored)."""
    parts = []
    for piece in version.split(".")[:3]:
        digits = "".join(c for c in piece if c.isdigit()) if not piece.isdigit() else piece
        if not digits:
            break
        parts.append(int(digits))
        if digits != piece:
            break
    return tuple(parts)


def installed() -> str | None:
    """The version of the sqlglot that `import sqlglot` would import, read from its
    `_version.py` without importing it (`sparkfold --help` imports no sqlglot); None
    when that file says nothing readable."""
    try:
        spec = importlib.util.find_spec("sqlglot")
        if spec is None or spec.origin is None:
            return None
        with open(spec.origin.rsplit("__init__", 1)[0] + "_version.py", encoding="utf-8") as f:
            m = re.search(r"""^__version__\s*=\s*(?:version\s*=\s*)?['"]([^'"]+)['"]""", f.read(), re.M)
    except (OSError, ImportError, ValueError):
        return None
    return m.group(1) if m else None


def problem(version: str | None) -> str | None:
    """What is wrong with sqlglot `version` for sparkfold, and what to install; None when
    it is in the range (or unknown)."""
    if version is None:
        return None
    found = version_tuple(version)
    if LOWEST <= found < BELOW:
        return None
    return f"sparkfold needs {REQUIREMENT}, and sqlglot {version} is installed: pip install '{REQUIREMENT}'"


def check() -> None:
    """Raise ImportError (its name 'sqlglot') when the installed sqlglot is out of the range."""
    message = problem(installed())
    if message is not None:
        raise ImportError(message, name="sqlglot")
