"""A long fuzzing campaign outside pytest.

    python -m tests.fuzz.run --count 20000 --seed 1 [--tlp 0.35] [--per-world 200] [--no-dataframe]

Worlds seed, seed+1, ... each get `--per-world` cases (a share `--tlp` of them TLP
cases, the rest differential), checked in one batch per world; idempotence is checked
for every query that analyzes.  Progress goes to stderr; at the end the counts (queries,
analyzed / passthrough, raised errors, findings by kind) and every finding, shrunk, are
printed.  `--out FILE` also writes the findings as JSON lines (world seed, oracle,
record, SQL) so that they replay.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time


def spark_session():
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from .oracles import FAST_CONF

    b = (SparkSession.builder.master("local[2]").appName("sparkfold-fuzz")
         .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
         .config("spark.default.parallelism", "2").config("spark.sql.session.timeZone", "UTC")
         .config("spark.driver.memory", "2g").config("spark.sql.adaptive.enabled", "false"))
    for k, v in FAST_CONF.items():
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("OFF")
    return spark


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=2000, help="cases in all (DIFF + TLP)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-world", type=int, default=200)
    ap.add_argument("--tlp", type=float, default=0.35, help="share of TLP cases")
    ap.add_argument("--no-dataframe", action="store_true", help="skip the lowered DataFrame candidate")
    ap.add_argument("--no-shrink", action="store_true")
    ap.add_argument("--shrink-tries", type=int, default=120)
    ap.add_argument("--max-shrink", type=int, default=10, help="shrink at most this many findings")
    ap.add_argument("--out", help="write findings as JSON lines here")
    ap.add_argument("--shape", default="", choices=["", "outer-joins"],
                    help="outer-joins: DIFF cases over chains of outer joins only (no TLP)")
    args = ap.parse_args(argv)

    from .oracles import DIFF, TLP, Stats, check_cases, make_cases
    from .shrink import shrink
    from .world import make_world, register_world, unregister_world

    spark = spark_session()
    total, findings = Stats(), []
    t0 = time.time()
    done, seed = 0, args.seed
    while done < args.count:
        n = min(args.per_world, args.count - done)
        world = make_world(seed)
        register_world(spark, world)
        n_tlp = 0 if args.shape else round(n * args.tlp)
        cases = make_cases(world, seed, n - n_tlp, DIFF, args.shape) + make_cases(world, seed, n_tlp, TLP)
        stats, found = check_cases(cases, spark, dataframe=not args.no_dataframe)
        total.add(stats)
        for f in found:
            print(f"\n=== FINDING (world {seed}) ===\n{f}", file=sys.stderr, flush=True)
            if not args.no_shrink and len(findings) < args.max_shrink:
                f = _shrunk(f, spark, shrink, args)
            findings.append(f)
            if args.out:
                with open(args.out, "a") as fh:
                    fh.write(json.dumps({"world": seed, "oracle": f.case.oracle, "kind": f.kind,
                                         "record": f.case.record, "sql": f.case.sql, "parts": f.case.parts,
                                         "shape": f.case.shape}) + "\n")
        unregister_world(spark, world)
        done += n
        seed += 1
        print(f"[{time.time() - t0:7.0f}s] {done}/{args.count} cases, {len(findings)} findings; {total.line()}",
              file=sys.stderr, flush=True)
    by_kind: dict[str, int] = {}
    for f in findings:
        by_kind[f.kind] = by_kind.get(f.kind, 0) + 1
    print(f"\nseeds {args.seed}..{seed - 1}, {time.time() - t0:.0f}s")
    print(total.line())
    print(f"findings: {len(findings)} {by_kind}")
    for f in findings:
        print(f"\n--- {f.kind} ({f.case.oracle}, world {f.case.world.seed}) ---\n{f.text}")
    return 1 if findings else 0


def _shrunk(finding, spark, shrink, args):
    """Shrink a finding's case, keeping its kind; returns the finding of the smallest case."""
    from .oracles import check_cases

    last = {}

    def fails(case) -> bool:
        _, found = check_cases([case], spark, dataframe=not args.no_dataframe)
        hit = [f for f in found if f.kind == finding.kind]
        if hit:
            last[id(case)] = hit[0]
        return bool(hit)

    small = shrink(finding.case, fails, max_tries=args.shrink_tries,
                   log=lambda m: print(m, file=sys.stderr, flush=True))
    if small is finding.case:
        return finding
    out = last.get(id(small), finding)
    print(f"=== SHRUNK ===\n{out}", file=sys.stderr, flush=True)
    return out


if __name__ == "__main__":
    sys.exit(main())
