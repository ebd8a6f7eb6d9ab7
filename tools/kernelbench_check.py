"""KernelBench level-1 problems at their published sizes on one GPU: `aka eval` against ncu.

  PYTHONPATH=. python3 tools/kernelbench_check.py OUT_DIR [--only 19_ReLU,23_Softmax|all] [--budget-s 470]
  PYTHONPATH=. python3 tools/kernelbench_check.py OUT_DIR --dry-run     # no GPU: every problem loads
  PYTHONPATH=. python3 tools/kernelbench_check.py --batch-table RUN     # a batch run's table (markdown)
  PYTHONPATH=. python3 tools/kernelbench_check.py --small-suite DIR     # the suite at CPU sizes

The check runs 19_ReLU, 23_Softmax and 36_RMSNorm_ unless --only says otherwise (`--only all`: every
problem of the suite). The candidate of PROBLEM is suites/kernelbench-large/candidates/PROBLEM.py,
the name `aka batch --candidates` looks for.

For each problem of suites/kernelbench-large: `python3 -m aka eval PROBLEM CANDIDATE --json` as a
subprocess (its wall time; the GPU's used memory, every process's, sampled through NVML every
20 ms, the peak kept), each eval getting an equal share of the budget left. Then one ncu process
(--clock-control none, gpu__time_duration.sum) over a driver that builds every problem's inputs on
the GPU once, checks the candidate against the reference there and calls it a few times. A problem that fails is recorded and the next one runs. Writes OUT_DIR/<problem>.json
and OUT_DIR/summary.json, and prints a markdown table last. SOL is bytes-only (inputs + outputs
once against the datasheet bandwidth): aka's own when its result carries one, else computed here.
"""

from __future__ import annotations

import argparse
import ast
import csv
import importlib.util
import io
import json
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "suites" / "kernelbench-large"
CHECKED = ("19_ReLU", "23_Softmax", "36_RMSNorm_")
"""What the check runs by default (the three problems of issue 10)."""
PY = sys.executable
NCU_ITERS = 3
GB = 1e9


def problems() -> list[str]:
    """Every problem file of the suite, by name (sorted, as `aka batch` runs them)."""
    return sorted(p.stem for p in SUITE.glob("*.py"))


def paths(problem: str) -> tuple[Path, Path]:
    return SUITE / f"{problem}.py", SUITE / "candidates" / f"{problem}.py"


def load_module(path: Path, tag: str):
    spec = importlib.util.spec_from_file_location(f"kbcheck_{tag}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kernel_names(candidate: Path) -> list[str]:
    """Functions the candidate decorates with triton.jit / autotune / heuristics."""
    tree = ast.parse(candidate.read_text())
    deco = ("jit", "autotune", "heuristics")
    return sorted(n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and any(
        ast.unparse(d.func if isinstance(d, ast.Call) else d).split(".")[-1] in deco for d in n.decorator_list))


def problem_bytes(problem: Path) -> dict[str, int]:
    """Input and output bytes of one call, from the problem run on the meta device (nothing allocated)."""
    import torch

    mod = load_module(problem, "bytes_" + problem.stem)
    with torch.device("meta"), torch.no_grad():
        inputs = mod.get_inputs()
        out = mod.Model(*mod.get_init_inputs())(*inputs)
    outs = out if isinstance(out, (tuple, list)) else [out]
    size = lambda ts: sum(t.numel() * t.element_size() for t in ts if isinstance(t, torch.Tensor))  # noqa: E731
    return {"input_bytes": size(inputs), "output_bytes": size(outs)}


class MemorySampler:
    """The GPU's used memory (NVML, device 0, every process on it) every `period_s` in a thread;
    the peak is kept."""

    def __init__(self, period_s: float = 0.02):
        self.period_s, self.peak, self.before, self.samples, self.error = period_s, 0, None, 0, ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "MemorySampler":
        try:
            import pynvml

            pynvml.nvmlInit()
            self._handle = pynvml.nvmlDeviceGetHandleByIndex(0)
            self._nv = pynvml
            self.before = self._used()
        except Exception as exc:  # noqa: BLE001 - no NVML: the run goes on without memory figures
            self.error = f"{type(exc).__name__}: {exc}"
            return self
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()
        return self

    def _used(self) -> int:
        return int(self._nv.nvmlDeviceGetMemoryInfo(self._handle).used)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.peak = max(self.peak, self._used())
                self.samples += 1
            except Exception as exc:  # noqa: BLE001
                self.error = f"{type(exc).__name__}: {exc}"
                return
            self._stop.wait(self.period_s)

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def to_dict(self) -> dict[str, Any]:
        return {"peak_used_bytes": self.peak or None, "used_before_bytes": self.before,
                "samples": self.samples, "period_s": self.period_s, "error": self.error}


def run_eval(problem: str, timeout_s: float) -> dict[str, Any]:
    """`aka eval PROBLEM CANDIDATE --json` as a subprocess, with its wall time and the GPU memory peak."""
    prob, cand = paths(problem)
    cmd = [PY, "-m", "aka", "eval", str(prob), str(cand), "--json", "--timeout", str(int(timeout_s))]
    rec: dict[str, Any] = {"command": " ".join(cmd[1:])}
    t0 = time.time()
    with MemorySampler() as mem:
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s + 15, cwd=ROOT)
            rec.update(rc=p.returncode, stderr_tail=p.stderr[-3000:])
            out = p.stdout
        except subprocess.TimeoutExpired as exc:
            rec.update(rc=None, error=f"aka eval did not finish in {timeout_s + 15:.0f} s")
            out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
    rec["wall_s"] = round(time.time() - t0, 1)
    rec["gpu_memory"] = mem.to_dict()
    try:
        rec["result"] = json.loads(out)
    except json.JSONDecodeError:
        rec.setdefault("error", "aka eval printed no JSON document")
        rec["stdout_tail"] = out[-3000:]
    return rec


