"""Bottleneck classification with evidence, and the compact proposer-facing summary."""

from __future__ import annotations

from aka.spec.profile import Bottleneck, Evidence, KernelProfile, ProfileReport

HIGH_PCT = 60.0
"""A unit running at or above this share of its peak is the limiter (ncu's own 'high' mark)."""
LOW_OCCUPANCY_PCT = 50.0
"""Achieved occupancy below this, with neither unit busy, reads as occupancy-bound."""
LAUNCH_NS = 5_000.0
"""A launch shorter than this is dominated by launch overhead."""
MAX_SUMMARY = 1500


def dominant(kernels: list[KernelProfile]) -> KernelProfile | None:
    """The kernel with the largest total time (the first one when no times are known)."""
    if not kernels:
        return None
    return max(kernels, key=lambda k: k.total_duration_ns or k.duration_ns or 0.0)


def _memory_pct(k: KernelProfile) -> tuple[str, float] | None:
    for name in ("dram_throughput_pct", "memory_throughput_pct"):
        v = getattr(k, name)
        if v is not None:
            return name, v
    v = k.metrics.get("mem_unit_busy_pct")
    return ("mem_unit_busy_pct", v) if v is not None else None


def _compute_pct(k: KernelProfile) -> tuple[str, float] | None:
    if k.sm_throughput_pct is not None:
        return "sm_throughput_pct", k.sm_throughput_pct
    v = k.metrics.get("valu_busy_pct")
    return ("valu_busy_pct", v) if v is not None else None


def _ev(metric: str, value: float, threshold: float, above: bool, meaning: str) -> Evidence:
    op = ">=" if above else "<"
    return Evidence(metric, round(value, 3), threshold, f"{metric} {value:.4g} {op} {threshold:g}: {meaning}")


def classify(k: KernelProfile) -> Bottleneck:
    """memory-, compute-, latency- or launch-bound for one kernel, with the comparisons made."""
    mem, comp = _memory_pct(k), _compute_pct(k)
    if k.duration_ns is not None and k.duration_ns < LAUNCH_NS:
        ev = [_ev("duration_ns", k.duration_ns, LAUNCH_NS, False, "launch overhead dominates")]
        return Bottleneck("launch-bound", k.name, ev)
    if mem and mem[1] >= HIGH_PCT and (comp is None or mem[1] >= comp[1]):
        ev = [_ev(mem[0], mem[1], HIGH_PCT, True, "memory is the busiest unit")]
        if comp:
            ev.append(_ev(comp[0], comp[1], mem[1], False, "compute is less busy than memory"))
        return Bottleneck("memory-bound", k.name, ev)
    if comp and comp[1] >= HIGH_PCT:
        ev = [_ev(comp[0], comp[1], HIGH_PCT, True, "compute is the busiest unit")]
        if mem:
            ev.append(_ev(mem[0], mem[1], comp[1], False, "memory is less busy than compute"))
        return Bottleneck("compute-bound", k.name, ev)
    if mem and comp:
        ev = [_ev(mem[0], mem[1], HIGH_PCT, False, "memory is not saturated"),
              _ev(comp[0], comp[1], HIGH_PCT, False, "compute is not saturated")]
        occ = k.achieved_occupancy_pct
        if occ is not None:
            meaning = "too few warps to hide latency" if occ < LOW_OCCUPANCY_PCT else "warps are resident but stalled"
            ev.append(_ev("achieved_occupancy_pct", occ, LOW_OCCUPANCY_PCT, occ >= LOW_OCCUPANCY_PCT, meaning))
        if k.stalls:
            s = k.stalls[0]
            ev.append(Evidence(f"stall_{s.reason}_share_pct", s.share_pct, 0.0, f"top stall: {s.reason} ({s.share_pct:.0f}%)"))
        return Bottleneck("latency-bound", k.name, ev)
    return Bottleneck("unknown", k.name, [])


def _fmt_ns(ns: float | None) -> str:
    if ns is None:
        return "?"
    return f"{ns / 1e6:.3g} ms" if ns >= 1e6 else (f"{ns / 1e3:.3g} us" if ns >= 1e3 else f"{ns:.3g} ns")


def _pct(v: float | None) -> str:
    return "?" if v is None else f"{v:.1f}%"


def _kernel_line(k: KernelProfile) -> str:
    parts = [f"{k.name}: {_fmt_ns(k.duration_ns)}"]
    if k.launches > 1:
        parts.append(f"x{k.launches} = {_fmt_ns(k.total_duration_ns)}")
    if k.grid:
        parts.append(f"grid {k.grid} block {k.block}")
    if k.registers_per_thread is not None:
        parts.append(f"{k.registers_per_thread} regs")
    return " ".join(parts)


def _headline(k: KernelProfile) -> list[str]:
    lines = []
    if k.dram_throughput_pct is not None or k.sm_throughput_pct is not None or k.memory_throughput_pct is not None:
        lines.append(f"DRAM {_pct(k.dram_throughput_pct)}, memory {_pct(k.memory_throughput_pct)}, "
                     f"SM {_pct(k.sm_throughput_pct)} of peak")
    if k.achieved_occupancy_pct is not None:
        lines.append(f"occupancy {_pct(k.achieved_occupancy_pct)} achieved / {_pct(k.theoretical_occupancy_pct)} "
                     f"theoretical (limited by {k.occupancy_limiter or '?'})")
    if k.l1_hit_rate_pct is not None or k.l2_hit_rate_pct is not None:
        lines.append(f"L1 hit {_pct(k.l1_hit_rate_pct)}, L2 hit {_pct(k.l2_hit_rate_pct)}")
    if k.amd_counters:
        lines.append("AMD: " + ", ".join(f"{n}={v:.4g}" for n, v in k.amd_counters.items()))
    stalls = _stall_line(k)
    if stalls:
        lines.append(stalls)
    return lines


