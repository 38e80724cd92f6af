"""The `sparkfold` command line: optimize, explain, verify, rules.

Exit codes: 0 success, 1 verification found a difference, 2 bad input (syntax error,
unknown table or column, unreadable schema file, missing file, bad option), 3 internal
error (a bug in sparkfold).  A user error never prints a traceback; `--debug` does.
"""

from __future__ import annotations

import functools
import os
import sys
import traceback
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..plans.ir.errors import InternalError, SparkfoldError, UnknownTableError
from ..plans.ir.records import record
from .lint import FORMATS as LINT_FORMATS
from .sources import (
    InputError,
    Source,
    Statement,
    check_rules,
    finding_lines,
    gather,
    split_arguments,
    load_catalog,
    error_text,
    located,
    parse_conf,
    parse_table_spec,
    plan_outputs,
    position,
    read_exact,
    register_table,
    start_session,
    statements,
    stop_session,
    write_in_place,
    write_output,
)

if TYPE_CHECKING:
    from ..plans.sql_in.catalog import Catalog

# What a command analyzes with (sqlglot, the catalog, the optimizer) is imported inside
# it: `--help`, `--version` and `rules` start without it (tests/test_cli.py checks).


@record
class Invocation:
    """What one run of the CLI decides about itself; `main` owns it and hands it to click
    as the root context's `obj` (no module state)."""

    debug: bool = False


# -- errors ---------------------------------------------------------------------------

def _with_hint(e: SparkfoldError, hint: str) -> SparkfoldError:
    e.message = f"{e.message} ({hint})"
    e.args = (e.message,)
    return e


def _set_debug(ctx, param, value):
    run = ctx.find_root().obj
    if value and isinstance(run, Invocation):
        run.debug = True
    return value


debug_option = click.option("--debug", is_flag=True, expose_value=False, callback=_set_debug,
                            is_eager=True, help="Show Python tracebacks (for bug reports).")


# -- inputs ---------------------------------------------------------------------------

conf_option = click.option(
    "--conf", "conf", multiple=True, metavar="KEY=VALUE", callback=parse_conf,
    help="A Spark session setting the queries run under (repeatable), as for spark-submit: "
         "spark.sql.ansi.enabled=false (dbt-spark's and older clusters' mode), "
         "spark.sql.legacy.setopsPrecedence.enabled=true.")


def lint_options(fn):
    """What lint and dbt share: rules left out, session settings, the gate and the format."""
    for option in reversed([
        click.option("--exclude-rule", "exclude", multiple=True, metavar="NAME",
                     help="Do not run this rule (repeatable), like spark.sql.optimizer.excludedRules."),
        conf_option,
        click.option("--fail-on", type=click.Choice(["info", "warning", "error", "never"]), default="warning",
                     show_default=True, help="Exit 1 when a finding at or above this severity is found."),
        click.option("--format", "fmt", type=click.Choice(list(LINT_FORMATS)), default="text",
                     show_default=True,
                     help="text for people, jsonl for tools, github for Actions annotations, sarif for code "
                          "scanning."),
    ]):
        fn = option(fn)
    return fn


# -- optimizing ------------------------------------------------------------------------

@record
class Stats:
    files: int = 0
    queries: int = 0
    rewritten: int = 0
    rewrites: int = 0
    findings: int = 0
    passthroughs: int = 0
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # findings, as lines to print

    def merge(self, other: "Stats") -> None:
        self.files += other.files
        self.queries += other.queries
        self.rewritten += other.rewritten
        self.rewrites += other.rewrites
        self.findings += other.findings
        self.passthroughs += other.passthroughs

    def add(self, result, changed: bool) -> None:
        self.queries += 1
        if result is None or result.passthrough is not None:
            self.passthroughs += 1
            return
        self.rewritten += changed
        self.rewrites += len(result.trace)
        self.findings += len(result.findings)

    def line(self) -> str:
        def n(k, word):
            return f"{k} {word}{'' if k == 1 else 's'}"
        return (f"{n(self.files, 'file')}, {n(self.queries, 'query').replace('querys', 'queries')}: "
                f"{self.rewritten} rewritten ({n(self.rewrites, 'rewrite')}), "
                f"{n(self.findings, 'finding')}, {self.passthroughs} passed through, "
                f"{n(len(self.errors), 'error')}")


def optimize_source(source: Source, catalog: Catalog, exclude, writing: dict, stats: Stats) -> str:
    """The source's text with each statement replaced by its optimized SQL (`writing`:
    `optimize()`'s pretty and keep_layout); a source with no statement (empty, or
    comments only) is its own text."""
    from .rewrite import rewrite

    parts, last = [], 0
    for st in statements(source):
        parts.append(source.text[last:st.start])
        if st.opted_out:
            out, result = st.text, None
        else:
            try:
                out, result = rewrite(st.text, catalog, exclude=exclude, **writing)
            except SparkfoldError as e:
                raise located(e, st) from None
        stats.add(result, out != st.text)
        stats.notes.extend(finding_lines(st, result))
        parts.append(out)
        last = st.end
    parts.append(source.text[last:])
    return "".join(parts)


