"""Are the CUPTI spans a graph timing reads quantized, and what does their median lose? (GPU only)

The graph-timed decode figures of session 43 sit on a 0.25 µs grid above the launch floor
(docs/benchmarks.md, "Session 43"). This probe times a few small copies the way GpuTimer's graph
method does (flushed calls replayed in a CUDA graph, device spans from torch.profiler) and prints,
per size: the distinct span values, the smallest step between them, the median, the mean, the
median for grouped data at that step (statistics.median_grouped), and, as an independent reference
on a finer clock, CUDA events around replays of a graph of the same calls without the flushes
divided by their count (warm L2, so not the same quantity: it says whether the steps are real).

    python3 tools/span_grid_probe.py [--reps 600] [--out spans.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=600)
    ap.add_argument("--sizes-kib", default="4,64,256,1024,4096")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)

    import torch
    from torch.profiler import ProfilerActivity, profile

    from aka.evaluate.timing import GpuTimer, call_spans

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
        inner = 10
        graph = timer._graph([call], inner, flush=True)
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(-(-args.reps // inner)):
                graph.replay()
            torch.cuda.synchronize()
        acts = [(ev.name(), ev.start_ns() / 1e3, (ev.start_ns() + ev.duration_ns()) / 1e3)
                for ev in prof.profiler.kineto_results.events()
                if ev.device_type() == torch.autograd.DeviceType.CUDA]
        spans = call_spans(acts)
        distinct = sorted(set(round(x, 4) for x in spans))
        steps = [b - a for a, b in zip(distinct, distinct[1:])]
        step = min(steps) if steps else 0.0
        warm = timer._graph([call], 50, flush=False)
        starts, ends = timer._events(40)
        for i in range(40):
            starts[i].record()
            warm.replay()
            ends[i].record()
        torch.cuda.synchronize()
        events_us = statistics.median(s.elapsed_time(e) * 1e3 / 50 for s, e in zip(starts, ends))
        row = {"kib": kib, "n": len(spans), "distinct": distinct[:12], "n_distinct": len(distinct),
               "step_us": step, "median_us": statistics.median(spans), "mean_us": statistics.fmean(spans),
               "grouped_median_us": statistics.median_grouped(spans, interval=step) if step else None,
               "warm_events_us": events_us}
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    print("| KiB | spans | distinct | step µs | median | mean | grouped median | warm events |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        gm = f"{r['grouped_median_us']:.3f}" if r["grouped_median_us"] is not None else "—"
        print(f"| {r['kib']} | {r['n']} | {r['n_distinct']} | {r['step_us']:.4f} | {r['median_us']:.3f} | "
              f"{r['mean_us']:.3f} | {gm} | {r['warm_events_us']:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