def find_keys(doc: Any, words: tuple[str, ...], prefix: str = "") -> dict[str, Any]:
    """Every scalar in `doc` whose key names one of `words` (e.g. a peak-memory field), by path;
    bandwidth figures are left out."""
    found: dict[str, Any] = {}
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else []
    for k, v in items:
        path = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, (dict, list)):
            found.update(find_keys(v, words, path))
        elif any(w in str(k).lower() for w in words) and "bandwidth" not in str(k).lower():
            found[path] = v
    return found


def summarize_eval(rec: dict[str, Any], nbytes: dict[str, int]) -> dict[str, Any]:
    """The figures of one aka eval result that the table shows."""
    res = rec.get("result") or {}
    row: dict[str, Any] = {"status": res.get("status") or ("error" if res.get("ok") is False else "no result"),
                           "wall_s": rec.get("wall_s"), "peak_gpu_gb": None}
    rej = res.get("rejections") or []
    if rej:
        row["rejection"] = f"{rej[0].get('rule')}: {str(rej[0].get('message', ''))[:400]}"
    elif res.get("message") or rec.get("error"):
        row["rejection"] = str(res.get("message") or rec.get("error"))[:400]
    peak = (rec.get("gpu_memory") or {}).get("peak_used_bytes")
    row["peak_gpu_gb"] = round(peak / GB, 2) if peak else None
    row["reported_memory_fields"] = find_keys(res, ("peak", "footprint", "used"))
    reported = (res.get("device") or {}).get("peak_memory_bytes")     # aka's own: judge, candidate
    if isinstance(reported, dict):
        row["aka_peak_gb"] = {k: round(v / GB, 2) for k, v in reported.items() if isinstance(v, (int, float))}
    shape = next((s for s in res.get("shapes", []) if not s.get("held_out")), None) or {}
    t = shape.get("time") or {}
    row["aka_us"], row["method"] = t.get("median_us"), t.get("method")
    row["cv"] = t.get("cv")
    base = shape.get("baselines") or {}
    row["eager_us"] = (base.get("eager") or {}).get("median_us")
    row["compile_us"] = (base.get("torch.compile") or {}).get("median_us")
    row["speedup"] = shape.get("speedup") or {}
    roof = shape.get("roofline") or {}
    if roof.get("sol") is not None:
        row["sol_bytes_only"], row["sol_source"] = roof["sol"], f"aka ({roof.get('basis', 'roofline')})"
    elif row["aka_us"]:
        bw = datasheet_bandwidth((res.get("device") or {}).get("name", ""))
        if bw:
            total = nbytes["input_bytes"] + nbytes["output_bytes"]
            row["sol_bytes_only"] = total / bw * 1e6 / row["aka_us"]
            row["sol_source"] = f"computed here: {total / GB:.2f} GB at {bw / 1e12:.2f} TB/s"
    return row


