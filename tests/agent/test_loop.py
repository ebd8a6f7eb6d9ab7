"""The real loop over a scripted proposer and evaluator, writing a real session folder."""

import json
from types import SimpleNamespace

from aka.agent.state import LoopConfig
from aka.sessions.folder import SessionFolder
from aka.sessions.journal import read_events

from aka.propose.scripted import ScriptedProposer

from .loop_kit import ORDER, cand, run


def _events(out, kind):
    return [e.data for e in read_events(out.session / "events.jsonl").events if e.kind == kind]


def test_accept_reject_noise_and_budget(tmp_path):
    out = run(tmp_path / "s", tmp_path / "log", LoopConfig(iterations=4, stall=10), resumed=False)
    accepts = {a["version"]: a for a in _events(out, "accept")}
    assert accepts["v001"]["promote"] and accepts["v001"]["reason"] == "the first correct and honest kernel"
    assert not accepts["v002"]["promote"] and "rejected by the harness: wrong-output" in accepts["v002"]["reason"]
    assert not accepts["v003"]["promote"] and "within noise" in accepts["v003"]["reason"]   # 0.5 % < 2 % noise
    assert accepts["v004"]["promote"] and accepts["v004"]["speedup"] > 1.9
    assert out.best == "v004" and out.stop_reason == "budget: 4 candidates evaluated"
    assert (out.session / "best" / "candidate.py").read_text().startswith("# d4")
    folder = SessionFolder(out.session)
    kinds = {m.version: m.kind for m in folder.memory()}
    assert kinds == {"baseline": "baseline", "v001": "strategy", "v002": "anti-strategy",
                     "v003": "anti-strategy", "v004": "strategy"}
    assert "Best kernel: `v004`" in (out.session / "report.md").read_text()


def test_stall_triggers_a_dropout_that_masks_half_the_unprotected_records(tmp_path):
    proposer = ScriptedProposer([cand(t) for t in ORDER])
    out = run(tmp_path / "s", tmp_path / "log", LoopConfig(iterations=6, stall=2, seed=3), resumed=False,
              proposer=proposer)
    drops = _events(out, "dropout")
    assert drops and drops[0]["number"] == 1
    masked = set(drops[0]["masked"])
    folder = SessionFolder(out.session)
    records = {m.id: m for m in folder.memory()}
    assert masked and all(records[i].masked and records[i].masked_by == 1 for i in masked)
    assert not records["m000"].masked                                 # the baseline record
    inc = [a["version"] for a in _events(out, "accept") if a["promote"]]
    for r in records.values():
        if r.version in inc[-1:]:
            assert not r.masked                                       # the incumbent's record
    assert proposer.resets == 1
    after = proposer.seen[-1]
    assert masked.isdisjoint({m.id for m in after.memory}) and "m000" in {m.id for m in after.memory}


def test_max_dropouts_and_exhaustion_stop_the_loop(tmp_path):
    out = run(tmp_path / "s", tmp_path / "log", LoopConfig(iterations=50, stall=1, max_dropouts=2), resumed=False,
              order=("d4", "a1", "b2", "c3", "e5", "f6"))
    assert out.stop_reason == "2 dropouts in a row brought no improvement" and out.iterations == 4
    out2 = run(tmp_path / "t", tmp_path / "log2", LoopConfig(iterations=50, stall=50), resumed=False)
    assert out2.stop_reason == "the scripted has nothing left to try" and out2.iterations == 6
    first = json.loads((out2.session / "events.jsonl").read_text().splitlines()[0])
    assert first["kind"] == "config" and first["data"]["config"]["iterations"] == 50


def test_a_clear_loser_is_rejected_from_its_evaluation_times_without_a_comparison(tmp_path):
    out = run(tmp_path / "s", tmp_path / "log", LoopConfig(iterations=2, stall=10), resumed=False, order=("d4", "e5"))
    second = _events(out, "accept")[1]
    assert not second["promote"] and "slower by its evaluation times: 0.833x" in second["reason"]
    assert SessionFolder(out.session).get_decision("v002").comparisons == []