# -- output helpers --------------------------------------------------------------------

def _stderr_console():
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def _use_color(option: bool | None) -> bool:
    if option is not None:
        return option
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


# -- the commands ------------------------------------------------------------------------

_SCHEMA_HELP = ('Table schemas (repeatable): FILE.json, {"table": {"column": "type [not null]"}}; FILE.sql, '
                'CREATE TABLE statements (as SHOW CREATE TABLE prints them); a Parquet file or folder or a '
                'Delta table, named after it or as NAME=PATH (the parquet extra reads Parquet); a Spark '
                'Connect URL, sc://HOST:PORT: its tables and session settings.')


_INPUTS = "[SQL | FILE | DIR]..."


def input_options(fn):
    """SQL, files and folders (arguments or -f) / stdin, --schema, --exclude-rule, --debug."""
    for deco in reversed([
        click.argument("args", nargs=-1, metavar=_INPUTS),
        click.option("-f", "--file", "files", multiple=True,
                     type=click.Path(exists=True, allow_dash=True, path_type=Path),
                     help="A SQL file, or a folder of .sql files (repeatable); - for standard input."),
        click.option("--schema", type=str, metavar="FILE|URL", multiple=True,
                     help=_SCHEMA_HELP),
        click.option("--exclude-rule", "exclude", multiple=True, metavar="NAME",
                     help="Do not run this rule (repeatable), like spark.sql.optimizer.excludedRules."),
        conf_option,
        debug_option,
    ]):
        fn = deco(fn)
    return fn


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("sparkfold")
    except Exception:
        return "unknown"


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             epilog="""\b
Examples:
  sparkfold optimize "SELECT count(num) FROM t WHERE num = NULL" --schema schema.json
  sparkfold optimize -f queries/ --schema schema.json --out optimized/
  sparkfold explain -f query.sql --schema schema.json
  sparkfold lint -f queries/ --schema schema.json --format github
  sparkfold verify -f query.sql --table t=data/t.parquet

Exit codes: 0 success, 1 verification found a difference or a lint finding at or above
--fail-on, 2 bad input, 3 internal error.""")
@click.version_option(None, "-V", "--version", package_name="sparkfold", prog_name="sparkfold")
@debug_option
def cli():
    """sparkfold: a Catalyst-style pre-optimizer for Spark SQL.

    Reads Spark SQL, analyzes it against table schemas (types and nullability),
    applies Catalyst's NULL-propagation rewrites, and writes Spark SQL back."""


@cli.command(epilog="""\b
Examples:
  sparkfold optimize "SELECT count(DISTINCT (num = NULL)) FROM t" --schema schema.json
  echo "SELECT * FROM t WHERE num = NULL" | sparkfold optimize --schema schema.json
  sparkfold optimize q.sql --schema schema.json -o q.optimized.sql
  sparkfold optimize q1.sql q2.sql --schema schema.json -o optimized/
  sparkfold optimize queries/ --schema schema.json -o optimized/ --pretty

A file may hold several statements separated by semicolons; statements that are not
queries, and queries with the comment /* sparkfold:off */, are kept as they are.""")
@input_options
@click.option("-o", "--output", "--out", "out", type=click.Path(), metavar="PATH",
              help="Write the optimized SQL to this file; for several files or a folder (or a PATH "
                   "ending in /, or an existing folder) write them under it, by their relative names. "
                   "Inputs are never overwritten.")
@click.option("--pretty", is_flag=True,
              help="Lay out a query written whole (--regenerate, or where your text cannot take "
                   "the rewrites in place) over several lines.")
@click.option("--regenerate", is_flag=True,
              help="Write each rewritten query whole from its optimized plan (CTEs inlined, every "
                   "column qualified) instead of your text with just the rewrites applied.")
@click.option("-q", "--quiet", is_flag=True, help="Do not print findings (likely mistakes) on stderr.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, metavar="N",
              help="Processes optimizing files at once (default: one per core).")