def datasheet_bandwidth(device_name: str) -> float | None:
    from aka.hardware.devices import lookup

    spec = lookup(device_name) if device_name else None
    return spec.bandwidth if spec else None


def find_ncu() -> str | None:
    found = shutil.which("ncu")
    if found:
        return found
    return next((str(p) for p in sorted(Path("/opt/nvidia").glob("nsight-compute/*/ncu"))), None)


def ncu_times(problems: list[str], timeout_s: float, iters: int = NCU_ITERS) -> dict[str, Any]:
    """One ncu process over the driver for every problem: per problem, the median over `iters`
    calls of the summed gpu__time_duration of the candidate's kernels, and the driver's own check."""
    ncu = find_ncu()
    if not ncu:
        return {**{p: {"error": "ncu not found"} for p in problems}, "_ncu": {"error": "ncu not found"}}
    names = {p: kernel_names(paths(p)[1]) for p in problems}
    regex = "|".join(sorted({n for ns in names.values() for n in ns}))
    cmd = [ncu, "--clock-control", "none", "--profile-from-start", "off", "--metrics", "gpu__time_duration.sum",
           "--print-units", "base", "--csv", "-k", f"regex:{regex}",
           PY, str(Path(__file__).resolve()), "--driver", ",".join(problems), "--iters", str(iters)]
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, cwd=ROOT)
        stdout, stderr, rc = p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired as exc:
        stdout = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        stderr, rc = f"ncu did not finish in {timeout_s:.0f} s", None
    durations = parse_ncu_csv(stdout)
    checks = {}
    for line in stdout.splitlines():
        if line.startswith("KBCHECK "):
            try:
                d = json.loads(line[len("KBCHECK "):])
                checks[d["problem"]] = d
            except (json.JSONDecodeError, KeyError):
                continue
    out = {}
    for prob in problems:
        d = [us for kernel, us in durations if kernel in names[prob]]
        rec: dict[str, Any] = {"kernels": names[prob], "durations_us": d, "driver": checks.get(prob)}
        if d and len(d) % iters == 0:
            k = len(d) // iters
            rec["per_call_us"] = statistics.median(sum(d[i * k:(i + 1) * k]) for i in range(iters))
        else:
            rec["error"] = f"expected a multiple of {iters} kernel rows, got {len(d)} (rc {rc})"
        out[prob] = rec
    out["_ncu"] = {"command": " ".join(cmd), "rc": rc, "wall_s": round(time.time() - t0, 1),
                   "stdout_tail": stdout[-4000:], "stderr_tail": stderr[-3000:]}
    return out


def parse_ncu_csv(stdout: str) -> list[tuple[str, float]]:
    """(kernel name, µs) of every gpu__time_duration.sum row of ncu's --csv output, in order."""
    rows = [line for line in stdout.splitlines() if line.startswith('"')]
    scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3,
             "second": 1e6, "s": 1e6}
    found = []
    for r in csv.DictReader(io.StringIO("\n".join(rows))):
        if r.get("Metric Name") == "gpu__time_duration.sum":
            value = float(r["Metric Value"].replace(",", ""))
            found.append((r.get("Kernel Name", "").split("(")[0].strip(),
                          value * scale.get(r.get("Metric Unit", "nsecond"), 1e-3)))
    return found


def driver(problems: list[str], iters: int) -> None:
    """Run under ncu: per problem, inputs built on the GPU once, the candidate checked against the
    reference there (max abs / rel error), then `iters` profiled calls."""
    import torch

    for prob in problems:
        rec: dict[str, Any] = {"problem": prob}
        try:
            rec.update(drive_one(prob, iters))
        except Exception as exc:  # noqa: BLE001 - the next problem still runs
            rec["error"] = f"{type(exc).__name__}: {str(exc)[:600]}"
        print("KBCHECK " + json.dumps(rec), flush=True)
        torch.cuda.empty_cache()


