"""The loop's state: plain JSON-able records and content hashes (never tensors, clients or paths to
live objects), so every checkpoint can be journaled, resumed and replayed."""

from __future__ import annotations

import operator
from dataclasses import asdict, dataclass, field
from typing import Annotated, Any, TypedDict


def merge_records(old: list[dict], new: list[dict]) -> list[dict]:
    """Memory records by id: a new version of a record replaces the old one in place."""
    out = list(old)
    index = {r["id"]: i for i, r in enumerate(out)}
    for r in new:
        if r["id"] in index:
            out[index[r["id"]]] = r
        else:
            index[r["id"]] = len(out)
            out.append(r)
    return out


@dataclass(frozen=True)
class LoopConfig:
    """How long and how the loop searches (the resolved command-line options)."""

    iterations: int = 10
    """Candidates to evaluate (a repair attempt counts as one)."""
    time_limit_min: float | None = None
    target_sol: float | None = None
    """Stop once the incumbent's weighted speed-of-light (datasheet) reaches this."""
    stall: int = 3
    """Candidates in a row without a promotion before an optimization dropout."""
    max_dropouts: int = 3
    """Stop after this many dropouts in a row that brought no promotion."""
    seed: int = 0
    shapes: tuple[str, ...] = ()
    """Only these visible shapes (held-out shapes always run); empty: all."""
    kb_k: int = 6
    """Knowledge snippets retrieved per query."""
    max_cost_usd: float | None = None
    """Stop once the proposer's model calls cost this much (litellm's local cost map)."""
    max_tokens: int | None = None
    """Stop once the proposer's model calls used this many tokens (prompt plus completion)."""
    parallel: int = 1
    """Candidates proposed and evaluated at once (a batch; the tuner only): the batch's fastest by
    its evaluation times alone goes on to the interleaved comparison."""
    confirm: bool = True
    """At the end, evaluate the best kernel once more with its baselines timed beside it,
    interleaved, at every shape (on a GPU; the report's figures come from it)."""
    strategy: str = "greedy"
    """'greedy' (the measure-revise loop) or 'map-elites' (the quality-diversity archive)."""
    search: dict[str, Any] = field(default_factory=dict)
    """Map-elites settings (aka.agent.qd.config.QDConfig) that differ from the defaults."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class AgentState(TypedDict, total=False):
    """One session's loop state (what the SQLite checkpoint holds after every node)."""

    session: str
    iteration: int
    """Candidates evaluated so far."""
    elapsed_s: float
    """Loop time spent in earlier runs of this session (a resumed run adds to it)."""
    incumbent: str | None
    """Version folder of the incumbent ('v003'), None before the first accepted candidate."""
    promoted: Annotated[list[str], operator.add]
    """Versions promoted to incumbent, in order."""
    trials: Annotated[list[dict], operator.add]
    """`Trial` records of every evaluated candidate."""
    memory: Annotated[list[dict], merge_records]
    """`MemoryRecord`s by id."""
    pending: dict | None
    """The proposal awaiting evaluation: candidate record, change, hypothesis (and, in a batch,
    'batch': the versions of the batch's members)."""
    queue: list[dict]
    """The rest of the current batch, in order: proposals like `pending` whose turn comes after it
    (evaluated with the batch's first; journaled, accepted and reflected one by one)."""
    last: dict | None
    """The last evaluated candidate: version, status, decision (promote, reason)."""
    stall: float
    """Candidates in a row without a promotion (a focused trial counts its share of the shapes)."""
    dropouts: int
    dropouts_without_progress: int
    avoid_families: list[str]
    profile_summary: str
    knowledge: list[dict]
    stop_reason: str
    events: Annotated[list[str], operator.add]
    """Short log of node names run (for tests and the progress line)."""


@dataclass
class Tick:
    """What the progress display shows after each evaluation."""

    iteration: int
    version: str
    status: str
    decision: str
    incumbent: str | None
    speedup: dict[str, float] = field(default_factory=dict)
