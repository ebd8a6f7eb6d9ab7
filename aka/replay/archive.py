"""A map-elites session's archive, rebuilt from its journal alone: the cells each island holds after
any event, how the archive filled over the generations, the migrations, and every system-prompt
version. `--print`, `--json`, the HTML page and the inspector all read it from here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aka.agent.qd.history import migrated_after
from aka.replay.load import SessionView

LEVELS = {"memory": ("plain", "vectorized", "on-chip-tiled", "pipelined"),
          "compute": ("multi-pass", "fused", "single-pass", "tensor-core"),
          "parallel": ("one-per-program", "several-per-program", "persistent-split", "warp-specialized")}
SHORT = {"memory-bound": "mem", "compute-bound": "cmp", "latency-bound": "lat", "launch-bound": "lau",
         "unknown": "?", "unprofiled": ""}


@dataclass
class Archive:
    """The archive as of one point of the journal."""

    islands: list[dict[str, dict]] = field(default_factory=list)
    """Per island: cell key -> elite (version, name, fitness, basis, cell)."""
    filling: list[dict[str, Any]] = field(default_factory=list)
    """After each filed candidate: seq, version, generation, cells filled (all islands)."""
    migrations: list[dict[str, Any]] = field(default_factory=list)
    prompts: list[dict[str, Any]] = field(default_factory=list)
    """Prompt versions created (the journal's 'prompt' events with a version)."""
    rewrites_failed: list[dict[str, Any]] = field(default_factory=list)
    selections: int = 0
    prompt_scores: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Prompt version -> uses and the best fitness of the kernels proposed with it."""

    def merged(self) -> dict[str, dict]:
        out: dict[str, dict] = {}
        for cells in self.islands:
            for k, e in cells.items():
                if k not in out or e["fitness"] > out[k]["fitness"]:
                    out[k] = e
        return out

    def best(self) -> dict | None:
        return max(self.merged().values(), key=lambda e: (e["fitness"], e["version"]), default=None)


def rebuild(view: SessionView, upto: int | None = None) -> Archive | None:
    """The archive after the event numbered UPTO (all events when None); None when the session
    is no map-elites session."""
    events = [e for e in view.events if e.kind in ("select", "archive", "migrate", "prompt")]
    if not events:
        return None
    a = Archive()
    elites: dict[str, dict] = {}
    prompt = None
    for e in events:
        if upto is not None and e.seq > upto:
            break
        d = e.data
        if e.kind == "select":
            a.selections += 1
            prompt = d.get("prompt")
            _grow(a, int(d.get("island", 0)))
        elif e.kind == "archive":
            island = int(d.get("island", 0))
            _grow(a, island)
            if d.get("verdict") in ("new cell", "replaced"):
                elite = {"version": d["version"], "cell": d["cell"], "fitness": d.get("fitness", 0.0),
                         "basis": d.get("basis", ""), "name": _name(view, d["version"])}
                elites[d["version"]] = elite
                a.islands[island][d["cell"]] = elite
            if prompt:
                score = a.prompt_scores.setdefault(prompt, {"uses": 0, "fitness": None})
                score["uses"] += 1
                if d.get("fitness") is not None:
                    score["fitness"] = max(score["fitness"] or 0.0, d["fitness"])
            a.filling.append({"seq": e.seq, "version": d.get("version"), "generation": d.get("generation", 0),
                              "cells": len(a.merged()), "verdict": d.get("verdict", "")})
        elif e.kind == "migrate":
            for m in d.get("moves", []):
                _grow(a, int(m["to"]))
                if m.get("verdict") in ("new cell", "replaced") and m["version"] in elites:
                    a.islands[int(m["to"])][m["cell"]] = elites[m["version"]]
            a.migrations.append({"seq": e.seq, "generation": d.get("generation"), "after": migrated_after(d),
                                 "moves": d.get("moves", [])})
        elif e.kind == "prompt":
            if d.get("version"):
                a.prompts.append({**d["version"], "seq": e.seq, "llm_call": d.get("llm_call")})
            elif d.get("failure"):
                a.rewrites_failed.append({"seq": e.seq, **d})
    return a


def _grow(a: Archive, island: int) -> None:
    while len(a.islands) <= island:
        a.islands.append({})


def _name(view: SessionView, version: str) -> str:
    v = view.versions.get(version)
    return v.candidate.name if v is not None and v.candidate is not None else "?"


def _parse(key: str) -> tuple[int, int, int, str, str]:
    head, _, niche = key.partition("/")
    levels, _, bottleneck = head.partition(":")
    try:
        return int(levels[1]), int(levels[3]), int(levels[5]), bottleneck, niche
    except (IndexError, ValueError):
        return 0, 0, 0, bottleneck, niche


def grid_rows(cells: dict[str, dict]) -> list[list[str]]:
    """A memory x compute grid (compute levels top-down): each square lists its elites as
    'p<parallel> <version> <fitness>' (with the bottleneck class when profiled)."""
    squares: dict[tuple[int, int], list[dict]] = {}
    for key, e in cells.items():
        m, c, p, b, _ = _parse(key)
        squares.setdefault((m, c), []).append({**e, "p": p, "b": b})
    rows = []
    for c in range(3, -1, -1):
        row = [f"{LEVELS['compute'][c]} ({c})"]
        for m in range(4):
            entries = sorted(squares.get((m, c), []), key=lambda e: -e["fitness"])
            text = "; ".join(f"p{e['p']} {e['version']} {e['fitness']:.2f}" + (f" {SHORT.get(e['b'], e['b'])}"
                                                                               if SHORT.get(e["b"], e["b"]) else "")
                             for e in entries[:2])
            row.append(text + (f" +{len(entries) - 2}" if len(entries) > 2 else ""))
        rows.append(row)
    return rows


def render_grid(cells: dict[str, dict], indent: str = "  ") -> list[str]:
    head = ["compute \\ memory"] + [f"{name} ({i})" for i, name in enumerate(LEVELS["memory"])]
    rows = grid_rows(cells)
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(5)]
    fmt = lambda r: indent + " | ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip()  # noqa: E731
    return [fmt(head), indent + "-+-".join("-" * w for w in widths)] + [fmt(r) for r in rows]


def render(a: Archive) -> list[str]:
    """The text section: summary, filling over generations, one grid per island, migrations, prompts."""
    merged = a.merged()
    top = a.best()
    lines = ["Archive (map-elites):",
             f"  {len(merged)} cell(s) filled on {len(a.islands)} island(s) after {len(a.filling)} filed "
             f"candidate(s); {len(a.migrations)} migration(s); {len(a.prompts)} prompt version(s)"]
    if top:
        lines.append(f"  best elite: {top['version']} {top['name']} in {top['cell']} (fitness {top['fitness']:.3f} "
                     f"over {top['basis']})")
    by_gen: dict[int, int] = {}
    for f in a.filling:
        by_gen[int(f["generation"])] = f["cells"]
    if by_gen:
        lines.append("  filling: " + ", ".join(f"generation {g}: {n}" for g, n in sorted(by_gen.items())))
    lines.append("  parallel levels: " + ", ".join(f"p{i} {n}" for i, n in enumerate(LEVELS["parallel"])))
    for i, cells in enumerate(a.islands):
        lines += ["", f"  island {i} ({len(cells)} cell(s)):"] + render_grid(cells, "    ")
        lines += [f"    {k}: {e['version']} {e['name']} {e['fitness']:.3f}" for k, e in sorted(cells.items())]
    for m in a.migrations:
        moved = [f"{x['version']} {x['from']}->{x['to']} ({x['verdict']})" for x in m["moves"]]
        lines.append(f"  migration after generation {m['after']}: " + ("; ".join(moved) or "nothing offered"))
    for p in a.prompts:
        score = a.prompt_scores.get(p["id"], {})
        fit = f"best kernel {score['fitness']:.3f}" if score.get("fitness") is not None else "no correct kernel yet"
        lines.append(f"  prompt {p['id']} ({p.get('origin')}" + (f", rewrote '{p['rewritten']}' of {p['parent']}"
                                                                  if p.get("rewritten") else "")
                     + f"): used {score.get('uses', 0)} time(s), {fit}")
    for f in a.rewrites_failed:
        lines.append(f"  prompt rewrite of '{f.get('section')}' failed: {f.get('failure')}")
    return lines


def document(a: Archive) -> dict[str, Any]:
    """The `--json` form: the islands' cells, the filling, migrations and prompt versions."""
    return {"islands": [dict(sorted(c.items())) for c in a.islands], "cells": len(a.merged()),
            "best": a.best(), "filling": a.filling, "migrations": a.migrations, "prompts": a.prompts,
            "prompt_scores": a.prompt_scores,
            "rewrites_failed": a.rewrites_failed,
            "grid": {"rows": "compute level 3..0", "columns": "memory level 0..3",
                     "islands": [grid_rows(c) for c in a.islands]}}
