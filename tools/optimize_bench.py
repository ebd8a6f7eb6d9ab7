"""Run `aka optimize` (the embedded tuner) over operators and tabulate what it found.

    python tools/optimize_bench.py rmsnorm softmax ... [--suite suites/llm-inference]
        [--iterations 14] [--parallel K] [--out DIR] [--sessions-dir DIR] [--kb none] [--render FILE]

Per operator: one `aka optimize OP --json` session (its wall time, the candidates it evaluated),
then per shape the best kernel's time, its timing method, eager and torch.compile timed the same
way in the same worker, the speedups and the speed-of-light (datasheet, and launch-adjusted for
short kernels). The rate is given twice: over the whole session, and after the first candidate
(from the end of the first iteration to the end of the last, by the journal: without the start-up,
the baselines timed once for the session, the first evaluation and the final profile). Writes
optimize_bench.json and optimize_bench.md under --out and prints the table. On the CPU
interpreter the figures are interpreter wall times and the table says so.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_op(op: Path, args: argparse.Namespace) -> dict:
    cmd = [sys.executable, "-m", "aka", "optimize", str(op), "--iterations", str(args.iterations),
           "--kb", args.kb, "--sessions-dir", str(args.sessions_dir), "--json", "--reps", str(args.reps)]
    if args.time_limit:
        cmd += ["--time-limit", str(args.time_limit)]
    if args.parallel > 1:
        cmd += ["--parallel", str(args.parallel)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    (args.out / f"{op.name}.stderr.txt").write_text(proc.stderr[-20000:])
    try:
        doc = json.loads(proc.stdout)
    except json.JSONDecodeError:
        doc = {"ok": False, "error": proc.stderr[-2000:]}
    doc.update(op=op.name, wall_s=round(wall, 1), exit=proc.returncode)
    if doc.get("session"):
        doc["time_breakdown"] = time_breakdown(Path(doc["session"]))
    return doc


def time_breakdown(session: Path) -> dict:
    """Where a session's wall time went: its journal's timeline (`aka.sessions.timeline`: seconds
    by loop step, the rate over the run and after the first candidate, `steady`), and, summed over
    its candidates' eval.json and decision.json, the evaluations' and comparisons' own phases
    (`phases_s`), what the propose step spent handing configurations to the compile-ahead, and the
    kernels each candidate's process compiled itself."""
    from aka.sessions.journal import read_events
    from aka.sessions.timeline import timeline

    if not (session / "events.jsonl").is_file():
        return {}
    events = read_events(session / "events.jsonl").events
    run = timeline(events)
    parts: dict[str, float] = {}
    for ev in events:
        if ev.kind == "propose":                 # where a proposal's time went (journaled since 2026-12-04)
            for part in ("warm_s", "proposer_s"):
                parts[part] = parts.get(part, 0.0) + float((ev.data or {}).get(part) or 0.0)
    evals = _records(session, "eval.json")
    compared = [d for d in _records(session, "decision.json") if d.get("phases_s")]
    compiled = [int(m.group(1)) for d in evals for n in d.get("notes") or [] if (m := COMPILED.search(str(n)))]
    walls: dict[str, list[float]] = {"full": [], "focused": [], "focused-screen": []}
    for d in evals:                              # a screen is focused at several shapes, a tuning point at one
        kind = "full" if not d.get("focus") else "focused" if len(d["focus"]) == 1 else "focused-screen"
        walls[kind].append(float(d.get("wall_s") or 0.0))
    return {"steps_s": run.get("steps_s", {}), "step_counts": run.get("step_counts", {}),
            "steady": run.get("steady", {}), "run_wall_s": run.get("wall_s"),
            "eval_wall_s": {k: {"n": len(v), "mean": round(sum(v) / len(v), 2)} for k, v in walls.items() if v},
            "evaluations": len(evals), "phases_s": _summed(evals), "kernels_compiled": compiled,
            "comparisons": len(compared), "compare_phases_s": _summed(compared),
            "propose_parts_s": {k: round(v, 3) for k, v in parts.items()}}


def _records(session: Path, name: str) -> list[dict]:
    """Each candidate's NAME (eval.json, decision.json) that reads as a JSON object."""
    out = []
    for path in sorted(session.glob(f"candidates/*/{name}")):
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict):
            out.append(doc)
    return out


def _summed(docs: list[dict]) -> dict[str, float]:
    """Their `phases_s`, phase by phase, summed."""
    total: dict[str, float] = {}
    for d in docs:
        for k, v in (d.get("phases_s") or {}).items():
            total[k] = total.get(k, 0.0) + float(v)
    return {k: round(v, 2) for k, v in total.items()}


