"""A map-elites session's archive replayed from its journal events alone ('select', 'archive',
'migrate', 'prompt'): the elites each island holds at the end, the filling generation by
generation, the migrations and the system-prompt versions. The session's report reads it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from aka.spec.search import Cell

TOOK = ("new cell", "replaced")
"""Verdicts under which a kernel (or a migrant) took a cell."""


@dataclass
class History:
    """The archive over a whole session."""

    islands: list[dict[str, dict[str, Any]]] = field(default_factory=list)
    """Per island at the end: cell key -> elite (version, cell, fitness, basis)."""
    generations: list[dict[str, Any]] = field(default_factory=list)
    """Per generation: number, candidates filed, cells taken, filled cells per island and overall
    after its filings and after the migration that followed it (None when none did)."""
    migrations: list[dict[str, Any]] = field(default_factory=list)
    """Per migration: the generation it followed and every offer with its verdict."""
    prompts: list[dict[str, Any]] = field(default_factory=list)
    """Prompt versions created: id, origin, parent, rewritten section, uses, best fitness."""
    failed_rewrites: list[dict[str, Any]] = field(default_factory=list)

    def merged(self) -> dict[str, dict[str, Any]]:
        """Cell key -> the fittest elite holding it on any island."""
        out: dict[str, dict[str, Any]] = {}
        for cells in self.islands:
            for k, e in cells.items():
                if k not in out or e["fitness"] > out[k]["fitness"]:
                    out[k] = e
        return out


def replay(events: Iterable[Any]) -> History | None:
    """The archive of EVENTS (objects with `kind` and `data`); None for a session that kept none."""
    h, elites, prompt, seen = History(), {}, None, False
    uses: dict[str, dict[str, Any]] = {}
    for e in events:
        d = e.data
        if e.kind not in ("select", "archive", "migrate", "prompt"):
            continue
        seen = True
        if e.kind == "select":
            prompt = d.get("prompt")
            _grow(h.islands, int(d.get("island", 0)))
        elif e.kind == "archive":
            _file(h, d, elites)
            if prompt:
                score = uses.setdefault(prompt, {"uses": 0, "fitness": None})
                score["uses"] += 1
                if d.get("fitness") is not None:
                    score["fitness"] = max(score["fitness"] or 0.0, d["fitness"])
        elif e.kind == "migrate":
            _migrate(h, d, elites)
        elif d.get("version"):
            v = d["version"]
            h.prompts.append({"id": v.get("id"), "origin": v.get("origin", d.get("origin", "")),
                              "parent": v.get("parent"), "rewritten": v.get("rewritten")})
        elif d.get("failure"):
            h.failed_rewrites.append({"section": d.get("section"), "failure": d["failure"],
                                      "generation": d.get("generation")})
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


def _file(h: History, d: dict[str, Any], elites: dict[str, dict]) -> None:
    island = int(d.get("island", 0))
    _grow(h.islands, island)
    g = _generation(h, int(d.get("generation", 0)))
    g["filed"] += 1
    if d.get("verdict") in TOOK:
        elite = {"version": d["version"], "cell": d["cell"], "fitness": float(d.get("fitness") or 0.0),
                 "basis": d.get("basis", "")}
        elites[d["version"]] = elite
        h.islands[island][d["cell"]] = elite
        g["took"] += 1
    g["filled"], g["cells"] = [len(c) for c in h.islands], len(h.merged())


def migrated_after(d: dict[str, Any]) -> int:
    """The generation a journaled migration followed: one journaled with generation G (the
    generations completed when it ran) follows the filings of generation G - 1."""
    return int(d.get("generation") or 0) - 1


def _migrate(h: History, d: dict[str, Any], elites: dict[str, dict]) -> None:
    after = migrated_after(d)
    for m in d.get("moves", []):
        _grow(h.islands, int(m["to"]))
        if m.get("verdict") in TOOK and m["version"] in elites:
            h.islands[int(m["to"])][m["cell"]] = elites[m["version"]]
    h.migrations.append({"after": after, "moves": list(d.get("moves", []))})
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
