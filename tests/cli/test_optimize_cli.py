"""`aka optimize` end to end on the CPU interpreter: the tuner, a real session, kill -9 and --resume."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
RMSNORM = ROOT / "suites" / "llm-inference" / "rmsnorm"


def aka(*args, cwd, timeout=600):
    return subprocess.run([sys.executable, "-m", "aka", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "AKA_DEVICE": "cpu"})


def test_bad_operator_exits_2_and_creates_nothing(tmp_path):
    out = aka("optimize", tmp_path / "missing", "--sessions-dir", tmp_path / "s", cwd=tmp_path)
    assert out.returncode == 2 and "no such file" in out.stderr
    out = aka("optimize", RMSNORM, "--shape", "nope", "--sessions-dir", tmp_path / "s", cwd=tmp_path)
    assert out.returncode == 2 and "unknown shape id" in out.stderr
    out = aka("optimize", tmp_path / "missing", "--sessions-dir", tmp_path / "s", "--json", cwd=tmp_path)
    doc = json.loads(out.stdout)
    assert out.returncode == 2 and doc["ok"] is False and doc["exit_code"] == 2
    assert not (tmp_path / "s").exists()


def test_tuner_session_on_the_interpreter_is_complete(tmp_path):
    out = aka("optimize", RMSNORM, "--iterations", "2", "--kb", "memory", "--embedder", "hash",
              "--sessions-dir", tmp_path / "s", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["ok"] and doc["best"] in ("v001", "v002") and doc["evaluated"] == 2
    assert doc["mode"] == "cpu-interpreter"
    assert all(not r["speedup"] and r["sol"] is None for r in doc["shapes"])   # never GPU figures here
    s = Path(doc["session"])
    for name in ("session.json", "events.jsonl", "checkpoint.sqlite", "report.md", "best/candidate.py",
                 "best/eval.json", "candidates/v001/candidate.py", "candidates/v002/eval.json", "memory/m001.json"):
        assert (s / name).is_file(), name
    events = [json.loads(line) for line in (s / "events.jsonl").read_text().splitlines()]
    assert events[0]["kind"] == "config" and events[-1]["kind"] == "stop"
    retrieve = next(e for e in events if e["kind"] == "retrieve")
    assert retrieve["data"]["hits"], "the empty index was filled from the shipped corpus"
    assert "knowledge base empty" in out.stderr
    meta = json.loads((s / "session.json").read_text())
    assert meta["environment"]["torch"] and "git_commit" in meta["environment"]
    report = (s / "report.md").read_text()
    assert "CPU wall times through Triton's interpreter" in report


def test_kill_9_then_resume_keeps_every_candidate(tmp_path):
    sessions = tmp_path / "s"
    proc = subprocess.Popen([sys.executable, "-m", "aka", "optimize", str(RMSNORM), "--iterations", "3",
                             "--kb", "none", "--sessions-dir", str(sessions)], cwd=tmp_path,
                            env={**os.environ, "AKA_DEVICE": "cpu"}, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.time() + 300
    journal = None
    while time.time() < deadline:
        found = list(sessions.glob("*/events.jsonl"))
        if found and '"kind": "accept"' in found[0].read_text():
            journal = found[0]
            break
        time.sleep(0.2)
    assert journal is not None, "the run never got to its first accept"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(0.5)
    out = aka("optimize", "--resume", journal.parent.name, "--kb", "none", "--sessions-dir", sessions, "--json",
              cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in journal.read_text().splitlines()]
    fresh = [e["data"]["version"] for e in events if e["kind"] == "evaluate" and not e["data"]["recovered"]]
    story = [(e["kind"], {k: e["data"].get(k) for k in ("version", "recovered", "reason", "stop") if k in e["data"]})
             for e in events]                                  # what to look at when this fails
    seen = sorted({e["data"]["version"] for e in events if e["kind"] == "evaluate"})
    # every candidate judged once: journaled fresh by one run, or stored by the killed run after its
    # last journaled event and recovered from disk by the resumed one (how far the killed run got
    # depends on when the kill lands), never evaluated fresh twice
    assert seen == ["v001", "v002", "v003"] and len(fresh) == len(set(fresh)), \
        "\n".join(f"{k} {d}" for k, d in story) + "\n" + out.stderr[-3000:]
    assert any(e["kind"] == "resume" for e in events)
    assert json.loads(out.stdout)["best"] is not None


def test_a_second_optimize_on_a_running_session_is_refused(tmp_path):
    from aka.sessions.folder import SessionFolder

    folder = SessionFolder.create(tmp_path / "s", "20260101-000000-rmsnorm",
                                  {"op": {"name": "rmsnorm", "path": str(RMSNORM / "op.yaml")}, "config": {}})
    folder.lock()
    try:
        out = aka("optimize", "--resume", folder.root.name, "--sessions-dir", tmp_path / "s", cwd=tmp_path)
        assert out.returncode == 2 and "in use by another aka process" in out.stderr
    finally:
        folder.unlock()


def test_parallel_is_refused_where_candidates_come_one_at_a_time(tmp_path):
    """--parallel batches the tuner's candidates in the greedy loop; map-elites and the LLM proposer
    propose one at a time, so asking for both exits 2 before anything is created."""
    for extra in (("--strategy", "map-elites"), ("--model", "openai/x", "--api-base", "http://127.0.0.1:9")):
        out = aka("optimize", RMSNORM, "--parallel", "2", *extra, "--sessions-dir", tmp_path / "s", cwd=tmp_path)
        assert out.returncode == 2 and "--parallel batches the embedded tuner" in out.stderr, out.stderr
        assert not (tmp_path / "s").exists()


def test_a_parallel_tuner_session_evaluates_its_batches_side_by_side(tmp_path):
    """The real path of --parallel on the interpreter: the tuner's batch, side worker pools under the
    GPU lock (a file lock here too), one comparison for the batch, a complete session."""
    out = aka("optimize", RMSNORM, "--iterations", "3", "--parallel", "3", "--kb", "none",
              "--sessions-dir", tmp_path / "s", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    s = Path(doc["session"])
    events = [json.loads(line) for line in (s / "events.jsonl").read_text().splitlines()]
    [batch] = [e["data"] for e in events if e["kind"] == "batch"]
    assert batch["versions"] == batch["evaluated"] == ["v001", "v002", "v003"]
    assert [e["data"]["version"] for e in events if e["kind"] == "evaluate"] == ["v001", "v002", "v003"]
    assert doc["evaluated"] == 3 and (s / "best" / "candidate.py").is_file()
    phases = [json.loads((s / "candidates" / v / "eval.json").read_text()).get("phases_s", {})
              for v in batch["versions"]]
    assert all("judge-gpu-wait" in p for p in phases)          # each ran beside the others, under the lock


def test_no_confirm_is_recorded_in_the_sessions_config(tmp_path):
    """--no-confirm reaches the loop's config (journaled in session.json; a resumed run keeps it)."""
    out = aka("optimize", RMSNORM, "--iterations", "1", "--kb", "none", "--no-confirm",
              "--sessions-dir", tmp_path / "s", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    meta = json.loads((Path(json.loads(out.stdout)["session"]) / "session.json").read_text())
    assert meta["config"]["confirm"] is False