def test_weighing_follows_the_shape_weights():
    from aka.evaluate.evaluator import weigh
    from aka.spec.result import Comparison

    fast_heavy = [Comparison(10, 5, 2.0, 0.02, 5, True, "graph", shape="a"),
                  Comparison(10, 12.5, 0.8, 0.02, 5, False, "graph", shape="b")]
    d = weigh(fast_heavy, {"a": 0.9, "b": 0.1})
    assert d.promote and d.speedup > 1.8 and "slower beyond noise at b" in d.reason
    assert not weigh(fast_heavy, {"a": 0.1, "b": 0.9}).promote


def test_a_gain_beyond_noise_at_one_light_shape_and_no_loss_elsewhere_promotes():
    """The weighted gain of a dispatcher that moves one light shape to a faster kernel is within
    the weighted noise; faster by more than twice its own noise there and slower beyond noise
    nowhere, it is promoted. A loss beyond noise anywhere, a weighted slowdown, or no shape two
    noise widths up: not."""
    from aka.evaluate.evaluator import weigh
    from aka.spec.result import Comparison

    def cmp(shape, speedup, noise=0.01):
        return Comparison(10, 10 / speedup, speedup, noise, 5, speedup - 1.0 > noise, "events", shape=shape)

    weights = {"light": 0.05, "a": 0.5, "b": 0.45}
    d = weigh([cmp("light", 1.03), cmp("a", 0.995), cmp("b", 1.004)], weights)
    assert d.promote and d.speedup - 1.0 < d.noise and "its noise at light 1.030x" in d.reason
    assert not weigh([cmp("light", 1.03), cmp("a", 0.98), cmp("b", 1.004)], weights).promote   # a: slower beyond noise
    assert not weigh([cmp("light", 1.03), cmp("a", 0.992), cmp("b", 0.992)], weights).promote  # slower weighted
    assert not weigh([cmp("light", 1.009), cmp("a", 1.0), cmp("b", 1.004)], weights).promote   # nowhere beyond noise
    assert not weigh([cmp("light", 1.015), cmp("a", 1.0), cmp("b", 1.004)], weights).promote   # one width, not two
    # a candidate that widens its own noise does not hide a loss beyond 2 % at a heavy shape
    heavy = {"light": 0.1, "a": 0.9}
    assert not weigh([cmp("light", 1.5), cmp("a", 0.97, noise=0.10)], heavy).promote
    assert weigh([cmp("light", 1.5), cmp("a", 0.99, noise=0.10)], heavy).promote


def test_a_gpu_that_disappears_ends_the_run_resumably_with_exit_3(tmp_path):
    import pytest

    from aka.errors import EnvironmentMissing
    from aka.evaluate.harness import HarnessEvaluator

    harness = HarnessEvaluator.__new__(HarnessEvaluator)
    with pytest.raises(EnvironmentMissing) as err:
        harness.gpu_check(lambda: {"available": False, "reason": "NVML: GPU is lost"})
    assert err.value.exit_code == 3 and "--resume" in str(err.value)
    harness.gpu_check(lambda: {"available": True, "name": "NVIDIA H200"})      # a live GPU: the candidate's fault


