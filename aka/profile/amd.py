"""AMD helpers: dispatch aggregation, derived counters (rocprof's formulas), sysinfo.csv device info."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from aka.profile import metrics as M
from aka.profile.textio import number, simplify_name
from aka.spec.profile import KernelProfile

_COUNTER = re.compile(r"^[A-Z][A-Z0-9_]*(_sum)?$")
_NOT_COUNTERS = {"DURATIONNS", "BEGINNS", "ENDNS", "DISPATCHNS", "COMPLETENS", "GPU_ID", "PID", "TID",
                 "SGPR", "XCC_INDEX", "KERNEL_ID", "LDS", "VGPR"}


def is_counter(name: str) -> bool:
    """Whether a column holds a hardware counter (upper-case names, rocprof derived metrics)."""
    return name in M.AMD or (_COUNTER.match(name) is not None and name.upper() not in _NOT_COUNTERS)


def fix_unquoted(row: list[str], width: int, name_idx: int) -> list[str]:
    """Rejoin a kernel name that old rocprof wrote unquoted, so its commas split it into cells."""
    extra = len(row) - width
    if extra <= 0 or name_idx >= len(row):
        return row
    joined = ",".join(row[name_idx:name_idx + extra + 1])
    return row[:name_idx] + [joined] + row[name_idx + extra + 1:]


@dataclass
class Dispatch:
    """One kernel dispatch as any AMD tool records it."""

    raw_name: str
    duration_ns: float | None = None
    grid: tuple[int, ...] | None = None
    block: tuple[int, ...] | None = None
    lds_bytes: int | None = None
    vgprs: int | None = None
    counters: dict[str, float] = field(default_factory=dict)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _derive(c: dict[str, float], cus: int | None, xcds: int | None = None) -> dict[str, float]:
    """FETCH_SIZE, WRITE_SIZE (KiB), L2CacheHit and, with the CU count, the busy percentages.

    On a multi-die GPU (MI300X: 8 XCDs) rocprof-compute sums GRBM_GUI_ACTIVE over the dies, so it
    is divided by the die count (sysinfo's num_xcd) to get the kernel's cycles, as
    rocprof-compute itself does; otherwise every busy percentage comes out that many times low."""
    out = dict(c)
    rd, rd32 = c.get("TCC_EA0_RDREQ_sum", c.get("TCC_EA_RDREQ_sum")), c.get("TCC_EA0_RDREQ_32B_sum", c.get("TCC_EA_RDREQ_32B_sum"))
    wr, wr64 = c.get("TCC_EA0_WRREQ_sum", c.get("TCC_EA_WRREQ_sum")), c.get("TCC_EA0_WRREQ_64B_sum", c.get("TCC_EA_WRREQ_64B_sum"))
    if "FETCH_SIZE" not in c and rd is not None and rd32 is not None:
        out["FETCH_SIZE"] = (rd32 * 32 + (rd - rd32) * 64) / 1024
    if "WRITE_SIZE" not in c and wr is not None and wr64 is not None:
        out["WRITE_SIZE"] = (wr64 * 64 + (wr - wr64) * 32) / 1024
    hit, miss = c.get("TCC_HIT_sum"), c.get("TCC_MISS_sum")
    if "L2CacheHit" not in c and hit is not None and miss is not None and hit + miss > 0:
        out["L2CacheHit"] = 100.0 * hit / (hit + miss)
    gui = c.get("GRBM_GUI_ACTIVE")
    if gui and xcds and xcds > 1:
        gui = gui / xcds
        out["GRBM_GUI_ACTIVE_per_xcd"] = gui
    if cus and gui:
        if "VALUBusy" not in c and "SQ_ACTIVE_INST_VALU" in c:
            out["VALUBusy"] = 100.0 * c["SQ_ACTIVE_INST_VALU"] / cus / gui  # 4 SIMDs per CU, 4 cycles each
        if "MemUnitBusy" not in c and "TA_TA_BUSY_sum" in c:
            out["MemUnitBusy"] = 100.0 * c["TA_TA_BUSY_sum"] / gui / cus
        if "LDSBankConflict" not in c and "SQ_LDS_BANK_CONFLICT" in c:
            out["LDSBankConflict"] = 100.0 * c["SQ_LDS_BANK_CONFLICT"] / gui / cus
        if "Occupancy" not in c and "SQ_ACCUM_PREV_HIRES" in c and "SQ_LEVEL_WAVES" in c:
            out["Occupancy"] = c["SQ_ACCUM_PREV_HIRES"] / gui / cus
    return out


def _kernel_from(name: str, group: list[Dispatch], cus: int | None, xcds: int | None = None) -> KernelProfile:
    first = group[0]
    durs = [d.duration_ns for d in group if d.duration_ns is not None and d.duration_ns > 0]
    keys = {k for d in group for k in d.counters}
    counters = {k: _mean([d.counters[k] for d in group if k in d.counters]) for k in sorted(keys)}
    derived = _derive({k: v for k, v in counters.items() if v is not None}, cus, xcds)
    kept = {k: round(derived[k], 6) for k in M.AMD_KEPT if k in derived}
    short = M.amd_short(derived)
    mean = _mean(durs)
    dram = (derived["FETCH_SIZE"] + derived["WRITE_SIZE"]) * 1024 if {"FETCH_SIZE", "WRITE_SIZE"} <= derived.keys() else None
    metrics = {k: round(v, 6) for k, v in short.items()}
    if mean is not None:
        metrics["duration_ns"] = mean
    return KernelProfile(
        name=simplify_name(name), raw_name=name, launches=len(group), duration_ns=mean,
        total_duration_ns=sum(durs) if durs else None, grid=first.grid, block=first.block,
        registers_per_thread=first.vgprs, shared_mem_bytes=first.lds_bytes, dram_bytes=dram,
        l2_hit_rate_pct=short.get("l2_hit_rate_pct"), amd_counters=kept, metrics=metrics,
    )


def aggregate(dispatches: list[Dispatch], cus: int | None = None, xcds: int | None = None) -> list[KernelProfile]:
    """One KernelProfile per kernel name (first-seen order), counters averaged over its dispatches."""
    groups: dict[str, list[Dispatch]] = {}
    for d in dispatches:
        groups.setdefault(d.raw_name, []).append(d)
    return [_kernel_from(name, group, cus, xcds) for name, group in groups.items()]


_SYSINFO_KEYS = {
    "name": ("gpu_model", "name"), "arch": ("gpu_arch", "gpu_soc"), "cu_count": ("cu_per_gpu", "numcu"),
    "max_sclk_mhz": ("max_sclk", "sclk"), "max_mclk_mhz": ("max_mclk", "mclk"), "cur_sclk_mhz": ("cur_sclk",),
    "cur_mclk_mhz": ("cur_mclk",), "rocm_version": ("rocm_version", "host_rocmver"), "peak_hbm_bw_gbs": ("hbmbw",),
    "l2_bytes_kib": ("gpu_l2", "l2"), "memory_partition": ("memory_partition",), "compute_partition": ("compute_partition",),
    "xcd_count": ("num_xcd",),
}


def read_sysinfo(path: str | Path) -> dict | None:
    """Device facts from an omniperf / rocprof-compute sysinfo.csv, or None when it is not one."""
    try:
        text = Path(path).read_text(errors="replace")
        rows = list(csv.reader(io.StringIO(text)))
    except (OSError, csv.Error):
        return None
    if len(rows) < 2 or "workload_name" not in rows[0]:
        return None
    rec = {h.strip().lower(): v.strip() for h, v in zip(rows[0], rows[1])}
    out: dict = {"vendor": "amd", "source": "sysinfo"}
    for key, names in _SYSINFO_KEYS.items():
        value = next((rec[n] for n in names if rec.get(n)), None)
        if value is not None:
            num = number(value)
            out[key] = num if num is not None and key not in ("name", "arch", "rocm_version") else value
    return out


def sibling_sysinfo(path: Path) -> dict | None:
    """sysinfo.csv next to a rocprof-compute / omniperf output, when there is one."""
    for cand in (path.with_name(path.name.replace("pmc_perf", "sysinfo")), path.with_name("sysinfo.csv")):
        if cand != path and cand.is_file():
            info = read_sysinfo(cand)
            if info is not None:
                info["source"] = str(cand)
                return info
    return None
