"""The evaluation seam the loop uses: an `Evaluator` protocol, the harness behind it, and two fakes.

`HarnessEvaluator` wraps the judge (`evaluator.Evaluator` and its warm worker pool) for one
session: it takes candidate records, times each baseline once per (shape, timing method) and
fills every later result's baselines and speedups from that cache, so eager and torch.compile are
neither re-timed nor re-compiled for every candidate.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed, wait
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterator, Protocol, runtime_checkable

from aka.errors import EnvironmentMissing
from aka.evaluate import kernel_cache
from aka.evaluate.evaluator import EvalOptions, Evaluator as Judge, weigh
from aka.evaluate.gpu_lock import new_lock_dir
from aka.evaluate.pool import WorkerPool
from aka.evaluate.warm import KernelWarmer
from aka.spec.candidate import Candidate
from aka.spec.op import OpSpec
from aka.spec.result import Comparison, Decision, EvalResult, EvalStatus, Rejection, ShapeResult, Timing


@runtime_checkable
class Evaluator(Protocol):
    """Judges candidates of one operator. Kernel failures come back as data, never raised.

    Attributes:
        interpreter: True on the CPU interpreter (times rank candidates, never report them).
        device: 'kind', 'name', 'arch', 'vendor' of where candidates run.
    """

    interpreter: bool
    device: dict

    def evaluate(self, spec: OpSpec, candidate: Candidate, path: Path, focus: tuple[str, ...] = ()) -> EvalResult:
        """Correctness (held-out shapes included), honesty and timing; `path` holds the
        materialized candidate file. FOCUS (`Proposal.focus`): only those visible shapes, no
        held-out one, and the result says so (`EvalResult.focus`)."""
        ...

    def compare(self, spec: OpSpec, incumbent: tuple[Candidate, Path], candidate: tuple[Candidate, Path]) -> Decision:
        """Interleaved incumbent-candidate-candidate-incumbent timing, judged over shape weights."""
        ...

    # Optional: `warm(spec, upcoming) -> int` compiles upcoming candidates ahead (the harness, on a
    # GPU); the loop passes a proposer's `upcoming(ctx)` as a callable where both exist.
    # Optional: `evaluate_many(spec, items) -> Iterator[(index, EvalResult)]` evaluates several
    # candidates at once, yielding each result as it is ready (`aka optimize --parallel`); an item
    # is (candidate, path) or (candidate, path, focus).
    # Optional: `confirm(spec, candidate, path) -> EvalResult` evaluates the session's best once
    # more with its baselines timed beside it, interleaved, at every shape (the report's figures).


class HarnessEvaluator:
    """The real harness for one session (one warm worker pool, one baseline cache)."""

    def __init__(self, judge: Judge, options: EvalOptions | None = None, rounds: int = 5,
                 warming: bool | None = None, parallel: int = 1):
        self.judge = judge
        self.parallel = max(1, int(parallel))
        """Candidates `evaluate_many` runs at once, each in a worker pool of its own beside the
        session's pool (which keeps the comparisons and the baselines)."""
        self.side_judges: list[Judge] = []
        self.lock_dir: str | None = None
        self.threads: ThreadPoolExecutor | None = None
        """The session's evaluation threads. They live as long as the session: a worker server
        dies with the thread that started it (PR_SET_PDEATHSIG follows the thread, not the
        process), so pools are started, and restarted, only from these."""
        self.options = options or EvalOptions()
        self.rounds = rounds
        self.interpreter = judge.interpreter
        self.device: dict = {"kind": "cpu", "name": "cpu", "vendor": "cpu", "arch": "cpu"} if judge.interpreter \
            else identify_device()
        """Known before the first candidate runs: the tuner picks kernels by vendor and arch."""
        self.baselines: dict[str, dict[str, Timing]] = {}
        """'<shape id>|<method>' -> baseline name -> Timing (persisted by the session)."""
        self.warming = (os.environ.get("AKA_WARM", "1") != "0") if warming is None else warming
        """Compile upcoming shipped candidates ahead on the GPU (`aka.evaluate.warm`); AKA_WARM=0
        turns it off."""
        self.warmer: KernelWarmer | None = None

    def warm(self, spec: OpSpec, upcoming: Callable[[], list[Candidate]]) -> int:
        """Start compiling the candidates `upcoming()` lists in the background, the shipped ones
        only, on a GPU only (elsewhere it is not even called); how many were queued. Nothing a
        verdict depends on: a candidate not warmed in time compiles its kernels itself."""
        if self.interpreter or not self.warming:
            return 0
        todo = [c for c in upcoming() if c.shipped]
        if not todo:
            return 0
        if self.warmer is None:
            self.warmer = KernelWarmer(self.judge.pool.root() / kernel_cache.SHIPPED)
        dtype, rows, _ = self.judge.plan(spec, self.options)
        return self.warmer.submit(spec.to_dict(), dtype, [r["params"] for r in rows], todo)

    def close(self) -> None:
        """Stop background work (the warming processes, the side pools)."""
        self._stop_warming()
        for judge in self.side_judges:
            judge.pool.close()
        self.side_judges = []
        if self.threads is not None:
            self.threads.shutdown(wait=True)
            self.threads = None
        if self.lock_dir is not None:
            shutil.rmtree(self.lock_dir, ignore_errors=True)
            self.lock_dir = None

    def evaluate_many(self, spec: OpSpec, items: list[tuple]) -> Iterator[tuple[int, EvalResult]]:
        """Evaluate ITEMS at once, up to `parallel` at a time, each in a side pool; yield (index,
        result) as each is ready (the caller stores it at once: a crash loses only those still
        running). The evaluations share the GPU through a lock (`aka.evaluate.gpu_lock`): each
        timing runs with nothing else on the device, and the rest (starting processes, compiling,
        checking outputs) overlaps. Baselines are timed by the session's own pool, as the results
        come in."""
        items = [(item[0], item[1], tuple(item[2]) if len(item) > 2 else ()) for item in items]
        if self.parallel <= 1 or len(items) <= 1:
            for i, (cand, path, focus) in enumerate(items):
                yield i, self.evaluate(spec, cand, path, focus)
            return
        judges = self._side_judges(min(self.parallel, len(items)))
        share = 1.0 / (len(judges) + 1)
        options = replace(self.options, baselines=(), gpu_lock=self._lock_path(), gpu_share=share)
        free: queue.Queue = queue.Queue()
        for judge in judges:
            free.put(judge)

        def run(cand: Candidate, path: Path, focus: tuple[str, ...]) -> EvalResult:
            judge = free.get()
            try:
                return judge.evaluate(spec, path, _focused(options, focus), shipped=cand.shipped)
            finally:
                free.put(judge)

        futures = {self.threads.submit(run, cand, path, focus): i for i, (cand, path, focus) in enumerate(items)}
        try:
            for fut in as_completed(futures):
                i = futures[fut]
                yield i, self._finish(spec, fut.result(), items[i][2])
        finally:
            for fut in futures:
                fut.cancel()
            wait(futures)

    def _side_judges(self, n: int) -> list[Judge]:
        """N judges, each on a worker pool of its own, started together; they share the session
        pool's cache of shipped kernels (what the warmer and earlier candidates compiled)."""
        env = {kernel_cache.SHARED_ENV: str(self.judge.pool.root() / kernel_cache.SHIPPED)}
        if self.threads is None:
            self.threads = ThreadPoolExecutor(self.parallel, thread_name_prefix="aka-eval")
        while len(self.side_judges) < n:
            self.side_judges.append(Judge(WorkerPool(self.judge.pool.device, env=env)))
        judges = self.side_judges[:n]
        started = [self.threads.submit(lambda j=j: j.pool.root()) for j in judges]   # torch imports at once
        for fut in started:
            fut.result()
        return judges

    def _lock_path(self) -> str:
        if self.lock_dir is None:
            self.lock_dir = new_lock_dir()
        return os.path.join(self.lock_dir, "gpu.lock")

    def evaluate(self, spec: OpSpec, candidate: Candidate, path: Path, focus: tuple[str, ...] = ()) -> EvalResult:
        options = _focused(replace(self.options, baselines=()), focus)
        return self._finish(spec, self.judge.evaluate(spec, path, options, shipped=candidate.shipped), focus)

    def confirm(self, spec: OpSpec, candidate: Candidate, path: Path) -> EvalResult:
        """The session's best kernel evaluated once more, all checks again, its baselines timed by
        this evaluation beside it at every shape, twice in mirrored order (`EvalOptions.interleave`):
        its speedups no longer rest on baselines timed minutes earlier, when the GPU's clock may
        have stood elsewhere."""
        options = replace(self.options, baselines=None, interleave=True,
                          gpu_lock=self._lock_path() if self.side_judges else "")
        self._stop_warming()                     # nothing left to compile ahead: free the host's cores first
        return self._gpu_still_there(self.judge.evaluate(spec, path, options, shipped=candidate.shipped))

    def _stop_warming(self) -> None:
        """Stop the compile-ahead processes (the session's last evaluation needs none, and its
        timings are best taken with the host's cores free: a compiling host can outlast the covering
        flush sized before it)."""
        if self.warmer is not None:
            self.warmer.close()
            self.warmer = None

    def _gpu_still_there(self, result: EvalResult) -> EvalResult:
        """RESULT, after a crash or hang on a GPU only once the GPU is known to be still there."""
        if result.status in (EvalStatus.CRASH, EvalStatus.TIMEOUT) and not self.interpreter:
            self.gpu_check()
        return result

    def _finish(self, spec: OpSpec, result: EvalResult, focus: tuple[str, ...] = ()) -> EvalResult:
        """After the judge: a vanished GPU raised, the device noted, the focus recorded, the cached
        baselines filled in (timed now where missing: the session's pool, holding the GPU lock when
        evaluations run beside it)."""
        self._gpu_still_there(result)
        result.focus = list(focus)
        if result.device:
            self.device = describe_device(result.device)
        if result.accepted and self.options.time:
            self._fill_baselines(spec, result)
        return result

    def compare(self, spec: OpSpec, incumbent: tuple[Candidate, Path], candidate: tuple[Candidate, Path]) -> Decision:
        return self.judge.compare(spec, incumbent[1], candidate[1], replace(self.options, baselines=()),
                                  rounds=self.rounds, weights={s.id: s.weight for s in spec.shapes},
                                  shipped=(incumbent[0].shipped, candidate[0].shipped))

    def gpu_check(self, probe: Callable[[], dict] | None = None) -> None:
        """After a crash or hang on the GPU: if the GPU itself is gone, the machine failed, not the
        candidate; raise EnvironmentMissing (exit 3) before the result is recorded, so that a
        resumed session evaluates this candidate again on a working GPU."""
        from aka.hardware.nvml import device_info

        info = (probe or device_info)()
        if not info.get("available", True):
            raise EnvironmentMissing(f"the GPU disappeared while a candidate ran ({info.get('reason')}); "
                                     "the session is resumable with --resume once the GPU is back")

    def _fill_baselines(self, spec: OpSpec, result: EvalResult) -> None:
        timed = [s for s in result.shapes if s.time is not None and not s.held_out]
        want = {s.id: None if self.interpreter else s.time.method for s in timed}
        missing = {sid: m for sid, m in want.items() if _key(sid, m) not in self.baselines}
        if missing:
            options = replace(self.options, baselines=None, gpu_lock=self._lock_path() if self.side_judges else "")
            got = self.judge.time_baselines(spec, missing, options)
            for sid, row in got.items():
                self.baselines[_key(sid, missing[sid])] = row
        for s in timed:
            s.baselines = dict(self.baselines.get(_key(s.id, want[s.id]), {}))
            if not self.interpreter and s.time.median_us > 0:
                s.speedup = {k: v.median_us / s.time.median_us for k, v in s.baselines.items()}


