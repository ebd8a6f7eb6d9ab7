"""The fork server answers a job as soon as its reply is whole: the job's processes are killed at
once and reaped later, so their exit (a CUDA context's teardown on a GPU) overlaps what comes next,
while nothing of the job's runs after its reply. A job that dies without a whole reply is still
waited for, to say how it died.

Each case runs the server's `run_job` in a fresh interpreter (a stand-in worker module, no torch),
so its reaping of children touches no process of the test run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import json, os, sys, time, types
sys.path.insert(0, {root!r})
from aka.evaluate import server

SLOW_EXIT_S = 4.0
real_exit = os._exit


def slow_exit(code):                 # the job's own exit takes SLOW_EXIT_S (a GPU context's teardown, magnified)
    time.sleep(SLOW_EXIT_S)
    real_exit(code)


def execute(job):
    if job.get("crash"):
        os.kill(os.getpid(), 9)
    helper = os.fork()               # a process the job started, in the job's process group
    if helper == 0:
        os.closerange(3, 4096)       # as the confined candidate's process does: not the reply pipe
        time.sleep(60)
        real_exit(0)
    return {{"ok": True, "job_pid": os.getpid(), "helper": helper}}


def state(pid):
    try:
        return open(f"/proc/{{pid}}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


sys.modules["aka.evaluate.worker"] = types.SimpleNamespace(execute=execute)
os._exit = slow_exit
out = {{}}
t0 = time.monotonic()
reply = server.run_job({{"timeout_s": 60, "crash": {crash}}})
out["wall_s"] = time.monotonic() - t0
out["reply"] = reply
if reply.get("ok"):
    time.sleep(0.3)
    out["states"] = [state(reply["job_pid"]), state(reply["helper"])]
    server._reap()
    out["after_reap"] = state(reply["job_pid"])
print(json.dumps(out))
"""


def _env(wait_exit: bool) -> dict:
    """This environment with AKA_WAIT_EXIT set to 1 (the old waits) or absent."""
    return {k: v for k, v in os.environ.items() if k != "AKA_WAIT_EXIT"} | ({"AKA_WAIT_EXIT": "1"} if wait_exit else {})


def _run(crash: bool, wait_exit: bool = False) -> dict:
    code = textwrap.dedent(SCRIPT.format(root=str(ROOT), crash=crash))
    env = _env(wait_exit)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_whole_reply_returns_without_waiting_for_the_jobs_exit_and_its_processes_are_killed():
    out = _run(crash=False)
    assert out["reply"]["ok"] is True
    assert out["wall_s"] < 3, "the server waited for the job's slow exit (4 s)"
    assert set(out["states"]) <= {"Z", "gone"}, out["states"]
    assert out["after_reap"] == "gone"


def test_aka_wait_exit_restores_waiting_for_the_jobs_exit():
    """The old behaviour, kept so the difference can be measured on a GPU."""
    out = _run(crash=False, wait_exit=True)
    assert out["reply"]["ok"] is True and out["wall_s"] >= 4


def test_a_job_that_dies_without_a_reply_is_waited_for_and_said_to_have_crashed():
    out = _run(crash=True)
    assert out["reply"]["ok"] is False and out["reply"]["died"] == "crash"
    assert "SIGKILL" in out["reply"]["error"]


CLOSE = """
import json, os, socket, sys, time
sys.path.insert(0, {root!r})
from aka.evaluate.channel import Channel
from aka.evaluate.remote import Remote

ours, theirs = socket.socketpair()
pid = os.fork()
if pid == 0:                       # a candidate's process that takes 20 s to end after "bye"
    os.setpgid(0, 0)
    ours.close()
    Channel(theirs).receive()
    time.sleep(20)
    os._exit(0)
os.setpgid(pid, pid)               # (both sides set it: no race with the kill)
theirs.close()
remote = Remote(pid, Channel(ours), "/nonexistent", time.monotonic() + 60)
t0 = time.monotonic()
remote.close()
wall = time.monotonic() - t0
time.sleep(0.3)
try:
    stat = open(f"/proc/{{pid}}/stat").read().rsplit(")", 1)[1].split()[0]
except OSError:
    stat = "gone"
print(json.dumps({{"wall_s": wall, "state": stat, "ended": remote.ended}}))
"""


def _close(wait_exit: bool) -> dict:
    env = _env(wait_exit)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(CLOSE.format(root=str(ROOT)))],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_judge_closes_a_candidate_without_waiting_for_it_to_exit():
    out = _close(wait_exit=False)
    assert out["wall_s"] < 5 and out["ended"] == "closed"
    assert out["state"] == "Z"                                   # killed at once, left for the reaper
    out = _close(wait_exit=True)                                 # the old way: 0.5 s of grace, then SIGKILL and reap
    assert out["wall_s"] >= 0.5 and out["state"] == "gone" and out["ended"].startswith("killed")
