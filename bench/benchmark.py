"""sparkfold's speed against sqlglot's optimizer and Spark Catalyst, in one process.

    python bench/benchmark.py                 # TPC-H, TPC-DS and the stress shapes
    python bench/benchmark.py --quick         # fewer runs, smaller stress sizes
    python bench/benchmark.py --no-spark      # skip Catalyst (no JVM needed)
    python bench/benchmark.py --bench-dir PATH   # the corpus elsewhere (default bench/corpus)

For every query of bench/corpus (TPC-H 22, TPC-DS 99) it times, with the median of
several runs:
- sparkfold: `optimize(sql, catalog)`, the full pipeline (parse, analyze, every batch,
  SQL out, lints);
- sqlglot: `parse_one` + `sqlglot.optimizer.optimize` + `.sql()`;
- Catalyst: `spark.sql(q)` + `queryExecution().optimizedPlan()` on empty temp views, after
  a warm-up pass (analysis + optimization, warm JIT).
It prints per-corpus medians, p95, the ratios of medians and of totals, the slowest
queries, the cost of each phase and batch, the time per rule (--json FILE also keeps
each query's time), how much of each query's text the optimized SQL keeps (the share of
unchanged lines in a line diff, over the rewritten queries: what a reviewer reads), the
cold start of the command line against `python -c "import sqlglot"`, for each stress
shape (OR chains, IN lists, CASE, chains of NULL comparisons, UNION ALL, nesting) the time
and peak memory at each size with the growth factor and exponent, a folder of 2,000
files optimized by one process and by one per core (the cores used), and a long-running
hook: 100,000 `spark.sql` calls from 8 threads, the hook's added time per query (p50, p99) and whether memory grows
(this process's, and the Spark driver's live heap).
Times are measured on the machine at hand: run it, do not trust numbers across machines.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

BENCH = os.environ.get("SPARKFOLD_BENCH", os.path.join(ROOT, "bench", "corpus"))


def corpus(name: str):
    from tests import tpc

    os.environ.setdefault("SPARKFOLD_BENCH", BENCH)
    return tpc.schema(name), tpc.queries(name)


def median_time(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def pct(values, q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


# ---------------------------------------------------------------------------
# Stress shapes
# ---------------------------------------------------------------------------

STRESS_SCHEMA = {"t": {"a": "int", "b": "int not null", "x": "double", "s": "string"}}


def stress_shapes(quick: bool):
    def or_chain(n):
        return "SELECT a FROM t WHERE " + " OR ".join(f"a = {i}" for i in range(n))

    def in_list(n):
        return "SELECT a FROM t WHERE a IN (" + ", ".join(str(i) for i in range(n)) + ")"

    def case(n):
        return "SELECT CASE " + " ".join(f"WHEN a = {i} THEN {i}" for i in range(n)) + " END AS c FROM t"

    def null_chain(n):
        return "SELECT a FROM t WHERE " + " AND ".join(
            f"(a = NULL OR b > {i})" for i in range(n))

    def union(n):
        return " UNION ALL ".join(f"SELECT a + {i} AS v FROM t" for i in range(n))

    def nesting(n):
        return "SELECT " + "(" * n + "a" + " + 1)" * n + " AS v FROM t"

    if quick:
        return {
            "OR chain": (or_chain, [1000, 2000]),
            "IN list": (in_list, [10000, 20000]),
            "CASE branches": (case, [500, 1000]),
            "NULL comparison chain": (null_chain, [750, 1500]),
            "UNION ALL": (union, [150, 300]),
            "nesting depth": (nesting, [1000, 2000]),
        }
    return {
        "OR chain": (or_chain, [1000, 2000, 4000, 8000]),
        "IN list": (in_list, [10000, 50000]),
        "CASE branches": (case, [250, 500, 1000]),
        "NULL comparison chain": (null_chain, [750, 1500, 3000]),
        "UNION ALL": (union, [300, 1000]),
        "nesting depth": (nesting, [1000, 5000]),
    }


# ---------------------------------------------------------------------------
# Engines
# ---------------------------------------------------------------------------


def sparkfold_runner(catalog):
    from sparkfold.optimizer import optimize
    from sparkfold.plans.sql_in.catalog import Catalog

    cat = Catalog.from_mapping(catalog)
    return lambda q: optimize(q, cat)


def sqlglot_runner(catalog):
    import sqlglot
    from sqlglot.optimizer import optimize as sg_optimize

    def run(q):
        return sg_optimize(sqlglot.parse_one(q, read="spark"), schema=catalog, dialect="spark").sql("spark")

    return run


def spark_session():
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName("sparkfold-bench")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    spark.sparkContext.setLogLevel("OFF")
    return spark


def catalyst_runner(spark, catalog):
    from tests.data import register

    for table, cols in catalog.items():
        register(spark, table, cols, [])

    def run(q):
        spark.sql(q)._jdf.queryExecution().optimizedPlan()

    return run


# ---------------------------------------------------------------------------
# Reports
# ---------------------------------------------------------------------------


def bench_corpus(name, runs, engines, report):
    catalog, queries = corpus(name)
    runners = {}
    for engine in engines:
        if engine == "sparkfold":
            runners[engine] = sparkfold_runner(catalog)
        elif engine == "sqlglot":
            runners[engine] = sqlglot_runner(catalog)
        elif engine == "catalyst":
            runners[engine] = catalyst_runner(report["spark"], catalog)
    per_query: dict[str, dict[str, float]] = defaultdict(dict)  # query -> engine -> seconds
    phases: dict[str, float] = defaultdict(float)
    batches: dict[str, float] = defaultdict(float)
    rules: dict[str, float] = defaultdict(float)
    failures: dict[str, int] = defaultdict(int)
    for qname, q in queries:
        for engine, run in runners.items():
            try:
                run(q)  # warm-up (Catalyst's JIT, sqlglot's caches, our imports)
                per_query[qname][engine] = median_time(lambda: run(q), runs)
            except Exception as e:  # an engine that cannot handle a query is reported
                failures[engine] += 1
                print(f"  {engine} failed on {qname}: {type(e).__name__}: {str(e)[:100]}", file=sys.stderr)
        if "sparkfold" in runners:
            result = runners["sparkfold"](q)
            for k, v in result.timings.items():
                phases[k] += v
            for b in result.trace.batches:
                batches[b.name] += b.seconds
            for r, s in result.trace.rules.items():
                rules[r] += s.seconds
    print(f"\n== {name}: {len(queries)} queries, median of {runs} runs per query ==")
    print(f"{'engine':<12}{'median ms':>12}{'p95 ms':>10}{'total s':>10}{'failed':>8}")
    summary = {}
    for engine in runners:
        ts = [t[engine] for t in per_query.values() if engine in t]
        if not ts:
            continue
        summary[engine] = {"median_ms": statistics.median(ts) * 1000, "p95_ms": pct(ts, 0.95) * 1000,
                           "total_s": sum(ts), "failed": failures[engine]}
        s = summary[engine]
        print(f"{engine:<12}{s['median_ms']:>12.1f}{s['p95_ms']:>10.1f}{s['total_s']:>10.2f}{s['failed']:>8}")
    if "sparkfold" in summary:
        for other in ("sqlglot", "catalyst"):
            if other in summary:
                ratio = summary["sparkfold"]["median_ms"] / summary[other]["median_ms"]
                # totals over the queries both engines ran
                both = [t for t in per_query.values() if "sparkfold" in t and other in t]
                total = sum(t["sparkfold"] for t in both) / sum(t[other] for t in both)
                print(f"sparkfold / {other}: {ratio:.2f}x of the median, {total:.2f}x of the total")
                summary[f"ratio_{other}"], summary[f"total_ratio_{other}"] = ratio, total
        slowest = sorted((t for t in per_query.items() if "sparkfold" in t[1]), key=lambda kv: -kv[1]["sparkfold"])
        print("slowest queries, sparkfold ms (the others' ms): " + "; ".join(
            f"{q} {t['sparkfold'] * 1000:.1f}"
            + (" (" + ", ".join(f"{o} {t[o] * 1000:.1f}" for o in ("sqlglot", "catalyst") if o in t) + ")"
               if len(t) > 1 else "")
            for q, t in slowest[:5]))
        total = sum(phases.values())
        print("phases (share of sparkfold's time): " + ", ".join(
            f"{k} {v / total:.0%}" for k, v in sorted(phases.items(), key=lambda kv: -kv[1])))
        print("batches (s over the corpus): " + ", ".join(
            f"{k} {v:.2f}" for k, v in sorted(batches.items(), key=lambda kv: -kv[1])))
        top = sorted(rules.items(), key=lambda kv: -kv[1])[:8]
        print("slowest rules (s over the corpus): " + ", ".join(f"{k} {v:.2f}" for k, v in top))
        summary["phases_s"], summary["batches_s"], summary["rules_s"] = dict(phases), dict(batches), dict(rules)
    summary["queries_ms"] = {q: {e: v * 1000 for e, v in t.items()} for q, t in per_query.items()}
    report[name] = summary


def _kept_lines(before: str, after: str) -> int:
    import difflib

    a, b = before.strip().splitlines(), after.strip().splitlines()
    return sum(m.size for m in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks())


def bench_review(name, report, queries=None, catalog=None):
    """The share of unchanged lines between each query and its optimized SQL (difflib):
    how much of the text a reviewer finds as written.  Over the queries a rule rewrote,
    and over all; with the input's layout kept (the default) and with the whole query
    written from the plan (`keep_layout=False`, the only output before the review work)."""
    from sparkfold import optimize

    if queries is None:
        catalog, queries = corpus(name)
    out = {}
    for label, keep in (("regenerated", False), ("kept", True)):
        kept = total = kept_all = total_all = rewritten = 0
        for _, q in queries:
            sql = optimize(q, catalog, pretty=True, keep_layout=keep).sql
            lines = len(q.strip().splitlines())
            total_all += lines
            if sql == q:
                kept_all += lines
                continue
            rewritten += 1
            k = _kept_lines(q, sql)
            kept, total, kept_all = kept + k, total + lines, kept_all + k
        out[label] = {"rewritten": rewritten, "unchanged_line_share": kept / total if total else 1.0,
                      "unchanged_line_share_all": kept_all / total_all if total_all else 1.0}
    r, k = out["regenerated"], out["kept"]
    print(f"review ({name}): {k['rewritten']} of {len(queries)} queries rewritten "
          f"({r['rewritten']} with the whole query written); lines unchanged in the rewritten ones: "
          f"{k['unchanged_line_share']:.1%} (whole query written: {r['unchanged_line_share']:.1%}); "
          f"over all queries: {k['unchanged_line_share_all']:.1%} ({r['unchanged_line_share_all']:.1%})")
    report.setdefault(name, {})["review"] = out


def bench_review_examples(report):
    """The review measure on the examples' queries (examples/queries, examples/schema.json)."""
    from sparkfold.optimizer.sources import Source, statements

    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
    queries = []
    for folder, _, files in os.walk(os.path.join(root, "queries")):
        for f in sorted(files):
            if f.endswith(".sql"):
                path = os.path.join(folder, f)
                with open(path) as fh:
                    text = fh.read()
                queries.extend((f, st.text) for st in statements(Source(path, text)))
    bench_review("examples", report, queries, os.path.join(root, "schema.json"))