COMPILED = re.compile(r"kernels compiled by the candidate's process: (\d+)")
"""The judge's note (GPU only) on how many kernels a candidate's process compiled itself."""


def rows(doc: dict) -> list[list[str]]:
    from aka.spec.result import speedup_text  # a loss that rounds to 1.00 keeps its digits

    out = []
    for r in doc.get("shapes", []):
        b, s = r["baselines_us"], r["speedup"]
        out.append([doc["op"], r["shape"], r["phase"], _f(r["time_us"]), r["method"] or "",
                    _f(b.get("eager")), _f(b.get("torch.compile")), speedup_text(s.get("eager")),
                    speedup_text(s.get("torch.compile")), _f(r["sol"], "{:.3f}"),
                    _f(r["sol_launch_adjusted"], "{:.3f}")])
    return out


def _f(x, fmt="{:.2f}") -> str:
    return "n/a" if x is None else fmt.format(x)


def render(docs: list[dict]) -> str:
    head = ["op", "shape", "phase", "best µs", "timing", "eager µs", "compile µs", "× eager", "× compile",
            "SOL", "SOL launch-adj."]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for d in docs:
        lines += ["| " + " | ".join(r) + " |" for r in rows(d)]
    lines += ["", "| op | best kernel | candidates | wall s | candidates / min | after the first: candidates in s "
              "(/ min) | stop |", "|---|---|---|---|---|---|---|"]
    total_c = total_s = steady_c = steady_s = 0.0
    for d in docs:
        n, w = d.get("evaluated", 0), d["wall_s"]
        st = (d.get("time_breakdown") or {}).get("steady") or {}
        total_c, total_s = total_c + n, total_s + w
        steady_c, steady_s = steady_c + st.get("candidates", 0), steady_s + st.get("seconds", 0.0)
        later = (f"{st['candidates']} in {st['seconds']:.0f} ({60 * st['candidates'] / st['seconds']:.1f})"
                 if st.get("seconds") else "—")
        shown = f"{n} ({d['focused']} focused)" if d.get("focused") else f"{n}"
        lines.append(f"| {d['op']} | {d.get('best_name') or d.get('error', '')[:60]} | {shown} | {w:.0f} | "
                     f"{60 * n / w:.1f} | {later} | {d.get('stop_reason', '')} |")
    later = f"{steady_c:.0f} in {steady_s:.0f} ({60 * steady_c / steady_s:.1f})" if steady_s else "—"
    lines.append(f"| all | | {total_c:.0f} | {total_s:.0f} | {60 * total_c / max(total_s, 1e-9):.1f} | {later} | |")
    walls = [(d["op"], k, v) for d in docs for k, v in ((d.get("time_breakdown") or {}).get("eval_wall_s") or {}).items()]
    if any(k.startswith("focused") for _, k, _ in walls):
        lines += ["", "Mean evaluation wall time (judge's eval.json) by kind: a focused trial is judged at its own "
                      "shapes (`focused`: a tuning point at one; `focused-screen`: a family's screen at the visible "
                      "ones), no held-out shape, no comparison:", ""]
        lines += [f"- {op}: {k} {v['mean']:.2f} s ({v['n']})" for op, k, v in walls]
    lines += ["", *breakdown_table(docs)]
    if any(d.get("mode") == "cpu-interpreter" for d in docs):
        lines.append("\nCPU interpreter: times are wall-clock interpreter times, not GPU performance.")
    return "\n".join(lines)


STEPS = ("setup", "batch", "evaluate", "accept", "profile", "propose", "retrieve", "confirm")
"""Loop steps tabulated (`batch`: a --parallel batch's evaluations side by side; `confirm`: the best
kernel's end-of-session evaluation with its baselines interleaved, after the search)."""
PHASES = ("judge-spawn", "judge-operator", "load", "build", "call-first", "call", "judge-reference",
          "judge-handover", "judge-compare", "time", "batch", "judge-baselines", "judge-close", "judge-gpu-wait")
"""Evaluation phases tabulated (`judge-gpu-wait`, inside the others: waiting for the GPU lock beside a batch)."""


COMPARE_PHASES = ("judge-spawn", "load", "build", "bench", "batch", "judge-close")


