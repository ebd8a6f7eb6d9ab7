"""Where a kernel's harness time goes: each side (eager, torch.compile, reference kernels) of some
(operator, shape) timed several ways, in rounds whose order rotates, in one process, with the SM
clock read after each timing.

  PYTHONPATH=. python3 tools/timing_probe.py suites/llm-inference/linear_bf16 llama3-8b-o_proj-prefill-4k \
      reference_kernels/linear_bf16/tma_persistent_flat.py [more kernels] [--rounds 3] [--out probe.json]

Ways, per side and round: `events` (the harness's rule: an L2 flush long enough to cover the host's
enqueue), `1 pass` (one flush pass: host launch gaps show), `spin` (one pass then ~100 µs of GPU
spin-wait, the rule before 2026-12-04), `graph` (the
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
from pathlib import Path

import torch

from aka.evaluate.correctness import build_pair
from aka.evaluate.loading import Operator, compiled_reference, load_module, timed_calls
from aka.evaluate.timing import GpuTimer, stats
from aka.evaluate.worker import exact_fp32
from aka.spec.load import load_op

SPIN_CYCLES = 200_000
"""The harness's rule before 2026-12-04: one flush pass, then ~100 µs of GPU spin-wait."""


def sm_clock_mhz() -> int | None:
    try:
        import pynvml

        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
        return int(pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM))
    except Exception:  # noqa: BLE001 - no NVML: no clock column
        return None


def events_plain(timer: GpuTimer, calls: list, reps: int, spin_cycles: int = 0) -> float:
    """One flush pass before each call, then (spin_cycles > 0) a spin-wait of the GPU."""
    starts, ends = timer._events(reps)
    for i in range(reps):
        timer.flush()
        if spin_cycles:
            torch.cuda._sleep(spin_cycles)
        starts[i].record()
        calls[i % len(calls)]()
        ends[i].record()
    torch.cuda.synchronize()
    return stats([s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends)], "events").median_us


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
    sides["compile"] = compiled_reference(sides["eager"])
    sets = [op.make_inputs(params, seed=500 + k) for k in range(3)]
    timer = GpuTimer(reps=reps)
    names = list(sides)
    rows: dict[str, list[dict]] = {n: [] for n in names}
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            calls = timed_calls(sides[name], sets)
            t = timer.bench(calls, method="events")
            row = {"round": r, "events": t.median_us, "events_cv": t.cv, "clock_mhz": sm_clock_mhz(),
                   "note": t.note, "events_nohold": events_plain(timer, calls, reps),
                   "events_spin": events_plain(timer, calls, reps, SPIN_CYCLES), "host": timer.host_us(calls)}
            try:
                row["graph"] = timer.bench(calls, method="graph").median_us
            except Exception as exc:  # noqa: BLE001
                row["graph"] = None
                row["graph_error"] = str(exc)[:200]
            rows[name].append(row)
    return {"op": spec.name, "shape": shape, "rows": rows, "summary": summarize(rows)}


WAYS = ("events", "events_nohold", "events_spin", "graph", "host")


def summarize(rows: dict[str, list[dict]]) -> dict[str, dict[str, float]]:
    """Per side, the median over rounds of each way it was timed (ways it never got are left out)."""
    return {n: {k: round(statistics.median([x[k] for x in rs if x.get(k) is not None]), 2)
                for k in WAYS if any(x.get(k) is not None for x in rs)} for n, rs in rows.items()}


def table(result: dict) -> str:
    """The printed table: each side's medians, then its events time and SM clock per round."""
    lines = [f"{result['op']} {result['shape']}",
             f"  {'side':28s} {'events':>8s} {'1 pass':>8s} {'spin':>8s} {'graph':>8s} {'host':>6s}  "
             "events by round (clock MHz)"]
    for name, s in result["summary"].items():
        by_round = " ".join(f"{x['events']:.1f}({x['clock_mhz']})" for x in result["rows"][name])
        lines.append(f"  {name:28s} {s.get('events', 0):8.2f} {s.get('events_nohold', 0):8.2f} "
                     f"{s.get('events_spin', 0):8.2f} {s.get('graph') or 0:8.2f} {s.get('host', 0):6.1f}  {by_round}")
    return "\n".join(lines)


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
    print(table(result))


if __name__ == "__main__":
    main()
