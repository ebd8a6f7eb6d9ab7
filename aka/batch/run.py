"""Running a batch: read the suite, open (or resume) the run folder, hand the unfinished operators
to an executor, record each as it finishes, and keep scoreboard.json current."""

from __future__ import annotations

import sys
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from aka.batch import score
from aka.batch.folder import RunFolder, resolve_run
from aka.batch.suite import Suite, discover
from aka.batch.tasks import Attempt, Slot, Task, find_candidate, outcome
from aka.errors import EnvironmentMissing, InputError

MODES = ("optimize", "eval")
RECORDED = ("mode", "candidates", "iterations", "time_limit_min", "kb", "model", "eval_timeout_s", "seed")
"""Request fields a resumed run keeps from its first start (what is run, not where)."""


@dataclass
class BatchRequest:
    """Everything `aka batch` was asked for (the resolved command line)."""

    suite: str | None = None
    mode: str = "optimize"
    candidates: str | None = None
    """eval mode: the folder of candidates, one per operator (<op>.py or <op>/candidate.py)."""
    iterations: int | None = None
    time_limit_min: float | None = None
    """Per operator (optimize mode)."""
    gpus: list[int] | None = None
    """GPU indices to use; None: every visible GPU (or CPU workers without one)."""
    cpu_workers: int = 2
    device: str = "auto"
    ray_address: str | None = None
    resume: str | None = None
    sessions_dir: Path = Path("sessions")
    kb: str = "none"
    model: str | None = None
    eval_timeout_s: float | None = None
    seed: int = 0
    progress: bool = True
    ops: list[str] | None = None
    """Only these operators of the suite (a new run; a resumed run keeps the ones it started with)."""