def bench_cold_start(runs, report):
    """`sparkfold optimize "SELECT 1"` and `sparkfold --help` as processes (`python -m
    sparkfold`, the console script's path), each against `python -c "import sqlglot"`.
    Both with Python's bytecode cache, as an installed package has it (pip compiles the
    .pyc files at install; an editable install writes them on its first run), even when
    this environment says PYTHONDONTWRITEBYTECODE: without the cache every module of
    sparkfold is compiled from source on each start, and sqlglot's, compiled by pip, are not."""
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def once(args):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, *args], check=True, capture_output=True, env=env)
        return time.perf_counter() - t0

    commands = {"optimize": ["-m", "sparkfold", "optimize", "SELECT 1"], "help": ["-m", "sparkfold", "--help"]}
    base = ["-c", "import sqlglot"]
    for args in (*commands.values(), base):
        once(args)  # the file system cache, and the bytecode cache written
    count = max(runs, 11)  # (a start takes well under a second)
    # in turns: a change of load falls on all three
    rounds = [{**{k: once(a) for k, a in commands.items()}, "sqlglot": once(base)} for _ in range(count)]
    ms = {k: statistics.median(r[k] for r in rounds) * 1000 for k in (*commands, "sqlglot")}
    print(f"\n== cold start (median of {count}, taking turns) ==\n"
          f"sparkfold optimize 'SELECT 1': {ms['optimize']:.0f} ms ({ms['optimize'] / ms['sqlglot']:.2f}x); "
          f"sparkfold --help: {ms['help']:.0f} ms ({ms['help'] / ms['sqlglot']:.2f}x); "
          f"python -c 'import sqlglot': {ms['sqlglot']:.0f} ms")
    report["cold_start"] = {"sparkfold_ms": ms["optimize"], "help_ms": ms["help"], "import_sqlglot_ms": ms["sqlglot"],
                            "ratio": ms["optimize"] / ms["sqlglot"], "help_ratio": ms["help"] / ms["sqlglot"]}
    # the same starts counted in instructions, which the machine's load does not move
    counted = {k: _instructions(a, env) for k, a in (*commands.items(), ("sqlglot", base))}
    if None in counted.values():
        print("(no instruction count: valgrind is not installed, or it failed)")
        return
    theirs = counted["sqlglot"]
    print("counted in instructions (valgrind's callgrind): " +
          "; ".join(f"{label} {counted[k] / 1e6:,.0f} M ({counted[k] / theirs:.2f}x)"
                    for k, label in (("optimize", "optimize 'SELECT 1'"), ("help", "--help"))) +
          f"; import sqlglot {theirs / 1e6:,.0f} M")
    report["cold_start"].update(sparkfold_instructions=counted["optimize"], help_instructions=counted["help"],
                                import_sqlglot_instructions=theirs,
                                instructions_ratio=counted["optimize"] / theirs,
                                help_instructions_ratio=counted["help"] / theirs)


