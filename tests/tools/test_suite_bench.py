"""tools/suite_bench.py: its rows, summary and tables from harness results, and one real CPU run of
an operator through the harness (the figures there are interpreter times; only the shape of the
record is checked)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tools import load_tool

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "suite_bench.py"


@pytest.fixture(scope="module")
def sb():
    return load_tool("suite_bench")


def _shape(sid, us, held_out=False, sol=0.5):
    return {"id": sid, "held_out": held_out, "correct": True,
            "time": {"median_us": us, "cv": 0.01, "method": "events"},
            "roofline": {"sol": sol, "sol_calibrated": None, "sol_launch_adjusted": None, "flag": ""}}


def _result(status, shapes, rejections=()):
    return {"status": status, "shapes": shapes, "wall_s": 1.0,
            "rejections": [{"rule": r, "message": "m", "shape": "s1"} for r in rejections]}


BASE = {"s1": {"eager": 200.0, "torch.compile": 100.0}, "s2": {"eager": 400.0}}  # all >= 20 µs: events


def test_rows_divide_baselines_by_the_kernel_time_and_skip_held_out_shapes(sb):
    res = _result("accepted", [_shape("s1", 50.0), _shape("s2", 80.0), _shape("h", 10.0, held_out=True)])
    rows = sb.rows_of(res, "k", BASE)
    assert [r["shape"] for r in rows] == ["s1", "s2"]
    assert rows[0]["x_eager"] == pytest.approx(4.0) and rows[0]["x_compile"] == pytest.approx(2.0)
    assert rows[1]["x_eager"] == pytest.approx(5.0) and rows[1]["x_compile"] is None


def test_summary_picks_the_fastest_kernel_and_averages_like_for_like_shapes_only(sb):
    fast = sb.kernel_entry(_result("accepted", [_shape("s1", 50.0, sol=0.2), _shape("s2", 40.0, sol=0.9)]), "fast", BASE)
    slow = sb.kernel_entry(_result("accepted", [_shape("s1", 100.0), _shape("s2", 200.0)]), "slow", BASE)
    bad = sb.kernel_entry(_result("cheat", [], ["foreign-device-time"]), "bad", BASE)
    [s] = sb.summary({"op": {"kernels": {"slow": slow, "fast": fast, "bad": bad}}})
    assert s["kernel"] == "fast" and s["accepted"] == "2/3"
    # every time >= 20 µs: events on both sides
    assert s["x_eager"] == pytest.approx((4.0 * 10.0) ** 0.5) and s["like_eager"] == 2
    assert s["x_compile"] == pytest.approx(2.0) and s["like_compile"] == 1
    assert (s["sol_min"], s["sol_max"]) == (0.2, 0.9)
    table = sb.markdown({"format": sb.FORMAT, "ops": {"op": {"kernels": {"fast": fast, "bad": bad}}}})
    assert "| op | bad | — | **cheat**: foreign-device-time: m [shape s1] |" in table
    assert "| op | fast | s1 | 50.00 | events | 200.00 | 100.00 | 4.00 | 2.00 | 0.20 |" in table


def test_a_graphed_kernel_against_an_events_baseline_is_marked_and_left_out_of_the_mean(sb):
    graphed = _shape("s1", 5.0)
    graphed["time"]["method"] = "graph"
    base = {"s1": {"eager": 40.0, "torch.compile": 6.0}}
    # recorded methods win; without them the harness's 20 µs rule says eager ran with events
    for methods in (None, {"s1": {"eager": "events", "torch.compile": "graph"}}):
        entry = sb.kernel_entry(_result("accepted", [graphed]), "k", base, methods)
        [row] = entry["rows"]
        assert (row["eager_method"], row["compile_method"]) == ("events", "graph")
        [s] = sb.summary({"op": {"kernels": {"k": entry}}})
        assert s["x_eager"] is None and s["like_eager"] == 0
        assert s["x_compile"] == pytest.approx(1.2) and s["like_compile"] == 1
        assert f"| 8.00{sb.MIXED} | 1.20 |" in sb.markdown({"format": sb.FORMAT, "ops": {"op": {"kernels": {"k": entry}}}})


def test_an_operator_with_no_accepted_kernel_has_no_best(sb):
    bad = sb.kernel_entry(_result("wrong", [], ["wrong-output"]), "bad", BASE)
    [s] = sb.summary({"op": {"kernels": {"bad": bad}}})
    assert s == {"op": "op", "label": "op", "kernel": None, "accepted": "0/1"}


def test_render_reads_a_results_file_and_rejects_another_format(sb, tmp_path):
    good = tmp_path / "suite.json"
    entry = sb.kernel_entry(_result("accepted", [_shape("s1", 50.0)]), "k", BASE)
    good.write_text(json.dumps({"format": sb.FORMAT, "ops": {"op": {"kernels": {"k": entry}}}}))
    out = subprocess.run([sys.executable, str(TOOL), "--render", str(good)], capture_output=True, text=True, check=True)
    assert "| op | 1/1 | k | 4.00 (1/1) | 2.00 (1/1) | 0.50–0.50 |" in out.stdout
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"rmsnorm": {}}))
    res = subprocess.run([sys.executable, str(TOOL), "--render", str(old)], capture_output=True, text=True)
    assert res.returncode != 0 and "format None" in res.stderr


def test_measuring_refuses_without_a_gpu(tmp_path):
    env = dict(os.environ, AKA_DEVICE="cpu", PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, str(TOOL), str(ROOT / "suites" / "llm-inference"), "--out",
                          str(tmp_path / "x.json")], capture_output=True, text=True, env=env)
    assert res.returncode == 3 and "needs a CUDA GPU" in res.stderr
    assert not (tmp_path / "x.json").exists()


def test_a_real_operator_run_through_the_harness_on_the_interpreter(sb, evaluator):
    suite = ROOT / "suites" / "llm-inference"
    kernels = sb.kernels_by_op(suite, ROOT)["silu_and_mul"]
    assert len(kernels) >= 2
    entry = sb.bench_op(evaluator, suite / "silu_and_mul", kernels)
    assert set(entry["kernels"]) == {k.stem for k in kernels}
    assert all(k["status"] == "accepted" and k["held_out_checked"] >= 1 for k in entry["kernels"].values())
    first = entry["kernels"][kernels[0].stem]["rows"]
    assert {r["shape"] for r in first} == set(entry["baselines"]) and all(r["method"] == "cpu-interpreter" for r in first)
    assert all(r["x_eager"] > 0 for r in first)


def test_production_columns_appear_once_an_operator_names_one(sb):
    base = {"s1": {"eager": 200.0, "torch.compile": 100.0, "production": 75.0}}
    entry = sb.kernel_entry(_result("accepted", [_shape("s1", 50.0)]), "k", base)
    assert entry["rows"][0]["x_production"] == pytest.approx(1.5)
    [s] = sb.summary({"op": {"kernels": {"k": entry}}})
    assert s["x_production"] == pytest.approx(1.5) and s["like_production"] == 1
    ops = {"op": {"kernels": {"k": entry}, "production": {"library": "cuBLASLt via F.linear", "file": "production.py"}},
           "other": {"kernels": {"k": sb.kernel_entry(_result("accepted", [_shape("s1", 50.0)]), "k", BASE)}}}
    table = sb.markdown({"format": sb.FORMAT, "ops": ops})
    assert "| op | 1/1 | k | 4.00 (1/1) | 2.00 (1/1) | 1.50 (1/1) | 0.50–0.50 |" in table
    assert "| other | 1/1 | k | 4.00 (1/1) | 2.00 (1/1) | — | 0.50–0.50 |" in table
    assert "| op | k | s1 | 50.00 | events | 200.00 | 100.00 | 75.00 | 4.00 | 2.00 | 1.50 | 0.50 |" in table
    assert "| op | cuBLASLt via F.linear | production.py |" in table


def test_an_operator_with_a_production_baseline_through_the_harness(sb, evaluator):
    here = ROOT / "tests" / "evaluate"
    entry = sb.bench_op(evaluator, here / "fixtures" / "rmsnorm_production", [here / "candidates" / "honest_rmsnorm.py"])
    assert entry["production"] == {"library": "ATen's fused RMSNorm via F.rms_norm", "file": "production.py",
                                   "note": "a test fixture, not a serving stack's kernel"}
    rows = entry["kernels"]["honest_rmsnorm"]["rows"]
    assert rows and all(r["production_us"] > 0 and r["production_method"] == "cpu-interpreter" for r in rows)


class _FakeEvaluator:
    """Evaluations in the order given; baselines timed on request at 30 µs (events) or 5 µs (graph)."""

    def __init__(self, results):
        self.results, self.asked = iter(results), []

    def evaluate(self, spec, kernel, options, shipped=False):
        res = next(self.results)
        return type("R", (), {"to_dict": lambda self: res})()

    def time_baselines(self, spec, methods, options=None):
        from aka.spec.result import Timing

        self.asked.append(dict(methods))
        us = {"events": 30.0, "graph": 5.0}
        return {sid: {b: Timing(us[m] * f, 0.0, 0.01, 10, m) for b, f in (("eager", 2.0), ("torch.compile", 1.0))}
                for sid, m in methods.items()}


def _timed(sid, us, method, baselines=None):
    s = _shape(sid, us)
    s["time"]["method"] = method
    if baselines:
        s["baselines"] = {b: {"median_us": v, "method": method, "note": ""} for b, v in baselines.items()}
    return s


def test_every_kernel_is_set_against_baselines_timed_its_own_way(sb, tmp_path):
    """The first kernel ran with events at s1 and a graph at s2; a later graphed kernel at s1 gets
    graph-timed baselines there (timed once, not again for a third kernel), and no row is marked."""
    first = _result("accepted", [_timed("s1", 40.0, "events", {"eager": 60.0, "torch.compile": 30.0}),
                                 _timed("s2", 4.0, "graph", {"eager": 10.0, "torch.compile": 5.0})])
    second = _result("accepted", [_timed("s1", 4.0, "graph"), _timed("s2", 4.0, "graph")])
    third = _result("accepted", [_timed("s1", 2.5, "graph"), _timed("s2", 2.0, "graph")])
    ev = _FakeEvaluator([first, second, third])
    suite = ROOT / "suites" / "llm-inference"
    entry = sb.bench_op(ev, suite / "silu_and_mul", [Path("a.py"), Path("b.py"), Path("c.py")])
    assert ev.asked == [{"s1": "graph"}]
    b, c = entry["kernels"]["b"]["rows"], entry["kernels"]["c"]["rows"]
    assert (b[0]["eager_us"], b[0]["compile_us"], b[0]["compile_method"]) == (10.0, 5.0, "graph")
    assert c[0]["x_compile"] == pytest.approx(2.0) and b[1]["x_compile"] == pytest.approx(1.25)
    a = entry["kernels"]["a"]["rows"]
    assert (a[0]["compile_us"], a[0]["compile_method"]) == (30.0, "events")
    table = sb.markdown({"format": sb.FORMAT, "ops": {"silu_and_mul": entry}})
    assert sb.MIXED not in table
    assert set(entry["baselines_by_method"]["s1"]) == {"events", "graph"}


def test_older_results_are_matched_afterwards_timing_only_the_missing_pairs(sb):
    base = {"s1": {"eager": 60.0, "torch.compile": 30.0}}
    methods = {"s1": {"eager": "events", "torch.compile": "events"}}
    first = sb.kernel_entry(_result("accepted", [_timed("s1", 40.0, "events")]), "first", base, methods)
    graphed = sb.kernel_entry(_result("accepted", [_timed("s1", 4.0, "graph")]), "graphed", base, methods)
    data = {"format": sb.FORMAT, "ops": {"silu_and_mul": {"kernels": {"first": first, "graphed": graphed},
                                                          "baselines": base, "baseline_methods": methods}}}
    assert sb.MIXED in sb.markdown(data)
    ev, saved = _FakeEvaluator([]), []
    changed = sb.rematch(ev, ROOT / "suites" / "llm-inference", data, set(), lambda: saved.append(1))
    assert changed == ["silu_and_mul"] and saved == [1] and ev.asked == [{"s1": "graph"}]
    [row] = data["ops"]["silu_and_mul"]["kernels"]["graphed"]["rows"]
    assert (row["compile_us"], row["compile_method"], row["x_compile"]) == (5.0, "graph", pytest.approx(1.25))
    assert sb.MIXED not in sb.markdown(data)
    assert sb.rematch(ev, ROOT / "suites" / "llm-inference", data, set()) == [] and len(ev.asked) == 1


def test_a_baseline_that_cannot_be_graphed_keeps_its_mark(sb):
    """Asked for a graph, a baseline that syncs falls back to events: the row says so (†)."""
    table = sb.BaselineTable()
    table.record("s1", "graph", {"eager": {"median_us": 50.0, "method": "events"},
                                 "torch.compile": {"median_us": 6.0, "method": "graph"}})
    [row] = table.matched([{"shape": "s1", "us": 3.0, "method": "graph"}])
    assert table.missing([row]) == {}
    assert sb._mixed(row, "eager") == sb.MIXED and sb._mixed(row, "compile") == ""


def test_per_shape_takes_the_fastest_kernel_at_each_shape_and_counts_unmatched_apart(sb):
    base = {"s1": {"eager": 200.0, "torch.compile": 100.0}, "s2": {"eager": 90.0, "torch.compile": 60.0},
            "s3": {"eager": 30.0, "torch.compile": 30.0}}
    a = sb.kernel_entry(_result("accepted", [_shape("s1", 50.0), _shape("s2", 80.0)]), "a", base)
    b = sb.kernel_entry(_result("accepted", [_shape("s1", 90.0), _shape("s2", 40.0)]), "b", base)
    graphed = _shape("s3", 4.0)
    graphed["time"]["method"] = "graph"                 # baselines at s3 were timed with events
    c = sb.kernel_entry(_result("accepted", [graphed]), "c", base)
    bad = sb.kernel_entry(_result("wrong", [], ["wrong-output"]), "bad", base)
    [r] = sb.per_shape({"op": {"kernels": {"a": a, "b": b, "c": c, "bad": bad}}})
    assert (r["shapes"], r["matched"], r["reached"], r["below"]) == (3, 2, 2, [])
    assert r["x_compile"] == pytest.approx((2.0 * 1.5) ** 0.5) and r["kernels"] == ["a", "b", "c"]
    slow = sb.kernel_entry(_result("accepted", [_shape("s1", 125.0)]), "slow", base)
    [r] = sb.per_shape({"op": {"kernels": {"slow": slow}}})
    assert r["below"] == ["s1"] and r["reached"] == 0
    text = sb.per_shape_markdown({"op": {"kernels": {"slow": slow}}})
    assert "| op | 0.80 (1/1) | 0/1 | s1 | slow |" in text and "1.0× or more" in text


def test_redo_needs_the_operators_to_measure_again(tmp_path):
    res = subprocess.run([sys.executable, str(TOOL), str(ROOT / "suites" / "llm-inference"), "--out",
                          str(tmp_path / "x.json"), "--redo"], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert res.returncode == 2 and "--redo needs --ops" in res.stderr


class _RetimingEvaluator(_FakeEvaluator):
    """Also answers an evaluation that fixes the timing method (EvalOptions.methods): each asked
    shape timed that way at `us`."""

    def __init__(self, results, us=6.0):
        super().__init__(results)
        self.us, self.fixed = us, []

    def evaluate(self, spec, kernel, options, shipped=False):
        if not options.methods:
            return super().evaluate(spec, kernel, options, shipped)
        self.fixed.append((Path(kernel).name, dict(options.methods), options.baselines))
        res = _result("accepted", [_timed(sid, self.us, m) for sid, m in options.methods.items()])
        return type("R", (), {"to_dict": lambda self: res})()


def test_a_kernel_is_timed_again_the_way_a_baseline_that_cannot_be_graphed_was(sb):
    """Asked for a graph, eager falls back to events (it syncs): the kernel is timed again with
    events there and its speedup over eager uses that time (‡); torch.compile stays graph to graph."""
    shape = _timed("s1", 3.0, "graph")
    shape["baselines"] = {"eager": {"median_us": 60.0, "method": "events", "note": ""},
                          "torch.compile": {"median_us": 6.0, "method": "graph", "note": ""}}
    ev = _RetimingEvaluator([_result("accepted", [shape])], us=12.0)
    entry = sb.bench_op(ev, ROOT / "suites" / "llm-inference" / "silu_and_mul", [Path("k.py")])
    assert ev.fixed == [("k.py", {"s1": "events"}, ())]
    [row] = entry["kernels"]["k"]["rows"]
    assert row["us"] == 3.0 and row["us_as"] == {"events": 12.0}
    assert row["x_eager"] == pytest.approx(5.0) and row["x_compile"] == pytest.approx(2.0)
    assert sb._mixed(row, "eager") == sb.RETIMED and sb._mixed(row, "compile") == ""
    [s] = sb.summary({"op": entry})
    assert s["like_eager"] == 1 and s["x_eager"] == pytest.approx(5.0)
    assert sb.MIXED not in sb.markdown({"format": sb.FORMAT, "ops": {"op": entry}})


def test_older_results_with_an_ungraphable_baseline_are_retimed_by_rematch(sb, tmp_path):
    base = {"s1": {"eager": 60.0, "torch.compile": 30.0}}
    methods = {"s1": {"eager": "events", "torch.compile": "events"}}
    graphed = sb.kernel_entry(_result("accepted", [_timed("s1", 4.0, "graph")]), "graphed", base, methods)
    by_method = {"s1": {"graph": {"times": {"eager": 60.0, "torch.compile": 30.0},
                                  "methods": {"eager": "events", "torch.compile": "events"}}}}
    data = {"format": sb.FORMAT, "ops": {"silu_and_mul": {"kernels": {"graphed": graphed}, "baselines": base,
                                                          "baseline_methods": methods,
                                                          "baselines_by_method": by_method}}}
    ev = _RetimingEvaluator([], us=10.0)
    assert sb.rematch(ev, ROOT / "suites" / "llm-inference", data, set(), kernels_root=tmp_path) == ["silu_and_mul"]
    assert ev.asked == [] and ev.fixed == [("graphed.py", {"s1": "events"}, ())]
    [row] = data["ops"]["silu_and_mul"]["kernels"]["graphed"]["rows"]
    assert row["x_compile"] == pytest.approx(3.0) and sb._mixed(row, "compile") == sb.RETIMED
    [r] = sb.per_shape(data["ops"])
    assert r["matched"] == 1 and r["x_compile"] == pytest.approx(3.0)
    assert sb.rematch(ev, ROOT / "suites" / "llm-inference", data, set(), kernels_root=tmp_path) == []
    assert len(ev.fixed) == 1


def test_a_failed_retime_is_recorded_and_the_mark_stays(sb):
    shape = _timed("s1", 3.0, "graph")
    shape["baselines"] = {"eager": {"median_us": 60.0, "method": "events", "note": ""}}

    class _Refusing(_FakeEvaluator):
        def evaluate(self, spec, kernel, options, shipped=False):
            if options.methods:
                res = _result("wrong", [], ["wrong-output"])
                return type("R", (), {"to_dict": lambda self: res})()
            return super().evaluate(spec, kernel, options, shipped)

    entry = sb.bench_op(_Refusing([_result("accepted", [shape])]), ROOT / "suites" / "llm-inference" / "silu_and_mul",
                        [Path("k.py")])
    assert "k timed again at ['s1']: wrong" in entry["baseline_failures"][0]
    [row] = entry["kernels"]["k"]["rows"]
    assert sb._mixed(row, "eager") == sb.MIXED and "us_as" not in row


def test_named_kernels_join_an_operator_measured_before(sb):
    """--kernels: only the named kernel is evaluated, against the baselines the entry holds (a
    missing (shape, method) pair is timed); the other kernels' rows stay as they were."""
    old = _result("accepted", [_timed("s1", 40.0, "events", {"eager": 60.0, "torch.compile": 30.0})])
    ev = _FakeEvaluator([old])
    suite = ROOT / "suites" / "llm-inference"
    data = {"format": sb.FORMAT, "ops": {"silu_and_mul": sb.bench_op(ev, suite / "silu_and_mul", [Path("old.py")])}}
    new = _result("accepted", [_timed("s1", 20.0, "events"), _timed("s2", 4.0, "graph")])
    ev = _FakeEvaluator([new])
    args = type("A", (), {"stop_after_s": float("inf"), "label": "abc"})()
    kernels = {"silu_and_mul": [Path("reference_kernels/silu_and_mul/old.py"), Path("reference_kernels/silu_and_mul/new.py")]}
    unknown = sb.add_kernels(ev, kernels, suite, data, {"silu_and_mul/new", "silu_and_mul/nope"}, lambda: None, args)
    assert unknown == ["silu_and_mul/nope"] and ev.asked == [{"s2": "graph"}]
    entry = data["ops"]["silu_and_mul"]
    assert set(entry["kernels"]) == {"old", "new"} and entry["kernels"]["new"]["label"] == "abc"
    s1 = {r["shape"]: r for r in entry["kernels"]["new"]["rows"]}
    assert s1["s1"]["x_compile"] == pytest.approx(1.5) and s1["s2"]["x_compile"] == pytest.approx(1.25)
    assert entry["kernels"]["old"]["rows"][0]["x_compile"] == pytest.approx(0.75)


