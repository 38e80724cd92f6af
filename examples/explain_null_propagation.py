"""Catalyst's three NullPropagation examples, explained by sparkfold.

    python examples/explain_null_propagation.py          # plans and rewrites
    python examples/explain_null_propagation.py --full   # the whole `explain` text

The table is `t(num int not null)`, like Spark's `(0 to 9).toDF("num")`, and
`tokens(id int not null, word string)` for the nullable case.  Spark rewrites:
1. `count(DISTINCT (num = NULL))` to the constant 0 (the counted value is always NULL);
2. `count(num)` to `count(1)` (num is never NULL), but not `count(word)` (it may be);
3. `WHERE num = NULL` to an empty relation (the condition is never TRUE).
"""

from __future__ import annotations

import json
import sys

from sparkfold.optimizer import optimize

SCHEMA = {"t": {"num": "int not null"}, "tokens": {"id": "int not null", "word": "string"}}

EXAMPLES = [
    ("count over an always-NULL expression", "SELECT count(DISTINCT (num = NULL)) FROM t"),
    ("count over a non-nullable column", "SELECT count(num) AS count FROM t"),
    ("count over a nullable column (unchanged)", "SELECT count(word) AS count FROM tokens"),
    ("a filter that is never TRUE", "SELECT * FROM t WHERE num = NULL"),
]


def main(argv: list[str]) -> None:
    full = "--full" in argv
    for title, sql in EXAMPLES:
        result = optimize(sql, SCHEMA)
        print(f"### {title}\n{sql}\n")
        if full:
            print(result.explain())
        else:
            doc = json.loads(result.explain(format="json"))
            print("== Analyzed Logical Plan ==\n" + doc["plans"]["analyzed"])
            print("== Optimized Logical Plan ==\n" + doc["plans"]["optimized"])
            rules = [r["rule"] for r in doc["rewrites"]]
            print("== Rules applied ==\n" + (", ".join(rules) if rules else "none"))
            print("== Optimized SQL ==\n" + doc["sql"])
            for f in doc["findings"]:
                print(f"finding {f['line']}:{f['column']}: {f['severity']}: {f['message']}")
        print()


if __name__ == "__main__":
    main(sys.argv[1:])
