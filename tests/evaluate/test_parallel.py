"""Evaluations side by side on one device (`aka optimize --parallel`): the GPU lock that keeps every
timing alone on the device, and `HarnessEvaluator.evaluate_many` over real side pools on the
interpreter."""

import os
import threading
import time

import pytest

from aka.evaluate.evaluator import EvalOptions, Evaluator
from aka.evaluate.gpu_lock import GpuLock
from aka.evaluate.harness import HarnessEvaluator
from aka.evaluate.pool import WorkerPool
from aka.spec.candidate import Candidate
from aka.spec.result import EvalStatus

from .conftest import CANDIDATES


def _hold(lock: GpuLock, mode: str, seconds: float, log: list, name: str) -> None:
    with getattr(lock, mode)():
        log.append((name, "in", time.monotonic()))
        time.sleep(seconds)
        log.append((name, "out", time.monotonic()))


def _overlap(log: list, a: str, b: str) -> bool:
    span = {n: [t for m, _, t in log if m == n] for n in (a, b)}
    return span[a][0] < span[b][1] and span[b][0] < span[a][1]


@pytest.mark.parametrize("first,second,overlap", [("exclusive", "shared", False), ("shared", "exclusive", False),
                                                  ("exclusive", "exclusive", False), ("shared", "shared", True)])
def test_a_timing_never_runs_beside_other_device_work_and_checks_run_beside_each_other(tmp_path, first, second,
                                                                                         overlap):
    path, log = str(tmp_path / "gpu.lock"), []
    one, two = GpuLock(path), GpuLock(path)        # two judges: two open file descriptions
    t = threading.Thread(target=_hold, args=(one, first, 0.3, log, "one"))
    t.start()
    time.sleep(0.05)
    _hold(two, second, 0.05, log, "two")
    t.join()
    assert _overlap(log, "one", "two") is overlap
    if not overlap:
        assert two.waited_s > 0.1                 # it waited for the first to let go


def test_without_a_lock_file_nothing_waits_and_a_timing_cannot_nest_in_a_shared_step(tmp_path):
    free = GpuLock("")
    with free.exclusive(), free.shared():
        pass
    assert free.waited_s == 0.0 and free.fd is None
    lock = GpuLock(str(tmp_path / "gpu.lock"))
    with pytest.raises(RuntimeError, match="nested"):
        with lock.shared(), lock.exclusive():
            pass
    with lock.exclusive(), lock.shared():         # a shared step inside a timing needs nothing more
        pass
    lock.close()


def _candidate(name: str) -> tuple[Candidate, object]:
    path = CANDIDATES / name
    return Candidate(path.read_text(), {}, "user", name), path


def test_evaluate_many_runs_side_pools_sharing_a_lock_and_returns_every_verdict(fixture_op):
    items = [_candidate("honest_rmsnorm.py"), _candidate("bad_raises.py"), _candidate("honest_kernel_in_class.py")]
    with WorkerPool("cpu") as pool:
        harness = HarnessEvaluator(Evaluator(pool), EvalOptions(trials=1, baselines=()), parallel=2)
        try:
            got = dict(harness.evaluate_many(fixture_op, items))
            assert len(harness.side_judges) == 2 and all(j.pool is not pool for j in harness.side_judges)
            lock_dir = harness.lock_dir
            assert lock_dir and os.path.exists(os.path.join(lock_dir, "gpu.lock"))
            # The side servers outlive the batch (a server dies with the thread that started it),
            # and the next batch runs on the same ones.
            servers = [j.pool.proc for j in harness.side_judges]
            time.sleep(0.5)
            assert all(p is not None and p.poll() is None for p in servers)
            again = dict(harness.evaluate_many(fixture_op, [(*items[0], ("cpu-b",)), items[1]]))
            assert [j.pool.proc for j in harness.side_judges] == servers
        finally:
            harness.close()
    assert again[0].status == EvalStatus.ACCEPTED
    assert again[0].focus == ["cpu-b"] and [s.id for s in again[0].shapes] == ["cpu-b"]   # a focused member
    assert again[1].focus == [] and any(s.held_out for s in got[0].shapes)
    assert sorted(got) == [0, 1, 2]
    for i in (0, 2):
        assert got[i].status == EvalStatus.ACCEPTED, (i, [str(r) for r in got[i].rejections], got[i].notes)
    assert got[1].status != EvalStatus.ACCEPTED and got[1].rejections
    assert all("judge-gpu-wait" in got[i].phases_s for i in (0, 2))   # they ran under the lock
    assert harness.side_judges == [] and not os.path.exists(lock_dir)


def test_a_waiting_timing_goes_before_checks_that_ask_after_it(tmp_path):
    """One judge checks (shared); a timing asks for the lock, then another check asks: the timing
    runs before the later check, which would otherwise join the first one and starve it."""
    path, log = str(tmp_path / "gpu.lock"), []
    first, timing, later = GpuLock(path), GpuLock(path), GpuLock(path)
    threads = [threading.Thread(target=_hold, args=(first, "shared", 0.3, log, "first")),
               threading.Thread(target=_hold, args=(timing, "exclusive", 0.1, log, "timing")),
               threading.Thread(target=_hold, args=(later, "shared", 0.1, log, "later"))]
    for t in threads:
        t.start()
        time.sleep(0.05)
    for t in threads:
        t.join()
    entered = [n for n, what, _ in log if what == "in"]
    assert entered == ["first", "timing", "later"]
    assert not _overlap(log, "timing", "later") and not _overlap(log, "first", "timing")


def test_a_focused_evaluation_runs_its_shapes_alone_and_says_so(fixture_op):
    """`Proposal.focus` through the harness: only the named visible shape is checked and timed, no
    held-out shape runs, and the result records the focus (so the loop never promotes it)."""
    cand, path = _candidate("honest_rmsnorm.py")
    with WorkerPool("cpu") as pool:
        harness = HarnessEvaluator(Evaluator(pool), EvalOptions(trials=1, baselines=()))
        try:
            res = harness.evaluate(fixture_op, cand, path, focus=("cpu-b",))
        finally:
            harness.close()
    assert res.status == EvalStatus.ACCEPTED, [str(r) for r in res.rejections]
    assert res.focus == ["cpu-b"] and [s.id for s in res.shapes] == ["cpu-b"]
    assert res.shapes[0].correct and res.shapes[0].time is not None
    assert res.proposer_view()["focus"] == ["cpu-b"]
