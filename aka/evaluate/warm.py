"""Compiling shipped kernels ahead of their evaluation, on the host's spare cores (GPU only).

Most of an evaluation on a GPU is the candidate's process compiling its kernels (`call-first` in
`phases_s`). For code aka ships (the tuner's reference kernels, `Candidate.shipped`) the upcoming
configurations are known, and compiling them is trusted work, so `KernelWarmer` compiles them in a
few low-priority background processes while the GPU times the current candidate, then publishes
what they compiled into the session's shipped-kernel cache (`kernel_cache`), from which every later
shipped candidate's process starts.

A warming process launches nothing on the GPU (it must not disturb a timing in progress): the
model and its inputs are built on PyTorch's `meta` device (shapes and dtypes, no memory) and every
Triton launch is turned into a compile (`JITFunction.run(..., warmup=True)`). A kernel that cannot
be traced that way (values read on the host, an autotuner that benchmarks) is simply not warmed:
its candidate compiles it itself, as it would have anyway. Never used for a model's, a user's or a
replayed candidate.

    python -m aka.evaluate.warm JOB.json      (the warming process; KernelWarmer starts it)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

from aka.evaluate import kernel_cache
from aka.evaluate.pool import worker_env

MAX_PROCESSES = 12
SPARE_CORES = 4
"""Cores left to the judge and the candidate's process."""
BATCH_PER_PROCESS = 2
"""Files one warming process takes per batch. Batches stay short so that what a later submit lists
first (the configurations a proposer reaches next) starts within seconds: one batch of every
upcoming configuration at every shape ran for minutes on the H200, behind which the points the
tuner then chose were not yet compiled (docs/benchmarks.md, "Longer tuner sessions")."""


def processes_for(cpus: int | None) -> int:
    """How many warming processes a host of CPUS cores runs."""
    return max(1, min(MAX_PROCESSES, (cpus or 1) - SPARE_CORES))


class KernelWarmer:
    """Background compilation of shipped candidates for one session.

    `submit` writes the candidates it has not seen, puts everything it lists at the head of the
    queue in its order (the most urgent first; a later submit re-ranks what is still queued), and
    starts a batch of at most BATCH_PER_PROCESS files per process when none runs (a submit while a
    batch runs only queues). `close` stops them and removes its folder. `spawn` (tests) replaces
    starting a real process: spawn(argv, env) -> a Popen-like
    object with `poll`, `terminate` and `wait`.
    """

    def __init__(self, shipped_folder: Path, processes: int | None = None,
                 spawn: Callable[[list[str], dict[str, str]], Any] | None = None):
        self.shipped = Path(shipped_folder)
        self.processes = processes or processes_for(os.cpu_count())
        self.spawn = spawn or _spawn
        self.folder = Path(tempfile.mkdtemp(prefix="aka-warm-"))
        self.seen: set[str] = set()
        self.queue: list[tuple[str, str]] = []
        self.running: list[Any] = []
        self.batches = 0

    def submit(self, spec: dict[str, Any], dtype: str, shapes: list[dict[str, Any]], candidates: list[Any]) -> int:
        """Queue the shipped candidates not seen before, in the given order (the most urgent
        first); start a batch when none runs. The number queued."""
        new, listed = 0, []
        for cand in candidates:
            if not cand.shipped:
                continue
            path = str(self.folder / f"{cand.short}.py")
            if cand.hash not in self.seen:
                self.seen.add(cand.hash)
                Path(path).write_text(cand.materialize())
                self.queue.append((cand.name, path))
                new += 1
            listed.append(path)
        rank = {path: i for i, path in enumerate(listed)}
        self.queue.sort(key=lambda item: rank.get(item[1], len(rank)))     # stable: the unlisted keep their order
        self._start(spec, dtype, shapes)
        return new

    def busy(self) -> bool:
        self.running = [p for p in self.running if p.poll() is None]
        return bool(self.running)

    def _start(self, spec: dict[str, Any], dtype: str, shapes: list[dict[str, Any]]) -> None:
        if not self.queue or self.busy():
            return
        size = self.processes * BATCH_PER_PROCESS
        batch, self.queue = self.queue[:size], self.queue[size:]
        self.batches += 1
        n = min(self.processes, len(batch))
        for i in range(n):
            part = batch[i::n]                    # round robin: the first few compile at once
            own = self.folder / f"cache-{self.batches}-{i}"
            job = self.folder / f"job-{self.batches}-{i}.json"
            job.write_text(json.dumps({"spec": spec, "dtype": dtype, "shapes": shapes, "cache": str(own),
                                       "shipped": str(self.shipped), "files": [p for _, p in part]}))
            env = {**worker_env(dict(os.environ)), "TRITON_CACHE_DIR": str(own)}   # as a candidate's: same cache keys, no keys
            env.pop("TRITON_INTERPRET", None)
            self.running.append(self.spawn([sys.executable, "-m", "aka.evaluate.warm", str(job)], env))

    def close(self) -> None:
        for p in self.running:
            if p.poll() is None:
                p.terminate()
        for p in self.running:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
        self.running = []
        shutil.rmtree(self.folder, ignore_errors=True)


def _spawn(argv: list[str], env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, preexec_fn=_background, start_new_session=True)


def _background() -> None:
    """In a warming process before exec: low CPU priority, and killed with the aka process."""
    from aka.evaluate.pool import die_with_parent

    os.nice(10)
    die_with_parent()


# --- the warming process -------------------------------------------------------------------------

def compile_only() -> None:
    """Make every Triton launch in this process a compilation that launches nothing, with the host
    launcher built as well: Triton (3.6) compiles one with the C compiler per kernel signature at a
    kernel's first launch, about a second of a candidate's first call otherwise."""
    from triton.runtime.jit import JITFunction

    launch = JITFunction.run

    def run(self: Any, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> Any:
        kernel = launch(self, *args, grid=grid, warmup=True, **kwargs)
        build_launcher(kernel)
        return kernel

    JITFunction.run = run


def build_launcher(kernel: Any) -> None:
    """Build (into this process's Triton cache) the host launcher a compiled kernel's first launch
    would build; where this Triton has none to build, or cannot, the candidate builds its own."""
    try:
        from triton.runtime import driver

        driver.active.launcher_cls(kernel.src, kernel.metadata)
    except Exception:  # noqa: BLE001 - only a head start
        pass


def warm_file(op: Any, path: str, tag: str, shapes: list[dict[str, Any]]) -> int:
    """Trace one candidate file's model at every shape on `meta`; the shapes that went through."""
    import torch

    from aka.evaluate.loading import load_module

    source = Path(path).read_text()
    if "autotune" in source:                       # an autotuner would benchmark: not here
        return 0
    try:
        cls = load_module(path, tag).ModelNew
    except Exception:  # noqa: BLE001 - its evaluation reports it
        return 0
    done = 0
    for params in shapes:
        try:
            with torch.device("meta"), torch.no_grad():
                inputs = op.make_inputs(params, 0)
                args, kwargs = op.init_args(params)
                inputs.call(op.place_model(cls(*args, **kwargs)))
            done += 1
        except Exception:  # noqa: BLE001 - not traceable on meta: its candidate compiles it
            pass
    return done


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    job = json.loads(Path(argv[0]).read_text())
    compile_only()
    from aka.evaluate.loading import Operator

    op = Operator(job["spec"], "meta", job["dtype"])
    for k, path in enumerate(job["files"]):
        warm_file(op, path, f"aka_warm_{k}", job["shapes"])
        kernel_cache.publish_folder(job["cache"], job["shipped"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
