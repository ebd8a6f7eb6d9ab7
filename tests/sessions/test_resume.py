"""`kill -9` of a run at several points, then resume: no candidate is lost or evaluated twice."""

import subprocess
import sys
from pathlib import Path

import pytest

from aka.agent.state import LoopConfig
from aka.errors import InputError
from aka.sessions.folder import SessionFolder
from aka.sessions.journal import read_events

from ..agent.loop_kit import ORDER, run

ROOT = Path(__file__).parents[2]


@pytest.mark.parametrize("kind,n", [("propose", 2), ("evaluate", 3), ("accept", 2), ("reflect", 4),
                                    ("dropout", 1), ("decide", 5)])
def test_kill_then_resume_loses_and_repeats_nothing(tmp_path, kind, n):
    root, log = tmp_path / "s", tmp_path / "evaluated.log"
    proc = subprocess.run([sys.executable, "-m", "tests.agent.loop_kit", str(root), str(log), kind, str(n)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    if kind == "dropout":        # stall=5 in the driver: no dropout happens, so the run finishes
        assert proc.returncode == 0, proc.stderr
    else:
        assert proc.returncode == -9, proc.stderr               # killed by SIGKILL mid-run
    before = log.read_text().split() if log.exists() else []
    out = run(root, log, LoopConfig(iterations=6, stall=5), resumed=True)
    evaluated = log.read_text().split()
    assert sorted(evaluated) == sorted(ORDER), f"killed after {kind} #{n}: {before} then {evaluated}"
    assert len(set(evaluated)) == len(evaluated)                # nothing evaluated twice
    folder = SessionFolder(out.session)
    assert folder.versions() == [f"v{i:03d}" for i in range(1, 7)]
    assert out.best == "v006" and out.stop_reason.startswith("budget")
    kinds = [e.kind for e in read_events(folder.journal_path).events]
    assert kinds[0] == "config" and kinds.count("stop") == 1
    assert kinds[-1] == ("resume" if kind == "dropout" else "stop")   # a finished session runs nothing more


@pytest.mark.parametrize("kind,n", [("batched", 1), ("batched", 2), ("batch", 1), ("evaluate", 2),
                                    ("propose", 3), ("accept", 4), ("decide", 2)])
def test_kill_in_a_batch_then_resume_loses_and_repeats_nothing(tmp_path, kind, n):
    """--parallel 3: two batches of three; killed inside a batch's evaluation, between its members'
    turns, or in the second batch."""
    root, log = tmp_path / "s", tmp_path / "evaluated.log"
    proc = subprocess.run([sys.executable, "-m", "tests.agent.loop_kit", str(root), str(log), kind, str(n), "3"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == -9, proc.stderr
    before = log.read_text().split() if log.exists() else []
    out = run(root, log, LoopConfig(iterations=6, stall=5, parallel=3), resumed=True)
    evaluated = log.read_text().split()
    assert sorted(evaluated) == sorted(ORDER), f"killed after {kind} #{n}: {before} then {evaluated}"
    assert len(set(evaluated)) == len(evaluated)
    folder = SessionFolder(out.session)
    assert folder.versions() == [f"v{i:03d}" for i in range(1, 7)]
    assert out.best == "v006" and out.stop_reason.startswith("budget")
    events = read_events(folder.journal_path).events
    accepted = [e.data["version"] for e in events if e.kind == "accept"]   # a step cut off is run again
    assert list(dict.fromkeys(accepted)) == [f"v{i:03d}" for i in range(1, 7)]


def test_a_second_run_on_the_same_session_is_refused(tmp_path):
    folder = SessionFolder.create(tmp_path, "20260101-000000-x", {"op": {"name": "x"}})
    folder.lock()
    try:
        with pytest.raises(InputError, match="in use by another aka process"):
            SessionFolder(folder.root).lock()
    finally:
        folder.unlock()