def _instructions(args: list[str], env: dict) -> int | None:
    """The instructions `python args` runs, counted by valgrind's callgrind; None
    without valgrind."""
    import re
    import shutil
    import subprocess

    if shutil.which("valgrind") is None:
        return None
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, *args],
                          capture_output=True, text=True, env=env)
    found = re.search(r"Collected : (\d+)", proc.stderr)
    return int(found.group(1)) if proc.returncode == 0 and found else None


def bench_folder(files, report):
    """`sparkfold optimize -f DIR --out OUT` on a folder of `files` TPC-DS queries (the 99
    repeated), with one process and with one per core: wall time, and the cores used (the
    children's CPU time over the wall time)."""
    import resource
    import subprocess
    import tempfile

    catalog, queries = corpus("tpcds")
    cores = os.cpu_count() or 1
    out = {"files": files}
    with tempfile.TemporaryDirectory(prefix="sparkfold-bench-") as tmp:
        src = os.path.join(tmp, "models")
        os.makedirs(src)
        for i in range(files):
            name, q = queries[i % len(queries)]
            with open(os.path.join(src, f"{i:05d}_{os.path.basename(name)}.sql"), "w") as f:
                f.write(q)
        schema = os.path.join(tmp, "schema.json")
        with open(schema, "w") as f:
            json.dump(catalog, f)
        print(f"\n== a folder of {files} files (TPC-DS queries), `sparkfold optimize -f DIR --out OUT` ==")
        for jobs in sorted({1, cores}):
            target = os.path.join(tmp, f"out{jobs}")
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "sparkfold.optimizer.cli", "optimize", "-f", src,
                            "--schema", schema, "--out", target, "--jobs", str(jobs), "-q"],
                           check=True, capture_output=True)
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            out[f"jobs_{jobs}"] = {"wall_s": wall, "cpu_s": cpu, "cores_used": cpu / wall}
            print(f"--jobs {jobs}: {wall:.1f} s wall, {cpu:.1f} s CPU, {cpu / wall:.2f} cores used, "
                  f"{files / wall:.0f} files/s")
        if cores > 1:
            speedup = out["jobs_1"]["wall_s"] / out[f"jobs_{cores}"]["wall_s"]
            out["speedup"] = speedup
            print(f"{cores} processes against one: {speedup:.2f}x faster")
    report["folder"] = out


