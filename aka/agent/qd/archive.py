"""The archive: per island, cell key -> its elite. Pure functions over the JSON-able state (a list of
{cell key: elite dict} per island), so every change is checkpointed and journaled.

Fitness puts correct and honest first (only an accepted kernel enters a cell), then the weighted
geometric-mean speedup over reference times: the eager baseline on a GPU, the first accepted
kernel's times on the CPU interpreter (where times only rank).
"""

from __future__ import annotations

import math
from typing import Any

from aka.propose.descriptors import bottleneck_class, describe, front_matter_space, region
from aka.spec.candidate import Candidate
from aka.spec.result import EvalResult
from aka.spec.search import CODE_AXES, Cell, Elite

Islands = list[dict[str, dict[str, Any]]]
INTERPRETER_BASIS = "first accepted kernel (interpreter rank)"


def times(result: EvalResult) -> dict[str, float]:
    return {s.id: s.time.median_us for s in result.shapes if s.time and not s.held_out and s.time.median_us > 0}


def fitness(result: EvalResult, weights: dict[str, float], reference: dict[str, float]) -> tuple[float, str] | None:
    """(weighted geomean speedup, basis) of an accepted kernel; None for a rejected one."""
    if not result.accepted:
        return None
    mine = times(result)
    eager = {s.id: s.speedup["eager"] for s in result.shapes
             if not s.held_out and s.speedup.get("eager") and s.id in mine}
    if eager and len(eager) == len(mine):
        return _geomean(eager, weights), "eager"
    ratio = {sid: reference[sid] / t for sid, t in mine.items() if reference.get(sid)}
    if not ratio:
        return 1.0, INTERPRETER_BASIS
    return _geomean(ratio, weights), INTERPRETER_BASIS


def _geomean(values: dict[str, float], weights: dict[str, float]) -> float:
    total = sum(weights.get(k, 1.0) for k in values)
    return math.exp(sum(weights.get(k, 1.0) * math.log(v) for k, v in values.items()) / total)


def cell_for(candidate: Candidate, result: EvalResult, profile: dict | None, interpreter: bool,
             weights: dict[str, float]) -> tuple[Cell, dict[str, str]]:
    """The cell a kernel falls in, and why (one line per axis)."""
    try:
        source = candidate.materialize()
    except Exception:  # noqa: BLE001 - a record whose parameters no longer apply: its raw source
        source = candidate.source
    d = describe(source)
    kind, why = bottleneck_class(profile, result, interpreter, weights)
    niche = ""
    if candidate.origin == "dispatcher":
        niche = "dispatcher"
    elif candidate.origin == "tuner" and candidate.family:
        niche = f"{candidate.family}@{region(front_matter_space(candidate.source), candidate.params)}"
    return Cell(*d.levels, bottleneck=kind, niche=niche), {**d.evidence, "bottleneck": why}


def insert(cells: dict[str, dict], elite: Elite, margin: float) -> tuple[dict[str, dict], str, str | None]:
    """(cells after, verdict, replaced version): 'new cell', 'replaced', or why it stayed out."""
    held = cells.get(elite.cell)
    if held is None:
        return {**cells, elite.cell: elite.to_dict()}, "new cell", None
    if held["candidate"] == elite.candidate:
        return cells, "already this cell's elite", None
    if elite.fitness > held["fitness"] * (1.0 + margin):
        return {**cells, elite.cell: elite.to_dict()}, "replaced", held["version"]
    return cells, f"not better than the elite {held['version']} ({held['fitness']:.3f})", None


def distance(a: str, b: str) -> int:
    """Steps between two cells on the code axes (bottleneck and niche not counted)."""
    ca, cb = Cell.parse(a), Cell.parse(b)
    return sum(abs(x - y) for x, y in zip(ca.levels, cb.levels))


def filled_neighbours(key: str, cells: dict[str, dict]) -> int:
    return sum(1 for other in cells if other != key and distance(key, other) == 1)


def best(cells: dict[str, dict]) -> dict | None:
    return max(cells.values(), key=lambda e: (e["fitness"], e["version"]), default=None)


def empty_neighbours(key: str, cells: dict[str, dict]) -> list[Cell]:
    """Cells one step from KEY on one code axis that no elite of this island holds (same
    bottleneck class, no niche)."""
    here = Cell.parse(key)
    taken = {Cell.parse(k).levels for k in cells}
    out = []
    for i, _ in enumerate(CODE_AXES):
        for step in (1, -1):
            levels = list(here.levels)
            levels[i] += step
            if 0 <= levels[i] <= 3 and tuple(levels) not in taken:
                out.append(here.with_levels(tuple(levels)))
    return out


def migrate(islands: Islands, migrants: int, margin: float, generation: int) -> tuple[Islands, list[dict]]:
    """Each island offers its best `migrants` elites to the next island (a ring); a migrant takes
    its cell there when it is new or better. Returns the islands after and the moves made."""
    if len(islands) < 2 or migrants == 0:
        return islands, []
    out = [dict(cells) for cells in islands]
    moves = []
    for i, cells in enumerate(islands):
        to = (i + 1) % len(islands)
        ranked = sorted(cells.values(), key=lambda e: (-e["fitness"], e["version"]))[:migrants]
        for e in ranked:
            moved = Elite.from_dict({**e, "island": to, "generation": generation})
            out[to], verdict, replaced = insert(out[to], moved, margin)
            moves.append({"from": i, "to": to, "version": e["version"], "cell": e["cell"], "verdict": verdict,
                          "replaced": replaced})
    return out, moves


def summary(islands: Islands) -> dict[str, Any]:
    """Filled cells per island and overall, and the best elite."""
    merged: dict[str, dict] = {}
    for cells in islands:
        for k, e in cells.items():
            if k not in merged or e["fitness"] > merged[k]["fitness"]:
                merged[k] = e
    top = best(merged)
    return {"filled": [len(c) for c in islands], "cells": len(merged),
            "best": {"version": top["version"], "cell": top["cell"], "fitness": round(top["fitness"], 4)}
            if top else None}