def breakdown_table(docs: list[dict]) -> list[str]:
    """Per operator: seconds per loop step (count), then the evaluations' mean seconds per phase."""
    docs = [d for d in docs if d.get("time_breakdown")]
    if not docs:
        return []
    lines = ["| op | " + " | ".join(f"{s} s (n)" for s in STEPS) + " | other s |",
             "|---|" + "---|" * (len(STEPS) + 1)]
    for d in docs:
        tb = d["time_breakdown"]
        st, n = tb.get("steps_s", {}), tb.get("step_counts", {})
        other = sum(v for k, v in st.items() if k not in STEPS)
        lines.append(f"| {d['op']} | " + " | ".join(f"{st.get(s, 0):.1f} ({n.get(s, 0)})" for s in STEPS)
                     + f" | {other:.1f} |")
    split = [d for d in docs if d["time_breakdown"].get("propose_parts_s")]
    if split:
        lines += ["", "The propose step's seconds: handing upcoming configurations to the compile-ahead, and the "
                  "proposer itself:", "", "| op | compile-ahead s | proposer s |", "|---|---|---|"]
        lines += [f"| {d['op']} | {d['time_breakdown']['propose_parts_s'].get('warm_s', 0):.2f} | "
                  f"{d['time_breakdown']['propose_parts_s'].get('proposer_s', 0):.2f} |" for d in split]
    lines += ["", "Mean seconds per evaluation, by phase (judge's clock; `call-first` compiles the kernels):", "",
              "| op | evaluations | " + " | ".join(PHASES) + " | total |", "|---|---|" + "---|" * (len(PHASES) + 1)]
    for d in docs:
        tb = d["time_breakdown"]
        k = max(tb.get("evaluations", 0), 1)
        ph = tb.get("phases_s", {})
        lines.append(f"| {d['op']} | {tb.get('evaluations', 0)} | " + " | ".join(f"{ph.get(p, 0) / k:.2f}" for p in PHASES)
                     + f" | {ph.get('judge-total', 0) / k:.2f} |")
    clocked = [d for d in docs if d["time_breakdown"].get("comparisons")]
    if clocked:
        lines += ["", "Mean seconds per interleaved comparison, by phase (both sides summed; `bench` is the ABBA "
                  "timings, `batch` the forged-timing cross-checks):", "",
                  "| op | comparisons | " + " | ".join(COMPARE_PHASES) + " | total |",
                  "|---|---|" + "---|" * (len(COMPARE_PHASES) + 1)]
        for d in clocked:
            tb = d["time_breakdown"]
            k, ph = tb["comparisons"], tb.get("compare_phases_s", {})
            both = {p: sum(v for name, v in ph.items() if name.split(":")[-1] == p) for p in COMPARE_PHASES}
            lines.append(f"| {d['op']} | {k} | " + " | ".join(f"{both[p] / k:.2f}" for p in COMPARE_PHASES)
                         + f" | {ph.get('judge-total', 0) / k:.2f} |")
    made = [(d["op"], d["time_breakdown"].get("kernels_compiled") or []) for d in docs]
    if any(c for _, c in made):
        lines += ["", "Kernels each evaluation's candidate process compiled itself (the rest came from its cache; "
                  "compiled ahead or by an earlier shipped candidate):", ""]
        lines += [f"- {op}: {', '.join(map(str, c))}" for op, c in made if c]
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ops", nargs="*")
    ap.add_argument("--suite", type=Path, default=ROOT / "suites" / "llm-inference")
    ap.add_argument("--iterations", type=int, default=14)
    ap.add_argument("--time-limit", type=float, default=None, help="minutes per operator")
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--parallel", type=int, default=1, help="aka optimize --parallel (candidates side by side)")
    ap.add_argument("--kb", default="none")
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "out")))
    ap.add_argument("--sessions-dir", type=Path, default=None)
    ap.add_argument("--render", type=Path, default=None, help="re-render a saved optimize_bench.json")
    args = ap.parse_args(argv)
    if args.render:
        print(render(json.loads(args.render.read_text())))
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    args.sessions_dir = (args.sessions_dir or args.out / "sessions").resolve()
    docs = []
    for name in args.ops:
        doc = run_op(args.suite / name, args)
        docs.append(doc)
        (args.out / "optimize_bench.json").write_text(json.dumps(docs, indent=1))
        print(f"{name}: exit {doc['exit']}, {doc.get('evaluated', 0)} candidates in {doc['wall_s']} s",
              file=sys.stderr, flush=True)
    table = render(docs)
    (args.out / "optimize_bench.md").write_text(table + "\n")
    print(table)
    return 0 if all(d.get("ok") for d in docs) else 1


if __name__ == "__main__":
    sys.exit(main())
