"""The suite table for docs/benchmarks.md: every reference kernel of a suite, judged and timed on
the GPU, with SOL and speedups over eager and torch.compile per shape.

  PYTHONPATH=. python3 tools/suite_bench.py suites/llm-inference --out OUT/suite.json \
      [--ops rmsnorm,softmax] [--markdown OUT/suite.md]

Baselines are timed once per operator (with its first kernel) and reused for its other kernels.
Results accumulate in --out, so a run cut short by a time limit resumes where it stopped.
Needs a CUDA GPU: interpreter times are not GPU performance.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from aka.evaluate.evaluator import EvalOptions, Evaluator, detect_device
from aka.evaluate.pool import WorkerPool
from aka.spec.kernel import read_kernel_meta
from aka.spec.load import load_op


def kernels_by_op(suite: Path, root: Path) -> dict[str, list[Path]]:
    out: dict[str, list[Path]] = {}
    for op_dir in sorted(p.parent for p in suite.glob("*/op.yaml")):
        files = sorted((root / "reference_kernels" / op_dir.name).glob("*.py"))
        out[op_dir.name] = [f for f in files if read_kernel_meta(f).op == op_dir.name]
    return out


def rows_of(result: dict, kernel: str, baselines: dict) -> list[dict]:
    rows = []
    for s in result["shapes"]:
        if s["held_out"] or not s.get("time"):
            continue
        t = s["time"]["median_us"]
        base = baselines.get(s["id"], {})
        ro = s.get("roofline") or {}
        rows.append({"kernel": kernel, "shape": s["id"], "us": t, "method": s["time"]["method"],
                     "eager_us": base.get("eager"), "compile_us": base.get("torch.compile"),
                     "x_eager": base["eager"] / t if base.get("eager") else None,
                     "x_compile": base["torch.compile"] / t if base.get("torch.compile") else None,
                     "sol": ro.get("sol"), "sol_cal": ro.get("sol_calibrated"), "flag": ro.get("flag", "")})
    return rows


def bench_op(ev: Evaluator, op_dir: Path, kernels: list[Path]) -> dict:
    spec = load_op(op_dir)
    entry: dict = {"kernels": {}, "baselines": {}}
    for i, k in enumerate(kernels):
        opts = EvalOptions(baselines=None if i == 0 else (), timeout_s=900)
        res = ev.evaluate(spec, k, opts).to_dict()
        if i == 0:
            entry["baselines"] = {s["id"]: {b: v["median_us"] for b, v in s.get("baselines", {}).items()}
                                  for s in res["shapes"] if s.get("baselines")}
        entry["kernels"][k.stem] = {"status": res["status"],
                                    "rejections": [r["rule"] + ": " + r["message"][:200] for r in res["rejections"]],
                                    "rows": rows_of(res, k.stem, entry["baselines"])}
        print(f"{op_dir.name}/{k.stem}: {res['status']}", flush=True)
    return entry


def markdown(data: dict) -> str:
    lines = ["| op | kernel | shape | µs | method | eager µs | compile µs | × eager | × compile | SOL |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    f = lambda v, p=2: "—" if v is None else f"{v:.{p}f}"  # noqa: E731
    for op, entry in sorted(data.items()):
        for kname, k in entry["kernels"].items():
            if k["status"] != "accepted":
                lines.append(f"| {op} | {kname} | — | {k['status']}: {'; '.join(k['rejections'])[:120]} |||||||")
            for r in k["rows"]:
                lines.append(f"| {op} | {kname} | {r['shape']} | {f(r['us'])} | {r['method']} | "
                             f"{f(r['eager_us'])} | {f(r['compile_us'])} | {f(r['x_eager'])} | "
                             f"{f(r['x_compile'])} | {f(r['sol'])}{' (!)' if r['flag'] else ''} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("suite", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--ops", default="")
    ap.add_argument("--markdown", type=Path)
    args = ap.parse_args()
    if detect_device("auto") != "cuda":
        print("suite_bench needs a CUDA GPU: interpreter times are not GPU performance", file=sys.stderr)
        return 3
    root = Path(__file__).resolve().parents[1]
    data = json.loads(args.out.read_text()) if args.out.exists() else {}
    wanted = set(filter(None, args.ops.split(",")))
    with WorkerPool("cuda") as pool:
        ev = Evaluator(pool)
        for op, kernels in kernels_by_op(args.suite, root).items():
            if (wanted and op not in wanted) or op in data or not kernels:
                continue
            data[op] = bench_op(ev, args.suite / op, kernels)
            args.out.write_text(json.dumps(data, indent=1))
    if args.markdown:
        args.markdown.write_text(markdown(data))
    print(markdown(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