FOCUSED_TRIALS = 1
"""Correctness trials (fresh inputs, a reference each) a focused trial gets at each of its shapes.
It is never promoted: whatever it feeds is judged again with every trial at every shape, held-out
ones included. Its one trial still runs both calls, the refill and the ghost replay. On the H200 the
second and third trials were about a third of a focused screen's 3.6 s (session 40's eval.json:
`call`, `judge-handover`, `judge-compare`, `judge-reference`)."""


def _focused(options: EvalOptions, focus: tuple[str, ...]) -> EvalOptions:
    """OPTIONS for a focused trial: only the FOCUS shapes, no held-out one, FOCUSED_TRIALS
    trials (unchanged when FOCUS is empty)."""
    if not focus:
        return options
    return replace(options, shapes=tuple(focus), held_out=False, trials=min(options.trials, FOCUSED_TRIALS))


def _key(shape_id: str, method: str | None) -> str:
    return f"{shape_id}|{method or 'cpu-interpreter'}"


def describe_device(info: dict) -> dict:
    """kind, name, vendor and arch ('sm90', 'gfx942', 'cpu') from a worker's device record."""
    if info.get("kind") != "cuda":
        return {"kind": "cpu", "name": info.get("name", "cpu"), "vendor": "cpu", "arch": "cpu"}
    cap = str(info.get("capability", ""))
    gcn = str(info.get("arch_name") or "").split(":")[0]
    vendor = "amd" if gcn.startswith("gfx") or "gfx" in cap or "AMD" in info.get("name", "") else "nvidia"
    if vendor == "amd":
        arch = gcn or cap
    else:
        arch = ("sm" + cap.replace(".", "")) if cap else ""
    return {"kind": "cuda", "name": info.get("name", ""), "vendor": vendor, "arch": arch}


