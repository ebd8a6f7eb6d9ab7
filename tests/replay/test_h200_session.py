"""A real session recorded on the H200 (`tools/h200_llm_session.sh 9`, 2026-12-04: rmsnorm through
the scripted model server, bf16, nine candidates) replayed and re-run on this CPU machine: the story
reads, and the winner's verdict is re-checked in Triton's interpreter with its times marked not
comparable."""

import json

from typer.testing import CliRunner

from aka.cli.main import build_app
from tests.replay.conftest import snapshot

runner = CliRunner()


def test_the_h200_session_replays_as_recorded(h200_session):
    res = runner.invoke(build_app(), ["replay", str(h200_session), "--print"])
    assert res.exit_code == 0, res.output
    assert "device: cuda" in res.output and "best: v009 (llm-009)" in res.output
    assert "v001 accepted" in res.output and "profiled v001 at llama3-8b-prefill-16k" in res.output
    doc = json.loads(runner.invoke(build_app(), ["replay", str(h200_session), "--json"]).stdout)
    kinds = [e["kind"] for e in doc["events"]]
    assert kinds.count("evaluate") == 9 and kinds[-1] == "stop"
    assert all("\n" not in e["title"] for e in doc["events"])        # a compiler's traceback keeps its first line
    assert "v003 error: runtime-error: " in res.output and ": CompilationError: at 5:22: … in 3.7 s" in res.output


def test_the_h200_winner_rerun_on_this_cpu(h200_session):
    before = snapshot(h200_session)
    res = runner.invoke(build_app(), ["replay", str(h200_session), "--rerun", "--from", "v009",
                                      "--device", "cpu", "--json"])
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.stdout)["rows"]
    assert row["version"] == "v009" and row["recorded_device"] == "NVIDIA H200"
    assert row["recorded_status"] == row["rerun_status"] == "accepted" and row["held"]
    assert row["rerun_device"] == "cpu-interpreter" and row["comparable"] is False
    shapes = {s["shape"]: s for s in row["shapes"]}
    assert shapes["llama3-8b-prefill-16k"]["recorded_us"] and shapes["llama3-8b-prefill-16k"]["rerun_us"] is None
    assert all(s["rerun_correct"] for s in row["shapes"] if s["shape"].startswith("cpu-"))
    assert snapshot(h200_session) == before
