"""`build_graph(deps)`: the measure -> profile -> retrieve -> propose -> evaluate -> accept ->
reflect -> decide loop as a LangGraph StateGraph (compiled on demand, never at import)."""

from __future__ import annotations

from functools import partial
from typing import Any

from aka.agent import nodes, routing
from aka.agent.deps import Deps
from aka.agent.state import AgentState

NODES = ("setup", "profile", "retrieve", "propose", "evaluate", "accept", "reflect", "decide", "dropout",
         "finish")


def build_graph(deps: Deps, checkpointer: Any = None):
    """The compiled loop; with a checkpointer every node's update is saved before the next runs.
    `--strategy map-elites` builds the quality-diversity loop instead (aka.agent.qd.graph)."""
    if deps.config.strategy == "map-elites":
        from aka.agent.qd.graph import build_qd_graph

        return build_qd_graph(deps, checkpointer)
    from langgraph.graph import END, START, StateGraph

    g = StateGraph(AgentState)
    for name in NODES:
        g.add_node(name, partial(getattr(nodes, name), deps=deps))
    g.add_edge(START, "setup")
    g.add_edge("setup", "profile")
    g.add_edge("profile", "retrieve")
    g.add_edge("retrieve", "propose")
    g.add_conditional_edges("propose", routing.after_propose, ["evaluate", "decide"])
    g.add_edge("evaluate", "accept")
    g.add_edge("accept", "reflect")
    g.add_edge("reflect", "decide")
    g.add_conditional_edges("decide", partial(routing.after_decide, deps=deps),
                            ["finish", "dropout", "profile", "propose"])
    g.add_edge("dropout", "retrieve")
    g.add_edge("finish", END)
    return g.compile(checkpointer=checkpointer)


def initial_state(session: str) -> AgentState:
    return AgentState(session=session, iteration=0, elapsed_s=0.0, incumbent=None, promoted=[], trials=[],
                      memory=[], pending=None, queue=[], last=None, stall=0, dropouts=0, dropouts_without_progress=0,
                      avoid_families=[], profile_summary="", knowledge=[], stop_reason="", events=[])


def recursion_limit(iterations: int) -> int:
    """Enough graph steps for `iterations` candidates, dropouts, profiles and (map-elites)
    selections, migrations and prompt rewrites included."""
    return 16 * iterations + 50
