"""A session's plots (matplotlib, PNG files): the best kernel per shape against the baselines with
its speed-of-light, the incumbent over the iterations with accepted versions and dropouts, and for
a map-elites session the archive (filling per generation, each island's grid).

Both read records only (an EvalResult, the journal's events), so `report.md` and `aka replay`
draw the same pictures. On the CPU interpreter the times are wall times that only rank; the plots
say so and show no speedup against the baselines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from aka.agent.qd.history import History, squares
from aka.spec.result import EvalResult

SHAPES_PNG = "shapes.png"
TRAJECTORY_PNG = "trajectory.png"
ARCHIVE_PNG = "archive.png"


@dataclass
class Point:
    """One evaluated candidate on the trajectory."""

    index: int
    version: str
    status: str
    promoted: bool
    value: float | None
    """The candidate's own figure (see `trajectory`), None when it has none."""
    incumbent: float | None
    """The incumbent's figure after this candidate."""


def weighted_time(result: EvalResult, weights: dict[str, float]) -> float | None:
    """Weighted geometric mean of the visible shapes' median times (µs)."""
    xs = [(weights.get(s.id, 1.0), s.time.median_us) for s in result.shapes
          if s.time and not s.held_out and s.time.median_us > 0]
    if not xs:
        return None
    total = sum(w for w, _ in xs)
    return math.exp(sum(w * math.log(t) for w, t in xs) / total)


def weighted_speedup(result: EvalResult, weights: dict[str, float], baseline: str = "eager") -> float | None:
    """Weighted geometric mean over visible shapes of the speedup against BASELINE (GPU runs)."""
    xs = [(weights.get(s.id, 1.0), s.speedup[baseline]) for s in result.shapes
          if not s.held_out and s.speedup.get(baseline, 0) > 0]
    if not xs:
        return None
    total = sum(w for w, _ in xs)
    return math.exp(sum(w * math.log(x) for w, x in xs) / total)


