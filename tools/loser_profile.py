"""Why a kernel loses: Nsight Compute on the fastest reference kernel and on torch.compile of the
reference, at every shape where the kernel is below torch.compile in a suite_bench result, plus the
Triton code inductor generated there (what the kernel has to beat, line by line).

  PYTHONPATH=. python3 tools/loser_profile.py suites/kernel-patterns RESULTS.json --out OUT \
      [--ops a,b] [--below 1.0] [--budget-s 400]

OUT gets, per (operator, shape): ours/ and compile/ (the profiler's files, report.json,
summary.txt) and inductor.log (inductor's generated code for that shape), then summary.md (one table:
each side's kernels, device time, DRAM bytes against the compulsory bytes, throughput, occupancy,
registers, grid and block) and summary.json. Needs a CUDA GPU and Nsight Compute; these are the
project's own reference kernels, run with a scrubbed environment (no sandbox: torch.compile writes
its cache outside the profile's folder).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from suite_bench import fastest_rows, per_shape  # noqa: E402  (a sibling tool)


def losers(results: dict, below: float, ops: set[str]) -> list[tuple[str, str, str, float]]:
    """(operator, shape, fastest kernel there, its speedup over torch.compile) for every matched
    shape below BELOW, slowest first."""
    out = []
    for row in per_shape(results["ops"], below):
        if ops and row["op"] not in ops:
            continue
        best = fastest_rows(results["ops"][row["op"]])
        out += [(row["op"], sid, best[sid]["kernel"], best[sid]["x_compile"]) for sid in row["below"]]
    return sorted(out, key=lambda t: t[3])


def side(report: dict | None) -> dict:
    """One side's figures from a ProfileReport dict: its kernels summed over launches."""
    if not report:
        return {}
    ks = report.get("kernels") or []
    total_ns = sum((k.get("total_duration_ns") or k.get("duration_ns") or 0) for k in ks)
    heavy = max(ks, key=lambda k: k.get("total_duration_ns") or k.get("duration_ns") or 0, default={})
    dram = [k.get("dram_bytes") for k in ks if k.get("dram_bytes") is not None]
    return {"kernels": [k["name"][:60] for k in ks], "launches": sum(k.get("launches", 1) for k in ks),
            "device_us": round(total_ns / 1e3 / max(report.get("calls") or 1, 1), 2),
            "dram_mb": round(sum(dram) / 1e6 / max(report.get("calls") or 1, 1), 3) if dram else None,
            "heaviest": heavy.get("name", "")[:60], "grid": heavy.get("grid"), "block": heavy.get("block"),
            "regs": heavy.get("registers_per_thread"), "smem": heavy.get("shared_mem_bytes"),
            "occupancy_pct": heavy.get("achieved_occupancy_pct"), "dram_pct": heavy.get("dram_throughput_pct"),
            "sm_pct": heavy.get("sm_throughput_pct"), "bottleneck": (report.get("bottleneck") or {}).get("kind")}


def inductor_code(spec_path: Path, kernel: Path, shape: str, dest: Path, timeout_s: float = 300) -> None:
    """Inductor's output code for the reference at one shape, as TORCH_LOGS=output_code prints it."""
    from aka.profile.launch import scrub_env

    env = scrub_env(dict(os.environ)) | {"TORCH_LOGS": "output_code"}
    argv = [sys.executable, "-m", "aka.evaluate.profile_driver", str(spec_path), str(kernel), "--shapes", shape,
            "--iters", "1", "--warmup", "1", "--compile"]
    try:
        run = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout_s)
        dest.write_text(run.stderr)
    except subprocess.TimeoutExpired:
        dest.write_text(f"inductor's code not captured: compiling took over {timeout_s:g} s\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("suite", type=Path)
    ap.add_argument("results", type=Path, help="tools/suite_bench.py's JSON for the suite")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--ops", default="")
    ap.add_argument("--below", type=float, default=1.0, help="profile shapes whose best is below this × torch.compile")
    ap.add_argument("--budget-s", type=float, default=400, help="start no new shape after this many seconds")
    args = ap.parse_args()
    from aka.evaluate.auto_bytes import auto_bytes
    from aka.profile.api import EnvLauncher, compulsory_bytes_of, profile
    from aka.spec.load import load_op

    if not args.results.is_file():
        ap.error(f"{args.results}: no such results file")
    todo = losers(json.loads(args.results.read_text()), args.below, set(filter(None, args.ops.split(","))))
    root, start, rows = Path(__file__).resolve().parents[1], time.monotonic(), []
    for op, shape, kname, x in todo:
        if time.monotonic() - start > args.budget_s:
            print(f"stopping before {op}/{shape}: --budget-s {args.budget_s:g} reached", flush=True)
            break
        spec, kernel = load_op(args.suite / op), root / "reference_kernels" / op / f"{kname}.py"
        where, row = args.out / op / shape, {"op": op, "shape": shape, "kernel": kname, "x_compile": x,
                                             "compulsory_mb": None}
        cb = compulsory_bytes_of(spec, shape, auto=auto_bytes)
        row["compulsory_mb"] = round(cb / 1e6, 3) if cb else None
        for name, compiled in (("ours", False), ("compile", True)):
            got = profile(spec, kernel, shape, out_dir=where / name, compiled=compiled, launcher=EnvLauncher(),
                          compulsory_bytes=cb, timeout_s=300)
            row[name] = side(got.report.to_dict() if got.report else None) | {"status": got.status}
        inductor_code(Path(spec.path), kernel, shape, where / "inductor.log")
        rows.append(row)
        print(f"{op}/{shape}: {kname} {x:.2f}x; kernel {row['ours'].get('device_us')} us, "
              f"compile {row['compile'].get('device_us')} us", flush=True)
    (args.out / "summary.json").write_text(json.dumps(rows, indent=1))
    (args.out / "summary.md").write_text(markdown(rows))
    print(markdown(rows))
    return 0


def markdown(rows: list[dict]) -> str:
    cols = ("device_us", "launches", "dram_mb", "dram_pct", "sm_pct", "occupancy_pct", "regs", "grid", "block")
    lines = ["| op | shape | side | × compile | compulsory MB | " + " | ".join(cols) + " | heaviest kernel |",
             "|" + "---|" * (len(cols) + 6)]
    for r in rows:
        for name in ("ours", "compile"):
            s = r.get(name) or {}
            label = r["kernel"] if name == "ours" else "torch.compile"
            lines.append(f"| {r['op']} | {r['shape']} | {label} | {r['x_compile']:.2f} | {r['compulsory_mb']} | "
                         + " | ".join(str(s.get(c, "—")) for c in cols) + f" | {s.get('heaviest', s.get('status'))} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
