"""The batch report's plots (matplotlib, Agg): per-operator SOL against the baselines, the
distribution of per-operator speedups, and operator weight against SOL."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def write_plots(out: Path, board: dict[str, Any]) -> tuple[list[Path], list[str]]:
    """(plots written, notes on plots left out and why)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    rows, written, notes = board["rows"], [], []
    scored = [r for r in rows if r["sol"] is not None or r["baseline_sol"]]
    if scored:
        written.append(_sol_bars(plt, out / "sol_per_operator.png", scored))
        written.append(_weight_vs_sol(plt, out / "weight_vs_sol.png", rows))
    else:
        notes.append("no SOL measured (CPU interpreter, or no real kernel): the SOL plots are left out")
    if any(r["speedup"] for r in rows):
        written.append(_speedups(plt, out / "speedup_distribution.png", rows))
    else:
        notes.append("no speedup measured: the speedup distribution is left out")
    return written, notes


def _sol_bars(plt, path: Path, rows: list[dict[str, Any]]) -> Path:
    names = sorted({k for r in rows for k in r["baseline_sol"]})
    series = [("aka kernel", [r["sol"] or 0.0 for r in rows])] + [
        (b, [r["baseline_sol"].get(b, 0.0) for r in rows]) for b in names]
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(rows) * len(series)), 4))
    width = 0.8 / len(series)
    for i, (label, values) in enumerate(series):
        ax.bar([j + i * width for j in range(len(rows))], values, width, label=label)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(rows))])
    ax.set_xticklabels([r["op"] for r in rows], rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("SOL (T_roof / T)")
    ax.set_title("Speed-of-light per operator: aka's kernel and the baselines")
    ax.legend(fontsize=8)
    return _save(plt, fig, path)


def _speedups(plt, path: Path, rows: list[dict[str, Any]]) -> Path:
    import math

    names = sorted({k for r in rows for k in r["speedup"]})
    fig, ax = plt.subplots(figsize=(6, 4))
    for b in names:
        xs = [math.log2(r["speedup"][b]) for r in rows if r["speedup"].get(b)]
        ax.hist(xs, bins=max(5, min(30, len(xs))), alpha=0.5, label=f"over {b} ({len(xs)})")
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel("log2 speedup (right of 0: faster than the baseline)")
    ax.set_ylabel("operators")
    ax.set_title("Speedup distribution")
    ax.legend(fontsize=8)
    return _save(plt, fig, path)


def _weight_vs_sol(plt, path: Path, rows: list[dict[str, Any]]) -> Path:
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.scatter([r["weight"] for r in rows], [r["sol"] or 0.0 for r in rows],
               c=["tab:green" if r["real_kernel"] else "tab:red" for r in rows])
    for r in rows:
        ax.annotate(r["op"], (r["weight"], r["sol"] or 0.0), fontsize=7)
    ax.set_xlabel("operator weight (normalized)")
    ax.set_ylabel("SOL (0: no real kernel)")
    ax.set_title("Weight against SOL: the heavy, slow operators are the ones to work on")
    return _save(plt, fig, path)


def _save(plt, fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
