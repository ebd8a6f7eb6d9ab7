"""Typed routing between the loop's nodes."""

from __future__ import annotations

from typing import Literal

from aka.agent.deps import Deps
from aka.agent.state import AgentState


def after_propose(state: AgentState) -> Literal["evaluate", "decide"]:
    """A proposal goes to the harness; none means the proposer is done, so decide stops."""
    return "evaluate" if state.get("pending") else "decide"


def after_decide(state: AgentState, deps: Deps) -> Literal["finish", "dropout", "profile", "propose"]:
    """Stop, drop out after a stall (once the current batch is through), profile a new incumbent,
    or propose again."""
    if state.get("stop_reason"):
        return "finish"
    if state.get("stall", 0) >= deps.config.stall - 1e-6 and not state.get("queue"):   # a batch ends first
        return "dropout"
    if (state.get("last") or {}).get("promote"):
        return "profile"
    return "propose"
