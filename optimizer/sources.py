"""Where the command line's SQL and data come from, and where its output goes.

- SQL sources: the argument, standard input, files and folders of `.sql` files; a source
  is split into statements at its top-level semicolons, and positions inside a
  statement (syntax errors, findings) are mapped back to the source.
- Outputs under `--out`: planned so that no output can land on an input, and written
  through a temporary file and a rename (an existing link is replaced, never written
  through).
- Data files for `verify`: `NAME=PATH` specs checked before Spark starts, read by
  extension, registered as temp views.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

import click

from ..plans.ir.errors import ParseError, SparkfoldError, VerificationError
from ..plans.ir.records import record

if TYPE_CHECKING:
    from ..plans.sql_in.catalog import Catalog

# The analysis (sqlglot, the catalog, the optimizer) is imported where it is used: this
# module is read by every command line run, `--help` and `--version` included.


class InputError(SparkfoldError):
    """Bad input found by the command line itself (a file, an option value)."""


# -- SQL sources ------------------------------------------------------------

@record
class Source:
    name: str  # what messages call it: a path, "<stdin>", "<argument>"
    text: str
    rel: Path | None = None  # where it goes under --out


@record
class Statement:
    source: Source
    index: int  # 1-based within the source
    start: int  # offsets of the statement's text in source.text
    end: int
    lead: int  # where the text before it (comments) begins

    @property
    def text(self) -> str:
        return self.source.text[self.start:self.end]

    @property
    def opted_out(self) -> bool:
        from .rewrite import opted_out

        return opted_out(self.source.text[self.lead:self.end])


def split_arguments(args: tuple[str, ...], sql: str | None = None) -> tuple[str | None, tuple[Path, ...]]:
    """The command's arguments, as every command takes them: each names a file or a
    folder (or is `-`, standard input), or is SQL text (one, not beside files; `sql`
    is lint's --sql).  A word without spaces that names nothing is a missing file, not a
    query."""
    texts, paths = ([sql] if sql is not None else []), []
    for a in args:
        if a == "-" or os.path.exists(a):
            paths.append(Path(a))
        elif a.strip() and not any(c.isspace() for c in a.strip()):
            raise InputError(f"no such file or folder: {a} (SQL text as an argument is quoted: \"SELECT ...\")")
        else:
            texts.append(a)
    if len(texts) > 1:
        raise click.UsageError("give one SQL text (in quotes), or files and folders")
    if texts and paths:
        raise click.UsageError("give SQL text or files, not both")
    return (texts[0] if texts else None), tuple(paths)


def gather(sql: str | None, files: tuple[Path, ...]) -> tuple[list[Source], list[Path]]:
    """The inputs and the folders among them.  Reads nothing but the inputs."""
    if sql is not None and files:
        raise click.UsageError("give SQL text or -f FILE, not both")
    if sql is not None and sql != "-":
        source = Source("<argument>", sql)
        if not statements(source):  # (a file or stdin with none has nothing to do: not an error)
            raise InputError("no SQL statement in the argument")
        return [source], []
    if not files:
        if sql is None and sys.stdin.isatty():
            raise click.UsageError("no SQL given: pass SQL text, -f FILE or folder, or pipe SQL on stdin")
        return [Source("<stdin>", _without_bom(sys.stdin.read()))], []
    sources, folders = [], []
    for f in files:
        if str(f) == "-":  # -f -: standard input, as with no -f
            sources.append(Source("<stdin>", _without_bom(sys.stdin.read()), Path("stdin.sql")))
        elif f.is_dir():
            folders.append(f)
            found = sorted(p for p in f.rglob("*.sql") if p.is_file())
            if not found:
                raise InputError(f"{f}: no .sql files in this folder")
            sources.extend(Source(str(p), read_source(p), p.relative_to(f)) for p in found)
        else:
            sources.append(Source(str(f), read_source(f), Path(f.name)))
    return sources, folders


def _without_bom(text: str) -> str:
    """Text without the byte-order mark some editors put first (U+FEFF is no SQL, and
    would shift every column of the first line)."""
    return text[1:] if text.startswith("\ufeff") else text


def read_source(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror}") from None


def read_exact(path: Path) -> tuple[str, bool]:
    """A file's text as it is (line ends kept), and whether it starts with a UTF-8 byte-order
    mark (which the text leaves out): what a fix rewrites and writes back."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror}") from None
    try:
        return data.decode("utf-8-sig"), data.startswith(b"\xef\xbb\xbf")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None


