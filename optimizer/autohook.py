"""sparkfold in every SparkSession of a process, with no change to the program.

Installing sparkfold puts a one-line `sparkfold-autohook.pth` in site-packages: every
Python process of that environment started with the environment variable `SPARKFOLD`
set calls `activate()` (through `from_site()`) as it starts.  `sparkfold run -- CMD
ARGS...` runs a command (`dbt run`, a script, a notebook server) with `SPARKFOLD` set
and a `sitecustomize` on `PYTHONPATH` that does the same (an editable install, `pip
install -e`, carries the `.pth` too), and prints a summary when the command ends.  `SPARKFOLD=on`
optimizes every `spark.sql` query of every SparkSession, classic or Spark Connect;
`SPARKFOLD=lint` reports what it finds and sends each query as written; `off` or unset
does nothing.  In a program or a notebook, `activate()` does the same for the process.

Nothing is imported before PySpark is: `activate()` (this module alone, the standard
library's import machinery and nothing of the optimizer) waits for PySpark's session
modules to be imported and then wraps `SparkSession.sql` (class-wide, so sessions created by
dbt, ibis or any library are covered).  Each session gets a `SqlHook` of its own, with
the schemas and settings (ANSI mode) read from the session; findings are logged at
WARNING on the `sparkfold` logger, rewrites at INFO, and a process started by
`sparkfold run` adds a line of counts to the runner's report when it exits.
"""

from __future__ import annotations

# Every Python start of an environment with SPARKFOLD set imports this module: it reads
# only modules that Python's start-up has loaded already or that cost next to nothing
# (json and logging are imported where they are used; the finder and loader below are
# plain classes, since importlib.abc would load importlib.resources).
import atexit
import functools
import importlib.machinery
import os
import sys
import threading
import weakref

TYPE_CHECKING = False  # (typing.TYPE_CHECKING, without importing typing at start-up)
if TYPE_CHECKING:
    from typing import Any, Callable

    # (imported by the first query: a process that never runs one pays nothing)
    from .hooks import QueryRecord, SqlHook

MODES = ("on", "lint", "off")
_SESSION_MODULES = ("pyspark.sql.session", "pyspark.sql.connect.session")
_PATCHED = "_sparkfold_original_sql"
_lock = threading.Lock()
_hooks: "weakref.WeakKeyDictionary[Any, SqlHook]" = weakref.WeakKeyDictionary()
_active: str | None = None


def mode(value: str | None = None) -> str:
    """The mode `SPARKFOLD` asks for: on, lint or off (unset, empty or unknown is off;
    an unknown value is said once)."""
    text = (os.environ.get("SPARKFOLD", "") if value is None else value).strip().lower()
    if text in ("", "0", "false", "no"):
        return "off"
    if text in ("1", "true", "yes"):
        return "on"
    if text not in MODES:
        from .logger import log

        log.warning("SPARKFOLD=%s is not one of on, lint, off: sparkfold stays off", text)
        return "off"
    return text


_callbacks: list[Callable[[QueryRecord], Any]] = []


def on_query(callback: Callable[[QueryRecord], Any]) -> Callable[[QueryRecord], Any]:
    """Call `callback(record)` after every query of every armed session (a
    `hooks.QueryRecord`: the text sent, the rules, the findings); usable as a decorator."""
    with _lock:
        _callbacks.append(callback)
    return callback


def _each_query(record: QueryRecord) -> None:
    for callback in list(_callbacks):
        callback(record)


def activate(value: str | None = None) -> str:
    """Arm sparkfold for every SparkSession of this process (mode from `SPARKFOLD`, or
    `value`); returns the mode.  Idempotent."""
    global _active
    chosen = mode(value)
    if chosen == "off":
        return chosen
    with _lock:
        if _active is not None:
            return _active
        _active = chosen
        for name in _SESSION_MODULES:
            module = sys.modules.get(name)
            if module is not None:
                _patch(module.SparkSession)
        sys.meta_path.insert(0, _SessionFinder())
        atexit.register(_write_report)
    return chosen


