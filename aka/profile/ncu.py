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
    stalls: dict[str, dict[str, float]] = field(default_factory=dict)
    """Stall reason → value, per family (metrics.STALL_FAMILIES): families are never mixed."""
    rule_shares: dict[str, float] = field(default_factory=dict)
    """Stall reason → share in percent, as the CPIStall rule's text states it."""
    rules: list[ToolRule] = field(default_factory=list)
    sections: set[str] = field(default_factory=set)
    """Names of the sections seen (details and text pages)."""
    page: str = ""
    """'details', 'raw', 'text' or 'rep': where the rows came from."""

    def put(self, short: str, value: float | None) -> None:
        if value is not None and short not in self.metrics:
            self.metrics[short] = value

    def put_stall(self, family: str, reason: str, value: float) -> None:
        self.stalls.setdefault(family, {}).setdefault(reason, value)

    def add_rule(self, rule: ToolRule) -> None:
        if all((r.type, r.name, r.message) != (rule.type, rule.name, rule.message) for r in self.rules):
            self.rules.append(rule)
            found = M.ncu_rule_stall(rule.message)
            if found is not None and found[0] not in self.rule_shares:
                self.put_stall("rule", found[0], found[1])
                self.rule_shares[found[0]] = found[2]


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


def _stall_list(stalls: dict[str, float], total: float | None) -> list[WarpStall]:
    """Top stall reasons with their share of `total` (default: their sum); 'selected' is no stall."""
    total = total or sum(v for v in stalls.values() if v > 0)
    if total <= 0:
        return []
    ranked = sorted(((v, r) for r, v in stalls.items() if r != "selected" and v > 0), reverse=True)
    return [WarpStall(r, v, round(100.0 * v / total, 2)) for v, r in ranked[:TOP_STALLS]]


def _stalls(acc: KernelAcc, cpi: float | None) -> tuple[list[WarpStall], str]:
    """(top stalls, family) from the most trusted family present: per-issue shares are of the warp
    cycles per issued instruction, per-warp and sample shares of the reasons collected, rule shares
    as the rule's text states them."""
    for family in M.STALL_FAMILIES:
        found = acc.stalls.get(family) or {}
        if family == "rule" and found:
            ranked = sorted(found.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_STALLS]
            return [WarpStall(r, v, acc.rule_shares[r]) for r, v in ranked], family
        listed = _stall_list(found, cpi if family == "per-issue" else None)
        if listed:
            return listed, family
    return [], ""


def _stall_note(acc: KernelAcc) -> str:
    """Why a kernel has no stall breakdown (empty when it has one)."""
    if acc.page in ("details", "text") and any(s.replace(" ", "").lower().startswith("warpstatestat")
                                                for s in acc.sections):
        return ("section WarpStateStats was collected, but this page prints only its header: export "
                "the details page with --print-details all, or the raw page, for the per-reason breakdown")
    return "section WarpStateStats not collected"


def _shared_bytes(m: dict[str, float]) -> int | None:
    parts = [m[k] for k in ("static_shared_mem_bytes", "dynamic_shared_mem_bytes") if k in m]
    return int(round(sum(parts))) if parts else None


def _dram_bytes(m: dict[str, float]) -> float | None:
    """dram__bytes.sum, else read + write, else the DRAM bandwidth times the duration (all the
    details page carries without --metrics; ncu derives that bandwidth from the same bytes)."""
    if "dram_bytes" in m:
        return m["dram_bytes"]
    parts = [m[k] for k in ("dram_read_bytes", "dram_write_bytes") if k in m]
    if parts:
        return sum(parts)
    if "dram_bandwidth" in m and "duration_ns" in m:
        return float(round(m["dram_bandwidth"] * m["duration_ns"] * 1e-9))
    return None


def build_kernel(acc: KernelAcc) -> KernelProfile:
    """The normalized record of one ncu kernel launch."""
    m = acc.metrics
    grid = acc.grid or ((int(m["grid_size"]),) if "grid_size" in m else None)
    block = acc.block or ((int(m["block_size"]),) if "block_size" in m else None)
    regs = m.get("registers_per_thread")
    dur = m.get("duration_ns")
    stalls, source = _stalls(acc, m.get("warp_cycles_per_instruction"))
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
        stalls=stalls, stall_source=source, stall_note="" if stalls else _stall_note(acc),
        rules=list(acc.rules), metrics=dict(m),
    )


def _acc_for(accs: dict[str, KernelAcc], row: list[str], cols: dict[str, int], page: str) -> KernelAcc:
    key = cell(row, cols, "ID") or str(len(accs))
    acc = accs.get(key)
    if acc is None:
        acc = KernelAcc(raw_name=(cell(row, cols, "Kernel Name") or "").strip() or "<unnamed>", page=page)
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
    section = (cell(row, cols, "Section Name") or "").strip()
    if section:
        acc.sections.add(section)
    if not label:
        add_metric(acc, name, unit, value)
    elif label.startswith("Warp State") and value is not None:
        # the WarpStateStats chart (--print-details all): cycles per issued instruction per reason
        acc.put_stall("per-issue", M.ncu_stall_label(name), value)


def add_metric(acc: KernelAcc, name: str, unit: str, value: float | None) -> None:
    """Record one metric given by raw counter name or details-page display name."""
    if not name or value is None:
        return
    stall = M.ncu_stall_metric(name)
    if stall is not None:
        acc.put_stall(stall[1], stall[0], value)
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
        _details_row(_acc_for(accs, row, cols, "details"), row, cols)
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
        _raw_row(_acc_for(accs, row, cols, "raw"), header, units, row)
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

