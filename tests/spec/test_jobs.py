"""Typed worker jobs and replies: one JSON line each way, a format tag, no unknown fields."""

import json

import pytest

from aka.spec.jobs import (JOB_FORMAT, CandidateSource, CompareJob, EvalJob, OperatorFault, PingJob, Reply,
                           ShapeJob, job_from_dict)


def test_eval_job_round_trips_through_json():
    job = EvalJob(device="cpu", spec={"name": "x", "reference": "/r.py"}, dtype="float32",
                  shapes=(ShapeJob("a", {"n": 4}), ShapeJob("h", {"n": 5}, held_out=True)),
                  candidate=CandidateSource("my kernel", "class ModelNew: ..."),
                  tol_outputs={"out[1]": (0.1, 0.2)}, mutates=("x",), baselines=("eager",))
    wire = json.loads(json.dumps(job.to_dict()))
    assert wire["format"] == JOB_FORMAT and wire["kind"] == "eval"
    back = job_from_dict(wire)
    assert back == job and back.trials == 3 and back.shapes[1].held_out


def test_other_kinds_and_bad_documents():
    cmp = CompareJob(incumbent=CandidateSource("a", "A"), candidate=CandidateSource("b", "B"))
    assert job_from_dict(json.loads(json.dumps(cmp.to_dict()))) == cmp
    assert job_from_dict(PingJob().to_dict()).timeout_s == 60.0
    with pytest.raises(ValueError, match="format"):
        job_from_dict({"kind": "ping"})
    with pytest.raises(ValueError, match="unknown job kind"):
        job_from_dict({"format": JOB_FORMAT, "kind": "mine-bitcoin"})
    with pytest.raises(ValueError, match="unknown field"):
        job_from_dict({**PingJob().to_dict(), "candidate_path": "/etc/passwd"})


def test_reply_round_trip_keeps_an_operator_fault():
    reply = Reply(ok=False, kind="eval", operator_fault=OperatorFault("boom", "/ref.py", 12, "make_inputs"))
    back = Reply.from_dict(json.loads(json.dumps(reply.to_dict())))
    assert back.operator_fault.line == 12 and back.operator_fault.where == "make_inputs"
