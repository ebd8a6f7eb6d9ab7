"""The map-elites loop's own nodes (the others are the greedy loop's): select a directive, propose
toward it, file the judged kernel in its island's archive, migrate elites between islands, and
rewrite the weakest section of the LLM's system prompt. Each returns a partial state update and
journals what it did."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from aka.agent import nodes
from aka.agent.deps import Deps
from aka.agent.qd import archive as arc
from aka.agent.qd import prompts as pop
from aka.agent.qd.config import QDConfig
from aka.agent.qd.select import choose, rng_for
from aka.propose.prompt import SECTIONS
from aka.spec.search import Cell, Directive, Elite, SearchContext


def config(deps: Deps) -> QDConfig:
    return QDConfig.from_dict(deps.config.search)


def _evolving(deps: Deps) -> bool:
    """Meta-prompt evolution runs with a model behind the proposer (the LLM proposer)."""
    return getattr(deps.proposer, "client", None) is not None and getattr(deps.proposer, "log", None) is not None


def select(state: dict, deps: Deps) -> dict[str, Any]:
    qd = config(deps)
    islands = state.get("islands") or [{} for _ in range(qd.islands)]
    update: dict[str, Any] = {"islands": islands, "events": ["select"]}
    prompts = state.get("prompts") or []
    if _evolving(deps) and not prompts:
        prompts = pop.seed(SECTIONS)
        _save_prompt(deps, prompts[0])
        deps.hooks.emit("prompt", {"created": "p000", "origin": "seed", "version": prompts[0]})
        update["prompts"] = prompts
    n = state.get("qd_proposals", 0)
    reachable = None
    if hasattr(deps.proposer, "reachable"):
        reachable = deps.proposer.reachable(nodes.context(state, deps))
    measured = frozenset(t["family"] for t in state.get("trials", []))
    d = choose(islands, n, qd, deps.config.seed, state.get("selections", {}), reachable,
               _combine_due(state, qd, deps), measured)
    if prompts:
        d.prompt = pop.sample(prompts, rng_for(deps.config.seed, n, "prompt"), qd.prompt_explore)
    if d.parent:
        key = f"{d.island}:{d.parent_cell}"
        update["selections"] = {**state.get("selections", {}), key: state.get("selections", {}).get(key, 0) + 1}
    deps.hooks.emit("select", d.to_dict())
    update["directive"] = d.to_dict()
    return update


def _combine_due(state: dict, qd: QDConfig, deps: Deps) -> bool:
    """The tuner combines the elites into a dispatcher at the start of every combine_every-th generation."""
    n = state.get("qd_proposals", 0)
    islands = state.get("islands") or []
    generation = n // max(1, len(islands) or qd.islands)
    elites = sum(len(c) for c in islands)
    return (getattr(deps.proposer, "name", "") == "tuner" and n % max(1, len(islands) or 1) == 0
            and generation > 0 and generation % qd.combine_every == 0 and elites >= 2)


def propose(state: dict, deps: Deps) -> dict[str, Any]:
    d = Directive.from_dict(state["directive"])
    ctx = search_context(state, deps, d)
    nodes.warm_ahead(deps, ctx)
    proposal = deps.proposer.propose(ctx)
    extra = {"island": d.island, "mode": d.mode, "target": d.target, "parent_elite": d.parent,
             "inspirations": [i["version"] for i in d.inspirations]}
    if d.prompt:
        extra["prompt"] = d.prompt
    return nodes.record_proposal(proposal, deps, **extra)


def search_context(state: dict, deps: Deps, d: Directive) -> SearchContext:
    """The greedy loop's context with the parent elite as the kernel to start from, the directive,
    the inspirations' candidates and the sampled prompt version's sections."""
    base = nodes.context(state, deps)
    fields = {f: getattr(base, f) for f in base.__dataclass_fields__}
    if d.parent:
        fields["incumbent"], fields["incumbent_eval"] = nodes.version_view(deps, d.parent)
    shown = [(entry, deps.store.candidate(entry["version"])[0]) for entry in d.inspirations]
    sections = None
    if d.prompt:
        sections = next((p["sections"] for p in state.get("prompts", []) if p["id"] == d.prompt), None)
    islands = state.get("islands") or []
    filled = sorted(islands[d.island]) if d.island < len(islands) else []
    return SearchContext(**fields, directive=d, inspirations=shown, system_sections=sections, reachable=filled)


def file(state: dict, deps: Deps) -> dict[str, Any]:
    """File the judged kernel in its island's archive (the 'archive' node)."""
    qd = config(deps)
    d = Directive.from_dict(state["directive"])
    last = state["last"]
    version = last["version"]
    result = deps.store.get_eval(version)
    cand, _ = deps.store.candidate(version)
    visible = deps.spec.run_shapes(deps.evaluator.interpreter)[0]
    weights = {s.id: s.weight for s in visible}
    reference = state.get("qd_reference") or {}
    if result.accepted and not reference:
        reference = arc.times(result)
    scored = arc.fitness(result, weights, reference)
    islands = [dict(c) for c in state.get("islands") or [{} for _ in range(qd.islands)]]
    cell, why = arc.cell_for(cand, result, _profile(deps, version), deps.evaluator.interpreter, weights)
    data: dict[str, Any] = {"version": version, "island": d.island, "generation": d.generation, "mode": d.mode,
                            "cell": cell.key, "why": why, "status": result.status.value}
    improved = False
    if scored is None:
        data["verdict"] = "rejected by the harness: not filed"
    else:
        elite = Elite(version, cand.hash, cand.name, cell.key, scored[0], scored[1], d.island, d.generation,
                      family=cand.family, params=dict(cand.params), origin=cand.origin)
        islands[d.island], verdict, replaced = arc.insert(islands[d.island], elite, qd.margin)
        improved = verdict in ("new cell", "replaced")
        data.update(fitness=round(scored[0], 4), basis=scored[1], verdict=verdict, replaced=replaced,
                    hit_target=bool(d.target) and _same_place(cell, d.target))
    n = state.get("qd_proposals", 0) + 1
    data["archive"] = arc.summary(islands)
    deps.hooks.emit("archive", data)
    update: dict[str, Any] = {"islands": islands, "qd_proposals": n, "qd_reference": reference,
                              "events": ["archive"], "qd_due": _due(n, len(islands), qd, bool(state.get("prompts")))}
    if improved:
        update["stall"] = 0
    if state.get("prompts") and d.prompt:
        update["prompts"] = pop.credit(state["prompts"], d.prompt, version, scored[0] if scored else None)
        update["prompt_results"] = (state.get("prompt_results") or []) + [
            {"version": version, "prompt": d.prompt, "status": result.status.value, "cell": cell.key,
             "fitness": round(scored[0], 4) if scored else None}]
    return update


