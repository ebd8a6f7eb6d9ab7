"""kill -9 during an LLM session, then --resume: recorded calls are reused, never paid for twice."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from aka.agent.state import LoopConfig
from aka.sessions.journal import read_events

from tests.propose.llm_server import ScriptedServer, reply, slow
from tests.propose.replies import FAST, SLOW, TWO_BLOCKS

from .llm_kit import run

ROOT = Path(__file__).parents[2]


def _child(root: Path, url: str, kind: str, n: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tests.agent.llm_kit", str(root), url, kind, str(n)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def test_killed_after_a_call_was_recorded_the_resumed_run_reuses_it(tmp_path):
    root = tmp_path / "20260101-000000-rmsnorm-llm"
    with ScriptedServer([reply(SLOW), reply(FAST), reply(TWO_BLOCKS), reply(SLOW)]) as srv:
        proc = _child(root, srv.url, "propose", 2)              # SIGKILL after call 2, before its checkpoint
        proc.communicate(timeout=240)
        assert proc.returncode == -signal.SIGKILL
        assert len(srv.requests) == 2 and (root / "llm" / "0002.json").is_file()
        out, llm, _ = run(root, srv.url, LoopConfig(iterations=4, stall=10), resumed=True)
    assert len(srv.requests) == 4, "call 2 was answered from the session, not asked again"
    assert llm.reused == 1 and sorted(p.name for p in (root / "llm").glob("*.json")) == [
        "0001.json", "0002.json", "0003.json", "0004.json"]
    proposes = [e.data for e in read_events(root / "events.jsonl").events if e.kind == "propose"]
    assert [(p["llm_call"], p["reused"]) for p in proposes] == [(1, False), (2, False), (2, True), (3, False),
                                                                 (4, False)]
    assert out.best == "v002" and out.iterations == 4


def test_killed_mid_call_the_resumed_run_repeats_only_the_unrecorded_call(tmp_path):
    root = tmp_path / "20260101-000000-rmsnorm-llm"
    with ScriptedServer([reply(SLOW), slow(FAST, 60.0)]) as srv:
        proc = _child(root, srv.url, "none", 0)
        deadline = time.time() + 240
        while len(srv.requests) < 2 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert len(srv.requests) == 2, proc.stderr.read().decode()[-2000:] if proc.poll() is not None else ""
        os.killpg(proc.pid, signal.SIGKILL)                      # the second request is in flight
        proc.wait()
        first = srv.requests[0]["body"]["messages"]
        srv.script = [reply(FAST), reply(TWO_BLOCKS), reply(SLOW)]
        out, llm, _ = run(root, srv.url, LoopConfig(iterations=4, stall=10), resumed=True)
    assert sum(r["body"]["messages"] == first for r in srv.requests) == 1        # call 1: never repeated
    assert srv.requests[2]["body"]["messages"] == srv.requests[1]["body"]["messages"]   # the lost one, again
    assert len(srv.requests) == 5 and llm.reused == 0
    assert len(list((root / "llm").glob("*.json"))) == 4 and out.iterations == 4
    recorded = json.loads((root / "llm" / "0002.json").read_text())
    assert recorded["reply"] == FAST
