"""Nsight Compute human-readable output (details or raw page) and .ncu-rep reports → ProfileReport."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from aka.errors import ProfileParseError
from aka.profile.ncu import KernelAcc, add_metric, build_kernel, make_rule, parse_details, parse_raw
from aka.profile.textio import dims, number, read_text
from aka.spec.profile import KernelProfile, ProfileReport

_KERNEL = re.compile(
    r"^\s{2}(\S.*?) (\(\d+, \d+, \d+\))x(\(\d+, \d+, \d+\)), Context \d+, Stream \d+, Device \d+, CC [\d.]+\s*$"
)
_SECTION = re.compile(r"^\s+Section: (.+?)\s*$")
_DASHES = re.compile(r"^\s*-+( +-+)+\s*$")
_RULE = re.compile(r"^\s{4}(OPT|WRN|INF)\s{2,}(.*)$")
_SPEEDUP = re.compile(r"^Est\. (Local |Global )?Speedup: ([\d.,]+)%")


def head_has_ncu_text(head: str) -> bool:
    """Whether the text looks like ncu's human output: a kernel line followed by metric tables."""
    return any(_KERNEL.match(line) for line in head.splitlines()[:400]) and "Metric Name" in head


class _TextState:
    """The parser's position: current kernel, table column spans, open rule."""

    def __init__(self) -> None:
        self.kernels: list[KernelAcc] = []
        self.spans: list[tuple[int, int]] | None = None
        self.rows = 0
        self.rule: list[str] | None = None
        self.section = ""

    def close_rule(self) -> None:
        if self.rule and self.kernels:
            kind, *text = self.rule
            body = " ".join(" ".join(text).split())
            m = _SPEEDUP.match(body)
            speedup, stype = (m.group(2), (m.group(1) or "").strip().lower()) if m else (None, "")
            body = body[m.end():].strip() if m else body
            rule = make_rule(kind, self.section, body, speedup, stype)
            if rule is not None:
                self.kernels[-1].add_rule(rule)
        self.rule = None


def _spans(line: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"-+", line)]


def _table_row(st: _TextState, line: str) -> None:
    spans = st.spans or []
    parts = [line[a:b].strip() if i < len(spans) - 1 else line[a:].strip() for i, (a, b) in enumerate(spans)]
    if len(parts) < 3 or parts[0] == "Metric Name" or not st.kernels:
        return
    st.rows += 1
    add_metric(st.kernels[-1], parts[0], parts[1], number(parts[-1]))


def _text_line(st: _TextState, line: str) -> None:
    km = _KERNEL.match(line)
    if km:
        st.close_rule()
        st.kernels.append(KernelAcc(raw_name=km.group(1).strip(), grid=dims(km.group(2)), block=dims(km.group(3)),
                                    page="text"))
        st.spans = None
    elif _DASHES.match(line) and st.rule is not None:
        st.close_rule()
    elif _DASHES.match(line):
        st.spans, st.rows = (None, 0) if (st.spans and st.rows) else (_spans(line), 0)
    elif not line.strip() or line.startswith("=="):
        st.close_rule()
        st.spans = None if st.rows else st.spans
    elif st.spans is not None:
        _table_row(st, line)
    elif (sm := _SECTION.match(line)) is not None:
        st.close_rule()
        st.section = sm.group(1)
        if st.kernels:
            st.kernels[-1].sections.add(st.section)
    elif (rm := _RULE.match(line)) is not None:
        st.close_rule()
        st.rule = [rm.group(1), rm.group(2)]
    elif st.rule is not None and line.startswith(" " * 10):
        st.rule.append(line.strip())


def parse_text(path: str, text: str) -> list[KernelProfile]:
    """Kernels of ncu's human-readable details or raw page."""
    st = _TextState()
    for line in text.splitlines():
        _text_line(st, line)
    st.close_rule()
    if not st.kernels:
        raise ProfileParseError(path, "no kernel lines found in the Nsight Compute text output")
    return [build_kernel(a) for a in st.kernels]


class NcuTextParser:
    """Nsight Compute human-readable output (`ncu --page details|raw` without --csv)."""

    name = "ncu-text"
    expects = "Nsight Compute text output ('ncu --page details' or '--page raw')"

    def can_handle(self, path: Path, head: str) -> bool:
        return head_has_ncu_text(head) and '"ID","Process ID"' not in head

    def parse(self, path: Path) -> ProfileReport:
        kernels = parse_text(str(path), read_text(path))
        return ProfileReport(tool="ncu", source_files=[str(path)], kernels=kernels, format="text")


