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

    python -m aka.evaluate.warm      (a warming process: job files, one per line of its stdin;
                                      KernelWarmer starts a few and feeds them for a session)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Callable, Iterable

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
    """Background compilation of shipped candidates for one session, in long-lived processes.

    `submit` writes the candidates it has not seen and puts everything it lists at the head of the
    queue in its order (the most urgent first; a later submit re-ranks what is still queued). Each
    idle warming process is then handed a batch of at most BATCH_PER_PROCESS files (round robin over
    the idle ones, so the first few compile at once); a process that is still compiling keeps its
    batch and a submit only queues behind it. A process imports torch and Triton once and takes
    batches from its stdin for the whole session, so no batch pays for a fresh interpreter; it
    marks a batch finished by writing `<job>.done`. `close` stops them and removes the folder.
    `spawn` (tests) replaces starting a real process: spawn(argv, env) -> a Popen-like object with
    `stdin`, `poll`, `terminate` and `wait`.
    """

    def __init__(self, shipped_folder: Path, processes: int | None = None,
                 spawn: Callable[[list[str], dict[str, str]], Any] | None = None):
        self.shipped = Path(shipped_folder)
        self.processes = processes or processes_for(os.cpu_count())
        self.spawn = spawn or _spawn
        self.folder = Path(tempfile.mkdtemp(prefix="aka-warm-"))
        self.seen: set[str] = set()
        self.queue: list[tuple[str, str]] = []
        self.workers: list[_Worker] = []
        self.batches = 0
        self.started = 0

    def submit(self, spec: dict[str, Any], dtype: str, shapes: list[dict[str, Any]], candidates: list[Any]) -> int:
        """Queue the shipped candidates not seen before, in the given order (the most urgent
        first); hand batches to the idle processes. The number queued."""
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
        self._dispatch(spec, dtype, shapes)
        return new

    def busy(self) -> bool:
        return any(w.job is not None for w in self._live())

    def _live(self) -> list["_Worker"]:
        """The processes still running, each with its batch cleared once it is done. A process that
        died is dropped; what it had not compiled, its candidates compile themselves."""
        self.workers = [w for w in self.workers if w.proc.poll() is None]
        for w in self.workers:
            if w.job is not None and w.job.with_suffix(".done").exists():
                w.job = None
        return self.workers

    def _dispatch(self, spec: dict[str, Any], dtype: str, shapes: list[dict[str, Any]]) -> None:
        idle = [w for w in self._live() if w.job is None]
        while len(idle) < len(self.queue) and len(self.workers) < self.processes:   # one file each, if it can
            worker = self._start_worker()
            if worker is None:
                break
            idle.append(worker)
        if not self.queue or not idle:
            return
        batch, self.queue = self.queue[:len(idle) * BATCH_PER_PROCESS], self.queue[len(idle) * BATCH_PER_PROCESS:]
        self.batches += 1
        n = min(len(idle), len(batch))
        for i, worker in enumerate(idle[:n]):
            part = batch[i::n]                    # round robin: the first few compile at once
            job = self.folder / f"job-{self.batches}-{i}.json"
            job.write_text(json.dumps({"spec": spec, "dtype": dtype, "shapes": shapes, "cache": worker.cache,
                                       "shipped": str(self.shipped), "files": [p for _, p in part]}))
            try:
                worker.proc.stdin.write(f"{job}\n")
                worker.proc.stdin.flush()
                worker.job = job
            except (OSError, ValueError):         # it died between the poll and the write
                self.queue[:0] = part

    def _start_worker(self) -> "_Worker | None":
        self.started += 1
        cache = str(self.folder / f"cache-{self.started}")
        env = {**worker_env(dict(os.environ)), "TRITON_CACHE_DIR": cache}   # as a candidate's: same cache keys, no keys
        env.pop("TRITON_INTERPRET", None)
        try:
            proc = self.spawn([sys.executable, "-m", "aka.evaluate.warm"], env)
        except OSError:
            return None
        self.workers.append(_Worker(proc, cache))
        return self.workers[-1]

    def close(self) -> None:
        for w in self.workers:
            if w.proc.poll() is None:
                w.proc.terminate()
        for w in self.workers:
            try:
                w.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                w.proc.kill()
        self.workers = []
        shutil.rmtree(self.folder, ignore_errors=True)


@dataclass
class _Worker:
    proc: Any
    cache: str
    """Its TRITON_CACHE_DIR, fixed for its life (Triton reads the variable when it starts)."""
    job: Path | None = None
    """The batch it is compiling; None when idle."""


def _spawn(argv: list[str], env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
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


AUTOTUNED = re.compile(r"\bautotune\s*\(")
"""A call of an autotuner (`@triton.autotune(...)`, commented out or not: the cautious reading); a
docstring that only names Inductor's autotune records is no reason to skip a file."""


def warm_file(op: Any, path: str, tag: str, shapes: list[dict[str, Any]]) -> int:
    """Trace one candidate file's model at every shape on `meta`; the shapes that went through.
    The file's module is dropped afterwards (what it compiled is on disk): a warming process lives
    for the session and would otherwise keep every configuration's kernels in memory."""
    from aka.evaluate.loading import load_module

    source = Path(path).read_text()
    if AUTOTUNED.search(source):                   # an autotuner would benchmark: not here
        return 0
    try:
        return _trace(op, load_module(path, tag).ModelNew, shapes)
    except Exception:  # noqa: BLE001 - not loadable: its evaluation reports it
        return 0
    finally:                                   # after tracing: Triton compiled while it was loaded
        for name in [m for m in sys.modules if m.startswith(f"aka_{tag}_")]:   # load_module's name
            del sys.modules[name]


def _trace(op: Any, cls: Any, shapes: list[dict[str, Any]]) -> int:
    import torch

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


def serve(lines: Iterable[str]) -> int:
    """The warming process: one job file per line of LINES (its stdin) until they end; after each,
    `<job>.done` (written aside, then renamed). The batches served."""
    compile_only()
    from aka.evaluate.loading import Operator

    ops: dict[str, Any] = {}
    served = files = 0
    for line in lines:
        if not line.strip():
            continue
        path = Path(line.strip())
        try:
            job = json.loads(path.read_text())
            key = json.dumps([job["spec"], job["dtype"]], sort_keys=True)
            if key not in ops:
                ops[key] = Operator(job["spec"], "meta", job["dtype"])
            for file in job["files"]:
                files += 1
                warm_file(ops[key], file, f"aka_warm_{files}", job["shapes"])
                kernel_cache.publish_folder(job["cache"], job["shipped"])
        except Exception:  # noqa: BLE001 - only a head start: the batch's candidates compile themselves
            pass
        done = path.with_suffix(".done")
        aside = done.with_name(done.name + ".tmp")
        aside.write_text("")
        os.replace(aside, done)
        served += 1
    return served


def main(argv: list[str] | None = None) -> int:
    serve(sys.stdin)
    return 0


if __name__ == "__main__":
    sys.exit(main())
