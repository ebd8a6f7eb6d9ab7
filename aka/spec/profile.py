"""Profile records: what any profiler's output becomes once parsed (stdlib dataclasses only).

These records travel to a bare GPU node and back as JSON, so they use `dataclasses` rather than
pydantic. Every number is in SI base units or a percentage, and every counter is named by aka's
short name (`aka.profile.metrics`), never the tool's raw counter name.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

RuleType = Literal["OPT", "WRN", "INF"]
BottleneckKind = Literal["memory-bound", "compute-bound", "latency-bound", "launch-bound", "unknown"]
BOTTLENECK_KINDS = ("memory-bound", "compute-bound", "latency-bound", "launch-bound", "unknown")
RULE_TYPES = ("OPT", "WRN", "INF")


@dataclass(frozen=True)
class WarpStall:
    """One warp-stall reason and its share of all stall cycles."""

    reason: str
    """Short reason name, e.g. 'long_scoreboard' (same naming from every ncu page)."""
    value: float
    """The tool's number for it, in the unit of its source (KernelProfile.stall_source): cycles per
    issued instruction, stall cycles per warp, PC samples, or cycles per issue as a rule states it."""
    share_pct: float
    """Its share in percent: of the warp cycles per issued instruction when known, else of the sum
    over the reasons collected (or as the rule states it)."""


@dataclass(frozen=True)
class ToolRule:
    """A recommendation the profiler itself made (an Nsight Compute rule result)."""

    type: str
    """'OPT' (optimization), 'WRN' (warning) or 'INF' (information)."""
    name: str
    """The rule's identifier, e.g. 'SOLBottleneck'."""
    message: str
    """The rule's text, whitespace collapsed."""
    estimated_speedup_pct: float | None = None
    """The tool's estimated speedup in percent, when it gave one."""
    speedup_type: str = ""
    """'local' or 'global' when the tool said which."""


