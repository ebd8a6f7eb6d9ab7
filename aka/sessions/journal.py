"""The journal: `events.jsonl`, append-only, one event per line, flushed and synced as it happens.

The first event of a session is its resolved configuration. A crash mid-write leaves a readable
prefix: `read_events` returns every complete line and says what it dropped.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

FORMAT = "aka.journal/1"


@dataclass
class Event:
    """One journal line."""

    seq: int
    time: str
    """UTC, ISO 8601."""
    kind: str
    """setup, profile, retrieve, propose, evaluate, accept, reflect, decide, dropout, stop, config, resume, error."""
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "seq": self.seq, "time": self.time, "kind": self.kind, "data": self.data}


@dataclass
class JournalRead:
    """What reading a journal found."""

    events: list[Event]
    dropped: list[str] = field(default_factory=list)
    """Lines that could not be read (a torn last line after a crash), described."""


class Journal:
    """Appends events to a session's events.jsonl (a hook: `emit(kind, data)`)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.seq = len(read_events(self.path).events) if self.path.exists() else 0
        self._repair()

    def _repair(self) -> None:
        """Cut a torn last line so new events start on a line of their own."""
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            keep = data[: data.rfind(b"\n") + 1]
            with open(self.path, "wb") as f:
                f.write(keep)
                f.flush()
                os.fsync(f.fileno())

    def emit(self, kind: str, data: dict[str, Any]) -> None:
        event = Event(self.seq, datetime.now(timezone.utc).isoformat(timespec="milliseconds"), kind, data)
        line = json.dumps(event.to_dict(), default=str, sort_keys=False) + "\n"
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())
        self.seq += 1


def read_events(path: Path) -> JournalRead:
    """Every complete event of a journal; unreadable lines are reported, not fatal."""
    events, dropped = [], []
    try:
        raw = Path(path).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return JournalRead([], [f"{path}: no journal"])
    lines = raw.split("\n")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            if not isinstance(d, dict):
                raise TypeError(f"a JSON {type(d).__name__}, not an event object")
            if d.get("format") != FORMAT:
                raise ValueError(f"format {d.get('format')!r}")
            events.append(Event(int(d["seq"]), d["time"], d["kind"], d.get("data") or {}))
        except (ValueError, KeyError, TypeError) as exc:
            torn = n == len(lines)
            dropped.append(f"{path}:{n}: {'torn last line' if torn else 'unreadable line'} ({exc})")
    return JournalRead(events, dropped)
