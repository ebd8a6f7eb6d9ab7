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


def test_param_sets_a_module_constant_before_the_candidate_runs(tmp_path):
    """--param NAME=VALUE applies a parameter point (the tuner's way of varying a kernel): the
    candidate runs with the constant rewritten, and the result says which point it was."""
    src = (CANDS / "honest_rmsnorm.py").read_text()
    src = src.replace("import triton.language as tl\n", "import triton.language as tl\n\nGAIN = 1.0\n", 1)
    src = src.replace("(x * inv * w)", "(x * inv * w * GAIN)")
    cand = tmp_path / "gained_rmsnorm.py"
    cand.write_text(src)
    res = run("eval", OP, str(cand), "--json", "--no-time", "--param", "GAIN=1.0")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert any("parameter point GAIN=1.0" in n and "gained_rmsnorm.py" in n for n in data["notes"])
    res = run("eval", OP, str(cand), "--json", "--no-time", "--param", "GAIN=2")   # the point really runs
    data = json.loads(res.stdout)
    assert res.exit_code == 1 and data["status"] != "accepted"
    assert data["candidate"] == str(cand.resolve()) and all(r["file"] in ("", str(cand.resolve()))
                                                            for r in data["rejections"])
    assert cand.read_text() == src                                                # the file is untouched
    res = run("eval", OP, str(cand), "--param", "LOSS=3")
    assert res.exit_code == 2 and "LOSS" in res.output and "module-level constants" in res.output
    res = run("eval", OP, str(cand), "--param", "GAIN")
    assert res.exit_code == 2 and "NAME=VALUE" in res.output


def test_param_values_are_typed_like_the_constants_they_replace():
    from aka.cli.eval_cmd import parse_params

    assert parse_params(["A=2", "B=0.5", "C=true", "D=False", "E=evict_first", " F = 1e3 "]) == {
        "A": 2, "B": 0.5, "C": True, "D": False, "E": "evict_first", "F": 1000.0}


def test_a_param_value_is_a_literal_never_code(tmp_path):
    """An attack on --param: a value written as Python code lands as a string constant, so nothing
    runs at import (the sentinel file is never created) and the candidate sees the text itself."""
    sentinel = tmp_path / "pwned"
    src = (CANDS / "honest_rmsnorm.py").read_text()
    src = src.replace("import triton.language as tl\n", "import triton.language as tl\n\nTAG = 'plain'\n", 1)
    src = src.replace("        x = x.contiguous()\n",
                      "        assert TAG == " + repr(f"__import__('pathlib').Path({str(sentinel)!r}).touch()") + "\n"
                      "        x = x.contiguous()\n", 1)
    cand = tmp_path / "tagged_rmsnorm.py"
    cand.write_text(src)
    attack = f"TAG=__import__('pathlib').Path({str(sentinel)!r}).touch()"
    res = run("eval", OP, str(cand), "--json", "--no-time", "--param", attack)
    assert res.exit_code == 0, res.output          # forward saw the exact text as a str
    assert not sentinel.exists()