def from_site() -> None:
    """Called by the `sparkfold-autohook.pth` line that installing sparkfold puts in
    site-packages, when `SPARKFOLD` is set: Python runs it as each process starts.  It
    never stops a process from starting (a failure is one line on stderr)."""
    try:
        activate()
    except Exception as e:  # noqa: BLE001 - a process of the user's must start regardless
        sys.stderr.write(f"sparkfold: SPARKFOLD is set but sparkfold could not arm itself "
                         f"({type(e).__name__}: {e}); queries are not optimized\n")


def hooks() -> list[SqlHook]:
    """The hooks of the sessions that ran queries in this process (what they did)."""
    return list(_hooks.values())


def _hook(session: Any, original) -> SqlHook:
    hook = _hooks.get(session)
    if hook is None:
        from .hooks import SqlHook

        with _lock:
            hook = _hooks.get(session)
            if hook is None:
                hook = SqlHook(session, lint_only=_active == "lint", report=True,
                               original=functools.partial(original, session), on_query=_each_query)
                _hooks[session] = hook
    return hook


def _patch(cls: Any) -> None:
    """Wrap `cls.sql` (once) so that every session's queries go through its hook."""
    if _PATCHED in vars(cls):
        return
    original = cls.sql

    @functools.wraps(original)
    def sql(self, sqlQuery, args=None, **kwargs):
        return _hook(self, original)._sql(sqlQuery, args, **kwargs)

    setattr(cls, _PATCHED, original)
    cls.sql = sql


class _SessionFinder:  # an importlib.abc.MetaPathFinder
    """Finds PySpark's session modules with the other finders and patches them once loaded."""

    def find_spec(self, fullname, path, target=None):
        if fullname not in _SESSION_MODULES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _PatchingLoader(spec.loader)  # type: ignore[assignment]  # a Loader by its methods
        return spec


class _PatchingLoader:  # an importlib.abc.Loader
    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        _patch(module.SparkSession)


def counts() -> dict[str, Any]:
    """This process's totals over every session (`passed_through`: by reason)."""
    from .hooks import REPORTED

    out: dict[str, Any] = {"queries": 0, "rewritten": 0, "findings": 0, "errors": 0,
                           "repeats": REPORTED.repeats, "passed_through": {}}
    for h in hooks():
        out["queries"] += h.queries
        out["rewritten"] += h.rewritten
        out["findings"] += h.findings_seen
        out["errors"] += h.internal_errors
        for why, k in h.passed_through.items():
            out["passed_through"][why] = out["passed_through"].get(why, 0) + k
    return out


def _write_report() -> None:
    """At exit: this process's counts to the runner's report (`sparkfold run`), or, for
    SPARKFOLD=on alone, its summary line logged at INFO (as `install()` does)."""
    path = os.environ.get("SPARKFOLD_REPORT")
    if not hooks():
        return
    if not path:
        from .logger import log

        log.info("%s", summary([_json_line()]))
        return
    import json

    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(_json_line() + "\n")
    except OSError as e:  # the runner's summary misses this process: say so, once
        sys.stderr.write(f"sparkfold: could not add this process's counts to the run's summary "
                         f"({e.strerror or e}: {path})\n")


def _json_line() -> str:
    import json

    return json.dumps({"pid": os.getpid(), "mode": _active, **counts()})


def chain_sitecustomize(ours: str) -> None:
    """Run the `sitecustomize` module that the runner's one hides on the path, if any."""
    import importlib.util

    here = os.path.dirname(os.path.abspath(ours))
    rest = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None or os.path.abspath(spec.origin or "") == os.path.abspath(ours):
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


def summary(lines: list[str]) -> str:
    """The runner's closing line, from the processes' report lines."""
    import collections
    import json

    from .hooks import summary_line

    totals = {"queries": 0, "rewritten": 0, "findings": 0, "errors": 0, "repeats": 0}
    through: collections.Counter[str] = collections.Counter()
    processes = 0
    lint = False
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        processes += 1
        lint = lint or record.get("mode") == "lint"
        for k in totals:
            totals[k] += int(record.get(k, 0))
        through.update(record.get("passed_through") or {})
    if not processes:
        return ("sparkfold: no query went through spark.sql (the command ran no SparkSession "
                "of a Python with sparkfold installed)")
    return summary_line(totals["queries"], totals["rewritten"], through, totals["findings"], totals["errors"],
                        totals["repeats"], lint, f" in {processes} process{'es' if processes > 1 else ''}")
