"""The platform profiler as the loop's `Profiler`: `aka.profile.api.profile` on one shape of the
incumbent, its application wrapped by the same launcher `aka profile` uses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aka.errors import AkaError
from aka.spec.op import OpSpec


class PlatformProfiler:
    """Nsight Compute / rocprof through the profile library; a failing application is data."""

    def __init__(self, tool: str, launcher: Any):
        self.tool, self.launcher = tool, launcher

    @classmethod
    def detect(cls) -> "PlatformProfiler | None":
        """The profiler found on this machine, or None (the loop then journals 'skipped')."""
        from aka.evaluate.pool import worker_env
        from aka.profile import runner
        from aka.profile.api import EnvLauncher

        try:
            tool, _ = runner.choose_tool("auto")
        except AkaError:                          # no profiler here: the loop runs without one
            return None
        return cls(tool, EnvLauncher(worker_env))

    def profile(self, spec: OpSpec, candidate: Path, shape_id: str, compulsory_bytes: float | None,
                out_dir: Path) -> tuple[str, dict[str, Any] | None]:
        from aka.profile.api import profile

        outcome = profile(spec, candidate, shape_id, out_dir=out_dir, tool=self.tool,
                          compulsory_bytes=compulsory_bytes, launcher=self.launcher)
        report = outcome.report.to_dict() if outcome.report is not None else None
        return f"[{outcome.status}] {outcome.summary}", report
