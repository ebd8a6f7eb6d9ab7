"""Each known cheat is rejected for its own reason; honest kernels are accepted (CPU interpreter)."""

import pytest

from aka.evaluate.evaluator import EvalOptions
from aka.spec.result import EvalResult, EvalStatus

from .conftest import CANDIDATES

FAST = EvalOptions(time=False, timeout_s=60)

# candidate file -> (status, rule that must be among the reasons, shape where it fired or None)
CHEATS = {
    "cheat_torch_fallback.py": (EvalStatus.CHEAT, "torch-compute", None),
    "cheat_decoy_launch.py": (EvalStatus.CHEAT, "runtime-torch-compute", "cpu-a"),
    "cheat_borrowed_kernel.py": (EvalStatus.CHEAT, "import-not-allowed", None),  # ghost replay: test_borrowed_kernel.py
    "cheat_tensor_method_math.py": (EvalStatus.CHEAT, "tensor-method-math", None),
    "cheat_hard_coded_shapes.py": (EvalStatus.WRONG, "unwritten-output", "cpu-held"),
    "cheat_caching.py": (EvalStatus.CHEAT, "stale-output", "cpu-a"),
    "cheat_inplace_input.py": (EvalStatus.CHEAT, "input-modified", "cpu-a"),
    "cheat_stale_memory.py": (EvalStatus.WRONG, "unwritten-output", "cpu-a"),
    "cheat_wrong_dtype.py": (EvalStatus.WRONG, "wrong-dtype", "cpu-a"),
    "cheat_timer_patching.py": (EvalStatus.CHEAT, "module-patching", None),
    "cheat_background_thread.py": (EvalStatus.CHEAT, "concurrency", None),
    "cheat_introspection.py": (EvalStatus.CHEAT, "introspection", None),
    "cheat_side_stream.py": (EvalStatus.CHEAT, "stream", None),
    "cheat_torch_compile.py": (EvalStatus.CHEAT, "torch-compile", None),
    "cheat_matmul_operator.py": (EvalStatus.CHEAT, "matmul-operator", None),
    "cheat_lazy_subclass.py": (EvalStatus.CHEAT, "output-subclass", "cpu-a"),   # passes the static review
}


@pytest.mark.parametrize("name", sorted(CHEATS))
def test_cheat_is_rejected_for_its_own_reason(evaluator, fixture_op, name):
    status, rule, shape = CHEATS[name]
    result = evaluator.evaluate(fixture_op, CANDIDATES / name, FAST)
    assert result.status is status, [str(r) for r in result.rejections]
    assert not result.accepted
    assert result.rejections[0].rule == rule, [str(r) for r in result.rejections]
    first = result.rejections[0]
    assert first.file.endswith(name) and first.line, "a rejection names the file and the line"
    if shape is not None:
        assert first.shape == shape


def test_every_cheat_has_a_distinct_reason():
    """The adversarial set covers at least 12 different cheats with different first reasons."""
    reasons = {(rule, shape) for _, rule, shape in CHEATS.values()}
    assert len(CHEATS) >= 12 and len(reasons) >= 12


@pytest.mark.parametrize("name", ["honest_rmsnorm.py", "honest_kernel_in_class.py"])
def test_honest_kernel_is_accepted(evaluator, fixture_op, name):
    result = evaluator.evaluate(fixture_op, CANDIDATES / name, FAST)
    assert result.status is EvalStatus.ACCEPTED, [str(r) for r in result.rejections]
    assert [s.id for s in result.shapes] == ["cpu-a", "cpu-b", "cpu-held"]
    assert all(s.correct and s.trials >= 3 for s in result.shapes)
    assert result.shapes[-1].held_out
    assert result.dtype == "float32" and any("float32" in n for n in result.notes)


