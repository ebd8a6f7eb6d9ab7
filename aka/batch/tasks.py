"""One operator's work as a command: `aka eval` or `aka optimize` with --json, run in a process of
its own on one device, and what its one JSON document means for the scoreboard.

A command that exits 0 or 1 with its document finished the operator; 2 or 3 (bad input, missing
environment) errored it; a process killed by a signal, or one that died without its document, is a
dead worker: the executor retries the operator once.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from aka.batch.suite import Operator

STDERR_TAIL = 4000


@dataclass(frozen=True)
class Slot:
    """Where a worker runs: one GPU (pinned with CUDA_VISIBLE_DEVICES) or the CPU interpreter."""

    kind: str
    """'cuda' or 'cpu'."""
    index: int | None = None
    """The GPU's index on its host (None on the CPU)."""
    uuid: str | None = None
    name: str = ""
    host: str = ""
    """The Ray node's address (Ray runs); empty locally."""

    @property
    def label(self) -> str:
        return f"gpu{self.index}" if self.kind == "cuda" else f"cpu{'' if self.index is None else self.index}"


@dataclass(frozen=True)
class Task:
    """One operator to run."""

    op: Operator
    mode: str
    """'eval' or 'optimize'."""
    op_dir: str
    """The operator's folder in the run (ops/<name>)."""
    candidate: str | None = None
    """eval mode: the candidate file."""
    iterations: int | None = None
    time_limit_min: float | None = None
    kb: str = "none"
    model: str | None = None
    eval_timeout_s: float | None = None
    seed: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Task":
        return cls(**{**data, "op": Operator(**data["op"])})


@dataclass
class Attempt:
    """How one run of an operator's command went."""

    returncode: int
    stdout: str
    stderr_tail: str = ""
    wall_s: float = 0.0
    slot: Slot | None = None
    document: dict[str, Any] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        try:
            doc = json.loads(self.stdout) if self.stdout.strip() else None
        except ValueError:
            doc = None
        self.document = doc if isinstance(doc, dict) else None

    @property
    def died(self) -> bool:
        """Killed by a signal, or gone without its one JSON document."""
        return self.returncode < 0 or self.returncode > 3 or self.document is None


def command(task: Task, slot: Slot, python: str = sys.executable) -> list[str]:
    """The aka command line of TASK on SLOT (paths as seen where it runs)."""
    device = "cuda" if slot.kind == "cuda" else "cpu"
    if task.mode == "eval":
        argv = [python, "-m", "aka", "eval", task.op.path, str(task.candidate), "--json", "--device", device,
                "--seed", str(task.seed)]
        if task.eval_timeout_s:
            argv += ["--timeout", str(task.eval_timeout_s)]
        return argv
    sessions = Path(task.op_dir) / "sessions"
    previous = interrupted_session(sessions)
    argv = [python, "-m", "aka", "optimize"]
    argv += ["--resume", str(previous)] if previous else [task.op.path, "--seed", str(task.seed)]
    argv += ["--json", "--device", device, "--sessions-dir", str(sessions), "--kb", task.kb]
    if task.iterations:
        argv += ["--iterations", str(task.iterations)]
    if task.time_limit_min:
        argv += ["--time-limit", str(task.time_limit_min)]
    if task.eval_timeout_s:
        argv += ["--eval-timeout", str(max(10.0, task.eval_timeout_s))]
    if task.model and not previous:
        argv += ["--model", task.model]
    return argv


def slot_env(slot: Slot) -> dict[str, str]:
    """The environment that pins a worker to its device."""
    if slot.kind == "cuda" and slot.index is not None:
        return {"CUDA_VISIBLE_DEVICES": str(slot.index), "HIP_VISIBLE_DEVICES": str(slot.index)}
    return {"AKA_DEVICE": "cpu", "CUDA_VISIBLE_DEVICES": ""}


