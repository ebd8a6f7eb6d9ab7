"""tools/loser_profile.py: which shapes it profiles, and the figures it takes from two reports.
Profiling itself needs a GPU and Nsight Compute (run on the H200; docs/benchmarks.md)."""

import os
import subprocess
import sys

import pytest

from tests.tools import ROOT, load_tool


@pytest.fixture(scope="module")
def lp():
    return load_tool("loser_profile")


def _row(kernel, shape, us, x_compile, method="events"):
    return {"kernel": kernel, "shape": shape, "us": us, "method": method, "x_compile": x_compile,
            "compile_method": method}


def _results():
    fast = {"status": "accepted", "rows": [_row("fast", "a", 10.0, 2.0), _row("fast", "b", 50.0, 0.5),
                                           _row("fast", "c", 30.0, 0.9)]}
    slow = {"status": "accepted", "rows": [_row("slow", "a", 20.0, 1.0), _row("slow", "b", 40.0, 0.625),
                                           _row("slow", "c", 60.0, 0.45)]}
    bad = {"status": "wrong", "rows": [_row("bad", "b", 1.0, 20.0)]}
    return {"ops": {"op1": {"kernels": {"fast": fast, "slow": slow, "bad": bad}},
                    "op2": {"kernels": {"only": {"status": "accepted", "rows": [_row("only", "z", 5.0, 0.8)]}}}}}


def test_losers_are_the_fastest_kernels_below_the_bar_worst_first(lp):
    got = lp.losers(_results(), 1.0, set())
    assert got == [("op1", "b", "slow", 0.625), ("op2", "z", "only", 0.8), ("op1", "c", "fast", 0.9)]
    assert lp.losers(_results(), 0.7, set()) == [("op1", "b", "slow", 0.625)]
    assert [t[0] for t in lp.losers(_results(), 1.0, {"op2"})] == ["op2"]


def test_a_side_sums_launches_and_device_time_per_call(lp):
    report = {"calls": 2, "bottleneck": {"kind": "memory-bound"}, "kernels": [
        {"name": "k1", "launches": 2, "total_duration_ns": 8000, "dram_bytes": 4e6, "grid": [4, 1, 1],
         "block": [128, 1, 1], "registers_per_thread": 32, "achieved_occupancy_pct": 50.0},
        {"name": "k2", "launches": 2, "total_duration_ns": 2000, "dram_bytes": 1e6}]}
    s = lp.side(report)
    assert (s["launches"], s["device_us"], s["dram_mb"], s["heaviest"]) == (4, 5.0, 2.5, "k1")
    assert (s["grid"], s["regs"], s["bottleneck"]) == ([4, 1, 1], 32, "memory-bound")
    assert lp.side(None) == {}


def test_the_table_has_a_row_per_side(lp):
    rows = [{"op": "op1", "shape": "b", "kernel": "slow", "x_compile": 0.625, "compulsory_mb": 1.5,
             "ours": {"device_us": 5.0, "heaviest": "k1"}, "compile": {"status": "failed"}}]
    text = lp.markdown(rows)
    assert "| op1 | b | slow | 0.62 | 1.5 | 5.0 |" in text
    assert "| op1 | b | torch.compile | 0.62 | 1.5 | — |" in text and text.rstrip().endswith("failed |")


def test_a_missing_results_file_is_refused(tmp_path):
    res = subprocess.run([sys.executable, str(ROOT / "tools" / "loser_profile.py"), str(ROOT / "suites" / "llm-inference"),
                          str(tmp_path / "none.json"), "--out", str(tmp_path / "o")], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert res.returncode == 2 and "no such results file" in res.stderr
