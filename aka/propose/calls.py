"""Recorded LLM calls: `llm/NNNN.json` in the session folder, one file per call, written as it
happens, so replay can show them and a resumed run reuses a call it already paid for.

A call is keyed by the sha256 of its model and request messages; the same request again (a
resumed run re-proposing from the same context) is answered from the file, not from the model.
Nothing secret is written: the model string, the endpoint's address, the messages, the reply and
its figures, never a key or a header.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

FORMAT = "aka.llm-call/1"


def request_key(model: str, messages: list[dict[str, str]]) -> str:
    blob = json.dumps({"model": model, "messages": messages}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


@dataclass
class CallRecord:
    """One request to a model and what came back."""

    n: int
    """1, 2, ... in the order sent (the file is llm/NNNN.json)."""
    key: str
    """`request_key(model, messages)`."""
    model: str
    messages: list[dict[str, str]]
    reply: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    """From litellm's local cost map; 0 for models it does not price (local servers)."""
    latency_s: float = 0.0
    """Wall time of the successful attempt."""
    attempts: int = 1
    """Attempts it took (transient errors retried with backoff)."""
    retries: list[str] = field(default_factory=list)
    """One line per failed attempt: the error and the wait before the next (Retry-After or backoff)."""
    api_base: str | None = None
    purpose: str = "propose"
    """'propose' or 'repair'."""
    epoch: int = 0
    """Dropouts before the call: a dropout starts a new conversation."""
    candidate: str = ""
    """Hash of the candidate taken from the reply ('' when it held no usable code)."""
    extraction: str = ""
    """How the code was found in the reply, or why none was usable."""
    finish_reason: str = ""

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "CallRecord":
        names = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass
class Spend:
    """What the calls so far cost."""

    calls: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    reused: int = 0
    """Calls answered from the session's records instead of the model."""

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "cost_usd": round(self.cost_usd, 6), "latency_s": round(self.latency_s, 3)}


@dataclass
class CallLog:
    """The calls of one session: a folder of `NNNN.json` files (or memory only when `root` is None)."""

    root: Path | None = None
    records: list[CallRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.root is not None:
            self.root = Path(self.root)
            for f in sorted(self.root.glob("[0-9]*.json")):
                try:
                    data = json.loads(f.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    continue                                   # a torn write: the call is made again
                if data.get("format") == FORMAT:
                    self.records.append(CallRecord.from_dict(data))

    def find(self, key: str) -> CallRecord | None:
        return next((r for r in self.records if r.key == key), None)

    def by_candidate(self, candidate_hash: str) -> CallRecord | None:
        """The (latest) call whose reply gave this candidate."""
        return next((r for r in reversed(self.records) if r.candidate == candidate_hash), None)

    def next_n(self) -> int:
        return max((r.n for r in self.records), default=0) + 1

    def add(self, record: CallRecord) -> None:
        self.records.append(record)
        self._write(record)

    def update(self, record: CallRecord) -> None:
        """Rewrite a record (the candidate its reply gave, once known)."""
        self._write(record)

    def spend(self) -> Spend:
        s = Spend()
        for r in self.records:
            s.calls += 1
            s.tokens += r.tokens
            s.cost_usd += r.cost_usd
            s.latency_s += r.latency_s
        return s

    def _write(self, record: CallRecord) -> None:
        if self.root is None:
            return
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / f"{record.n:04d}.json"
        tmp = path.with_name(f".{path.name}.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(record.to_dict(), f, indent=1, ensure_ascii=False)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