PROBE = ("import json, torch; p = torch.cuda.get_device_properties(0); "
         "print(json.dumps({'kind': 'cuda', 'name': p.name, 'capability': f'{p.major}.{p.minor}', "
         "'arch_name': getattr(p, 'gcnArchName', None)}))")


def identify_device(nvml: Callable[[], dict] | None = None, timeout_s: float = 120.0) -> dict:
    """The GPU candidates will run on, before any of them does: NVML where it answers (a few
    milliseconds), else one short torch process (AMD, or no nvidia-ml-py). A device that cannot
    be identified keeps only its kind; kernels that name architectures are then left out."""
    if nvml is None:
        from aka.hardware.nvml import device_info as nvml
    info = nvml()
    if info.get("available") and info.get("compute_capability"):
        return describe_device({"kind": "cuda", "name": info.get("name") or "",
                                "capability": info["compute_capability"]})
    try:
        done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=timeout_s)
        return describe_device(json.loads(done.stdout.strip().splitlines()[-1]))
    except (subprocess.SubprocessError, OSError, ValueError, IndexError):
        return {"kind": "cuda", "name": "", "vendor": "", "arch": ""}


class ScriptedEvaluator:
    """A fake harness: `script(candidate)` gives (status, per-shape µs); comparisons derive from
    those times with a fixed relative noise. Counts every call so tests can check re-evaluation."""

    def __init__(self, script: Callable[[Candidate], tuple[str, dict[str, float]]], noise: float = 0.02,
                 interpreter: bool = True):
        self.script, self.noise, self.interpreter = script, noise, interpreter
        self.device = {"kind": "cpu", "name": "scripted", "vendor": "cpu", "arch": "cpu"}
        self.calls: list[str] = []
        self.focus: dict[str, tuple[str, ...]] = {}
        """Candidate hash -> the focus it was evaluated with (empty: every shape)."""
        self.compares: list[tuple[str, str]] = []

    def evaluate(self, spec: OpSpec, candidate: Candidate, path: Path, focus: tuple[str, ...] = ()) -> EvalResult:
        self.calls.append(candidate.hash)
        self.focus[candidate.hash] = tuple(focus)
        status, times = self.script(candidate)
        visible, held = spec.run_shapes(self.interpreter)
        if focus:
            visible, held = tuple(s for s in visible if s.id in focus), ()
        method = "cpu-interpreter" if self.interpreter else "events"
        shapes = [ShapeResult(id=s.id, params=s.params, correct=status == "accepted",
                              time=Timing(times[s.id], 0.0, 0.0, 10, method) if s.id in times else None)
                  for s in visible]
        shapes += [ShapeResult(id=s.id, params=s.params, held_out=True, correct=status == "accepted") for s in held]
        rejections = [] if status == "accepted" else [Rejection(_RULE[status], f"scripted {status}", str(path))]
        return EvalResult(status=EvalStatus(status), op=spec.name, candidate=str(path),
                          candidate_sha256=candidate.hash, mode="cpu-interpreter" if self.interpreter else "gpu",
                          dtype=spec.dtype, rejections=rejections, shapes=shapes, focus=list(focus))

    def compare(self, spec: OpSpec, incumbent: tuple[Candidate, Path], candidate: tuple[Candidate, Path]) -> Decision:
        self.compares.append((incumbent[0].hash, candidate[0].hash))
        _, a = self.script(incumbent[0])
        _, b = self.script(candidate[0])
        comps = [Comparison(a[s.id], b[s.id], a[s.id] / b[s.id], self.noise, 2,
                            a[s.id] / b[s.id] - 1 > self.noise, "scripted", shape=s.id)
                 for s in spec.run_shapes(self.interpreter)[0] if s.id in a and s.id in b]
        return weigh(comps, {s.id: s.weight for s in spec.run_shapes(self.interpreter)[0]})


