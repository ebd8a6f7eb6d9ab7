"""`aka eval` and `aka doctor` through the CLI: exit codes, --json, clear bad-input errors."""

import json
from pathlib import Path

from typer.testing import CliRunner

from aka.cli.main import build_app

HERE = Path(__file__).parents[1] / "evaluate"
OP = str(HERE / "fixtures" / "rmsnorm")
CANDS = HERE / "candidates"
runner = CliRunner()


def run(*args):
    return runner.invoke(build_app(), list(args))


def test_accepted_candidate_exits_0_with_one_json_document():
    res = run("eval", OP, str(CANDS / "honest_rmsnorm.py"), "--json", "--no-time")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["status"] == "accepted" and data["mode"] == "cpu-interpreter"
    assert [s["id"] for s in data["shapes"]] == ["cpu-a", "cpu-b", "cpu-held"]


def test_rejected_candidate_exits_1_and_names_rule_file_line():
    res = run("eval", OP, str(CANDS / "cheat_tensor_method_math.py"))
    assert res.exit_code == 1
    assert "tensor-method-math" in res.stdout and "cheat_tensor_method_math.py:25" in res.stdout


def test_table_output_labels_interpreter_times():
    res = run("eval", OP, str(CANDS / "honest_rmsnorm.py"), "--shape", "cpu-a")
    assert res.exit_code == 0, res.output
    assert "CPU interpreter" in res.stdout and "ACCEPTED" in res.stdout
    assert "SOL" not in res.stdout


def test_bad_input_exits_2_and_runs_nothing(tmp_path):
    (tmp_path / "op.yaml").write_text("name: x\nreference: ref.py\ndtype: bf16\nshapes: []\n")
    res = run("eval", str(tmp_path), str(CANDS / "honest_rmsnorm.py"))
    assert res.exit_code == 2 and "field 'reference'" in res.output
    res = run("eval", OP, str(tmp_path / "missing.py"))
    assert res.exit_code == 2 and "candidate file not found" in res.output
    res = run("eval", OP, str(CANDS / "honest_rmsnorm.py"), "--shape", "nope")
    assert res.exit_code == 2 and "unknown shape" in res.output
    res = run("eval", OP, str(CANDS / "honest_rmsnorm.py"), "--device", "tpu")
    assert res.exit_code == 2


def test_doctor_reports_and_calibrate_needs_a_gpu():
    res = run("doctor", "--json")
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert data["device"] == "cpu" and "torch" in data["packages"]
    res = run("doctor", "--calibrate")
    assert res.exit_code == 3 and "needs a CUDA GPU" in res.output
