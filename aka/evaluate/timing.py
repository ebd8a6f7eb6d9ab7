"""Device timing (worker side): CUDA events with L2 flushed, CUDA-graph replay for short kernels,
rotated input sets, robust statistics, and the interleaved incumbent/candidate comparison.

Work on side streams cannot hide from these numbers: the runtime proof (proof.py) rejects any
candidate whose device work runs on a stream other than the one timed, before timing starts.
"""

from __future__ import annotations

import math
import statistics
import time
from typing import Callable, Sequence

from aka.hardware.devices import lookup
from aka.spec.result import Comparison, Timing

GRAPH_BELOW_US = 20.0
TIMING_RULE = "covering-flush-shared-floor-static-compile-grouped-median-2026-12-07"
"""Names the rule GpuTimer times by; results timed under another rule must not be mixed with these
(tools/suite_bench.py refuses to). Change it whenever a change to the timer moves its figures.
2026-12-04: the covering L2 flush before event-timed calls. 2026-12-05: graph-timed calls add one
launch floor shared by every process timing on the GPU (`shared_floor_us`), where each process
had read its own, 0.70 to 2.05 µs apart within one evaluation. Later that day: the torch.compile
baseline is compiled for each shape alone (`loading.compiled_reference`); before, every shape after
a process's first got Dynamo's graph with symbolic sizes. 2026-12-07: samples on a clock's grid
(the H200's CUPTI spans step by 0.25 µs) get the median for grouped data (`stats`, `clock_tick`);
before, every graph-timed figure was the launch floor plus a whole number of steps."""
TICK_MIN_SAMPLES = 8
TICK_MIN_US = 0.01
TICK_MAX_US = 1.0
TICK_SLACK = 0.05
"""`clock_tick`'s limits: a grid finer than 10 ns moves no figure this harness reports, and no
device clock it reads steps by more than 1 µs."""
L2_FLUSH_BYTES = 256 * 1024 * 1024
"""Read (not written) before every timed call: evicts the L2 and leaves it clean, so the timed
kernel neither hits on stale lines nor pays for writing back the flush's own dirty lines."""
COVER_FACTOR = 1.5
COVER_SLACK_US = 20.0
MAX_FLUSH_PASSES = 32
"""Before each event-timed call the L2 flush reads its buffer as many times as it takes to keep the
GPU busy for COVER_FACTOR times the host's enqueue time of the call plus COVER_SLACK_US (at most
MAX_FLUSH_PASSES): the host never leaves the GPU idle between the start and end events. It replaced
a fixed ~100 µs GPU spin-wait, which hosts slower than that outlasted (a Triton TMA GEMM enqueues in
90-210 µs on the H200) and which, in one of two probe runs there, left compute-bound GEMMs up to
15 % slower than right after a memory-bound kernel (tools/timing_probe.py, docs/benchmarks.md)."""
HOST_PROBE_CYCLES = 2_000_000
"""About 1 ms of GPU spinning while the host's enqueue time of a few calls is measured."""
FLOOR_WARM_REPLAYS = 100
FLOOR_BATCHES = 5
"""The launch floor is read after FLOOR_WARM_REPLAYS replays (the SM clock leaves idle first), as
the lowest of FLOOR_BATCHES medians: each process used to take one median of its first replays,
and on the H200 (2026-12-05) one evaluation's processes read 0.70 to 2.05 µs, so a candidate's
graph-timed decode shape carried up to 1.3 µs more floor than the baselines it was set against."""


def flush_passes(host_us: float, pass_us: float) -> int:
    """Flush passes covering COVER_FACTOR times `host_us` of host enqueue plus COVER_SLACK_US, when
    one pass keeps the GPU busy for `pass_us` (at least one pass, at most MAX_FLUSH_PASSES)."""
    need = COVER_FACTOR * max(host_us, 0.0) + COVER_SLACK_US
    return min(MAX_FLUSH_PASSES, max(1, math.ceil(need / max(pass_us, 1e-3))))


def flush_bytes(device_name: str, l2_bytes: int) -> int:
    """How much the L2 flush reads: at least L2_FLUSH_BYTES and four times the largest on-chip
    cache (the L2 the runtime reports, or a last-level cache it does not, e.g. MI300X's 256 MB
    Infinity Cache), so no cache level still holds the previous call's data."""
    spec = lookup(device_name)
    cache = max(l2_bytes, spec.llc_bytes if spec else 0)
    return max(L2_FLUSH_BYTES, 4 * cache)


