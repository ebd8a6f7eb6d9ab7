"""Jobs the evaluation worker runs, in a forked child of the fork server, as plain JSON-able dicts.

Only torch, triton, numpy and pyyaml are needed here, so the worker runs on a bare GPU node.
Job kinds (typed in `aka.spec.jobs`): 'eval' and 'compare' (decided by `aka.evaluate.judge`, which
runs candidate code only in confined processes of its own), 'baselines', 'calibrate', 'ping'.
"""

from __future__ import annotations

import os
import socket
from typing import Any, Callable

import torch

from aka.evaluate.loading import Operator
from aka.evaluate.timing import GpuTimer, bench_cpu
from aka.spec import jobs
from aka.spec.result import Timing


def exact_fp32() -> dict[str, bool]:
    """Switch TF32 off for cuBLAS and cuDNN: a float32 operator means IEEE float32 for the
    reference and the baselines too (PyTorch lets cuDNN convolutions use TF32 by default)."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return {"matmul": torch.backends.cuda.matmul.allow_tf32, "cudnn": torch.backends.cudnn.allow_tf32}


def execute(document: dict[str, Any]) -> dict[str, Any]:
    """Run one job (a `aka.spec.jobs` document); every candidate failure comes back as data."""
    job = jobs.job_from_dict(document)
    tf32 = exact_fp32()
    if isinstance(job, jobs.PingJob):
        return {"ok": True, "torch": torch.__version__, "env_keys": sorted(os.environ), "tf32": tf32,
                "cwd": os.getcwd(), "net": sorted(name for _, name in socket.if_nameindex())}
    if isinstance(job, jobs.EvalJob):
        from aka.evaluate.judge import run_eval

        return run_eval(job)
    if isinstance(job, jobs.CompareJob):
        from aka.evaluate.judge import run_compare

        return run_compare(job)
    if isinstance(job, jobs.BaselinesJob):
        return run_baselines(job)
    from aka.evaluate.calibration import calibrate

    return {"ok": True, "calibration": calibrate()}


def prewarm() -> None:
    """What every job's first use would pay again in each forked child, paid once in the server:
    PyTorch's meta-device kernels (the footprint estimate traces the reference on `meta`; about a
    second on first use) and the CPU ops the judge's comparison uses. Never touches CUDA (children
    fork from here)."""
    for dtype in (torch.float32, torch.bfloat16):
        x = torch.empty(4, 8, device="meta", dtype=dtype)
        y = (x.float().pow(2).mean(-1, keepdim=True) + 1e-6).rsqrt() * x.float()
        torch.nn.functional.softmax(y, -1).to(dtype)
        a = torch.randn(64, dtype=dtype)
        torch.isclose(a, a.clone(), rtol=1e-3, atol=1e-3).all()
        (a.float() - a.float()).abs().max()
    prewarm_triton()


def prewarm_triton() -> list[str]:
    """Triton's per-process keys, computed once in the server so every forked judge and candidate
    process inherits them (they are functools caches): `triton_key()` hashes Triton's sources and
    its 460 MB library (0.3 s), and the CUDA backend's hash runs `ptxas --version` and hashes
    libdevice. Every process paid these on its first kernel call, even one whose kernels all
    came from its cache. The compute capability comes from NVML: CUDA is never touched here.
    Returns what was warmed (nothing under the interpreter, or where Triton's API differs)."""
    if os.environ.get("TRITON_INTERPRET") == "1":
        return []
    warmed = []
    try:
        from triton.runtime.cache import triton_key

        triton_key()
        warmed.append("triton_key")
        from aka.hardware.nvml import device_info as nvml_info

        cc = nvml_info().get("compute_capability")
        if cc:
            from triton.backends.compiler import GPUTarget
            from triton.backends.nvidia.compiler import CUDABackend

            major, minor = (int(x) for x in cc.split("."))
            backend = CUDABackend(GPUTarget("cuda", major * 10 + minor, 32))
            backend.hash()
            backend.parse_options({}).hash()
            warmed.append(f"cuda backend sm_{major}{minor}")
    except Exception:                              # noqa: BLE001 - a warm-up only: the first call pays instead
        pass
    return warmed


def device_info(device: str) -> dict[str, Any]:
    if device != "cuda":
        return {"kind": "cpu", "name": "cpu (Triton interpreter)"}
    from aka.hardware.nvml import device_info as nvml_info

    props = torch.cuda.get_device_properties(0)
    return {"kind": "cuda", "name": props.name, "capability": f"{props.major}.{props.minor}",
            "arch_name": getattr(props, "gcnArchName", None), "sms": props.multi_processor_count,
            "memory_bytes": props.total_memory,
            "torch": torch.__version__, "nvml": nvml_info()}


def bencher(gpu: bool, reps: int, floor_us: float | None = None) -> Callable[[list], Timing]:
    """Device timing on a GPU (adding the given graph launch floor); labelled wall-clock timing on
    the CPU interpreter."""
    return GpuTimer(reps=reps, floor_us=floor_us).bench if gpu else bench_cpu


def run_baselines(job: jobs.BaselinesJob) -> dict[str, Any]:
    """Time the baselines (eager, torch.compile, production) of some shapes, each with a given
    method, the way the judge times them beside a candidate: the agent times them once per (shape,
    method). No candidate code runs in this job."""
    from aka.evaluate.gpu_lock import GpuLock
    from aka.evaluate.judge import OperatorFailed, launch_floor_kw, operator_of, runnable_baselines, time_baselines
    from aka.spec.op import Tolerance

    gpu = job.device == "cuda"
    names, notes = runnable_baselines(job.spec, job.baselines, gpu)
    tol = Tolerance(job.atol, job.rtol, {k: tuple(v) for k, v in job.tol_outputs.items()})
    out: dict[str, Any] = {"ok": True, "baselines": {}, "notes": notes, "device": device_info(job.device)}
    lock = GpuLock(job.gpu_lock)
    try:
        op = operator_of(job)
        for i, shape in enumerate(job.shapes):
            seed = int(job.seed) + 1000 * i
            with lock.exclusive():
                out["baselines"][shape.id] = time_baselines(op, shape.params, seed, 0, names, gpu, int(job.reps),
                                                            shape.method if gpu else None, tol, shape.id,
                                                            **launch_floor_kw(gpu))
    except OperatorFailed as exc:
        return {"ok": False, "operator_fault": exc.info}
    finally:
        lock.close()
    return out
