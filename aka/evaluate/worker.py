"""Jobs the evaluation worker runs, in a forked child, speaking plain JSON-able dicts.

Only torch, triton, numpy and pyyaml are needed here, so the worker runs on a bare GPU node.
Job kinds: 'eval' (correctness, honesty, timing of one candidate), 'compare' (interleaved
incumbent/candidate timing), 'calibrate' (achievable ceilings), 'ping'.
"""

from __future__ import annotations

import math
import os
import socket
import traceback
from typing import Any, Callable

import torch

from aka.evaluate import proof
from aka.evaluate.correctness import Pair, build_pair, check_shape
from aka.evaluate.loading import Inputs, Operator, kernel_objects, load_module
from aka.evaluate.timing import GpuTimer, bench_cpu, decide
from aka.spec.op import Tolerance
from aka.spec.result import Timing


def exact_fp32() -> dict[str, bool]:
    """Switch TF32 off for cuBLAS and cuDNN: a float32 operator means IEEE float32 for the
    reference and the baselines too (PyTorch lets cuDNN convolutions use TF32 by default)."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return {"matmul": torch.backends.cuda.matmul.allow_tf32, "cudnn": torch.backends.cudnn.allow_tf32}


def execute(job: dict[str, Any]) -> dict[str, Any]:
    """Run one job; every candidate failure comes back as data."""
    kind = job.get("kind")
    tf32 = exact_fp32()
    if kind == "ping":
        return {"ok": True, "torch": torch.__version__, "env_keys": sorted(os.environ), "tf32": tf32,
                "cwd": os.getcwd(), "net": sorted(name for _, name in socket.if_nameindex())}
    if kind == "eval":
        return run_eval(job)
    if kind == "compare":
        return run_compare(job)
    if kind == "baselines":
        return run_baselines(job)
    if kind == "calibrate":
        from aka.evaluate.calibration import calibrate

        return {"ok": True, "calibration": calibrate()}
    raise ValueError(f"unknown job kind {kind!r}")


def device_info(device: str) -> dict[str, Any]:
    if device != "cuda":
        return {"kind": "cpu", "name": "cpu (Triton interpreter)"}
    from aka.hardware.nvml import device_info as nvml_info

    props = torch.cuda.get_device_properties(0)
    return {"kind": "cuda", "name": props.name, "capability": f"{props.major}.{props.minor}",
            "sms": props.multi_processor_count, "memory_bytes": props.total_memory,
            "torch": torch.__version__, "nvml": nvml_info()}


def _reject(rule: str, message: str, shape: str = "", file: str = "", line: int | None = None) -> dict:
    return {"rule": rule, "message": message, "shape": shape, "file": file, "line": line}


def _error_text(exc: BaseException, limit: int = 1500) -> str:
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return f"{type(exc).__name__}: {exc}\n{text[-limit:]}"


def run_eval(job: dict[str, Any]) -> dict[str, Any]:
    device, spec = job["device"], job["spec"]
    out: dict[str, Any] = {"ok": True, "rejections": [], "shapes": [], "notes": [],
                           "device": device_info(device), "kernels": []}
    try:
        op = Operator(spec, device, job["dtype"])
    except Exception as exc:  # noqa: BLE001 - the reference is the user's input; report it
        raise RuntimeError(f"reference {spec['reference']} failed to load: {exc}") from exc
    try:
        module = load_module(job["candidate"], "candidate")
        cand_cls = module.ModelNew
    except BaseException as exc:  # noqa: BLE001 - exit() or SystemExit at import is the candidate's too
        out["rejections"].append(_reject(_rule(exc, "load-error"), _error_text(exc), file=job["candidate"]))
        return out
    kernels = kernel_objects(module)
    out["kernels"] = sorted(kernels)
    pairs = _check_all(job, op, cand_cls, kernels, out)
    if out["rejections"] or not job.get("time", True):
        return out
    try:
        _time_all(job, op, pairs, kernels, out)
    except BaseException as exc:  # noqa: BLE001 - the candidate raised or exited while timed
        out["rejections"].append(_reject(_rule(exc, "runtime-error"), "while timed: " + _error_text(exc)))
    return out


def _check_all(job: dict, op: Operator, cand_cls: Any, kernels: dict, out: dict) -> dict[str, Pair]:
    pairs: dict[str, Pair] = {}
    tol = _tolerance(job)
    for i, shape in enumerate(job["shapes"]):
        row = {"id": shape["id"], "params": shape["params"], "held_out": shape.get("held_out", False)}
        out["shapes"].append(row)
        seed = int(job.get("seed", 0)) + 1000 * i
        try:
            pair = build_pair(op, cand_cls, shape["params"], seed)
            chk = check_shape(op, pair, kernels, shape["params"], seed, int(job.get("trials", 3)),
                              tol, tuple(job.get("mutates", ())))
        except BaseException as exc:  # noqa: BLE001 - a candidate that raises (or exits) fails this shape
            row.update(correct=False, detail=_error_text(exc, 600))
            out["rejections"].append(_reject(_rule(exc, "runtime-error"), _error_text(exc), shape["id"]))
            if "CUDA" in str(exc) or "cuda" in type(exc).__name__.lower():
                out["notes"].append("a CUDA error poisons this process; it is not reused")
            break
        row.update(correct=chk.correct, max_abs_err=chk.max_abs, max_rel_err=chk.max_rel,
                   trials=chk.trials, detail=chk.detail, bytes_io=chk.bytes_io,
                   input_shapes=chk.input_shapes)
        if not chk.correct:
            out["rejections"].append(_reject(chk.rule, chk.detail, shape["id"]))
            break
        pairs[shape["id"]] = pair
    return pairs


def _rule(exc: BaseException, default: str) -> str:
    """'candidate-exit' for exit(), SystemExit, KeyboardInterrupt raised by candidate code."""
    return "candidate-exit" if isinstance(exc, (SystemExit, KeyboardInterrupt, GeneratorExit)) else default


def _tolerance(job: dict) -> Tolerance:
    outputs = {k: tuple(v) for k, v in (job.get("tol_outputs") or {}).items()}
    return Tolerance(job["atol"], job["rtol"], outputs)


def _input_sets(op: Operator, params: dict, seed: int, bytes_io: int, n_max: int = 8) -> list[Inputs]:
    n = max(2, min(n_max, math.ceil(128 * 2**20 / max(bytes_io, 1))))
    return [op.make_inputs(params, seed + 500 + k) for k in range(n)]


def _calls(model: torch.nn.Module, sets: list[Inputs]) -> list:
    def make(inp: Inputs):
        def call():
            with torch.no_grad():
                return inp.call(model)
        return call
    return [make(s) for s in sets]


def _bencher(gpu: bool, reps: int) -> Callable[[list], Timing]:
    """Device timing on a GPU; labelled wall-clock timing on the CPU interpreter."""
    return GpuTimer(reps=reps).bench if gpu else bench_cpu


def _time_all(job: dict, op: Operator, pairs: dict[str, Pair], kernels: dict, out: dict) -> None:
    gpu = job["device"] == "cuda"
    bench = _bencher(gpu, int(job.get("reps", 100)))
    baselines = list(job.get("baselines", []))
    if not gpu and "torch.compile" in baselines:
        baselines.remove("torch.compile")
        out["notes"].append("torch.compile baseline skipped on the CPU interpreter")
    for i, row in enumerate(out["shapes"]):
        if row["held_out"] or row["id"] not in pairs:
            continue
        pair = pairs[row["id"]]
        sets = _input_sets(op, row["params"], int(job.get("seed", 0)) + 1000 * i, row.get("bytes_io", 0),
                           n_max=8 if gpu else 1)
        cand_calls = _calls(pair.cand, sets)
        if gpu:
            rule, detail, share = proof.judge(proof.profile_call(cand_calls[0]), set(kernels))
            row["own_time_share"] = share
            if rule:
                out["rejections"].append(_reject(rule, detail, row["id"]))
                return
        row["time"] = bench(cand_calls).__dict__
        row["baselines"] = {}
        for name in baselines:  # timed the way the candidate was at this shape (graph or events)
            model = pair.ref if name == "eager" else torch.compile(pair.ref)
            calls = _calls(model, sets)
            row["baselines"][name] = bench(calls, method=row["time"]["method"] if gpu else None).__dict__


def run_baselines(job: dict[str, Any]) -> dict[str, Any]:
    """Time the baselines (eager, torch.compile) of some shapes, each with a given method, the way
    `_time_all` times them beside a candidate: the agent times them once per (shape, method)."""
    device = job["device"]
    op = Operator(job["spec"], device, job["dtype"])
    gpu = device == "cuda"
    bench = _bencher(gpu, int(job.get("reps", 100)))
    names = [b for b in job.get("baselines", []) if gpu or b != "torch.compile"]
    out: dict[str, Any] = {"ok": True, "baselines": {}, "device": device_info(device)}
    for i, shape in enumerate(job["shapes"]):
        seed = int(job.get("seed", 0)) + 1000 * i
        ref = op.build(shape["params"], seed)
        sets = _input_sets(op, shape["params"], seed, int(shape.get("bytes_io", 0)), n_max=8 if gpu else 1)
        method = shape.get("method") if gpu else None
        row = {}
        for name in names:
            model = ref if name == "eager" else torch.compile(ref)
            row[name] = bench(_calls(model, sets), method=method).__dict__
        out["baselines"][shape["id"]] = row
    return out


def run_compare(job: dict[str, Any]) -> dict[str, Any]:
    """ABBA rounds per shape: incumbent, candidate, candidate, incumbent. A candidate that raises
    while timed is reported as data (`failed`), not as a worker error."""
    try:
        return _compare(job)
    except BaseException as exc:  # noqa: BLE001 - candidate code ran here; its failure is data
        return {"ok": True, "failed": _reject(_rule(exc, "runtime-error"), _error_text(exc)), "comparisons": []}


def _compare(job: dict[str, Any]) -> dict[str, Any]:
    device = job["device"]
    op = Operator(job["spec"], device, job["dtype"])
    inc_cls = load_module(job["incumbent"], "incumbent").ModelNew
    cand_cls = load_module(job["candidate"], "candidate").ModelNew
    gpu = device == "cuda"
    bench = _bencher(gpu, int(job.get("reps", 30)))
    results = []
    for i, shape in enumerate(job["shapes"]):
        seed = int(job.get("seed", 0)) + 1000 * i
        inc = build_pair(op, inc_cls, shape["params"], seed).cand
        cand = build_pair(op, cand_cls, shape["params"], seed).cand
        sets = _input_sets(op, shape["params"], seed, 0, n_max=8 if gpu else 1)
        a_calls, b_calls = _calls(inc, sets), _calls(cand, sets)
        # both sides timed one way: the incumbent's first choice (graph or events) for every round
        first = bench(a_calls)
        method = first.method if gpu else None
        a, b = [first.median_us], []
        for r in range(int(job.get("rounds", 5))):
            if r:
                a.append(bench(a_calls, method=method).median_us)
            b.append(bench(b_calls, method=method).median_us)
            b.append(bench(b_calls, method=method).median_us)
            a.append(bench(a_calls, method=method).median_us)
        cmp = decide(a, b, method or "cpu-interpreter")
        cmp.shape = shape["id"]
        results.append(cmp.__dict__)
    return {"ok": True, "comparisons": results, "device": device_info(device)}
