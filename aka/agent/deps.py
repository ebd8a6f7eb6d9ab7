"""What the loop is built from: live objects behind protocols (the graph holds none of them in its
state). The CLI builds the real ones; tests pass fakes."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from aka.agent.state import LoopConfig
from aka.evaluate.harness import Evaluator
from aka.propose.base import Proposer
from aka.spec.candidate import Candidate
from aka.spec.memory import MemoryRecord, Snippet
from aka.spec.op import OpSpec
from aka.spec.result import Decision, EvalResult


class Store(Protocol):
    """Where a session keeps its candidates, results and memory (the session folder)."""

    def put_candidate(self, version: str, candidate: Candidate) -> Path:
        """Write the record and the materialized file; return the file's path."""
        ...

    def candidate(self, version: str) -> tuple[Candidate, Path]:
        ...

    def version_of(self, candidate_hash: str) -> str | None:
        """The version folder already holding this candidate, if any."""
        ...

    def put_eval(self, version: str, result: EvalResult) -> None:
        ...

    def get_eval(self, version: str) -> EvalResult | None:
        ...

    def put_decision(self, version: str, decision: Decision) -> None:
        ...

    def get_decision(self, version: str) -> Decision | None:
        ...

    def put_memory(self, records: list[MemoryRecord]) -> None:
        ...

    def put_profile(self, version: str, summary: str, report: dict[str, Any] | None) -> None:
        ...

    def put_best(self, version: str) -> None:
        """Copy the winning candidate and its evaluation to `best/`."""
        ...

    def put_confirmed(self, version: str, result: EvalResult) -> None:
        """The end-of-session evaluation of the best kernel, its baselines interleaved (beside
        `best/` too when VERSION is the best)."""
        ...

    def get_confirmed(self, version: str) -> EvalResult | None:
        ...


class Hooks(Protocol):
    """Subscribers to the loop's events (journal, progress line, live inspector)."""

    def emit(self, kind: str, data: dict[str, Any]) -> None:
        ...


class Retriever(Protocol):
    """Knowledge lookup for the loop (the knowledge base behind it, scope filters applied)."""

    def retrieve(self, spec: OpSpec, device: dict[str, Any], profile_summary: str, k: int) -> list[Snippet]:
        ...


class Profiler(Protocol):
    """Profiles one shape of a candidate on the platform's profiler."""

    def profile(self, spec: OpSpec, candidate: Path, shape_id: str, compulsory_bytes: float | None,
                out_dir: Path) -> tuple[str, dict[str, Any] | None]:
        """(summary text, normalized report or None); a failing application is data in the text."""
        ...


class MultiHook:
    """Fan one event out to several hooks."""

    def __init__(self, *hooks: Hooks):
        self.hooks = [h for h in hooks if h is not None]

    def emit(self, kind: str, data: dict[str, Any]) -> None:
        for h in self.hooks:
            h.emit(kind, data)


@dataclass
class Deps:
    """Everything the graph's nodes use."""

    spec: OpSpec
    config: LoopConfig
    evaluator: Evaluator
    proposer: Proposer
    store: Store
    hooks: Hooks
    retriever: Retriever | None = None
    profiler: Profiler | None = None
    profile_dir: Path | None = None
    clock: Callable[[], float] = time.monotonic
    started: float = field(default_factory=time.monotonic)
    """When this run began (monotonic); the time limit counts from here plus earlier runs."""
