"""Running a profiler on an application (the candidate's driver) and parsing what it wrote.

The runner knows each tool's command line and output files, never the candidate: the caller
passes the application's argv. Results are staged in a temporary folder next to the destination
and moved into place only when the tool succeeded and its output parsed, so a failure leaves
nothing half-written.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from aka.errors import AkaError, EnvironmentMissing, InputError, ProfileParseError
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
    """What one profiler run produced: a parsed report, or the application's failure as data."""

    tool: str
    out_dir: Path
    files: list[Path]
    report: ProfileReport | None
    status: str = "ok"
    """'ok', 'app-failed' (the application failed under the tool) or 'no-kernels'."""
    log_tail: str = ""
    """The end of the failing step's output when the status is not 'ok'."""
    logs: list[Path] = field(default_factory=list)
    """The log of every step run (its command line, then its output)."""


Wrap = Callable[[list[str], Path], "tuple[list[str], dict[str, str]]"]
"""(argv, workdir) → (the argv wrapped for isolation, the environment to run it with)."""


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
    """(tool, executable) for 'auto' or a named tool. An unknown name is InputError (exit 2); a
    profiler that is not installed is EnvironmentMissing (exit 3), saying what to install."""
    if requested != "auto":
        if requested not in TOOLS:
            raise InputError(f"--tool must be auto or one of {', '.join(TOOLS)}, not {requested!r}")
        exe = find_tool(requested)
        if not exe:
            raise EnvironmentMissing(f"{requested} was not found: {INSTALL[requested]}")
        return requested, exe
    for tool in ("ncu", "rocprofv3", "rocprof", "nsys"):
        exe = find_tool(tool)
        if exe:
            return tool, exe
    raise EnvironmentMissing("no profiler found (looked for ncu, rocprofv3, rocprof, nsys): "
                     f"{INSTALL['ncu']}, or on AMD {INSTALL['rocprofv3']}")


# Requested on every ncu run: the details page of a set prints no byte counts, but metrics given
# with --metrics appear on it by their raw names (section "Command line profiler metrics").
NCU_DRAM_METRICS = ("dram__bytes_read.sum", "dram__bytes_write.sum")
NCU_SETS_WITH_WARP_STATE = ("full",)
"""Sets that include the WarpStateStats section (`ncu --list-sets`); others get it added."""


def commands(tool: str, exe: str, app: list[str], stage: Path, ncu_set: str = "full") -> list[list[str]]:
    """The command lines that profile `app` and export parseable files into `stage`; the first one
    runs the application."""
    if tool == "ncu":
        rep = stage / "profile"
        warp = [] if ncu_set in NCU_SETS_WITH_WARP_STATE else ["--section", "WarpStateStats"]
        return [
            [exe, "--set", ncu_set, *warp, "--metrics", ",".join(NCU_DRAM_METRICS), "--clock-control", "none",
             "--profile-from-start", "off", "--target-processes", "all", "--export", str(rep),
             "--force-overwrite", *app],
            # --print-details all: without it the page prints each section's header only, and the
            # WarpStateStats per-reason stall breakdown (a section body) is left out
            [exe, "--import", f"{rep}.ncu-rep", "--csv", "--page", "details", "--print-units", "base",
             "--print-details", "all"],
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


TAIL_LINES = 30
_NO_KERNELS = re.compile(r"No kernels were profiled")
# The tool's or the machine's faults, never the candidate's: (pattern, what to do about it).
_ENVIRONMENT_FAULTS = (
    (re.compile(r"ERR_NVGPUCTRPERM|permission.*counter|counter.*permission", re.IGNORECASE | re.DOTALL),
     "{tool} has no permission to read the GPU's performance counters: run as root, or set the driver "
     "option NVreg_RestrictProfilingToAdminUsers=0"),
    (re.compile(r"unrecogni[sz]ed option|argument for option .* is invalid|unknown option", re.IGNORECASE),
     "{tool} rejected aka's command line (too old a version?): install a current release"),
    (re.compile(r"not supported on this (device|GPU)|driver resource was unavailable", re.IGNORECASE),
     "{tool} cannot profile on this machine"),
)


def tail(text: str, lines: int = TAIL_LINES) -> str:
    """The last `lines` non-empty lines of `text`."""
    return "\n".join([ln for ln in text.strip().splitlines() if ln.strip()][-lines:])


def _verdict(tool: str, step: int, code: int | None, text: str, timeout_s: float) -> str | None:
    """None when the step went well; 'no-kernels' or 'app-failed' when the application (the
    candidate) is to blame; raises for the tool's or the machine's faults."""
    if _NO_KERNELS.search(text):
        return "no-kernels"
    if code == 0 and "==ERROR==" not in text:
        return None
    for pattern, fix in _ENVIRONMENT_FAULTS:
        if pattern.search(text):
            raise EnvironmentMissing(fix.format(tool=tool) + f":\n{tail(text, 8)}")
    if step == 0:
        return "app-failed"
    what = f"did not finish within {timeout_s:.0f} s" if code is None else f"failed (exit status {code})"
    raise InputError(f"{tool} {what} exporting its results:\n{tail(text, 15)}")


def _step(cmd: list[str], env: dict | None, timeout_s: float) -> tuple[int | None, str, str]:
    """(exit status or None on timeout, stdout, stderr); on timeout the whole process group dies."""
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                start_new_session=True)
    except OSError as exc:
        raise EnvironmentMissing(f"cannot run {cmd[0]}: {exc.strerror or exc}") from None
    try:
        out, err = proc.communicate(timeout=timeout_s)
        return proc.returncode, out, err
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return None, out or "", (err or "") + f"\n(killed after {timeout_s:.0f} s)"


