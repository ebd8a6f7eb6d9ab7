"""The map-elites part of `report.md`: per island the behavioural grid (memory x compute levels)
with each cell's elite, the filling generation by generation, the migrations and the prompt
versions — replayed from the session's journal (aka.agent.qd.history)."""

from __future__ import annotations

from typing import Any, Callable

from aka.agent.qd.archive import INTERPRETER_BASIS
from aka.agent.qd.history import History, squares
from aka.propose.descriptors import COMPUTE, MEMORY, PARALLEL

BASIS = {"eager": "the eager baseline",
         INTERPRETER_BASIS: "the first accepted kernel's times (CPU interpreter wall times: they only rank)"}
SHOWN = 6
"""Elites listed per square of a grid (the rest counted; `aka replay --print` lists every one)."""


def section(h: History, name_of: Callable[[str], str]) -> list[str]:
    """The report lines of the archive section (NAME_OF: a version's kernel name)."""
    merged = h.merged()
    out = ["", "## Archive (map-elites)", "",
           f"{len(merged)} cell(s) filled on {len(h.islands)} island(s) over {len(h.generations)} generation(s); "
           f"{len(h.migrations)} migration(s)" + (f"; {len(h.prompts)} prompt version(s)" if h.prompts else "") + "."]
    basis = sorted({BASIS.get(e["basis"], e["basis"]) for e in merged.values() if e.get("basis")})
    if basis:
        out += ["", "Score: the weighted geometric-mean speedup over " + " / ".join(basis) + ". A square lists "
                "its elites fittest first: version, kernel (with the tuner's parameter region), parallel level "
                "(and bottleneck class when known), score."]
    out += ["", "Parallel levels: " + ", ".join(f"p{i} {n}" for i, n in enumerate(PARALLEL)) + "."]
    for i, cells in enumerate(h.islands):
        out += ["", f"### Island {i} ({len(cells)} cell(s))", ""] + grid(cells, name_of)
    out += ["", "### Filling per generation", ""] + filling(h)
    if h.migrations:
        out += ["", "### Migrations", ""] + migrations(h)
    if h.prompts or h.failed_rewrites:
        out += ["", "### Prompt versions", ""] + prompts(h)
    return out


def grid(cells: dict[str, dict[str, Any]], name_of: Callable[[str], str]) -> list[str]:
    """A Markdown table: compute levels top-down, memory levels left to right."""
    at = squares(cells)
    head = ["compute \\ memory"] + [f"{n} (m{i})" for i, n in enumerate(MEMORY)]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in range(len(COMPUTE) - 1, -1, -1):
        row = [f"{COMPUTE[c]} (c{c})"]
        for m in range(len(MEMORY)):
            entries = at.get((m, c), [])
            text = "<br>".join(_elite(e, name_of) for e in entries[:SHOWN])
            if len(entries) > SHOWN:
                text += f"<br>+{len(entries) - SHOWN} more"
            row.append(text or "·")
        out.append("| " + " | ".join(row) + " |")
    return out


def _elite(e: dict[str, Any], name_of: Callable[[str], str]) -> str:
    name = name_of(e["version"])
    region = e["niche"].rpartition("@")[2] if e["niche"].startswith(name + "@") else ""
    kind = "" if e["bottleneck"] in ("unprofiled", "unknown") else f" {e['bottleneck']}"
    text = f"`{e['version']}` {name}" + (f"@{region}" if region else "") + f" p{e['parallel']}{kind} {e['fitness']:.3f}"
    return text.replace("|", "/")


def filling(h: History) -> list[str]:
    islands = range(len(h.islands))
    head = ["generation", "filed", "cells taken"] + [f"island {i}" for i in islands] + ["distinct cells"]
    if h.migrations:
        head.append("after the migration (per island)")
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for g in h.generations:
        filled = g["filled"] + [0] * (len(h.islands) - len(g["filled"]))
        row = [str(g["generation"]), str(g["filed"]), str(g["took"])] + [str(n) for n in filled] + [str(g["cells"])]
        if h.migrations:
            after = g["after_migration"]
            row.append(" / ".join(str(n) for n in after) if after is not None else "")
        out.append("| " + " | ".join(row) + " |")
    return out


def migrations(h: History) -> list[str]:
    out = []
    for m in h.migrations:
        moved = [f"`{x['version']}` island {x['from']} → {x['to']} ({x['verdict']})" for x in m["moves"]]
        out.append(f"- after generation {m['after']}: " + ("; ".join(moved) or "nothing offered"))
    return out


def prompts(h: History) -> list[str]:
    out = []
    if h.prompts:
        out += ["| version | origin | rewrote | uses | best kernel's score |", "|---|---|---|---|---|"]
        for p in h.prompts:
            rewrote = f"{p['rewritten']} of {p['parent']}" if p.get("rewritten") else ""
            best = f"{p['fitness']:.3f}" if p.get("fitness") is not None else "no correct kernel"
            out.append(f"| {p['id']} | {p.get('origin') or ''} | {rewrote} | {p.get('uses', 0)} | {best} |")
    for f in h.failed_rewrites:
        out.append(f"- failed rewrite of '{f.get('section')}' (generation {f.get('generation')}): "
                   f"{str(f.get('failure')).replace('|', '/')}")
    return out
