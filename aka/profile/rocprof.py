"""AMD rocprof v1/v2/v3 and rocprof-compute (omniperf) CSV outputs → ProfileReport."""

from __future__ import annotations

import re
from pathlib import Path

from aka.errors import ProfileParseError
from aka.profile.amd import Dispatch, aggregate, fix_unquoted, is_counter, sibling_sysinfo
from aka.profile.textio import cell, columns, dims, integer, number, read_text, simplify_name, table
from aka.spec.profile import KernelProfile, ProfileReport

_NAME = ("KernelName", "Kernel_Name")
_API_NAME = re.compile(r"^(hip|hsa|Copy|__hip)[A-Za-z0-9_]*$")
_API_FILE = re.compile(r"(hip_stats|hsa_stats|copy_stats|api_stats|domain_stats|memory_copy)", re.IGNORECASE)


def _header_cells(head: str, limit: int = 20) -> list[list[str]]:
    out = []
    for line in head.splitlines()[:limit]:
        if "," in line:
            out.append([c.strip().strip('"').lower() for c in line.split(",")])
    return out


def _is_stats(cells: list[str]) -> bool:
    low = [c.lower() for c in cells]
    v1 = low[:4] == ["name", "calls", "totaldurationns", "averagens"]
    top = low[:4] == ["kernel_name", "count", "sum(ns)", "mean(ns)"]
    return v1 or top


def _is_trace(cells: list[str]) -> bool:
    low = {c.lower() for c in cells}
    named = "kernelname" in low or "kernel_name" in low
    return named and bool(low & {"index", "dispatch_id", "kind"}) and "counter_name" not in low


def _is_counter_collection(cells: list[str]) -> bool:
    low = {c.lower() for c in cells}
    return {"kernel_name", "counter_name", "counter_value"} <= low


def _stats_kernel(row: list[str], cols: dict[str, int]) -> KernelProfile | None:
    raw = (cell(row, cols, "Name", "Kernel_Name") or "").strip()
    total = number(cell(row, cols, "TotalDurationNs", "Sum(ns)"))
    calls = integer(cell(row, cols, "Calls", "Count")) or 1
    avg = number(cell(row, cols, "AverageNs", "Mean(ns)"))
    if not raw or total is None:
        return None
    k = KernelProfile(name=simplify_name(raw), raw_name=raw, launches=calls,
                      duration_ns=avg if avg is not None else total / calls, total_duration_ns=total)
    k.metrics = {"duration_ns": k.duration_ns, "total_duration_ns": total}
    for key, names in (("time_share_pct", ("Percentage", "Pct")), ("min_duration_ns", ("MinNs",)),
                       ("max_duration_ns", ("MaxNs",)), ("median_duration_ns", ("Median(ns)",))):
        v = number(cell(row, cols, *names))
        if v is not None:
            k.metrics[key] = v
    return k


class RocprofStatsParser:
    """Per-kernel statistics: rocprof v1 results.stats.csv, rocprofv3 kernel_stats, *_kernel_top.csv."""

    name = "rocprof-stats"
    expects = "a rocprof results.stats.csv / rocprofv3 kernel_stats.csv"

    def can_handle(self, path: Path, head: str) -> bool:
        return any(_is_stats(c) for c in _header_cells(head, 5))

    def parse(self, path: Path) -> ProfileReport:
        p = str(path)
        if _API_FILE.search(path.name):
            raise ProfileParseError(p, "these are HIP/HSA API or copy statistics, not kernel statistics; "
                                       "expected results.stats.csv or kernel_stats.csv")
        header, rows = table(read_text(path), _is_stats, p, "rocprof kernel-statistics")
        cols = columns(header)
        name_idx = cols.get("name", cols.get("kernel_name", 0))
        kernels = [k for r in rows if (k := _stats_kernel(fix_unquoted(r, len(header), name_idx), cols))]
        if not kernels:
            raise ProfileParseError(p, "kernel statistics header found but no kernel rows")
        if all(_API_NAME.match(k.raw_name) for k in kernels):
            raise ProfileParseError(p, "rows name HIP/HSA API calls, not kernels; expected kernel statistics")
        tool = "rocprofv3" if "minns" in cols else ("rocprof-compute" if "sum(ns)" in cols else "rocprof")
        return ProfileReport(tool=tool, source_files=[p], kernels=kernels, format="kernel-stats")


def _xyz(row: list[str], cols: dict[str, int], stem: str, *flat: str) -> tuple[int, ...] | None:
    parts = [integer(cell(row, cols, f"{stem}_{a}")) for a in "XYZ"]
    if all(p is not None for p in parts):
        return tuple(p for p in parts if p is not None)
    return dims(cell(row, cols, *flat))


