"""Datasheet peaks of the GPUs aka knows, and matching a device name to them.

Figures are the vendors' datasheet numbers for dense (non-sparse) math; sources in
docs/hardware.md. They are physical limits, not achievable rates: `aka doctor --calibrate`
measures those.
"""

from __future__ import annotations

from dataclasses import dataclass, field

T = 1e12


@dataclass(frozen=True)
class DeviceSpec:
    """One GPU model's datasheet limits."""

    key: str
    name: str
    vendor: str
    arch: str
    bandwidth: float
    """Peak device-memory bandwidth, bytes/s."""
    flops: dict[str, float] = field(default_factory=dict)
    """Dense peak FLOP/s per compute dtype."""
    match: tuple[str, ...] = ()
    """Lower-case substrings that must all appear in the reported device name."""
    units: int = 0
    """SMs (NVIDIA) or CUs (AMD)."""
    llc_bytes: int = 0
    """A last-level cache beyond the L2 that the runtime does not report (MI300X's Infinity Cache)."""

    def peak_flops(self, dtype: str) -> float:
        if dtype in self.flops:
            return self.flops[dtype]
        raise KeyError(f"no datasheet FLOP/s for {dtype} on {self.name}")


def _nv(bf16: float, fp32: float, fp8: float | None = None, fp64: float | None = None,
        tf32: float | None = None) -> dict[str, float]:
    d = {"bfloat16": bf16 * T, "float16": bf16 * T, "float32": fp32 * T}
    if fp8:
        d["float8_e4m3fn"] = d["float8_e5m2"] = fp8 * T
    if fp64:
        d["float64"] = fp64 * T
    if tf32:
        d["tf32"] = tf32 * T
    d["int8"] = (fp8 or bf16 * 2) * T
    return d


DEVICES: tuple[DeviceSpec, ...] = (
    DeviceSpec("h200", "NVIDIA H200 SXM", "nvidia", "sm90", 4.8 * T,
               _nv(989.4, 66.9, 1978.9, 33.5, 494.7), ("h200",), 132),
    DeviceSpec("h100-pcie", "NVIDIA H100 PCIe", "nvidia", "sm90", 2.0 * T,
               _nv(756.0, 51.2, 1513.0, 25.6, 378.0), ("h100", "pcie"), 114),
    DeviceSpec("h100", "NVIDIA H100 SXM", "nvidia", "sm90", 3.35 * T,
               _nv(989.4, 66.9, 1978.9, 33.5, 494.7), ("h100",), 132),
    DeviceSpec("b200", "NVIDIA B200", "nvidia", "sm100", 8.0 * T,
               _nv(2250.0, 80.0, 4500.0, 40.0, 1100.0), ("b200",), 148),
    DeviceSpec("a100-40gb", "NVIDIA A100 40GB", "nvidia", "sm80", 1.555 * T,
               _nv(312.0, 19.5, None, 9.7, 156.0), ("a100", "40gb"), 108),
    DeviceSpec("a100", "NVIDIA A100 80GB", "nvidia", "sm80", 2.039 * T,
               _nv(312.0, 19.5, None, 9.7, 156.0), ("a100",), 108),
    DeviceSpec("l40s", "NVIDIA L40S", "nvidia", "sm89", 0.864 * T,
               _nv(362.05, 91.6, 733.0, None, 183.0), ("l40s",), 142),
    DeviceSpec("mi300x", "AMD Instinct MI300X", "amd", "gfx942", 5.3 * T,
               _nv(1307.4, 163.4, 2614.9, 81.7, 653.7), ("mi300x",), 304, llc_bytes=256 * 2**20),
    DeviceSpec("mi250x", "AMD Instinct MI250X", "amd", "gfx90a", 3.2768 * T,
               _nv(383.0, 47.9, None, 47.9, None), ("mi250x",), 220),
)


def lookup(device_name: str) -> DeviceSpec | None:
    """The table entry whose match words all appear in the name (first match wins), or None."""
    low = device_name.lower()
    for spec in DEVICES:
        if all(m in low for m in spec.match):
            return spec
    return None
