"""Reading a session folder for replay: every file it can, read-only, with what is missing said.

A truncated journal, a missing candidate file, an unreadable record or a session written in an
older or unknown format never raise here: what could not be read is listed in `problems`.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aka.errors import InputError
from aka.replay import calls as llm_calls
from aka.sessions.folder import FORMAT as SESSION_FORMAT
from aka.sessions.journal import Event, JournalRead, read_events
from aka.spec.candidate import Candidate
from aka.spec.memory import MemoryRecord
from aka.spec.result import Decision, EvalResult


@dataclass
class Version:
    """One candidate folder (`candidates/vNNN/`) as far as it could be read."""

    name: str
    candidate: Candidate | None = None
    source: str | None = None
    """The file the harness ran (candidate.py), or the record's materialized source."""
    eval: EvalResult | None = None
    decision: Decision | None = None
    profile: str | None = None
    profile_report: dict[str, Any] | None = None


@dataclass
class SessionView:
    """A session as replay sees it: the files, read once, never written."""

    root: Path
    meta: dict[str, Any]
    events: list[Event]
    versions: dict[str, Version]
    memory: list[MemoryRecord]
    baselines: dict[str, Any]
    best: str | None
    llm: list[llm_calls.Call] = field(default_factory=list)
    """The `llm/NNNN.json` calls (request, reply, tokens, cost) when the session used a model."""
    problems: list[str] = field(default_factory=list)
    """What is missing or could not be read, one line each (file and why)."""

    @property
    def id(self) -> str:
        return str(self.meta.get("id") or self.root.name)

    @property
    def op(self) -> str:
        op = self.meta.get("op")
        return str(op.get("name") if isinstance(op, dict) else op or "?")

    @property
    def format(self) -> str | None:
        return self.meta.get("format")

    @property
    def device(self) -> dict[str, Any]:
        """The device the session ran on: from the setup event, else its environment."""
        for e in self.events:
            if e.kind == "setup" and isinstance(e.data.get("device"), dict):
                return dict(e.data["device"], interpreter=e.data.get("interpreter"))
        gpu = (self.meta.get("environment") or {}).get("gpu") or {}
        return {"kind": "cuda" if gpu.get("available") else "unknown", **gpu}

    def spec_path(self) -> str | None:
        """The operator's op.yaml: where the session found it, else the same path under this aka's
        checkout (a session recorded on another machine), else None."""
        op = self.meta.get("op")
        path = op.get("path") if isinstance(op, dict) else None
        if not path:
            return None
        if Path(path).exists():
            return path
        here = Path(__file__).resolve().parents[2]
        parts = Path(path).parts
        for i in range(len(parts)):
            moved = here.joinpath(*parts[i:]) if not Path(*parts[i:]).is_absolute() else None
            if moved is not None and moved.exists():
                return str(moved)
        return path


def load(root: str | Path) -> SessionView:
    """Read the session at ROOT; InputError only when ROOT is no session folder at all."""
    root = Path(root)
    if not root.is_dir():
        raise InputError(f"{root}: no such session folder")
    problems: list[str] = []
    meta = _meta(root, problems)
    if not meta and not (root / "events.jsonl").exists() and not (root / "candidates").is_dir():
        raise InputError(f"{root}: not a session folder (no session.json, events.jsonl or candidates/)")
    journal = _read_journal(root / "events.jsonl")
    problems += journal.dropped
    for e in journal.events:
        if not isinstance(e.data, dict):                 # an odd line: keep it, shaped like the others
            problems.append(f"events.jsonl: event {e.seq} ({e.kind}) carries no data object")
            e.data = {"value": e.data}
    evaluated = set(_referenced_versions(journal.events))
    versions = {v.name: v for v in (_version(d, problems, d.name in evaluated) for d in _version_dirs(root))}
    for name in _referenced_versions(journal.events):
        if name not in versions:
            problems.append(f"candidates/{name}/: missing (the journal evaluated it)")
            versions[name] = Version(name)
    view = SessionView(root=root, meta=meta, events=journal.events, versions=dict(sorted(versions.items())),
                       memory=_memory(root, problems), baselines=_json(root / "baselines.json", problems, {}) or {},
                       best=_best(root), llm=llm_calls.read(root, journal.events, problems), problems=problems)
    if view.best and view.best not in view.versions:
        problems.append(f"best/VERSION: names {view.best}, which has no candidates/{view.best}/ folder")
    return view