def optimize(args, files, schema, exclude, conf, out, pretty, regenerate, quiet, jobs):
    """Print the optimized SQL (or write it to -o FILE, or optimized files to -o DIR).

    SQL comes from the arguments (SQL text, or files and folders of .sql files), from -f,
    or from standard input.  Queries no rule changes are written back exactly as they
    were; a rewritten query is your text with just the rewrites applied (CTEs, layout,
    comments kept), checked to read back as the optimized plan, or else written whole
    from that plan."""
    sql, paths = split_arguments(args)
    sources, folders = gather(sql, paths + files)
    catalog = load_catalog(schema, conf)
    exclude = check_rules(exclude, "--exclude-rule")
    writing = {"pretty": pretty, "keep_layout": not regenerate}
    if out is None and (len(sources) > 1 or folders):
        raise click.UsageError("several input files: give -o DIR to write the optimized files "
                               "(sparkfold never overwrites its input)")
    one_file = len(sources) == 1 and not folders and (out is None or not (out.endswith(("/", os.sep))
                                                                          or Path(out).is_dir()))
    if one_file:
        stats = Stats(files=1)
        text = _catalog_hint(lambda: optimize_source(sources[0], catalog, exclude, writing, stats), schema)
        text = text if text.endswith("\n") else text + "\n"
        if out is None:
            click.echo(text, nl=False)
        else:
            _refuse_overwriting(sources, Path(out))
            write_output(Path(out), text)
        if not quiet:
            for note in stats.notes:
                click.echo(note, err=True)
        if out is not None:
            click.echo(f"{stats.line()} -> {out}")
        return
    out = Path(out)
    targets = plan_outputs(sources, folders, out)
    stats = _optimize_many(sources, targets, catalog, exclude, writing, (schema, conf), quiet, jobs)
    click.echo(f"{stats.line()} -> {out}")
    if stats.errors:  # the other files were written: say which were not, and why, last
        click.echo(f"sparkfold: {len(stats.errors)} of {len(sources)} files not written "
                   f"(each has a statement that could not be analyzed):", err=True)
        for error in stats.errors:
            click.echo(f"  {error.splitlines()[0]}", err=True)
        raise SystemExit(2)


def _optimize_many(sources, targets, catalog, exclude, writing, schema_conf, quiet, jobs=None) -> Stats:
    """Optimize every source into its target, in `jobs` processes (one per core by
    default; in this process for a few files), with a progress bar on a terminal.
    Results are written and reported in the sources' order."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    err = _stderr_console()
    stats = Stats()
    jobs = min(jobs or os.cpu_count() or 1, len(sources))
    if len(sources) < 2 * _FILES_PER_TASK:
        jobs = 1  # starting processes costs more than it saves
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        console=err, transient=True, disable=not err.is_terminal)
    with progress, _executor(jobs) as pool:
        task = progress.add_task("optimizing", total=len(sources))
        work = [(s, catalog if jobs == 1 else None, schema_conf, exclude, writing) for s in sources]
        outcomes = pool.map(_optimize_file, work, chunksize=_FILES_PER_TASK) if pool else map(_optimize_file, work)
        for target, (text, error, part) in zip(targets, outcomes):
            stats.merge(part)
            if error is not None:
                stats.errors.append(error)
                progress.console.print(error, markup=False, soft_wrap=True, highlight=False)
            else:
                write_output(target, text)
                for note in part.notes if not quiet else ():
                    progress.console.print(note, markup=False, soft_wrap=True, highlight=False)
            progress.advance(task)
    return stats


_FILES_PER_TASK = 8


def _executor(jobs: int):
    """A process pool for `jobs` > 1 (spawned: sparkfold runs threads), else nothing."""
    import contextlib

    if jobs <= 1:
        return contextlib.nullcontext(None)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn"))


def _optimize_file(item) -> tuple[str | None, str | None, Stats]:
    """One source's optimized text (or its error message) and its statistics; in a worker
    process the catalog is read from the schema file there."""
    source, catalog, (schema, conf), exclude, writing = item
    part = Stats(files=1)
    try:
        if catalog is None:
            catalog = _cached_catalog(schema, conf)
        text = _catalog_hint(lambda: optimize_source(source, catalog, exclude, writing, part), schema)
    except SparkfoldError as e:
        if e.exit_code != 2:
            raise
        return None, error_text(e), part
    return text, None, part


@functools.lru_cache(maxsize=4)
def _cached_catalog(schema, conf):
    return load_catalog(schema, conf)


_NO_SCHEMA = "no --schema given: pass --schema FILE.json with the tables' columns"


def _catalog_hint(fn, schema):
    try:
        return fn()
    except UnknownTableError as e:
        if not schema:
            raise _with_hint(e, _NO_SCHEMA)
        raise


def optimized_statements(sources, catalog, exclude, hint: str | None):
    """(statement, OptimizeResult or the error) for every statement of every source: a
    statement that cannot be analyzed does not stop the others.  Errors name the source
    and the position in it, and an unknown table gets `hint`."""
    from .api import optimize as run_optimize

    for source in sources:
        sts = statements(source)
        if not sts:  # nothing to explain is not an error (an empty or comment-only file)
            click.echo(f"sparkfold: {source.name}: no SQL statement, nothing to explain", err=True)
        for st in sts:
            try:
                yield st, run_optimize(st.text, catalog, exclude=exclude)
            except UnknownTableError as e:
                yield st, located(_with_hint(e, hint) if hint else e, st)
            except SparkfoldError as e:
                if e.exit_code != 2:
                    raise  # a bug in sparkfold, not in the input
                yield st, located(e, st)


def _where(st: Statement):
    """Where explain's findings point: the statement's place in its file (or on stdin); a
    query given as the argument keeps its own positions."""
    from .explain import Where

    if st.source.name == "<argument>" and st.index == 1 and st.start == 0:
        return None
    line, column = position(st, 1, 1)
    return Where(st.source.name, line, column)


def _header(i: int, st: Statement) -> str:
    return ("\n" if i else "") + f"==> {st.source.name}, statement {st.index} <=="


@cli.command(epilog="""\b
Examples:
  sparkfold lint queries/ --schema schema.json
  sparkfold lint "SELECT * FROM t WHERE num = NULL" --schema schema.json
  sparkfold lint queries/ --schema schema.json --fail-on warning --format github
  sparkfold lint queries/ --schema schema.json --format sarif -o sparkfold.sarif
  git ls-files '*.sql' | xargs sparkfold lint --schema schema.json   # (files as arguments)
  sparkfold lint queries/ --schema schema.json --diff                 # what --fix would change
  sparkfold lint queries/ --schema schema.json --fix                  # apply the safe fixes
  sparkfold lint queries/ --schema schema.json --fix --unsafe-fixes   # and the likely intent