@dataclass
class BatchOutcome:
    run: Path
    scoreboard: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Every operator finished without error (a rejected candidate is a result, not an error)."""
        b = self.scoreboard
        return b.get("errored", 1) == 0 and b.get("pending", 1) == 0


def open_run(req: BatchRequest) -> tuple[RunFolder, Suite, BatchRequest, bool]:
    """(folder, suite, effective request, resumed): a new run, or RUN with its recorded request."""
    if req.resume:
        folder = RunFolder(resolve_run(req.resume, req.sessions_dir))
        meta = folder.meta()
        recorded = meta.get("request", {})
        if req.ops is not None:
            raise InputError("--ops starts a new run; --resume continues RUN with the operators it started with")
        merged = BatchRequest(**{**asdict(req), **{k: recorded.get(k) for k in RECORDED if k in recorded}})
        return folder, Suite.from_dict(meta["suite"]), merged, True
    if not req.suite:
        raise InputError("give SUITE, or --resume RUN")
    if req.mode not in MODES:
        raise InputError(f"--mode must be optimize or eval, not {req.mode!r}")
    if req.mode == "eval" and not req.candidates:
        raise InputError("--mode eval needs --candidates DIR (one candidate per operator, named after it)")
    if req.candidates and not Path(req.candidates).is_dir():
        raise InputError(f"--candidates {req.candidates}: no such folder")
    suite = discover(req.suite)
    if req.ops is not None:
        suite = suite.only(req.ops)
    if req.mode == "optimize":
        req.iterations = req.iterations or suite.budget.get("iterations")
        req.time_limit_min = req.time_limit_min or suite.budget.get("time_limit_min")
    if req.candidates:
        req.candidates = str(Path(req.candidates).resolve())
    request = {k: getattr(req, k) for k in RECORDED} | {"suite": str(Path(req.suite).resolve())}
    folder = RunFolder.create(req.sessions_dir, {"suite": suite.to_dict(), "request": request,
                                                 "environment": _environment()})
    return folder, suite, req, False


def run_batch(req: BatchRequest, executor: Any = None) -> BatchOutcome:
    """Run (or resume) a batch to its end; `executor` defaults to Ray (--ray-address) or local workers."""
    folder, suite, req, resumed = open_run(req)
    folder.lock()
    try:
        recorder = Recorder(folder, suite, req.mode, req.progress)
        tasks = recorder.plan(req, resumed)
        executor = executor or make_executor(req)
        folder.journal.emit("executor", {"kind": type(executor).__name__,
                                         "slots": [asdict(s) for s in getattr(executor, "slots", [])]})
        executor.run(tasks, recorder.report)
        board = recorder.refresh()
        folder.journal.emit("finish", {k: board[k] for k in ("done", "errored", "pending")})
        return BatchOutcome(folder.root.resolve(), board)
    finally:
        folder.unlock()


def make_executor(req: BatchRequest):
    if req.ray_address:
        from aka.batch.ray_exec import RayExecutor

        return RayExecutor(req.ray_address, device=req.device)
    from aka.batch.local import cpu_slots, gpu_slots

    if req.device == "cpu":
        return _local(req, cpu_slots(req.cpu_workers))
    slots = gpu_slots(req.gpus)
    if not slots and req.gpus is None:
        slots = _torch_gpus()
    if not slots:
        if req.device == "cuda" or req.gpus:
            raise EnvironmentMissing(f"--gpus {req.gpus} / --device cuda asked for GPUs, but none is visible")
        return _local(req, cpu_slots(req.cpu_workers))
    return _local(req, slots)


def _local(req: BatchRequest, slots: list[Slot]):
    from aka.batch.local import LocalExecutor

    limit = None if not req.time_limit_min else req.time_limit_min * 60 * 2 + 900
    return LocalExecutor(slots, timeout_s=limit)


def _torch_gpus() -> list[Slot]:
    """GPUs torch sees when NVML does not (ROCm): pinned by index, without a UUID."""
    try:
        import torch

        n = torch.cuda.device_count()
        return [Slot(kind="cuda", index=i, name=torch.cuda.get_device_name(i)) for i in range(n)]
    except Exception:   # no torch build with a GPU backend: no GPUs
        return []


class Recorder:
    """Plans the unfinished operators and records each as it finishes (thread-safe)."""

    def __init__(self, folder: RunFolder, suite: Suite, mode: str, progress: bool):
        self.folder, self.suite, self.mode, self.progress = folder, suite, mode, progress
        self.lock = threading.Lock()
        self.running: set[str] = set()

    def plan(self, req: BatchRequest, resumed: bool) -> list[Task]:
        done = self.folder.results()
        self.folder.journal.emit("resume" if resumed else "start", {
            "suite": self.suite.name, "mode": req.mode, "operators": len(self.suite.operators),
            "finished": sorted(done)})
        tasks = []
        for op in self.suite.operators:
            if op.name in done:
                continue
            op_dir = self.folder.op_dir(op.name)
            candidate = None
            if req.mode == "eval":
                found = find_candidate(Path(req.candidates), op)
                if found is None:
                    self._record(op.name, {"op": op.name, "mode": "eval", "state": "errored", "real_kernel": False,
                                           "attempts": 0, "device": {}, "shape_weights": {},
                                           "error": f"no candidate for {op.name} in {req.candidates} "
                                                    f"(looked for {op.name}.py and {op.name}/candidate.py)"}, None)
                    continue
                candidate = str(found.resolve())
            tasks.append(Task(op=op, mode=req.mode, op_dir=str(op_dir.resolve()), candidate=candidate,
                              iterations=req.iterations, time_limit_min=req.time_limit_min, kb=req.kb,
                              model=req.model, eval_timeout_s=req.eval_timeout_s, seed=req.seed))
            self.folder.journal.emit("queued", {"op": op.name})
        return tasks

    def report(self, kind: str, task: Task, slot: Slot, attempts: list[Attempt] | None) -> None:
        with self.lock:
            if kind == "running":
                self.running.add(task.op.name)
                self.folder.journal.emit("running", {"op": task.op.name, "slot": asdict(slot)})
                self._line(f"{task.op.name}: running on {slot.label}")
            elif kind == "retry":
                last = attempts[-1]
                self.folder.journal.emit("retry", {"op": task.op.name, "exit_code": last.returncode,
                                                   "stderr_tail": last.stderr_tail[-500:]})
                self._line(f"{task.op.name}: the worker died (exit {last.returncode}); retrying once")
            else:
                self.running.discard(task.op.name)
                record, doc = outcome(task, attempts)
                self._record(task.op.name, record, doc)

    def _record(self, name: str, record: dict[str, Any], doc: dict[str, Any] | None) -> None:
        self.folder.put_result(name, record, doc)
        self.folder.journal.emit(record["state"], {"op": name, "real_kernel": record["real_kernel"],
                                                   "error": record.get("error"), "attempts": record["attempts"]})
        board = self.refresh()
        sol = board.get("weighted_sol")
        self._line(f"{name}: {record['state']}" + (f" ({record['error'][:200]})" if record.get("error") else
                                                    f", real kernel: {'yes' if record['real_kernel'] else 'no'}")
                   + f"  [{board['done'] + board['errored']}/{board['operators']} finished, {len(self.running)} "
                   f"running, {board['errored']} errored" + (f", weighted SOL {sol:.3f}" if sol is not None else "")
                   + "]")

    def refresh(self) -> dict[str, Any]:
        """Recompute and write scoreboard.json from the finished operators' files."""
        records = self.folder.results()
        docs = {name: self.folder.eval_doc(name) for name in records}
        board = score.scoreboard(self.suite, self.mode, records, docs)
        board["run"] = self.folder.root.name
        self.folder.put_scoreboard(board)
        return board

    def _line(self, text: str) -> None:
        if self.progress:
            print(f"aka batch: {text}", file=sys.stderr, flush=True)


def _environment() -> dict[str, Any]:
    from aka.sessions.run import environment

    return environment()
