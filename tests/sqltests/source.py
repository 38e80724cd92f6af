"""Read a SQLQueryTestSuite input file the way Spark's suite does.

The format (`sql/core/src/test/resources/sql-tests/inputs/` in apache/spark): lines whose
first non-blank characters are `--` are comments (directives among them), the rest is code,
split into statements at every `;` not preceded by a backslash.  Directives:
`--IMPORT other.sql` puts the code of another file of the same tree first (its path is
relative to the tree's root); `--SET k=v[,k=v]` runs the file under those settings;
`--CONFIG_DIMn k=v[,k=v]` lines of one dimension are alternatives, and the file runs once
per combination across dimensions (each on top of the --SET settings);
`--QUERY-DELIMITER-START` / `-END` enclose one statement that may hold `;`.  The folder a
file sits in says how its session is set up (`postgreSQL/`: ANSI on, legacy intervals, the
UDFs booleq/boolne/vol; `nonansi/`: ANSI off; `timestampNTZ/`: TIMESTAMP is
TIMESTAMP_NTZ; anything else: ANSI on).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path

INPUTS = Path(__file__).with_name("inputs")

# A statement is a query when it starts (after parentheses and comments) with one of these
# (what Spark's Thrift server suite takes for a query, with FROM-first and TABLE added)
_QUERY_START = re.compile(r"^(?:\s|\(|/\*.*?\*/)*(SELECT|WITH|VALUES|FROM|TABLE)\b", re.IGNORECASE | re.DOTALL)
_SPLIT = re.compile(r"(?<=[^\\]);")
_PERSISTENT = re.compile(r"^\s*(CREATE\s+(OR\s+REPLACE\s+)?(GLOBAL\s+TEMP(ORARY)?\s+VIEW|TABLE|DATABASE|SCHEMA"
                         r"|NAMESPACE|VIEW)|INSERT|ALTER|USE)\b", re.IGNORECASE)

# Settings that only choose how Spark executes a plan (join strategy, code generation,
# the null-aware anti join): the results and errors of a query do not depend on them.
# A dimension made only of these is left out (the file runs once, with the harness's
# settings) unless every combination is asked for.
PHYSICAL = frozenset({
    "spark.sql.autoBroadcastJoinThreshold", "spark.sql.join.preferSortMergeJoin",
    "spark.sql.join.forceApplyShuffledHashJoin", "spark.sql.codegen.wholeStage",
    "spark.sql.codegen.factoryMode", "spark.sql.optimizeNullAwareAntiJoin",
    "spark.sql.adaptive.enabled", "spark.sql.shuffle.partitions",
})


@dataclass(frozen=True)
class Statement:
    index: int          # position in the file (imported statements first)
    sql: str
    query: bool         # a query (its rows are a result), else a command that builds state


@dataclass
class TestFile:
    name: str                                   # path relative to the tree's root
    statements: list[Statement]
    settings: list[tuple[str, str]]             # --SET, in order
    dimensions: list[list[list[tuple[str, str]]]] = field(default_factory=list)  # --CONFIG_DIMn

    @property
    def kind(self) -> str:
        top = self.name.split("/", 1)[0]
        return {"postgreSQL": "postgresql", "nonansi": "nonansi", "timestampNTZ": "timestamp_ntz"}.get(top, "regular")

    def session_settings(self) -> list[tuple[str, str]]:
        """What the suite sets on the file's session before its --SET settings."""
        if self.kind == "postgresql":
            return [("spark.sql.ansi.enabled", "true"), ("spark.sql.legacy.interval.enabled", "true")]
        if self.kind == "nonansi":
            return [("spark.sql.ansi.enabled", "false")]
        if self.kind == "timestamp_ntz":
            return [("spark.sql.ansi.enabled", "true"), ("spark.sql.timestampType", "TIMESTAMP_NTZ")]
        return [("spark.sql.ansi.enabled", "true")]

    def config_sets(self, all_configs: bool = False) -> list[list[tuple[str, str]]]:
        """The settings of each run: one per combination of the dimensions' values.  A
        dimension that sets only execution settings (PHYSICAL) is left out unless
        `all_configs`."""
        dims = [d for d in self.dimensions
                if all_configs or not all(k in PHYSICAL for alt in d for k, _ in alt)]
        return [[kv for alt in combo for kv in alt] for combo in itertools.product(*dims)] or [[]]

    @property
    def queries(self) -> list[Statement]:
        return [s for s in self.statements if s.query]

    @property
    def persistent(self) -> bool:
        """Does a command of the file create something that outlives its session (a table,
        a database, a view that is not temporary) or change the current database?"""
        return any(not s.query and _PERSISTENT.match(s.sql) for s in self.statements)


