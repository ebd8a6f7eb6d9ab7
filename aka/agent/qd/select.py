"""Choosing what the next proposal does: the island in turn, a parent (exploit the best elite,
explore a sparse region, or a uniform pick), a target cell and mode, and inspirations from other
cells. Seeded by (seed, proposal number), so a resumed run chooses what the original did."""

from __future__ import annotations

import random
from typing import Any

from aka.agent.qd.archive import Islands, best, distance, empty_neighbours, filled_neighbours
from aka.agent.qd.config import QDConfig
from aka.spec.search import CODE_AXES, Cell, Directive

MODE_WEIGHTS = (("improve", 0.35), ("axis", 0.2), ("weakest-axis", 0.15), ("all-axes", 0.1), ("fill-empty", 0.2))


def rng_for(seed: int, n: int, salt: str = "") -> random.Random:
    return random.Random(f"aka-map-elites:{seed}:{n}:{salt}")


def choose(islands: Islands, n: int, cfg: QDConfig, seed: int, selections: dict[str, int],
           reachable: list[Cell] | None = None, combine: bool = False,
           measured: frozenset[str] = frozenset()) -> Directive:
    """The directive of proposal number N (0-based). REACHABLE: the cells the proposer can aim at
    (the tuner's families x regions); MEASURED: the families already measured (a fill-empty move
    prefers a cell of a family never tried)."""
    island, generation = n % len(islands), n // len(islands)
    cells = islands[island]
    rng = rng_for(seed, n)
    if not cells:
        return Directive(island, generation, "seed", "seed")
    if combine:
        top = best(cells)
        return Directive(island, generation, "combine", "exploit", target="", parent=top["version"],
                         parent_cell=top["cell"], inspirations=inspirations(islands, top["cell"], top, cfg.inspirations))
    selection, parent = _parent(cells, rng, cfg, selections, island)
    mode, target, axis = _target(parent["cell"], cells, rng, reachable, measured)
    return Directive(island, generation, mode, selection, target=target, parent=parent["version"],
                     parent_cell=parent["cell"], axis=axis,
                     inspirations=inspirations(islands, target or parent["cell"], parent, cfg.inspirations))


def _parent(cells: dict[str, dict], rng: random.Random, cfg: QDConfig, selections: dict[str, int],
            island: int) -> tuple[str, dict]:
    r = rng.random() * (cfg.exploit + cfg.explore + cfg.uniform)
    if r < cfg.exploit:
        return "exploit", best(cells)
    if r < cfg.exploit + cfg.explore:
        key = min(cells, key=lambda k: (filled_neighbours(k, cells), selections.get(f"{island}:{k}", 0),
                                        -cells[k]["fitness"], k))
        return "explore", cells[key]
    return "uniform", cells[rng.choice(sorted(cells))]


def _target(key: str, cells: dict[str, dict], rng: random.Random, reachable: list[Cell] | None,
            measured: frozenset[str] = frozenset()) -> tuple[str, str, str]:
    """(mode, target cell key, axis) for a parent in cell KEY."""
    here = Cell.parse(key)
    names, weights = zip(*MODE_WEIGHTS)
    mode = rng.choices(names, weights=weights)[0]
    levels = list(here.levels)
    if mode == "axis":
        open_axes = [i for i, v in enumerate(levels) if v < 3]
        if open_axes:
            i = rng.choice(open_axes)
            levels[i] += 1
            return mode, here.with_levels(tuple(levels)).key, CODE_AXES[i]
    elif mode == "weakest-axis":
        i = min(range(3), key=lambda j: (levels[j], j))
        if levels[i] < 3:
            levels[i] += 1
            return mode, here.with_levels(tuple(levels)).key, CODE_AXES[i]
    elif mode == "all-axes":
        raised = tuple(min(3, v + 1) for v in levels)
        if raised != here.levels:
            return mode, here.with_levels(raised).key, ""
    elif mode == "fill-empty":
        empty = _empty(key, cells, reachable)
        fresh = [c for c in empty if c.niche and c.niche.rsplit("@", 1)[0] not in measured]
        if fresh or (empty and reachable):                 # the proposer's own cells: any of them
            return mode, rng.choice(sorted(c.key for c in fresh or empty)), ""
        if empty:                                          # one step from the parent on a code axis
            return mode, rng.choice(sorted(c.key for c in empty)), ""
    return "improve", key, ""


def _empty(key: str, cells: dict[str, dict], reachable: list[Cell] | None) -> list[Cell]:
    """Cells no elite of the island holds: those the proposer says it can reach (the tuner's
    families x regions), else the code-axis neighbours of KEY."""
    if reachable:
        taken = {(Cell.parse(k).levels, Cell.parse(k).niche) for k in cells}
        here = Cell.parse(key)
        return [Cell(*c.levels, bottleneck=here.bottleneck, niche=c.niche) for c in reachable
                if (c.levels, c.niche) not in taken]
    return empty_neighbours(key, cells)


def inspirations(islands: Islands, target: str, parent: dict, k: int) -> list[dict[str, Any]]:
    """Up to K elites of other cells (any island), the farthest from the target cell first, then
    the fittest: the most different good kernels the proposal may draw on."""
    pool: dict[str, dict] = {}
    for cells in islands:
        for key, e in cells.items():
            if key == parent["cell"] or e["version"] == parent["version"]:
                continue
            if e["version"] not in pool or e["fitness"] > pool[e["version"]]["fitness"]:
                pool[e["version"]] = e
    ranked = sorted(pool.values(), key=lambda e: (-distance(target, e["cell"]), -e["fitness"], e["version"]))
    return [{"version": e["version"], "cell": e["cell"], "name": e["name"], "fitness": round(e["fitness"], 4)}
            for e in ranked[:k]]
