"""Local batches on the Triton interpreter: eval mode over the Atrex-Bench and KernelBench fixtures,
optimize mode with the tuner, a worker that dies (replaced, its operator retried once), and
`kill -9` of the run then --resume (no finished operator lost or redone)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from aka.batch.folder import RunFolder
from aka.batch.local import LocalExecutor, cpu_slots
from aka.batch.run import BatchRequest, run_batch
from aka.batch.tasks import command
from aka.sessions.journal import read_events

from .conftest import ATREX, FIXTURES, KERNELBENCH, REPO, aka, aka_json, level_folder


def test_eval_batch_over_atrex_fixtures(tmp_path):
    rc, board = aka_json("batch", ATREX, "--mode", "eval", "--candidates", FIXTURES / "atrex_candidates",
                         "--device", "cpu", cwd=tmp_path, check=0)
    assert board["ok"] and board["done"] == 2 and board["real_kernel_share"] == 1.0
    run = Path(board["run"])
    assert run.parent == tmp_path / "sessions" and run.name.startswith("batch-")
    assert {r["op"]: round(r["weight"], 3) for r in board["rows"]} == {"add_rms_norm": 0.25, "silu_mul": 0.75}
    for op in ("add_rms_norm", "silu_mul"):
        rec = json.loads((run / "ops" / op / "result.json").read_text())
        assert rec["device"]["kind"] == "cpu" and rec["device"]["index"] in (0, 1)
        assert json.loads((run / "ops" / op / "eval.json").read_text())["status"] == "accepted"
    assert json.loads((run / "scoreboard.json").read_text())["done"] == 2


def test_ops_narrows_a_run_to_some_operators_and_an_unknown_one_is_refused(tmp_path):
    rc, board = aka_json("batch", ATREX, "--mode", "eval", "--candidates", FIXTURES / "atrex_candidates",
                         "--device", "cpu", "--ops", "silu_mul", cwd=tmp_path, check=0)
    assert board["ok"] and board["operators"] == 1 and board["subset_of"] == 2 and board["done"] == 1
    assert [(r["op"], r["weight"]) for r in board["rows"]] == [("silu_mul", 1.0)]
    rc, out, _ = aka("report", board["run"], cwd=tmp_path, check=0)
    assert "1 operators (of the suite's 2, chosen with --ops)" in (Path(board["run"]) / "report.md").read_text()
    rc, out, err = aka("batch", ATREX, "--mode", "eval", "--candidates", FIXTURES / "atrex_candidates",
                       "--device", "cpu", "--ops", "silu_mul,rope", cwd=tmp_path, check=None)
    assert rc == 2 and "--ops: rope is not an operator of suite" in out + err and "add_rms_norm" in out + err
    assert len(list((tmp_path / "sessions").iterdir())) == 1                 # nothing started for the refused run
    rc, out, err = aka("batch", "--resume", board["run"], "--ops", "silu_mul", cwd=tmp_path, check=None)
    assert rc == 2 and "--ops starts a new run" in out + err


def test_eval_batch_over_kernelbench_fixtures_goes_on_past_a_broken_problem(tmp_path):
    rc, board = aka_json("batch", KERNELBENCH, "--mode", "eval", "--candidates", KERNELBENCH / "candidates",
                         "--device", "cpu", cwd=tmp_path)
    assert rc == 1 and not board["ok"]
    rows = {r["op"]: r for r in board["rows"]}
    assert rows["level1-1_ReLU"]["real_kernel"] and rows["level1-2_ScaleShift"]["real_kernel"]
    broken = rows["level1-3_BrokenInputs"]
    assert broken["state"] == "errored" and "get_inputs" in broken["error"]
    assert board["errored"] == 1 and board["done"] == 2
    rc, out, _ = aka("report", board["run"], cwd=tmp_path, check=0)
    md = (Path(board["run"]) / "report.md").read_text()
    assert "level1-3_BrokenInputs" in md and "no SOL measured" in md
    assert (Path(board["run"]) / "report.html").is_file()
    rc, cmp = aka_json("compare", board["run"], board["run"], cwd=tmp_path, check=0)
    assert cmp["suite"]["real_kernel_share"]["delta"] == 0.0


def test_optimize_batch_with_the_tuner(tmp_path):
    suite = tmp_path / "suite"
    for name in ("rmsnorm", "silu_and_mul"):
        shutil.copytree(REPO / "suites" / "llm-inference" / name, suite / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    rc, board = aka_json("batch", suite, "--mode", "optimize", "--iterations", "1", "--device", "cpu",
                         cwd=tmp_path, check=0)
    assert board["done"] == 2 and board["real_kernel_share"] == 1.0
    for row in board["rows"]:
        assert row["best_name"].startswith(row["op"] + "/")        # a reference kernel the tuner found
        rec = json.loads((Path(board["run"]) / "ops" / row["op"] / "result.json").read_text())
        session = Path(board["run"]) / "ops" / row["op"] / rec["session"]
        assert (session / "session.json").is_file() and rec["best"] == "v001"
        assert rec["stop_reason"].startswith("budget")


def test_a_dead_worker_is_replaced_and_its_operator_retried_once(tmp_path):
    suite = level_folder(tmp_path, "1_ReLU", "2_ScaleShift")
    marker = tmp_path / "died-once"

    def dying(task, slot):
        argv = command(task, slot)
        if task.op.name == "2_ScaleShift":                         # dies every time
            return [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"]
        script = f"[ -e {marker} ] || {{ touch {marker}; kill -9 $$; }}; exec \"$@\""
        return ["sh", "-c", script, "sh", *argv]                     # dies the first time only

    out = run_batch(BatchRequest(suite=str(suite), mode="eval", candidates=str(KERNELBENCH / "candidates"),
                                 sessions_dir=tmp_path / "sessions", device="cpu", progress=False),
                    executor=LocalExecutor(cpu_slots(1), command_fn=dying))
    rows = {r["op"]: r for r in out.scoreboard["rows"]}
    folder = RunFolder(out.run)
    assert rows["1_ReLU"]["real_kernel"] and folder.result("1_ReLU")["attempts"] == 2
    assert rows["2_ScaleShift"]["state"] == "errored" and "died 2 time(s)" in rows["2_ScaleShift"]["error"]
    retries = [e.data["op"] for e in read_events(out.run / "events.jsonl").events if e.kind == "retry"]
    assert sorted(retries) == ["1_ReLU", "2_ScaleShift"]


def test_kill_9_then_resume_loses_and_redoes_nothing(tmp_path):
    suite = level_folder(tmp_path, "1_ReLU", "2_ScaleShift")
    env = {**os.environ, "AKA_DEVICE": "cpu"}
    proc = subprocess.Popen([sys.executable, "-m", "aka", "batch", str(suite), "--mode", "eval", "--candidates",
                             str(KERNELBENCH / "candidates"), "--device", "cpu", "--cpu-workers", "1"],
                            cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    first = _wait_for_done(tmp_path / "sessions", proc)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    run = next((tmp_path / "sessions").iterdir())
    done = RunFolder(run).results()
    assert list(done) == [first]                                   # the other was running when killed
    kept = (run / "ops" / first / "result.json").stat().st_mtime_ns
    rc, board = aka_json("batch", "--resume", run, "--cpu-workers", "1",
                         cwd=tmp_path, check=0)
    assert board["done"] == 2 and board["real_kernel_share"] == 1.0
    assert (run / "ops" / first / "result.json").stat().st_mtime_ns == kept
    events = read_events(run / "events.jsonl").events
    resumed_at = next(i for i, e in enumerate(events) if e.kind == "resume")
    assert events[resumed_at].data["finished"] == [first]
    assert all(e.data.get("op") != first for e in events[resumed_at:])   # never queued or run again


def _wait_for_done(sessions: Path, proc, timeout=120.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the batch ended before it could be killed"
        for journal in sessions.glob("*/events.jsonl"):
            done = [e.data["op"] for e in read_events(journal).events if e.kind == "done"]
            if done:
                return done[0]
        time.sleep(0.1)
    raise AssertionError("no operator finished in time")
