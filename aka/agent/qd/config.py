"""The map-elites knobs: defaults, overrides from the command line (`--islands`, ...) or a
resumed session's `search` record, each checked with the option that set it named."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from aka.errors import InputError


@dataclass(frozen=True)
class QDConfig:
    """How the archive is searched (journaled in the session's config as `search`)."""

    islands: int = 2
    """Separate archives; proposals go to them in turn."""
    migrate_every: int = 3
    """Generations between migrations (a generation: one proposal per island)."""
    migrants: int = 1
    """Best elites each island offers the next one (a ring) at a migration."""
    exploit: float = 0.5
    """Share of parents that are the island's best elite ..."""
    explore: float = 0.3
    """... an elite of a sparse region (fewest filled neighbours) ..."""
    uniform: float = 0.2
    """... or any elite, uniformly."""
    inspirations: int = 2
    """Elites of other cells a proposal carries."""
    rewrite_every: int = 3
    """Generations between meta-prompt rewrites (LLM proposer only)."""
    prompt_explore: float = 0.25
    """Share of proposals that use a uniformly drawn prompt version instead of one drawn by fitness."""
    combine_every: int = 4
    """Generations between the tuner's combine proposals (a per-shape dispatcher of the elites)."""
    margin: float = 0.01
    """A newcomer replaces a cell's elite when its fitness is higher by more than this share."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> "QDConfig":
        data = dict(data or {})
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise InputError(f"map-elites setting(s) {unknown} unknown (known: {', '.join(sorted(names))})")
        cfg = cls(**data)
        cfg.check()
        return cfg

    def check(self) -> None:
        for name, low in (("islands", 1), ("migrate_every", 1), ("migrants", 0), ("inspirations", 0),
                          ("rewrite_every", 1), ("combine_every", 1)):
            value = getattr(self, name)
            if not isinstance(value, int) or value < low:
                raise InputError(f"--{name.replace('_', '-')} must be an integer >= {low}, not {value!r}")
        for name in ("exploit", "explore", "uniform", "prompt_explore", "margin"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                raise InputError(f"map-elites setting {name} must be in [0, 1], not {value!r}")
        if self.exploit + self.explore + self.uniform <= 0:
            raise InputError("map-elites settings exploit, explore and uniform cannot all be 0")
