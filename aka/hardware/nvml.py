"""Device information through NVML (nvidia-ml-py), as a plain dict; pynvml is imported lazily."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

# NVML clock-event (throttle) reason bits, from nvml.h.
THROTTLE_REASONS = {
    0x1: "gpu_idle", 0x2: "applications_clocks_setting", 0x4: "sw_power_cap", 0x8: "hw_slowdown",
    0x10: "sync_boost", 0x20: "sw_thermal_slowdown", 0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown", 0x100: "display_clock_setting",
}


def throttle_names(mask: int | None) -> list[str]:
    """Names of the reason bits set in an NVML clock-event mask."""
    if not mask:
        return []
    return [name for bit, name in THROTTLE_REASONS.items() if mask & bit]


def peak_bandwidth_gbs(mem_clock_mhz: float | None, bus_width_bits: float | None) -> float | None:
    """Peak DRAM bandwidth in GB/s: memory clock x 2 (double data rate) x bus width in bytes."""
    if not mem_clock_mhz or not bus_width_bits:
        return None
    return round(mem_clock_mhz * 1e6 * 2 * bus_width_bits / 8 / 1e9, 1)


def _normalize(raw: dict[str, Any]) -> dict[str, Any]:
    """The aka device dict from NVML numbers (clocks MHz, power mW, temperature C)."""
    power, limit = raw.get("power_mw"), raw.get("limit_mw")
    cc = raw.get("cc")
    return {
        "available": True, "vendor": "nvidia", "name": raw.get("name"),
        "driver": raw.get("driver"),
        "compute_capability": f"{cc[0]}.{cc[1]}" if cc else None,
        "sm_clock_mhz": raw.get("clk_sm"), "mem_clock_mhz": raw.get("clk_mem"),
        "max_sm_clock_mhz": raw.get("max_sm"), "max_mem_clock_mhz": raw.get("max_mem"),
        "memory_bus_width_bits": raw.get("bus_bits"),
        "peak_dram_bandwidth_gbs": peak_bandwidth_gbs(raw.get("max_mem"), raw.get("bus_bits")),
        "memory_total_bytes": raw.get("mem_total"),
        "power_w": None if power is None else power / 1000, "power_limit_w": None if limit is None else limit / 1000,
        "temperature_c": raw.get("temp_c"), "pstate": raw.get("pstate"),
        "throttle_reasons": throttle_names(raw.get("reasons")),
    }


def _query(nv, h) -> dict[str, Any]:
    """Raw NVML numbers for the device behind handle `h` (each optional query may be unsupported)."""
    calls = {
        "name": lambda: nv.nvmlDeviceGetName(h), "driver": nv.nvmlSystemGetDriverVersion,
        "cc": lambda: nv.nvmlDeviceGetCudaComputeCapability(h),
        "clk_sm": lambda: nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM),
        "clk_mem": lambda: nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_MEM),
        "max_sm": lambda: nv.nvmlDeviceGetMaxClockInfo(h, nv.NVML_CLOCK_SM),
        "max_mem": lambda: nv.nvmlDeviceGetMaxClockInfo(h, nv.NVML_CLOCK_MEM),
        "bus_bits": lambda: nv.nvmlDeviceGetMemoryBusWidth(h),
        "power_mw": lambda: nv.nvmlDeviceGetPowerUsage(h),
        "limit_mw": lambda: nv.nvmlDeviceGetEnforcedPowerLimit(h),
        "temp_c": lambda: nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU),
        "reasons": lambda: nv.nvmlDeviceGetCurrentClocksThrottleReasons(h),
        "pstate": lambda: nv.nvmlDeviceGetPerformanceState(h),
        "mem_total": lambda: nv.nvmlDeviceGetMemoryInfo(h).total,
    }
    out: dict[str, Any] = {}
    for key, call in calls.items():
        try:
            value = call()
        except (nv.NVMLError, AttributeError):
            continue
        out[key] = value.decode() if isinstance(value, bytes) else value
    return out


def visible_device() -> int | str | None:
    """The device CUDA calls 0 in this process, as NVML knows it: the first entry of
    CUDA_VISIBLE_DEVICES (an index, or a 'GPU-...'/'MIG-...' UUID), NVML's index 0 when the
    variable is unset, None when it hides every GPU (empty, -1, or nothing CUDA can parse). NVML
    numbers devices physically and ignores the variable, so a batch worker pinned to GPU 3 must
    ask for 3."""
    value = os.environ.get("CUDA_VISIBLE_DEVICES")
    if value is None:
        return 0
    first = value.split(",")[0].strip()
    if first.isdigit():
        return int(first)
    return first if first.startswith(("GPU-", "MIG-")) else None


def device_info(index: int | str | None = None) -> dict[str, Any]:
    """NVML facts for GPU `index` (an NVML index or a UUID; by default the device this process's
    CUDA sees first), or {'available': False, 'reason': ...} without NVML or a GPU."""
    which = visible_device() if index is None else index
    if which is None:
        return {"available": False, "reason": "CUDA_VISIBLE_DEVICES hides every GPU from this process"}
    try:
        import pynvml as nv
    except ImportError:
        return {"available": False, "reason": "nvidia-ml-py (pynvml) is not installed"}
    try:
        nv.nvmlInit()
    except nv.NVMLError as exc:
        return {"available": False, "reason": f"NVML could not start (no NVIDIA driver or GPU?): {exc}"}
    try:
        if isinstance(which, str):
            handle = nv.nvmlDeviceGetHandleByUUID(which)
        elif which >= nv.nvmlDeviceGetCount():
            return {"available": False, "reason": f"no NVIDIA GPU with index {which}"}
        else:
            handle = nv.nvmlDeviceGetHandleByIndex(which)
        return _normalize(_query(nv, handle))
    except nv.NVMLError as exc:
        return {"available": False, "reason": f"NVML query failed for GPU {which}: {exc}"}
    finally:
        try:
            nv.nvmlShutdown()
        except nv.NVMLError:
            pass


def read_fixture(path: str | Path) -> dict[str, Any]:
    """The device dict from a saved NVML query: a JSON object, possibly followed by other text."""
    text = Path(path).read_text(errors="replace")
    start = text.find("{")
    if start < 0:
        raise ValueError(f"{path}: no JSON object found")
    raw, _ = json.JSONDecoder().raw_decode(text[start:])
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: the JSON document is not an object")
    return _normalize(raw)
