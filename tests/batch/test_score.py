"""The scoreboard's definitions on GPU-like records: per-shape SOL and speedups, shape-weighted
means per operator, importance-weighted SOL, geomeans, fast_p, real-kernel share; the report's
Markdown, HTML and plots; the comparison of two runs."""

import math

import pytest

from aka.batch.compare import compare, compare_text
from aka.batch.folder import RunFolder
from aka.batch.report import write_report
from aka.batch.score import scoreboard
from aka.batch.suite import Operator, Suite


def shape(sid, t, eager, compile_, t_roof, held=False):
    timing = lambda us: {"median_us": us, "iqr_us": 0.0, "cv": 0.0, "reps": 100, "method": "events"}  # noqa: E731
    return {"id": sid, "params": {}, "held_out": held, "correct": True, "time": None if held else timing(t),
            "baselines": {} if held else {"eager": timing(eager), "torch.compile": timing(compile_)},
            "speedup": {} if held else {"eager": eager / t, "torch.compile": compile_ / t},
            "roofline": None if held else {"flops": {}, "bytes": 1.0, "t_roof_us": t_roof, "sol": t_roof / t,
                                           "sol_launch_adjusted": (t_roof + 2.0) / t, "basis": "roofline"}}


def doc(*shapes, status="accepted"):
    return {"format": "aka.eval/1", "status": status, "op": "x", "mode": "gpu", "dtype": "float16",
            "shapes": list(shapes), "device": {"name": "NVIDIA H200"}}


def record(state="done", real=True, weights=None):
    return {"state": state, "real_kernel": real, "status": "accepted" if real else "wrong", "attempts": 1,
            "device": {"kind": "cuda", "index": 0, "uuid": "GPU-1", "name": "NVIDIA H200"},
            "shape_weights": weights or {}}


SUITE = Suite(name="t", root="/t", kind="atrex", weight_source="operator_importance.json", operators=(
    Operator("a", "/a", "atrex", weight=2.0, phase="decode", production_us={"H200": {"s1": 20.0}}),
    Operator("b", "/b", "atrex", weight=1.0),
    Operator("c", "/c", "atrex", weight=1.0),
))


def board():
    records = {"a": record(weights={"s1": 3.0, "s2": 1.0}), "b": record(), "c": record("errored", real=False)}
    records["c"]["error"] = "boom"
    docs = {"a": doc(shape("s1", 10.0, 30.0, 12.0, 5.0), shape("s2", 10.0, 10.0, 20.0, 1.0),
                     shape("h", 0, 0, 0, 0, held=True)),
            "b": doc(shape("s1", 10.0, 12.0, 8.0, 8.0)), "c": None}
    return scoreboard(SUITE, "eval", records, docs)


def test_operator_means_over_shapes():
    rows = {r["op"]: r for r in board()["rows"]}
    a = rows["a"]
    assert [s["shape"] for s in a["shapes"]] == ["s1", "s2"]          # held-out shapes are not scored
    assert a["sol"] == pytest.approx((3 * 0.5 + 1 * 0.1) / 4)          # shape-weighted arithmetic mean
    assert a["sol_launch_adjusted"] == pytest.approx((3 * 0.7 + 1 * 0.3) / 4)
    assert a["speedup"]["eager"] == pytest.approx(math.exp((3 * math.log(3.0) + math.log(1.0)) / 4))
    assert a["speedup"]["production"] == pytest.approx(2.0)            # H200 production time of s1 only
    assert a["baseline_sol"]["eager"] == pytest.approx((3 * 5 / 30 + 1 * 1 / 10) / 4)
    assert rows["c"]["sol"] is None and rows["c"]["state"] == "errored"


