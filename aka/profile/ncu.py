"""Nsight Compute CSV output (details page and raw page) → ProfileReport."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from aka.errors import ProfileParseError
from aka.profile import metrics as M
from aka.profile.textio import cell, columns, dims, number, read_text, si_factor, simplify_name, table
from aka.spec.profile import KernelProfile, ProfileReport, ToolRule, WarpStall

TOP_STALLS = 5
_IDENTITY = ("ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
             "Block Size", "Grid Size", "Device", "CC")


def is_ncu_header(cells: list[str]) -> bool:
    """An ncu CSV header: starts with ID, Process ID and names the kernel."""
    return len(cells) > 4 and cells[0] == "ID" and cells[1] == "Process ID" and "Kernel Name" in cells


def head_has_ncu_csv(head: str) -> bool:
    """Whether the text contains an ncu CSV header line."""
    return re.search(r'^"ID","Process ID",.*"Kernel Name"', head, flags=re.MULTILINE) is not None


def convert(short: str, value: float | None, unit: str) -> float | None:
    """A value in `unit` converted for the short name (SI base units; durations in ns)."""
    if value is None:
        return None
    factor, base = si_factor(unit)
    v = value * factor
    if short.endswith("_ns") and base == "second":
        v *= 1e9
    return round(v, 6)


@dataclass
class KernelAcc:
    """What one kernel launch has gathered while its rows are read."""

    raw_name: str
    grid: tuple[int, ...] | None = None
    block: tuple[int, ...] | None = None
    metrics: dict[str, float] = field(default_factory=dict)
    stalls: dict[str, float] = field(default_factory=dict)
    rules: list[ToolRule] = field(default_factory=list)

    def put(self, short: str, value: float | None) -> None:
        if value is not None and short not in self.metrics:
            self.metrics[short] = value

    def add_rule(self, rule: ToolRule) -> None:
        if all((r.type, r.name, r.message) != (rule.type, rule.name, rule.message) for r in self.rules):
            self.rules.append(rule)


def make_rule(kind: str, name: str, message: str, speedup: str | None, speedup_type: str) -> ToolRule | None:
    """A ToolRule when `kind` is OPT/WRN/INF, else None."""
    kind = (kind or "").strip().upper()
    if kind not in ("OPT", "WRN", "INF"):
        return None
    text = " ".join((message or "").split())
    return ToolRule(kind, (name or "").strip(), text, number(speedup), (speedup_type or "").strip())


def _limiter(m: dict[str, float]) -> str | None:
    """The occupancy limiter: the resource allowing the fewest blocks per SM."""
    limits = [(m[f"block_limit_{n}"], i, n) for i, n in enumerate(M.NCU_LIMITERS) if f"block_limit_{n}" in m]
    return min(limits)[2] if limits else None


def _stall_list(stalls: dict[str, float], cpi: float | None) -> list[WarpStall]:
    """Top stall reasons with their share of the warp cycles per instruction ('selected' is no stall)."""
    total = cpi if cpi else sum(v for v in stalls.values() if v > 0)
    if total <= 0:
        return []
    ranked = sorted(((v, r) for r, v in stalls.items() if r != "selected" and v > 0), reverse=True)
    return [WarpStall(r, v, round(100.0 * v / total, 2)) for v, r in ranked[:TOP_STALLS]]


def _shared_bytes(m: dict[str, float]) -> int | None:
    parts = [m[k] for k in ("static_shared_mem_bytes", "dynamic_shared_mem_bytes") if k in m]
    return int(round(sum(parts))) if parts else None


def _dram_bytes(m: dict[str, float]) -> float | None:
    if "dram_bytes" in m:
        return m["dram_bytes"]
    parts = [m[k] for k in ("dram_read_bytes", "dram_write_bytes") if k in m]
    return sum(parts) if parts else None


def build_kernel(acc: KernelAcc) -> KernelProfile:
    """The normalized record of one ncu kernel launch."""
    m = acc.metrics
    grid = acc.grid or ((int(m["grid_size"]),) if "grid_size" in m else None)
    block = acc.block or ((int(m["block_size"]),) if "block_size" in m else None)
    regs = m.get("registers_per_thread")
    dur = m.get("duration_ns")
    return KernelProfile(
        name=simplify_name(acc.raw_name), raw_name=acc.raw_name, launches=1,
        duration_ns=dur, total_duration_ns=dur, grid=grid, block=block,
        registers_per_thread=None if regs is None else int(round(regs)),
        shared_mem_bytes=_shared_bytes(m),
        achieved_occupancy_pct=m.get("achieved_occupancy_pct"),
        theoretical_occupancy_pct=m.get("theoretical_occupancy_pct"),
        occupancy_limiter=_limiter(m), dram_bytes=_dram_bytes(m),
        dram_throughput_pct=m.get("dram_throughput_pct"),
        memory_throughput_pct=m.get("memory_throughput_pct"),
        sm_throughput_pct=m.get("sm_throughput_pct"),
        l1_hit_rate_pct=m.get("l1_hit_rate_pct"), l2_hit_rate_pct=m.get("l2_hit_rate_pct"),
        stalls=_stall_list(acc.stalls, m.get("warp_cycles_per_instruction")), rules=list(acc.rules), metrics=dict(m),
    )


def _acc_for(accs: dict[str, KernelAcc], row: list[str], cols: dict[str, int]) -> KernelAcc:
    key = cell(row, cols, "ID") or str(len(accs))
    acc = accs.get(key)
    if acc is None:
        acc = KernelAcc(raw_name=(cell(row, cols, "Kernel Name") or "").strip() or "<unnamed>")
        acc.grid = dims(cell(row, cols, "Grid Size"))
        acc.block = dims(cell(row, cols, "Block Size"))
        accs[key] = acc
    return acc


def _details_row(acc: KernelAcc, row: list[str], cols: dict[str, int]) -> None:
    rule = make_rule(cell(row, cols, "Rule Type") or "", cell(row, cols, "Rule Name") or "",
                     cell(row, cols, "Rule Description") or "", cell(row, cols, "Estimated Speedup"),
                     cell(row, cols, "Estimated Speedup Type") or "")
    if rule is not None:
        acc.add_rule(rule)
    name = (cell(row, cols, "Metric Name") or "").strip()
    unit = (cell(row, cols, "Metric Unit") or "").strip()
    value = number(cell(row, cols, "Metric Value"))
    label = (cell(row, cols, "Body Item Label") or "").strip()
    if not label:
        add_metric(acc, name, unit, value)
    elif label.startswith("Warp State") and value is not None:
        acc.stalls.setdefault(M.ncu_stall_label(name), value)


def add_metric(acc: KernelAcc, name: str, unit: str, value: float | None) -> None:
    """Record one metric given by raw counter name or details-page display name."""
    if not name or value is None:
        return
    reason = M.ncu_stall_reason(name)
    if reason is not None:
        acc.stalls.setdefault(reason, value)
        return
    short = M.NCU_RAW.get(name) if "__" in name else M.NCU_DETAILS.get(name + (" [%]" if unit == "%" else ""))
    if short:
        acc.put(short, convert(short, value, unit))


def parse_details(path: str, text: str) -> list[KernelProfile]:
    """Kernels of an ncu `--page details --csv` output (sections, rules, body items)."""
    header, rows = table(text, is_ncu_header, path, "Nsight Compute details-page CSV")
    cols = columns(header)
    if "metric name" not in cols:
        raise ProfileParseError(path, "ncu CSV has no 'Metric Name' column (not a details page)")
    accs: dict[str, KernelAcc] = {}
    for row in rows:
        if len(row) < len(_IDENTITY) or not (cell(row, cols, "Kernel Name") or "").strip():
            continue
        _details_row(_acc_for(accs, row, cols), row, cols)
    return [build_kernel(a) for a in accs.values()]


def _raw_row(acc: KernelAcc, header: list[str], units: list[str], row: list[str]) -> None:
    for i, name in enumerate(header):
        if i < len(row) and name not in _IDENTITY:
            add_metric(acc, name, units[i] if i < len(units) else "", number(row[i]))


def parse_raw(path: str, text: str) -> list[KernelProfile]:
    """Kernels of an ncu `--page raw --csv` output (units row, hundreds of metric columns)."""
    header, rows = table(text, is_ncu_header, path, "Nsight Compute raw-page CSV")
    cols = columns(header)
    units: list[str] = []
    if rows and not (cell(rows[0], cols, "ID") or "").strip():
        units, rows = rows[0], rows[1:]
    accs: dict[str, KernelAcc] = {}
    for row in rows:
        if len(row) < len(_IDENTITY) or not (cell(row, cols, "Kernel Name") or "").strip():
            continue
        _raw_row(_acc_for(accs, row, cols), header, units, row)
    return [build_kernel(a) for a in accs.values()]


class NcuCsvParser:
    """Nsight Compute `--csv` output: details page or raw page, noise lines tolerated."""

    name = "ncu-csv"
    expects = "an Nsight Compute CSV ('ncu --csv --page details|raw')"

    def can_handle(self, path: Path, head: str) -> bool:
        return head_has_ncu_csv(head)

    def parse(self, path: Path) -> ProfileReport:
        p = str(path)
        text = read_text(path)
        m = re.search(r'^"ID","Process ID",.*$', text, flags=re.MULTILINE)
        details = m is not None and '"Metric Name"' in m.group(0)
        kernels = parse_details(p, text) if details else parse_raw(p, text)
        fmt = "details-csv" if details else "raw-csv"
        return ProfileReport(tool="ncu", source_files=[p], kernels=kernels, format=fmt)

