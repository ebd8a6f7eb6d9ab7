"""A proposer that returns a fixed list of candidates in order: the fake the loop's tests drive."""

from __future__ import annotations

from typing import Callable, Sequence

from aka.spec.candidate import Candidate
from aka.spec.memory import Proposal, ProposalContext


class ScriptedProposer:
    """Hands out `script` one by one; `None` when it runs out. Records every context it saw."""

    name = "scripted"

    def __init__(self, script: Sequence[Candidate | Callable[[ProposalContext], Candidate]],
                 focus: dict[str, tuple[str, ...]] | None = None):
        self.script = list(script)
        self.focus = dict(focus or {})
        """Candidate name -> the shapes it is to be judged at alone (`Proposal.focus`)."""
        self.seen: list[ProposalContext] = []
        self.resets = 0

    def propose(self, ctx: ProposalContext) -> Proposal | None:
        self.seen.append(ctx)
        done = {t.candidate for t in ctx.trials}
        for item in self.script:
            cand = item(ctx) if callable(item) else item
            if cand.hash not in done:
                parent = ctx.incumbent.hash if ctx.incumbent else None
                cand = Candidate(cand.source, cand.params, cand.origin, cand.name, parent,
                                 cand.rationale, cand.family)
                return Proposal(cand, change=f"scripted {cand.name}", hypothesis=cand.rationale or "scripted",
                                focus=tuple(self.focus.get(cand.name, ())))
        return None

    def reset(self) -> None:
        self.resets += 1
