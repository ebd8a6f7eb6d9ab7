"""The recorded session kept in tests/replay/fixtures (an `aka optimize` run of rmsnorm on the CPU
interpreter, checkpoint left out), the LLM session recorded on the H200 (docs/results), and copies
of them to damage."""

import hashlib
import shutil
import tarfile
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "rmsnorm-cpu"
H200_ARCHIVE = Path(__file__).parents[2] / "docs" / "results" / "h200-2026-12-04" / "llm-session" / "session.tgz"


def snapshot(root: Path) -> dict[str, str]:
    """Every file of a folder with its hash (to prove replay wrote nothing)."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def session(tmp_path) -> Path:
    """A fresh copy of the recorded session."""
    dst = tmp_path / FIXTURE.name
    shutil.copytree(FIXTURE, dst)
    return dst


@pytest.fixture
def truncated(session) -> Path:
    """The session after a crash mid-write: a torn last journal line and a missing candidate file."""
    journal = session / "events.jsonl"
    data = journal.read_bytes()
    cut = data[: data.rfind(b"\n", 0, len(data) - 1) + 1]          # drop the last full line...
    journal.write_bytes(cut[: len(cut) - 40])                      # ...and tear the one before
    (session / "candidates" / "v002" / "candidate.py").unlink()
    (session / "candidates" / "v004" / "eval.json").unlink()
    return session


@pytest.fixture
def h200_session(tmp_path) -> Path:
    """The H200 LLM session (`tools/h200_llm_session.sh 9`, 2026-12-04), extracted afresh."""
    with tarfile.open(H200_ARCHIVE) as tar:
        tar.extractall(tmp_path / "h200", filter="data")
    (folder,) = [p for p in (tmp_path / "h200").iterdir() if p.is_dir()]
    return folder