def test_a_new_incumbent_is_profiled_and_the_summary_reaches_the_proposer(tmp_path):
    from aka.agent.deps import Deps
    from aka.agent.graph import build_graph, initial_state
    from aka.sessions.journal import Journal

    from .loop_kit import SPEC, TABLE, ScriptedEvaluator, script_from

    calls = []

    class FakeProfiler:
        def profile(self, spec, candidate, shape_id, compulsory_bytes, out_dir):
            calls.append((candidate.parent.name, shape_id))
            return f"memory-bound at {shape_id}: DRAM traffic 1.50x the compulsory bytes", {"kernels": []}

    folder = SessionFolder.create(tmp_path, "20260101-000000-rmsnorm", {"op": {"name": "rmsnorm"}})
    proposer = ScriptedProposer([cand(t) for t in ("a1", "d4")])
    deps = Deps(spec=SPEC, config=LoopConfig(iterations=2, stall=10), evaluator=ScriptedEvaluator(
        script_from(TABLE), interpreter=False), proposer=proposer, store=folder,
        hooks=Journal(folder.journal_path), profiler=FakeProfiler())
    build_graph(deps).invoke(initial_state("t"), {"recursion_limit": 100})
    assert [c[0] for c in calls] == ["v001"]            # v001 promoted -> profiled; d4 promoted last, loop ended
    assert "DRAM traffic 1.50x" in proposer.seen[1].profile_summary
    assert (folder.root / "candidates" / "v001" / "profile.txt").is_file()


def test_a_proposer_that_reads_no_profile_gets_the_best_profiled_once_at_the_end(tmp_path):
    from aka.agent.deps import Deps
    from aka.agent.graph import build_graph, initial_state
    from aka.sessions.journal import Journal

    from .loop_kit import SPEC, TABLE, ScriptedEvaluator, script_from

    calls = []

    class FakeProfiler:
        def profile(self, spec, candidate, shape_id, compulsory_bytes, out_dir):
            calls.append(candidate.parent.name)
            return "memory-bound", {"kernels": []}

    folder = SessionFolder.create(tmp_path, "20260101-000000-rmsnorm", {"op": {"name": "rmsnorm"}})
    proposer = ScriptedProposer([cand(t) for t in ("a1", "b2", "d4")])
    proposer.reads_profile = False                       # as the tuner
    deps = Deps(spec=SPEC, config=LoopConfig(iterations=3, stall=10), evaluator=ScriptedEvaluator(
        script_from(TABLE), interpreter=False), proposer=proposer, store=folder,
        hooks=Journal(folder.journal_path), profiler=FakeProfiler())
    build_graph(deps).invoke(initial_state("t"), {"recursion_limit": 100})
    out = SimpleNamespace(session=folder.root)
    best = [a["version"] for a in _events(out, "accept") if a["promote"]][-1]
    assert calls == [best]                               # promotions on the way were not profiled
    skipped = [p for p in _events(out, "profile") if "skipped" in p]
    assert skipped and all("deferred" in p["skipped"] for p in skipped)
    assert all(not s.profile_summary for s in proposer.seen)
    kinds = [e.kind for e in read_events(folder.journal_path).events]
    assert kinds[-2:] == ["profile", "stop"]
    assert (folder.root / "candidates" / best / "profile.txt").is_file()


def test_each_proposal_first_hands_the_proposers_upcoming_candidates_to_a_harness_that_warms(tmp_path):
    """Where the proposer lists what it may propose next and the evaluator can compile ahead, the
    loop passes the list on before every proposal (what the harness does with it is its own)."""
    from .loop_kit import LoggingEvaluator, SPEC, TABLE, script_from
    from aka.sessions.run import run_session

    class Upcoming(ScriptedProposer):
        def upcoming(self, ctx):
            return [cand(t) for t in ORDER[len(ctx.trials):]]

    class Warming(LoggingEvaluator):
        warmed = []

        def warm(self, spec, upcoming):
            self.warmed.append([c.name for c in upcoming()])
            return len(self.warmed[-1])

    evaluator = Warming(script_from(TABLE), tmp_path / "log")
    folder = SessionFolder.create(tmp_path, "s", {"op": {"name": "rmsnorm"}})
    run_session(folder, SPEC, LoopConfig(iterations=3, stall=10), evaluator, Upcoming([cand(t) for t in ORDER]),
                progress=False)
    assert evaluator.warmed[:3] == [ORDER, ORDER[1:], ORDER[2:]]


