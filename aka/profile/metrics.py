"""One short-name table per vendor: raw counter and display names → aka's short names.

Nothing downstream of the parsers uses a tool's raw names. Values are stored in SI base units
(bytes, seconds, hertz, bytes/second) or percent; `duration_ns` is the one exception, in ns.
"""

from __future__ import annotations

import re

# Nsight Compute raw-page metric names (and `--metrics` names on the details page).
NCU_RAW: dict[str, str] = {
    "gpu__time_duration.sum": "duration_ns",
    "dram__bytes.sum": "dram_bytes",
    "dram__bytes_read.sum": "dram_read_bytes",
    "dram__bytes_write.sum": "dram_write_bytes",
    "dram__bytes.sum.per_second": "dram_bandwidth",
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed": "dram_throughput_pct",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram_throughput_pct",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": "memory_throughput_pct",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "sm_throughput_pct",
    "l1tex__t_sector_hit_rate.pct": "l1_hit_rate_pct",
    "lts__t_sector_hit_rate.pct": "l2_hit_rate_pct",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved_occupancy_pct",
    "sm__maximum_warps_per_active_cycle_pct": "theoretical_occupancy_pct",
    "launch__registers_per_thread": "registers_per_thread",
    "launch__shared_mem_per_block_static": "static_shared_mem_bytes",
    "launch__shared_mem_per_block_dynamic": "dynamic_shared_mem_bytes",
    "launch__grid_size": "grid_size",
    "launch__block_size": "block_size",
    "launch__waves_per_multiprocessor": "waves_per_sm",
    "launch__occupancy_limit_registers": "block_limit_registers",
    "launch__occupancy_limit_shared_mem": "block_limit_shared_mem",
    "launch__occupancy_limit_warps": "block_limit_warps",
    "launch__occupancy_limit_blocks": "block_limit_blocks",
    "launch__occupancy_limit_barriers": "block_limit_barriers",
    "smsp__average_warps_active_per_inst_executed.ratio": "warp_cycles_per_instruction",
    "sm__inst_executed.avg.pct_of_peak_sustained_elapsed": "issue_slots_busy_pct",
    "gpc__cycles_elapsed.max": "elapsed_cycles",
}

# Nsight Compute details-page display names; a '%' unit gets ' [%]' appended to the key.
NCU_DETAILS: dict[str, str] = {
    "Duration": "duration_ns",
    "DRAM Throughput [%]": "dram_throughput_pct",
    "Memory Throughput [%]": "memory_throughput_pct",
    "Memory Throughput": "dram_bandwidth",
    "Compute (SM) Throughput [%]": "sm_throughput_pct",
    "L1/TEX Cache Throughput [%]": "l1_throughput_pct",
    "L2 Cache Throughput [%]": "l2_throughput_pct",
    "L1/TEX Hit Rate [%]": "l1_hit_rate_pct",
    "L2 Hit Rate [%]": "l2_hit_rate_pct",
    "Achieved Occupancy [%]": "achieved_occupancy_pct",
    "Theoretical Occupancy [%]": "theoretical_occupancy_pct",
    "Registers Per Thread": "registers_per_thread",
    "Static Shared Memory Per Block": "static_shared_mem_bytes",
    "Dynamic Shared Memory Per Block": "dynamic_shared_mem_bytes",
    "Block Limit Registers": "block_limit_registers",
    "Block Limit Shared Mem": "block_limit_shared_mem",
    "Block Limit Warps": "block_limit_warps",
    "Block Limit SM": "block_limit_blocks",
    "Block Limit Barriers": "block_limit_barriers",
    "Waves Per SM": "waves_per_sm",
    "Elapsed Cycles": "elapsed_cycles",
    "SM Frequency": "sm_frequency_hz",
    "DRAM Frequency": "dram_frequency_hz",
    "Warp Cycles Per Issued Instruction": "warp_cycles_per_instruction",
    "Issue Slots Busy [%]": "issue_slots_busy_pct",
    "Mem Busy [%]": "mem_busy_pct",
    "Executed Ipc Active": "ipc_active",
}

# Occupancy limiters, in the order ties are broken.
NCU_LIMITERS = ("registers", "shared_mem", "warps", "barriers", "blocks")

# Warp-stall metrics, one pattern per family; the families count in different units, so a
# breakdown never mixes them (see STALL_FAMILIES).
_NCU_STALL = {
    # cycles a warp waits on the reason per issued instruction (WarpStateStats, the raw page)
    "per-issue": re.compile(r"^smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio$"),
    # stall cycles per warp over its lifetime; `--metrics` without a suffix expands the name into
    # .ratio, .pct (the ratio x 100) and .max_rate columns: only .ratio is the number
    "per-warp": re.compile(r"^smsp__average_warp_latency_issue_stalled_(\w+?)(?:\.ratio)?$"),
    # PC-sampling counts (SourceCounters)
    "samples": re.compile(r"^smsp__pcsamp_warps_issue_stalled_(\w+?)$"),
}
STALL_FAMILIES = ("per-issue", "per-warp", "samples", "rule")
"""Where a stall breakdown can come from, most trusted first: per-issue cycles (shares of the warp
cycles per issued instruction), per-warp stall cycles, PC samples, and the reasons Nsight Compute's
CPIStall rule flagged in its text (the only stall data on a details page printed without
--print-details all)."""


