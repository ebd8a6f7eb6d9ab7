"""The prompt section of a map-elites directive: the target cell in words, what the mode asks, the
levels of each axis, and the inspirations' sources (elites of other cells), each capped."""

from __future__ import annotations

from typing import Any

from aka.propose.descriptors import AXES
from aka.spec.search import Cell

ASKS = {
    "seed": "Write a first correct kernel for this island of the search (any strategy).",
    "improve": "Write a faster kernel in the parent's own cell: keep its memory, compute and parallel strategies "
               "and make it faster within them (tuning, fewer instructions, better masks, block sizes).",
    "axis": "Change the parent's {axis} strategy to the target level, keep its other strategies, and make it fast.",
    "weakest-axis": "The parent's weakest axis is {axis}: move it to the target level, keep the others.",
    "all-axes": "Move every axis of the parent one level up at once (a more ambitious rewrite).",
    "fill-empty": "No kernel of this island has the target cell's strategies yet: write a correct, fast kernel "
                  "whose strategies are exactly the target's.",
    "combine": "Combine the best ideas of the parent and the inspirations into one kernel.",
}
MEANING = {
    "memory": ("blocks of contiguous offsets, no hints", "eviction/cache hints or contiguity hints "
               "(tl.multiple_of/max_contiguous)", "operand tiles staged on chip (tl.dot, tl.trans, block pointers)",
               "pipelined loads: num_stages > 1, TMA descriptors, or the next tile loaded before the current is used"),
    "compute": ("several kernels passing intermediates through global memory", "one kernel that sweeps its input "
                "more than once", "one kernel that reads every input element once (registers, online updates)",
                "tl.dot tiles (tensor cores)"),
    "parallel": ("one row or tile per program", "several rows/tokens per program, or a loop over work units",
                 "a persistent grid-stride loop, or a reduction split across programs (atomics or a 2nd kernel)",
                 "warp specialization (tl.range(..., warp_specialize=True))"),
}


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n[... {len(text) - limit} more characters cut]"


def describe_cell(key: str) -> str:
    """'memory vectorized (1), compute single-pass (2), parallel one-per-program (0), unprofiled'."""
    cell = Cell.parse(key)
    parts = [f"{axis} {AXES[axis][level]} ({level})" for axis, level in zip(AXES, cell.levels)]
    return ", ".join(parts) + f", {cell.bottleneck}" + (f", niche {cell.niche}" if cell.niche else "")


def directive_section(ctx: Any, caps: dict[str, int]) -> str:
    """The '## Search directive' section, or '' outside a map-elites search."""
    d = getattr(ctx, "directive", None)
    if d is None:
        return ""
    lines = [f"## Search directive (MAP-Elites: island {d.island}, generation {d.generation}, mode {d.mode})",
             ASKS[d.mode].format(axis=d.axis or "weakest")]
    if d.parent:
        lines.append(f"Parent: {d.parent} in cell {describe_cell(d.parent_cell)} (shown above as the parent).")
    if d.target:
        lines.append(f"Target cell: {describe_cell(d.target)}.")
        target = Cell.parse(d.target)
        lines.append("The target's levels mean:")
        lines += [f"- {axis} {AXES[axis][level]}: {MEANING[axis][level]}" for axis, level in zip(AXES, target.levels)]
    shown = getattr(ctx, "inspirations", []) or []
    if shown:
        lines.append("Inspirations (elites of other cells; borrow what helps, do not copy blindly):")
        used = 0
        for entry, cand in shown:
            block = (f"### {entry['version']} {entry['name']}: cell {describe_cell(entry['cell'])}, fitness "
                     f"{entry['fitness']:.3f}x\n```python\n{_cap(cand.materialize(), caps['inspiration']).rstrip()}\n```")
            if used + len(block) > caps["inspirations"]:
                lines.append(f"[{len(shown) - shown.index((entry, cand))} more inspirations left out]")
                break
            lines.append(block)
            used += len(block)
    return "\n".join(lines)
