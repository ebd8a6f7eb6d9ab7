"""A batch run folder: `sessions/batch-<UTC yyyymmdd-hhmmss>/`.

    batch.json            format, id, the suite as read (operators, weights), the request, environment
    events.jsonl          the journal of operator states (queued, running, retry, done, errored, ...)
    ops/<op>/result.json  the operator's final record (aka.batch.op/1): written last, atomically
    ops/<op>/eval.json    the EvalResult scored (eval mode: the candidate's; optimize: the best kernel's)
    ops/<op>/sessions/    the optimize session (optimize mode)
    ops/<op>/stderr.log   the operator's command's stderr (last attempt)
    scoreboard.json       the suite's scores (aka.batch.scoreboard/1)

An operator is finished when its result.json exists; `--resume` runs the others again (an
interrupted optimize session is resumed, not restarted).
"""

from __future__ import annotations

import fcntl
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from aka.errors import InputError
from aka.sessions.folder import read_json, write_json
from aka.sessions.journal import Journal

FORMAT = "aka.batch/1"
OP_FORMAT = "aka.batch.op/1"


def new_run_id(now: datetime | None = None) -> str:
    return "batch-" + (now or datetime.now(timezone.utc)).strftime("%Y%m%d-%H%M%S")


def resolve_run(run: str | Path, sessions_dir: Path = Path("sessions")) -> Path:
    """RUN is a folder path or an id under `sessions_dir`."""
    p = Path(run)
    for candidate in (p, Path(sessions_dir) / str(run)):
        if (candidate / "batch.json").is_file():
            return candidate
    raise InputError(f"{run}: no batch run folder (looked at {p} and {Path(sessions_dir) / str(run)}; "
                     "a run folder holds batch.json)")


class RunFolder:
    """The files of one batch run."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._lock_fd: int | None = None
        self._journal: Journal | None = None

    @classmethod
    def create(cls, sessions_dir: Path, meta: dict[str, Any], now: datetime | None = None) -> "RunFolder":
        run_id = new_run_id(now)
        root = Path(sessions_dir) / run_id
        n = 1
        while root.exists():                      # two runs in one second: a suffix, never a shared folder
            n += 1
            root = Path(sessions_dir) / f"{run_id}-{n}"
        (root / "ops").mkdir(parents=True)
        write_json(root / "batch.json", {"format": FORMAT, "id": root.name, **meta})
        return cls(root)

    def meta(self) -> dict[str, Any]:
        data = read_json(self.root / "batch.json")
        if data.get("format") != FORMAT:
            raise InputError(f"{self.root / 'batch.json'}: format {data.get('format')!r}, expected {FORMAT!r}")
        return data

    def lock(self) -> None:
        """Hold the run for this process; a second `aka batch --resume` of it is refused."""
        fd = os.open(self.root / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise InputError(f"{self.root}: another aka process is running this batch") from None
        self._lock_fd = fd

    def unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    @property
    def journal(self) -> Journal:
        if self._journal is None:
            self._journal = Journal(self.root / "events.jsonl")
        return self._journal

    def op_dir(self, name: str) -> Path:
        d = self.root / "ops" / name
        d.mkdir(parents=True, exist_ok=True)
        return d

    def put_result(self, name: str, record: dict[str, Any], eval_doc: dict[str, Any] | None) -> None:
        """Write eval.json, then result.json (the operator counts as finished once the latter exists)."""
        d = self.op_dir(name)
        if eval_doc is not None:
            write_json(d / "eval.json", eval_doc)
        write_json(d / "result.json", {"format": OP_FORMAT, **record})

    def result(self, name: str) -> dict[str, Any] | None:
        p = self.root / "ops" / name / "result.json"
        if not p.is_file():
            return None
        try:
            data = read_json(p)
        except ValueError:
            return None
        return data if data.get("format") == OP_FORMAT else None

    def eval_doc(self, name: str) -> dict[str, Any] | None:
        p = self.root / "ops" / name / "eval.json"
        return read_json(p) if p.is_file() else None

    def results(self) -> dict[str, dict[str, Any]]:
        """Operator name -> its final record, for every finished operator."""
        out = {}
        for d in sorted((self.root / "ops").iterdir()) if (self.root / "ops").is_dir() else ():
            rec = self.result(d.name)
            if rec is not None:
                out[d.name] = rec
        return out

    def put_scoreboard(self, board: dict[str, Any]) -> None:
        write_json(self.root / "scoreboard.json", board)

    def scoreboard(self) -> dict[str, Any] | None:
        p = self.root / "scoreboard.json"
        return read_json(p) if p.is_file() else None
