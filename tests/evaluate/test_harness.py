"""HarnessEvaluator's compile-ahead seam: on a GPU the shipped candidates go to one warmer rooted in
the pool's shipped-kernel cache, with the shapes and dtype the judge will run; on the interpreter,
for other candidates, or with AKA_WARM=0, nothing starts. And the device: known before the first
candidate, so the tuner's first proposal already sees the kernels written for its architecture."""

import types
from pathlib import Path

import pytest

from aka.evaluate import harness as harness_mod
from aka.evaluate.evaluator import EvalOptions
from aka.evaluate.harness import HarnessEvaluator
from aka.spec.candidate import Candidate
from aka.spec.load import load_op

ROOT = Path(__file__).parents[2]
SPEC = load_op(ROOT / "suites" / "llm-inference" / "rmsnorm")


class FakePool:
    def __init__(self, root):
        self._root = root

    def root(self):
        return self._root


class FakeJudge:
    def __init__(self, root, interpreter=False):
        self.pool, self.interpreter = FakePool(root), interpreter

    def plan(self, spec, options):
        visible, held = spec.run_shapes(self.interpreter)
        return spec.dtype, [{"params": s.params} for s in list(visible) + list(held)], []


class RecordingWarmer:
    made = []

    def __init__(self, shipped):
        self.shipped, self.calls, self.closed = shipped, [], False
        RecordingWarmer.made.append(self)

    def submit(self, spec, dtype, shapes, cands):
        self.calls.append((spec["name"], dtype, len(shapes), [c.name for c in cands]))
        return len(cands)

    def close(self):
        self.closed = True


def _cand(origin, name):
    return Candidate("class ModelNew: pass\n", {}, origin, name)


IDENTIFY = harness_mod.identify_device
H200 = {"kind": "cuda", "name": "NVIDIA H200", "vendor": "nvidia", "arch": "sm90"}


@pytest.fixture(autouse=True)
def gpu_known(monkeypatch):
    monkeypatch.setattr(harness_mod, "identify_device", lambda: dict(H200))


@pytest.fixture
def recording(monkeypatch):
    RecordingWarmer.made = []
    monkeypatch.setattr(harness_mod, "KernelWarmer", RecordingWarmer)
    monkeypatch.delenv("AKA_WARM", raising=False)
    return RecordingWarmer.made


def test_shipped_candidates_are_warmed_with_the_judges_shapes(tmp_path, recording):
    h = HarnessEvaluator(FakeJudge(tmp_path), EvalOptions())
    assert h.warm(SPEC, lambda: [_cand("tuner", "t1"), _cand("llm", "l1"), _cand("dispatcher", "d1")]) == 2
    assert h.warm(SPEC, lambda: [_cand("tuner", "t2")]) == 1
    (w,) = recording
    assert w.shipped == tmp_path / "shipped-kernels"
    n = len(SPEC.shapes) + len(SPEC.held_out_shapes)
    assert w.calls == [("rmsnorm", SPEC.dtype, n, ["t1", "d1"]), ("rmsnorm", SPEC.dtype, n, ["t2"])]
    h.close()
    assert w.closed and h.warmer is None


@pytest.mark.parametrize("case", ["interpreter", "no-shipped", "switched-off"])
def test_nothing_is_warmed_where_it_cannot_help(tmp_path, recording, monkeypatch, case):
    if case == "switched-off":
        monkeypatch.setenv("AKA_WARM", "0")
    h = HarnessEvaluator(FakeJudge(tmp_path, interpreter=case == "interpreter"), EvalOptions())
    cands = [_cand("user", "u1")] if case == "no-shipped" else [_cand("tuner", "t1")]
    listed = []
    assert h.warm(SPEC, lambda: listed.append(1) or cands) == 0 and not recording
    assert listed == ([1] if case == "no-shipped" else [])     # nothing is even listed where nothing warms
    h.close()


