"""Where a kernel's harness time goes: each side (eager, torch.compile, reference kernels) of some
(operator, shape) timed several ways, in rounds whose order rotates, in one process, with the SM
clock read after each timing.

  PYTHONPATH=. python3 tools/timing_probe.py suites/llm-inference/linear_bf16 llama3-8b-o_proj-prefill-4k \
      reference_kernels/linear_bf16/tma_persistent_flat.py [more kernels] [--rounds 3] [--out probe.json]

Ways, per side and round: `events` (the harness's rule: L2 flushed, GPU held while the host
enqueues), `events-nohold` (the same without the hold: host launch gaps show), `graph` (the
harness's graph replay: CUPTI device span plus one launch floor) and `host` (µs the host spends
enqueuing one call while the GPU is busy). A side that is slow under `events` and not under `graph`
pays host or idle time inside the timed window; a side whose time falls from round to round pays a
clock that had not yet ramped. Needs a CUDA GPU; these are the project's own kernels, run in this
process, no sandbox.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import torch

from aka.evaluate.correctness import build_pair
from aka.evaluate.loading import Operator, load_module
from aka.evaluate.timing import GpuTimer, stats
from aka.evaluate.worker import calls_of, exact_fp32
from aka.spec.load import load_op


def sm_clock_mhz() -> int | None:
    try:
        import pynvml

        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
        return int(pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM))
    except Exception:  # noqa: BLE001 - no NVML: no clock column
        return None


def events_nohold(timer: GpuTimer, calls: list, reps: int) -> float:
    starts, ends = timer._events(reps)
    for i in range(reps):
        timer.flush()
        starts[i].record()
        calls[i % len(calls)]()
        ends[i].record()
    torch.cuda.synchronize()
    return stats([s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends)], "events").median_us


def host_us(timer: GpuTimer, calls: list, n: int = 20) -> float:
    """Host time to enqueue one call while the GPU is still busy with a long sleep."""
    torch.cuda.synchronize()
    torch.cuda._sleep(2_000_000)            # ~1 ms of GPU spin: the enqueues below never wait on it
    t0 = time.perf_counter()
    for i in range(n):
        calls[i % len(calls)]()
    dt = (time.perf_counter() - t0) * 1e6 / n
    torch.cuda.synchronize()
    return dt


def probe(spec_path: str, shape: str, kernels: list[str], rounds: int, reps: int) -> dict:
    exact_fp32()
    spec = load_op(spec_path)
    op = Operator(spec.to_dict(), "cuda", spec.dtype)
    params = spec.shape(shape).params
    sides: dict[str, torch.nn.Module] = {}
    for path in kernels:
        pair = build_pair(op, load_module(path, Path(path).stem).ModelNew, params, seed=0)
        sides.setdefault("eager", pair.ref)
        sides[Path(path).stem] = pair.cand
    sides["compile"] = torch.compile(sides["eager"])
    sets = [op.make_inputs(params, seed=500 + k) for k in range(3)]
    timer = GpuTimer(reps=reps)
    names = list(sides)
    rows: dict[str, list[dict]] = {n: [] for n in names}
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            calls = calls_of(sides[name], sets)
            t = timer.bench(calls, method="events")
            row = {"round": r, "events": t.median_us, "events_cv": t.cv, "clock_mhz": sm_clock_mhz(),
                   "events_nohold": events_nohold(timer, calls, reps), "host": host_us(timer, calls)}
            try:
                row["graph"] = timer.bench(calls, method="graph").median_us
            except Exception as exc:  # noqa: BLE001
                row["graph"] = None
                row["graph_error"] = str(exc)[:200]
            rows[name].append(row)
    summary = {n: {k: round(statistics.median([x[k] for x in rs if x.get(k) is not None]), 2)
                   for k in ("events", "events_nohold", "graph", "host")
                   if any(x.get(k) is not None for x in rs)} for n, rs in rows.items()}
    return {"op": spec.name, "shape": shape, "rows": rows, "summary": summary}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("op")
    ap.add_argument("shape")
    ap.add_argument("kernels", nargs="+")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    result = probe(args.op, args.shape, args.kernels, args.rounds, args.reps)
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1))
    print(f"{result['op']} {result['shape']}")
    print(f"  {'side':32s} {'events':>9s} {'nohold':>9s} {'graph':>9s} {'host':>7s}  events by round (clock MHz)")
    for name, s in result["summary"].items():
        by_round = " ".join(f"{x['events']:.1f}({x['clock_mhz']})" for x in result["rows"][name])
        print(f"  {name:32s} {s.get('events', 0):9.2f} {s.get('events_nohold', 0):9.2f} "
              f"{s.get('graph') or 0:9.2f} {s.get('host', 0):7.1f}  {by_round}")


if __name__ == "__main__":
    main()
