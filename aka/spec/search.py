"""Records of the quality-diversity search (`aka optimize --strategy map-elites`): archive cells,
elites, the directive a proposal is asked to follow, and versions of the LLM's system prompt.

No torch, GPU or LLM imports: the loop journals these and a proposer reads them.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from aka.spec.candidate import Candidate
from aka.spec.memory import ProposalContext
from aka.spec.result import known

BOTTLENECKS = ("memory-bound", "compute-bound", "latency-bound", "launch-bound", "unknown", "unprofiled")
"""The fourth descriptor: the profile's class, or one derived from the roofline figures on a GPU
without a profile, or 'unprofiled' on the CPU interpreter."""
MODES = ("seed", "improve", "axis", "weakest-axis", "all-axes", "fill-empty", "combine")
"""What a proposal is asked to do with its target cell (docs/map-elites.md)."""
CODE_AXES = ("memory", "compute", "parallel")
_KEY = re.compile(r"^m(\d)c(\d)p(\d):([a-z-]+)(?:/(.+))?$")


@dataclass(frozen=True)
class Cell:
    """One cell of the archive: the three code levels, the bottleneck class, and a niche (the
    tuner's kernel family and parameter region; empty for LLM kernels)."""

    memory: int
    compute: int
    parallel: int
    bottleneck: str = "unprofiled"
    niche: str = ""

    def __post_init__(self) -> None:
        for axis in CODE_AXES:
            if not 0 <= getattr(self, axis) <= 3:
                raise ValueError(f"cell {axis} level {getattr(self, axis)} is not in 0..3")
        if self.bottleneck not in BOTTLENECKS:
            raise ValueError(f"cell bottleneck {self.bottleneck!r} is not one of {BOTTLENECKS}")

    @property
    def key(self) -> str:
        """'m1c2p0:unprofiled' or 'm1c2p0:unprofiled/rmsnorm/one_row_registers.py@lo'."""
        base = f"m{self.memory}c{self.compute}p{self.parallel}:{self.bottleneck}"
        return f"{base}/{self.niche}" if self.niche else base

    @property
    def levels(self) -> tuple[int, int, int]:
        return self.memory, self.compute, self.parallel

    def with_levels(self, levels: tuple[int, int, int], niche: str = "") -> "Cell":
        return Cell(*levels, bottleneck=self.bottleneck, niche=niche)

    @classmethod
    def parse(cls, key: str) -> "Cell":
        m = _KEY.match(key or "")
        if m is None:
            raise ValueError(f"{key!r} is not a cell key (expected e.g. 'm1c2p0:unprofiled')")
        return cls(int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4), m.group(5) or "")


@dataclass
class Elite:
    """The best kernel found so far in one cell of one island."""

    version: str
    candidate: str
    """Candidate hash."""
    name: str
    cell: str
    """The cell key."""
    fitness: float
    """Weighted geometric-mean speedup over the reference times (`basis`); higher is better."""
    basis: str
    """What the speedup is over: 'eager' (GPU) or 'first accepted kernel (interpreter rank)'."""
    island: int
    generation: int
    family: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    origin: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Elite":
        return cls(**known(cls, data))


@dataclass
class Directive:
    """What one proposal is asked to do: which parent to start from, which cell to aim at, and
    which elites of other cells to draw on."""

    island: int
    generation: int
    mode: str
    """One of MODES."""
    selection: str
    """How the parent was chosen: 'exploit', 'explore', 'uniform', or 'seed' (empty island)."""
    target: str = ""
    """The target cell's key ('' when seeding: any correct kernel)."""
    parent: str | None = None
    """The parent elite's version."""
    parent_cell: str = ""
    axis: str = ""
    """The axis a one-axis move changes."""
    inspirations: list[dict[str, Any]] = field(default_factory=list)
    """Elites of other cells: version, cell, name, fitness."""
    prompt: str | None = None
    """The system-prompt version this proposal uses (LLM proposer)."""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"directive mode {self.mode!r} is not one of {MODES}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Directive":
        return cls(**known(cls, data))


@dataclass
class PromptVersion:
    """One version of the LLM proposer's system prompt: its evolvable sections by name."""

    id: str
    """'p000', 'p001', ... in the order created."""
    sections: dict[str, str]
    parent: str | None = None
    origin: str = "seed"
    """'seed' or 'rewrite'."""
    rewritten: str = ""
    """The section the rewrite changed."""
    diff: str = ""
    """The model's search/replace blocks as applied."""
    generation: int = 0
    fitness: float | None = None
    """The best kernel it produced (its elite fitness); None until one was correct."""
    uses: int = 0
    candidates: list[str] = field(default_factory=list)
    """Versions of the candidates proposed with it."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "PromptVersion":
        return cls(**known(cls, data))


@dataclass
class SearchContext(ProposalContext):
    """A proposal context with the search's directive: under map-elites `incumbent` is the parent
    elite (the kernel to improve), and the directive names the target cell and inspirations."""

    directive: Directive | None = None
    inspirations: list[tuple[dict[str, Any], Candidate]] = field(default_factory=list)
    """(the directive's inspiration entry, its candidate) for each inspiration."""
    system_sections: dict[str, str] | None = None
    """The sampled prompt version's sections (LLM proposer); None: the default prompt."""
    reachable: list[str] = field(default_factory=list)
    """Cell keys already filled on the directive's island."""
