"""bench/benchmark.py runs from a checkout and reports what it says it does: per-query
times for every engine, the ratios of medians and of totals (the totals over the same
queries), and a clear message, not a traceback, when the corpus is not where it looks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests import tpc

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "benchmark.py"


def test_benchmark_reports_each_query_and_the_ratios(tmp_path):
    out = tmp_path / "bench.json"
    run = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--runs", "1", "--no-spark", "--no-stress",
                          "--files", "0", "--hook-queries", "0", "--corpus", "tpch", "--json", str(out),
                          "--bench-dir", str(tpc.BENCH)],
                         capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(out.read_text())
    tpch = report["tpch"]
    names = [name for name, _ in tpc.queries("tpch")]
    assert sorted(tpch["queries_ms"]) == sorted(names)
    assert all(t["sparkfold"] > 0 and t["sqlglot"] > 0 for t in tpch["queries_ms"].values())
    total = sum(t["sparkfold"] for t in tpch["queries_ms"].values()) / \
        sum(t["sqlglot"] for t in tpch["queries_ms"].values())
    assert tpch["total_ratio_sqlglot"] == pytest.approx(total)
    assert f"{total:.2f}x of the total" in run.stdout
    slowest = max(names, key=lambda n: tpch["queries_ms"][n]["sparkfold"])
    assert f"slowest queries, sparkfold ms (the others' ms): {slowest} " in run.stdout
    assert set(tpch["phases_s"]) == {"parse", "analyze", "optimize", "generate", "lint"}
    assert report["builds"]["sparkfold core"] in ("interpreted", "compiled (mypyc)")


def test_benchmark_without_its_corpus_says_where_it_looked(tmp_path):
    run = subprocess.run([sys.executable, str(SCRIPT), "--bench-dir", str(tmp_path / "nowhere")],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert "no tpch, tpcds folder in" in run.stderr and "--bench-dir" in run.stderr
