"""Interleaved timing of a candidate and its baselines (EvalOptions.interleave): both sides timed
twice per shape in mirrored order, each reported as the mean of its two medians."""

import pytest

from aka.evaluate.evaluator import EvalOptions
from aka.evaluate.judge import mirrored

from .conftest import CANDIDATES


def test_mirrored_takes_the_mean_the_wider_spread_and_names_both_medians():
    a = {"median_us": 100.0, "iqr_us": 2.0, "cv": 0.01, "reps": 30, "method": "events", "min_us": 98.0, "note": "x"}
    b = {"median_us": 110.0, "iqr_us": 5.0, "cv": 0.03, "reps": 30, "method": "events", "min_us": 105.0}
    m = mirrored(a, b)
    assert m["median_us"] == pytest.approx(105.0) and m["iqr_us"] == 5.0 and m["cv"] == 0.03
    assert m["reps"] == 60 and m["min_us"] == 98.0 and m["method"] == "events"
    assert m["note"] == "x; interleaved: 100 then 110 µs"


def test_an_interleaved_evaluation_times_both_sides_twice_at_every_shape(evaluator, fixture_op):
    shape = fixture_op.run_shapes(True)[0][0].id
    res = evaluator.evaluate(fixture_op, CANDIDATES / "honest_rmsnorm.py",
                             EvalOptions(shapes=(shape,), trials=1, baselines=("eager",), interleave=True))
    assert res.accepted, res.rejections
    [timed] = [s for s in res.shapes if s.time]
    assert "interleaved:" in timed.time.note and timed.time.reps == 2 * 3      # bench_cpu: 3 reps a timing
    assert set(timed.baselines) == {"eager"} and "interleaved:" in timed.baselines["eager"].note
    plain = evaluator.evaluate(fixture_op, CANDIDATES / "honest_rmsnorm.py",
                               EvalOptions(shapes=(shape,), trials=1, baselines=("eager",)))
    [once] = [s for s in plain.shapes if s.time]
    assert "interleaved" not in (once.time.note or "") and once.time.reps == 3


def test_the_harness_confirms_a_best_kernel_with_its_own_interleaved_baselines(evaluator, fixture_op):
    from aka.evaluate.harness import HarnessEvaluator
    from aka.spec.candidate import Candidate

    path = CANDIDATES / "honest_rmsnorm.py"
    cand = Candidate(source=path.read_text(), origin="user", name="honest")
    harness = HarnessEvaluator(evaluator, EvalOptions(trials=1, baselines=()))
    searched = harness.evaluate(fixture_op, cand, path)
    confirmed = harness.confirm(fixture_op, cand, path)
    assert searched.accepted and confirmed.accepted
    timed = [s for s in confirmed.shapes if s.time]
    assert timed and all("interleaved:" in s.time.note and s.baselines for s in timed)
    assert all("interleaved" not in (s.time.note or "") for s in searched.shapes if s.time)


def test_an_interleaved_second_timing_forged_on_its_own_is_rejected(evaluator, fixture_op, tmp_path):
    """Honest when first timed, a hundredfold fast when timed again: their mean alone would pass
    the judge's clock (half the true time); each claim is checked on its own."""
    from aka.spec.result import EvalStatus

    src = (CANDIDATES / "honest_rmsnorm.py").read_text()
    clock = '''import sys, time
_real = time.perf_counter


def _clock():
    f = sys._getframe(1)
    while f is not None:
        if f.f_code.co_name == "bench" and f.f_code.co_filename.endswith("runner.py"):
            return _real() / 100.0
        f = f.f_back
    return _real()


time.perf_counter = _clock
'''
    cand = tmp_path / "second_forged.py"
    cand.write_text(clock + src)
    shape = fixture_op.run_shapes(True)[0][0].id
    opts = EvalOptions(shapes=(shape,), trials=1, baselines=("eager",), interleave=True, review=False)
    result = evaluator.evaluate(fixture_op, cand, opts)
    assert result.status is EvalStatus.CHEAT and result.rejections[0].rule == "forged-timing", \
        [str(r) for r in result.rejections]
    plain = evaluator.evaluate(fixture_op, cand, EvalOptions(shapes=(shape,), trials=1, baselines=("eager",),
                                                             review=False))
    assert plain.accepted                                  # never timed by `bench`: nothing forged


def test_three_readings_keep_their_median_and_name_all_three():
    """A side whose two GPU readings split by more than SPLIT_READINGS gets a third: every side's
    figure is then the median of its three, not a mean that one disturbed reading drags."""
    from aka.evaluate.judge import SPLIT_READINGS, combined, split_readings

    def t(us, **kw):
        return {"median_us": us, "iqr_us": 1.0, "cv": 0.01, "reps": 30, "method": "events", "min_us": us - 1, **kw}
    assert not split_readings([t(36.5), t(36.5 * SPLIT_READINGS)]) and split_readings([t(36.5), t(82.5)])
    got = combined([t(36.53, note="flush"), t(82.5, cv=0.2), t(37.0)])
    assert got["median_us"] == 37.0 and got["reps"] == 90 and got["cv"] == 0.2 and got["min_us"] == 35.53
    assert got["note"] == "flush; interleaved: 36.53 then 82.5 then 37 µs, the median kept"
    assert combined([t(100.0), t(110.0)])["median_us"] == pytest.approx(105.0)      # two: the mean, as before
