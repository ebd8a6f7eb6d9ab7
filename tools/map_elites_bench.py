"""Map-elites against the greedy loop at the same evaluation budget, with the embedded tuner.

    python tools/map_elites_bench.py OP [OP ...] [--suite suites/llm-inference] [--iterations 8]
        [--shapes-per-op 3] [--time-limit MIN] [--reps 100] [--kb none] [--profile] [--out DIR] [--sessions-dir DIR]

Per operator, two `aka optimize OP --json` sessions with the same --iterations (candidates
evaluated), seed and shapes: `--strategy greedy` and `--strategy map-elites`. With --shapes-per-op
K only the K heaviest visible shapes run (prefill and decode both kept when present; held-out
shapes always run). Per session: the best kernel, its weighted geometric-mean speedup over eager
and over torch.compile and its weighted SOL at those shapes, the kernel families tried, the archive's
cells (map-elites), the wall time. Writes map_elites.json and map_elites.md under --out and prints
the table last. On the CPU interpreter no speedups exist (the table says so).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def pick_shapes(op_dir: Path, k: int) -> list[str]:
    """The K heaviest visible shapes, keeping a decode shape when the operator has one (all shapes,
    [], on the CPU interpreter, which runs the operator's small cpu_shapes)."""
    from aka.spec.load import load_op

    if not _cuda():
        return []
    shapes = sorted(load_op(op_dir).shapes, key=lambda s: (-s.weight, s.id))
    if k <= 0 or k >= len(shapes):
        return []
    chosen = shapes[:k]
    decode = [s for s in shapes if s.phase == "decode"]
    if decode and not any(s.phase == "decode" for s in chosen):
        chosen[-1] = decode[0]
    return [s.id for s in chosen]


def run_session(op_dir: Path, strategy: str, shapes: list[str], args) -> dict:
    cmd = [sys.executable, "-m", "aka", "optimize", str(op_dir), "--strategy", strategy, "--iterations",
           str(args.iterations), "--kb", args.kb, "--sessions-dir", str(args.sessions_dir), "--reps", str(args.reps),
           "--seed", str(args.seed), "--json"] + ([] if args.profile else ["--no-profile"])
    if args.kb == "memory":
        cmd += ["--embedder", "hash"]
    if args.time_limit:
        cmd += ["--time-limit", str(args.time_limit)]
    for s in shapes:
        cmd += ["--shape", s]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    (args.out / f"{op_dir.name}-{strategy}.stderr.txt").write_text(proc.stderr[-20000:])
    try:
        doc = json.loads(proc.stdout)
    except json.JSONDecodeError:
        doc = {"ok": False, "error": proc.stderr[-2000:]}
    doc.update(op=op_dir.name, strategy=strategy, wall_s=round(wall, 1), exit=proc.returncode, shapes_run=shapes)
    doc["families"] = families(doc.get("session"))
    return doc


def families(session: str | None) -> list[str]:
    """Kernel families the session evaluated (from its journal)."""
    if not session or not (Path(session) / "events.jsonl").is_file():
        return []
    names = set()
    for line in (Path(session) / "events.jsonl").read_text().splitlines():
        e = json.loads(line)
        if e.get("kind") == "propose" and e["data"].get("name"):
            names.add(e["data"]["name"])
    return sorted(names)


def figures(doc: dict) -> dict:
    """Weighted geomean speedups over eager and torch.compile and the weighted SOL of the best kernel."""
    rows = doc.get("shapes") or []
    out = {}
    for base in ("eager", "torch.compile"):
        xs = [(r["weight"], r["speedup"][base]) for r in rows if r.get("speedup", {}).get(base)]
        total = sum(w for w, _ in xs)
        out[base] = math.exp(sum(w * math.log(x) for w, x in xs) / total) if xs and total else None
    sols = [(r["weight"], r["sol"]) for r in rows if r.get("sol") is not None]
    total = sum(w for w, _ in sols)
    out["sol"] = sum(w * x for w, x in sols) / total if sols and total else None
    return out


def _f(x, fmt="{:.3f}") -> str:
    return "n/a" if x is None else fmt.format(x)


def render(docs: list[dict]) -> str:
    head = ["op", "strategy", "candidates", "best kernel", "× eager", "× compile", "SOL", "families", "cells",
            "wall s", "stop"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for d in docs:
        f = figures(d)
        cells = (d.get("archive") or {}).get("cells", "")
        lines.append(f"| {d['op']} | {d['strategy']} | {d.get('evaluated', d.get('iterations', '?'))} | "
                     f"{d.get('best_name') or d.get('best') or 'none'} | {_f(f['eager'], '{:.2f}×')} | "
                     f"{_f(f['torch.compile'], '{:.2f}×')} | {_f(f['sol'])} | {len(d['families'])} | {cells} | "
                     f"{d['wall_s']} | {(d.get('stop_reason') or d.get('message') or d.get('error') or '')[:80]} |")
    if docs and all(d.get("mode") == "cpu-interpreter" for d in docs if d.get("mode")):
        lines.append("\nCPU interpreter: no speedups or SOL exist there; only the search's behaviour is shown.")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ops", nargs="+")
    ap.add_argument("--suite", type=Path, default=ROOT / "suites" / "llm-inference")
    ap.add_argument("--iterations", type=int, default=8)
    ap.add_argument("--shapes-per-op", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=None, help="minutes per session")
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--kb", default="none", choices=("none", "memory"))
    ap.add_argument("--profile", action="store_true", help="profile each new incumbent (the tuner never reads "
                                                          "the profile; off by default to spend the time on candidates)")
    ap.add_argument("--out", type=Path, default=Path("."))
    ap.add_argument("--sessions-dir", type=Path, default=Path("sessions"))
    args = ap.parse_args(argv)
    for name in args.ops:
        if not (args.suite / name / "op.yaml").is_file():
            ap.error(f"no operator {name!r} under --suite {args.suite}")
    args.out.mkdir(parents=True, exist_ok=True)
    args.sessions_dir = args.sessions_dir.resolve()
    docs = []
    for name in args.ops:
        shapes = pick_shapes(args.suite / name, args.shapes_per_op)
        for strategy in ("greedy", "map-elites"):
            print(f"{name}: {strategy} ({args.iterations} candidates)", file=sys.stderr, flush=True)
            docs.append(run_session(args.suite / name, strategy, shapes, args))
    (args.out / "map_elites.json").write_text(json.dumps(docs, indent=1))
    table = render(docs)
    (args.out / "map_elites.md").write_text(table)
    print(table, end="")
    return 0 if all(d.get("exit") in (0, 1) for d in docs) else 1


def _cuda() -> bool:
    import os

    if os.environ.get("AKA_DEVICE") == "cpu":
        return False
    try:
        import torch

        return torch.cuda.is_available()
    except ImportError:
        return False


if __name__ == "__main__":
    sys.exit(main())