def test_an_exhausted_proposer_journals_why_it_left_kernels_out(tmp_path):
    proposer = ScriptedProposer([])
    proposer.skipped = ["linear_bf16/split_k.py: meant for sm80, sm90, gfx942, not None"]
    out = run(tmp_path / "s", tmp_path / "log", LoopConfig(iterations=3), resumed=False, proposer=proposer)
    (last,) = [p for p in _events(out, "propose") if p.get("exhausted")]
    assert last["skipped"] == proposer.skipped and out.iterations == 0


def test_a_batch_is_evaluated_together_and_only_its_fastest_is_compared(tmp_path):
    """--parallel 3 over a1 (10 µs), b2 (wrong), c3 (9.95), then d4 (5), e5 (6), f6 (4)."""
    from .loop_kit import TABLE, BatchEvaluator, script_from

    evaluator = BatchEvaluator(script_from(TABLE), tmp_path / "log")
    out = run(tmp_path / "s", tmp_path / "log", LoopConfig(iterations=6, stall=10, parallel=3), resumed=False,
              evaluator=evaluator)
    assert evaluator.batches == [["a1", "b2", "c3"], ["d4", "e5", "f6"]]
    accepts = {a["version"]: a for a in _events(out, "accept")}
    assert accepts["v001"]["promote"]                                 # the first correct kernel
    assert "within noise" in accepts["v003"]["reason"]                # its batch's fastest: compared
    for loser in ("v004", "v005"):                                    # f6 (v006) is faster by the evaluation
        assert not accepts[loser]["promote"] and "v006 of the same batch is faster" in accepts[loser]["reason"]
    assert accepts["v006"]["promote"] and out.best == "v006"
    compared = {(a, b) for a, b in evaluator.compares}
    assert compared == {(cand("a1").hash, cand("c3").hash), (cand("a1").hash, cand("f6").hash)}
    proposes = _events(out, "propose")
    assert [p["name"] for p in proposes] == ORDER and [bool(p.get("queued")) for p in proposes] == \
        [False, True, True, False, True, True]
    assert [b["versions"] for b in _events(out, "batch")] == [["v001", "v002", "v003"], ["v004", "v005", "v006"]]
    assert out.stop_reason == "budget: 6 candidates evaluated"
    from aka.replay.load import load
    from aka.replay.story import steps

    titles = [s.title for s in steps(load(out.session)) if s.kind == "batch"]   # the replay tells the batches
    assert titles == ["batch of 3 evaluated side by side: v001, v002, v003",
                      "batch of 3 evaluated side by side: v004, v005, v006"]


def test_a_batch_never_outruns_the_candidate_budget_and_a_stall_waits_for_its_end(tmp_path):
    from .loop_kit import TABLE, BatchEvaluator, script_from

    evaluator = BatchEvaluator(script_from(TABLE), tmp_path / "log")
    out = run(tmp_path / "s", tmp_path / "log", LoopConfig(iterations=4, stall=1, parallel=3), resumed=False,
              evaluator=evaluator)
    assert evaluator.batches == [["a1", "b2", "c3"]]                    # 3, then the one left of 4 alone
    assert len(evaluator.calls) == 4 and evaluator.calls[-1] == cand("d4").hash
    kinds = [e.kind for e in read_events(out.session / "events.jsonl").events]
    # b2 stalls the loop (stall=1), but the dropout waits until c3, the batch's last member, is judged
    assert kinds[:kinds.index("dropout")].count("evaluate") == 3
    assert out.stop_reason == "budget: 4 candidates evaluated"


def test_propose_batch_lists_earlier_members_as_pending_trials():
    from aka.agent.batch import propose_batch
    from aka.spec.memory import ProposalContext

    proposer = ScriptedProposer([cand(t) for t in ("a1", "b2", "c3")])
    got = propose_batch(proposer, ProposalContext(op={"name": "rmsnorm"}, device={}, iteration=0), 5)
    assert [p.candidate.name for p in got] == ["a1", "b2", "c3"]           # then the script ran out
    assert [t.status for t in proposer.seen[-1].trials] == ["pending", "pending", "pending"]