def test_crash_timeout_and_error_cost_one_candidate_only(evaluator, fixture_op):
    crash = evaluator.evaluate(fixture_op, CANDIDATES / "bad_out_of_bounds.py", FAST)
    assert crash.status in (EvalStatus.CRASH, EvalStatus.ERROR, EvalStatus.WRONG)
    assert not crash.accepted
    hang = evaluator.evaluate(fixture_op, CANDIDATES / "bad_hang.py", EvalOptions(time=False, timeout_s=5))
    assert hang.status is EvalStatus.TIMEOUT and hang.rejections[0].rule == "timeout"
    raises = evaluator.evaluate(fixture_op, CANDIDATES / "bad_raises.py", FAST)
    assert raises.status is EvalStatus.ERROR
    assert "kernel configuration not supported" in raises.rejections[0].message
    raise_line = next(i for i, l in enumerate((CANDIDATES / "bad_raises.py").read_text().splitlines(), 1)
                      if "raise RuntimeError" in l)
    assert raises.rejections[0].line == raise_line
    after = evaluator.evaluate(fixture_op, CANDIDATES / "honest_rmsnorm.py", FAST)
    assert after.accepted


def test_memory_limit_stops_a_hog_without_harm(evaluator, fixture_op):
    hog = evaluator.evaluate(fixture_op, CANDIDATES / "bad_memory_hog.py",
                             EvalOptions(time=False, timeout_s=60, memory_limit_gb=8))
    assert hog.status is EvalStatus.ERROR and "allocate" in hog.rejections[0].message.lower()
    assert evaluator.evaluate(fixture_op, CANDIDATES / "honest_rmsnorm.py", FAST).accepted


def test_patching_in_one_candidate_does_not_leak_into_the_next(evaluator, fixture_op, tmp_path):
    """A fresh process per candidate: a module patch made at import dies with its child."""
    leaky = tmp_path / "leaky.py"
    leaky.write_text((CANDIDATES / "honest_rmsnorm.py").read_text() + "\ntorch.Tensor.__len__ = None\n")
    first = evaluator.evaluate(fixture_op, leaky, FAST)
    assert first.status is EvalStatus.CHEAT and first.rejections[0].rule == "module-patching"
    assert evaluator.evaluate(fixture_op, CANDIDATES / "honest_rmsnorm.py", FAST).accepted


def test_kernelbench_problem_file_evaluates_directly(evaluator):
    from aka.spec.load import load_op

    from .conftest import HERE

    spec = load_op(HERE / "fixtures" / "kernelbench" / "19_ReLU.py")
    result = evaluator.evaluate(spec, HERE / "fixtures" / "kernelbench" / "relu_kernel.py", FAST)
    assert result.accepted, [str(r) for r in result.rejections]
    assert [s.id for s in result.shapes] == ["default"] and result.shapes[0].correct


def test_interleaved_comparison_runs_abba_rounds(evaluator, fixture_op):
    decision = evaluator.compare(fixture_op, CANDIDATES / "honest_rmsnorm.py",
                                 CANDIDATES / "honest_kernel_in_class.py", rounds=2)
    comps = decision.comparisons
    assert decision.failure is None and decision.speedup is not None
    assert [c.shape for c in comps] == [s.id for s in fixture_op.cpu_shapes]  # one per visible cpu shape
    for c in comps:
        assert c.rounds == 2 and c.method == "cpu-interpreter" and c.noise >= 0.01
        # the speedup is the median of per-round ratios, the times are each side's median: on a
        # loaded CPU the two can part by about the measured noise (this pair runs at about 1.0x)
        assert c.speedup == pytest.approx(c.incumbent_us / c.candidate_us, rel=0.5 + 2 * c.noise)
    ph = decision.phases_s                      # where the comparison's time went, per side
    assert {"incumbent:bench", "candidate:bench", "incumbent:judge-spawn", "candidate:batch"} <= set(ph)
    assert 0 < ph["candidate:bench"] < ph["judge-total"]