_RULE = {"wrong": "wrong-output", "cheat": "ghost-replay", "error": "runtime-error",
         "timeout": "timeout", "crash": "crash"}


class ReplayEvaluator:
    """Answers from a recorded session, keyed by candidate hash (no GPU, no worker). A candidate
    the recording never evaluated is an error: replay must not invent measurements."""

    def __init__(self, results: dict[str, EvalResult], decisions: dict[tuple[str, str], Decision],
                 device: dict | None = None, interpreter: bool = True):
        self.results, self.decisions = results, decisions
        self.device = device or {"kind": "cpu", "name": "replay", "vendor": "cpu", "arch": "cpu"}
        self.interpreter = interpreter

    def evaluate(self, spec: OpSpec, candidate: Candidate, path: Path, focus: tuple[str, ...] = ()) -> EvalResult:
        if candidate.hash not in self.results:
            raise KeyError(f"the recording holds no evaluation of candidate {candidate.short}")
        result = self.results[candidate.hash]
        if tuple(result.focus) != tuple(focus):
            raise KeyError(f"the recording evaluated candidate {candidate.short} at "
                           f"{list(result.focus) or 'every shape'}, not at {list(focus) or 'every shape'}")
        return result

    def compare(self, spec: OpSpec, incumbent: tuple[Candidate, Path], candidate: tuple[Candidate, Path]) -> Decision:
        key = (incumbent[0].hash, candidate[0].hash)
        if key not in self.decisions:
            raise KeyError(f"the recording holds no comparison of {candidate[0].short} against {incumbent[0].short}")
        return self.decisions[key]


def weighted_sol(result: EvalResult, spec: OpSpec) -> float | None:
    """Weighted mean speed-of-light over visible shapes (None when any shape lacks one)."""
    weights = {s.id: s.weight for s in spec.shapes}
    sols = [(weights.get(s.id, 1.0), s.roofline.sol) for s in result.shapes
            if not s.held_out and s.roofline is not None and s.roofline.sol is not None and not s.roofline.flag]
    visible = [s for s in result.shapes if not s.held_out]
    if not sols or len(sols) != len(visible):
        return None
    total = sum(w for w, _ in sols)
    return sum(w * x for w, x in sols) / total if total > 0 else None