def run(tool: str, exe: str, app: list[str], out_dir: Path, env: dict | None = None,
        timeout_s: float = 900.0, wrap: Wrap | None = None) -> ProfileRun:
    """Profile `app`; parse; move the results into `out_dir` (which must not exist yet).

    `wrap` isolates the step that runs the application and gives the environment of every step.
    An application that fails or launches no kernel is a ProfileRun with that status and its logs
    in `out_dir`; a fault of the tool or the machine raises and leaves nothing behind.
    """
    out_dir = Path(out_dir)
    if out_dir.exists():
        raise InputError(f"{out_dir} already exists; choose another --out")
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=".staging-", dir=out_dir.parent))
    try:
        return _run_staged(tool, exe, app, stage, out_dir, env, timeout_s, wrap)
    except (AkaError, OSError, subprocess.SubprocessError, KeyboardInterrupt):
        shutil.rmtree(stage, ignore_errors=True)
        raise


def _run_staged(tool: str, exe: str, app: list[str], stage: Path, out_dir: Path, env: dict | None,
                timeout_s: float, wrap: Wrap | None) -> ProfileRun:
    from aka.profile.registry import parse_file

    logs = []
    for i, cmd in enumerate(commands(tool, exe, app, stage)):
        if i == 0 and wrap is not None:
            cmd, env = wrap(cmd, stage)
        code, out, err = _step(cmd, env, timeout_s)
        text = out + err
        logs.append(stage / f"step{i + 1}.log")
        logs[-1].write_text(" ".join(cmd) + "\n\n" + text)
        status = _verdict(tool, i, code, text, timeout_s)
        if status is not None:
            return _finish(ProfileRun(tool, stage, [], None, status, tail(text), logs), out_dir)
        if tool == "ncu" and i == 1:
            (stage / "details.csv").write_text(out)
    files = _outputs(tool, stage)
    if not files:
        return _finish(ProfileRun(tool, stage, [], None, "no-kernels", tail(text), logs), out_dir)
    try:
        report = parse_file(files[0])
    except ProfileParseError as exc:
        if not exc.message.startswith("no kernels found"):   # registry.parse_file's wording
            raise
        return _finish(ProfileRun(tool, stage, files, None, "no-kernels", tail(text), logs), out_dir)
    return _finish(ProfileRun(tool, stage, files, report, "ok", "", logs), out_dir)


SCRATCH = (".triton", ".inductor", ".cache", ".config", ".nv", "Documents")
"""What the profiled process and the tool leave in the staged folder, which is also their home:
compiled kernels and the tool's own section files (about 1.5 MB of Nsight Compute's per run). Not
results; a session keeps its profile folders, so they go."""


def _finish(run: ProfileRun, out_dir: Path) -> ProfileRun:
    """Drop the scratch, move the staged folder into place and point the run's paths there."""
    for name in SCRATCH:
        if (run.out_dir / name).is_dir() and not (run.out_dir / name).is_symlink():
            shutil.rmtree(run.out_dir / name, ignore_errors=True)
    os.replace(run.out_dir, out_dir)
    run.files = [out_dir / f.relative_to(run.out_dir) for f in run.files]
    run.logs = [out_dir / f.name for f in run.logs]
    run.out_dir = out_dir
    return run


def _outputs(tool: str, stage: Path) -> list[Path]:
    patterns = {"ncu": ["details.csv"], "nsys": ["stats*.csv"],
                "rocprofv3": ["**/*kernel_stats.csv", "**/*kernel_trace.csv"],
                "rocprof": ["results.stats.csv", "results.csv"]}[tool]
    found: list[Path] = []
    for pat in patterns:
        found += sorted(stage.glob(pat))
    return found