def test_a_clear_comparison_stops_after_the_rounds_that_settle_it(evaluator, fixture_op, tmp_path):
    """An incumbent that launches its kernel thirty times per call against one launch: settled after
    SETTLE_ROUNDS of the five asked for (a thirtyfold gap outlasts the interpreter's noise on a
    loaded machine)."""
    from aka.evaluate.timing import SETTLE_ROUNDS

    slow = tmp_path / "slow.py"
    slow.write_text((CANDIDATES / "honest_rmsnorm.py").read_text()
                    + "\n\nclass ModelNew(ModelNew):\n    def forward(self, x):\n"
                      "        for _ in range(29):\n            super().forward(x)\n"
                      "        return super().forward(x)\n")
    decision = evaluator.compare(fixture_op, slow, CANDIDATES / "honest_rmsnorm.py", rounds=5)
    assert decision.failure is None and decision.promote and decision.speedup > 5
    assert [c.rounds for c in decision.comparisons] == [SETTLE_ROUNDS] * len(decision.comparisons)


def test_a_candidate_that_raises_while_timed_is_a_failed_decision(evaluator, fixture_op, tmp_path):
    bad = tmp_path / "raises.py"
    bad.write_text((CANDIDATES / "honest_rmsnorm.py").read_text()
                   + "\n\nclass ModelNew(ModelNew):\n    def forward(self, x):\n"
                     "        raise RuntimeError('boom while timed')\n")
    decision = evaluator.compare(fixture_op, CANDIDATES / "honest_rmsnorm.py", bad, rounds=2)
    assert not decision.promote and decision.failure is not None
    assert decision.failure.rule == "runtime-error" and "boom while timed" in decision.failure.message


def test_baselines_are_timed_per_shape_and_method(evaluator, fixture_op):
    ids = [s.id for s in fixture_op.cpu_shapes]
    got = evaluator.time_baselines(fixture_op, {ids[0]: None})
    assert list(got) == [ids[0]]
    assert got[ids[0]]["eager"].method == "cpu-interpreter" and got[ids[0]]["eager"].median_us > 0
    assert "torch.compile" not in got[ids[0]]          # never on the interpreter


def test_an_evaluation_says_where_its_time_went(evaluator, fixture_op):
    result = evaluator.evaluate(fixture_op, CANDIDATES / "honest_rmsnorm.py", EvalOptions(timeout_s=60))
    assert result.status is EvalStatus.ACCEPTED
    phases = dict(result.phases_s)
    total = phases.pop("judge-total")
    for phase in ("judge-spawn", "load", "build", "call-first", "call", "judge-reference", "judge-handover",
                  "judge-compare", "time", "batch"):
        assert phases.get(phase, 0) > 0, (phase, phases)
    assert sum(phases.values()) <= total * 1.01 + 0.01 and total <= result.wall_s
    assert EvalResult.from_dict(result.to_dict()).phases_s == result.phases_s


def test_an_output_that_changes_after_the_first_call_is_caught(evaluator, fixture_op):
    """The second call's output is handed over unless it is bit for bit the first's: a kernel that
    drifts, returning the same buffer each time, is still compared in full."""
    result = evaluator.evaluate(fixture_op, CANDIDATES / "bad_drifting_output.py", FAST)
    assert result.status is EvalStatus.WRONG, [str(r) for r in result.rejections]
    first = result.rejections[0]
    assert first.rule == "wrong-output" and first.shape == "cpu-a" and "second candidate call" in first.message



def test_an_interleaved_comparison_runs_a_bba_abba_and_warms_each_side_up_once():
    from aka.evaluate.judge import REPEAT_WARMUP_MS, abba

    order = list(abba(3, lambda: False))
    assert [s[0] for s in order] == ["incumbent", "candidate", "candidate", "incumbent",
                                     "incumbent", "candidate", "candidate", "incumbent",
                                     "incumbent", "candidate", "candidate", "incumbent"]
    kws = [kw for _, kw in order]
    assert kws[:2] == [{}, {}]                  # the incumbent's and the candidate's first timings
    assert all(kw == {"warmup_ms": REPEAT_WARMUP_MS} for kw in kws[2:])


def test_an_interleaved_comparison_stops_once_settled():
    from aka.evaluate.judge import abba

    rounds_done = []
    order = list(abba(5, lambda: rounds_done.append(1) or len(rounds_done) == 2))
    assert len(rounds_done) == 2 and len(order) == 1 + 3 + 4