def _rss_bytes() -> int:
    """This process's resident memory now (Linux's /proc; else the peak so far)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


HOOK_QUERIES = (
    "SELECT a, count(b) AS n FROM t WHERE x > {i} GROUP BY a",
    "SELECT t.a, u.k FROM t LEFT JOIN u ON t.a = u.a WHERE u.k = {i}",
    "SELECT count(b) AS n FROM t WHERE a = NULL OR b > {i}",
    "SELECT a, s FROM t WHERE s = 'v{i}' AND x IS NOT NULL ORDER BY a LIMIT 10",
)


def bench_hook(spark, queries, threads, report):
    """A long-running process: `queries` hooked `spark.sql` calls from `threads` threads
    (a few query shapes with a different literal each time, so no text repeats), on a
    real session over empty views.  The hook's added time per query (from its QueryRecords)
    as p50/p99, and this process's resident memory after warm-up and at the end."""
    import gc
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from sparkfold.optimizer.hooks import install
    from tests.data import register

    schema = {"t": {"a": "int", "b": "int not null", "x": "double", "s": "string"},
              "u": {"a": "int", "k": "int"}}
    for table, cols in schema.items():
        register(spark, table, cols, [])
    seconds: list[float] = []
    lock = threading.Lock()

    def on_query(record):
        with lock:
            seconds.append(record.seconds)

    hook = install(spark, schema, on_query=on_query)
    warm = max(queries // 10, 1)
    try:
        def run(i):
            spark.sql(HOOK_QUERIES[i % len(HOOK_QUERIES)].format(i=i))

        for i in range(min(200, warm)):  # imports and caches
            run(i)
        samples: list = []
        jvm_samples: list = []
        t0 = time.perf_counter()
        with ThreadPoolExecutor(threads) as pool:
            done = 0
            step = max(queries // 10, 1)
            while done < queries:
                n = min(step, queries - done)
                list(pool.map(run, range(done, done + n)))
                done += n
                gc.collect()
                samples.append((done, _rss_bytes()))
                jvm_samples.append(_jvm_heap_bytes(spark))
        wall = time.perf_counter() - t0
    finally:
        hook.uninstall()
    rewritten = hook.rewritten
    timed = seconds[min(200, warm):]
    after_warm = next(rss for done, rss in samples if done >= warm)
    end = samples[-1][1]
    out = {"queries": queries, "threads": threads, "wall_s": wall,
           "added_p50_ms": pct(timed, 0.5) * 1000, "added_p99_ms": pct(timed, 0.99) * 1000,
           "rss_after_warmup_mib": after_warm / 2**20, "rss_end_mib": end / 2**20,
           "rss_mib": [(d, r / 2**20) for d, r in samples], "rewritten": rewritten,
           "jvm_heap_mib": [None if b is None else b / 2**20 for b in jvm_samples]}
    print(f"\n== the hook: {queries} spark.sql calls from {threads} threads on a real session ==")
    print(f"added time per query: p50 {out['added_p50_ms']:.2f} ms, p99 {out['added_p99_ms']:.2f} ms "
          f"(with {threads} threads sharing the interpreter lock, waits included); {rewritten} rewritten; "
          f"{wall:.0f} s in all, {queries / wall:.0f} queries/s")
    print(f"resident memory (MiB) after each tenth: " + ", ".join(f"{r:.0f}" for _, r in out["rss_mib"]) +
          f"; after warm-up {out['rss_after_warmup_mib']:.0f}, at the end {out['rss_end_mib']:.0f} "
          f"({out['rss_end_mib'] - out['rss_after_warmup_mib']:+.0f})")
    if all(b is not None for b in out["jvm_heap_mib"]):
        # Python objects that wrap Java ones (py4j) keep them alive: a leak in the hook
        # could show in the driver's heap and not in Python's memory
        print("the Spark driver's live heap (MiB, after a full GC) after each tenth: " +
              ", ".join(f"{b:.0f}" for b in out["jvm_heap_mib"]))
    report["hook"] = out


def bench_hook_tpcds(spark, runs, report):
    """The hook where users feel it: `spark.sql(q)` and the executed plan, TPC-DS over empty
    views, on one thread, against Spark's own `spark.sql` (the session's, with no hook) in
    the same run, taking turns query by query so that a change of load falls on both.
    The hook reads the schemas from the session (no catalog given), as installed by
    default.  Three ways, each the median of `runs` per query:
    - Spark: the session's own spark.sql;
    - hooked, new text: each run sends the query with a comment making its text new
      (`-- run N`), so the statement is optimized every time (the schemas the hook keeps
      between queries are re-verified, not re-read);
    - hooked, repeated: the same text again (a client re-sending a statement).
    And the hook's own time for a repeated statement (its QueryRecords: p50, p99)."""
    import itertools

    from sparkfold.optimizer.hooks import install
    from tests.data import register

    catalog, queries = corpus("tpcds")
    for table, cols in catalog.items():
        register(spark, table, cols, [])
    own = spark.sql
    seconds: list[float] = []
    hook = install(spark, report=False, on_query=lambda r: seconds.append(r.seconds))
    counter = itertools.count()

    def planned(sql_fn, q):
        t0 = time.perf_counter()
        sql_fn(q)._jdf.queryExecution().executedPlan()
        return time.perf_counter() - t0

    times: dict[str, list[float]] = {"spark": [], "new": [], "repeated": []}
    repeated_added: list[float] = []
    try:
        for _, q in queries:
            planned(own, q), planned(spark.sql, q)  # warm-up: Spark's JIT, the hook's schemas
            per: dict[str, list[float]] = {k: [] for k in times}
            for _ in range(runs):
                per["spark"].append(planned(own, q))
                per["new"].append(planned(spark.sql, f"{q}\n-- run {next(counter)}"))
                per["repeated"].append(planned(spark.sql, q))
                repeated_added.append(seconds[-1])
            for k, v in per.items():
                times[k].append(statistics.median(v))
    finally:
        hook.uninstall()
    out = {"queries": len(queries), "runs": runs}
    for k, v in times.items():
        out[f"{k}_median_ms"], out[f"{k}_total_s"] = statistics.median(v) * 1000, sum(v)
    for k in ("new", "repeated"):
        out[f"{k}_ratio_total"] = out[f"{k}_total_s"] / out["spark_total_s"]
        out[f"{k}_ratio_median"] = out[f"{k}_median_ms"] / out["spark_median_ms"]
    out["repeated_added_p50_ms"] = pct(repeated_added, 0.5) * 1000
    out["repeated_added_p99_ms"] = pct(repeated_added, 0.99) * 1000
    print(f"\n== the hook on TPC-DS: spark.sql + executed plan, {len(queries)} queries over empty views, "
          f"1 thread, median of {runs} per query, taking turns ==")
    print(f"{'':<28}{'median ms':>10}{'total s':>10}{'x Spark (total)':>17}{'x Spark (median)':>18}")
    for k, label in (("spark", "Spark's own spark.sql"), ("new", "hooked, new text"),
                     ("repeated", "hooked, repeated text")):
        ratios = ("", "") if k == "spark" else (f"{out[f'{k}_ratio_total']:.2f}x", f"{out[f'{k}_ratio_median']:.2f}x")
        print(f"{label:<28}{out[f'{k}_median_ms']:>10.1f}{out[f'{k}_total_s']:>10.2f}{ratios[0]:>17}{ratios[1]:>18}")
    print(f"the hook's own time for a repeated statement: p50 {out['repeated_added_p50_ms']:.2f} ms, "
          f"p99 {out['repeated_added_p99_ms']:.2f} ms")
    report["hook_tpcds"] = out


def _jvm_heap_bytes(spark) -> int | None:
    """The Spark driver's used heap after a full collection (None where the session has
    no JVM in this process, as with Spark Connect)."""
    try:
        jvm = spark.sparkContext._jvm
        jvm.java.lang.System.gc()
        runtime = jvm.java.lang.Runtime.getRuntime()
        return int(runtime.totalMemory() - runtime.freeMemory())
    except Exception:
        return None


def _peak_bytes(fn) -> int:
    """The peak of memory Python allocated while fn ran (tracemalloc; one run, untimed)."""
    import tracemalloc

    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def bench_stress(quick, runs, engines, report):
    print("\n== stress shapes: seconds per size (growth = time ratio / size ratio; 1.0 is linear; "
          "exponent k of time ~ size^k from the first to the last size; peak = Python's memory) ==")
    out = {}
    runners = {"sparkfold": sparkfold_runner(STRESS_SCHEMA)}
    if "sqlglot" in engines:
        runners["sqlglot"] = sqlglot_runner(STRESS_SCHEMA)
    if "catalyst" in engines:
        runners["catalyst"] = catalyst_runner(report["spark"], STRESS_SCHEMA)
    for shape, (make, sizes) in stress_shapes(quick).items():
        out[shape] = {}
        for engine, run in runners.items():
            row, prev = [], None
            for n in sizes:
                q = make(n)
                try:
                    t = median_time(lambda: run(q), max(1, runs // 2))
                except Exception as e:
                    row.append(f"{n}: failed ({type(e).__name__})")
                    break
                growth = "" if prev is None else f" (growth {(t / prev[1]) / (n / prev[0]):.2f})"
                # (Python's allocation tracer takes minutes on a query nested thousands deep,
                # 100x the query's own time: no peak for that shape)
                peak = _peak_bytes(lambda: run(q)) if engine == "sparkfold" and shape != "nesting depth" else None
                shown_peak = "" if peak is None else f", peak {peak / 2**20:.0f} MiB"
                row.append(f"{n}: {t:.2f}s{growth}{shown_peak}")
                out[shape].setdefault(engine, []).append((n, t, peak))
                prev = (n, t)
            points = out[shape].get(engine, [])
            if len(points) > 1:
                (n0, t0, _), (n1, t1, _) = points[0], points[-1]
                row.append(f"exponent {math.log(t1 / t0) / math.log(n1 / n0):.2f}")
            print(f"{shape:<24}{engine:<10} " + "; ".join(row))
    report["stress"] = out


def builds() -> dict[str, str]:
    """Which builds run: sparkfold's core compiled with mypyc (`SPARKFOLD_COMPILE=1 pip
    install .`) or interpreted, and sqlglot with or without sqlglotc."""
    import sqlglot.parser

    from sparkfold.plans.ir import tree

    return {"sparkfold core": "interpreted" if tree.__file__.endswith(".py") else "compiled (mypyc)",
            "sqlglot": "pure Python" if (sqlglot.parser.__file__ or "").endswith(".py") else "compiled (sqlglotc)"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="3 runs per query, smaller stress sizes")
    ap.add_argument("--runs", type=int, default=None, help="runs per query (median); default 5, 3 with --quick")
    ap.add_argument("--no-spark", action="store_true", help="do not time Catalyst")
    ap.add_argument("--no-sqlglot", action="store_true", help="do not time sqlglot")
    ap.add_argument("--no-stress", action="store_true", help="skip the stress shapes")
    ap.add_argument("--stress-peers", action="store_true", help="also time sqlglot/Catalyst on stress shapes")
    ap.add_argument("--corpus", action="append", choices=["tpch", "tpcds"], help="corpora (default both)")
    ap.add_argument("--files", type=int, default=None, metavar="N",
                    help="files in the folder measure (default 2000, 400 with --quick; 0 skips it)")
    ap.add_argument("--hook-queries", type=int, default=None, metavar="N",
                    help="hooked queries in the long-running measure (default 100000, 10000 with "
                         "--quick; 0 skips it; needs Spark)")
    ap.add_argument("--no-hook-tpcds", action="store_true",
                    help="skip the hooked spark.sql against Spark's own on TPC-DS")
    ap.add_argument("--only-hook", action="store_true",
                    help="only the hook's measures (TPC-DS hooked against Spark, and the long-running hook)")
    ap.add_argument("--only-startup", action="store_true",
                    help="only the cold start of the command line (--help, optimize 'SELECT 1') against import sqlglot")
    ap.add_argument("--threads", type=int, default=8, help="threads sending the hooked queries (default 8)")
    ap.add_argument("--json", metavar="FILE", help="also write the numbers as JSON")
    ap.add_argument("--bench-dir", metavar="PATH", default=BENCH,
                    help="the folder with tpch/ and tpcds/ (default bench/corpus, or $SPARKFOLD_BENCH)")
    args = ap.parse_args(argv)
    runs = args.runs or (3 if args.quick else 5)
    missing = [c for c in (args.corpus or ["tpch", "tpcds"]) if not os.path.isdir(os.path.join(args.bench_dir, c))]
    if missing:
        print(f"benchmark: no {', '.join(missing)} folder in {os.path.abspath(args.bench_dir)}: "
              f"give the corpus with --bench-dir PATH", file=sys.stderr)
        return 2
    os.environ["SPARKFOLD_BENCH"] = args.bench_dir
    engines = ["sparkfold"]
    if not args.no_sqlglot:
        engines.append("sqlglot")
    report: dict = {"builds": builds()}
    print("builds: " + "; ".join(f"{k} {v}" for k, v in report["builds"].items()))
    # first, while no Spark driver runs beside it (its JVM shares the cores and moved the
    # ratio from 1.6x to 2.4x in one run)
    if not args.only_hook:
        bench_cold_start(runs, report)
    if args.only_startup:
        _write_json(args.json, report)
        return 0
    if not args.no_spark:
        engines.append("catalyst")
        report["spark"] = spark_session()
    for name in [] if args.only_hook else args.corpus or ["tpch", "tpcds"]:
        bench_corpus(name, runs, engines, report)
        bench_review(name, report)
    if not args.only_hook:
        bench_review_examples(report)
    if not args.no_stress and not args.only_hook:
        bench_stress(args.quick, runs, engines if args.stress_peers else ["sparkfold"], report)
    files = args.files if args.files is not None else (400 if args.quick else 2000)
    if files and not args.only_hook:
        bench_folder(files, report)
    if "spark" in report and not args.no_hook_tpcds:
        bench_hook_tpcds(report["spark"], runs, report)
    hooked = args.hook_queries if args.hook_queries is not None else (10_000 if args.quick else 100_000)
    if hooked and "spark" in report:
        bench_hook(report["spark"], hooked, args.threads, report)
    elif hooked:
        print("\n(the hook measure needs Spark: skipped with --no-spark)")
    report.pop("spark", None)
    _write_json(args.json, report)
    return 0


def _write_json(path: str | None, report: dict) -> None:
    if path:
        with open(path, "w") as f:
            json.dump(report, f, indent=2, default=str)


if __name__ == "__main__":
    sys.exit(main())
