"""Running one optimization session: build the parts from a request, run or resume the graph
with its SQLite checkpoint, write the report. `aka optimize` is a thin caller of `run_optimize`."""

from __future__ import annotations

import platform
import sqlite3
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from aka.agent.deps import Deps, MultiHook, Profiler, Retriever
from aka.agent.graph import build_graph, initial_state, recursion_limit
from aka.agent.state import LoopConfig
from aka.errors import AkaError, InputError
from aka.evaluate.harness import Evaluator
from aka.propose.base import Proposer
from aka.sessions import report as reports
from aka.sessions.folder import SessionFolder, new_id, resolve
from aka.sessions.journal import Journal
from aka.spec.op import OpSpec
from aka.spec.result import Timing


@dataclass
class OptimizeRequest:
    """Everything `aka optimize` was asked for (the resolved command line)."""

    op: str
    config: LoopConfig = field(default_factory=LoopConfig)
    sessions_dir: Path = Path("sessions")
    resume: str | None = None
    device: str = "auto"
    kb: str = "auto"
    """'auto' (Chroma when installed, else in memory), 'chroma', 'memory' or 'none'."""
    kb_dir: Path | None = None
    embedder: str = "minilm-l6-v2"
    kernel_roots: tuple[Path, ...] = ()
    trials: int = 3
    reps: int = 100
    timeout_s: float | None = None
    progress: bool = True
    iterations_given: bool = True
    """False when --iterations was left out: a resumed session keeps its recorded budget."""
    model: str | None = None
    """A litellm model string: the LLM proposer; None: the tuner (a resumed session keeps its model)."""
    api_base: str | None = None
    llm_timeout_s: float = 600.0


@dataclass
class Outcome:
    """How a session ended."""

    session: Path
    stop_reason: str
    best: str | None
    """Version of the winning kernel, None when no correct and honest kernel was found."""
    iterations: int
    summary: dict[str, Any] = field(default_factory=dict)
    llm: dict[str, Any] = field(default_factory=dict)
    """The model calls' spend (calls, tokens, cost_usd, latency_s, reused); empty without a model."""

    @property
    def ok(self) -> bool:
        """A best kernel that, where it was evaluated again at the end, passed again."""
        confirmed = self.summary.get("confirmed") or {}
        return self.best is not None and confirmed.get("status", "accepted") == "accepted"


class Progress:
    """One line per evaluated candidate on stderr (quiet under --json)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.incumbent = "-"

    def emit(self, kind: str, data: dict[str, Any]) -> None:
        if not self.enabled:
            return
        if kind == "evaluate":
            self._line(f"[{data['version']}] {data['status']}"
                       + (" (recovered from disk)" if data.get("recovered") else "")
                       + (f": {data['rejections'][0]}" if data.get("rejections") else "")
                       + _geomeans(data.get("speedup") or {}))
        elif kind == "confirm":
            self._line(f"[{data['version']}] the best, evaluated again with its baselines interleaved: "
                       f"{data['status']}" + (f": {data['rejections'][0]}" if data.get("rejections") else "")
                       + _geomeans(data.get("speedup") or {}))
        elif kind == "accept":
            if data["promote"]:
                self.incumbent = data["version"]
            self._line(f"   {'promoted' if data['promote'] else 'kept incumbent'}: {data['reason']}"
                       f" (incumbent {self.incumbent})")
        elif kind == "propose" and data.get("llm_call"):
            how = "reused from the session" if data.get("reused") else (
                f"{data.get('tokens', 0)} tokens, ${data.get('cost_usd', 0.0):.4f}, {data.get('latency_s', 0.0):.1f} s")
            self._line(f"   model call {data['llm_call']} ({data.get('purpose')}): {how}"
                       + (f"; {data['failure']}" if data.get("failure") else ""))
        elif kind == "propose" and data.get("batch"):
            self._line(f"evaluating a batch of {data['batch']} candidates side by side (--parallel)")
        elif kind == "dropout":
            self._line(f"   dropout #{data['number']}: masked {len(data['masked'])} memory records; "
                       f"moving away from {', '.join(data['avoid_families']) or '-'}")
        elif kind == "profile" and data.get("summary"):
            self._line(f"   profiled {data['version']} at {data['shape']}")
        elif kind == "stop":
            self._line(f"stopped: {data['reason']}")

    @staticmethod
    def _line(text: str) -> None:
        print(f"aka: {text}", file=sys.stderr, flush=True)


def _geomeans(speedup: dict[str, dict[str, float]]) -> str:
    """' (geomean 1.23x eager, 1.05x torch.compile)' over the shapes, or '' (interpreter runs)."""
    import math

    names = sorted({k for row in speedup.values() for k in row})
    parts = []
    for name in names:
        xs = [row[name] for row in speedup.values() if row.get(name, 0) > 0]
        if xs:
            parts.append(f"{math.exp(sum(map(math.log, xs)) / len(xs)):.2f}x {name}")
    return f" (geomean {', '.join(parts)})" if parts else ""


class BaselineSaver:
    """Persists the evaluator's baseline cache after each evaluation (a resumed run reuses it)."""

    def __init__(self, folder: SessionFolder, evaluator: Evaluator):
        self.folder, self.evaluator = folder, evaluator

    def emit(self, kind: str, data: dict[str, Any]) -> None:
        cache = getattr(self.evaluator, "baselines", None)
        if kind == "evaluate" and cache:
            self.folder.put_baselines(cache)


