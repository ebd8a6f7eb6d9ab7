"""The platform profiler as the loop's `Profiler`: `aka.profile.api.profile` on one shape of the
incumbent, run by the same default launcher `aka profile` uses (the sandbox, where it holds)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aka.errors import AkaError
from aka.spec.op import OpSpec


class PlatformProfiler:
    """Nsight Compute / rocprof through the profile library; a failing application is data. A
    `launcher` of None means the default one (`aka.profile.launch.default_launcher`)."""

    def __init__(self, tool: str, launcher: Any = None):
        self.tool, self.launcher = tool, launcher

    @classmethod
    def detect(cls) -> "PlatformProfiler | None":
        """The profiler found on this machine, or None (the loop then journals 'skipped')."""
        from aka.profile import runner

        try:
            tool, _ = runner.choose_tool("auto")
        except AkaError:                          # no profiler here: the loop runs without one
            return None
        return cls(tool)

    def profile(self, spec: OpSpec, candidate: Path, shape_id: str, compulsory_bytes: float | None,
                out_dir: Path) -> tuple[str, dict[str, Any] | None]:
        from aka.profile.api import profile

        outcome = profile(spec, candidate, shape_id, out_dir=out_dir, tool=self.tool,
                          compulsory_bytes=compulsory_bytes, launcher=self.launcher)
        report = outcome.report.to_dict() if outcome.report is not None else None
        return f"[{outcome.status}] {outcome.summary}", report
