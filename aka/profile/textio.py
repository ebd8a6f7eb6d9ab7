"""Shared reading helpers: safe text, CSV tables found among noise, numbers, units, kernel names.

A CSV table cut off mid-row (its last row short of the header's fields, or ending inside a quoted
field) loses that row, never silently: `table` drops it and says so through `warn`, which
`registry.parse_file` collects into the report's `warnings`.
"""

from __future__ import annotations

import contextlib
import csv
import io
import re
import warnings
from contextvars import ContextVar
from pathlib import Path
from typing import Iterator

from aka.errors import ProfileParseError

MAX_BYTES = 256 * 1024 * 1024
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_MISSING = {"", "n/a", "na", "nan", "no data", "-", "none", "null"}
_PREFIX = {"n": 1e-9, "u": 1e-6, "m": 1e-3, "": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_BASES = {"byte": "byte", "bytes": "byte", "b": "byte", "second": "second", "s": "second", "hz": "hz"}
_CLONE = re.compile(r"(\s*\[clone [^\]]*\]|\s*\(\.kd\)|\.kd)+$")
_MANGLED_PART = re.compile(r"(\d+)")
_ANON = re.compile(r"\(anonymous namespace\)::|<?unnamed>::")
_NAME_COLUMNS = ("Kernel Name", "KernelName", "Kernel_Name", "Name")
_ID_COLUMNS = ("ID", "Dispatch_Id", "Dispatch_ID", "Index", "Correlation_Id")
_METRIC_COLUMNS = ("Metric Name", "Counter_Name")
_SINK: ContextVar[list[str] | None] = ContextVar("aka_profile_warnings", default=None)


@contextlib.contextmanager
def collecting_warnings() -> Iterator[list[str]]:
    """Collect what `warn` says while parsing (registry.parse_file puts it in the report)."""
    sink: list[str] = []
    token = _SINK.set(sink)
    try:
        yield sink
    finally:
        _SINK.reset(token)


def warn(message: str) -> None:
    """A reading problem the report must carry; outside `collecting_warnings`, a Python warning."""
    sink = _SINK.get()
    if sink is None:
        warnings.warn(message, stacklevel=2)
    elif message not in sink:
        sink.append(message)


def read_text(path: str | Path) -> str:
    """The file decoded as UTF-8 (bad bytes replaced); ProfileParseError when unreadable or binary."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ProfileParseError(str(p), f"cannot read the file ({exc.strerror or exc})") from None
    if len(data) > MAX_BYTES:
        raise ProfileParseError(str(p), f"file is larger than {MAX_BYTES // 2**20} MiB")
    if b"\x00" in data[:65536]:
        raise ProfileParseError(str(p), "binary data where a text/CSV profiler output was expected")
    return data.decode("utf-8", errors="replace").replace("\x00", "")


def find_header(lines: list[str], pred, limit: int = 400) -> int | None:
    """Index of the first line (within `limit`) whose parsed CSV cells satisfy `pred`."""
    for i, line in enumerate(lines[:limit]):
        if "," not in line:
            continue
        try:
            cells = next(csv.reader([line]))
        except (csv.Error, StopIteration):
            continue
        if pred([c.strip() for c in cells]):
            return i
    return None


def table(text: str, pred, path: str, what: str) -> tuple[list[str], list[list[str]]]:
    """Header and data rows of the first CSV table whose header satisfies `pred`, noise skipped;
    a last row cut off mid-row is dropped with a warning naming it."""
    lines = text.splitlines()
    start = find_header(lines, pred)
    if start is None:
        raise ProfileParseError(path, f"no {what} header found")
    try:
        numbered = _numbered_rows(lines[start:])
    except csv.Error as exc:
        raise ProfileParseError(path, f"malformed CSV in {what}: {exc}") from None
    header = [c.strip() for c in numbered[0][1]]
    data = [(n, r) for n, r in numbered[1:] if any(c.strip() for c in r)]
    if data:
        n, last = data[-1]
        widths = [len(r) for _, r in data[:-1] if len(r) >= 2]
        cut = _cut_off(last, lines[start + n - 1:], min(widths, default=len(header)),
                       text.endswith(("\n", "\r")))
        if cut:
            data.pop()
            warn(f"{path}: line {start + n}: the last {what} row looks cut off ({cut}); dropped that "
                 f"row: {_which(header, last)}")
    return header, [r for _, r in data]


def _numbered_rows(lines: list[str]) -> list[tuple[int, list[str]]]:
    """CSV rows with the (1-based) line in `lines` where each starts."""
    reader = csv.reader(io.StringIO("\n".join(lines), newline=""))
    out, first = [], 1
    for row in reader:
        out.append((first, row))
        first = reader.line_num + 1
    return out


def _cut_off(row: list[str], raw: list[str], width: int, ends_with_newline: bool) -> str:
    """Why the table's last row may be incomplete ('' when it is whole). Profilers end every line
    with a newline, so a file that stops inside its last row was cut there: that row ends inside a
    quoted field, has fewer fields than the table's rows (`width`: the narrowest other row, as ncu
    omits the rule columns on metric rows), or may have lost the end of its last value — unless that
    value is a closed quoted field. A trailing noise line ('==PROF== ...') is no row."""
    try:
        list(csv.reader(io.StringIO("\n".join(raw), newline=""), strict=True))
    except csv.Error as exc:
        if "end of data" in str(exc):
            return f"{len(row)} of {width} fields, the last one an unterminated quoted field"
    if ends_with_newline or (len(row) == 1 and row[0].lstrip().startswith("==")):
        return ""
    if len(row) < width:
        return f"{len(row)} of {width} fields"
    if raw[-1].rstrip().endswith('"'):
        return ""
    return f"the file stops inside it, without a newline, so its last value {row[-1]!r} may be cut"


def _which(header: list[str], row: list[str]) -> str:
    """What a dropped row was about: its kernel (saying when the name itself is cut), id and metric."""
    cols = columns(header)
    said = []
    for label, names in (("kernel", _NAME_COLUMNS), ("id", _ID_COLUMNS), ("metric", _METRIC_COLUMNS)):
        i = next((cols[n.lower()] for n in names if n.lower() in cols), None)
        if i is None or i >= len(row) or not row[i].strip():
            if label == "kernel":
                said.append("its kernel name is missing" if i is not None else "no kernel column")
            continue
        value = row[i].strip()
        partial = i == len(row) - 1   # the last field that survived may itself be cut
        if label == "kernel":
            said.append(f"kernel {value!r}" + (" (its name is cut off there, so it is not kept)" if partial else ""))
        elif not partial:
            said.append(f"{header[i]} {value}")
    return ", ".join(said)


def columns(header: list[str]) -> dict[str, int]:
    """Lower-cased column name → index (first occurrence wins)."""
    out: dict[str, int] = {}
    for i, name in enumerate(header):
        out.setdefault(name.strip().lower(), i)
    return out


def cell(row: list[str], cols: dict[str, int], *names: str) -> str | None:
    """The first present column among `names` (case-insensitive), or None."""
    for name in names:
        i = cols.get(name.lower())
        if i is not None and i < len(row):
            return row[i]
    return None


def number(text: str | None) -> float | None:
    """A number from ncu/rocprof text: thousands separators, 'n/a', trailing lists tolerated."""
    if text is None:
        return None
    s = str(text).strip().replace(",", "")
    if s.lower() in _MISSING:
        return None
    m = _NUMBER.match(s)
    if not m:
        return None
    try:
        v = float(m.group(0))
    except (ValueError, OverflowError):
        return None
    return v if v == v and abs(v) != float("inf") else None


def integer(text: str | None) -> int | None:
    """`number` rounded to an int, or None."""
    v = number(text)
    return None if v is None else int(round(v))


def si_factor(unit: str) -> tuple[float, str]:
    """Factor to SI base units and the base ('byte', 'second', 'hz', 'byte/second' or unit as-is)."""
    u = (unit or "").strip()
    num, _, den = u.partition("/")
    m = re.fullmatch(r"([numkKMGTP]?)(byte|bytes|second|hz|s)", num, flags=re.IGNORECASE)
    if not m:
        if num.lower() in ("ns", "us", "ms", "usecond", "nsecond", "msecond"):
            m = re.fullmatch(r"([num])(s|second)", num.lower())
        if not m:
            return 1.0, u
    prefix, base = m.group(1), _BASES[m.group(2).lower()]
    if prefix not in _PREFIX:
        prefix = prefix.upper() if prefix.upper() in _PREFIX else ""
    factor = _PREFIX[prefix]
    if den:
        dm = re.fullmatch(r"([numkKMGT]?)(second|s)", den)
        if dm:
            return factor / _PREFIX.get(dm.group(1), 1.0), f"{base}/second"
        return factor, f"{base}/{den}"
    return factor, base


def to_si(value: float | None, unit: str) -> float | None:
    """`value` in `unit` converted to SI base units (bytes, seconds, hertz, bytes per second)."""
    if value is None:
        return None
    return value * si_factor(unit)[0]


def dims(text: str | None) -> tuple[int, ...] | None:
    """'(256, 1, 1)' or '256' → a tuple of ints, or None."""
    if not text:
        return None
    parts = [integer(p) for p in re.split(r"[,x\s]+", text.strip().strip("()[]")) if p]
    if not parts or any(p is None or p < 0 for p in parts):
        return None
    return tuple(p for p in parts if p is not None)


def _cut_enclosed(s: str, open_: str, close: str) -> str:
    """Drop one trailing balanced `open_ ... close` group from `s` (if `s` ends with `close`)."""
    if not s.endswith(close):
        return s
    depth = 0
    for i in range(len(s) - 1, -1, -1):
        if s[i] == close:
            depth += 1
        elif s[i] == open_:
            depth -= 1
            if depth == 0:
                return s[:i].rstrip()
    return s


def _last_token(s: str) -> str:
    """The last space-separated token at bracket depth 0 (drops a leading return type)."""
    depth, cut = 0, 0
    for i, ch in enumerate(s):
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth = max(depth - 1, 0)
        elif ch == " " and depth == 0:
            cut = i + 1
    return s[cut:]


def demangle(name: str) -> str:
    """A minimal Itanium demangle of the qualified function name (`_Z3foo...` → 'foo')."""
    if not name.startswith("_Z"):
        return name
    s, parts = name[2:], []
    nested = s.startswith("N")
    s = s[1:] if nested else s
    s = re.sub(r"^[rVK]+", "", s)
    while s and s[0].isdigit():
        m = _MANGLED_PART.match(s)
        n = int(m.group(1))
        s = s[m.end():]
        parts.append(s[:n])
        s = s[n:]
        if not nested:
            break
    return "::".join(parts) if parts else name


def _balanced(s: str) -> bool:
    depth = 0
    for ch in s:
        depth += ch in "<([" or -(ch in ">)]")
        if depth < 0:
            return False
    return depth == 0


def simplify_name(raw: str) -> str:
    """A kernel name every tool agrees on: demangled, without return type, templates, params."""
    s = demangle(raw.strip())
    s = _CLONE.sub("", s).strip()
    s = _ANON.sub("", s)
    cut = s
    for _ in range(3):
        before = cut
        cut = _cut_enclosed(_cut_enclosed(cut, "(", ")"), "<", ">")
        if cut == before:
            break
    out = _last_token(cut)
    if not _balanced(out):
        out = _last_token(re.split(r"[<(]", s, maxsplit=1)[0].strip())
    out = re.sub(r"^(void|static|__global__)\s+", "", out)
    return out or raw.strip()
