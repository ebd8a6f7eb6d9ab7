"""A map-elites session's archive replayed from its journal events alone ('select', 'archive',
'migrate', 'prompt'): the elites each island holds at the end, the filling generation by
generation, the migrations and the system-prompt versions. The session's report reads it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from aka.spec.search import Cell

TOOK = ("new cell", "replaced")
"""Verdicts under which a kernel (or a migrant) took a cell."""


@dataclass
class History:
    """The archive over a whole session (or up to one of its events)."""

    islands: list[dict[str, dict[str, Any]]] = field(default_factory=list)
    """Per island at the end: cell key -> elite (version, cell, fitness, basis, and the kernel's
    name when the reader gave a way to find it)."""
    generations: list[dict[str, Any]] = field(default_factory=list)
    """Per generation: number, candidates filed, cells taken, filled cells per island and overall
    after its filings and after the migration that followed it (None when none did)."""
    filings: list[dict[str, Any]] = field(default_factory=list)
    """Per filed candidate: event seq, version, generation, verdict, cells filled after it."""
    migrations: list[dict[str, Any]] = field(default_factory=list)
    """Per migration: event seq, the generation it followed and every offer with its verdict."""
    prompts: list[dict[str, Any]] = field(default_factory=list)
    """Prompt versions created: the journaled version (id, origin, parent, rewritten section,
    sections, diff) with its event seq and model call, and its uses and best fitness."""
    failed_rewrites: list[dict[str, Any]] = field(default_factory=list)
    selections: int = 0

    def merged(self) -> dict[str, dict[str, Any]]:
        """Cell key -> the fittest elite holding it on any island."""
        out: dict[str, dict[str, Any]] = {}
        for cells in self.islands:
            for k, e in cells.items():
                if k not in out or e["fitness"] > out[k]["fitness"]:
                    out[k] = e
        return out

    def best(self) -> dict[str, Any] | None:
        return max(self.merged().values(), key=lambda e: (e["fitness"], e["version"]), default=None)

    def prompt_uses(self) -> dict[str, dict[str, Any]]:
        """Prompt version -> uses and the best fitness of the kernels proposed with it."""
        return {p["id"]: {"uses": p["uses"], "fitness": p["fitness"]} for p in self.prompts}


KINDS = ("select", "archive", "migrate", "prompt")


def replay(events: Iterable[Any], name: Callable[[str], str] | None = None) -> History | None:
    """The archive of EVENTS (objects with `seq`, `kind` and `data`); None for a session that kept
    none. NAME, when given, finds a version's kernel name for its elite."""
    h, elites, prompt, seen = History(), {}, None, False
    uses: dict[str, dict[str, Any]] = {}
    for e in events:
        d = e.data
        if e.kind not in KINDS:
            continue
        seen = True
        if e.kind == "select":
            h.selections += 1
            prompt = d.get("prompt")
            _grow(h.islands, int(d.get("island", 0)))
        elif e.kind == "archive":
            _file(h, e.seq, d, elites, name)
            if prompt:
                score = uses.setdefault(prompt, {"uses": 0, "fitness": None})
                score["uses"] += 1
                if d.get("fitness") is not None:
                    score["fitness"] = max(score["fitness"] or 0.0, d["fitness"])
        elif e.kind == "migrate":
            _migrate(h, e.seq, d, elites)
        elif d.get("version"):
            v = d["version"]
            h.prompts.append({**v, "origin": v.get("origin", d.get("origin", "")), "seq": e.seq,
                              "llm_call": d.get("llm_call")})
        elif d.get("failure"):
            h.failed_rewrites.append({"seq": e.seq, **d})
    for p in h.prompts:
        p.update(uses.get(p["id"], {"uses": 0, "fitness": None}))
    return h if seen else None


def _grow(islands: list[dict], island: int) -> None:
    while len(islands) <= island:
        islands.append({})


def _generation(h: History, number: int) -> dict[str, Any]:
    if not h.generations or h.generations[-1]["generation"] != number:
        h.generations.append({"generation": number, "filed": 0, "took": 0, "filled": [], "cells": 0,
                              "after_migration": None})
    return h.generations[-1]


def _file(h: History, seq: int, d: dict[str, Any], elites: dict[str, dict],
          name: Callable[[str], str] | None) -> None:
    island = int(d.get("island", 0))
    _grow(h.islands, island)
    g = _generation(h, int(d.get("generation", 0)))
    g["filed"] += 1
    if d.get("verdict") in TOOK:
        elite = {"version": d["version"], "cell": d["cell"], "fitness": float(d.get("fitness") or 0.0),
                 "basis": d.get("basis", "")}
        if name is not None:
            elite["name"] = name(d["version"])
        elites[d["version"]] = elite
        h.islands[island][d["cell"]] = elite
        g["took"] += 1
    g["filled"], g["cells"] = [len(c) for c in h.islands], len(h.merged())
    h.filings.append({"seq": seq, "version": d.get("version"), "generation": int(d.get("generation", 0)),
                      "cells": g["cells"], "verdict": d.get("verdict", "")})


def migrated_after(d: dict[str, Any]) -> int:
    """The generation a journaled migration followed: one journaled with generation G (the
    generations completed when it ran) follows the filings of generation G - 1."""
    return int(d.get("generation") or 0) - 1


def _migrate(h: History, seq: int, d: dict[str, Any], elites: dict[str, dict]) -> None:
    after = migrated_after(d)
    for m in d.get("moves", []):
        _grow(h.islands, int(m["to"]))
        if m.get("verdict") in TOOK and m["version"] in elites:
            h.islands[int(m["to"])][m["cell"]] = elites[m["version"]]
    h.migrations.append({"seq": seq, "generation": d.get("generation"), "after": after,
                         "moves": list(d.get("moves", []))})
    if h.generations and h.generations[-1]["generation"] == after:
        h.generations[-1]["after_migration"] = [len(c) for c in h.islands]


def squares(cells: dict[str, dict[str, Any]]) -> dict[tuple[int, int], list[dict[str, Any]]]:
    """(memory level, compute level) -> the elites there, fittest first, each with its parallel
    level, bottleneck class and niche."""
    out: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for key, e in cells.items():
        c = Cell.parse(key)
        out.setdefault((c.memory, c.compute), []).append(
            {**e, "parallel": c.parallel, "bottleneck": c.bottleneck, "niche": c.niche})
    for entries in out.values():
        entries.sort(key=lambda x: (-x["fitness"], x["version"]))
    return out
