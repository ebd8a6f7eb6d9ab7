"""`aka replay --rerun`: recorded candidates judged again by today's harness on this CPU, recorded
against re-measured side by side; times from another device are marked not comparable."""

import json

from typer.testing import CliRunner

from aka.cli.main import build_app
from tests.replay.conftest import snapshot

runner = CliRunner()


def test_rerun_from_a_version_on_this_machine(session):
    ev = session / "candidates" / "v005" / "eval.json"
    data = json.loads(ev.read_text())
    data["mode"], data["device"] = "gpu", {"kind": "cuda", "name": "NVIDIA H200"}   # as if recorded on the H200
    ev.write_text(json.dumps(data))
    before = snapshot(session)
    res = runner.invoke(build_app(), ["replay", str(session), "--rerun", "--from", "v005", "--device", "cpu", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["ok"] is True and [r["version"] for r in doc["rows"]] == ["v005"]
    row = doc["rows"][0]
    assert row["recorded_status"] == row["rerun_status"] == "accepted" and row["held"]
    assert row["recorded_device"] == "NVIDIA H200" and row["rerun_device"] == "cpu-interpreter"
    assert row["comparable"] is False and "not comparable" in row["note"]
    shapes = {s["shape"]: s for s in row["shapes"]}
    assert shapes["cpu-held-0"]["held_out"] and shapes["cpu-held-0"]["rerun_correct"] is True
    assert shapes["cpu-small"]["recorded_us"] and shapes["cpu-small"]["rerun_us"]
    assert snapshot(session) == before


def test_rerun_text_and_bad_from(session):
    res = runner.invoke(build_app(), ["replay", str(session), "--rerun", "--from", "v999"])
    assert res.exit_code == 2 and "--from v999: no such version" in res.output
    res = runner.invoke(build_app(), ["replay", str(session), "--from", "v001"])
    assert res.exit_code == 2 and "--from goes with --rerun" in res.output


def test_rerun_table_marks_times_not_comparable():
    from aka.replay.rerun import RerunReport, RerunRow, render_rows

    row = RerunRow("v003", "k.py", "accepted", "wrong", "NVIDIA H200", "cpu-interpreter", False,
                   [{"shape": "a", "held_out": False, "recorded_correct": True, "rerun_correct": False,
                     "recorded_us": 12.5, "rerun_us": 3000.0}], "times not comparable: interpreter wall times only rank")
    text = render_rows(RerunReport("s", [row]))
    assert "recorded accepted on NVIDIA H200 -> now wrong on cpu-interpreter (CHANGED)" in text
    assert "12.50*" in text and "3000.00*" in text and "WRONG" in text
    assert "some verdicts changed" in text


def test_a_focused_trial_is_rejudged_at_every_shape_and_the_row_says_so():
    from aka.replay.rerun import _row
    from aka.spec.result import EvalResult, EvalStatus, ShapeResult, Timing

    def result(shapes, focus):
        return EvalResult(status=EvalStatus.ACCEPTED, op="rmsnorm", candidate="c.py", candidate_sha256="x",
                          mode="cpu-interpreter", dtype="float32", focus=focus,
                          shapes=[ShapeResult(id=s, params={}, correct=True, time=Timing(5.0, 0, 0, 3, "cpu-interpreter"))
                                  for s in shapes])
    row = _row("v007", "k.py", result(["a"], ["a"]), result(["a", "b"], []))
    assert row.note.startswith("recorded as a focused trial at a; re-judged at every shape")
    assert [s["shape"] for s in row.shapes] == ["a", "b"] and row.shapes[1]["recorded_correct"] is None
