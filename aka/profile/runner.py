"""Running a profiler on an application (the candidate's driver) and parsing what it wrote.

The runner knows each tool's command line and output files, never the candidate: the caller
passes the application's argv. Results are staged in a temporary folder next to the destination
and moved into place only when the tool succeeded and its output parsed, so a failure leaves
nothing half-written.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from aka.errors import InputError, ProfileParseError
from aka.spec.profile import ProfileReport

TOOLS = ("ncu", "nsys", "rocprofv3", "rocprof")
SEARCH = {
    "ncu": ["/usr/local/cuda/bin/ncu", "/opt/nvidia/nsight-compute/*/ncu"],
    "nsys": ["/usr/local/cuda/bin/nsys", "/opt/nvidia/nsight-systems/*/bin/nsys"],
    "rocprofv3": ["/opt/rocm/bin/rocprofv3"],
    "rocprof": ["/opt/rocm/bin/rocprof"],
}
INSTALL = {
    "ncu": "install Nsight Compute (part of the CUDA toolkit) and put `ncu` on PATH",
    "nsys": "install Nsight Systems and put `nsys` on PATH",
    "rocprofv3": "install ROCm's rocprofiler-sdk (rocprofv3)",
    "rocprof": "install ROCm's rocprof",
}


@dataclass
class ProfileRun:
    """What one profiler run produced."""

    tool: str
    out_dir: Path
    files: list[Path]
    report: ProfileReport


def find_tool(tool: str) -> str | None:
    """Path of a profiler executable, from PATH or its usual install folders."""
    found = shutil.which(tool)
    if found:
        return found
    for pattern in SEARCH.get(tool, []):
        hits = sorted(glob.glob(pattern))
        if hits:
            return hits[-1]
    return None


def choose_tool(requested: str) -> tuple[str, str]:
    """(tool, executable) for 'auto' or a named tool; InputError says what to install."""
    if requested != "auto":
        if requested not in TOOLS:
            raise InputError(f"--tool must be auto or one of {', '.join(TOOLS)}, not {requested!r}")
        exe = find_tool(requested)
        if not exe:
            raise InputError(f"{requested} was not found: {INSTALL[requested]}")
        return requested, exe
    for tool in ("ncu", "rocprofv3", "rocprof", "nsys"):
        exe = find_tool(tool)
        if exe:
            return tool, exe
    raise InputError("no profiler found (looked for ncu, rocprofv3, rocprof, nsys): "
                     f"{INSTALL['ncu']}, or on AMD {INSTALL['rocprofv3']}")


def commands(tool: str, exe: str, app: list[str], stage: Path, ncu_set: str = "full") -> list[list[str]]:
    """The command lines that profile `app` and export parseable files into `stage`."""
    if tool == "ncu":
        rep = stage / "profile"
        return [
            [exe, "--set", ncu_set, "--clock-control", "none", "--profile-from-start", "off",
             "--target-processes", "all", "--export", str(rep), "--force-overwrite", *app],
            [exe, "--import", f"{rep}.ncu-rep", "--csv", "--page", "details", "--print-units", "base"],
        ]
    if tool == "nsys":
        rep = stage / "profile"
        return [
            [exe, "profile", "--capture-range=cudaProfilerApi", "--force-overwrite=true", "-o", str(rep), *app],
            [exe, "stats", "--report", "cuda_gpu_kern_sum", "--format", "csv", "--force-export=true",
             "--output", str(stage / "stats"), f"{rep}.nsys-rep"],
        ]
    if tool == "rocprofv3":
        return [[exe, "--kernel-trace", "--stats", "--output-format", "csv", "-d", str(stage),
                 "-o", "profile", "--", *app]]
    return [[exe, "--stats", "--timestamp", "on", "-o", str(stage / "results.csv"), *app]]


def _explain_failure(tool: str, text: str, code: int) -> str:
    if "ERR_NVGPUCTRPERM" in text or "permission" in text.lower() and "counter" in text.lower():
        return (f"{tool} has no permission to read the GPU's performance counters: run as root, or "
                "set the driver option NVreg_RestrictProfilingToAdminUsers=0")
    if "No kernels were profiled" in text or "==WARNING== No kernels" in text:
        return f"{tool} saw no kernel launches: the candidate launched nothing inside the profiled range"
    tail = "\n".join(text.strip().splitlines()[-15:])
    return f"the application failed under {tool} (exit status {code}):\n{tail}"


def run(tool: str, exe: str, app: list[str], out_dir: Path, env: dict | None = None,
        timeout_s: float = 900.0) -> ProfileRun:
    """Profile `app`; parse; move the results into `out_dir` (which must not exist yet)."""
    from aka.profile.registry import parse_file

    out_dir = Path(out_dir)
    if out_dir.exists():
        raise InputError(f"{out_dir} already exists; choose another --out")
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=".staging-", dir=out_dir.parent))
    try:
        cmds = commands(tool, exe, app, stage)
        for i, cmd in enumerate(cmds):
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, env=env)
            text = proc.stdout + proc.stderr
            (stage / f"step{i + 1}.log").write_text(" ".join(cmd) + "\n\n" + text)
            if proc.returncode != 0 or "==ERROR==" in text:
                raise InputError(_explain_failure(tool, text, proc.returncode))
            if tool == "ncu" and i == 1:
                (stage / "details.csv").write_text(proc.stdout)
        files = _outputs(tool, stage)
        if not files:
            raise InputError(f"{tool} finished but wrote no output to parse in {stage}")
        report = parse_file(files[0])
        os.replace(stage, out_dir)
        return ProfileRun(tool, out_dir, [out_dir / f.name for f in files], report)
    except (InputError, ProfileParseError, subprocess.TimeoutExpired):
        shutil.rmtree(stage, ignore_errors=True)
        raise


def _outputs(tool: str, stage: Path) -> list[Path]:
    patterns = {"ncu": ["details.csv"], "nsys": ["stats*.csv"],
                "rocprofv3": ["**/*kernel_stats.csv", "**/*kernel_trace.csv"],
                "rocprof": ["results.stats.csv", "results.csv"]}[tool]
    found: list[Path] = []
    for pat in patterns:
        found += sorted(stage.glob(pat))
    return found
