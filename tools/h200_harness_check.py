"""One GPU session's checks of the harness (run on the H200 through the device tool).

  PYTHONPATH=. python3 tools/h200_harness_check.py OUT_DIR

1. aka doctor --calibrate; 2. aka eval of the rmsnorm reference kernel on every shape;
3. triton.testing.do_bench (and do_bench_cudagraph) of the same kernel per shape;
4. ncu gpu__time_duration of the same kernel per shape (--clock-control none);
5. GPU honesty: side-stream cheats, an out-of-bounds kernel followed by an honest one in the same pool;
6. harness cost: one operator, 3 shapes (+ held-out), both baselines, wall seconds.
Writes JSON details under OUT_DIR and prints a short table last.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

OP = "suites/llm-inference/rmsnorm"
KERNEL = "reference_kernels/rmsnorm/one_row_registers.py"
FIXTURE = "tests/evaluate/fixtures/rmsnorm"
CANDS = "tests/evaluate/candidates"
PY = sys.executable


def aka(*args: str, timeout: int = 900) -> tuple[int, str, str, float]:
    t0 = time.time()
    p = subprocess.run([PY, "-m", "aka", *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr, time.time() - t0


def do_bench_times(shape_ids: list[str]) -> dict[str, dict[str, float]]:
    import torch
    import triton.testing as tt

    from aka.evaluate.correctness import build_pair
    from aka.evaluate.loading import Operator, load_module
    from aka.spec.load import load_op

    from aka.evaluate.timing import GpuTimer

    spec = load_op(OP)
    op = Operator(spec.to_dict(), "cuda", spec.dtype)
    cls = load_module(os.path.abspath(KERNEL), "bench").ModelNew
    timer = GpuTimer()
    out = {}
    for sid in shape_ids:
        params = spec.shape(sid).params
        model = build_pair(op, cls, params, 0).cand
        inp = op.make_inputs(params, 1)

        def fn():
            with torch.no_grad():
                inp.call(model)
        out[sid] = {
            "events_only_us": timer.bench([fn], allow_graph=False).median_us,
            "do_bench_us": tt.do_bench(fn, warmup=25, rep=200, return_mode="median") * 1e3,
            "do_bench_cudagraph_us": tt.do_bench_cudagraph(fn, rep=200, return_mode="median") * 1e3,
        }
    return out


def ncu_times(shape_ids: list[str], iters: int = 5) -> dict[str, float]:
    ncu = shutil.which("ncu") or next(iter(sorted(Path("/opt/nvidia").glob("nsight-compute/*/ncu"))), None)
    if not ncu:
        return {}
    cmd = [str(ncu), "--clock-control", "none", "--profile-from-start", "off", "--metrics",
           "gpu__time_duration.sum", "--print-units", "base", "--csv", "-k", "regex:_rmsnorm_row",
           PY, "-m", "aka.evaluate.profile_driver", OP, KERNEL, "--shapes", ",".join(shape_ids), "--iters", str(iters)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    rows = [l for l in p.stdout.splitlines() if l.startswith('"')]
    durations = []
    for r in csv.DictReader(io.StringIO("\n".join(rows))):
        if r.get("Metric Name") == "gpu__time_duration.sum":
            scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3}.get(r.get("Metric Unit", "nsecond"), 1e-3)
            durations.append(float(r["Metric Value"].replace(",", "")) * scale)
    Path(os.environ["CHECK_OUT"], "ncu_stdout.txt").write_text(p.stdout[-200000:] + "\n--- stderr\n" + p.stderr[-20000:])
    if len(durations) != iters * len(shape_ids):
        return {"error": f"expected {iters * len(shape_ids)} kernel rows, got {len(durations)}"}
    return {sid: statistics.median(durations[i * iters:(i + 1) * iters]) for i, sid in enumerate(shape_ids)}


def honesty_on_gpu() -> dict[str, str]:
    from aka.evaluate.evaluator import EvalOptions, Evaluator
    from aka.evaluate.pool import WorkerPool
    from aka.spec.load import load_op

    spec = load_op(FIXTURE)
    res = {}
    with WorkerPool("cuda") as pool:
        ev = Evaluator(pool)
        opts = EvalOptions(baselines=(), timeout_s=300, reps=50)
        for name in ("cheat_side_stream.py", "cheat_side_stream_dynamic.py", "cheat_decoy_launch.py",
                     "bad_out_of_bounds.py", "honest_rmsnorm.py"):
            r = ev.evaluate(spec, f"{CANDS}/{name}", opts)
            res[name] = f"{r.status.value}: {r.rejections[0] if r.rejections else 'accepted'}"[:300]
    return res


def profile_runs() -> dict[str, dict]:
    """aka profile (Nsight Compute, --set full) of the rmsnorm kernel and of its eager reference."""
    res = {}
    for label, extra in (("triton-kernel", []), ("eager-reference", ["--reference"])):
        target = Path("/tmp") / f"aka-profile-{label}"
        shutil.rmtree(target, ignore_errors=True)
        rc, so, se, wall = aka("profile", OP, KERNEL, "--shape", "llama3-8b-prefill-16k", "--out",
                               str(target), "--json", *extra)
        if rc != 0:
            res[label] = {"rc": rc, "stderr": se[-2000:]}
            continue
        report = json.loads(so)["report"]
        k = report["kernels"]
        res[label] = {"rc": rc, "wall_s": round(wall, 1), "kernels": len(k),
                      "names": [x["name"] for x in k][:12],
                      "bottleneck": (report.get("bottleneck") or {}).get("kind"),
                      "dram_pct": [x.get("dram_throughput_pct") for x in k][:12],
                      "summary": report.get("summary", "")}
    return res


def main() -> None:
    out = Path(sys.argv[1])
    report: dict = {}
    out.mkdir(parents=True, exist_ok=True)
    os.environ["CHECK_OUT"] = str(out)

    def save() -> None:
        (out / "report.json").write_text(json.dumps(report, indent=2, default=str))
    timing_only = "--timing-only" in sys.argv
    if timing_only:
        so3 = ""
        report["cost"] = report["honesty"] = {}
        report["doctor"] = {}
    rc, so, se, wall = aka("doctor", "--calibrate", "--json") if not timing_only else (1, "", "", 0)
    report["doctor"] = json.loads(so) if rc == 0 else {"rc": rc, "stderr": se[-3000:]}
    save()
    print("step done", time.strftime("%H:%M:%S"), flush=True)
    three = ["llama3-8b-prefill-16k", "llama3-8b-decode-32", "llama3-70b-prefill-4k"]
    rc3, so3, se3, wall3 = (aka("eval", OP, KERNEL, "--json", *[a for s in three for a in ("--shape", s)])
                            if not timing_only else (0, "", "", 0))
    (out / "eval_cost_3_shapes.json").write_text(so3 or se3)
    report["cost"] = {} if timing_only else {"rc": rc3, "wall_s": wall3,
                      "worker_wall_s": json.loads(so3).get("wall_s") if so3.strip() else None,
                      "stderr": se3[-1500:]}
    save()
    print("step done", time.strftime("%H:%M:%S"), flush=True)
    rc, so, se, wall = aka("eval", OP, KERNEL, "--json", "--baseline", "eager")
    (out / "eval_rmsnorm.json").write_text(so or se)
    ev = json.loads(so) if so.strip() else {}
    report["eval"] = {"rc": rc, "wall_s": wall, "stderr": se[-2000:]}
    save()
    print("step done", time.strftime("%H:%M:%S"), flush=True)
    visible = [s["id"] for s in ev.get("shapes", []) if not s["held_out"]]
    report["do_bench"] = do_bench_times(visible) if visible else {}
    save()
    report["ncu"] = ncu_times(visible) if visible else {}
    save()
    print("step done", time.strftime("%H:%M:%S"), flush=True)
    report["honesty"] = honesty_on_gpu() if not timing_only else {}
    save()
    report["profile"] = profile_runs() if not timing_only else {}
    save()
    if not timing_only:
        t = subprocess.run([PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/profile",
                            "-k", "ncu_rep or ncurep or rep"], capture_output=True, text=True)
        report["pytest_ncu_rep"] = t.stdout[-1500:]
        save()
    compile_times = {s["id"]: s.get("baselines", {}).get("torch.compile", {}).get("median_us")
                     for s in (json.loads(so3).get("shapes", []) if so3.strip() else [])}
    (out / "report.json").write_text(json.dumps(report, indent=2, default=str))
    print(f"{'shape':26s} {'aka µs':>9s} {'method':>7s} {'events':>9s} {'do_bench':>9s} {'cudagraph':>9s} {'ncu':>9s} "
          f"{'eager':>9s} {'compile':>9s} {'SOL':>5s}")
    for s in ev.get("shapes", []):
        if s["held_out"]:
            print(f"{s['id']:26s} held out, correct={s['correct']}")
            continue
        t = s.get("time")
        if not t:
            print(f"{s['id']:26s} not timed: correct={s['correct']} {s.get('detail', '')[:200]}")
            continue
        db = report["do_bench"].get(s["id"], {})
        nc = report["ncu"].get(s["id"]) if isinstance(report["ncu"], dict) else None
        b = s.get("baselines", {})
        sol = (s.get("roofline") or {}).get("sol")
        print(f"{s['id']:26s} {t['median_us']:9.2f} {t['method']:>7s} {db.get('events_only_us', 0):9.2f} "
              f"{db.get('do_bench_us', 0):9.2f} "
              f"{db.get('do_bench_cudagraph_us', 0):9.2f} {nc or 0:9.2f} "
              f"{b.get('eager', {}).get('median_us', 0):9.2f} {compile_times.get(s['id']) or 0:9.2f} "
              f"{sol or 0:5.2f}")
    print("eval rc", report["eval"]["rc"], "wall", round(report["eval"]["wall_s"], 1), "s; status",
          ev.get("status"), [r.get("rule") + ": " + r.get("message", "")[:300] for r in ev.get("rejections", [])],
          report["eval"]["stderr"][-800:] if not ev else "")
    print("cost (3 shapes + held-out, both baselines):", report["cost"])
    for k, v in report["honesty"].items():
        print("honesty", k, "->", v)
    for label, v in report.get("profile", {}).items():
        print("profile", label, {k: v.get(k) for k in ("rc", "wall_s", "kernels", "bottleneck", "dram_pct")})
        print(v.get("summary", v.get("stderr", ""))[:1600])
    print("pytest .ncu-rep:", report.get("pytest_ncu_rep", "")[-300:])
    cal = report["doctor"].get("calibration")
    print("calibration:", json.dumps(cal)[:600] if cal else report["doctor"])


if __name__ == "__main__":
    main()
