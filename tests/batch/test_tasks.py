"""One operator's command and what its exit means: a dead worker, bad input, a verdict; an
interrupted optimize session is resumed, not restarted; a GPU worker is pinned to its GPU."""

import json

from aka.batch.suite import Operator
from aka.batch.tasks import Attempt, Slot, Task, command, outcome, slot_env

OP = Operator("relu", "/suite/relu.py", "kernelbench")


def test_optimize_command_resumes_an_interrupted_session(tmp_path):
    task = Task(op=OP, mode="optimize", op_dir=str(tmp_path), iterations=3, kb="none")
    argv = command(task, Slot("cuda", 1))
    assert argv[3:5] == ["optimize", "/suite/relu.py"] and "--resume" not in argv
    assert argv[argv.index("--device") + 1] == "cuda" and argv[argv.index("--iterations") + 1] == "3"
    session = tmp_path / "sessions" / "20261203-000000-relu"
    session.mkdir(parents=True)
    (session / "session.json").write_text("{}")
    argv = command(task, Slot("cpu", 0))
    assert argv[argv.index("--resume") + 1] == str(session) and "/suite/relu.py" not in argv


def test_slots_pin_their_device():
    assert slot_env(Slot("cuda", 3)) == {"CUDA_VISIBLE_DEVICES": "3", "HIP_VISIBLE_DEVICES": "3"}
    assert slot_env(Slot("cpu", 0))["AKA_DEVICE"] == "cpu"


def test_outcomes(tmp_path):
    task = Task(op=OP, mode="eval", op_dir=str(tmp_path), candidate="/c.py")
    slot = Slot("cuda", 0, uuid="GPU-abc", name="NVIDIA H200")
    dead = Attempt(returncode=-9, stdout="", stderr_tail="", slot=slot)
    rec, doc = outcome(task, [dead, dead])
    assert rec["state"] == "errored" and "died 2 time(s) (killed by signal 9)" in rec["error"] and doc is None
    bad = Attempt(returncode=2, stdout=json.dumps({"ok": False, "status": "error", "error_type": "SpecError",
                                                   "message": "field 'x'"}), slot=slot)
    rec, _ = outcome(task, [bad])
    assert rec["state"] == "errored" and rec["error"] == "SpecError: field 'x'"
    verdict = {"format": "aka.eval/1", "status": "wrong", "rejections": [{"rule": "wrong-output"}], "shapes": []}
    rec, doc = outcome(task, [Attempt(returncode=1, stdout=json.dumps(verdict), slot=slot)])
    assert rec["state"] == "done" and not rec["real_kernel"] and rec["rejections"] == ["wrong-output"]
    assert rec["device"]["uuid"] == "GPU-abc" and rec["device"]["index"] == 0 and doc == verdict


def test_an_optimize_sessions_best_is_scored_by_its_end_of_session_evaluation(tmp_path):
    """The scoreboard takes the best kernel's confirmed evaluation (interleaved baselines) where the
    session made one, as the session's report does; without one, its evaluation in the search."""
    from aka.batch.tasks import best_eval
    from aka.sessions.folder import SessionFolder
    from aka.spec.candidate import Candidate
    from aka.spec.result import EvalResult, EvalStatus, Rejection

    folder = SessionFolder.create(tmp_path, "s", {"op": {"name": "x"}})
    folder.put_candidate("v001", Candidate(source="# k\n", name="k"))
    folder.put_eval("v001", EvalResult(status=EvalStatus.ACCEPTED, op="x", candidate="c", candidate_sha256="0", mode="gpu", dtype="bfloat16"))
    folder.put_best("v001")
    assert best_eval(folder.root, "v001")["status"] == "accepted"
    folder.put_confirmed("v001", EvalResult(status=EvalStatus.WRONG, op="x", candidate="c", candidate_sha256="0", mode="gpu",
                                                dtype="bfloat16", rejections=[Rejection("wrong-output", "differs")]))
    assert best_eval(folder.root, "v001")["status"] == "wrong"
    assert (folder.root / "best" / "confirmed.json").is_file()
    assert best_eval(folder.root, None) is None