def clock_tick(samples_us: Sequence[float]) -> float:
    """The step of the grid timing samples sit on, or 0.0 when they sit on none.

    A clock that ticks every q µs reports a span of s µs as one of the two multiples of q around
    it, the upper one with probability frac(s / q) when the span starts at a random phase of the
    tick: the median of such samples snaps to the grid (on the H200 the graph-timed decode figures
    of session 43 all read the launch floor plus a multiple of 0.25 µs), while their distribution
    still holds s. A grid is recognised when there are at least TICK_MIN_SAMPLES samples, at most
    half as many distinct values, and every step between neighbouring distinct values is a whole
    multiple (within TICK_SLACK of a step) of the smallest, which lies in [TICK_MIN_US, TICK_MAX_US]."""
    n = len(samples_us)
    if n < TICK_MIN_SAMPLES:
        return 0.0
    distinct = sorted({round(x, 4) for x in samples_us})
    if len(distinct) < 2 or len(distinct) > n // 2:
        return 0.0
    steps = [b - a for a, b in zip(distinct, distinct[1:])]
    tick = min(steps)
    if not TICK_MIN_US <= tick <= TICK_MAX_US:
        return 0.0
    if any(abs(step / tick - round(step / tick)) > TICK_SLACK for step in steps):
        return 0.0
    return round(tick, 4)


