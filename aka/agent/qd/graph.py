"""`build_qd_graph(deps)`: the map-elites loop as a LangGraph StateGraph. The greedy loop's nodes do
the measuring, judging, memory and dropout; select, archive, migrate and evolve are its own:

    setup -> profile -> retrieve -> select -> propose -> evaluate -> accept -> reflect -> archive -> decide
    decide -> finish | dropout -> retrieve | migrate -> (evolve) | evolve | profile (new incumbent) | select
"""

from __future__ import annotations

from functools import partial
from typing import Any, Literal

from aka.agent import nodes, routing
from aka.agent.deps import Deps
from aka.agent.qd import nodes as qd
from aka.agent.state import AgentState


class QDState(AgentState, total=False):
    """The greedy loop's state plus the archive, the directive and the prompt population."""

    islands: list[dict[str, dict]]
    """Per island: cell key -> elite (aka.spec.search.Elite as a dict)."""
    directive: dict | None
    qd_proposals: int
    """Directed proposals filed so far (one per island per generation)."""
    qd_reference: dict[str, float]
    """Per-shape times fitness is measured against on the CPU interpreter (the first accepted kernel)."""
    selections: dict[str, int]
    """'island:cell' -> times chosen as a parent (ties of the explore pick)."""
    qd_due: list[str]
    """Housekeeping due before the next selection: 'migrate', 'evolve'."""
    migrations: int
    prompts: list[dict]
    """System-prompt versions (aka.spec.search.PromptVersion as dicts)."""
    prompt_results: list[dict]


def after_decide(state: QDState, deps: Deps) -> Literal["finish", "dropout", "migrate", "evolve", "profile", "select"]:
    """Stop, drop out after a stall, do the housekeeping due, profile a new incumbent, or select."""
    step = routing.after_decide(state, deps)
    if step in ("finish", "dropout"):
        return step
    return after_housekeeping(state)


def after_housekeeping(state: QDState) -> Literal["migrate", "evolve", "profile", "select"]:
    due = state.get("qd_due") or []
    if "migrate" in due:
        return "migrate"
    if "evolve" in due:
        return "evolve"
    return "profile" if (state.get("last") or {}).get("promote") else "select"


def build_qd_graph(deps: Deps, checkpointer: Any = None):
    from langgraph.graph import END, START, StateGraph

    g = StateGraph(QDState)
    for name in ("setup", "profile", "retrieve", "evaluate", "accept", "reflect", "decide", "dropout", "finish"):
        g.add_node(name, partial(getattr(nodes, name), deps=deps))
    for name, fn in (("select", qd.select), ("propose", qd.propose), ("archive", qd.file),
                     ("migrate", qd.migrate), ("evolve", qd.evolve)):
        g.add_node(name, partial(fn, deps=deps))
    g.add_edge(START, "setup")
    g.add_edge("setup", "profile")
    g.add_edge("profile", "retrieve")
    g.add_edge("retrieve", "select")
    g.add_edge("select", "propose")
    g.add_conditional_edges("propose", routing.after_propose, ["evaluate", "decide"])
    g.add_edge("evaluate", "accept")
    g.add_edge("accept", "reflect")
    g.add_edge("reflect", "archive")
    g.add_edge("archive", "decide")
    g.add_conditional_edges("decide", partial(after_decide, deps=deps),
                            ["finish", "dropout", "migrate", "evolve", "profile", "select"])
    g.add_edge("dropout", "retrieve")
    g.add_conditional_edges("migrate", after_housekeeping, ["evolve", "profile", "select"])
    g.add_conditional_edges("evolve", after_housekeeping, ["profile", "select"])
    g.add_edge("finish", END)
    return g.compile(checkpointer=checkpointer)