def _pairs(text: str) -> list[tuple[str, str]]:
    out = []
    for kv in text.split(","):
        key, _, value = kv.partition("=")
        out.append((key.strip(), value.strip()))
    return out


def _comments_and_code(text: str) -> tuple[list[str], list[str]]:
    comments, code = [], []
    for line in text.split("\n"):
        s = line.strip()
        (comments if s.startswith("--") and not s.startswith("--QUERY-DELIMITER") else code).append(line)
    return comments, code


def _split(code: list[str]) -> list[str]:
    if any(c.strip().startswith("--QUERY-DELIMITER") for c in code):
        out, block, inside, rest = [], [], False, []
        for line in code:
            s = line.strip()
            if s.startswith("--QUERY-DELIMITER-START"):
                inside = True
                out.extend(_SPLIT.split("\n".join(rest)))
                rest = []
            elif s.startswith("--QUERY-DELIMITER-END"):
                inside = False
                out.append("\n".join(block).rstrip().removesuffix(";"))
                block = []
            else:
                (block if inside else rest).append(line)
        out.extend(_SPLIT.split("\n".join(rest)))
        parts = out
    else:
        parts = _SPLIT.split("\n".join(code))
    # as the suite does: a comment after the `;` of a line starts the next statement's text
    parts = ["\n".join(line for line in p.strip().split("\n") if not line.startswith("--")) for p in parts]
    return [p.strip() for p in parts if p.strip()]


def read(path: Path, root: Path = INPUTS) -> TestFile:
    """The file at `path` (in the tree at `root`)."""
    text = path.read_text(encoding="utf-8")
    comments, code = _comments_and_code(text)
    imported: list[str] = []
    for c in comments:
        if c.startswith("--IMPORT "):
            other = root / c[len("--IMPORT "):].strip()
            if other.is_file():
                imported.extend(_comments_and_code(other.read_text(encoding="utf-8"))[1])
    settings = [kv for c in comments if c.startswith("--SET ") for kv in _pairs(c[len("--SET "):])]
    dims: dict[str, list[list[tuple[str, str]]]] = {}
    for c in comments:
        if c.startswith("--CONFIG_DIM"):
            name, _, rest = c[len("--CONFIG_DIM"):].partition(" ")
            dims.setdefault(name, []).append(_pairs(rest))
    statements = [Statement(i, sql, bool(_QUERY_START.match(sql)))
                  for i, sql in enumerate(_split(imported + code))]
    return TestFile(path.relative_to(root).as_posix(), statements, settings, list(dims.values()))


def files(root: Path = INPUTS, names: list[str] | None = None) -> list[TestFile]:
    """The files of the tree (every `*.sql`, or those named: paths relative to root, or
    a folder's files), in path order."""
    paths = sorted(p for p in root.rglob("*.sql") if p.is_file())
    if names:
        wanted = [n.strip("/") for n in names]
        paths = [p for p in paths if any(p.relative_to(root).as_posix() == w
                                         or p.relative_to(root).as_posix().startswith(w + "/") for w in wanted)]
    return [read(p, root) for p in paths]


def spread(tests: list[TestFile], n: int) -> list[TestFile]:
    """Every k-th file, so that a sample spreads over the folders."""
    if n >= len(tests):
        return tests
    step = len(tests) / n
    return [tests[int(i * step)] for i in range(n)]
