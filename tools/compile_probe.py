"""How much the torch.compile baseline moved when it became specialized to each shape: every shape
of some operators timed under the old rule (plain `torch.compile` of each shape's reference, one
after another in one process, as the judge did before rule
`covering-flush-shared-floor-static-compile-2026-12-05`: the shapes after the first got Dynamo's
graph with symbolic sizes) and under the new one (`loading.compiled_reference`: Dynamo reset,
`dynamic=False`), in rounds old, new, old so that drift between rounds shows.

  PYTHONPATH=. python3 tools/compile_probe.py suites/llm-inference/rmsnorm [more operators] \
      [--reps 100] [--out probe.json]

Each timing is the harness's GpuTimer: events with the covering L2 flush, and graph replay when
the events median is under GRAPH_BELOW_US (the harness's choice). Needs a CUDA GPU; the
references are the project's own, run in this process.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import torch

from aka.evaluate.loading import Operator, compiled_reference, timed_calls
from aka.evaluate.timing import GRAPH_BELOW_US, GpuTimer
from aka.evaluate.worker import exact_fp32
from aka.spec.load import load_op


def _time(timer: GpuTimer, model: torch.nn.Module, sets: list) -> dict:
    calls = timed_calls(model, sets)
    t = timer.bench(calls, method="events")
    row = {"events": round(t.median_us, 2)}
    if t.median_us < GRAPH_BELOW_US:
        try:
            row["graph"] = round(timer.bench(calls, method="graph").median_us, 2)
        except Exception as exc:  # noqa: BLE001 - a baseline that cannot be captured keeps events
            row["graph_error"] = str(exc)[:160]
    row["us"] = row.get("graph", row["events"])
    return row


def probe_op(path: str, reps: int) -> list[dict]:
    spec = load_op(path)
    op = Operator(spec.to_dict(), "cuda", spec.dtype)
    timer = GpuTimer(reps=reps)
    rows = {s.id: {"op": spec.name, "shape": s.id} for s in spec.shapes}
    for label in ("old", "new", "old2"):
        torch._dynamo.reset()
        for s in spec.shapes:
            ref = op.build(s.params, 0)
            model = compiled_reference(ref) if label == "new" else torch.compile(ref)
            sets = [op.make_inputs(s.params, 500 + k) for k in range(2)]
            rows[s.id][label] = _time(timer, model, sets)
            del model, ref, sets
            torch.cuda.empty_cache()
    out = []
    for r in rows.values():
        old = statistics.mean([r["old"]["us"], r["old2"]["us"]])
        r["old_over_new"] = round(old / r["new"]["us"], 3)
        r["old_drift"] = round(r["old2"]["us"] / r["old"]["us"], 3)
        out.append(r)
    return out


def table(rows: list[dict]) -> str:
    lines = ["| op | shape | old µs (round 1 / 3) | new µs (each shape alone) | old / new | method |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        method = "graph" if "graph" in r["new"] else "events"
        lines.append(f"| {r['op']} | {r['shape']} | {r['old']['us']:.2f} / {r['old2']['us']:.2f} | "
                     f"{r['new']['us']:.2f} | {r['old_over_new']:.3f} | {method} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("ops", nargs="+")
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    exact_fp32()
    rows: list[dict] = []
    for path in args.ops:
        mine = probe_op(path, args.reps)
        rows += mine
        if args.out:
            Path(args.out).write_text(json.dumps(rows, indent=1))
        print(table(mine), flush=True)
    print(table(rows))


if __name__ == "__main__":
    main()
