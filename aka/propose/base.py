"""The proposer seam: given a `ProposalContext`, write the next candidate (or say nothing is left)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from aka.spec.memory import Proposal, ProposalContext


@runtime_checkable
class Proposer(Protocol):
    """Writes candidates. Implementations: the tuner (no LLM), the LLM proposer, the scripted fake.

    Attributes:
        name: recorded in the journal and on every candidate's origin.
        reads_profile (optional, default True): whether it uses the incumbent's profile; when
            False the loop profiles only the best kernel, once, at the end.
        batches (optional, default False): whether it may be asked for several candidates at once
            (`aka optimize --parallel`): each proposal must follow from the context alone, the ones
            already asked listed in it as trials with status 'pending'.
    """

    name: str

    def propose(self, ctx: ProposalContext) -> Proposal | None:
        """The next candidate, or None when the proposer has nothing left to try."""
        ...

    def reset(self) -> None:
        """Forget conversational context (optimization dropout); the next call starts afresh
        from the context alone."""
        ...