def _read_journal(path: Path) -> JournalRead:
    """The journal's readable events; a line that is JSON but no event object (which
    `read_events` itself does not expect) is reported and skipped like any unreadable line."""
    try:
        return read_events(path)
    except (AttributeError, TypeError):
        pass
    good, dropped = [], []
    lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
    for n, line in enumerate(lines, 1):
        try:
            if not isinstance(json.loads(line), dict):
                dropped.append(f"{path}:{n}: unreadable line (not a JSON object)")
                line = ""                                 # blank: later line numbers stay true
        except ValueError:
            pass
        good.append(line)
    with tempfile.TemporaryDirectory(prefix="aka-replay-") as tmp:   # never rewrite the session's file
        copy = Path(tmp) / "events.jsonl"
        copy.write_text("\n".join(good), encoding="utf-8")
        read = read_events(copy)
    return JournalRead(read.events, dropped + [d.replace(str(copy), str(path)) for d in read.dropped])


def _meta(root: Path, problems: list[str]) -> dict[str, Any]:
    data = _json(root / "session.json", problems, None)
    if data is None:
        return {}
    if not isinstance(data, dict):
        problems.append("session.json: not a JSON object")
        return {}
    fmt = data.get("format")
    if fmt != SESSION_FORMAT:
        problems.append(f"session.json: format {fmt!r} (this aka writes {SESSION_FORMAT!r}); "
                        "showing what can be read")
    return data


def _json(path: Path, problems: list[str], default: Any) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        problems.append(f"{path.name}: missing")
    except (OSError, ValueError) as exc:
        problems.append(f"{path.name}: unreadable ({exc})")
    return default


def _version_dirs(root: Path) -> list[Path]:
    d = root / "candidates"
    return sorted(p for p in d.glob("v*") if p.is_dir()) if d.is_dir() else []


def _referenced_versions(events: list[Event]) -> list[str]:
    return [e.data["version"] for e in events if e.kind == "evaluate" and isinstance(e.data.get("version"), str)]


def _version(d: Path, problems: list[str], evaluated: bool) -> Version:
    v = Version(d.name)
    rel = f"candidates/{d.name}"
    v.candidate = _record(d / "candidate.json", Candidate.from_dict, f"{rel}/candidate.json", problems)
    try:
        v.source = (d / "candidate.py").read_text(encoding="utf-8")
    except OSError:
        problems.append(f"{rel}/candidate.py: missing")
        if v.candidate is not None:
            try:
                v.source = v.candidate.materialize()
            except Exception:  # noqa: BLE001 - a record whose parameters no longer apply: no source
                v.source = v.candidate.source
    if evaluated or (d / "eval.json").exists():
        v.eval = _record(d / "eval.json", EvalResult.from_dict, f"{rel}/eval.json", problems)
    else:
        problems.append(f"{rel}/eval.json: not written yet (the evaluation is in flight or was interrupted)")
    if (d / "decision.json").is_file():
        v.decision = _record(d / "decision.json", Decision.from_dict, f"{rel}/decision.json", problems)
    if (d / "profile.txt").is_file():
        v.profile = (d / "profile.txt").read_text(encoding="utf-8", errors="replace")
    if (d / "profile.json").is_file():
        v.profile_report = _json(d / "profile.json", problems, None)
    return v


def _record(path: Path, parse, label: str, problems: list[str]):
    try:
        return parse(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        problems.append(f"{label}: missing")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        problems.append(f"{label}: unreadable ({type(exc).__name__}: {exc})")
    return None


def _memory(root: Path, problems: list[str]) -> list[MemoryRecord]:
    out = []
    for f in sorted((root / "memory").glob("m*.json")) if (root / "memory").is_dir() else []:
        rec = _record(f, MemoryRecord.from_dict, f"memory/{f.name}", problems)
        if rec is not None:
            out.append(rec)
    return out


def _best(root: Path) -> str | None:
    f = root / "best" / "VERSION"
    try:
        return f.read_text().strip() or None
    except OSError:
        return None

