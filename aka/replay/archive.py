"""A map-elites session's archive, rebuilt from its journal alone: the cells each island holds after
any event, how the archive filled over the generations, the migrations, and every system-prompt
version. `--print`, `--json`, the HTML page and the inspector all read it from here."""

from __future__ import annotations

from typing import Any

from aka.agent.qd.history import KINDS, History, replay
from aka.replay.load import SessionView

LEVELS = {"memory": ("plain", "vectorized", "on-chip-tiled", "pipelined"),
          "compute": ("multi-pass", "fused", "single-pass", "tensor-core"),
          "parallel": ("one-per-program", "several-per-program", "persistent-split", "warp-specialized")}
SHORT = {"memory-bound": "mem", "compute-bound": "cmp", "latency-bound": "lat", "launch-bound": "lau",
         "unknown": "?", "unprofiled": ""}


Archive = History
"""The archive as of one point of the journal: the session report's replay of it (one reader of
the journal's 'select', 'archive', 'migrate' and 'prompt' events), its elites named."""


def rebuild(view: SessionView, upto: int | None = None) -> Archive | None:
    """The archive after the event numbered UPTO (all events when None); None when the session
    is no map-elites session."""
    if not any(e.kind in KINDS for e in view.events):
        return None
    upto_now = [e for e in view.events if upto is None or e.seq <= upto]
    return replay(upto_now, name=lambda version: _name(view, version)) or History()


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
             f"  {len(merged)} cell(s) filled on {len(a.islands)} island(s) after {len(a.filings)} filed "
             f"candidate(s); {len(a.migrations)} migration(s); {len(a.prompts)} prompt version(s)"]
    if top:
        lines.append(f"  best elite: {top['version']} {top['name']} in {top['cell']} (fitness {top['fitness']:.3f} "
                     f"over {top['basis']})")
    by_gen: dict[int, int] = {}
    for f in a.filings:
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
        fit = f"best kernel {p['fitness']:.3f}" if p.get("fitness") is not None else "no correct kernel yet"
        lines.append(f"  prompt {p['id']} ({p.get('origin')}" + (f", rewrote '{p['rewritten']}' of {p['parent']}"
                                                                  if p.get("rewritten") else "")
                     + f"): used {p.get('uses', 0)} time(s), {fit}")
    for f in a.failed_rewrites:
        lines.append(f"  prompt rewrite of '{f.get('section')}' failed: {f.get('failure')}")
    return lines


def document(a: Archive) -> dict[str, Any]:
    """The `--json` form: the islands' cells, the filling, migrations and prompt versions."""
    return {"islands": [dict(sorted(c.items())) for c in a.islands], "cells": len(a.merged()),
            "best": a.best(), "filling": a.filings, "migrations": a.migrations, "prompts": a.prompts,
            "prompt_scores": a.prompt_uses(),
            "rewrites_failed": a.failed_rewrites,
            "grid": {"rows": "compute level 3..0", "columns": "memory level 0..3",
                     "islands": [grid_rows(c) for c in a.islands]}}