def interrupted_session(sessions: Path) -> Path | None:
    """The operator's session folder from an earlier, interrupted attempt (resumed, not restarted)."""
    if not sessions.is_dir():
        return None
    found = sorted(d for d in sessions.iterdir() if (d / "session.json").is_file())
    return found[-1] if found else None


def find_candidate(directory: Path, op: Operator) -> Path | None:
    """DIR/<op>.py or DIR/<op>/candidate.py (a KernelBench checkout's names without the level too)."""
    names = [op.name]
    if op.form == "kernelbench" and op.name.startswith("level") and "-" in op.name:
        names.append(op.name.split("-", 1)[1])
    for name in names:
        for p in (directory / f"{name}.py", directory / name / "candidate.py"):
            if p.is_file():
                return p
    return None


def outcome(task: Task, attempts: list[Attempt]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(the operator's result record, the EvalResult document to score) from its attempts."""
    last = attempts[-1]
    base = {"op": task.op.name, "mode": task.mode, "attempts": len(attempts), "exit_code": last.returncode,
            "wall_s": round(sum(a.wall_s for a in attempts), 3), "device": _device(last),
            "shape_weights": shape_weights(task.op.path)}
    if last.died:
        why = f"killed by signal {-last.returncode}" if last.returncode < 0 else (
            f"exited {last.returncode} without its JSON document")
        return {**base, "state": "errored", "real_kernel": False,
                "error": f"the worker died {len(attempts)} time(s) ({why}): {last.stderr_tail[-500:]}"}, None
    doc = last.document or {}
    if last.returncode in (2, 3) or doc.get("ok") is False and doc.get("status") == "error":
        return {**base, "state": "errored", "real_kernel": False,
                "error": f"{doc.get('error_type', 'error')}: {doc.get('message', last.stderr_tail[-500:])}"}, None
    if task.mode == "eval":
        accepted = doc.get("status") == "accepted"
        rec = {**base, "state": "done", "real_kernel": accepted, "status": doc.get("status"),
               "candidate": task.candidate,
               "rejections": [r.get("rule") for r in doc.get("rejections", [])]}
        return rec, doc
    session = Path(doc.get("session", ""))
    eval_doc = best_eval(session, doc.get("best"))
    rec = {**base, "state": "done", "real_kernel": eval_doc is not None and eval_doc.get("status") == "accepted",
           "status": eval_doc.get("status") if eval_doc else "none", "best": doc.get("best"),
           "best_name": doc.get("best_name"), "stop_reason": doc.get("stop_reason"),
           "iterations": doc.get("iterations"), "session": _relative(session, Path(task.op_dir))}
    return rec, eval_doc


def best_eval(session: Path, best: str | None) -> dict[str, Any] | None:
    """The best kernel's EvalResult document in an optimize session, or None: its end-of-session
    evaluation with interleaved baselines where the session made one (the session report's
    figures; a best kernel that failed it is no real kernel), else its evaluation in the search."""
    if not best:
        return None
    from aka.sessions.folder import SessionFolder

    try:
        folder = SessionFolder(session)
        result = folder.get_confirmed(best) or folder.get_eval(best)
    except (OSError, ValueError):
        return None
    return result.to_dict() if result else None


def shape_weights(op_path: str) -> dict[str, float]:
    """Shape id -> weight of every shape of the operator ({} when its spec cannot be read)."""
    from aka.errors import AkaError
    from aka.spec.load import load_op

    try:
        spec = load_op(op_path)
    except AkaError:
        return {}
    every = spec.shapes + spec.held_out_shapes + spec.cpu_shapes + spec.cpu_held_out_shapes
    return {s.id: float(s.weight) for s in every}


def _device(attempt: Attempt) -> dict[str, Any]:
    slot = attempt.slot
    out: dict[str, Any] = asdict(slot) if slot else {}
    doc_device = ((attempt.document or {}).get("device") or {}) if attempt.document else {}
    if doc_device.get("name") and not out.get("name"):
        out["name"] = doc_device["name"]
    return out


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)