# One name per stall reason: the PC-sampling metrics spell some reasons differently from the
# per-issue averages (smsp__pcsamp_warps_issue_stalled_no_instructions vs ..._no_instruction_...).
_STALL_ALIASES = {"no_instructions": "no_instruction"}


def ncu_stall_metric(raw_name: str) -> tuple[str, str] | None:
    """(reason, family) of a raw stall metric name, e.g. ('long_scoreboard', 'per-issue'), or None."""
    for family, pattern in _NCU_STALL.items():
        m = pattern.match(raw_name)
        if m:
            reason = m.group(1)
            if reason.endswith("_not_issued"):
                return None
            return _STALL_ALIASES.get(reason, reason), family
    return None


def ncu_stall_reason(raw_name: str) -> str | None:
    """'long_scoreboard' from a raw stall metric name, or None."""
    found = ncu_stall_metric(raw_name)
    return found[0] if found else None


def ncu_stall_label(label: str) -> str:
    """'long_scoreboard' from a details-page label such as 'Stall Long Scoreboard'."""
    s = re.sub(r"^Stall\s+", "", label.strip())
    reason = re.sub(r"[^a-z0-9]+", "_", s.lower()).strip("_")
    return _STALL_ALIASES.get(reason, reason)


# Nsight Compute's CPIStall rule names the reason in prose ("... spends 22.0 cycles being stalled
# waiting for a scoreboard dependency on a L1TEX (local, global, surface, texture) operation ...
# This stall type represents about 60.4% of the total average of 36.4 cycles ..."). The phrases
# that identify each reason, checked in order (the L1TEX and MIO scoreboards share words).
NCU_RULE_STALL_PHRASES: tuple[tuple[str, str], ...] = (
    ("scoreboard dependency on a l1tex", "long_scoreboard"),
    ("scoreboard dependency on an mio", "short_scoreboard"),
    ("scoreboard dependency on a mio", "short_scoreboard"),
    ("cta barrier", "barrier"),
    ("mio (memory input/output) instruction queue", "mio_throttle"),
    ("(lg) memory operations", "lg_throttle"),
    ("queue for texture operations", "tex_throttle"),
    ("math execution pipeline", "math_pipe_throttle"),
    ("fixed latency execution dependency", "wait"),
    ("memory barrier", "membar"),
    ("branch target", "branch_resolving"),
    ("immediate constant cache", "imc_miss"),
    ("instruction cache miss", "no_instruction"),
    ("dispatch stall", "dispatch_stall"),
    ("memory instructions to complete", "drain"),
    ("micro scheduler", "not_selected"),
)
_RULE_STALL = re.compile(
    r"spends ([\d.,]+) cycles being stalled (.+?)\. .*?represents about ([\d.,]+)% of the total average",
    flags=re.IGNORECASE | re.DOTALL)


def ncu_rule_stall(message: str) -> tuple[str, float, float] | None:
    """(reason, cycles, share %) from the text of a CPIStall rule, or None when it names none known."""
    m = _RULE_STALL.search(message)
    if not m:
        return None
    text = m.group(2).lower()
    reason = next((r for phrase, r in NCU_RULE_STALL_PHRASES if phrase in text), None)
    if reason is None:
        return None
    return reason, float(m.group(1).replace(",", "")), float(m.group(3).replace(",", ""))


# AMD counters (rocprof v1/v2/v3, rocprof-compute pmc_perf) → aka short names (raw units kept).
AMD: dict[str, str] = {
    "FETCH_SIZE": "fetch_kib",
    "WRITE_SIZE": "write_kib",
    "VALUBusy": "valu_busy_pct",
    "VALUUtilization": "valu_utilization_pct",
    "MemUnitBusy": "mem_unit_busy_pct",
    "MemUnitStalled": "mem_unit_stalled_pct",
    "Occupancy": "occupancy_waves_per_cu",
    "LDSBankConflict": "lds_bank_conflict_pct",
    "SQ_LDS_BANK_CONFLICT": "lds_bank_conflict_cycles",
    "SQ_WAVES": "waves",
    "SQ_INSTS_VALU": "valu_instructions",
    "SQ_INSTS_LDS": "lds_instructions",
    "GRBM_GUI_ACTIVE": "gpu_busy_cycles",
    "L2CacheHit": "l2_hit_rate_pct",
}

# The AMD counters kept in KernelProfile.amd_counters (the ones that matter for a proposer).
AMD_KEPT = ("FETCH_SIZE", "WRITE_SIZE", "VALUBusy", "MemUnitBusy", "Occupancy", "LDSBankConflict",
            "SQ_LDS_BANK_CONFLICT", "SQ_WAVES", "L2CacheHit")

# omniperf / rocprof-compute "System Speed-of-Light" analysis rows → short names (PoP column).
OMNIPERF_SOL: dict[str, str] = {
    "VALU Util": "valu_busy_pct",
    "L2 Cache Hit Rate": "l2_hit_rate_pct",
    "Vector L1D Cache Hit Rate": "l1_hit_rate_pct",
    "L2-Fabric Read BW": "dram_read_throughput_pct",
    "L2-Fabric Write BW": "dram_write_throughput_pct",
    "Wave Occupancy": "achieved_occupancy_pct",
    "VALU FLOPs": "valu_flops_pct",
}


def amd_short(counters: dict[str, float]) -> dict[str, float]:
    """aka short names for the AMD counters present."""
    return {AMD[k]: v for k, v in counters.items() if k in AMD}
