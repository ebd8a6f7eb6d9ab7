"""Ray execution (`--ray-address`): each operator is a Ray task that requests one GPU (one CPU on a
cluster without GPUs), runs the same `aka eval` / `aka optimize` command on the node it lands on,
and returns its JSON document, stderr and session folder to the driver, which files them in the
run folder. Ray retries a task once when its worker dies; a cluster that goes away ends the run,
resumably. `ray` is imported only here, and only when a run asks for it.
"""

from __future__ import annotations

import io
import shutil
import sys
import tarfile
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from aka.batch.tasks import Attempt, Slot, Task, command
from aka.errors import EnvironmentMissing


def import_ray():
    try:
        import ray
    except ImportError:
        raise EnvironmentMissing("--ray-address needs Ray: pip install 'aka[ray]' (or pip install ray)") from None
    return ray


def pack(path: Path, arcname: str) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(str(path), arcname=arcname, filter=lambda t: None if "__pycache__" in t.name else t)
    return buf.getvalue()


def unpack(data: bytes, into: Path) -> None:
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        tar.extractall(str(into), filter="data")


def payload(task: Task) -> dict[str, Any]:
    """What a node needs to run TASK: the task, the operator's files, the candidate, any earlier session."""
    op = Path(task.op.path)
    sessions = Path(task.op_dir) / "sessions"
    return {"task": task.to_dict(), "op": pack(op, op.name), "op_name": op.name,
            "candidate": Path(task.candidate).read_bytes() if task.candidate else None,
            "candidate_name": Path(task.candidate).name if task.candidate else None,
            "sessions": pack(sessions, "sessions") if sessions.is_dir() else None}


def run_remote(data: dict[str, Any]) -> dict[str, Any]:
    """The body of a Ray task, on the node: unpack into a scratch folder, run the command pinned to
    Ray's GPU, pack the result; the scratch folder is removed however the task ends."""
    work = Path(tempfile.mkdtemp(prefix="aka-batch-"))
    try:
        return _run_in(work, data)
    finally:
        shutil.rmtree(work, ignore_errors=True)    # a long-lived node must not keep every task's copy


def _run_in(work: Path, data: dict[str, Any]) -> dict[str, Any]:
    import socket

    from aka.batch.local import _nvml_devices, run_attempt

    unpack(data["op"], work / "op")
    op_dir = work / "opdir"
    op_dir.mkdir()
    if data["sessions"]:
        unpack(data["sessions"], op_dir)
    candidate = None
    if data["candidate"] is not None:
        candidate = work / data["candidate_name"]
        candidate.write_bytes(data["candidate"])
    task = Task.from_dict(data["task"])
    op = {**asdict(task.op), "path": str(work / "op" / data["op_name"])}
    task = Task.from_dict({**task.to_dict(), "op": op, "op_dir": str(op_dir),
                           "candidate": str(candidate) if candidate else None})
    gpu_ids = _ray_gpu_ids()
    host = socket.gethostname()
    if gpu_ids:
        info = _nvml_devices().get(gpu_ids[0], {})
        slot = Slot(kind="cuda", index=gpu_ids[0], uuid=info.get("uuid"), name=info.get("name", ""), host=host)
    else:
        slot = Slot(kind="cpu", index=None, name="cpu (Triton interpreter)", host=host)
    attempt = run_attempt(task, slot, command(task, slot, sys.executable))
    sessions = op_dir / "sessions"
    return {"returncode": attempt.returncode, "stdout": attempt.stdout, "stderr_tail": attempt.stderr_tail,
            "wall_s": attempt.wall_s, "slot": asdict(slot), "remote_op_dir": str(op_dir),
            "sessions": pack(sessions, "sessions") if sessions.is_dir() else None}


def _ray_gpu_ids() -> list[int]:
    import ray

    return [int(i) for i in ray.get_gpu_ids()]


class RayExecutor:
    """Operators as Ray tasks of one GPU each on the user's cluster (or an already started Ray)."""

    def __init__(self, address: str | None, device: str = "auto", init_kwargs: dict[str, Any] | None = None):
        self.address, self.device, self.init_kwargs = address, device, init_kwargs or {}
        self.slots: list[Slot] = []

    def run(self, tasks: list[Task], report) -> None:
        ray = import_ray()
        if not ray.is_initialized():
            ray.init(address=self.address, **self.init_kwargs)
        gpus = ray.cluster_resources().get("GPU", 0) if self.device != "cpu" else 0
        if self.device == "cuda" and not gpus:
            raise EnvironmentMissing(f"the Ray cluster at {self.address} offers no GPU")
        options = {"num_gpus": 1} if gpus else {"num_cpus": 1}
        remote = ray.remote(max_retries=1, **options)(run_remote)   # a dead worker: retried once by Ray
        pending = {}
        for task in tasks:
            pending[remote.remote(payload(task))] = task
            report("running", task, Slot(kind="cuda" if gpus else "cpu", name="ray"), None)
        while pending:
            try:
                ready, _ = ray.wait(list(pending), num_returns=1)
                ref = ready[0]
                task = pending.pop(ref)
                attempts = self._attempts(ray, ref, task)
            except (ConnectionError, ray.exceptions.RaySystemError) as exc:
                raise EnvironmentMissing(f"the Ray cluster at {self.address} went away ({exc}); finished operators "
                                         "are kept: continue with aka batch --resume RUN") from None
            report("finished", task, attempts[-1].slot or Slot(kind="cpu"), attempts)

    def _attempts(self, ray, ref, task: Task) -> list[Attempt]:
        start = time.monotonic()
        try:
            out = ray.get(ref)
        except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError) as exc:
            return [Attempt(returncode=-9, stdout="", stderr_tail=str(exc), wall_s=time.monotonic() - start)] * 2
        except ray.exceptions.RayTaskError as exc:
            return [Attempt(returncode=-1, stdout="", stderr_tail=str(exc)[-2000:], wall_s=time.monotonic() - start)] * 2
        op_dir = Path(task.op_dir)
        (op_dir / "stderr.log").write_text(out["stderr_tail"])
        stdout = out["stdout"]
        if out["sessions"]:
            unpack(out["sessions"], op_dir)
            stdout = stdout.replace(out["remote_op_dir"], str(op_dir))   # the session as filed here
        return [Attempt(returncode=out["returncode"], stdout=stdout, stderr_tail=out["stderr_tail"],
                        wall_s=out["wall_s"], slot=Slot(**out["slot"]))]


def loopback_only() -> bool:
    """True inside a network namespace whose only interface is loopback (where tests may start Ray)."""
    import socket

    return [name for _, name in socket.if_nameindex()] == ["lo"]