def environment() -> dict[str, Any]:
    """Versions, the git commit of this aka and the GPU with its driver (recorded in session.json)."""
    import aka
    from aka.hardware.nvml import device_info

    env: dict[str, Any] = {"aka": aka.__version__, "python": platform.python_version(),
                           "platform": platform.platform()}
    from importlib.metadata import PackageNotFoundError, version

    for dist in ("torch", "triton", "langgraph", "optuna"):
        try:
            env[dist] = version(dist)
        except PackageNotFoundError:
            env[dist] = None
    try:
        root = Path(aka.__file__).resolve().parents[1]
        env["git_commit"] = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                                           text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.TimeoutExpired):
        env["git_commit"] = None
    env["gpu"] = device_info()
    return env


def open_session(req: OptimizeRequest, spec: OpSpec) -> tuple[SessionFolder, LoopConfig, bool]:
    """(folder, config, resumed), the folder locked for this process: a new session, or the one
    named by --resume with its recorded config (a larger --iterations extends its budget)."""
    if req.resume:
        folder = SessionFolder(resolve(req.resume, req.sessions_dir))
        folder.lock()
        cfg = folder.meta().get("config", {})
        budget = req.config.iterations if req.iterations_given else cfg.get("iterations", req.config.iterations)
        given = {k: getattr(req.config, k) for k in ("max_cost_usd", "max_tokens") if getattr(req.config, k) is not None}
        config = LoopConfig(**{**cfg, "shapes": tuple(cfg.get("shapes", ())), "iterations": budget, **given})
        return folder, config, True
    sid = new_id(spec.name)
    meta = {"op": {"name": spec.name, "path": spec.path}, "config": req.config.to_dict(),
            "request": {k: str(v) for k, v in asdict(req).items() if k != "config"},
            "llm": {"model": req.model, "api_base": req.api_base} if req.model else None,
            "environment": environment()}
    folder = SessionFolder.create(req.sessions_dir, sid, meta)
    folder.lock()
    return folder, req.config, False


def run_session(folder: SessionFolder, spec: OpSpec, config: LoopConfig, evaluator: Evaluator,
                proposer: Proposer, *, retriever: Retriever | None = None, profiler: Profiler | None = None,
                progress: bool = True, resumed: bool = False, extra_hooks: tuple = ()) -> Outcome:
    """Run (or resume) the loop of one session folder to its stop, then write the report (the
    folder is locked here unless its opener already holds the lock)."""
    if not folder.locked:
        folder.lock()
    journal = Journal(folder.journal_path)
    try:
        hooks = MultiHook(journal, Progress(progress), BaselineSaver(folder, evaluator), *extra_hooks)
        if journal.seq == 0:
            journal.emit("config", {"session": folder.root.name, "op": spec.name, "config": config.to_dict(),
                                    "meta": folder.meta()})
        deps = Deps(spec=spec, config=config, evaluator=evaluator, proposer=proposer, store=folder, hooks=hooks,
                    retriever=retriever, profiler=profiler)
        conn = sqlite3.connect(str(folder.checkpoint_path), check_same_thread=False)
        try:
            final = _invoke(deps, conn, folder.root.name, config, resumed, journal)
        except AkaError as exc:
            journal.emit("error", {"type": type(exc).__name__, "message": str(exc), "exit_code": exc.exit_code,
                                   "resumable": True})
            raise
        finally:
            conn.close()
        best = folder.best_version()
        summary = reports.write_report(folder, spec)
        spend = getattr(proposer, "spend", None)
        return Outcome(folder.root.resolve(), final.get("stop_reason", ""), best, final.get("iteration", 0), summary,
                       llm=spend().to_dict() if callable(spend) else {})
    finally:
        folder.unlock()


def _invoke(deps: Deps, conn: sqlite3.Connection, thread: str, config: LoopConfig, resumed: bool,
            journal: Journal) -> dict[str, Any]:
    from langgraph.checkpoint.sqlite import SqliteSaver

    graph = build_graph(deps, SqliteSaver(conn))
    run_cfg = {"configurable": {"thread_id": thread}, "recursion_limit": recursion_limit(config.iterations)}
    snapshot = graph.get_state(run_cfg)
    if resumed and snapshot.values:
        done = [t.name for t in snapshot.tasks if t.result is not None]
        if not snapshot.next and not snapshot.tasks:
            journal.emit("resume", {"note": "the session had already stopped; nothing to run"})
            return dict(snapshot.values)
        # a node whose update was saved just before the process died shows no `next` but a task with
        # its result: the run goes on from its routing (it never means the session had stopped)
        journal.emit("resume", {"next": list(snapshot.next), "iteration": snapshot.values.get("iteration", 0),
                                **({"completing": done} if done else {})})
        return graph.invoke(None, run_cfg, durability="sync")
    return graph.invoke(initial_state(thread), run_cfg, durability="sync")


def load_baselines(evaluator: Evaluator, folder: SessionFolder) -> None:
    """Give a resumed session's evaluator the baselines its earlier runs timed."""
    cache = getattr(evaluator, "baselines", None)
    if cache is not None:
        for key, row in folder.baselines().items():
            cache[key] = {n: Timing(**t) for n, t in row.items()}


def check_resume_op(folder: SessionFolder, spec: OpSpec) -> None:
    recorded = folder.meta().get("op", {}).get("name")
    if recorded and recorded != spec.name:
        raise InputError(f"{folder.root}: the session optimizes {recorded}, not {spec.name}")

