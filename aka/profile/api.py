"""Profiling one shape of a candidate as a library call (the agent calls it once per incumbent).

`profile()` builds the driver's command line, picks the tool, runs it through a `Launcher` (its
isolation: by default the sandbox, see aka.profile.launch), then parses and summarizes.
A candidate that fails under the profiler is a `ProfileOutcome` with that status and its log; only
aka's own faults and a missing or unusable profiler (`EnvironmentMissing`) raise.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Callable

from aka.errors import CandidateError, InputError
from aka.hardware.nvml import device_info
from aka.profile import runner
from aka.profile.launch import EnvLauncher, Launcher, SandboxLauncher, default_launcher, resolve, scrub_env
from aka.profile.summary import finish
from aka.spec import expr
from aka.spec.op import OpSpec
from aka.spec.profile import ProfileOutcome

__all__ = ["DRIVER", "EnvLauncher", "Launcher", "SandboxLauncher", "compulsory_bytes_of", "default_launcher",
           "driver_argv", "profile", "scrub_env"]

DRIVER = "aka.evaluate.profile_driver"
"""The application profiled: it launches the candidate inside a profiler range. Named, never
imported (profile and evaluate do not import each other)."""


def driver_argv(spec: OpSpec, candidate: Path, shape_id: str, iters: int = 1,
                reference: bool = False, compiled: bool = False) -> list[str]:
    """The application's command line: the driver launching `iters` calls of one shape (of the
    candidate, the eager reference, or the reference under torch.compile)."""
    argv = [sys.executable, "-m", DRIVER, str(Path(spec.path).resolve()), str(Path(candidate).resolve()),
            "--shapes", shape_id, "--iters", str(iters)]
    return argv + (["--reference"] if reference else []) + (["--compile"] if compiled else [])


def profile(spec: OpSpec, candidate_path: Path, shape_id: str, *, out_dir: Path, tool: str = "auto",
            iters: int = 1, reference: bool = False, compiled: bool = False, compulsory_bytes: float | None = None,
            launcher: Launcher | None = None, timeout_s: float = 900.0) -> ProfileOutcome:
    """Profile `iters` calls of one shape of a candidate (or of the eager reference, or with
    `compiled` of the reference under torch.compile) into `out_dir`
    (which must not exist). `compulsory_bytes` (the roofline's bytes for one call) lets the summary
    say how much DRAM traffic the kernels move against it."""
    candidate_path = Path(candidate_path)
    if not candidate_path.is_file():
        raise CandidateError(f"{candidate_path}: candidate file not found")
    try:
        spec.shape(shape_id)
    except KeyError as exc:
        raise InputError(str(exc.args[0])) from None
    if iters < 1:
        raise InputError(f"iters must be at least 1, not {iters}")
    if reference and compiled:
        raise InputError("profile either the eager reference or its torch.compile, not both")
    tool_name, exe = runner.choose_tool(tool)
    app = driver_argv(spec, candidate_path, shape_id, iters, reference, compiled)
    launcher, warnings = resolve(launcher, [spec.path, spec.reference, str(candidate_path.resolve())])
    run = runner.run(tool_name, exe, app, Path(out_dir), timeout_s=timeout_s, wrap=launcher.wrap)
    return _outcome(run, shape_id, iters, compulsory_bytes, warnings)


def _outcome(run: runner.ProfileRun, shape_id: str, iters: int, compulsory_bytes: float | None,
             warnings: list[str]) -> ProfileOutcome:
    """The outcome of a run, with report.json (when parsed) and summary.txt written beside the files."""
    files = [str(f) for f in run.files]
    if run.report is None:
        summary = _failure_text(run, shape_id)
        outcome = ProfileOutcome(run.status, run.tool, shape_id, str(run.out_dir), log_tail=run.log_tail,
                                 summary=summary, files=files, warnings=list(warnings))
    else:
        report = run.report
        report.calls = iters
        report.warnings += [w for w in warnings if w not in report.warnings]
        if not report.device:
            report.device = device_info()
        finish(report, compulsory_bytes)
        (run.out_dir / "report.json").write_text(json.dumps(report.to_dict(), indent=1, default=str))
        outcome = ProfileOutcome("ok", run.tool, shape_id, str(run.out_dir), report=report,
                                 summary=report.summary, files=files, warnings=list(warnings))
    (run.out_dir / "summary.txt").write_text(outcome.summary + "\n")
    return outcome


def _failure_text(run: runner.ProfileRun, shape_id: str) -> str:
    if run.status == "no-kernels":
        head = (f"profiling shape {shape_id} under {run.tool} saw no kernel launch: the candidate launched "
                "nothing inside the profiled range")
    else:
        head = f"the candidate failed under {run.tool} at shape {shape_id}; the end of its log:"
    return f"{head}\n{run.log_tail}".strip()


def compulsory_bytes_of(spec: OpSpec, shape_id: str,
                        auto: Callable[[OpSpec, str], float | None] | None = None) -> float | None:
    """The roofline's bytes for one call at a shape (its own figures where it has them): the
    expression's value, or for `bytes: auto` what AUTO counts (aka.evaluate.auto_bytes.auto_bytes;
    profile does not import evaluate), None without AUTO or when it cannot count."""
    rl = spec.roofline_for(shape_id)
    if rl is None:
        return None
    if rl.bytes == "auto":
        counted = auto(spec, shape_id) if auto is not None else None
        return None if counted is None else float(counted)
    return float(expr.evaluate(rl.bytes, spec.shape(shape_id).params))
