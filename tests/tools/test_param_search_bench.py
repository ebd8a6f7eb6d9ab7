"""tools/param_search_bench.py on the CPU interpreter: the exhaustive table of a few rmsnorm
configurations, the evaluations each search method needs, the held-out shape's slowdown per rule
(interpreter times: only the shape of the record is checked)."""

import json

from tests.tools import load_tool


def _tool():
    return load_tool("param_search_bench")


def test_the_benchmark_runs_on_the_interpreter(tmp_path):
    assert _tool().main(["rmsnorm", "--device", "cpu", "--max-configs", "8", "--seeds", "2", "--out", str(tmp_path)]) == 0
    doc = json.loads((tmp_path / "param_search.json").read_text())[0]
    assert doc["configs"] == 8 and doc["timing"].startswith("cpu-interpreter")
    assert 1 <= doc["bucketed_tpe"] <= 8 and 1 <= doc["per_shape_tpe"] <= 8 and doc["exhaustive"] <= 8
    assert doc["held_out"] and doc["held_out"][0]["shape"] == "cpu-held-0" and doc["buckets"]
    assert "| rmsnorm | cpu-interpreter (rank only) | 8 |" in (tmp_path / "param_search.md").read_text()


def test_an_unknown_operator_is_refused(tmp_path, capsys):
    import pytest

    with pytest.raises(SystemExit) as exc:
        _tool().main(["no_such_op", "--device", "cpu", "--out", str(tmp_path)])
    assert exc.value.code == 2 and "no operator 'no_such_op'" in capsys.readouterr().err
