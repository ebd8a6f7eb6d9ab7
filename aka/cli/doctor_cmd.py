"""`aka doctor [--calibrate]`: what this machine has, and its measured ceilings."""

from __future__ import annotations

import importlib.metadata as md
import shutil
import sys

import typer

from aka.cli.common import handled, print_json


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor_command)


def _version(pkg: str) -> str:
    try:
        return md.version(pkg)
    except md.PackageNotFoundError:
        return "not installed"


def sandbox_layers() -> dict[str, str]:
    """Every layer of `aka.sandbox` (LAYERS, in order): 'present' (with how, e.g. 'present
    (nobody)'), or 'missing'."""
    from aka.sandbox import LAYERS, Sandbox

    got = Sandbox().layers()
    return {name: ("missing" if not got.get(name) else
                   f"present ({got[name]})" if isinstance(got[name], str) else "present") for name in LAYERS}


def profiler_isolation() -> str:
    """How `aka profile` and the loop would start a profiler here."""
    from aka.profile.launch import SandboxLauncher, default_launcher

    launcher, warnings = default_launcher()
    if isinstance(launcher, SandboxLauncher):
        how = f"sandbox, privileges {'dropped' if launcher.privileges == 'drop' else 'kept (GPU counters)'}"
    else:
        how = "scrubbed environment only"
    return "; ".join([how, *warnings])


def report() -> dict:
    """Versions, device, datasheet entry, calibration cache, isolation (the worker's namespaces,
    every sandbox layer, the profiler's) and profiler availability."""
    from aka.evaluate.evaluator import detect_device
    from aka.evaluate.pool import ISOLATION_LAYERS, isolation, network_isolation
    from aka.hardware import calibrate as cal
    from aka.hardware.devices import lookup

    device = detect_device("auto")
    data = {
        "python": sys.version.split()[0],
        "packages": {p: _version(p) for p in ("torch", "triton", "numpy", "pyyaml", "typer",
                                              "nvidia-ml-py", "langgraph", "litellm", "chromadb",
                                              "sentence-transformers")},
        "device": device,
        "network_isolation": " ".join(network_isolation()) or "unavailable",
        "isolation_layers": {layer: ("present" if layer in isolation()[1] else "missing")
                             for layer in ISOLATION_LAYERS},
        "sandbox_layers": sandbox_layers(),
        "profiler_isolation": profiler_isolation(),
        "profilers": {t: shutil.which(t) or "not found" for t in ("ncu", "nsys", "rocprofv3", "rocprof")},
    }
    if device == "cuda":
        import torch

        name = torch.cuda.get_device_name(0)
        spec = lookup(name)
        data["gpu"] = name
        data["datasheet"] = ({"entry": spec.name, "bandwidth_TBps": spec.bandwidth / 1e12,
                              "bf16_TFLOPs": spec.flops.get("bfloat16", 0) / 1e12}
                             if spec else "unknown GPU: no datasheet entry, SOL unavailable")
        data["calibration"] = cal.load_cached(name) or "not calibrated (run aka doctor --calibrate)"
    return data


def doctor_command(
    calibrate: bool = typer.Option(False, "--calibrate", help="Measure read/copy/write bandwidth, matmul rate and launch floor."),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Report the environment; with --calibrate, measure and cache the GPU's achievable ceilings."""
    from aka.errors import EnvironmentMissing, WorkerError
    from aka.evaluate.pool import WorkerPool
    from aka.hardware import calibrate as cal

    with handled(json_out):
        data = report()
        if calibrate:
            if data["device"] != "cuda":
                raise EnvironmentMissing("--calibrate needs a CUDA GPU; none is visible")
            with WorkerPool("cuda") as pool:
                reply = pool.submit({"kind": "calibrate", "timeout_s": 600})
            if not reply.get("ok"):
                raise WorkerError(f"calibration failed: {reply.get('error')}\n{reply.get('log', '')[-1500:]}")
            data["calibration"] = reply["calibration"]
            data["calibration_file"] = str(cal.save(reply["calibration"]))
    if json_out:
        print_json(data)
        return
    for key, value in data.items():
        if isinstance(value, dict):
            typer.echo(f"{key}:")
            for k, v in value.items():
                typer.echo(f"  {k}: {v}")
        else:
            typer.echo(f"{key}: {value}")
