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
    timed_stream: int | None = None
    """Stream id of the current (timed) stream, from the marker kernel."""

    def own_share(self, own_names: set[str]) -> float:
        total = sum(t for _, t, _ in self.kernels)
        own = sum(t for n, t, _ in self.kernels if _is_own(n, own_names))
        return own / total if total > 0 else 0.0

    def streams(self) -> set[int]:
        return {s for _, _, s in self.kernels}


def _is_own(name: str, own_names: set[str]) -> bool:
    return any(name == n or name.startswith(n + "_") or name.startswith(n + "(") for n in own_names)


MARKER = "_aka_stream_marker"


def _marker_kernel():
    import triton

    @triton.jit
    def _aka_stream_marker(x_ptr):
        pass

    return _aka_stream_marker


def profile_call(call: Callable[[], object], repeats: int = 3) -> DeviceWork:
    """Device activities of `repeats` calls, recorded by torch.profiler (CUPTI).

    A marker kernel launched on the current stream before each call identifies the timed stream;
    the marker itself is left out of the returned work."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    marker, dummy = _marker_kernel(), torch.empty(1, device="cuda")
    marker[(1,)](dummy)
    call()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(repeats):
            marker[(1,)](dummy)
            call()
        torch.cuda.synchronize()
    work = DeviceWork()
    for ev in prof.profiler.kineto_results.events():
        if ev.device_type() != torch.autograd.DeviceType.CUDA:
            continue
        dur_us = ev.duration_ns() / 1e3 if hasattr(ev, "duration_ns") else ev.duration_us()
        stream = int(ev.device_resource_id()) if hasattr(ev, "device_resource_id") else -1
        if ev.name().startswith(MARKER):
            work.timed_stream = stream
            continue
        work.kernels.append((ev.name(), float(dur_us), stream))
    return work


def judge(work: DeviceWork, own_names: set[str]) -> tuple[str, str, float]:
    """(rule, detail, own share); rule is empty when the proof holds."""
    if not work.kernels:
        return "no-device-work", "the candidate launched no device work at all", 0.0
    share = work.own_share(own_names)
    others = work.streams() - {work.timed_stream}
    if work.timed_stream is not None and others or len(work.streams()) > 1:
        return ("side-stream", f"device work ran on {len(others)} stream(s) besides the current one; "
                "all of it must run on the current stream, where it is timed", share)
    if share < OWN_SHARE_MIN:
        foreign = sorted({n for n, _, _ in work.kernels if not _is_own(n, own_names)})[:5]
        return ("foreign-device-time", f"only {share:.0%} of device time is in the candidate's own "
                f"kernels (need {OWN_SHARE_MIN:.0%}); others: {', '.join(foreign)}", share)
    return "", "", share
