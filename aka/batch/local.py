"""Local execution: one worker per GPU, each pinned with CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES
and running one operator at a time (never two timings at once on one GPU), fed from one queue; on
a machine without a GPU, a small number of Triton-interpreter workers.

Each operator runs as its own `aka eval` / `aka optimize` process; a process that dies is replaced
by a fresh one and its operator retried once.
"""

from __future__ import annotations

import os
import queue
import subprocess
import tempfile
import threading
import time
from typing import Callable

from aka.batch.tasks import STDERR_TAIL, Attempt, Slot, Task, command, slot_env
from aka.evaluate.pool import die_with_parent

CommandFn = Callable[[Task, Slot], list[str]]
Report = Callable[[str, Task, Slot, "list[Attempt] | None"], None]
"""Called as report(kind, task, slot, attempts) with kind 'running', 'retry' or 'finished'."""
MAX_ATTEMPTS = 2
CPU_WORKERS = 2


def gpu_slots(indices: list[int] | None = None) -> list[Slot]:
    """One slot per visible NVIDIA GPU (or the given indices), with its UUID and name from NVML."""
    info = _nvml_devices()
    chosen = indices if indices is not None else sorted(info)
    return [Slot(kind="cuda", index=i, uuid=info.get(i, {}).get("uuid"), name=info.get(i, {}).get("name", ""))
            for i in chosen]


def cpu_slots(n: int = CPU_WORKERS) -> list[Slot]:
    return [Slot(kind="cpu", index=i, name="cpu (Triton interpreter)") for i in range(max(1, n))]


def _nvml_devices() -> dict[int, dict[str, str]]:
    try:
        import pynvml as nv

        nv.nvmlInit()
    except Exception:   # no pynvml, no driver: no GPUs to pin
        return {}
    out = {}
    try:
        for i in range(nv.nvmlDeviceGetCount()):
            h = nv.nvmlDeviceGetHandleByIndex(i)
            uuid, name = nv.nvmlDeviceGetUUID(h), nv.nvmlDeviceGetName(h)
            out[i] = {"uuid": uuid.decode() if isinstance(uuid, bytes) else uuid,
                      "name": name.decode() if isinstance(name, bytes) else name}
    except nv.NVMLError:
        pass
    finally:
        try:
            nv.nvmlShutdown()
        except nv.NVMLError:
            pass
    return out


def run_attempt(task: Task, slot: Slot, argv: list[str], timeout_s: float | None = None) -> Attempt:
    """Run one operator's command on SLOT; its stderr goes to the operator's stderr.log."""
    env = dict(os.environ)
    env.update(slot_env(slot))
    log = os.path.join(task.op_dir, "stderr.log")
    start = time.monotonic()
    with open(log, "w") as err, tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env, preexec_fn=die_with_parent,
                                stdin=subprocess.DEVNULL)
        try:
            rc = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = proc.wait()
        out.seek(0)
        stdout = out.read()
    with open(log, errors="replace") as f:
        tail = f.read()[-STDERR_TAIL:]
    return Attempt(returncode=rc, stdout=stdout, stderr_tail=tail, wall_s=time.monotonic() - start, slot=slot)


class LocalExecutor:
    """A queue of operators and one worker thread per slot; each thread runs one operator at a time."""

    def __init__(self, slots: list[Slot], command_fn: CommandFn = command, timeout_s: float | None = None):
        if not slots:
            raise ValueError("a local executor needs at least one slot")
        self.slots, self.command_fn, self.timeout_s = slots, command_fn, timeout_s
        self._stop = threading.Event()

    def run(self, tasks: list[Task], report: Report) -> None:
        """Run every task; `report` is called from the worker threads (the caller serializes it)."""
        todo: queue.Queue[Task] = queue.Queue()
        for t in tasks:
            todo.put(t)
        threads = [threading.Thread(target=self._worker, args=(slot, todo, report), daemon=True,
                                    name=f"aka-batch-{slot.label}") for slot in self.slots]
        for th in threads:
            th.start()
        try:
            for th in threads:
                while th.is_alive():
                    th.join(0.2)
        except KeyboardInterrupt:
            self._stop.set()
            raise

    def _worker(self, slot: Slot, todo: "queue.Queue[Task]", report: Report) -> None:
        while not self._stop.is_set():
            try:
                task = todo.get_nowait()
            except queue.Empty:
                return
            attempts: list[Attempt] = []
            report("running", task, slot, None)
            while len(attempts) < MAX_ATTEMPTS:
                attempt = run_attempt(task, slot, self.command_fn(task, slot), self.timeout_s)
                attempts.append(attempt)
                if not attempt.died:
                    break
                if len(attempts) < MAX_ATTEMPTS:
                    report("retry", task, slot, attempts)
            report("finished", task, slot, attempts)