def _stall_line(k: KernelProfile) -> str | None:
    """Top stalls, saying where they came from; or why there are none (ncu)."""
    if not k.stalls:
        return f"no stall data in this profile ({k.stall_note})" if k.stall_note else None
    top = k.stalls[:3]
    if k.stall_source == "per-warp":
        return ("top stalls (stall cycles per warp, share of the reasons collected): "
                + ", ".join(f"{s.reason} {s.value:.4g} ({s.share_pct:.0f}%)" for s in top))
    shares = ", ".join(f"{s.reason} {s.share_pct:.0f}%" for s in top)
    if k.stall_source == "rule":
        return f"top stalls (only those ncu's CPIStall rule flagged): {shares}"
    if k.stall_source == "samples":
        return f"top stalls (PC samples): {shares}"
    return f"top stalls: {shares}"


def fmt_bytes(n: float) -> str:
    """'268 MB', '6.44 GB', '512 kB'."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(n) >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


LOW_TRAFFIC = 0.9
"""Below this share of the compulsory bytes, some data came from L2 (or the roofline overcounts)."""


def traffic_line(report: ProfileReport, compulsory_bytes: float | None = None) -> str | None:
    """DRAM bytes moved per call by all kernels, against the operator's compulsory traffic."""
    compulsory = compulsory_bytes if compulsory_bytes is not None else report.compulsory_bytes
    known = [k for k in report.kernels if k.dram_bytes is not None]
    if not known:
        return f"DRAM traffic: not in this profile (compulsory {fmt_bytes(compulsory)})" if compulsory else None
    calls = max(report.calls, 1)
    moved = sum(k.dram_bytes * k.launches for k in known) / calls
    launches = sum(k.launches for k in known) / calls
    by = f" by {launches:.3g} kernel launches" if launches > 1 else ""
    if len(known) < len(report.kernels):
        by += f"; {len(report.kernels) - len(known)} kernel record(s) without DRAM bytes"
    if not compulsory or compulsory <= 0:
        return f"DRAM traffic {fmt_bytes(moved)} moved per call{by}"
    ratio = moved / compulsory
    line = f"DRAM traffic {ratio:.2f}× the compulsory {fmt_bytes(compulsory)} ({fmt_bytes(moved)} moved{by})"
    if ratio < LOW_TRAFFIC:
        line += "; below 1: part of the data came from L2, or the roofline overcounts bytes"
    return line


# Advice that does not apply to a kernel of a given kind: Nsight Compute's HighPipeUtilization rule
# estimates "all compute pipelines are under-utilized" as 1 - the busiest pipe's share, so it tops
# the list for every memory-bound kernel, where idle pipes are the expected state, not the problem.
MOOT = {"memory-bound": {"HighPipeUtilization"}}


def _rules(k: KernelProfile, kind: str = "", limit: int = 3) -> list[str]:
    moot = MOOT.get(kind, set())
    opts = sorted((r for r in k.rules if r.type == "OPT" and r.name not in moot),
                  key=lambda r: -(r.estimated_speedup_pct or 0.0))
    out = []
    for r in opts[:limit]:
        gain = f" (est. {r.estimated_speedup_pct:.0f}%)" if r.estimated_speedup_pct is not None else ""
        out.append(f"- {r.name}{gain}: {r.message[:160]}")
    return out


def summarize(report: ProfileReport, compulsory_bytes: float | None = None) -> str:
    """At most ~1,500 characters: headline numbers, bottleneck, DRAM traffic against the compulsory
    bytes (`compulsory_bytes`, else the report's), top stalls, the tool's advice."""
    ks = sorted(report.kernels, key=lambda k: -(k.total_duration_ns or k.duration_ns or 0.0))
    top = dominant(report.kernels)
    lines = [f"{report.tool} {report.format}: {len(report.kernels)} kernel record(s)"]
    if report.device and report.device.get("name"):
        lines[0] += f" on {report.device['name']}"
    lines += ["kernels by time: " + "; ".join(_kernel_line(k) for k in ks[:4])]
    if top is not None:
        b = report.bottleneck
        lines.append(f"dominant: {top.name} is {b.kind}" + (f" ({b.evidence[0].reading})" if b.evidence else ""))
        traffic = traffic_line(report, compulsory_bytes)
        lines += ([traffic] if traffic else []) + _headline(top)
        advice = _rules(top, b.kind)
        if advice:
            lines += ["tool recommendations:"] + advice
    text = "\n".join(lines)
    return text if len(text) <= MAX_SUMMARY else text[: MAX_SUMMARY - 3] + "..."


def finish(report: ProfileReport, compulsory_bytes: float | None = None) -> ProfileReport:
    """Fill in the report's bottleneck and summary (recording `compulsory_bytes` when given)."""
    if compulsory_bytes is not None:
        report.compulsory_bytes = compulsory_bytes
    top = dominant(report.kernels)
    report.bottleneck = classify(top) if top is not None else Bottleneck()
    report.summary = summarize(report)
    return report
