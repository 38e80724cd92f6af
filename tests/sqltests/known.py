"""The failures known on the measured files, kept in known_failures.txt until fixed.

One line per query: its name (`file:statement` and the run's settings, as `Outcome.name`
gives it), a tab, the paths that fail (as `Outcome.failures` lists them), and after `#`
the class of the failure.  The tests hold the harness to this list both ways: a failure
not in it fails them, and so does an entry that no longer fails (remove it with the fix).
"""

from __future__ import annotations

from pathlib import Path

KNOWN = Path(__file__).with_name("known_failures.txt")


def load(path: Path = KNOWN) -> dict[str, str]:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].rstrip()
        if line.strip():
            name, _, failures = line.partition("\t")
            out[name.strip()] = failures.strip()
    return out


def compare(outcomes, known: dict[str, str]) -> tuple[list, list[str]]:
    """(outcomes failing other than known, known entries among the outcomes that no
    longer fail that way)."""
    seen = {o.name: o for o in outcomes}
    new = [o for o in outcomes if o.failures and known.get(o.name) != ", ".join(o.failures)]
    stale = [f"{name}\t{failures}" for name, failures in known.items()
             if name in seen and ", ".join(seen[name].failures) != failures]
    return new, stale
