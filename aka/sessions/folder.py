"""A session folder: `sessions/<UTC yyyymmdd-hhmmss>-<op>/`, the loop's store and its lock.

    session.json          format, id, operator, resolved config, environment (device, versions, commit)
    events.jsonl          the journal (sessions/journal.py)
    checkpoint.sqlite     LangGraph's checkpoint: --resume continues from the last completed node
    baselines.json        baseline timings per (shape, timing method), timed once per session
    candidates/vNNN/      candidate.json (record), candidate.py (the file run), eval.json,
                          decision.json, profile.txt / profile.json
    memory/mNNN.json      memory records (masked ones marked, never deleted)
    llm/NNNN.json         every model request and reply with tokens, cost and latency (LLM proposer)
    best/                 the winning kernel: candidate.py, candidate.json, eval.json (and
                          confirmed.json: its end-of-session evaluation, baselines interleaved)
    report.md             written when the run stops

Every JSON file is written to a temporary name and renamed into place, so a crash leaves the old
file or the new one, never half of one.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from aka.errors import InputError
from aka.spec.candidate import Candidate
from aka.spec.memory import MemoryRecord
from aka.spec.result import Decision, EvalResult

FORMAT = "aka.session/1"
ID = re.compile(r"^\d{8}-\d{6}-[A-Za-z0-9_.-]+$")


def new_id(op_name: str, now: datetime | None = None) -> str:
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{re.sub(r'[^A-Za-z0-9_.-]', '_', op_name)}"


def resolve(session: str | Path, sessions_dir: Path) -> Path:
    """SESSION is a folder path or an id under `sessions_dir`."""
    p = Path(session)
    for candidate in (p, sessions_dir / str(session)):
        if (candidate / "session.json").is_file():
            return candidate
    raise InputError(f"{session}: no session folder (looked at {p} and {sessions_dir / str(session)}; "
                     "a session folder holds session.json)")


def write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, default=str)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


class SessionFolder:
    """The files of one session; implements the agent's `Store`."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._lock = None

    # --- life cycle -------------------------------------------------------------------------
    @classmethod
    def create(cls, sessions_dir: Path, session_id: str, meta: dict[str, Any]) -> "SessionFolder":
        root = Path(sessions_dir) / session_id
        root.mkdir(parents=True, exist_ok=False)
        folder = cls(root)
        for sub in ("candidates", "memory", "best"):
            (root / sub).mkdir()
        write_json(root / "session.json", {"format": FORMAT, "id": session_id, **meta})
        return folder

    def meta(self) -> dict[str, Any]:
        data = read_json(self.root / "session.json")
        if data.get("format") != FORMAT:
            raise InputError(f"{self.root / 'session.json'}: format {data.get('format')!r}, expected {FORMAT!r}")
        return data

    def lock(self) -> None:
        """Hold the session for this process; a second `aka optimize` on it is refused."""
        from filelock import FileLock, Timeout

        lock = FileLock(str(self.root / ".lock"))
        try:
            lock.acquire(timeout=0)
        except Timeout:
            raise InputError(f"{self.root}: the session is in use by another aka process "
                             "(wait for it to finish, or stop it first)") from None
        self._lock = lock

    @property
    def locked(self) -> bool:
        return self._lock is not None

    def unlock(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    @property
    def journal_path(self) -> Path:
        return self.root / "events.jsonl"

    @property
    def checkpoint_path(self) -> Path:
        return self.root / "checkpoint.sqlite"

    @property
    def llm_dir(self) -> Path:
        """Recorded model calls, `llm/NNNN.json` (aka.propose.calls)."""
        return self.root / "llm"

    # --- the Store protocol -----------------------------------------------------------------
    def _dir(self, version: str) -> Path:
        return self.root / "candidates" / version

    def put_candidate(self, version: str, candidate: Candidate) -> Path:
        d = self._dir(version)
        d.mkdir(parents=True, exist_ok=True)
        path = d / "candidate.py"
        write_text(path, candidate.materialize())
        write_json(d / "candidate.json", candidate.to_dict())
        return path

    def candidate(self, version: str) -> tuple[Candidate, Path]:
        d = self._dir(version)
        return Candidate.from_dict(read_json(d / "candidate.json")), d / "candidate.py"

    def version_of(self, candidate_hash: str) -> str | None:
        for d in sorted((self.root / "candidates").glob("v*")):
            f = d / "candidate.json"
            if f.is_file() and read_json(f).get("hash") == candidate_hash:
                return d.name
        return None

    def versions(self) -> list[str]:
        return sorted(d.name for d in (self.root / "candidates").glob("v*") if (d / "candidate.json").is_file())

    def put_eval(self, version: str, result: EvalResult) -> None:
        self._put_result(version, "eval.json", result)

    def _put_result(self, version: str, name: str, result: EvalResult) -> None:
        """Stored with paths relative to the session folder, so the folder can move."""
        rel = replace(result, candidate=self._relative(result.candidate),
                      rejections=[replace(r, file=self._relative(r.file)) for r in result.rejections])
        write_json(self._dir(version) / name, rel.to_dict())

    def _result(self, version: str, name: str) -> EvalResult | None:
        f = self._dir(version) / name
        return EvalResult.from_dict(read_json(f)) if f.is_file() else None

    def _relative(self, path: str) -> str:
        try:
            return Path(path).resolve().relative_to(self.root.resolve()).as_posix() if path else path
        except ValueError:
            return path

    def get_eval(self, version: str) -> EvalResult | None:
        return self._result(version, "eval.json")

    def put_confirmed(self, version: str, result: EvalResult) -> None:
        self._put_result(version, "confirmed.json", result)
        if self.best_version() == version:
            shutil.copy2(self._dir(version) / "confirmed.json", self.root / "best" / "confirmed.json")

    def get_confirmed(self, version: str) -> EvalResult | None:
        return self._result(version, "confirmed.json")

    def put_decision(self, version: str, decision: Decision) -> None:
        write_json(self._dir(version) / "decision.json", decision.to_dict())

    def get_decision(self, version: str) -> Decision | None:
        f = self._dir(version) / "decision.json"
        return Decision.from_dict(read_json(f)) if f.is_file() else None

    def put_memory(self, records: list[MemoryRecord]) -> None:
        for r in records:
            write_json(self.root / "memory" / f"{r.id}.json", r.to_dict())

    def memory(self) -> list[MemoryRecord]:
        return [MemoryRecord.from_dict(read_json(f)) for f in sorted((self.root / "memory").glob("m*.json"))]

    def put_profile(self, version: str, summary: str, report: dict[str, Any] | None) -> None:
        write_text(self._dir(version) / "profile.txt", summary + "\n")
        if report is not None:
            write_json(self._dir(version) / "profile.json", report)

    def put_best(self, version: str) -> None:
        best = self.root / "best"
        tmp = self.root / ".best.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        for name in ("candidate.py", "candidate.json", "eval.json", "decision.json", "confirmed.json"):
            src = self._dir(version) / name
            if src.is_file():
                shutil.copy2(src, tmp / name)
        write_text(tmp / "VERSION", version + "\n")
        shutil.rmtree(best, ignore_errors=True)
        os.replace(tmp, best)

    def best_version(self) -> str | None:
        f = self.root / "best" / "VERSION"
        return f.read_text().strip() if f.is_file() else None

    # --- baselines cache --------------------------------------------------------------------
    def put_baselines(self, cache: dict[str, dict[str, Any]]) -> None:
        write_json(self.root / "baselines.json", {k: {n: t.__dict__ for n, t in row.items()}
                                                  for k, row in cache.items()})

    def baselines(self) -> dict[str, dict[str, dict]]:
        f = self.root / "baselines.json"
        return read_json(f) if f.is_file() else {}