\b
A safe fix keeps every result (rows, names, types, nullability, errors), as the
optimizer proves it: a LEFT JOIN a filter makes inner written JOIN, a condition that is
always TRUE or an OR branch or CASE branch that is never taken left out. An unsafe fix
writes the likely intent and changes the result: `x = NULL` to `x IS NULL`, a NOT IN
over a nullable subquery to NOT EXISTS. Files are rewritten whole or not at all, only
when something changes; a file with a statement that cannot be analyzed is left as it is.

\b
Exit codes: 0 nothing at or above --fail-on, 1 a finding at or above it (with --fix:
one that remains; with --diff: something would change), 2 a statement could not be
analyzed (its position is reported; the rest is linted).""")
@click.argument("args", nargs=-1, metavar=_INPUTS)
@click.option("-f", "--file", "files", multiple=True,
              type=click.Path(exists=True, allow_dash=True, path_type=Path),
              help="A SQL file, or a folder of .sql files (repeatable); - for standard input.")
@click.option("--sql", "sql", metavar="TEXT", help="Lint this SQL text (as an argument does).")
@click.option("--schema", type=str, metavar="FILE|URL", multiple=True, help=_SCHEMA_HELP)
@lint_options
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Write the report to FILE instead of standard output.")
@click.option("-q", "--quiet", is_flag=True, help="No summary line on stderr.")
@click.option("--fix", is_flag=True,
              help="Apply the safe fixes in place (SQL from stdin or an argument: printed fixed); "
                   "report what remains.")
@click.option("--unsafe-fixes", is_flag=True,
              help="With --fix or --diff, apply the unsafe fixes too (they change results: the likely intent).")
@click.option("--diff", is_flag=True,
              help="Print a unified diff of what --fix would change, and write nothing (exit 1 when "
                   "something would change).")
@debug_option
def lint(args, files, sql, schema, exclude, conf, fail_on, fmt, output, quiet, fix, unsafe_fixes, diff):
    """Report likely mistakes in Spark SQL, and with --fix, fix them.

    The arguments are SQL files or folders of .sql files (- for standard input), or SQL
    text; with none, SQL is read from standard input."""
    from .lint import exit_code, fix_sources, fix_summary, lint_sources, render, summary, unified_diff

    sql, paths = split_arguments(args, sql)
    sources, _ = gather(sql, paths + tuple(files))
    catalog = load_catalog(schema, conf)
    exclude = check_rules(exclude, "--exclude-rule")
    _refuse_overwriting(sources, output)
    fixed_count = None
    fixed_text: list[str] = []  # SQL not from a file, fixed: printed
    if fix or diff:
        boms = {}
        for i, s in enumerate(sources):
            if s.name not in ("<stdin>", "<argument>"):  # as it is: line ends and byte-order mark kept
                text, boms[s.name] = read_exact(Path(s.name))
                sources[i] = Source(s.name, text, s.rel)
        fixed = fix_sources(sources, catalog, exclude, unsafe_fixes)
        if diff:
            click.echo(unified_diff(fixed), nl=False)
            if not quiet:
                n, m = sum(f.fixes for f in fixed), sum(f.text != f.source.text for f in fixed)
                click.echo(f"sparkfold: would fix {n} finding{'' if n == 1 else 's'} in {m} "
                           f"file{'' if m == 1 else 's'}", err=True)
            raise SystemExit(2 if any(f.unreadable for f in fixed) else 1 if any(f.fixes for f in fixed) else 0)
        for f in fixed:
            if f.text == f.source.text:
                continue  # (nothing to fix: the file is not touched)
            if f.source.name in boms:
                write_in_place(Path(f.source.name), f.text, boms[f.source.name])
            else:
                fixed_text.append(f.text)
        sources = [Source(f.source.name, f.text, f.source.rel) for f in fixed]
        fixed_count = sum(f.fixes for f in fixed)
    records = list(lint_sources(sources, catalog, exclude, fixes=True))
    text = render(records, fmt, _version())
    if fixed_text:  # stdout has the fixed SQL: the report goes to stderr
        click.echo("".join(fixed_text), nl=False)
    if output is not None:
        write_output(output, text)
    else:
        click.echo(text, nl=False, err=bool(fixed_text))
    if not quiet:
        n = sum(len(statements(s)) for s in sources)
        click.echo(f"sparkfold: {summary(records, n)}", err=True)
        more = fix_summary(records, fixed_count)
        if more:
            click.echo(f"sparkfold: {more}", err=True)
    raise SystemExit(exit_code(records, fail_on))


@cli.command(epilog="""\b
Examples:
  dbt build && dbt docs generate && sparkfold dbt
  sparkfold dbt path/to/project --fail-on warning --format github
  sparkfold dbt --out optimized/          # also write each model's optimized SQL

