"""Nsight Systems `nsys stats` kernel summaries (cuda_gpu_kern_sum, older gpukernsum) → ProfileReport."""

from __future__ import annotations

from pathlib import Path

from aka.errors import ProfileParseError
from aka.profile.textio import cell, columns, integer, number, read_text, simplify_name, table
from aka.spec.profile import KernelProfile, ProfileReport

_TOTAL = ("Total Time (ns)", "Total Time", "Total Time (nsec)")
_AVG = ("Avg (ns)", "Average (ns)", "Average", "Avg")
_TIME_PCT = ("Time (%)", "Time(%)")


def _is_kern_sum(cells: list[str]) -> bool:
    low = {c.lower() for c in cells}
    return "instances" in low and "name" in low and any(t.lower() in low for t in _TOTAL)


class NsysKernSumParser:
    """`nsys stats --report cuda_gpu_kern_sum --format csv` (and the older `gpukernsum`)."""

    name = "nsys-kern-sum"
    expects = "an 'nsys stats' cuda_gpu_kern_sum / gpukernsum CSV"

    def can_handle(self, path: Path, head: str) -> bool:
        lines = head.splitlines()[:50]
        return any(_is_kern_sum([c.strip() for c in line.split(",")]) for line in lines if "," in line)

    def parse(self, path: Path) -> ProfileReport:
        p = str(path)
        header, rows = table(read_text(path), _is_kern_sum, p, "nsys kernel-summary")
        cols = columns(header)
        kernels = []
        for row in rows:
            if len(row) < len(header):
                continue
            raw = (cell(row, cols, "Name") or "").strip()
            total, avg = number(cell(row, cols, *_TOTAL)), number(cell(row, cols, *_AVG))
            if not raw or total is None:
                continue
            n = integer(cell(row, cols, "Instances")) or 1
            k = KernelProfile(name=simplify_name(raw), raw_name=raw, launches=n,
                              duration_ns=avg if avg is not None else total / n, total_duration_ns=total)
            pct = number(cell(row, cols, *_TIME_PCT))
            k.metrics = {"duration_ns": k.duration_ns, "total_duration_ns": total}
            if pct is not None:
                k.metrics["time_share_pct"] = pct
            for key, names in (("min_duration_ns", ("Min (ns)", "Minimum")), ("max_duration_ns", ("Max (ns)", "Maximum"))):
                v = number(cell(row, cols, *names))
                if v is not None:
                    k.metrics[key] = v
            kernels.append(k)
        if not kernels:
            raise ProfileParseError(p, "nsys kernel summary has a header but no kernel rows")
        return ProfileReport(tool="nsys", source_files=[p], kernels=kernels, format="cuda_gpu_kern_sum")
