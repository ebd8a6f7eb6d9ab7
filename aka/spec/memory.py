"""Records the loop keeps and hands to a proposer: memory of what was tried, trials, proposals.

No torch, GPU or LLM imports here: a proposer reads these records and nothing else.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from aka.spec.candidate import Candidate
from aka.spec.result import known

MemoryKind = Literal["baseline", "strategy", "anti-strategy"]


@dataclass
class MemoryRecord:
    """What one evaluated candidate taught the search.

    Rejected directions are kept as anti-strategies that later proposals see. Dropout masks
    records (sets `masked`), it never deletes them; protected records are never masked.
    """

    id: str
    """'m001', 'm002', ... in the order written."""
    candidate: str
    """Hash of the candidate the record is about."""
    version: str
    """The candidate's folder in the session ('v003')."""
    change: str
    """What changed against the parent (family, parameters, dispatcher buckets, or the LLM's edit)."""
    hypothesis: str
    """Why the proposer expected it to help."""
    verdict: str
    """'promoted', 'slower', 'within-noise', 'failed-while-timed', for a focused trial 'shape-best'
    (the best time yet at one or more of its shapes: `figures['new_bests']` names them) or
    'no-shape-best', or the harness status ('wrong', 'cheat', ...)."""
    lesson: str
    """One sentence a later proposal should take into account."""
    kind: str = "strategy"
    """'baseline', 'strategy' or 'anti-strategy'."""
    figures: dict[str, Any] = field(default_factory=dict)
    """Measured numbers: weighted speedup over the incumbent, per-shape times (visible shapes)."""
    protected: bool = False
    """Never masked: the baseline record, the incumbent's and the latest promoted one."""
    masked: bool = False
    masked_by: int | None = None
    """Number of the dropout that masked it."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "MemoryRecord":
        return cls(**known(cls, data))


@dataclass
class Trial:
    """A compact line per evaluated candidate (visible shapes only): what a tuner ranks on."""

    candidate: str
    """Candidate hash."""
    version: str
    family: str
    params: dict[str, Any]
    origin: str
    status: str
    """Harness status ('accepted', 'wrong', ...)."""
    times_us: dict[str, float] = field(default_factory=dict)
    """Visible shape id -> median time (µs; interpreter wall time on the CPU)."""
    input_shapes: dict[str, list[list[int]]] = field(default_factory=dict)
    """Visible shape id -> tensor input shapes."""
    timing: str = ""
    """'gpu' or 'cpu-interpreter' (interpreter times only rank, never report)."""
    focus: list[str] = field(default_factory=list)
    """A focused trial's shape ids (`Proposal.focus`): `times_us` holds only those; empty: every shape."""
    routes: dict[str, str] = field(default_factory=dict)
    """A dispatcher's visible shape id -> the configuration key (`aka.propose.buckets.key`) of the
    variant it runs there; empty for any other candidate."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Trial":
        return cls(**known(cls, data))


@dataclass
class Snippet:
    """A piece of retrieved knowledge as a proposer sees it."""

    source: str
    title: str
    text: str
    layer: str
    score: float
    ops: tuple[str, ...] = ()
    params: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Snippet":
        d = known(cls, data)
        d["ops"] = tuple(d.get("ops", ()))
        return cls(**d)


@dataclass
class ProposalContext:
    """Everything a proposer may know when it writes the next candidate (nothing held out)."""

    op: dict[str, Any]
    """`OpSpec.public_view()`."""
    device: dict[str, Any]
    """'kind' ('cuda' or 'cpu'), 'name', 'arch' (e.g. 'sm90'), 'vendor'."""
    iteration: int
    """Candidates evaluated so far."""
    incumbent: Candidate | None = None
    incumbent_eval: dict[str, Any] | None = None
    """`EvalResult.proposer_view()` of the incumbent."""
    last: Candidate | None = None
    last_eval: dict[str, Any] | None = None
    """Proposer view of the last evaluated candidate (its exact feedback)."""
    last_decision: str = ""
    profile_summary: str = ""
    knowledge: list[Snippet] = field(default_factory=list)
    memory: list[MemoryRecord] = field(default_factory=list)
    """Unmasked memory records only."""
    trials: list[Trial] = field(default_factory=list)
    """Every candidate evaluated in this session (for deduplication and ranking)."""
    dropouts: int = 0
    avoid_families: tuple[str, ...] = ()
    """After a dropout: families the proposer should move away from."""
    seed: int = 0


@dataclass
class Proposal:
    """A proposer's answer: the candidate and what it expects."""

    candidate: Candidate
    change: str
    """What differs from the parent, in a line."""
    hypothesis: str
    """Why it should be faster (or what it tests)."""
    failure: str = ""
    """Set when the proposer could not produce a usable candidate (e.g. a model reply with no code):
    the loop records the candidate as rejected with this reason, without running it."""
    meta: dict[str, Any] = field(default_factory=dict)
    """What the proposer wants journaled with the proposal (LLM call number, tokens, cost)."""
    focus: tuple[str, ...] = ()
    """Visible shape ids to judge the candidate at, alone (the first rung of a search that halves
    over shapes: a parameter point tuned for one shape is measured there). A focused trial skips
    the held-out shapes and is never promoted: what it measures feeds a later candidate (the
    tuner's per-shape dispatcher), which is judged at every shape and compared like any other.
    Empty: every shape, the normal evaluation."""