def test_kernels_option_needs_op_slash_kernel_and_stands_alone(tmp_path):
    for extra, says in ((["--kernels", "pad_2d"], "op/kernel names"),
                        (["--kernels", "pad_2d/a", "--redo", "--ops", "pad_2d"], "not with --redo")):
        res = subprocess.run([sys.executable, str(TOOL), str(ROOT / "suites" / "kernel-patterns"), "--out",
                              str(tmp_path / "x.json"), *extra], capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert res.returncode == 2 and says in res.stderr


def test_the_table_shows_the_time_a_retimed_kernel_got(sb):
    shape = _timed("s1", 3.0, "graph")
    shape["baselines"] = {"eager": {"median_us": 60.0, "method": "events", "note": ""},
                          "torch.compile": {"median_us": 6.0, "method": "graph", "note": ""}}
    entry = sb.bench_op(_RetimingEvaluator([_result("accepted", [shape])], us=12.0),
                        ROOT / "suites" / "llm-inference" / "silu_and_mul", [Path("k.py")])
    table = sb.markdown({"format": sb.FORMAT, "ops": {"op": entry}})
    assert "| op | k | s1 | 3.00 (events 12.00) | graph | 60.00 | 6.00 | 5.00‡ | 2.00 |" in table


class _Recording(_FakeEvaluator):
    """Records the timing methods each evaluation was asked to use."""

    def __init__(self, results):
        super().__init__(results)
        self.methods = []

    def evaluate(self, spec, kernel, options, shipped=False):
        self.methods.append(dict(options.methods))
        return super().evaluate(spec, kernel, options, shipped)


def test_method_graph_times_every_kernel_by_graph_at_every_shape(sb):
    """The A/B of the timing rule: --method graph asks every evaluation for graph replay at every
    visible shape (the baselines follow the kernel's method)."""
    from aka.spec.load import load_op

    op = ROOT / "suites" / "llm-inference" / "silu_and_mul"
    ids = [s.id for s in load_op(op).shapes]
    first = _result("accepted", [_timed(sid, 40.0, "graph", {"eager": 60.0, "torch.compile": 30.0}) for sid in ids])
    second = _result("accepted", [_timed(sid, 20.0, "graph") for sid in ids])
    ev = _Recording([first, second])
    sb.bench_op(ev, op, [Path("a.py"), Path("b.py")], method="graph")
    assert ev.methods == [{sid: "graph" for sid in ids}] * 2
    ev = _Recording([first])
    sb.bench_op(ev, op, [Path("a.py")])
    assert ev.methods == [{}]                      # without it: the harness's own rule


def test_results_timed_one_way_are_never_mixed_with_another(sb, tmp_path, monkeypatch, capsys):
    out = tmp_path / "r.json"
    out.write_text(json.dumps({"format": sb.FORMAT, "ops": {"x": {"kernels": {}}}, "method": None}))
    monkeypatch.setattr(sys, "argv", ["suite_bench", str(ROOT / "suites" / "llm-inference"), "--out", str(out),
                                      "--method", "graph"])
    monkeypatch.setattr("aka.evaluate.evaluator.detect_device", lambda *_: "cuda")
    with pytest.raises(SystemExit):
        sb.main()
    assert "would mix them" in capsys.readouterr().err


class _Interleaving:
    """Evaluations that must ask for interleaved baselines; each answers from the queue given."""

    def __init__(self, results):
        self.results, self.asked = iter(results), []

    def evaluate(self, spec, kernel, options, shipped=False):
        assert options.interleave and options.baselines is None
        self.asked.append((Path(kernel).stem, dict(options.methods), tuple(options.shapes)))
        res = next(self.results)
        return type("R", (), {"to_dict": lambda self: res})()


def test_interleave_sets_every_kernel_against_the_baselines_its_own_evaluation_timed(sb):
    from aka.spec.load import load_op

    op = ROOT / "suites" / "llm-inference" / "silu_and_mul"
    sid = load_op(op).shapes[0].id
    a = _result("accepted", [_timed(sid, 40.0, "events", {"eager": 80.0, "torch.compile": 40.0})])
    b = _result("accepted", [_timed(sid, 20.0, "events", {"eager": 90.0, "torch.compile": 50.0})])
    ev = _Interleaving([a, b])
    entry = sb.bench_op(ev, op, [Path("a.py"), Path("b.py")], interleave=True)
    ra, rb = entry["kernels"]["a"]["rows"][0], entry["kernels"]["b"]["rows"][0]
    assert (ra["x_compile"], rb["x_compile"]) == (pytest.approx(1.0), pytest.approx(2.5))   # each its own
    assert [x[0] for x in ev.asked] == ["a", "b"]


def test_interleave_times_a_kernel_again_where_a_baseline_could_not_be_graphed(sb):
    from aka.spec.load import load_op

    op = ROOT / "suites" / "llm-inference" / "silu_and_mul"
    sid = load_op(op).shapes[0].id
    shape = _timed(sid, 3.0, "graph")
    shape["baselines"] = {"eager": {"median_us": 60.0, "method": "events", "note": ""},
                          "torch.compile": {"median_us": 6.0, "method": "graph", "note": ""}}
    again = _result("accepted", [_timed(sid, 30.0, "events", {"eager": 60.0, "torch.compile": 45.0})])
    ev = _Interleaving([_result("accepted", [shape]), again])
    [row] = sb.bench_op(ev, op, [Path("k.py")], interleave=True)["kernels"]["k"]["rows"]
    assert ev.asked[1] == ("k", {sid: "events"}, (sid,))
    assert row["method"] == "events" and row["x_eager"] == pytest.approx(2.0) and row["x_compile"] == pytest.approx(1.5)


@pytest.mark.parametrize("stored,flag,why", [
    ({"interleave": True}, [], "with --interleave"),
    ({}, ["--interleave"], "without --interleave"),
    ({"timing_rule": "some-older-rule"}, [], "timed under the rule 'some-older-rule'"),
    ({"timing_rule": None}, [], "before 2026-12-04"),
])
def test_results_measured_another_way_or_under_another_rule_are_never_mixed(sb, tmp_path, monkeypatch, capsys,
                                                                           stored, flag, why):
    from aka.evaluate.timing import TIMING_RULE

    out = tmp_path / "r.json"
    out.write_text(json.dumps({"format": sb.FORMAT, "ops": {"x": {"kernels": {}}}, "method": None,
                               "timing_rule": TIMING_RULE} | stored))
    monkeypatch.setattr(sys, "argv", ["suite_bench", str(ROOT / "suites" / "llm-inference"), "--out", str(out), *flag])
    monkeypatch.setattr("aka.evaluate.evaluator.detect_device", lambda *_: "cuda")
    with pytest.raises(SystemExit):
        sb.main()
    assert why in capsys.readouterr().err


def test_results_measured_on_another_card_are_never_mixed(sb, tmp_path, monkeypatch, capsys):
    """--from continues a table call after call; a call that lands on another GPU model refuses it."""
    from aka.evaluate.timing import TIMING_RULE

    out = tmp_path / "r.json"
    out.write_text(json.dumps({"format": sb.FORMAT, "method": None, "timing_rule": TIMING_RULE,
                               "ops": {"x": {"kernels": {}, "device": {"name": "NVIDIA H200"}}}}))
    monkeypatch.setattr(sys, "argv", ["suite_bench", str(ROOT / "suites" / "llm-inference"), "--out", str(out)])
    monkeypatch.setattr("aka.evaluate.evaluator.detect_device", lambda *_: "cuda")
    monkeypatch.setattr(sb, "torch_card", lambda: "NVIDIA H100 80GB HBM3")
    with pytest.raises(SystemExit):
        sb.main()
    assert "measured on NVIDIA H200; this GPU is NVIDIA H100 80GB HBM3" in capsys.readouterr().err
    assert sb.cards_of(json.loads(out.read_text())) == {"NVIDIA H200"}     # the file untouched


def test_the_next_operators_kernels_compile_ahead_while_one_is_measured(sb, monkeypatch, tmp_path):
    """On a GPU, measure() starts compiling operator k+1's kernels (shipped: the tuner's cache)
    before measuring operator k, and stops each warmer once its operator is done."""
    import types

    log = []

    class Warmer:
        def __init__(self, folder):
            self.folder = folder

        def submit(self, spec, dtype, shapes, candidates):
            log.append(("submit", spec["name"], sorted(c.name for c in candidates), all(c.shipped for c in candidates)))

        def close(self):
            log.append(("close", self.folder.name))

    monkeypatch.setattr("aka.evaluate.warm.KernelWarmer", Warmer)
    suite = ROOT / "suites" / "llm-inference"
    kernels = {op: sb.kernels_by_op(suite, ROOT)[op][:1] for op in ("rmsnorm", "softmax", "layernorm")}
    ev = types.SimpleNamespace(interpreter=False, pool=types.SimpleNamespace(root=lambda: tmp_path),
                               plan=lambda spec, opts: ("bfloat16", [{"params": s.params} for s in spec.shapes], []))
    measured = []
    monkeypatch.setattr(sb, "bench_op", lambda ev, op_dir, files, **kw: measured.append(
        (op_dir.name, [x[1] for x in log if x[0] == "submit"])) or {"kernels": {}})
    args = types.SimpleNamespace(redo=False, stop_after_s=float("inf"), label="t", warm=True)
    sb.measure(ev, kernels, suite, {"ops": {}}, set(), lambda: None, args)
    assert measured == [("rmsnorm", ["rmsnorm", "softmax"]), ("softmax", ["rmsnorm", "softmax", "layernorm"]),
                        ("layernorm", ["rmsnorm", "softmax", "layernorm"])]
    assert all(x[3] for x in log if x[0] == "submit") and sum(x[0] == "close" for x in log) == 3
    log.clear()
    sb.measure(ev, kernels, suite, {"ops": {}}, set(), lambda: None, types.SimpleNamespace(**{**vars(args), "warm": False}))
    assert log == []


def test_jobs_measure_operators_at_once_each_by_its_own_evaluator_under_one_gpu_lock(sb, monkeypatch):
    """--jobs 2: two threads take the operators in turn, each through its own evaluator; every
    evaluation the wrapper passes on holds the shared lock and half the device's memory."""
    import threading
    import types

    from aka.evaluate.evaluator import EvalOptions

    suite = ROOT / "suites" / "llm-inference"
    ops = ("rmsnorm", "softmax", "layernorm", "silu_and_mul", "gelu_and_mul")
    kernels = {op: sb.kernels_by_op(suite, ROOT)[op][:1] for op in ops}
    seen: dict[str, set] = {}
    both_busy = threading.Barrier(2, timeout=10)

    class Ev:
        interpreter = True                             # no compile-ahead in this test

        def __init__(self, name):
            self.name, self.options = name, []

        def evaluate(self, spec, kernel, options, **kw):
            self.options.append(options)
            return {"status": "accepted"}

    inner = [Ev("a"), Ev("b")]
    evs = [sb.SharedGpu(e, "/tmp/lock", 0.5) for e in inner]

    calls = []

    def bench_op(ev, op_dir, files, **kw):
        calls.append(op_dir.name)
        if len(calls) <= 2:
            both_busy.wait()                           # the first two operators run at the same time
        ev.evaluate(None, files[0], EvalOptions())
        seen.setdefault(ev.name, set()).add(op_dir.name)
        return {"kernels": {}}
    monkeypatch.setattr(sb, "bench_op", bench_op)
    data, saves = {"ops": {}}, []
    args = types.SimpleNamespace(redo=False, stop_after_s=float("inf"), label="t", warm=False)
    sb.measure(evs[0], kernels, suite, data, set(), lambda: saves.append(len(data["ops"])), args, (evs[1],))
    assert set(data["ops"]) == set(ops) and saves == [1, 2, 3, 4, 5]
    assert set(seen) == {"a", "b"} and seen["a"] | seen["b"] == set(ops) and not seen["a"] & seen["b"]
    assert all(o.gpu_lock == "/tmp/lock" and o.gpu_share == 0.5 for e in inner for o in e.options)
    assert all(data["ops"][op]["label"] == "t" for op in ops)


def test_an_operator_whose_reference_outgrows_a_jobs_share_is_measured_alone_with_the_whole_gpu(sb, monkeypatch):
    """--jobs 2: the reference of one operator runs out of memory at half the device's memory (the
    judge's SpecError carries torch's OutOfMemoryError); the others go on, and it is measured once
    they end, alone with the whole share. One that fails at the whole share too is raised."""
    import types

    from aka.errors import SpecError
    from aka.evaluate.evaluator import EvalOptions

    suite = ROOT / "suites" / "llm-inference"
    ops = ("rmsnorm", "softmax", "layernorm")
    kernels = {op: sb.kernels_by_op(suite, ROOT)[op][:1] for op in ops}
    shares: list[tuple[str, float]] = []

    class Ev:
        interpreter = True

        def __init__(self, need: dict):
            self.need = need

        def evaluate(self, spec, kernel, options, **kw):
            op = kernel.parent.name
            shares.append((op, options.gpu_share))
            if options.gpu_share < self.need.get(op, 0.0):
                raise SpecError(f"suites/llm-inference/{op}/reference.py:11", "reference",
                                "the operator's reference failed (load): Model(...) raised OutOfMemoryError: "
                                "CUDA out of memory.")
            return {"status": "accepted"}

    def bench_op(ev, op_dir, files, **kw):
        ev.evaluate(None, files[0], EvalOptions())
        return {"kernels": {}}
    monkeypatch.setattr(sb, "bench_op", bench_op)
    args = types.SimpleNamespace(redo=False, stop_after_s=float("inf"), label="t", warm=False)
    need = {"softmax": 0.9}
    evs = [sb.SharedGpu(Ev(need), "/tmp/lock", 0.5) for _ in range(2)]
    data: dict = {"ops": {}}
    sb.measure(evs[0], kernels, suite, data, set(), lambda: None, args, (evs[1],))
    assert set(data["ops"]) == set(ops)
    assert ("softmax", 0.5) in shares and shares[-1] == ("softmax", 1.0)
    assert all(s == 0.5 for op, s in shares if op != "softmax")

    need["softmax"] = 2.0                              # more than the whole device: the error stands
    with pytest.raises(SpecError, match="OutOfMemoryError"):
        sb.measure(evs[0], kernels, suite, {"ops": {}}, set(), lambda: None, args, (evs[1],))


def test_jobs_take_whole_operators_only(tmp_path):
    for extra in (["--jobs", "2", "--kernels", "rmsnorm/one_row_registers"], ["--jobs", "0"]):
        r = subprocess.run([sys.executable, str(TOOL), str(ROOT / "suites" / "llm-inference"), "--out",
                            str(tmp_path / "o.json"), *extra], capture_output=True, text=True, cwd=ROOT,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert r.returncode == 2 and "--jobs" in r.stderr, r.stderr


def test_a_run_stopped_mid_operator_keeps_its_kernels_and_the_next_run_measures_only_the_rest(sb, tmp_path,
                                                                                                monkeypatch):
    """Every kernel is checkpointed: a run killed after an operator's first kernel leaves the
    operator partial (its kernel and baselines kept, on disk), the table says so, and the next run
    measures only the other kernels, joining the entry the first run left."""
    import types

    suite = ROOT / "suites" / "llm-inference"
    files = sb.kernels_by_op(suite, ROOT)["rmsnorm"][:3]
    assert len(files) == 3
    out = tmp_path / "llm-inference.json"
    data = {"format": sb.FORMAT, "ops": {}}
    save = lambda: sb.save_json(out, data)  # noqa: E731
    calls = []

    def killed_after_one(ev, op_dir, kernels, entry=None, on_kernel=None, **kw):
        calls.append(([k.stem for k in kernels], entry))
        e = {"kernels": {kernels[0].stem: {"status": "accepted", "rows": []}}, "baselines": {"s1": {"eager": 2.0}}}
        on_kernel(e)
        raise KeyboardInterrupt  # the budget's kill, mid-operator

    args = types.SimpleNamespace(redo=False, stop_after_s=float("inf"), label="first", warm=False)
    monkeypatch.setattr(sb, "bench_op", killed_after_one)
    with pytest.raises(KeyboardInterrupt):
        sb.measure(None, {"rmsnorm": files}, suite, data, set(), save, args)
    kept = sb.load(out)
    assert sb.is_partial(kept, "rmsnorm") and list(kept["ops"]["rmsnorm"]["kernels"]) == [files[0].stem]
    assert "rmsnorm (partial: 1 kernels)" in sb.markdown(kept)
    assert [p.name for p in tmp_path.iterdir()] == ["llm-inference.json"]  # no temporary left behind

    def finishes(ev, op_dir, kernels, entry=None, on_kernel=None, **kw):
        calls.append(([k.stem for k in kernels], entry))
        for k in kernels:
            entry["kernels"][k.stem] = {"status": "accepted", "rows": []}
            on_kernel(entry)
        return entry
    monkeypatch.setattr(sb, "bench_op", finishes)
    sb.measure(None, {"rmsnorm": files}, suite, kept, set(), lambda: sb.save_json(out, kept),
               types.SimpleNamespace(**{**vars(args), "label": "second"}))
    assert calls[0] == ([f.stem for f in files], None)
    resumed, joined = calls[1]
    assert resumed == [f.stem for f in files[1:]] and joined["baselines"] == {"s1": {"eager": 2.0}}
    done = sb.load(out)["ops"]["rmsnorm"]
    assert not done.get("partial") and list(done["kernels"]) == [f.stem for f in files] and done["label"] == "second"
    assert "partial" not in sb.markdown(sb.load(out))


def test_redo_measures_a_partial_operator_from_the_start(sb):
    data = {"ops": {"rmsnorm": {"kernels": {"a": {}}, "partial": True}}}
    files = [Path("a.py"), Path("b.py")]
    assert sb.resume_point(data, "rmsnorm", files) == ([Path("b.py")], {"kernels": {"a": {}}})
    assert sb.resume_point(data, "rmsnorm", files, redo=True) == (files, None)
    assert sb.resume_point({"ops": {}}, "rmsnorm", files) == (files, None)


def _row(sid, us, **x):
    row = {"shape": sid, "us": us, "method": "events", "kernel": "k"}
    for b in ("eager", "compile", "production"):
        row |= {f"{b}_us": None, f"{b}_method": "events", f"x_{b}": x.get(b)}
    return row


def test_each_operator_is_held_to_its_bar_compile_or_the_library_by_phase(sb):
    """torch.compile at 1.0x for an operator without `library:`; with it, the production baseline
    where timed (else eager) above 1.0x at decode shapes and at 0.95x or more elsewhere."""
    ops = {
        "plain": {"kernels": {"k": {"status": "accepted", "rows": [_row("p", 1.0, compile=0.999), _row("d", 1.0, compile=1.2),
                                                                      _row("q", 1.0, compile=0.9996)]}},
                  "library": "", "phases": {"p": "prefill", "d": "decode", "q": "decode"}},
        "gemm": {"kernels": {"k": {"status": "accepted", "rows": [_row("p", 1.0, eager=0.96, compile=0.5),
                                                                     _row("d", 1.0, eager=1.0, compile=2.0)]}},
                 "library": "cuBLAS", "phases": {"p": "prefill", "d": "decode"}},
        "conv": {"kernels": {"k": {"status": "accepted", "rows": [_row("p", 1.0, eager=0.5, production=0.95)]}},
                 "library": "cuDNN", "phases": {"p": "any"}},
    }
    got = {r["op"]: r for r in sb.targets(ops)}
    # a miss that rounds to the bar is printed with a fourth decimal, so the table never reads "1.000× missed"
    assert got["plain"]["missed"] == ["p 0.999×", "q 0.9996×"] and got["plain"]["bar"].startswith("torch.compile")
    assert got["gemm"]["missed"] == ["d 1.0000×"] and got["gemm"]["bar"].startswith("eager (cuBLAS)")
    assert got["conv"]["missed"] == [] and got["conv"]["bar"].startswith("production (cuDNN)")
    assert "Operators at their bar at every matched shape: 1 of 3." in sb.targets_markdown(ops)


def test_results_from_before_the_bar_take_library_and_phases_from_the_op_yaml(sb):
    """An entry without recorded phases (older results) is held to the bar its op.yaml sets now."""
    entry = {"kernels": {"k": {"status": "accepted", "rows": [_row("skinny-64x8192x8192", 1.0, eager=0.99),
                                                              _row("square-4096", 1.0, eager=0.96)]}}}
    [r] = sb.targets({"matmul_bf16": entry})
    assert "cuBLAS" in r["bar"] and r["missed"] == ["skinny-64x8192x8192 0.990×"]   # a decode shape: > 1.0 needed


def test_a_kernel_joined_to_older_baselines_is_marked_with_both_runs(sb):
    """--kernels stamps the kernel, a whole run only the operator: the every-kernel table marks the
    joined kernel and says when each side was timed; an interleaved table times its own and is not marked."""
    res = _result("accepted", [_shape("s1", 50.0)])
    kernels = {"old": {"status": "accepted", "rejections": [], "rows": sb.rows_of(res, "old", BASE)},
               "new": {"status": "accepted", "rejections": [], "rows": sb.rows_of(res, "new", BASE),
                       "measured_at": "2026-12-07 17:24 UTC", "label": "bbb"}}
    entry = {"kernels": kernels, "measured_at": "2026-12-07 10:18 UTC", "label": "aaa"}
    table = sb.markdown({"format": sb.FORMAT, "ops": {"op": entry}})
    assert f"| op | new{sb.JOINED} | s1 |" in table and "| op | old | s1 |" in table
    assert "op/new timed at 2026-12-07 17:24 UTC (bbb), its baselines at 2026-12-07 10:18 UTC (aaa)" in table
    assert sb.JOINED not in sb.markdown({"format": sb.FORMAT, "interleave": True, "ops": {"op": entry}})


def _earlier(sb, kernels_us: dict[str, dict[str, float]], card="NVIDIA H100 80GB HBM3", status="accepted"):
    """A results file holding silu_and_mul with each kernel's times by shape."""
    entry = {"kernels": {k: {"status": status, "rows": [{"shape": s, "us": us, "kernel": k} for s, us in t.items()]}
                         for k, t in kernels_us.items()}, "device": {"name": card}}
    return {"format": sb.FORMAT, "ops": {"silu_and_mul": entry}}


def test_winners_keep_the_kernels_fastest_at_a_shape_elsewhere_and_any_new_one(sb):
    """--winners: at an operator the earlier results hold, only the kernels that won a shape there
    and the kernels they lack are measured; an operator they lack keeps every kernel."""
    kd = Path("reference_kernels")
    kernels = {"silu_and_mul": [kd / "silu_and_mul" / f"{k}.py" for k in ("a", "b", "c", "new")],
               "softmax": [kd / "softmax" / "x.py", kd / "softmax" / "y.py"]}
    earlier = _earlier(sb, {"a": {"s1": 10.0, "s2": 30.0}, "b": {"s1": 12.0, "s2": 20.0}, "c": {"s1": 11.0, "s2": 25.0}})
    kept, left_out = sb.select_winners(kernels, [earlier])
    assert [f.stem for f in kept["silu_and_mul"]] == ["a", "b", "new"] and left_out == {"silu_and_mul": ["c"]}
    assert kept["softmax"] == kernels["softmax"]
    rejected = _earlier(sb, {"a": {"s1": 10.0}}, status="rejected")        # nothing won there: all kept
    assert sb.select_winners(kernels, [rejected]) == (kernels, {})
    both, _ = sb.select_winners(kernels, [earlier, _earlier(sb, {"c": {"s9": 1.0}})])   # any file's winners count
    assert [f.stem for f in both["silu_and_mul"]] == ["a", "b", "c", "new"]


def test_the_table_names_the_kernels_winners_left_out_and_whose_results_chose(sb):
    entry = _earlier(sb, {"a": {"s1": 10.0}})["ops"]["silu_and_mul"]
    entry["kernels"]["a"]["rows"] = []
    data = {"format": sb.FORMAT, "ops": {"silu_and_mul": entry}, "left_out": {"silu_and_mul": ["b", "c"]},
            "winners_of": [{"file": "h100/llm-inference.json", "cards": ["NVIDIA H100 80GB HBM3"]}]}
    text = sb.markdown(data)
    assert "`h100/llm-inference.json` (NVIDIA H100 80GB HBM3)" in text and "silu_and_mul: b, c" in text


def test_winners_take_whole_operators_and_an_existing_file(tmp_path):
    for extra, says in ((["--winners", str(tmp_path / "none.json")], "no results file"),
                        (["--winners", str(tmp_path / "none.json"), "--kernels", "pad_2d/a"], "not with --kernels")):
        res = subprocess.run([sys.executable, str(TOOL), str(ROOT / "suites" / "kernel-patterns"), "--out",
                              str(tmp_path / "x.json"), *extra], capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert res.returncode == 2 and says in res.stderr, res.stderr