def test_suite_scores():
    b = board()
    assert b["weights"]["notes"] == ["the weights from operator_importance.json sum to 4, not 1: normalized to 1"]
    rows = {r["op"]: r for r in b["rows"]}
    assert b["weighted_sol"] == pytest.approx(0.5 * rows["a"]["sol"] + 0.25 * 0.8 + 0.25 * 0.0)
    assert b["geomean_speedup"]["eager"]["operators"] == 2
    assert b["geomean_speedup"]["eager"]["value"] == pytest.approx(math.sqrt(rows["a"]["speedup"]["eager"] * 1.2))
    assert b["fast_p"]["eager"] == {"1": pytest.approx(2 / 3), "1.5": pytest.approx(1 / 3), "2": pytest.approx(1 / 3)}
    assert b["fast_p"]["torch.compile"]["1"] == pytest.approx(1 / 3)  # b is slower than torch.compile
    assert "production" not in b["fast_p"] and b["geomean_speedup"]["production"]["operators"] == 1
    assert b["real_kernel_share"] == pytest.approx(2 / 3) and b["no_real_kernel"] == ["c"]
    assert set(b["by_phase"]) == {"decode", "any"}


def with_production(d, us):
    """An eval.json whose first shape also timed the operator's own production module."""
    s = d["shapes"][0]
    s["baselines"]["production"] = {**s["baselines"]["eager"], "median_us": us}
    s["speedup"]["production"] = us / s["time"]["median_us"]
    return d


def test_an_operators_own_production_baseline_is_scored_before_metadata():
    docs = {"a": with_production(doc(shape("s1", 10.0, 30.0, 12.0, 5.0)), 15.0),    # metadata says 20 µs
            "b": with_production(doc(shape("s1", 10.0, 12.0, 8.0, 8.0)), 5.0)}
    b = scoreboard(SUITE, "eval", {"a": record(), "b": record()}, docs)
    rows = {r["op"]: r for r in b["rows"]}
    assert rows["a"]["speedup"]["production"] == pytest.approx(1.5) and rows["a"]["production_source"] == "timed"
    assert rows["b"]["speedup"]["production"] == pytest.approx(0.5)
    assert rows["b"]["baseline_sol"]["production"] == pytest.approx(8.0 / 5.0)
    assert b["geomean_speedup"]["production"] == {"value": pytest.approx(math.sqrt(0.75)), "operators": 2}
    assert {r["op"]: r["production_source"] for r in board()["rows"]} == {"a": "metadata", "b": None, "c": None}


def test_cpu_runs_report_no_sol_or_speedup():
    records = {"a": {**record(), "device": {"kind": "cpu"}}}
    b = scoreboard(SUITE, "eval", records, {"a": doc(shape("s1", 10.0, 30.0, 12.0, 5.0))})
    assert b["weighted_sol"] is None and b["pending"] == 2
    assert any("no GPU" in n for n in b["notes"])


def test_report_and_compare(tmp_path):
    a = RunFolder.create(tmp_path, {"suite": SUITE.to_dict(), "request": {}})
    a.put_scoreboard({**board(), "run": a.root.name})
    written = write_report(a)
    assert {p.rsplit("/", 1)[1] for p in written["plots"]} == {"sol_per_operator.png", "speedup_distribution.png",
                                                               "weight_vs_sol.png"}
    md = (a.root / "report.md").read_text()
    assert "| a | done | 0.500 | yes |" in md and "fast_p vs eager" in md and "normalized to 1" in md
    html = (a.root / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 3
    b = RunFolder.create(tmp_path, {"suite": SUITE.to_dict(), "request": {}})
    worse = board()
    worse["weighted_sol"] -= 0.1
    b.put_scoreboard(worse)
    result = compare(a, b)
    assert result["suite"]["weighted_sol"]["delta"] == pytest.approx(-0.1)
    assert "| weighted_sol |" in compare_text(result)


def test_launch_adjusted_sol_is_absent_not_zero_when_never_measured():
    d = doc(shape("s1", 10.0, 30.0, 12.0, 5.0))
    d["shapes"][0]["roofline"]["sol_launch_adjusted"] = None
    b = scoreboard(SUITE, "eval", {"b": record()}, {"b": d})
    assert b["weighted_sol"] == pytest.approx(0.25 * 0.5)
    assert b["weighted_sol_launch_adjusted"] is None
    assert any("launch floor was not measured" in n for n in b["notes"])