def test_the_gpu_is_identified_by_nvml_before_any_candidate():
    nvml = {"available": True, "name": "NVIDIA H200", "compute_capability": "9.0"}
    assert IDENTIFY(lambda: nvml) == H200


def test_without_nvml_a_torch_probe_names_the_gpu_and_a_failed_probe_keeps_only_the_kind(monkeypatch):
    import json
    import subprocess

    gone = lambda: {"available": False, "reason": "NVML could not start"}       # noqa: E731
    mi300 = {"kind": "cuda", "name": "AMD Instinct MI300X", "capability": "9.4", "arch_name": "gfx942:sramecc+:xnack-"}
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 0, json.dumps(mi300) + "\n", ""))
    assert IDENTIFY(gone) == {"kind": "cuda", "name": "AMD Instinct MI300X", "vendor": "amd",
                                                 "arch": "gfx942"}
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 1, "", "no GPU"))
    assert IDENTIFY(gone) == {"kind": "cuda", "name": "", "vendor": "", "arch": ""}


def test_the_tuners_first_proposal_on_a_gpu_sees_kernels_written_for_its_arch(tmp_path):
    """The H200 batch of 2026-12-04 ended linear_bf16 and six other operators with 'the tuner has
    nothing left to try' before any candidate: the harness knew only {'kind': 'cuda'} until its
    first evaluation, so every kernel naming sm80/sm90 was left out of the catalog for good."""
    from aka.propose.tuner import Tuner
    from aka.spec.memory import ProposalContext

    h = HarnessEvaluator(FakeJudge(tmp_path), EvalOptions())
    spec = load_op(ROOT / "suites" / "llm-inference" / "linear_bf16")
    tuner = Tuner([ROOT / "reference_kernels"])
    ctx = ProposalContext(op=spec.public_view(), device=h.device, iteration=0, trials=[])
    assert {f.key for f in tuner.families(ctx)} >= {"linear_bf16/split_k.py", "linear_bf16/tiled_grouped.py"}
    assert tuner.propose(ctx) is not None
    unknown = Tuner([ROOT / "reference_kernels"])
    assert unknown.families(ProposalContext(op=spec.public_view(), device={"kind": "cuda"}, iteration=0,
                                            trials=[])) == []


def test_the_sessions_last_evaluation_stops_the_compile_ahead_first(tmp_path, recording):
    """confirm() times the best kernel and its baselines interleaved: the warming processes are
    stopped before it, not left compiling on the host's cores."""
    order = []

    class Judge(FakeJudge):
        def evaluate(self, spec, path, options, shipped=False):
            order.append(("evaluate", [w.closed for w in recording], options.interleave))
            return types.SimpleNamespace(status=None)

    h = HarnessEvaluator(Judge(tmp_path), EvalOptions())
    h.warm(SPEC, lambda: [_cand("tuner", "t1")])
    h.confirm(SPEC, _cand("tuner", "t1"), tmp_path / "c.py")
    assert order == [("evaluate", [True], True)] and h.warmer is None
    h.close()


class OptionsJudge(FakeJudge):
    """Records the options each evaluation was judged with (and judges nothing)."""

    def __init__(self, root):
        super().__init__(root)
        self.seen = []

    def evaluate(self, spec, path, options, shipped=False):
        self.seen.append(options)
        raise RuntimeError("recorded")


def test_a_focused_trial_gets_one_correctness_trial_and_a_full_evaluation_keeps_them_all(tmp_path):
    judge = OptionsJudge(tmp_path)
    h = HarnessEvaluator(judge, EvalOptions(trials=3))
    for focus in (("llama3-8b-decode-1",), ()):
        with pytest.raises(RuntimeError, match="recorded"):
            h.evaluate(SPEC, _cand("tuner", "t1"), tmp_path / "c.py", focus)
    focused, full = judge.seen
    assert (focused.trials, focused.shapes, focused.held_out) == (1, ("llama3-8b-decode-1",), False)
    assert (full.trials, full.shapes, full.held_out) == (3, (), True)
    h.close()
