"""Are the CUPTI spans a graph timing reads quantized, and what does their median lose? (GPU only)

The graph-timed decode figures of session 43 sit on a 0.25 µs grid above the launch floor
(docs/benchmarks.md, "Session 43"). This probe times a few small copies the way GpuTimer's graph
method does (flushed calls replayed in a CUDA graph, device spans from torch.profiler) and prints,
per size: the distinct span values, the smallest step between them, the median, the mean, what
the judge's `stats` reports for them (the median for grouped data when it finds a grid, and the
tick it found), and, as an independent reference
on a finer clock, CUDA events around replays of a graph of the same calls without the flushes
divided by their count (warm L2, so not the same quantity: it says whether the steps are real).

    python3 tools/span_grid_probe.py [--reps 600] [--out spans.json]

With --sessions DIR (no GPU needed) it reads instead the graph-timed figures an earlier run wrote
(every baselines.json and candidates' eval.json under DIR) and counts how many sit on the launch
floor plus a multiple of half a --tick (default 0.25 µs; a median of an even number of samples
can fall between two ticks), with the figures' IQRs in ticks.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=600)
    ap.add_argument("--sizes-kib", default="4,64,256,1024,4096")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--sessions", type=Path, help="count graph figures of earlier sessions on the grid instead")
    ap.add_argument("--tick", type=float, default=0.25)
    ap.add_argument("--floor", type=float, help="the launch floor they added (default: read from their notes)")
    args = ap.parse_args(argv)
    if args.sessions:
        return recorded(args.sessions, args.tick, args.floor)

    import torch

    from aka.evaluate.timing import GpuTimer, stats

    if not torch.cuda.is_available():
        print("span_grid_probe needs a CUDA GPU", file=sys.stderr)
        return 3
    timer = GpuTimer()
    rows = []
    for kib in (int(k) for k in args.sizes_kib.split(",")):
        src = torch.randn(kib * 256, device="cuda")
        dst = torch.empty_like(src)
        call = lambda: dst.copy_(src)  # noqa: E731
        timer._warmup([call])
        spans = timer.span_samples([call], args.reps)
        distinct = sorted(set(round(x, 4) for x in spans))
        steps = [b - a for a, b in zip(distinct, distinct[1:])]
        step = min(steps) if steps else 0.0
        t = stats(spans, "graph")          # what the judge reports for these spans (floor not added)
        events_us = timer.replayed_us(timer._graph([call], 50, flush=False), 50)
        row = {"kib": kib, "n": len(spans), "distinct": distinct[:12], "n_distinct": len(distinct),
               "step_us": step, "median_us": statistics.median(spans), "mean_us": statistics.fmean(spans),
               "stats_median_us": t.median_us, "stats_tick_us": t.tick_us,
               "warm_events_us": events_us}
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    print("| KiB | spans | distinct | step µs | median | mean | stats() median (tick) | warm events |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['kib']} | {r['n']} | {r['n_distinct']} | {r['step_us']:.4f} | {r['median_us']:.3f} | "
              f"{r['mean_us']:.3f} | {r['stats_median_us']:.3f} ({r['stats_tick_us']:g}) | {r['warm_events_us']:.3f} |")
    return 0


def timed_figures(root: Path, method: str = "graph") -> list[tuple[str, dict]]:
    """(where, timing) of every figure timed by METHOD in baselines.json and eval.json files under ROOT."""
    out = []
    for path in sorted(root.rglob("baselines.json")):
        for key, sides in json.loads(path.read_text()).items():
            out += [(f"{path.parent.name} {key} {name}", t) for name, t in sides.items() if t.get("method") == method]
    for path in sorted(root.rglob("eval.json")):
        for shape in json.loads(path.read_text()).get("shapes", []):
            t = shape.get("time") or {}
            if t.get("method") == method:
                out.append((f"{path.parent.parent.parent.name} {path.parent.name} {shape.get('shape')}", t))
    return out


EVENT_TICK_US = 0.032
"""The step CUDA event times showed on the H200 (session 43)."""


def recorded(root: Path, tick: float, floor: float | None) -> int:
    figures = timed_figures(root)
    if not figures:
        print(f"no graph-timed figures under {root}", file=sys.stderr)
        return 1
    on, iqrs = 0, []
    for _, t in figures:
        f = floor
        if f is None:
            words = t.get("note", "").split("floor ")
            f = float(words[1].split()[0]) if len(words) > 1 else 0.0
        # the note rounds the floor to 0.01 µs: allow that much beside the half-tick
        steps = (t["median_us"] - f) / (tick / 2)
        on += abs(steps - round(steps)) * tick / 2 <= 0.006
        iqrs.append(round(t["iqr_us"] / tick, 2))
    print(f"{on} of {len(figures)} graph-timed figures under {root} read the floor plus a multiple of {tick / 2:g} µs")
    print("IQRs in ticks:", dict(sorted(Counter(iqrs).items())))
    events = [t["min_us"] for _, t in timed_figures(root, "events") if t.get("min_us")]
    if events:
        grid = sum(abs(x / EVENT_TICK_US - round(x / EVENT_TICK_US)) < 0.01 for x in events)
        print(f"{grid} of {len(events)} event-timed figures have their fastest sample "
              f"on a {EVENT_TICK_US * 1e3:g} ns grid")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
