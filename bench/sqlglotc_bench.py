"""sparkfold with and without sqlglot's compiled build (sqlglotc, the `fast` extra).

Installs sqlglotc at the version of the sqlglot in use into a temporary folder (or takes
one given with --site), then optimizes the TPC-DS queries (bench/corpus) in two
processes, one per build, taking turns for --rounds rounds so that the load of a shared
machine falls on both alike; prints each build's best total (parse alone, and the whole
`optimize()`) and the ratio, and sqlglot's own pipeline in the same process
(`parse_one` + `optimizer.optimize` + `.sql()`, as bench/benchmark.py times it): the
ratio of sparkfold to sqlglot for each build.

    python bench/sqlglotc_bench.py [--rounds 3] [--site DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_RUN = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from tests import tpc
import sparkfold
from sparkfold.plans.sql_in.parse import parse_query
import sqlglot.parser
queries, schema = tpc.queries("tpcds"), tpc.schema("tpcds")
for _, q in queries:
    sparkfold.optimize(q, schema)  # warm up
t0 = time.perf_counter()
for _, q in queries:
    parse_query(q)
t1 = time.perf_counter()
for _, q in queries:
    sparkfold.optimize(q, schema)
t2 = time.perf_counter()
import sqlglot
from sqlglot.optimizer import optimize as sg_optimize
for _, q in queries:
    sg_optimize(sqlglot.parse_one(q, read="spark"), schema=schema, dialect="spark").sql("spark")
t3 = time.perf_counter()
print(json.dumps({"compiled": not sqlglot.parser.__file__.endswith(".py"), "parse": t1 - t0, "optimize": t2 - t1,
                  "sqlglot": t3 - t2}))
"""


def _install(target: str) -> None:
    import sqlglot

    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", target,
                    f"sqlglot=={sqlglot.__version__}", f"sqlglotc=={sqlglot.__version__}"], check=True)


def _once(site: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if site:
        env["PYTHONPATH"] = site
    out = subprocess.run([sys.executable, "-c", _RUN, ROOT], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--site", help="a folder where sqlglot and sqlglotc are installed (default: install now)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site or os.path.join(tmp, "site")
        if not args.site:
            _install(site)
        best: dict[str, dict[str, float]] = {"pure": {}, "sqlglotc": {}}
        for _ in range(args.rounds):
            for build, path in (("pure", None), ("sqlglotc", site)):
                run = _once(path)
                assert run["compiled"] == (build == "sqlglotc"), run
                for k in ("parse", "optimize", "sqlglot"):
                    best[build][k] = min(best[build].get(k, float("inf")), run[k])
    for k, what in (("parse", "sparkfold parse"), ("optimize", "sparkfold optimize()"),
                    ("sqlglot", "sqlglot's pipeline")):
        pure, fast = best["pure"][k], best["sqlglotc"][k]
        print(f"{what:21} TPC-DS (99 queries): pure {pure:.2f} s, sqlglotc {fast:.2f} s, {pure / fast:.2f}x")
    for build in ("pure", "sqlglotc"):
        b = best[build]
        print(f"sparkfold / sqlglot, {build + ':':9} {b['optimize'] / b['sqlglot']:.2f}x "
              f"({b['optimize']:.2f} s against {b['sqlglot']:.2f} s)")


if __name__ == "__main__":
    main()
