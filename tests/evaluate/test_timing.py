"""Timing statistics and the interleaved-comparison decision (pure functions)."""

import pytest

import random
import statistics

from aka.evaluate.timing import SETTLE_ROUNDS, bench_cpu, clock_tick, decide, settled, stats


def test_stats_median_iqr_cv():
    t = stats([10.0, 11.0, 9.0, 10.0, 30.0], "events")
    assert t.median_us == 10.0 and t.min_us == 9.0 and t.reps == 5 and t.method == "events"
    assert t.iqr_us == pytest.approx(1.0) and t.cv > 0.4


def _on_a_grid(span_us: float, tick_us: float, n: int, seed: int, jitter_us: float = 0.0) -> list[float]:
    """What a clock stepping every `tick_us` reads for spans of `span_us` (plus Gaussian jitter)
    that start at random phases of its tick: the difference of the truncated end and start."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        start = rng.uniform(0.0, 1000.0)
        end = start + span_us + rng.gauss(0.0, jitter_us)
        out.append((int(end / tick_us) - int(start / tick_us)) * tick_us)
    return out


def test_samples_on_a_clocks_grid_get_the_median_within_the_tick():
    """Spans of 1.60 and 1.70 µs on a 0.25 µs clock: the plain median reads 1.50 and 1.75 (a whole
    tick, 17 % apart); the grouped median reads each within 0.05 µs of its span."""
    for span in (1.60, 1.70, 2.05):
        xs = [x + 0.6 for x in _on_a_grid(span, 0.25, 400, seed=int(span * 100))]
        t = stats(xs, "graph")
        assert t.tick_us == pytest.approx(0.25)
        assert t.median_us == pytest.approx(span + 0.6, abs=0.05)
    a, b = (stats(_on_a_grid(s, 0.25, 400, seed=7), "graph") for s in (1.60, 1.70))
    assert b.median_us / a.median_us == pytest.approx(1.70 / 1.60, abs=0.03)


def test_float_noise_on_the_grid_does_not_split_a_tick():
    """Samples converted through other units differ in their last bits: still one tick each."""
    xs = [x + 0.5984 + (i % 3) * 1e-12 for i, x in enumerate(_on_a_grid(1.6, 0.25, 400, seed=11))]
    assert stats(xs, "graph").median_us == pytest.approx(2.1984, abs=0.05)


def test_jittered_spans_on_a_grid_keep_their_median():
    xs = _on_a_grid(3.3, 0.25, 300, seed=3, jitter_us=0.2)
    t = stats(xs, "graph")
    assert t.tick_us == pytest.approx(0.25) and t.median_us == pytest.approx(3.3, abs=0.06)


def test_samples_off_any_grid_keep_the_plain_median():
    rng = random.Random(1)
    xs = [10.0 + rng.gauss(0.0, 0.3) for _ in range(100)]
    t = stats(xs, "events")
    assert clock_tick(xs) == 0.0 and t.tick_us == 0.0
    assert t.median_us == sorted(xs)[49] / 2 + sorted(xs)[50] / 2


@pytest.mark.parametrize("xs", [
    [1.5, 1.75] * 3,                                  # too few samples to call it a grid
    [1.5 + 0.25 * (i % 8) for i in range(12)],        # more than half the values distinct
    [1.0, 1.3, 1.0, 1.3, 1.5, 1.5, 1.0, 1.3, 1.5, 1.0],   # steps 0.3 and 0.2: no common tick
    [10.0, 12.0] * 10,                                # a 2 µs step is no clock's tick
])
def test_what_is_not_called_a_grid(xs):
    assert clock_tick(xs) == 0.0
    assert stats(xs, "graph").median_us == pytest.approx(statistics.median(xs))


def test_the_cuda_event_grid_moves_an_events_median_by_less_than_its_tick():
    xs = _on_a_grid(33.01, 0.032, 200, seed=5, jitter_us=0.3)
    t = stats(xs, "events")
    assert t.tick_us == pytest.approx(0.032)
    assert abs(t.median_us - statistics.median(xs)) < 0.032


def test_decide_accepts_a_clear_win():
    inc = [100.0, 101.0] * 5
    cand = [80.0, 80.5] * 5
    c = decide(inc, cand, "events")
    assert c.significant and c.speedup == pytest.approx(201 / 160.5) and c.rounds == 5


def test_decide_rejects_a_gain_inside_the_noise():
    inc = [100.0, 110.0, 95.0, 108.0, 101.0, 99.0]
    cand = [98.0, 107.0, 97.0, 104.0, 96.0, 103.0]
    c = decide(inc, cand, "events")
    assert not c.significant and c.noise > abs(c.speedup - 1)


def test_decide_rejects_a_slower_candidate_and_bad_input():
    assert not decide([50.0, 50.0], [60.0, 60.0], "events").significant
    with pytest.raises(ValueError):
        decide([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], "events")


def test_a_comparison_settles_early_only_when_clear_either_way():
    clear_win, clear_loss = [100.0, 101.0] * SETTLE_ROUNDS, [150.0, 151.0] * SETTLE_ROUNDS
    cand = [80.0, 80.5] * SETTLE_ROUNDS
    assert settled(clear_win, cand) and settled(cand, clear_loss)
    assert not settled(clear_win[:-2], cand[:-2])                  # too few rounds to know
    close = [100.0, 101.0] * SETTLE_ROUNDS
    assert not settled(close, [97.0, 98.5] * SETTLE_ROUNDS)          # 3 % gain, 1 % noise: go on
    noisy = [100.0, 130.0, 95.0, 140.0, 100.0, 135.0]
    assert not settled(noisy, [80.0, 81.0] * SETTLE_ROUNDS)          # 25 % gain in 20 % noise
    assert settled([3000.0, 3100.0, 2500.0, 2600.0, 3200.0, 3300.0], [100.0] * 6)   # 25-33x: the spread is relative


def test_bench_cpu_labels_interpreter_time():
    t = bench_cpu([lambda: sum(range(1000))], reps=3)
    assert t.method == "cpu-interpreter" and t.reps == 3 and t.median_us > 0



def test_call_spans_cut_at_flushes_and_include_gaps_between_a_calls_kernels():
    from aka.evaluate.timing import FLUSH, call_spans

    acts = [
        (FLUSH, 0.0, 60.0), ("k1", 61.0, 63.0), ("k2", 64.0, 66.5),   # one call: two kernels
        (FLUSH, 67.0, 127.0), ("k1", 128.0, 130.0),
        (FLUSH, 131.0, 190.0),
    ]
    assert call_spans(acts) == [5.5, 2.0]
    assert call_spans(list(reversed(acts))) == [5.5, 2.0]


@pytest.mark.gpu
@pytest.mark.skipif(not (__import__("torch").cuda.is_available()), reason="needs a CUDA device")
def test_a_forced_method_is_the_one_used_on_the_gpu():
    import torch

    from aka.evaluate.timing import GpuTimer

    x = torch.randn(1024, device="cuda")
    many_small = [lambda: ((x * 2 + 1).relu() - 3).abs().sum()]  # several launches, each tiny
    timer = GpuTimer(reps=20)
    assert timer.bench(many_small, method="graph").method == "graph"
    assert timer.bench(many_small, method="events").method == "events"
    with pytest.raises(ValueError, match="timing method"):
        timer.bench(many_small, method="cupti")


@pytest.mark.gpu
@pytest.mark.skipif(not (__import__("torch").cuda.is_available()), reason="needs a CUDA device")
def test_a_failed_capture_leaves_random_draws_working():
    """A baseline that syncs (boolean-mask indexing) cannot be captured; the fallback to events
    must not leave PyTorch's CUDA generator mid-capture, or the next operator's inputs fail."""
    import torch

    from aka.evaluate.timing import GpuTimer

    x = torch.randn(4096, device="cuda")
    syncs = [lambda: x[x > 0].sum()]                     # nonzero: a host sync under capture
    timing = GpuTimer(reps=10).bench(syncs, method="graph")
    assert timing.method == "events" and "graph capture failed" in timing.note
    torch.manual_seed(0)
    a = torch.randn(8, device="cuda")
    torch.manual_seed(0)
    assert torch.equal(a, torch.randn(8, device="cuda"))


def test_flush_covers_every_cache_level():
    from aka.evaluate.timing import L2_FLUSH_BYTES, flush_bytes

    mib = 2**20
    assert flush_bytes("NVIDIA H200", 50 * mib) == L2_FLUSH_BYTES == 256 * mib
    assert flush_bytes("NVIDIA B200", 126 * mib) == 504 * mib
    # MI300X reports a 4 MB L2 per die; its 256 MB Infinity Cache comes from the device table
    assert flush_bytes("AMD Instinct MI300X", 4 * mib) == 1024 * mib
    assert flush_bytes("Some Future GPU", 0) == L2_FLUSH_BYTES


def test_the_flush_before_an_events_timing_covers_the_hosts_enqueue():
    from aka.evaluate.timing import COVER_SLACK_US, MAX_FLUSH_PASSES, flush_passes

    assert flush_passes(0.0, 56.0) == 1                       # 20 µs of slack fits in one pass
    assert flush_passes(150.0, 56.0) == 5                     # 1.5 x 150 + 20 = 245 µs: five passes
    assert flush_passes(150.0, 56.0) * 56.0 >= 1.5 * 150.0 + COVER_SLACK_US
    assert flush_passes(1e6, 56.0) == MAX_FLUSH_PASSES        # a host that slow pays its own gaps
    assert flush_passes(-5.0, 0.0) == MAX_FLUSH_PASSES        # a flush that took no time covers nothing
    assert flush_passes(10.0, 1e6) == 1


@pytest.mark.gpu
@pytest.mark.skipif(not (__import__("torch").cuda.is_available()), reason="needs a CUDA device")
def test_host_time_before_a_launch_is_not_device_time():
    """A call that spends 300 µs on the host before a tiny kernel: events time the kernel, not the
    wait (the spin-wait of the rule before this one covered only ~100 µs)."""
    import time

    import torch

    from aka.evaluate.timing import GpuTimer

    x = torch.zeros(1024, device="cuda")

    def slow_host():
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 300e-6:
            pass
        x.add_(1.0)

    timing = GpuTimer(reps=30).bench([slow_host], method="events")
    assert timing.median_us < 60.0, timing
    assert "covers" in timing.note


def test_cover_passes_are_measured_once_per_key_and_anew_once_forgotten():
    from aka.evaluate.timing import GpuTimer

    timer = object.__new__(GpuTimer)               # no GPU here: only the bookkeeping is under test
    timer._cover, timer._flush_us = {}, 64.0
    hosts = iter([100.0, 300.0, 50.0])
    timer.host_us = lambda calls: next(hosts)
    assert timer.cover_passes([], key=3) == (3, 100.0)         # 1.5 x 100 + 20 = 170 µs: 3 passes of 64
    assert timer.cover_passes([], key=3) == (3, 100.0)         # the comparison's next round: reused
    timer.forget(3)                                            # the runner built a new model there
    assert timer.cover_passes([], key=3) == (8, 300.0)
    assert timer.cover_passes([]) == (2, 50.0)                 # no key: measured every time


def test_every_timing_process_on_a_gpu_adds_the_one_cached_launch_floor(tmp_path, monkeypatch):
    """The floor is measured once per GPU model and kept in AKA_CACHE_DIR; later processes read it
    (the candidate's process is handed it by the judge, never reads or writes the cache)."""
    from aka.hardware.calibrate import floor_path, save_floor, shared_floor

    monkeypatch.setenv("AKA_CACHE_DIR", str(tmp_path))
    measured = []

    def measure():
        measured.append(1)
        return 0.71 + 0.5 * (len(measured) - 1)          # a second measurement would differ
    assert shared_floor("NVIDIA H200", measure) == 0.71
    assert shared_floor("NVIDIA H200", measure) == 0.71 and len(measured) == 1
    assert floor_path("NVIDIA H200").parent == tmp_path / "launch-floor"
    floor_path("NVIDIA H200").write_text("{not json")                    # a torn file: measured again
    assert shared_floor("NVIDIA H200", measure) == 1.21 and len(measured) == 2
    save_floor("Other GPU", 3.0)
    assert shared_floor("NVIDIA H200", measure) == 1.21                  # kept per GPU model
    floor_path("NVIDIA H200").write_text('{"format": 1, "device": "NVIDIA H100", "us": 0.5}')
    assert shared_floor("NVIDIA H200", measure) == 1.71                  # another model's file is not this one's
    monkeypatch.setenv("AKA_CACHE_DIR", str(tmp_path / "file"))
    (tmp_path / "file").write_text("")                                    # the cache cannot be written
    assert shared_floor("NVIDIA H200", measure) == 2.21                  # measured, used, not kept


def _floor_in_child(cache: str, delay: float, conn) -> None:
    import os
    import time
    os.environ["AKA_CACHE_DIR"] = cache
    from aka.hardware.calibrate import shared_floor

    def measure():
        time.sleep(delay)                                # a slow measurement: the other process waits
        return 0.6 + delay
    conn.send(shared_floor("NVIDIA H200", measure))


def test_processes_that_start_at_once_share_one_measured_floor(tmp_path):
    """suite_bench --jobs starts several judges together: one measures, the others wait and read it."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    pipes, procs = [], []
    for delay in (0.5, 0.05):
        parent, child = ctx.Pipe()
        procs.append(ctx.Process(target=_floor_in_child, args=(str(tmp_path), delay, child)))
        pipes.append(parent)
    for p in procs:
        p.start()
    got = [c.recv() for c in pipes]
    for p in procs:
        p.join(10)
    assert got[0] == got[1] and got[0] in (1.1, 0.65)


def test_the_judge_hands_the_shared_floor_to_every_side_on_a_gpu_only(monkeypatch):
    import aka.evaluate.timing as timing
    from aka.evaluate.judge import launch_floor_kw

    assert launch_floor_kw(False) == {}
    monkeypatch.setattr(timing, "shared_floor_us", lambda: 0.83)
    assert launch_floor_kw(True) == {"floor_us": 0.83}

    def fails():
        raise RuntimeError("CUDA out of memory")
    monkeypatch.setattr(timing, "shared_floor_us", fails)
    assert launch_floor_kw(True) == {}                     # each side then measures its own, as before


def test_the_candidates_process_adds_the_floor_the_judge_sent(monkeypatch, tmp_path):
    import aka.evaluate.timing as timing
    from aka.evaluate.runner import Runner

    class FakeTimer:
        def __init__(self, reps=100, warmup_ms=25.0, floor_us=None):
            self.reps, self.warmup_ms, self._floor = reps, warmup_ms, floor_us
    monkeypatch.setattr(timing, "GpuTimer", FakeTimer)
    r = Runner(str(tmp_path))
    assert r._timer({"reps": 10})._floor is None                        # none sent: the timer measures its own
    assert r._timer({"reps": 10, "floor_us": 0.83})._floor == 0.83
    assert r._timer({"reps": 10, "floor_us": "0.9"})._floor == 0.9