def stats(samples_us: Sequence[float], method: str) -> Timing:
    """Median, IQR, coefficient of variation and minimum of timing samples. Samples on a clock's
    grid (`clock_tick`) get the median for grouped data, interpolated within the tick, so that two
    kernels less than a tick apart are not read as equal or as a whole tick apart."""
    xs = sorted(samples_us)
    n = len(xs)
    q1, q3 = xs[n // 4], xs[(3 * n) // 4] if n > 1 else xs[0]
    mean = statistics.fmean(xs)
    cv = statistics.pstdev(xs) / mean if n > 1 and mean > 0 else 0.0
    tick = clock_tick(xs)
    # median_grouped counts the samples equal to the middle one: the ones on the same tick must be
    # equal as floats, so each is taken as clock_tick saw it (to 0.1 ns)
    median = statistics.median_grouped([round(x, 4) for x in xs], interval=tick) if tick else statistics.median(xs)
    return Timing(median_us=median, iqr_us=q3 - q1, cv=cv, reps=n, method=method, min_us=xs[0], tick_us=tick)


def bench_cpu(calls: Sequence[Callable[[], object]], reps: int = 3, method: str | None = None) -> Timing:
    """Wall-clock timing on the CPU interpreter: never GPU performance (`method` has no meaning here)."""
    calls[0]()
    samples = []
    for i in range(reps):
        t0 = time.perf_counter()
        calls[i % len(calls)]()
        samples.append((time.perf_counter() - t0) * 1e6)
    return stats(samples, "cpu-interpreter")


FLUSH = "_aka_l2_flush"


def shared_floor_us() -> float:
    """This GPU's graph launch floor as every timing process adds it (aka.hardware.calibrate's
    cache; measured here the first time). For trusted processes only."""
    import torch

    from aka.hardware.calibrate import shared_floor

    return shared_floor(torch.cuda.get_device_name(0), lambda: GpuTimer(reps=1).launch_floor_us())


def empty_kernel():
    """A Triton kernel that does nothing: its graph-replayed time is the launch floor."""
    import triton

    @triton.jit
    def _aka_empty(x_ptr):
        pass

    return _aka_empty


def flush_kernel():
    """A streaming read of a buffer: the L2 flush (and the read-bandwidth probe)."""
    import triton
    import triton.language as tl

    @triton.jit
    def _aka_l2_flush(x_ptr, out_ptr, n, passes, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        step = tl.num_programs(0) * BLOCK
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for _ in range(passes):
            for start in range(pid * BLOCK, n, step):
                offs = start + tl.arange(0, BLOCK)
                acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
        tl.store(out_ptr + pid, tl.sum(acc, axis=0))

    return _aka_l2_flush


def call_spans(activities: list[tuple[str, float, float]]) -> list[float]:
    """Per-call device spans (µs) from (name, start µs, end µs) activities of flush/call sequences:
    from the first activity after a flush to the last one before the next flush."""
    spans, current = [], None
    for name, start, end in sorted(activities, key=lambda a: a[1]):
        if name.startswith(FLUSH):
            if current:
                spans.append(current[1] - current[0])
            current = None
        elif current is None:
            current = [start, end]
        else:
            current[1] = max(current[1], end)
    if current:
        spans.append(current[1] - current[0])
    return spans


def recover_failed_capture(torch) -> None:
    """Make the CUDA RNG usable again after a graph capture that failed part-way.

    A capture that a host sync or an uncapturable op breaks ends in CUDAGraph.capture_end raising
    before the RNG's capture epilogue runs, so PyTorch's default CUDA generator still believes a
    capture is under way and every later random draw on the GPU raises "Offset increment outside
    graph capture encountered unexpectedly" (an operator's make_inputs among them). The generator
    gets a fresh state object with the same seed and offset."""
    torch.cuda.synchronize()
    gen = torch.cuda.default_generators[torch.cuda.current_device()]
    if not hasattr(gen, "graphsafe_set_state"):        # PyTorch before 2.5 keeps no such flag
        return
    fresh = torch.Generator(device=gen.device)
    fresh.set_state(gen.get_state())
    gen.graphsafe_set_state(fresh.graphsafe_get_state())


class GpuTimer:
    """Times callables on the current CUDA stream; one instance per worker process."""

    def __init__(self, reps: int = 100, warmup_ms: float = 25.0, graph_below_us: float = GRAPH_BELOW_US,
                 floor_us: float | None = None):
        """`floor_us`: the graph launch floor to add (the judge hands every process timing for it the
        GPU's one shared floor, `shared_floor_us`, so each side adds the same); measured here if None."""
        import torch

        self.torch = torch
        self.reps, self.warmup_ms, self.graph_below_us = reps, warmup_ms, graph_below_us
        props = torch.cuda.get_device_properties(0)
        nbytes = flush_bytes(props.name, int(getattr(props, "L2_cache_size", 0)))
        self.flush_buf = torch.ones(nbytes // 4, dtype=torch.float32, device="cuda")
        self.flush_grid = props.multi_processor_count * 4
        self.flush_out = torch.empty(self.flush_grid, dtype=torch.float32, device="cuda")
        self.flush_kernel = flush_kernel()
        self._floor: float | None = floor_us
        self._flush_us: float | None = None
        self._cover: dict[object, tuple[int, float]] = {}

    def flush(self, passes: int = 1) -> None:
        """Evict the L2 by reading a buffer several times its size, `passes` times over (one
        launch of a kernel named FLUSH)."""
        self.flush_kernel[(self.flush_grid,)](self.flush_buf, self.flush_out, self.flush_buf.numel(), passes,
                                              BLOCK=4096, num_warps=8)

    def flush_us(self) -> float:
        """Device time of one flush pass (measured once per timer)."""
        if self._flush_us is None:
            self.flush()
            starts, ends = self._events(5)
            for s, e in zip(starts, ends):
                s.record()
                self.flush()
                e.record()
            self.torch.cuda.synchronize()
            self._flush_us = statistics.median(s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends))
        return self._flush_us

    def host_us(self, calls: Sequence[Callable[[], object]], n: int = 6) -> float:
        """Host time to enqueue one call and its start event while the GPU is busy elsewhere."""
        torch = self.torch
        torch.cuda.synchronize()
        torch.cuda._sleep(HOST_PROBE_CYCLES)
        mark = torch.cuda.Event()
        t0 = time.perf_counter()
        for i in range(n):
            mark.record()
            calls[i % len(calls)]()
        host = (time.perf_counter() - t0) * 1e6 / n
        torch.cuda.synchronize()
        return host

    def cover_passes(self, calls: Sequence[Callable[[], object]], key: object = None) -> tuple[int, float]:
        """Flush passes that keep the GPU busy while the host enqueues a call, and that host time;
        with a KEY (the same callable at the same shape), measured once and reused: the rounds of
        an interleaved comparison time the same calls again and again."""
        if key is not None and key in self._cover:
            return self._cover[key]
        host = self.host_us(calls)
        got = flush_passes(host, self.flush_us()), host
        if key is not None:
            self._cover[key] = got
        return got

    def _events(self, n: int) -> tuple[list, list]:
        ev = self.torch.cuda.Event
        return [ev(enable_timing=True) for _ in range(n)], [ev(enable_timing=True) for _ in range(n)]

    def forget(self, key: object) -> None:
        """Drop what `cover_passes` measured under KEY (its calls changed)."""
        self._cover.pop(key, None)

    def bench(self, calls: Sequence[Callable[[], object]], reps: int | None = None,
              allow_graph: bool = True, method: str | None = None, key: object = None) -> Timing:
        """Median device time of one call; graph replay when a call is shorter than the threshold.

        `method` ('graph' or 'events') skips the choice: a baseline is timed the way the candidate
        was at that shape, so neither side pays host launch gaps the other does not. `key` names
        the calls (the same model at the same shape) so that their host enqueue time, which sizes
        the flush of an events timing, is measured once (`cover_passes`)."""
        torch = self.torch
        reps = reps or self.reps
        if method not in (None, "graph", "events"):
            raise ValueError(f"timing method {method!r}: expected 'graph' or 'events'")
        self._warmup(calls)
        if method is None:
            probe = self._events_bench(calls, reps=max(10, reps // 5), key=key)
            method = "graph" if allow_graph and probe.median_us < self.graph_below_us else "events"
        if method == "graph":
            try:
                return self._graph_bench(calls, reps)
            except Exception as exc:  # noqa: BLE001 - any capture/profiler failure falls back
                recover_failed_capture(torch)
                timing = self._events_bench(calls, reps, key=key)
                timing.note = f"graph capture failed ({str(exc)[:120]}); timed with events"
                return timing
        return self._events_bench(calls, reps, key=key)

    def _warmup(self, calls: Sequence[Callable[[], object]]) -> None:
        torch = self.torch
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        i = 0
        while (time.perf_counter() - t0) * 1e3 < self.warmup_ms or i < 2 * len(calls):
            calls[i % len(calls)]()
            i += 1
            if i % 16 == 0:
                torch.cuda.synchronize()
        torch.cuda.synchronize()

    def _events_bench(self, calls: Sequence[Callable[[], object]], reps: int, key: object = None) -> Timing:
        """Each call between two events, after an L2 flush long enough that the host has enqueued
        the call before the GPU reaches it (its launch overhead is not the device's time)."""
        torch = self.torch
        passes, host = self.cover_passes(calls, key)
        starts, ends = self._events(reps)
        for i in range(reps):
            self.flush(passes)                          # L2 flushed outside the timed window
            starts[i].record()
            calls[i % len(calls)]()
            ends[i].record()
        torch.cuda.synchronize()
        timing = stats([s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends)], "events")
        timing.note = f"L2 flush x{passes} ({passes * self.flush_us():.0f} µs) covers {host:.0f} µs of host enqueue"
        return timing

    def _graph(self, calls: Sequence[Callable[[], object]], inner: int, flush: bool) -> object:
        """Capture `inner` calls (rotating input sets), each after an L2 flush if asked."""
        torch = self.torch
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for c in calls:
                c()
            self.flush()
        torch.cuda.current_stream().wait_stream(stream)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for i in range(inner):
                if flush:
                    self.flush()
                calls[i % len(calls)]()
        graph.replay()
        torch.cuda.synchronize()
        return graph

    def launch_floor_us(self) -> float:
        """Graph-replayed time of one empty Triton kernel (given, or measured once per timer)."""
        if self._floor is None:
            empty, arg = empty_kernel(), self.flush_out
            graph = self._graph([lambda: empty[(1,)](arg)], inner=20, flush=False)
            for _ in range(FLOOR_WARM_REPLAYS):
                graph.replay()
            self._floor = min(self.replayed_us(graph, 20) for _ in range(FLOOR_BATCHES))
        return self._floor

    def span_samples(self, calls: Sequence[Callable[[], object]], reps: int, inner: int = 10) -> list[float]:
        """Each call's CUPTI device span (µs, no floor added) over about `reps` calls: `inner`
        flushed calls captured in a graph, replayed under torch.profiler."""
        from torch.profiler import ProfilerActivity, profile

        torch = self.torch
        graph = self._graph(calls, inner, flush=True)
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(-(-reps // inner)):
                graph.replay()
            torch.cuda.synchronize()
        acts = [(ev.name(), ev.start_ns() / 1e3, (ev.start_ns() + ev.duration_ns()) / 1e3)
                for ev in prof.profiler.kineto_results.events()
                if ev.device_type() == torch.autograd.DeviceType.CUDA]
        return call_spans(acts)

    def replayed_us(self, graph: object, per_replay: int, replays: int = 40) -> float:
        """Median µs per captured call over `replays` event-timed replays of `graph`, which holds
        `per_replay` calls (launch and all: no profiler, no flush of its own)."""
        starts, ends = self._events(replays)
        for i in range(replays):
            starts[i].record()
            graph.replay()
            ends[i].record()
        self.torch.cuda.synchronize()
        return stats([s.elapsed_time(e) * 1e3 / per_replay for s, e in zip(starts, ends)], "graph").median_us

    def _graph_bench(self, calls: Sequence[Callable[[], object]], reps: int, inner: int = 10) -> Timing:
        """Short calls: `inner` flushed calls replayed in a CUDA graph under torch.profiler. Per
        call: its device span from CUPTI (first activity start to last activity end, gaps between
        its kernels included) plus one graph launch floor, i.e. what the call adds to a
        graph-replayed step. Flushes and launch overhead outside the graph are not counted."""
        floor = self.launch_floor_us()
        spans = self.span_samples(calls, reps, inner)
        if len(spans) < reps // 2:
            raise RuntimeError(f"the profiler saw {len(spans)} calls, expected {reps}")
        timing = stats([x + floor for x in spans], "graph")
        timing.note = f"device span (CUPTI) + graph launch floor {floor:.2f} µs"
        return timing


def _rounds(incumbent_us: Sequence[float], candidate_us: Sequence[float]) -> tuple[list[float], list[float]]:
    """Per ABBA round: the incumbent/candidate time ratio, and the larger relative spread of either
    side's two measurements."""
    ratios, spreads = [], []
    for k in range(len(incumbent_us) // 2):
        a1, a2 = incumbent_us[2 * k], incumbent_us[2 * k + 1]
        b1, b2 = candidate_us[2 * k], candidate_us[2 * k + 1]
        ratios.append((a1 + a2) / (b1 + b2))
        spreads.append(max(abs(a1 - a2) / ((a1 + a2) / 2), abs(b1 - b2) / ((b1 + b2) / 2)))
    return ratios, spreads


def decide(incumbent_us: Sequence[float], candidate_us: Sequence[float], method: str,
           min_gain: float = 0.01) -> Comparison:
    """Judge ABBA rounds: faster only if the gain exceeds the measured noise (and min_gain).

    `incumbent_us[k]` / `candidate_us[k]` hold the two measurements of round k flattened in order
    (A1, A2 for the incumbent, B1, B2 for the candidate): lists of length 2 * rounds.
    """
    if len(incumbent_us) != len(candidate_us) or len(incumbent_us) < 2 or len(incumbent_us) % 2:
        raise ValueError("need two measurements per round for each side")
    rounds = len(incumbent_us) // 2
    ratios, spreads = _rounds(incumbent_us, candidate_us)
    speedup = statistics.median(ratios)
    ratio_spread = (max(ratios) - min(ratios)) / 2 if rounds > 1 else 0.0
    noise = max(statistics.median(spreads), ratio_spread, min_gain)
    return Comparison(
        incumbent_us=statistics.median(incumbent_us),
        candidate_us=statistics.median(candidate_us),
        speedup=speedup,
        noise=noise,
        rounds=rounds,
        significant=speedup - 1.0 > noise,
        method=method,
    )


SETTLE_ROUNDS = 3
"""An interleaved comparison may stop after this many ABBA rounds ..."""
SETTLE_MARGIN = 3.0
"""... when the speedup's logarithm is this many noise widths away from 0 (faster or slower alike):
more rounds could not change the verdict."""


def settled(incumbent_us: Sequence[float], candidate_us: Sequence[float], min_gain: float = 0.01) -> bool:
    """Whether the rounds so far already decide the comparison beyond doubt: the median per-round
    log speedup is SETTLE_MARGIN noise widths from 0, the noise (as in `decide`, but relative
    throughout) being the larger of the within-side spread, half the range of the per-round log
    speedups, and `min_gain`."""
    if len(incumbent_us) < 2 * SETTLE_ROUNDS or len(incumbent_us) != len(candidate_us) or len(incumbent_us) % 2:
        return False
    ratios, spreads = _rounds(incumbent_us, candidate_us)
    logs = [math.log(r) for r in ratios]
    noise = max(statistics.median(spreads), (max(logs) - min(logs)) / 2, min_gain)
    return abs(statistics.median(logs)) > SETTLE_MARGIN * noise
