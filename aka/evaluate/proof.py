"""Runtime proof on a GPU (worker side): under torch.profiler, the candidate's own kernels must do
at least 90 % of its device time, and all of its device work must run on the stream being timed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

OWN_SHARE_MIN = 0.90


@dataclass
class DeviceWork:
    """Device activity of one profiled call."""

    kernels: list[tuple[str, float, int]] = field(default_factory=list)
    """(name, device time in µs, stream id) per device activity."""

    def own_share(self, own_names: set[str]) -> float:
        total = sum(t for _, t, _ in self.kernels)
        own = sum(t for n, t, _ in self.kernels if _is_own(n, own_names))
        return own / total if total > 0 else 0.0

    def streams(self) -> set[int]:
        return {s for _, _, s in self.kernels}


def _is_own(name: str, own_names: set[str]) -> bool:
    return any(name == n or name.startswith(n + "_") or name.startswith(n + "(") for n in own_names)


def profile_call(call: Callable[[], object], repeats: int = 3) -> DeviceWork:
    """Device activities of `repeats` calls, recorded by torch.profiler (CUPTI)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    call()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(repeats):
            call()
        torch.cuda.synchronize()
    work = DeviceWork()
    for ev in prof.profiler.kineto_results.events():
        if ev.device_type() != torch.autograd.DeviceType.CUDA:
            continue
        dur_us = ev.duration_ns() / 1e3 if hasattr(ev, "duration_ns") else ev.duration_us()
        work.kernels.append((ev.name(), float(dur_us), int(ev.device_resource_id())))
    return work


def judge(work: DeviceWork, own_names: set[str]) -> tuple[str, str, float]:
    """(rule, detail, own share); rule is empty when the proof holds."""
    if not work.kernels:
        return "no-device-work", "the candidate launched no device work at all", 0.0
    share = work.own_share(own_names)
    if len(work.streams()) > 1:
        return ("side-stream", f"device work ran on {len(work.streams())} streams; all of it must run "
                "on the current stream, where it is timed", share)
    if share < OWN_SHARE_MIN:
        foreign = sorted({n for n, _, _ in work.kernels if not _is_own(n, own_names)})[:5]
        return ("foreign-device-time", f"only {share:.0%} of device time is in the candidate's own "
                f"kernels (need {OWN_SHARE_MIN:.0%}); others: {', '.join(foreign)}", share)
    return "", "", share