def drive_one(problem: str, iters: int) -> dict[str, Any]:
    import torch

    prob_path, cand_path = paths(problem)
    mod = load_module(prob_path, "drv_" + problem)
    cls = load_module(cand_path, "cand_" + problem).ModelNew
    torch.manual_seed(0)
    with torch.device("cuda"):
        inputs = mod.get_inputs()
    init = mod.get_init_inputs()
    ref_model, cand = mod.Model(*init).cuda().eval(), cls(*init).cuda().eval()
    with torch.no_grad():
        ref = ref_model(*inputs)
        out = cand(*inputs)
        max_abs, max_rel = errors(out, ref)
        del ref, out
        torch.cuda.synchronize()
        t0 = time.time()
        cand(*inputs)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStart()
        for _ in range(iters):
            cand(*inputs)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()
    return {"max_abs_err": max_abs, "max_rel_err": max_rel, "warm_call_wall_s": round(time.time() - t0, 4),
            "input_shapes": [list(t.shape) for t in inputs]}


def errors(out: Any, ref: Any, chunk: int = 1 << 27) -> tuple[float, float]:
    """Max |out - ref| and max |out - ref| / |ref| in float64, a chunk at a time."""
    a, b = out.reshape(-1), ref.reshape(-1)
    max_abs = max_rel = 0.0
    for i in range(0, b.numel(), chunk):
        x, y = a[i:i + chunk].double(), b[i:i + chunk].double()
        d = (x - y).abs()
        max_abs = max(max_abs, float(d.max()))
        max_rel = max(max_rel, float((d / y.abs().clamp_min(1e-30)).max()))
    return max_abs, max_rel


def dry_run(problems: list[str]) -> dict[str, Any]:
    """No GPU: each problem loads as aka reads it, its candidate passes the static review, defines
    kernels and builds, and the problem's bytes come out of the meta device."""
    from aka.evaluate.review import review
    from aka.spec.load import load_op

    out = {}
    for prob in problems:
        prob_path, cand_path = paths(prob)
        rec: dict[str, Any] = {}
        try:
            spec = load_op(prob_path)
            rec["shapes"] = [s.id for s in spec.shapes]
            rec["review"] = [str(r) for r in review(cand_path.read_text(), str(cand_path))]
            rec["kernels"] = kernel_names(cand_path)
            mod = load_module(prob_path, "dry_" + prob)
            load_module(cand_path, "dry_cand_" + prob).ModelNew(*mod.get_init_inputs())
            rec.update(problem_bytes(prob_path))
            rec["ok"] = not rec["review"] and bool(rec["kernels"])
        except Exception as exc:  # noqa: BLE001 - reported, the next problem still runs
            rec.update(ok=False, error=f"{type(exc).__name__}: {exc}")
        out[prob] = rec
    return out


def fmt(value: Any, spec: str = ".1f") -> str:
    return "n/a" if value is None else format(value, spec)


