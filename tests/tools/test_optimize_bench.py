"""tools/optimize_bench.py's time breakdown, on the session recorded on the H200 (docs/results)."""

import tarfile
from pathlib import Path

from tests.tools import load_tool

ROOT = Path(__file__).parents[2]
ARCHIVE = ROOT / "docs" / "results" / "h200-2026-12-04" / "llm-session" / "session.tgz"


def _bench():
    return load_tool("optimize_bench")


def test_the_journal_charges_each_step_its_time(tmp_path):
    with tarfile.open(ARCHIVE) as tar:
        tar.extractall(tmp_path, filter="data")
    (session,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    bench = _bench()
    tb = bench.time_breakdown(session)
    assert tb["step_counts"]["evaluate"] == 9 and tb["step_counts"]["profile"] == 1
    assert 90 < tb["steps_s"]["evaluate"] < 100            # 9 evaluations of 9.3-19.4 s on the H200
    assert 10 < tb["steps_s"]["profile"] < 12
    assert sum(tb["steps_s"].values()) < 140               # the session's journal spans 136 s
    table = "\n".join(bench.breakdown_table([{"op": "rmsnorm", "time_breakdown": tb}]))
    assert "| rmsnorm | 1.7 (1) | 0.0 (0) | 95.7 (9) | 20.8 (9) | 10.8 (1) |" in table   # no batches: sequential
    assert bench.time_breakdown(tmp_path / "missing") == {}
    st = tb["steady"]                                      # after the first iteration: 8 more candidates
    assert st["candidates"] == 8 and 0 < st["seconds"] < sum(tb["steps_s"].values())
    doc = {"op": "rmsnorm", "evaluated": 9, "wall_s": 140.0, "time_breakdown": tb, "shapes": []}
    assert f"| 8 in {st['seconds']:.0f} ({60 * 8 / st['seconds']:.1f}) |" in bench.render([doc])


def test_the_judges_note_on_compiled_kernels_is_tabulated(tmp_path):
    import json

    for v, n in (("v001", 3), ("v002", 0)):
        (tmp_path / "candidates" / v).mkdir(parents=True)
        note = f"kernels compiled by the candidate's process: {n} (its cache started with 9 entries)"
        (tmp_path / "candidates" / v / "eval.json").write_text(json.dumps({"phases_s": {"call-first": 1.0},
                                                                            "notes": ["other", note]}))
    (tmp_path / "events.jsonl").write_text("")
    bench = _bench()
    tb = bench.time_breakdown(tmp_path)
    assert tb["kernels_compiled"] == [3, 0] and tb["evaluations"] == 2
    assert "- softmax: 3, 0" in bench.breakdown_table([{"op": "softmax", "time_breakdown": tb}])


def test_comparison_phases_are_tabulated_from_the_decisions(tmp_path):
    import json

    for v, phases in (("v001", {}), ("v002", {"incumbent:bench": 2.0, "candidate:bench": 2.5, "incumbent:load": 0.5,
                                              "candidate:batch": 0.25, "judge-total": 6.0})):
        (tmp_path / "candidates" / v).mkdir(parents=True)
        (tmp_path / "candidates" / v / "decision.json").write_text(json.dumps({"promote": False, "phases_s": phases}))
    (tmp_path / "events.jsonl").write_text("")
    bench = _bench()
    tb = bench.time_breakdown(tmp_path)
    assert tb["comparisons"] == 1 and tb["compare_phases_s"]["incumbent:bench"] == 2.0
    table = "\n".join(bench.breakdown_table([{"op": "rmsnorm", "time_breakdown": tb}]))
    assert "| rmsnorm | 1 | 0.00 | 0.50 | 0.00 | 4.50 | 0.25 | 0.00 | 6.00 |" in table


PARALLEL = ROOT / "docs" / "results" / "h200-2026-12-04-rate2" / "parallel-fixed" / "sessions.tgz"


def test_a_batched_session_charges_its_batches_and_counts_the_rate_after_the_first(tmp_path):
    """The --parallel 4 rmsnorm session of call H: two batches of four; the rate after the first
    batch counts the second batch's four candidates from the end of the first batch's last member."""
    with tarfile.open(PARALLEL) as tar:
        tar.extractall(tmp_path, filter="data")
    (session,) = [p for p in tmp_path.iterdir() if p.is_dir() and p.name.endswith("rmsnorm")]
    tb = _bench().time_breakdown(session)
    assert tb["step_counts"]["batch"] == 2 and 50 < tb["steps_s"]["batch"] < 60     # 36.2 + 20.1 s
    assert tb["steady"]["candidates"] == 4 and 25 < tb["steady"]["seconds"] < 30
    assert tb["evaluations"] == 8 and tb["phases_s"]["judge-gpu-wait"] > 0


def test_the_propose_steps_time_is_split_into_compile_ahead_and_proposer(tmp_path):
    import json

    events = [{"time": "2026-12-04T10:00:00+00:00", "kind": "setup", "data": {}},
              {"time": "2026-12-04T10:00:03+00:00", "kind": "propose", "data": {"warm_s": 2.5, "proposer_s": 0.25}},
              {"time": "2026-12-04T10:00:08+00:00", "kind": "evaluate", "data": {}},
              {"time": "2026-12-04T10:00:09+00:00", "kind": "propose", "data": {"warm_s": 0.5, "proposer_s": 0.25}},
              {"time": "2026-12-04T10:00:10+00:00", "kind": "propose", "data": {"exhausted": True}}]
    (tmp_path / "events.jsonl").write_text("".join(json.dumps({"format": "aka.journal/1", "seq": i, **e}) + "\n"
                                                   for i, e in enumerate(events)))
    bench = _bench()
    tb = bench.time_breakdown(tmp_path)
    assert tb["propose_parts_s"] == {"warm_s": 3.0, "proposer_s": 0.5}
    assert "| softmax | 3.00 | 0.50 |" in bench.breakdown_table([{"op": "softmax", "time_breakdown": tb}])


def test_focused_trials_are_counted_and_timed_apart_from_full_evaluations(tmp_path):
    import json

    for v, focus, wall in (("v001", [], 4.0), ("v002", ["decode"], 1.0), ("v003", ["prefill"], 2.0),
                           ("v004", ["decode", "prefill"], 3.0)):
        (tmp_path / "candidates" / v).mkdir(parents=True)
        (tmp_path / "candidates" / v / "eval.json").write_text(json.dumps({"focus": focus, "wall_s": wall}))
    (tmp_path / "events.jsonl").write_text("")
    bench = _bench()
    tb = bench.time_breakdown(tmp_path)
    assert tb["eval_wall_s"] == {"full": {"n": 1, "mean": 4.0}, "focused": {"n": 2, "mean": 1.5},
                                 "focused-screen": {"n": 1, "mean": 3.0}}
    doc = {"op": "rmsnorm", "evaluated": 4, "focused": 3, "wall_s": 60.0, "time_breakdown": tb, "shapes": []}
    text = bench.render([doc])
    assert "| rmsnorm |  | 4 (3 focused) | 60 | 4.0 |" in text
    assert "- rmsnorm: full 4.00 s (1)" in text and "- rmsnorm: focused 1.50 s (2)" in text
    assert "- rmsnorm: focused-screen 3.00 s (1)" in text


def test_a_speedup_just_under_one_is_shown_below_the_bar_in_the_table():
    row = _bench().rows({"op": "silu_and_mul", "shapes": [
        {"shape": "s", "phase": "prefill", "time_us": 129.08, "method": "events", "sol": 0.93,
         "sol_launch_adjusted": 0.94, "baselines_us": {"eager": 378.64, "torch.compile": 128.88},
         "speedup": {"eager": 2.93, "torch.compile": 0.9985}}]})[0]
    assert row[7:9] == ["2.93×", "0.998×"]
