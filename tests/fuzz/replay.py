"""Replay fuzz findings (JSON lines written by `python -m tests.fuzz.run --out FILE`)
against the current code and print what still fails:

    python -m tests.fuzz.replay tests/fuzz/open_findings.jsonl
"""

from __future__ import annotations

import json
import sys


def main(argv=None) -> int:
    from .oracles import check_cases, replay_case
    from .run import spark_session
    from .world import make_world, register_world

    paths = (argv if argv is not None else sys.argv[1:]) or ["tests/fuzz/open_findings.jsonl"]
    spark = spark_session()
    still = 0
    for path in paths:
        with open(path) as f:
            for line in f:
                d = json.loads(line)
                world = make_world(d["world"])
                register_world(spark, world)
                _, found = check_cases([replay_case(d["oracle"], world, d["record"], d.get("shape", ""))], spark)
                still += bool(found)
                print(f"world {d['world']} ({d['oracle']}): "
                      f"{'still fails' if found else 'passes now'}", flush=True)
                for finding in found:
                    print(finding, flush=True)
    print(f"{still} still failing")
    return 1 if still else 0


if __name__ == "__main__":
    sys.exit(main())