def table(rows: dict[str, dict[str, Any]]) -> str:
    lines = ["| problem | status | aka µs | ncu µs | Δ | SOL bytes-only | eager µs | compile µs | peak GPU GB | wall s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for prob, r in rows.items():
        delta = (f"{(r['aka_us'] - r['ncu_us']) / r['ncu_us'] * 100:+.1f} %"
                 if r.get("aka_us") and r.get("ncu_us") else "n/a")
        lines.append(f"| {prob} | {r.get('status')} | {fmt(r.get('aka_us'))} | {fmt(r.get('ncu_us'))} | {delta} | "
                     f"{fmt(r.get('sol_bytes_only'), '.3f')} | {fmt(r.get('eager_us'))} | {fmt(r.get('compile_us'))} | "
                     f"{fmt(r.get('peak_gpu_gb'), '.1f')} | {fmt(r.get('wall_s'))} |")
    return "\n".join(lines)


def check(out: Path, problems: list[str], budget_s: float, eval_timeout_s: float, ncu_reserve_s: float) -> None:
    """Every problem through aka eval, then ncu over all of them; JSON files and the table."""
    out.mkdir(parents=True, exist_ok=True)
    t_end = time.time() + budget_s
    rows: dict[str, dict[str, Any]] = {}
    details: dict[str, dict[str, Any]] = {}
    for i, prob in enumerate(problems):
        left = t_end - time.time() - ncu_reserve_s
        share = left / (len(problems) - i) - 15     # aka's own limit; its start and exit get the rest
        try:
            nbytes = problem_bytes(paths(prob)[0])
            rec = (run_eval(prob, min(eval_timeout_s, share)) if share >= 30 else
                   {"error": f"skipped: {left:.0f} s of the {budget_s:.0f} s budget left"})
            rows[prob] = summarize_eval(rec, nbytes)
        except Exception as exc:  # noqa: BLE001 - recorded; the next problem still runs
            nbytes, rec = {}, {"error": f"{type(exc).__name__}: {exc}"}
            rows[prob] = {"status": "check failed", "rejection": rec["error"]}
        details[prob] = {"problem": prob, "bytes": nbytes, "eval": rec}
        save(out, prob, details[prob])
        print(f"{prob}: {rows[prob]['status']} in {rec.get('wall_s', 0)} s", flush=True)
    left = max(t_end - time.time(), 60.0)
    ncu = ncu_times(problems, timeout_s=min(left, 300.0))
    for prob in problems:
        details[prob]["ncu"] = ncu[prob]
        rows[prob]["ncu_us"] = ncu[prob].get("per_call_us")
        drv = ncu[prob].get("driver") or {}
        rows[prob]["driver_max_abs_err"], rows[prob]["driver_max_rel_err"] = drv.get("max_abs_err"), drv.get("max_rel_err")
        save(out, prob, details[prob])
    summary = {"problems": rows, "ncu": ncu["_ncu"], "budget_s": budget_s}
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    for prob, r in rows.items():
        if r.get("rejection"):
            print(f"{prob}: {r['rejection'][:300]}")
        print(f"{prob}: driver check max abs err {fmt(r.get('driver_max_abs_err'), '.2e')}, "
              f"max rel err {fmt(r.get('driver_max_rel_err'), '.2e')}; aka's peak memory GB: "
              f"{r.get('aka_peak_gb')}; memory fields in the result: {json.dumps(r.get('reported_memory_fields'))[:300]}")
    print(table(rows), flush=True)


# -- the batch run over the suite (tools/h200_kernelbench_batch.sh) ---------------------------------

SMALL = {
    "19_ReLU": {"batch_size": 4, "dim": 1000},
    "23_Softmax": {"batch_size": 4, "dim": 3000},
    "24_LogSoftmax": {"batch_size": 4, "dim": 3000},
    "26_GELU_": {"batch_size": 4, "dim": 1000},
    "36_RMSNorm_": {"batch_size": 2, "dim1": 8, "dim2": 8},
    "39_L2Norm_": {"batch_size": 4, "dim": 5000},
    "40_LayerNorm": {"batch_size": 2, "features": 4, "dim1": 16, "dim2": 20},
    "47_Sum_reduction_over_a_dimension": {"batch_size": 2, "dim1": 40, "dim2": 130},
    "49_Max_reduction_over_a_dimension": {"batch_size": 2, "dim1": 40, "dim2": 130},
    "51_Argmax_over_a_dimension": {"batch_size": 2, "dim1": 40, "dim2": 130},
}
"""Size constants small enough for the CPU interpreter (a smoke run of the batch's logic, not a
benchmark)."""


def set_constants(source: str, values: dict[str, int], where: str) -> str:
    """`source` with each module-level `NAME = <int>` line set to the given value."""
    import re

    for name, value in values.items():
        source, n = re.subn(rf"^{name} = \d+$", f"{name} = {value}", source, flags=re.M)
        if n != 1:
            raise ValueError(f"{where}: no single `{name} = <int>` line to set")
    return source


def small_suite(out: Path, only: list[str]) -> Path:
    """The suite at CPU sizes in OUT/kernelbench-small (problems and candidates/, readable by the
    evaluation's confined process); returns the suite folder."""
    missing = sorted(set(problems()) - set(SMALL))
    if missing:
        raise ValueError(f"tools/kernelbench_check.py SMALL: no CPU sizes for {missing}")
    suite = out / "kernelbench-small"
    (suite / "candidates").mkdir(parents=True, exist_ok=True)
    for d in (out, suite, suite / "candidates"):
        d.chmod(0o755)
    for prob in only:
        prob_path, cand_path = paths(prob)
        dst = suite / f"{prob}.py"
        dst.write_text(set_constants(prob_path.read_text(), SMALL[prob], str(prob_path)))
        shutil.copyfile(cand_path, suite / "candidates" / cand_path.name)
        for f in (dst, suite / "candidates" / cand_path.name):
            f.chmod(0o644)
    return suite


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def batch_rows(run: Path) -> list[dict[str, Any]]:
    """Per operator of a batch run: verdict, times, speedups, bytes-only SOL, bytes and wall time."""
    board = _read(run / "scoreboard.json")
    rows = []
    for r in board.get("rows", []):
        rec = _read(run / "ops" / r["op"] / "result.json")
        doc = _read(run / "ops" / r["op"] / "eval.json")
        shape = next((s for s in doc.get("shapes", []) if not s.get("held_out")), {})
        base = shape.get("baselines") or {}
        verdict = r.get("status") or r.get("state")
        if rec.get("rejections"):
            verdict += f" ({', '.join(rec['rejections'])})"
        if r.get("error"):
            verdict = f"{r['state']}: {str(r['error'])[:100]}"
        rows.append({
            "op": r["op"], "verdict": verdict, "real_kernel": r.get("real_kernel"),
            "us": (shape.get("time") or {}).get("median_us"), "method": (shape.get("time") or {}).get("method"),
            "eager_us": (base.get("eager") or {}).get("median_us"),
            "compile_us": (base.get("torch.compile") or {}).get("median_us"),
            "x_eager": (shape.get("speedup") or {}).get("eager"),
            "x_compile": (shape.get("speedup") or {}).get("torch.compile"),
            "sol": (shape.get("roofline") or {}).get("sol"), "basis": (shape.get("roofline") or {}).get("basis"),
            "gb": ((shape.get("roofline") or {}).get("bytes") or 0) / GB or None,
            "max_rel_err": shape.get("max_rel_err"), "wall_s": rec.get("wall_s"),
            "peak_gb": {k: v / GB for k, v in ((doc.get("device") or {}).get("peak_memory_bytes") or {}).items()
                        if isinstance(v, (int, float))},
        })
    return rows


def peaks(gb: dict[str, float]) -> str:
    """aka's own peak device memory, judge / candidate process, in GB ("—" when not reported)."""
    return " / ".join(fmt(gb.get(k), ".2f") for k in ("judge", "candidate")) if gb else "—"


def ncu_against(run: Path, problems: list[str], timeout_s: float, out: Path | None) -> str:
    """ncu over the driver for `problems`, set against the times a batch run's aka eval measured."""
    by_op = {r["op"]: r for r in batch_rows(run)}
    ncu = ncu_times(problems, timeout_s=timeout_s)
    if out:
        out.mkdir(parents=True, exist_ok=True)
        (out / "ncu.json").write_text(json.dumps(ncu, indent=2, default=str))
    run_info = ncu["_ncu"]
    head = (f"ncu: `{run_info['command']}` (rc {run_info['rc']}, {run_info['wall_s']} s)" if "command" in run_info
            else f"ncu: {run_info.get('error', 'not run')}")
    lines = [head, "",
             "| problem | aka µs (timing) | ncu µs (median of " + str(NCU_ITERS) + ") | aka / ncu | driver max rel err "
             "| peak GB judge / candidate | aka eval wall s |", "|---|---|---|---|---|---|---|"]
    for prob in problems:
        r, n = by_op.get(prob, {}), ncu.get(prob, {})
        ratio = r["us"] / n["per_call_us"] if r.get("us") and n.get("per_call_us") else None
        drv = n.get("driver") or {}
        lines.append(f"| {prob} | {fmt(r.get('us'))} ({r.get('method') or 'n/a'}) | {fmt(n.get('per_call_us'))}"
                     f"{' — ' + n['error'] if n.get('error') else ''} | {fmt(ratio, '.3f')} | "
                     f"{fmt(drv.get('max_rel_err'), '.1e')} | {peaks(r.get('peak_gb') or {})} | {fmt(r.get('wall_s'))} |")
    return "\n".join(lines)


def batch_table(run: Path) -> str:
    """The markdown table of a batch run (per problem, then the suite's scores)."""
    board = _read(run / "scoreboard.json")
    if not board:
        return f"{run}: no scoreboard.json (no operator finished)"
    lines = [] if board.get("gpu") else ["CPU-interpreter wall times: not GPU performance", ""]
    lines += ["| problem | verdict | µs | eager µs | compile µs | × eager | × compile | SOL bytes-only | GB moved | "
              "peak GB judge / candidate | max rel err | wall s |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in batch_rows(run):
        lines.append(f"| {r['op']} | {r['verdict']} | {fmt(r['us'])} | {fmt(r['eager_us'])} | {fmt(r['compile_us'])} | "
                     f"{fmt(r['x_eager'], '.2f')} | {fmt(r['x_compile'], '.2f')} | {fmt(r['sol'], '.3f')} | "
                     f"{fmt(r['gb'], '.2f')} | {peaks(r['peak_gb'])} | {fmt(r['max_rel_err'], '.1e')} | {fmt(r['wall_s'])} |")
    geo = board.get("geomean_speedup") or {}
    fast = board.get("fast_p") or {}
    lines += ["", f"- operators: {board.get('operators')} ({board.get('done')} done, {board.get('errored')} "
              f"errored, {board.get('pending')} pending); real-kernel share {fmt(board.get('real_kernel_share'), '.2f')}",
              f"- weighted SOL ({', '.join(board.get('sol_basis') or []) or 'n/a'}): {fmt(board.get('weighted_sol'), '.3f')}"
              + "".join(f"; {b} reaches {fmt(v, '.3f')}" for b, v in (board.get("weighted_baseline_sol") or {}).items())]
    for b in ("eager", "torch.compile"):
        g = geo.get(b) or {}
        ps = fast.get(b) or {}
        lines.append(f"- vs {b}: geomean speedup {fmt(g.get('value'), '.3f')} over {g.get('operators', 0)} operators; "
                     + (", ".join(f"fast_{p} {fmt(v, '.2f')}" for p, v in ps.items()) or "fast_p n/a"))
    lines += [f"- note: {n}" for n in board.get("notes", [])]
    return "\n".join(lines)


def save(out: Path, prob: str, data: dict[str, Any]) -> None:
    (out / f"{prob}.json").write_text(json.dumps(data, indent=2, default=str))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", type=Path)
    ap.add_argument("--only", default="", help="comma-separated problem names, or all (default: the check's "
                                                 "three; every problem for --dry-run and --small-suite)")
    ap.add_argument("--dry-run", action="store_true", help="only check that the files load (no GPU)")
    ap.add_argument("--batch-table", type=Path, metavar="RUN", help="print the markdown table of a batch run")
    ap.add_argument("--small-suite", type=Path, metavar="DIR", help="write the suite at CPU sizes under DIR "
                                                                      "and print the suite folder")
    ap.add_argument("--budget-s", type=float, default=470.0, help="wall-clock budget of the whole check")
    ap.add_argument("--eval-timeout-s", type=float, default=200.0, help="time limit of one aka eval")
    ap.add_argument("--ncu-reserve-s", type=float, default=60.0, help="time kept back for the ncu step")
    ap.add_argument("--ncu-against", type=Path, metavar="RUN", help="only ncu over the --only problems, set "
                                                                     "against a batch run's aka times (OUT_DIR optional)")
    ap.add_argument("--driver", default="", help=argparse.SUPPRESS)
    ap.add_argument("--iters", type=int, default=NCU_ITERS, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.driver:
        driver(args.driver.split(","), args.iters)
        return
    if args.batch_table:
        print(batch_table(args.batch_table))
        return
    known = problems()
    if args.ncu_against:
        chosen = [p for p in args.only.split(",") if p and p != "all"] or list(CHECKED)
        unknown = set(chosen) - set(known)
        if unknown:
            ap.error(f"unknown problem(s) {sorted(unknown)}; known: {', '.join(known)}")
        print(ncu_against(args.ncu_against, chosen, args.budget_s, args.out))
        return
    every = not args.only or args.only == "all"
    chosen = [p for p in args.only.split(",") if p] if not every else (
        known if args.only == "all" or args.dry_run or args.small_suite else list(CHECKED))
    unknown = set(chosen) - set(known)
    if unknown:
        ap.error(f"unknown problem(s) {sorted(unknown)}; known: {', '.join(known)}")
    if args.small_suite:
        print(small_suite(args.small_suite, chosen))
        return
    if args.dry_run:
        res = dry_run(chosen)
        print(json.dumps(res, indent=2))
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / "dry_run.json").write_text(json.dumps(res, indent=2))
        sys.exit(0 if all(r["ok"] for r in res.values()) else 1)
    if args.out is None:
        ap.error("OUT_DIR is required")
    args.out.mkdir(parents=True, exist_ok=True)
    check(args.out, chosen, args.budget_s, args.eval_timeout_s, args.ncu_reserve_s)


if __name__ == "__main__":
    main()
