"""Parameter points of one reference kernel, each judged and timed by the harness itself.

  python3 tools/harness_probe.py suites/kernel-patterns/row_sum reference_kernels/row_sum/adaptive_single_launch.py \
      --shape short-rows-64k --point TILE=1024 --point TILE=2048,NUM_WARPS=8 [--out probe.json]

Each point is the kernel's source with those module constants set (`aka eval --param`'s
materialization), evaluated at the named visible shapes (held-out shapes skipped: a probe ranks,
it does not accept) with the operator's baselines timed interleaved with it in the same worker,
twice in mirrored order, by the harness's own timer and flush. So a point's ratio to
torch.compile is the ratio the suite tables would show, not a launch-path or warm-cache figure.
The kernel's own defaults run first as the point `default`. One warm worker serves every point.

On the CPU interpreter the rows carry the interpreter's times, labelled `cpu-interpreter`: they say
whether a point is correct there, nothing about a GPU.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def parse_point(text: str) -> dict[str, Any]:
    """'A=1,B=x' as a parameter point (values as `aka eval --param` reads them); '' or 'default': {}."""
    from aka.cli.eval_cmd import parse_params

    text = text.strip()
    if text in ("", "default"):
        return {}
    return parse_params([item for item in text.split(",") if item.strip()])


def point_label(point: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in point.items()) or "default"


def rows_of(result: dict, label: str) -> list[dict]:
    """One row per timed visible shape (or per checked shape when nothing was timed)."""
    rows = []
    for s in result["shapes"]:
        if s["held_out"]:
            continue
        t = s.get("time") or {}
        base = {b: v.get("median_us") for b, v in (s.get("baselines") or {}).items()}
        us = t.get("median_us")
        comp = base.get("torch.compile")
        rows.append({"point": label, "shape": s["id"], "status": result["status"], "correct": s.get("correct"),
                     "us": us, "method": t.get("method"), "cv": t.get("cv"), "baselines": base,
                     "x_compile": round(comp / us, 3) if us and comp else None,
                     "sol": (s.get("roofline") or {}).get("sol")})
    if not rows or result["status"] != "accepted":
        why = "; ".join(f"{r['rule']}: {r['message'][:160]}" for r in result.get("rejections", []))
        rows = rows or [{"point": label, "shape": "-", "status": result["status"]}]
        for r in rows:
            r["why"] = why
    return rows


def probe(op_dir: Path, kernel: Path, shapes: list[str], points: list[dict[str, Any]], device: str = "auto",
          reps: int = 100, timeout_s: float = 300.0) -> list[dict]:
    from aka.cli.eval_cmd import with_params
    from aka.evaluate.evaluator import EvalOptions, Evaluator, detect_device
    from aka.evaluate.pool import WorkerPool
    from aka.spec.load import load_op

    spec = load_op(op_dir)
    device = detect_device(device)
    visible, _ = spec.run_shapes(interpreter=device == "cpu")   # the cpu_ shapes on the interpreter
    unknown = [s for s in shapes if s not in {v.id for v in visible}]
    if unknown:
        raise SystemExit(f"harness_probe: {op_dir}/op.yaml has no visible shape {', '.join(unknown)} on {device} "
                         f"(visible: {', '.join(v.id for v in visible)})")
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="aka-probe-") as tmp, WorkerPool(device) as pool:
        runs = []  # every point materialized first: an unknown constant stops the probe before anything runs
        for i, point in enumerate([{}] + [p for p in points if p]):
            folder = Path(tmp) / f"p{i}"
            folder.mkdir()
            runs.append((point, with_params(kernel, point, folder) if point else kernel))
        ev = Evaluator(pool)
        for point, run in runs:
            opts = EvalOptions(shapes=tuple(shapes), held_out=False, interleave=True, reps=reps, timeout_s=timeout_s)
            result = ev.evaluate(spec, run, opts).to_dict()
            got = rows_of(result, point_label(point))
            rows += got
            for r in got:
                print(render_row(r), flush=True)
    return rows


def render_row(r: dict) -> str:
    us = f"{r['us']:.2f} {r.get('method') or ''}" if r.get("us") else "-"
    comp = (r.get("baselines") or {}).get("torch.compile")
    tail = f"compile {comp:.2f}  x{r['x_compile']:.3f}" if comp and r.get("x_compile") else ""
    why = f"  {r['why'][:200]}" if r.get("why") else ""
    return f"{r['shape']:<34} {r['point']:<48} {r['status']:<9} {us:<14} {tail}{why}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("op_dir", type=Path)
    ap.add_argument("kernel", type=Path)
    ap.add_argument("--shape", action="append", required=True, help="a visible shape id (repeat)")
    ap.add_argument("--point", action="append", default=[], help="NAME=VALUE[,NAME=VALUE...] (repeat)")
    ap.add_argument("--device", default="auto", choices=["auto", "cuda", "cpu"])
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--out", type=Path, help="write every row as JSON here")
    args = ap.parse_args(argv)
    if not (args.op_dir / "op.yaml").is_file():
        ap.error(f"{args.op_dir}: no op.yaml")
    if not args.kernel.is_file():
        ap.error(f"{args.kernel}: no such kernel file")
    import typer

    try:
        points = [parse_point(p) for p in args.point]
    except typer.BadParameter as exc:
        ap.error(str(exc))
    from aka.errors import CandidateError

    try:
        rows = probe(args.op_dir, args.kernel, args.shape, points, args.device, args.reps)
    except CandidateError as exc:
        print(f"harness_probe: {exc}", file=sys.stderr)
        return 2
    if args.out:
        args.out.write_text(json.dumps({"op": args.op_dir.name, "kernel": str(args.kernel), "rows": rows}, indent=1))
    return 0 if any(r["status"] == "accepted" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
