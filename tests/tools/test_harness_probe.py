"""tools/harness_probe.py on the CPU interpreter: every point is judged by the harness at the named
shapes, a point that breaks the kernel is a rejected row (not a crash), and bad input stops the probe
before any evaluation runs. (On a GPU the same rows carry the harness's interleaved timings.)"""

import json
from pathlib import Path

import pytest

from tests.tools import load_tool

ROOT = Path(__file__).resolve().parents[2]
OP = ROOT / "suites" / "kernel-patterns" / "row_sum"
KERNEL = ROOT / "reference_kernels" / "row_sum" / "adaptive_single_launch.py"


@pytest.fixture(scope="module")
def hp():
    return load_tool("harness_probe")


def test_points_parse_as_aka_eval_params(hp):
    assert hp.parse_point("TILE=1024, NUM_WARPS=8") == {"TILE": 1024, "NUM_WARPS": 8}
    assert hp.parse_point("default") == {} and hp.parse_point("") == {}
    assert hp.point_label({"A": 1, "B": "x"}) == "A=1,B=x" and hp.point_label({}) == "default"


def test_each_point_is_judged_at_each_shape(hp, tmp_path, capsys):
    out = tmp_path / "probe.json"
    rc = hp.main([str(OP), str(KERNEL), "--shape", "cpu-small", "--shape", "cpu-odd", "--point", "TILE=1024",
                  "--point", "TILE=0", "--device", "cpu", "--out", str(out)])
    rows = json.loads(out.read_text())["rows"]
    assert rc == 0
    by = {(r["point"], r["shape"]): r for r in rows}
    for point in ("default", "TILE=1024"):
        for shape in ("cpu-small", "cpu-odd"):
            assert by[(point, shape)]["status"] == "accepted" and by[(point, shape)]["correct"] is True
            assert by[(point, shape)]["method"] == "cpu-interpreter"   # labelled: never a GPU time
    broken = [r for r in rows if r["point"] == "TILE=0"]
    assert broken and all(r["status"] != "accepted" and r["why"] for r in broken)
    assert "TILE=0" in capsys.readouterr().out


def test_an_unknown_constant_stops_before_anything_runs(hp, tmp_path, capsys):
    out = tmp_path / "probe.json"
    rc = hp.main([str(OP), str(KERNEL), "--shape", "cpu-small", "--point", "NOPE=3", "--device", "cpu",
                  "--out", str(out)])
    assert rc == 2 and not out.exists()
    assert "NOPE" in capsys.readouterr().err


def test_an_unknown_shape_names_the_op_file(hp):
    with pytest.raises(SystemExit, match="no visible shape nowhere on cpu"):
        hp.probe(OP, KERNEL, ["nowhere"], [], device="cpu")
    with pytest.raises(SystemExit, match="no visible shape short-rows-64k on cpu"):   # a GPU shape: not on the interpreter
        hp.probe(OP, KERNEL, ["short-rows-64k"], [], device="cpu")


def test_a_malformed_point_is_a_usage_error(hp, capsys):
    with pytest.raises(SystemExit) as exc:
        hp.main([str(OP), str(KERNEL), "--shape", "cpu-small", "--point", "9X=1", "--device", "cpu"])
    assert exc.value.code == 2 and "9X=1" in capsys.readouterr().err