def _same_place(cell: Cell, target: str) -> bool:
    aim = Cell.parse(target)
    return cell.levels == aim.levels and (not aim.niche or aim.niche == cell.niche)


def _due(n: int, islands: int, qd: QDConfig, prompts: bool) -> list[str]:
    """Housekeeping due after proposal N: a migration, a prompt rewrite (at generation ends)."""
    if n % islands:
        return []
    generation = n // islands
    due = ["migrate"] if islands > 1 and generation % qd.migrate_every == 0 else []
    if prompts and generation % qd.rewrite_every == 0:
        due.append("evolve")
    return due


def _profile(deps: Deps, version: str) -> dict | None:
    """The version's profile report when it was profiled (the session folder's profile.json)."""
    root = getattr(deps.store, "root", None)
    path = Path(root) / "candidates" / version / "profile.json" if root else None
    try:
        return json.loads(path.read_text()) if path and path.is_file() else None
    except (OSError, ValueError):
        return None


def migrate(state: dict, deps: Deps) -> dict[str, Any]:
    qd = config(deps)
    generation = state.get("qd_proposals", 0) // max(1, len(state.get("islands") or [1]))
    islands, moves = arc.migrate(state.get("islands") or [], qd.migrants, qd.margin, generation)
    deps.hooks.emit("migrate", {"generation": generation, "moves": moves, "archive": arc.summary(islands)})
    return {"islands": islands, "migrations": state.get("migrations", 0) + 1, "events": ["migrate"],
            "qd_due": [x for x in state.get("qd_due", []) if x != "migrate"]}


def evolve(state: dict, deps: Deps) -> dict[str, Any]:
    """One meta-prompt rewrite by the proposer's model (recorded in llm/ like every call)."""
    prompts = state.get("prompts") or []
    generation = state.get("qd_proposals", 0) // max(1, len(state.get("islands") or [1]))
    after, data = pop.evolve(prompts, deps.proposer.client, deps.proposer.log, generation,
                             state.get("prompt_results") or [], state.get("dropouts", 0))
    if data.get("created"):
        _save_prompt(deps, after[-1])
    deps.hooks.emit("prompt", {"generation": generation, **data})
    return {"prompts": after, "events": ["evolve"], "qd_due": [x for x in state.get("qd_due", []) if x != "evolve"]}


def _save_prompt(deps: Deps, version: dict) -> None:
    """prompts/pNNN.json in the session folder (written whole, then renamed into place)."""
    root = getattr(deps.store, "root", None)
    if root is None:
        return
    folder = Path(root) / "prompts"
    folder.mkdir(exist_ok=True)
    path = folder / f"{version['id']}.json"
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(version, f, indent=1)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