def write_in_place(path: Path, text: str, bom: bool = False) -> None:
    """Rewrite an input file whole or not at all: a temporary file in its folder, with its
    permissions, renamed over it (a link is followed: the file it names is rewritten)."""
    import tempfile

    target = Path(os.path.realpath(path))
    try:
        mode = target.stat().st_mode & 0o7777
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as e:
        raise InputError(f"cannot write {path}: {e.strerror or e}") from None
    _rename_over(fd, tmp, target, (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"), mode, path)


def _rename_over(fd: int, tmp: str, target: Path, data: bytes, mode: int, shown: Path) -> None:
    """Write data to the temporary file (fd, tmp) beside target, give it mode and rename it
    over target; on any failure the temporary file goes and target is as it was."""
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as e:
        os.unlink(tmp)
        raise InputError(f"cannot write {shown}: {e.strerror or e}") from None
    except BaseException:
        os.unlink(tmp)
        raise


def tokenize(text: str) -> list:
    """The text's tokens, a bracketed comment inside another read as Spark reads it (part
    of the outer one: `plans.sql_in.parse.unnested_comments`)."""
    from ..plans.ir.dialect import DIALECT
    from ..plans.sql_in.parse import unnested_comments

    return DIALECT.tokenize(unnested_comments(text))


def statements(source: Source) -> list[Statement]:
    """Split a source at its top-level semicolons (by tokens, so not inside strings or
    comments)."""
    from sqlglot.tokens import TokenType

    text = source.text
    try:
        tokens = tokenize(text)
    except Exception:  # the parser reports the position
        return [Statement(source, 1, 0, len(text), 0)] if text.strip() else []
    out: list[Statement] = []
    run: list = []
    lead = 0
    for t in tokens + [None]:
        if t is None or t.token_type == TokenType.SEMICOLON:
            if run:
                out.append(Statement(source, len(out) + 1, run[0].start, run[-1].end + 1, lead))
            run = []
            if t is not None:
                lead = t.end + 1
        else:
            run.append(t)
    return out


def load_catalog(schemas: tuple[Path, ...] | Path | None, conf: tuple[tuple[str, str], ...] = ()) -> Catalog:
    """The schemas of `--schema` (repeatable: schema files, Parquet data, Delta tables,
    each maybe as NAME=PATH), under the session settings of `--conf`."""
    from ..plans.sql_in.catalog import Catalog, settings_from
    from ..plans.sql_in.settings import unmodelled_settings

    if schemas is None:
        schemas = ()
    elif isinstance(schemas, Path):
        schemas = (schemas,)
    catalogs = []
    remote = None
    for schema in schemas:
        text = str(schema)
        if text.startswith("sc://"):  # a Spark Connect server: its tables and settings
            remote = Catalog.from_remote(text)
            catalogs.append(remote)
            continue
        name, path = None, Path(text)
        if "=" in text and not path.exists():
            name, _, rest = text.partition("=")
            name, path = name.strip(), Path(rest.strip())
        catalogs.append(Catalog.from_file(path, name))
    catalog = catalogs[0] if len(catalogs) == 1 else Catalog.merged(catalogs)
    given = dict(conf)
    if remote is not None:  # the session's settings, unless --conf says otherwise
        defaults = remote.settings_by_name()
        settings = settings_from(given.get)
        return catalog.with_settings(**{k: (settings[k] if _conf_key(k) in given else defaults[k])
                                        for k in settings})
    return catalog.with_settings(**settings_from(given.get), unmodelled=unmodelled_settings(given) or None)


def _conf_key(setting: str) -> str:
    from ..plans.sql_in.settings import SETTINGS

    return next(key for key, (name, _) in SETTINGS.items() if name == setting)


def parse_conf(ctx, param, values) -> tuple[tuple[str, str], ...]:
    """`--conf KEY=VALUE` (repeatable), as Spark's own command line takes it.  A key
    sparkfold reads must have a true/false value; a key it does not read but that is
    close to one it does is most likely mistyped: a warning says which it may be."""
    import difflib

    from ..plans.sql_in.settings import SETTINGS

    out = []
    for v in values:
        key, eq, value = v.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key:
            raise InputError(f"--conf: expected KEY=VALUE, got {v!r}")
        if key in SETTINGS and value.lower() not in ("true", "false"):
            raise InputError(f"--conf {key}: expected true or false, got {value!r}")
        if key not in SETTINGS:
            close = difflib.get_close_matches(key, SETTINGS, n=1, cutoff=0.85)
            if close:
                click.echo(f"sparkfold: warning: --conf {key}: not a setting sparkfold reads; "
                           f"did you mean {close[0]}?", err=True)
        out.append((key, value))
    return tuple(out)


def check_rules(names: Iterable[str], option: str) -> tuple[str, ...]:
    from .batches import RULES
    from .output_nullability import NAME as KEEP_NULLABILITY

    known = [*RULES, KEEP_NULLABILITY]  # (the last step, after the batches: output_nullability.py)
    lowered = {n.lower(): n for n in known}
    out = []
    for n in names:
        if n.lower() not in lowered:
            hint = ", ".join(sorted(known))
            raise InputError(f"{option}: unknown rule {n!r}; known rules: {hint}")
        out.append(lowered[n.lower()])
    return tuple(out)


def position(st: Statement, line: int, column: int) -> tuple[int, int]:
    """A (line, column) in the statement's text as a (line, column) in the source."""
    text = st.source.text
    line0 = text.count("\n", 0, st.start) + 1
    col0 = st.start - (text.rfind("\n", 0, st.start) + 1) + 1
    return line0 + line - 1, (column + col0 - 1 if line == 1 else column)


_WHERE = re.compile(r" \(line (\d+), column (\d+)\)")


def in_statement(e: SparkfoldError) -> tuple[str, int, int]:
    """The error's message without its position, and that position in the statement's
    text (a syntax error's, the unknown name's; else the statement's start)."""
    if isinstance(e, ParseError):
        return f"{e.heading}: {e.detail}", e.line or 1, e.column or 1
    where = _WHERE.search(e.message)
    if where is None:
        return e.message, 1, 1
    return e.message[:where.start()] + e.message[where.end():], int(where.group(1)), int(where.group(2))


@record
class Location:
    """Where in a source an error is, for `file:line:col: error: message` and the caret
    line under the source line (`error_text`)."""

    source: str
    line: int
    column: int
    text: str  # the source line


def located(e: SparkfoldError, st: Statement) -> SparkfoldError:
    """The error, placed in the statement's source (`e.location`; `error_text` prints it)."""
    _, line, column = in_statement(e)
    line, column = position(st, line, column)
    lines = st.source.text.splitlines() or [""]
    e.location = Location(st.source.name, line, column, lines[min(line, len(lines)) - 1])  # type: ignore[attr-defined]
    return e


def caret_lines(text: str, column: int) -> list[str]:
    """The source line and a caret under `column` (tabs kept, so the caret lines up)."""
    pad = "".join(c if c == "\t" else " " for c in text[:column - 1])
    return [f"  {text}", f"  {pad}^"]


def error_text(e: SparkfoldError) -> str:
    """How the command line prints an error: `file:line:col: error: message` with the
    source line and a caret under it, for an error in a source; else `sparkfold: error:`."""
    where: Location | None = getattr(e, "location", None)
    if where is None:
        return f"sparkfold: error: {e.message}"
    detail = in_statement(e)[0]  # (the message as it is now: a hint may have been added)
    return "\n".join([f"{where.source}:{where.line}:{where.column}: error: {detail}",
                      *caret_lines(where.text, where.column)])


def finding_lines(st: Statement, result) -> list[str]:
    """`name:line:column: severity: message [code]`, positions in the source."""
    out = []
    for f in getattr(result, "findings", None) or ():
        line, col = position(st, f.line, f.column)
        out.append(f"{st.source.name}:{line}:{col}: {f.severity}: {f.message} [{f.code}]")
    return out


def plan_outputs(sources: list[Source], folders: list[Path], out: Path) -> list[Path]:
    """Where each source goes under `out`; refuses anything that could touch an input."""
    out_r = out.resolve()
    for f in folders:
        f_r = f.resolve()
        if out_r == f_r or f_r in out_r.parents:
            raise InputError(f"-o {out} is inside the input folder {f}: sparkfold never writes "
                             f"into its input; choose another folder")
    inputs = {Path(s.name).resolve() for s in sources}
    targets: list[Path] = []
    seen: dict[Path, str] = {}
    for s in sources:
        if s.rel is None:
            raise InputError(f"-o DIR writes files under their input names, and SQL from {s.name} has "
                             f"none: write it to a file of its own (-o FILE), or give the SQL as a file")
        target = out / s.rel
        key = target.resolve()
        if key in inputs:
            raise InputError(f"writing {target} would overwrite the input {s.name}; choose another --out")
        if key in seen:
            raise InputError(f"{s.name} and {seen[key]} would both be written to {target}")
        seen[key] = s.name
        targets.append(target)
    return targets


def write_output(target: Path, text: str) -> None:
    """Write through a temporary file and a rename: an existing link at `target` is
    replaced, never written through, and a reader never sees half a file."""
    import tempfile

    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as e:  # a read-only folder, a file where a folder must be: the user's to fix
        raise InputError(f"cannot write {target}: {e.strerror or e}") from None
    umask = os.umask(0)
    os.umask(umask)
    _rename_over(fd, tmp, target, text.encode("utf-8"), 0o666 & ~umask, target)


# -- data files for verify --------------------------------------------------

TABLE_FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".json": "json",
                 ".jsonl": "json", ".ndjson": "json", ".orc": "orc"}


def parse_table_spec(spec: str) -> tuple[str, Path, str]:
    """`NAME=PATH` -> (name, path, format), checked before Spark starts."""
    name, sep, path_text = spec.partition("=")
    name = name.strip()
    if not sep or not path_text:
        raise InputError(f"--table {spec!r}: expected NAME=PATH")
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise InputError(f"--table {spec!r}: {name!r} is not a valid view name")
    path = Path(path_text).expanduser()
    if not path.exists():
        raise InputError(f"--table {name}: no such file or folder: {path}")
    probe = path
    if path.is_dir():
        inside = [p for p in sorted(path.rglob("*"))
                  if p.is_file() and not p.name.startswith(("_", ".")) and p.suffix.lower() in TABLE_FORMATS]
        if not inside:
            raise InputError(f"--table {name}: no .parquet/.csv/.json/.orc files in {path}")
        probe = inside[0]
    kind = TABLE_FORMATS.get(probe.suffix.lower())
    if kind is None:
        raise InputError(f"--table {name}: cannot tell the format of {path} from its extension "
                         f"(use {', '.join(sorted(TABLE_FORMATS))})")
    return name, path, kind


def start_session(master: str | None, remote: str | None, conf: tuple[tuple[str, str], ...] = ()):
    import warnings

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    warnings.filterwarnings("ignore", category=FutureWarning, module=r"pyspark\.")  # pandas version notes
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise VerificationError("verify runs the queries on Spark, and PySpark is not installed: "
                                "pip install 'sparkfold[spark]'") from None
    try:
        builder = SparkSession.builder.appName("sparkfold verify")
        if remote:
            builder = builder.remote(remote)
        else:
            builder = (builder.master(master or "local[*]").config("spark.ui.enabled", "false")
                       .config("spark.ui.showConsoleProgress", "false"))
        spark = builder.getOrCreate()
        for key, value in conf:  # the session's settings are what the queries mean under
            spark.conf.set(key, value)
    except Exception as e:
        from .hooks import first_line

        raise VerificationError(f"cannot start a Spark session ({first_line(e)})") from None
    if not remote:
        spark.sparkContext.setLogLevel("ERROR")
    return spark


def register_table(spark, name: str, path: Path, kind: str) -> None:
    reader = spark.read.format(kind)
    if kind == "csv":
        reader = reader.option("header", "true").option("inferSchema", "true")
    try:
        reader.load(str(path.resolve())).createOrReplaceTempView(name)
    except Exception as e:
        from .hooks import first_line

        raise VerificationError(f"--table {name}: cannot read {path} as {kind} ({first_line(e)})") from None


def stop_session(spark) -> None:
    try:
        spark.stop()
    except Exception:
        pass