def _duration(row: list[str], cols: dict[str, int]) -> float | None:
    d = number(cell(row, cols, "DurationNs"))
    if d is not None:
        return d
    start, end = number(cell(row, cols, "BeginNs", "Start_Timestamp")), number(cell(row, cols, "EndNs", "End_Timestamp"))
    return end - start if start is not None and end is not None and end > start else None


def _dispatch(row: list[str], cols: dict[str, int]) -> Dispatch:
    return Dispatch(
        raw_name=(cell(row, cols, *_NAME) or "").strip(),
        duration_ns=_duration(row, cols),
        grid=_xyz(row, cols, "Grid_Size", "grd", "Grid_Size"),
        block=_xyz(row, cols, "Workgroup_Size", "wgr", "Workgroup_Size"),
        lds_bytes=integer(cell(row, cols, "lds", "LDS_Per_Workgroup", "LDS_Block_Size", "Group_Segment_Size")),
        vgprs=integer(cell(row, cols, "arch_vgpr", "vgpr", "Arch_VGPR", "VGPR_Count")),
    )


def _tool_of(cols: dict[str, int], path: Path, ncounters: int) -> str:
    if "kind" in cols:
        return "rocprofv3"
    if "beginns" in cols or "index" in cols:
        return "rocprof"
    if "pmc_perf" in path.name or ncounters > 100:
        return "rocprof-compute"
    return "rocprofv2"


def _finish(p: Path, dispatches: list[Dispatch], tool: str, fmt: str) -> ProfileReport:
    timed = any(d.duration_ns for d in dispatches)
    counted = any(d.counters or d.grid for d in dispatches)
    if not dispatches:
        raise ProfileParseError(str(p), f"{fmt} header found but no kernel dispatch rows")
    if not timed and not counted:
        raise ProfileParseError(str(p), "dispatch list without timings, counters or launch sizes (rocprof-compute "
                                        "pmc_dispatch_info.csv?); expected pmc_perf.csv or a kernel trace")
    device = sibling_sysinfo(p)
    cus = integer(str(device.get("cu_count"))) if device else None
    xcds = integer(str(device.get("xcd_count"))) if device else None
    return ProfileReport(tool=tool, source_files=[str(p)], kernels=aggregate(dispatches, cus, xcds),
                         format=fmt, device=device)


class RocprofTraceParser:
    """Per-dispatch rows: rocprof v1 results.csv, rocprofv2 CSV, rocprofv3 kernel_trace, pmc_perf.csv."""

    name = "rocprof-trace"
    expects = "a rocprof results.csv / rocprofv2 CSV / rocprofv3 kernel_trace.csv / pmc_perf.csv"

    def can_handle(self, path: Path, head: str) -> bool:
        return any(_is_trace(c) for c in _header_cells(head, 5))

    def parse(self, path: Path) -> ProfileReport:
        header, rows = table(read_text(path), _is_trace, str(path), "rocprof dispatch")
        cols = columns(header)
        counter_idx = [(i, h) for i, h in enumerate(header) if is_counter(h)]
        name_idx = cols.get("kernelname", cols.get("kernel_name", 0))
        dispatches = []
        for raw in rows:
            row = fix_unquoted(raw, len(header), name_idx)
            if len(row) != len(header) or not (cell(row, cols, *_NAME) or "").strip():
                continue
            d = _dispatch(row, cols)
            if cell(row, cols, "Kind") not in (None, "KERNEL_DISPATCH"):
                continue
            d.counters = {h: v for i, h in counter_idx if (v := number(row[i])) is not None}
            dispatches.append(d)
        return _finish(path, dispatches, _tool_of(cols, path, len(counter_idx)), "kernel-trace")


class RocprofCounterCollectionParser:
    """rocprofv3 counter_collection.csv: one row per (dispatch, counter), old and new layouts."""

    name = "rocprofv3-counters"
    expects = "a rocprofv3 counter_collection.csv"

    def can_handle(self, path: Path, head: str) -> bool:
        return any(_is_counter_collection(c) for c in _header_cells(head, 5))

    def parse(self, path: Path) -> ProfileReport:
        header, rows = table(read_text(path), _is_counter_collection, str(path), "rocprofv3 counter collection")
        cols = columns(header)
        by_dispatch: dict[str, Dispatch] = {}
        for row in rows:
            if len(row) != len(header) or not (cell(row, cols, "Kernel_Name") or "").strip():
                continue
            key = cell(row, cols, "Dispatch_Id", "Correlation_Id") or str(len(by_dispatch))
            d = by_dispatch.setdefault(key, _dispatch(row, cols))
            counter, value = (cell(row, cols, "Counter_Name") or "").strip(), number(cell(row, cols, "Counter_Value"))
            if counter and value is not None:
                d.counters[counter] = d.counters.get(counter, 0.0) + value
        return _finish(path, list(by_dispatch.values()), "rocprofv3", "counter-collection")