\b
Reads dbt's target folder: manifest.json (the compiled models, their not_null tests and
contracts; without it, `dbt compile` runs first, in this process) and catalog.json (the
column types, from `dbt docs generate`). A column is NOT
NULL where a not_null test (that fails the build, and passed in the last run recorded in
run_results.json) or an enforced contract says so. Models are optimized for ANSI off, as
dbt-spark runs its sessions; --conf spark.sql.ansi.enabled=true for another adapter.
Exit codes as for lint: 0, 1 (a finding at or above --fail-on), 2 (a model could not be
analyzed, or the project's artifacts are missing).""")
@click.argument("project_dir", required=False, default=".",
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--target-path", type=click.Path(path_type=Path), default=None, metavar="DIR",
              help="dbt's target folder (default: PROJECT_DIR/target).")
@lint_options
@click.option("-o", "--out", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
              help="Also write each model's optimized SQL here, under its model path.")
@click.option("-q", "--quiet", is_flag=True, help="No summary on stderr.")
@debug_option
def dbt(project_dir, target_path, exclude, conf, fail_on, fmt, out, quiet):
    """Lint (and with --out pre-optimize) a dbt project's compiled models, with column
    types from catalog.json and NOT NULL from the project's tests and contracts."""
    from ..plans.sql_in.catalog import settings_from
    from .dbt import load_project
    from .lint import exit_code, lint_sources, render, summary

    project = load_project(project_dir, target_path)
    given = dict(conf)
    catalog = project.catalog.with_settings(**{**settings_from(given.get), "ansi": str(
        given.get("spark.sql.ansi.enabled", "false")).strip().lower() == "true"})
    exclude = check_rules(exclude, "--exclude-rule")
    records = list(lint_sources(project.models, catalog, exclude))
    click.echo(render(records, fmt, _version()), nl=False)
    if out is not None:
        stats = Stats(files=0)
        for source in project.models:
            target = out / source.rel
            if target.exists() and target.resolve() == Path(source.name).resolve():
                raise InputError(f"writing {target} would overwrite an input; choose another --out")
            part = Stats(files=1)
            try:
                text = optimize_source(source, catalog, exclude, {"pretty": False, "keep_layout": True}, part)
            except SparkfoldError:
                continue  # reported above as the model's error record
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            stats.merge(part)
    if not quiet:
        n = sum(len(statements(s)) for s in project.models)
        facts = f"; NOT NULL from the project: {', '.join(project.not_null)}" if project.not_null else ""
        skipped = f"; left out (a column type sparkfold does not read): {', '.join(project.skipped)}" \
            if project.skipped else ""
        click.echo(f"sparkfold: {len(project.models)} models: {summary(records, n)}{facts}{skipped}", err=True)
        if out is not None:
            click.echo(f"sparkfold: {stats.line()} -> {out}", err=True)
    raise SystemExit(exit_code(records, fail_on))


@cli.command(epilog="""\b
Examples:
  sparkfold explain "SELECT * FROM t WHERE num = NULL" --schema schema.json
  sparkfold explain -f query.sql --schema schema.json --format json
  sparkfold explain -f query.sql --schema schema.json --rule NullPropagation
  sparkfold explain -f query.sql --schema schema.json --exclude-rule ConstantFolding
  sparkfold explain -f query.sql --schema schema.json --format html -o explain.html""")
@input_options
@click.option("--format", "fmt", type=click.Choice(["text", "json", "html"]), default="text",
              show_default=True,
              help="Text for people, JSON for tools, HTML: one self-contained page to open in a browser.")
@click.option("--rule", "rule", metavar="NAME", help="Show only the rewrites of this rule.")
@click.option("--color/--no-color", default=None, help="Color the text (default: on a terminal).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Write to FILE instead of standard output.")
def explain(args, files, schema, exclude, conf, fmt, rule, color, output):
    """Show how a query is optimized: the plans, every rewrite (rule, batch, before and
    after), the optimized SQL and the findings (likely mistakes, such as `a = NULL`)."""
    sql, paths = split_arguments(args)
    sources, _ = gather(sql, paths + files)
    catalog = load_catalog(schema, conf)
    exclude = check_rules(exclude, "--exclude-rule")
    rule = check_rules([rule], "--rule")[0] if rule else None
    use_color = _use_color(color) and fmt == "text" and output is None
    hint = _NO_SCHEMA if not schema else None
    errors: list[SparkfoldError] = []  # statements that could not be analyzed: the rest go on
    _refuse_overwriting(sources, output)
    from ..rules.constraints import import_lazy_dependencies

    import_lazy_dependencies()  # (now: the rule timeline charges no rule with a one-time import)
    if fmt in ("json", "html"):
        from .explain import FORMAT_VERSION, explain_dict

        docs = []
        for st, result in optimized_statements(sources, catalog, exclude, hint):
            line, column = position(st, 1, 1)
            doc = {"source": st.source.name, "statement": st.index, "offset": st.start, "line": line,
                   "column": column}
            if comments := _comments_above(st):
                doc["comments"] = comments
            if isinstance(result, SparkfoldError):
                errors.append(result)
                docs.append(doc | {"error": error_text(result).splitlines()[0]})
            else:
                docs.append(doc | {"explain": explain_dict(result, rule=rule)})
        # one shape for one statement or many; a statement's own positions (its findings')
        # count from its first character, at `line`/`column` (`offset`) in its source
        doc = {"format_version": FORMAT_VERSION, "statements": docs}
        if fmt == "html":
            from .explain_html import render_html

            text = render_html(doc)
        else:
            import json

            text = json.dumps(doc, indent=2)
        _emit(text, output)
        _explain_errors(errors)
        return
    items = []
    for st, result in optimized_statements(sources, catalog, exclude, hint):
        if isinstance(result, SparkfoldError):
            errors.append(result)
            items.append((st, error_text(result)))
        else:
            items.append((st, result.explain(format=fmt, rule=rule, color=use_color, where=_where(st))))
    if output is not None:
        parts = [(_header(i, st) + "\n" if len(items) > 1 else "") + text.rstrip("\n")
                 for i, (st, text) in enumerate(items)]
        _emit("\n".join(parts), output)
        _explain_errors(errors)
        return
    for i, (st, text) in enumerate(items):
        if len(items) > 1:
            click.echo(_header(i, st))
        click.echo(text.rstrip("\n"), color=use_color)  # click strips ANSI codes unless told
    if errors:
        raise SystemExit(2)  # (each error is printed in its place above)


def _comments_above(st) -> str:
    """The comment lines written just above a statement (what it is for, most often), up
    to its first character; empty when there are none."""
    text = st.source.text[st.lead:st.start]
    lines = text.split("\n")
    if st.lead > 0 and st.source.text[st.lead - 1] != "\n":
        lines.pop(0)  # the rest of the line the statement before ends on: its own comment
    while lines and not lines[0].strip():
        lines.pop(0)
    kept = "\n".join(lines)
    return kept if ("--" in kept or "/*" in kept) else ""


def _explain_errors(errors: list[SparkfoldError]) -> None:
    """The statements explain could not analyze, on stderr (their place in the page or
    file says so too), and exit 2: bad input."""
    for e in errors:
        click.echo(error_text(e), err=True)
    if errors:
        raise SystemExit(2)


def _refuse_overwriting(sources, output: Path | None) -> None:
    """-o FILE must not be one of the inputs: sparkfold never overwrites what it reads."""
    if output is not None and any(s.rel is not None and Path(s.name).resolve() == output.resolve()
                                  for s in sources):
        raise InputError(f"writing {output} would overwrite an input; choose another -o")


def _emit(text: str, output: Path | None) -> None:
    """To standard output, or to the file (written whole, through a rename)."""
    if output is None:
        click.echo(text)
    else:
        write_output(output, text if text.endswith("\n") else text + "\n")


@cli.command(epilog="""\b
Examples:
  sparkfold verify -f query.sql --table t=data/t.parquet --table u=data/u.csv
  sparkfold verify "SELECT count(num) FROM t" --table t=data/t.parquet --format json
  sparkfold verify -f queries/ --schema schema.json --remote sc://localhost:15002

Table files are read by extension: .parquet, .csv (with a header line), .json
(one object per line), .orc; a folder is read by the extension of the files in it.
Without --schema the schemas (and nullability) come from the Spark session.
Exit code 1 when a query's optimized form gives a different result.""")
@input_options
@click.option("--table", "tables", multiple=True, metavar="NAME=PATH",
              help="Register a data file or folder as temp view NAME (repeatable).")
@click.option("--master", metavar="URL", help="Spark master of a classic session (default local[*]).")
@click.option("--remote", metavar="sc://HOST:PORT", help="Use a Spark Connect server instead.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
def verify(args, files, schema, exclude, conf, tables, master, remote, fmt):
    """Run each query as written and as optimized on Spark, and compare the results
    (schemas, then rows: Spark's equality, NULL matching NULL, NaN matching NaN)."""
    if master and remote:
        raise click.UsageError("give --master or --remote, not both")
    from ..plans.sql_in.catalog import Catalog
    from ..plans.sql_in.parse import parse_query
    from .api import optimize as run_optimize

    sql, paths = split_arguments(args)
    sources, _ = gather(sql, paths + files)
    exclude = check_rules(exclude, "--exclude-rule")
    specs = [parse_table_spec(t) for t in tables]
    file_catalog = load_catalog(schema, conf) if schema else None
    errors: list[tuple[Statement, SparkfoldError]] = []
    facts: list[str] = []  # NOT NULL declarations the data breaks
    # Every statement is parsed (and, with --schema, analyzed) before Spark starts, which
    # takes long: the bad ones are reported and the rest verified.
    todo: list[tuple[Statement, Any]] = []
    for source in sources:
        for st in statements(source):  # (an empty or comment-only file: nothing to verify)
            try:
                todo.append((st, run_optimize(st.text, file_catalog, exclude=exclude) if file_catalog
                             else parse_query(st.text)))
            except SparkfoldError as e:
                errors.append((st, e))
    reports = []
    if todo:
        spark = start_session(master, remote, conf)
        try:
            for name, path, kind in specs:
                register_table(spark, name, path, kind)
            if file_catalog is not None:  # the schema's NOT NULLs, checked against the data first
                from .verify import broken_not_null, declare_not_null

                facts = broken_not_null(spark, file_catalog)
                if not facts:  # the files' tables typed as the schema types them
                    declare_not_null(spark, file_catalog, [name for name, _, _ in specs])
            catalog = file_catalog or Catalog.from_spark(spark)
            for st, done in todo:
                try:
                    result = done if file_catalog else run_optimize(st.text, catalog, exclude=exclude)
                except UnknownTableError as e:
                    errors.append((st, e if file_catalog else _with_hint(e, "register it with --table NAME=PATH")))
                    continue
                except SparkfoldError as e:
                    errors.append((st, e))
                    continue
                reports.append((st, result.verify(spark), result))
        finally:
            stop_session(spark)
    errors.sort(key=lambda item: (sources.index(item[0].source), item[0].index))
    statement_messages = [error_text(located(e, st)) for st, e in errors]
    # the data's broken NOT NULL declarations first: they are why what follows may differ
    for m in facts:
        click.echo(f"sparkfold: error: {m}", err=True)
    if fmt == "json":
        import json

        docs = [{"source": st.source.name, "statement": st.index, **r.to_dict()} for st, r, _ in reports]
        bad = [{"source": None, "statement": None, "message": m} for m in facts] + \
              [{"source": st.source.name, "statement": st.index, "message": m.splitlines()[0]}
               for (st, _), m in zip(errors, statement_messages)]
        click.echo(json.dumps({"format_version": 1, "statements": docs, "errors": bad}, indent=2, default=str))
    else:
        _verify_text(reports, several=len(reports) + len(errors) > 1)
    for m in statement_messages:
        click.echo(m, err=True)
    if not all(r.equal for _, r, _ in reports):
        raise SystemExit(1)  # a difference first: it is what verify is for
    if errors or facts:
        raise SystemExit(2)


def _verify_text(reports, several: bool) -> None:
    """Each statement's verdict, its optimized SQL (when it is not the original) and its
    findings; which Catalyst rules the references ran without, once when they are the same
    for every statement."""
    from .verify import excluded_note

    notes = {tuple(r.excluded_rules) for _, r, _ in reports}
    once = several and len(notes) == 1
    if once and (note := excluded_note(list(next(iter(notes))))):
        click.echo(f"references: each statement as written,{note}\n")
    for i, (st, report, result) in enumerate(reports):
        if several:
            click.echo(_header(i, st))
        click.echo(report.to_text(excluded_note=not once).rstrip("\n"))
        if result.sql.strip() != st.text.strip():
            click.echo("  optimized SQL:")
            click.echo("\n".join("    " + line for line in result.sql.strip().splitlines()))
        for f in result.findings:
            line, column = position(st, f.line, f.column)
            click.echo(f"  {st.source.name}:{line}:{column}: {f.severity}: {f.message} [{f.code}]")


@cli.command(epilog="""\b
Examples:
  sparkfold rules
  sparkfold rules --format markdown""")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown"]), default="text",
              show_default=True)
@debug_option
def rules(fmt):
    """List the rewrite rules, the batches they run in, and their Catalyst counterparts."""
    rows = rule_catalogue()
    if fmt == "markdown":
        click.echo(rules_markdown(rows))
        return
    if not sys.stdout.isatty():
        # piped (to grep, a file, a pager): one line a rule, nothing cut or wrapped
        w1, w2 = (max(len(r[k]) for r in rows) for k in ("rule", "catalyst"))
        for r in rows:
            click.echo(f"{r['rule']:<{w1}}  {r['catalyst']:<{w2}}  {r['description']}".rstrip())
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("rule", "what it rewrites", "Catalyst counterpart")
    for r in rows:
        table.add_row(r["rule"], r["description"], r["catalyst"])
    Console(highlight=False, soft_wrap=False).print(table)


@cli.command("run", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
             epilog="""\b
Examples:
  sparkfold run -- dbt run
  sparkfold run --lint -- python etl.py --day 2026-11-24
  sparkfold run -- jupyter lab

Every Python process the command starts (with sparkfold installed in its environment)
wraps `spark.sql` of each SparkSession it creates, classic or Spark Connect, with the
schemas and settings read from the session. Findings are logged by the
`sparkfold` logger, each at its severity's level (ERROR, WARNING, INFO), once per
query text (repeats are counted in the summary); rewrites at INFO. Unless the
program configures logging itself, WARNING and above print on stderr. The
command's exit code is returned.""")
@click.option("--lint", "lint_only", is_flag=True,
              help="Report findings only; every query is sent to Spark as written.")
@click.option("-q", "--quiet", is_flag=True, help="No summary line at the end.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED, metavar="-- COMMAND [ARGS]...")
@debug_option
def run_command(lint_only, quiet, command):
    """Run COMMAND with sparkfold in every SparkSession its Python processes create
    (SPARKFOLD=on, or lint), and print a summary when it ends."""
    import subprocess
    import tempfile

    boot = str(Path(__file__).resolve().parent / "_boot")
    env = dict(os.environ)
    env["SPARKFOLD"] = "lint" if lint_only else "on"
    env["PYTHONPATH"] = os.pathsep.join([boot] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    with tempfile.TemporaryDirectory(prefix="sparkfold-run-") as tmp:
        report = Path(tmp) / "report.jsonl"
        env["SPARKFOLD_REPORT"] = str(report)
        try:
            code = subprocess.call(list(command), env=env)
        except FileNotFoundError:
            raise InputError(f"command not found: {command[0]}") from None
        except PermissionError:
            raise InputError(f"cannot run {command[0]}: permission denied") from None
        if not quiet:
            from .autohook import summary

            lines = report.read_text(encoding="utf-8").splitlines() if report.exists() else []
            click.echo(summary(lines), err=True)
    raise SystemExit(128 - code if code < 0 else code)  # killed by a signal: as a shell says it


@cli.command(epilog="""\b
Examples:
  sparkfold lsp                     # what an editor starts (docs/editors.md)

The schemas come from the server's settings (the editor's initialization options:
{"schema": ["schema.json"], "conf": {...}, "excludeRules": [...]}), else from the dbt
project at the workspace's root. Needs the lsp extra: pip install 'sparkfold[lsp]'.""")
@debug_option
def lsp():
    """Run the language server (LSP on standard input and output): lint diagnostics as
    you type, hover with the optimized SQL, code actions for the fixes."""
    try:
        from .lsp import serve
    except ImportError as e:
        if e.name not in ("pygls", "lsprotocol") and not str(e.name or "").startswith(("pygls.", "lsprotocol.")):
            raise
        raise InputError("the language server needs pygls: pip install 'sparkfold[lsp]'") from None
    serve()


def rule_catalogue() -> list[dict[str, Any]]:
    """Every rule, in the order the default batches first run them."""
    from .batches import BATCHES, RULES

    where: dict[str, list[str]] = {}
    for batch in BATCHES:
        for rule in batch.rules:
            if batch.name not in where.setdefault(rule.name, []):
                where[rule.name].append(batch.name)
    return [{"rule": n, "batches": where[n], "catalyst": r.catalyst or n,
             "description": " ".join(r.description.split())} for n, r in RULES.items()]


def rules_markdown(rows: list[dict[str, Any]]) -> str:
    lines = ["| rule | what it rewrites | Catalyst counterpart | batches |",
             "|---|---|---|---|"]
    for r in rows:
        desc = r["description"].replace("|", "\\|") or "-"
        catalyst = r["catalyst"].rsplit(".", 1)[-1].replace("$", ".")  # the class, without its package
        lines.append(f"| `{r['rule']}` | {desc} | `{catalyst}` | {', '.join(r['batches']) or '-'} |")
    return "\n".join(lines)


# -- entry point -----------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    run = Invocation(debug=os.environ.get("SPARKFOLD_DEBUG") == "1")
    try:
        cli.main(args=argv, prog_name="sparkfold", standalone_mode=False, obj=run)
        return 0
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.ClickException as e:
        e.show()
        return e.exit_code
    except click.exceptions.Abort:
        click.echo("sparkfold: interrupted", err=True)
        return 130
    except KeyboardInterrupt:
        click.echo("sparkfold: interrupted", err=True)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 1
    except SparkfoldError as e:
        if run.debug:
            traceback.print_exc()
        if isinstance(e, InternalError):
            _internal(e.message)
        else:
            click.echo(error_text(e), err=True)
        return e.exit_code
    except Exception as e:  # a bug
        if run.debug:
            traceback.print_exc()
        _internal(f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}")
        return 3


def _internal(message: str) -> None:
    click.echo(f"sparkfold: internal error: {message}", err=True)
    click.echo("This is a bug in sparkfold. Please report it with the input that caused it "
               "(run again with --debug to see the traceback).", err=True)


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


if __name__ == "__main__":
    sys.exit(main())