def trajectory(events: Iterable[Any], get_eval: Callable[[str], EvalResult | None],
               weights: dict[str, float]) -> tuple[list[Point], list[int], str]:
    """(points, dropout positions, y-axis label) from the journal's evaluate/accept/dropout events.

    On a GPU the figure is the weighted speedup over eager; on the interpreter (no speedups) it is
    the speed relative to the first accepted kernel, from wall times that only rank. A focused
    trial (timed at one shape) has no figure over the shapes, so no point value."""
    points: list[Point] = []
    dropouts: list[int] = []
    results: dict[str, EvalResult | None] = {}
    for e in events:
        if e.kind == "evaluate" and e.data.get("version"):
            v = e.data["version"]
            results[v] = get_eval(v)
            points.append(Point(len(points) + 1, v, str(e.data.get("status", "?")), False, None, None))
        elif e.kind == "accept" and e.data.get("promote"):
            for p in points:
                if p.version == e.data.get("version"):
                    p.promoted = True
        elif e.kind == "dropout":
            dropouts.append(len(points))
    gpu = any(r is not None and r.mode == "gpu" for r in results.values())
    if gpu:
        figure = lambda r: weighted_speedup(r, weights)  # noqa: E731
        label = "weighted speedup over eager (×)"
    else:
        first = next((weighted_time(r, weights) for r in results.values() if r is not None and r.accepted
                      and not r.focus), None)
        figure = lambda r: (first / t if first and (t := weighted_time(r, weights)) else None)  # noqa: E731
        label = "speed relative to the first accepted kernel\n(CPU interpreter wall time: ranks only)"
    incumbent = None
    for p in points:
        r = results.get(p.version)
        p.value = figure(r) if r is not None and r.accepted and not r.focus else None   # a focused trial: one shape
        if p.promoted and p.value is not None:
            incumbent = p.value
        p.incumbent = incumbent
    return points, dropouts, label


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def plot_trajectory(points: list[Point], dropouts: list[int], label: str, out: Path, title: str = "") -> Path:
    """The incumbent's figure over the evaluated candidates; promoted versions starred, dropouts dashed."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 4), dpi=100)
    xs = [p.index for p in points]
    ax.step(xs, [p.incumbent if p.incumbent is not None else math.nan for p in points], where="post",
            color="tab:blue", label="incumbent")
    ok = [p for p in points if p.value is not None]
    ax.scatter([p.index for p in ok], [p.value for p in ok], color="tab:gray", s=18, label="accepted candidate")
    prom = [p for p in ok if p.promoted]
    ax.scatter([p.index for p in prom], [p.value for p in prom], marker="*", s=160, color="tab:green",
               label="promoted", zorder=3)
    for p in prom:
        ax.annotate(p.version, (p.index, p.value), textcoords="offset points", xytext=(4, 6), fontsize=8)
    bad = [p for p in points if p.value is None]
    if bad:
        floor = min([p.value for p in ok] or [1.0])
        ax.scatter([p.index for p in bad], [floor] * len(bad), marker="x", color="tab:red", label="rejected")
    for i, d in enumerate(dropouts):
        ax.axvline(d + 0.5, color="tab:orange", linestyle="--", label="dropout" if i == 0 else None)
    ax.set_xlabel("candidates evaluated")
    ax.set_ylabel(label)
    ax.set_title(title or "incumbent over the iterations")
    if xs:
        ax.set_xticks(xs)
    ax.legend(fontsize=8, loc="best")
    return _save(plt, fig, out, "")


def plot_shapes(result: EvalResult, out: Path, title: str = "") -> Path:
    """Per visible shape: the best kernel's time beside each baseline (log scale) and its SOL."""
    plt = _pyplot()
    shapes = [s for s in result.shapes if not s.held_out]
    names = sorted({k for s in shapes for k in s.baselines})
    sols = [s.roofline.sol if s.roofline and s.roofline.sol is not None else None for s in shapes]
    has_sol = any(x is not None for x in sols)
    fig, axes = plt.subplots(1, 2 if has_sol else 1, figsize=(10 if has_sol else 8, 4.2), dpi=100, squeeze=False)
    ax = axes[0][0]
    series = [("best kernel", [s.time.median_us if s.time else math.nan for s in shapes])]
    series += [(n, [s.baselines[n].median_us if n in s.baselines else math.nan for s in shapes]) for n in names]
    width = 0.8 / max(1, len(series))
    for i, (name, ys) in enumerate(series):
        ax.bar([j + i * width for j in range(len(shapes))], ys, width, label=name)
    ax.set_xticks([j + width * (len(series) - 1) / 2 for j in range(len(shapes))])
    ax.set_xticklabels([s.id for s in shapes], rotation=30, ha="right", fontsize=8)
    ax.set_yscale("log")
    cpu = result.mode != "gpu"
    ax.set_ylabel("CPU interpreter wall time, µs (ranks only)" if cpu else "time, µs")
    ax.set_title("time per shape" + (" (CPU interpreter)" if cpu else ""))
    ax.legend(fontsize=8)
    if has_sol:
        ax2 = axes[0][1]
        ax2.bar(range(len(shapes)), [x if x is not None else 0 for x in sols], color="tab:purple")
        ax2.set_xticks(range(len(shapes)))
        ax2.set_xticklabels([s.id for s in shapes], rotation=30, ha="right", fontsize=8)
        ax2.set_ylim(0, max(1.0, max(x for x in sols if x is not None)))
        ax2.set_ylabel("speed-of-light (T_roof / T)")
        ax2.set_title("SOL of the best kernel")
    return _save(plt, fig, out, title)


def _save(plt: Any, fig: Any, out: Path, title: str) -> Path:
    """Title, lay out, write and close a figure."""
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)
    return out