@dataclass
class KernelProfile:
    """One kernel (one launch for ncu; all launches of one name for trace and stats files)."""

    name: str
    """Simplified name: no return type, template arguments, parameters or clone suffix."""
    raw_name: str
    """The name exactly as the tool printed it."""
    launches: int = 1
    """How many launches this record covers."""
    duration_ns: float | None = None
    """Mean duration of one launch, in nanoseconds."""
    total_duration_ns: float | None = None
    """Sum over all launches, in nanoseconds."""
    grid: tuple[int, ...] | None = None
    """Grid size: blocks per dimension (ncu) or work-items (AMD, as the tool reports it)."""
    block: tuple[int, ...] | None = None
    """Block / workgroup size per dimension."""
    registers_per_thread: int | None = None
    """Registers per thread (NVIDIA) or architected VGPRs per work-item (AMD)."""
    shared_mem_bytes: int | None = None
    """Static plus dynamic shared memory (LDS) per block, in bytes."""
    achieved_occupancy_pct: float | None = None
    """Achieved active warps as a percentage of the SM's maximum."""
    theoretical_occupancy_pct: float | None = None
    """Theoretical occupancy in percent."""
    occupancy_limiter: str | None = None
    """What limits blocks per SM: 'registers', 'shared_mem', 'warps', 'blocks' or 'barriers'."""
    dram_bytes: float | None = None
    """Bytes read plus written to device memory (dram__bytes_read.sum + dram__bytes_write.sum, or
    dram__bytes.sum; failing those, the DRAM bandwidth times the duration)."""
    dram_throughput_pct: float | None = None
    """DRAM throughput as a percentage of peak."""
    memory_throughput_pct: float | None = None
    """Overall memory throughput (the busiest memory unit) as a percentage of peak."""
    sm_throughput_pct: float | None = None
    """SM / compute throughput as a percentage of peak."""
    l1_hit_rate_pct: float | None = None
    """L1/TEX (or AMD vector L1) hit rate in percent."""
    l2_hit_rate_pct: float | None = None
    """L2 hit rate in percent."""
    stalls: list[WarpStall] = field(default_factory=list)
    """Top warp-stall reasons, largest first."""
    stall_source: str = ""
    """Where `stalls` came from: 'per-issue' (cycles per issued instruction), 'per-warp' (stall
    cycles per warp), 'samples' (PC sampling), 'rule' (only the reasons Nsight Compute's CPIStall
    rule flagged), or '' when there are none."""
    stall_note: str = ""
    """Why there is no stall breakdown, when the profile could have carried one (ncu)."""
    rules: list[ToolRule] = field(default_factory=list)
    """The tool's rule results for this kernel."""
    amd_counters: dict[str, float] = field(default_factory=dict)
    """AMD counters that matter (FETCH_SIZE KiB, WRITE_SIZE KiB, VALUBusy %, MemUnitBusy %, ...)."""
    metrics: dict[str, float] = field(default_factory=dict)
    """Every recognized metric by aka short name, in SI units or percent."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KernelProfile:
        known = {f.name for f in fields(cls)}
        kw = {k: v for k, v in data.items() if k in known}
        for key in ("grid", "block"):
            if kw.get(key) is not None:
                kw[key] = tuple(kw[key])
        kw["stalls"] = [WarpStall(**s) for s in kw.get("stalls", [])]
        kw["rules"] = [ToolRule(**r) for r in kw.get("rules", [])]
        return cls(**kw)


@dataclass(frozen=True)
class Evidence:
    """One number behind a bottleneck verdict."""

    metric: str
    """aka short name of the metric."""
    value: float
    """The measured value."""
    threshold: float
    """The threshold it was compared with."""
    reading: str
    """What the comparison means, e.g. 'dram_throughput_pct 80.3 >= 60: DRAM is busy'."""


@dataclass
class Bottleneck:
    """What limits the dominant kernel, with the numbers that say so."""

    kind: str = "unknown"
    """One of BOTTLENECK_KINDS."""
    kernel: str = ""
    """The kernel classified (the one with the largest total time)."""
    evidence: list[Evidence] = field(default_factory=list)
    """The comparisons that led to the verdict."""

    def __post_init__(self) -> None:
        if self.kind not in BOTTLENECK_KINDS:
            raise ValueError(f"bottleneck kind {self.kind!r} is not one of {BOTTLENECK_KINDS}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Bottleneck:
        ev = [Evidence(**e) for e in data.get("evidence", [])]
        return cls(kind=data.get("kind", "unknown"), kernel=data.get("kernel", ""), evidence=ev)


@dataclass
class ProfileReport:
    """One profiler output, normalized."""

    tool: str
    """'ncu', 'nsys', 'rocprof', 'rocprofv2', 'rocprofv3', 'rocprof-compute' or 'omniperf'."""
    source_files: list[str]
    """The files this report was read from."""
    kernels: list[KernelProfile]
    """Kernels in the order the tool listed them."""
    tool_version: str | None = None
    """The tool's version when the file says it."""
    format: str = ""
    """Which output of the tool, e.g. 'details-csv', 'raw-csv', 'kernel-stats'."""
    device: dict[str, Any] | None = None
    """Device information recorded with the profile (nvml, sysinfo), or None."""
    bottleneck: Bottleneck = field(default_factory=Bottleneck)
    """Classification of the dominant kernel."""
    summary: str = ""
    """Compact proposer-facing text, at most about 1,500 characters."""
    compulsory_bytes: float | None = None
    """The operator's compulsory DRAM traffic for one call at the profiled shape (the roofline's
    bytes), when the caller knows it; the summary compares the traffic moved with it."""
    calls: int = 1
    """How many calls of the operator the kernels listed cover (the profiled iterations)."""
    warnings: list[str] = field(default_factory=list)
    """What reading the files could not take as given, each naming what it concerns (e.g. a CSV
    cut mid-row: the row dropped and its kernel)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ProfileReport:
        return cls(
            tool=data["tool"],
            source_files=list(data.get("source_files", [])),
            kernels=[KernelProfile.from_dict(k) for k in data.get("kernels", [])],
            tool_version=data.get("tool_version"),
            format=data.get("format", ""),
            device=data.get("device"),
            bottleneck=Bottleneck.from_dict(data.get("bottleneck") or {}),
            summary=data.get("summary", ""),
            compulsory_bytes=data.get("compulsory_bytes"),
            calls=int(data.get("calls") or 1),
            warnings=list(data.get("warnings", [])),
        )


PROFILE_STATUSES = ("ok", "app-failed", "no-kernels")


@dataclass
class ProfileOutcome:
    """What profiling one shape of a candidate gave: a report, or the application's failure as data.

    A candidate that crashes, raises or faults under the profiler is `app-failed` with the tail of
    its log; one that launches no kernel in the profiled range is `no-kernels`. Only aka's own
    faults and a missing profiler are exceptions.
    """

    status: str
    """One of PROFILE_STATUSES."""
    tool: str
    """The profiler that ran ('ncu', 'nsys', 'rocprofv3' or 'rocprof')."""
    shape_id: str
    """The shape profiled."""
    out_dir: str
    """The folder holding the profiler's files and logs."""
    report: ProfileReport | None = None
    """The normalized report; present exactly when the status is 'ok'."""
    log_tail: str = ""
    """The last lines of the profiler's and application's output when the status is not 'ok'."""
    summary: str = ""
    """Proposer-facing text: the report's summary, or what failed and the log's tail."""
    files: list[str] = field(default_factory=list)
    """The profiler's output files, as written in `out_dir`."""
    warnings: list[str] = field(default_factory=list)
    """What weakened the run, e.g. the profiled application ran without the sandbox's layers."""

    def __post_init__(self) -> None:
        if self.status not in PROFILE_STATUSES:
            raise ValueError(f"profile status {self.status!r} is not one of {PROFILE_STATUSES}")
        if (self.status == "ok") != (self.report is not None):
            raise ValueError("a report comes with status 'ok' and only with it")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ProfileOutcome:
        kw = {f.name: data[f.name] for f in fields(cls) if f.name in data}
        if kw.get("report") is not None:
            kw["report"] = ProfileReport.from_dict(kw["report"])
        return cls(**kw)
