"""tools/standing.py: the "Where things stand" table of docs/benchmarks.md is computed from the
result files docs/results/STANDING.yaml names, and the doc may not drift from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.tools import ROOT, load_tool


@pytest.fixture(scope="module")
def standing():
    return load_tool("standing")


def test_the_docs_table_is_the_rendering_of_the_manifest(standing):
    assert standing.main(["--check", str(ROOT / "docs" / "benchmarks.md")]) == 0


def _optimize(folder: Path, card: str, sessions: list[dict]) -> None:
    folder.mkdir(parents=True)
    (folder / "gpu.txt").write_text(f"name, driver_version\n{card}, 580.1\n")
    (folder / "optimize_bench.json").write_text(json.dumps(sessions))


def _session(op: str, speedups: list[float]) -> dict:
    return {"op": op, "shapes": [{"shape": f"s{i}", "speedup": {"torch.compile": x}} for i, x in enumerate(speedups)]}


def test_an_optimize_row_counts_strictly_and_a_later_file_replaces_an_operator(standing, tmp_path):
    _optimize(tmp_path / "a", "NVIDIA H100 80GB HBM3", [_session("rmsnorm", [1.2, 0.9985]), _session("softmax", [2.0])])
    _optimize(tmp_path / "b", "NVIDIA H100 80GB HBM3", [_session("rmsnorm", [1.1, 1.0])])
    (tmp_path / "m.yaml").write_text("- optimize: [a/optimize_bench.json, b/optimize_bench.json]\n  what: two ops\n")
    row = standing.render(tmp_path / "m.yaml").splitlines()[2].split(" | ")
    assert row[0] == "| NVIDIA H100 80GB HBM3" and row[1] == "two ops"
    assert row[4] == "3 of 3" and row[5] == "2 of 2"           # rmsnorm from b: 1.1 and 1.0 both count
    _optimize(tmp_path / "c", "NVIDIA H100 80GB HBM3", [_session("rmsnorm", [1.1, 0.9999])])
    (tmp_path / "m.yaml").write_text("- optimize: [c/optimize_bench.json]\n  what: one op\n")
    row = standing.render(tmp_path / "m.yaml").splitlines()[2].split(" | ")
    assert row[4] == "1 of 2" and row[5] == "0 of 1"           # 0.9999 is below the bar


def test_a_row_over_two_cards_is_refused(standing, tmp_path):
    _optimize(tmp_path / "a", "NVIDIA H100 80GB HBM3", [_session("rmsnorm", [1.2])])
    _optimize(tmp_path / "b", "NVIDIA H200", [_session("softmax", [1.1])])
    (tmp_path / "m.yaml").write_text("- optimize: [a/optimize_bench.json, b/optimize_bench.json]\n  what: x\n")
    with pytest.raises(standing.StandingError, match="2 cards"):
        standing.render(tmp_path / "m.yaml")


def test_a_suite_row_names_the_operators_a_run_left_partial(standing, tmp_path):
    sb = load_tool("suite_bench")
    row = {"shape": "s1", "us": 10.0, "kernel": "k", "x_compile": 1.1, "compile_us": 11.0, "method": "events",
           "compile_method": "events"}
    entry = {"kernels": {"k": {"status": "accepted", "rows": [row]}}, "device": {"name": "NVIDIA H100 80GB HBM3"}}
    data = {"format": sb.FORMAT, "ops": {"a": entry, "b": {**entry, sb.PARTIAL: True}}}
    (tmp_path / "toy.json").write_text(json.dumps(data))
    (tmp_path / "m.yaml").write_text("- suite: toy.json\n")
    cells = standing.render(tmp_path / "m.yaml").splitlines()[2].split(" | ")
    assert cells[1] == "toy, 2 of 2 operators (1 partial: b)"


@pytest.mark.parametrize("manifest, message", [
    ("- suite: missing.json\n", "missing.json: no such file"),
    ("- what: neither\n", "entry 1 needs exactly one of"),
    ("- optimize: [a.json]\n", "entry 1 \\(optimize\\) needs `what:`"),
    ("suite: not-a-list\n", "expected a list"),
])
def test_a_bad_manifest_names_the_entry_and_the_rule(standing, tmp_path, manifest, message):
    (tmp_path / "m.yaml").write_text(manifest)
    with pytest.raises(standing.StandingError, match=message):
        standing.render(tmp_path / "m.yaml")


def test_check_fails_when_the_doc_drifts_and_write_mends_it(standing, tmp_path, capsys):
    doc = tmp_path / "doc.md"
    text = (ROOT / "docs" / "benchmarks.md").read_text()
    first_row = text.index("\n| NVIDIA", text.index("<!-- standing:begin -->")) + 1
    doc.write_text(text[:first_row] + text[first_row:].replace("×", "x", 1))   # one figure's cell edited
    assert standing.main(["--check", str(doc)]) == 1
    assert "differs" in capsys.readouterr().err
    assert standing.main(["--write", str(doc)]) == 0
    assert doc.read_text() == text


def test_a_doc_without_the_markers_is_an_error_not_a_rewrite(standing, tmp_path, capsys):
    doc = tmp_path / "doc.md"
    doc.write_text("# no table here\n")
    assert standing.main(["--write", str(doc)]) == 2
    assert "standing:begin" in capsys.readouterr().err and doc.read_text() == "# no table here\n"