def plot_archive(h: History, out: Path, title: str = "") -> Path:
    """A map-elites archive: cells filled per generation, then per island the memory x compute grid
    shaded by its best score, each square with its best version and how many elites it holds."""
    from aka.propose.descriptors import COMPUTE, MEMORY

    plt = _pyplot()
    n = len(h.islands)
    fig, axes = plt.subplots(1, n + 1, figsize=(4.2 * (n + 1), 4), dpi=100, squeeze=False)
    ax = axes[0][0]
    gens = [g["generation"] for g in h.generations]
    for i in range(n):
        ax.plot(gens, [g["filled"][i] if i < len(g["filled"]) else 0 for g in h.generations], marker="o",
                label=f"island {i}")
    ax.plot(gens, [g["cells"] for g in h.generations], color="black", linestyle="--", label="all islands")
    ax.set_xlabel("generation")
    ax.set_ylabel("cells filled")
    ax.set_title("archive filling")
    ax.yaxis.get_major_locator().set_params(integer=True)
    if gens:
        ax.set_xticks(gens)
    ax.legend(fontsize=8)
    top = max([e["fitness"] for cells in h.islands for e in cells.values()] or [1.0])
    for i, cells in enumerate(h.islands):
        ax = axes[0][i + 1]
        at = squares(cells)
        grid = [[at[(m, c)][0]["fitness"] if (m, c) in at else math.nan for m in range(len(MEMORY))]
                for c in range(len(COMPUTE))]
        image = ax.imshow(grid, origin="lower", cmap="viridis", vmin=0.0, vmax=top)
        for (m, c), entries in at.items():
            ax.text(m, c, f"{entries[0]['version']}\n{entries[0]['fitness']:.2f}"
                    + (f"\n({len(entries)} elites)" if len(entries) > 1 else ""),
                    ha="center", va="center", fontsize=7, bbox={"facecolor": "white", "alpha": 0.7, "linewidth": 0})
        ax.set_xticks(range(len(MEMORY)))
        ax.set_xticklabels(MEMORY, rotation=30, ha="right", fontsize=7)
        ax.set_yticks(range(len(COMPUTE)))
        ax.set_yticklabels(COMPUTE, fontsize=7)
        ax.set_title(f"island {i}: best score per square")
        fig.colorbar(image, ax=ax, fraction=0.046)
    return _save(plt, fig, out, title)


def write_plots(out_dir: Path, events: list[Any], get_eval: Callable[[str], EvalResult | None],
                best: EvalResult | None, weights: dict[str, float], title: str = "",
                archive: History | None = None) -> tuple[list[Path], list[str]]:
    """The plots into OUT_DIR (the archive's too for a map-elites session): (files written, why
    any was not). Never raises for a plotting fault."""
    written, notes = [], []
    try:
        _pyplot()
    except ImportError as exc:
        return [], [f"plots skipped: matplotlib is not installed ({exc})"]
    if best is not None:
        try:
            written.append(plot_shapes(best, out_dir / SHAPES_PNG, title))
        except Exception as exc:  # noqa: BLE001 - a plot never stops a report
            notes.append(f"per-shape plot failed: {type(exc).__name__}: {exc}")
    else:
        notes.append("no per-shape plot: no accepted kernel")
    points, dropouts, label = trajectory(events, get_eval, weights)
    if points:
        try:
            written.append(plot_trajectory(points, dropouts, label, out_dir / TRAJECTORY_PNG, title))
        except Exception as exc:  # noqa: BLE001
            notes.append(f"trajectory plot failed: {type(exc).__name__}: {exc}")
    else:
        notes.append("no trajectory plot: no candidate was evaluated")
    if archive is not None:
        try:
            written.append(plot_archive(archive, out_dir / ARCHIVE_PNG, title))
        except Exception as exc:  # noqa: BLE001
            notes.append(f"archive plot failed: {type(exc).__name__}: {exc}")
    return written, notes