def _import_ncu_report():
    """The `ncu_report` module, looked up next to `ncu` when not importable; None if absent."""
    try:
        import ncu_report  # type: ignore[import-not-found]

        return ncu_report
    except ImportError:
        pass
    exe = shutil.which("ncu")
    dirs = [Path(exe).resolve().parent / "extras" / "python"] if exe else []
    dirs += sorted(Path("/opt/nvidia/nsight-compute").glob("*/extras/python"), reverse=True)
    extras = next((d for d in dirs if (d / "ncu_report.py").is_file()), None)
    if extras is None:
        return None
    sys.path.append(str(extras))
    try:
        import ncu_report  # type: ignore[import-not-found]

        return ncu_report
    except ImportError:
        return None


def _action_kernel(action) -> KernelProfile:
    """One ncu_report action (a kernel launch) as a KernelProfile."""
    try:
        raw = action.name(action.NameBase_DEMANGLED)
    except (AttributeError, TypeError):
        raw = action.name()
    acc = KernelAcc(raw_name=str(raw), page="rep")
    for name in action.metric_names():
        metric = action.metric_by_name(name)
        try:
            value = float(metric.as_double())
        except (TypeError, ValueError):
            continue
        add_metric(acc, str(name), str(metric.unit() or ""), value)
    grid = [action.metric_by_name(f"launch__grid_dim_{a}") for a in "xyz"]
    block = [action.metric_by_name(f"launch__block_dim_{a}") for a in "xyz"]
    if all(grid):
        acc.grid = tuple(int(g.as_uint64()) for g in grid)
    if all(block):
        acc.block = tuple(int(b.as_uint64()) for b in block)
    return build_kernel(acc)


def _via_module(module, path: str) -> list[KernelProfile]:
    ctx = module.load_report(path)
    kernels = []
    for i in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(i)
        kernels.extend(_action_kernel(rng.action_by_idx(j)) for j in range(rng.num_actions()))
    return kernels


def _via_module_isolated(path: str) -> list[KernelProfile]:
    """Read the report with ncu_report in a child process: its native code can crash on a
    truncated or corrupt file, and that must become a ProfileParseError, not a dead process."""
    cmd = [sys.executable, "-c", "import sys; from aka.profile.ncu_text import _child_main; _child_main(sys.argv[1])", path]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode < 0 or (done.returncode != 0 and "Fatal Python error" in done.stderr):
        raise ProfileParseError(path, "Nsight Compute's ncu_report crashed reading this file: it is "
                                      "probably truncated or corrupt (expected a complete .ncu-rep)")
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or [""]
        raise ProfileParseError(path, f"ncu_report could not read this file: {tail[0][:300]}")
    try:
        return [KernelProfile.from_dict(k) for k in json.loads(done.stdout)]
    except (ValueError, TypeError, KeyError) as exc:
        raise ProfileParseError(path, f"unexpected output from the ncu_report reader: {exc}") from None


def _child_main(path: str) -> None:
    """Entry point of the isolated reader: kernels of one .ncu-rep as JSON on stdout."""
    module = _import_ncu_report()
    kernels = _via_module(module, path)
    sys.stdout.write(json.dumps([k.to_dict() for k in kernels]))


def _via_cli(exe: str, path: str) -> list[KernelProfile]:
    def page(name: str) -> str:
        cmd = [exe, "--import", path, "--csv", "--page", name]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0:
            raise ProfileParseError(path, f"'{' '.join(cmd)}' failed: {done.stderr.strip()[:300]}")
        return done.stdout

    kernels = parse_raw(path, page("raw"))
    details = parse_details(path, page("details"))
    for k, d in zip(kernels, details):
        k.rules = d.rules
    return kernels


class NcuRepParser:
    """Nsight Compute binary reports (.ncu-rep), read through ncu_report or `ncu --import`."""

    name = "ncu-rep"
    expects = "an Nsight Compute report (.ncu-rep)"

    def can_handle(self, path: Path, head: str) -> bool:
        return path.suffix == ".ncu-rep" or head.startswith("NVR\x00")

    def parse(self, path: Path) -> ProfileReport:
        p = str(path)
        module = _import_ncu_report()
        exe = shutil.which("ncu")
        if module is not None:
            kernels, how = _via_module_isolated(p), "ncu-rep (ncu_report)"
        elif exe is not None:
            kernels, how = _via_cli(exe, p), "ncu-rep (ncu --import)"
        else:
            raise ProfileParseError(p, "reading a .ncu-rep needs Nsight Compute: install it so that the "
                                       "'ncu_report' Python module or 'ncu' is on PATH, or export CSV with "
                                       "'ncu --import FILE --csv --page raw'")
        return ProfileReport(tool="ncu", source_files=[p], kernels=kernels, format=how)
