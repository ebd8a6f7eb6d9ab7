"""The ordered parser registry: one `can_handle` match wins, none or several is a ProfileParseError."""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Protocol

from aka.errors import ProfileParseError
from aka.profile.ncu import NcuCsvParser
from aka.profile.ncu_text import NcuRepParser, NcuTextParser
from aka.profile.nsys import NsysKernSumParser
from aka.profile.rocprof import RocprofCounterCollectionParser, RocprofStatsParser, RocprofTraceParser
from aka.profile.summary import finish
from aka.profile.textio import collecting_warnings
from aka.spec.profile import ProfileReport

HEAD_BYTES = 64 * 1024


class ProfileParser(Protocol):
    """A parser of one profiler output format."""

    name: str
    expects: str

    def can_handle(self, path: Path, head: str) -> bool: ...

    def parse(self, path: Path) -> ProfileReport: ...


def parsers() -> list[ProfileParser]:
    """Every parser, in registry order."""
    return [NcuCsvParser(), NcuTextParser(), NcuRepParser(), NsysKernSumParser(),
            RocprofStatsParser(), RocprofTraceParser(), RocprofCounterCollectionParser()]


# Known files that are not profiles: (pattern in the head, what the file is).
_NOT_PROFILES = [
    (r"^==ERROR==.*$", "Nsight Compute reported an error instead of results: {0}"),
    (r"^Identifier\s+Display Name\s+Enabled", "an 'ncu --list-sections' listing, not a profile"),
    (r"^Identifier\s+Sections\s+Enabled", "an 'ncu --list-sets' listing, not a profile"),
    (r"Nsight Compute Command Line Profiler", "'ncu --version' output, not a profile"),
    (r"^==PROF== Report: (.*)$", "ncu progress output only; the results are in the report {0}"),
    (r"^==PROF== ", "ncu progress output without results (was --csv or --page given?)"),
    (r"^IContext \[", "a listing of the ncu_report module's API, not a profile"),
    (r"^workload_name,", "a rocprof-compute / omniperf sysinfo.csv (system information), not a profile"),
    (r"^\{\s*$", "a JSON document (device information?), not a profiler output"),
    (r"^(Omniperf|Rocprofiler-Compute) version", "a rocprof-compute / omniperf log, not a profile"),
    (r"rocprofv3 interface is deprecated", "a rocprof-compute log, not a profile"),
    (r"^GPU\s+:\s*\d+\s*$", "a 'rocprofv3 --list-avail' listing, not a profile"),
    (r"^device,HBMBw,", "a rocprof-compute roofline.csv (device peaks), not a profile"),
    (r'^"?Kind"?,"?Direction"?', "a rocprofv3 memory_copy_trace.csv (copies, not kernels)"),
    (r'^"?Guid"?,"?Domain"?,"?Function"?', "a rocpd API trace (host calls, not kernels)"),
    (r"^Dispatch_ID,Kernel_Name,GPU_ID\s*$", "a rocprof-compute pmc_dispatch_info.csv (no timings or counters); pass pmc_perf.csv"),
    (r"^Metric,Value,Unit,Peak,PoP", "an omniperf analysis table (derived numbers); pass the raw pmc_perf.csv"),
    (r"^\w+:\s", "a text/YAML file, not a profiler output"),
]


def _expected() -> str:
    return "; ".join(p.expects for p in parsers())


def diagnose(head: str) -> str:
    """Why a file that no parser takes is not a profile (as specific as the head allows)."""
    if not head.strip():
        return "the file is empty; expected " + _expected()
    for pattern, what in _NOT_PROFILES:
        m = re.search(pattern, head, flags=re.MULTILINE)
        if m:
            return what.format(m.group(m.lastindex or 0).strip()) + "; expected " + _expected()
    return "not a recognized profiler output; expected " + _expected()


def read_head(path: Path) -> str:
    """The first 64 KiB of the file as text; ProfileParseError when it cannot be read."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(HEAD_BYTES)
    except OSError as exc:
        raise ProfileParseError(str(path), f"cannot read the file ({exc.strerror or exc})") from None
    return data.decode("utf-8", errors="replace")


def detect(path: str | Path) -> ProfileParser:
    """The one parser whose `can_handle` accepts the file."""
    p = Path(path)
    head = read_head(p)
    matches = [parser for parser in parsers() if parser.can_handle(p, head)]
    if not matches:
        raise ProfileParseError(str(p), diagnose(head))
    if len(matches) > 1:
        names = ", ".join(m.name for m in matches)
        raise ProfileParseError(str(p), f"ambiguous: several parsers accept this file ({names})")
    return matches[0]


def parse_file(path: str | Path) -> ProfileReport:
    """Parse any supported profiler output into a ProfileReport with bottleneck and summary."""
    p = Path(path)
    parser = detect(p)
    with collecting_warnings() as notes:
        try:
            report = parser.parse(p)
        except ProfileParseError as exc:
            if not notes:
                raise
            raise ProfileParseError(exc.path, f"{exc.message} ({'; '.join(notes)})") from None
        except (ValueError, KeyError, IndexError, TypeError, ZeroDivisionError, OverflowError, csv.Error) as exc:
            raise ProfileParseError(str(p), f"malformed {parser.name} file ({type(exc).__name__}: {exc}); "
                                            f"expected {parser.expects}") from None
    if not report.kernels:
        said = f" ({'; '.join(notes)})" if notes else ""
        raise ProfileParseError(str(p), f"no kernels found; expected {parser.expects}{said}")
    report.warnings += [n for n in notes if n not in report.warnings]
    return finish(report)
