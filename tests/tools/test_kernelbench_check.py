"""tools/kernelbench_check.py without a GPU: its dry run, the ncu CSV parser, the row it makes of an\naka eval result, the suite at CPU sizes and the table of a batch run."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tools import load_tool

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "kernelbench_check.py"


@pytest.fixture(scope="module")
def kc():
    return load_tool("kernelbench_check")


def test_dry_run_loads_every_problem_and_candidate(tmp_path):
    res = subprocess.run([sys.executable, str(TOOL), str(tmp_path), "--dry-run"], capture_output=True,
                         text=True, cwd=ROOT, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    data = json.loads((tmp_path / "dry_run.json").read_text())
    assert len(data) == 10 and {"19_ReLU", "23_Softmax", "36_RMSNorm_", "51_Argmax_over_a_dimension"} <= set(data)
    assert all(r["ok"] and r["kernels"] and r["review"] == [] for r in data.values())
    assert data["36_RMSNorm_"]["input_bytes"] == 112 * 64 * 512 * 512 * 4 == data["36_RMSNorm_"]["output_bytes"]


def test_ncu_rows_are_parsed_in_order_with_their_units(kc):
    head = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
            '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')
    row = '"{i}","1","python3","h","{k}","1","7","(256, 1, 1)","(8, 1, 1)","0","9.0","m","gpu__time_duration.sum","{u}","{v}"'
    text = "\n".join(["==PROF== Connected", head, row.format(i=0, k="_relu_kernel", u="nsecond", v="2,950,112"),
                      row.format(i=1, k="_softmax_row_kernel", u="usecond", v="4100.5")])
    assert kc.parse_ncu_csv(text) == [("_relu_kernel", 2950.112), ("_softmax_row_kernel", 4100.5)]


def test_a_row_takes_aka_sol_or_computes_a_bytes_only_one(kc):
    shape = {"id": "default", "held_out": False, "time": {"median_us": 4000.0, "method": "events", "cv": 0.01},
             "baselines": {"eager": {"median_us": 6000.0}, "torch.compile": {"median_us": 5000.0}},
             "speedup": {"eager": 1.5}, "roofline": None}
    rec = {"wall_s": 9.0, "gpu_memory": {"peak_used_bytes": 40e9},
           "result": {"status": "accepted", "shapes": [shape], "device": {"name": "NVIDIA H200"}}}
    row = kc.summarize_eval(rec, {"input_bytes": 6_000_000_000, "output_bytes": 6_000_000_000})
    assert row["status"] == "accepted" and row["aka_us"] == 4000.0 and row["compile_us"] == 5000.0
    assert row["sol_bytes_only"] == pytest.approx(12e9 / 4.8e12 * 1e6 / 4000.0)
    assert row["peak_gpu_gb"] == 40.0
    shape["roofline"] = {"sol": 0.7, "basis": "bytes-only"}
    rec["result"]["device"]["peak_memory_bytes"] = {"judge": 20e9, "candidate": 19e9}
    again = kc.summarize_eval(rec, {"input_bytes": 1, "output_bytes": 1})
    assert again["sol_source"] == "aka (bytes-only)" and again["sol_bytes_only"] == 0.7
    assert again["aka_peak_gb"] == {"judge": 20.0, "candidate": 19.0}
    failed = kc.summarize_eval({"wall_s": 1.0, "result": {"ok": False, "status": "error", "message": "too small"}},
                               {"input_bytes": 1, "output_bytes": 1})
    assert failed["status"] == "error" and failed["rejection"] == "too small" and failed["aka_us"] is None
    assert "| 19_ReLU | accepted |" in kc.table({"19_ReLU": row})


def test_small_suite_is_the_suite_at_cpu_sizes(kc, tmp_path):
    from aka.batch.suite import discover
    from aka.batch.tasks import find_candidate
    from aka.spec.load import load_op

    suite = kc.small_suite(tmp_path, kc.problems())
    found = discover(suite)
    assert sorted(o.name for o in found.operators) == kc.problems()
    for op in found.operators:
        assert find_candidate(suite / "candidates", op) is not None
        assert load_op(op.path).kernelbench
    assert "dim = 5000" in (suite / "39_L2Norm_.py").read_text()
    assert oct((suite / "candidates").stat().st_mode & 0o777) == "0o755"
    with pytest.raises(ValueError, match="dim9"):
        kc.set_constants("dim = 3\n", {"dim9": 1}, "x.py")


def test_batch_table_from_a_run_folder(kc, tmp_path):
    shape = {"id": "default", "held_out": False, "time": {"median_us": 3000.0, "method": "events"},
             "baselines": {"eager": {"median_us": 4500.0}, "torch.compile": {"median_us": 3300.0}},
             "speedup": {"eager": 1.5, "torch.compile": 1.1}, "max_rel_err": 2e-7,
             "roofline": {"sol": 0.894, "basis": "bytes-only", "bytes": 12.88e9, "t_roof_us": 2684.0}}
    board = {"operators": 3, "done": 2, "errored": 0, "pending": 1, "real_kernel_share": 1 / 3,
             "weighted_sol": 0.298, "sol_basis": ["bytes-only"], "weighted_baseline_sol": {"eager": 0.2},
             "geomean_speedup": {"eager": {"value": 1.5, "operators": 1}},
             "fast_p": {"eager": {"1": 1 / 3, "1.5": 0.0, "2": 0.0}}, "notes": ["some SOLs are bytes-only"],
             "rows": [{"op": "19_ReLU", "state": "done", "status": "accepted", "real_kernel": True},
                      {"op": "23_Softmax", "state": "done", "status": "wrong", "real_kernel": False},
                      {"op": "36_RMSNorm_", "state": "pending", "status": None, "real_kernel": False}]}
    (tmp_path / "scoreboard.json").write_text(json.dumps(board))
    peak = {"peak_memory_bytes": {"judge": 21.68e9, "candidate": 19.6e9}}
    for op, rec, doc in (("19_ReLU", {"wall_s": 41.5, "rejections": []}, {"shapes": [shape], "device": peak}),
                         ("23_Softmax", {"wall_s": 30.0, "rejections": ["wrong-output"]}, {"shapes": []})):
        (tmp_path / "ops" / op).mkdir(parents=True)
        (tmp_path / "ops" / op / "result.json").write_text(json.dumps(rec))
        (tmp_path / "ops" / op / "eval.json").write_text(json.dumps(doc))
    text = kc.batch_table(tmp_path)
    assert ("| 19_ReLU | accepted | 3000.0 | 4500.0 | 3300.0 | 1.50 | 1.10 | 0.894 | 12.88 | 21.68 / 19.60 | "
            "2.0e-07 | 41.5 |" in text)
    assert "| 23_Softmax | wrong (wrong-output) | n/a | n/a | n/a | n/a | n/a | n/a | n/a | — |" in text
    assert "| 23_Softmax | wrong (wrong-output) | n/a |" in text and "| 36_RMSNorm_ | pending | n/a |" in text
    assert "weighted SOL (bytes-only): 0.298; eager reaches 0.200" in text
    assert "vs eager: geomean speedup 1.500 over 1 operators; fast_1 0.33, fast_1.5 0.00, fast_2 0.00" in text
    assert "no scoreboard.json" in kc.batch_table(tmp_path / "nowhere")


def test_ncu_against_a_run_without_ncu_says_so(kc, tmp_path, monkeypatch):
    monkeypatch.setattr(kc, "find_ncu", lambda: None)
    (tmp_path / "scoreboard.json").write_text(json.dumps({"rows": [{"op": "19_ReLU", "state": "done",
                                                                     "status": "accepted"}]}))
    (tmp_path / "ops" / "19_ReLU").mkdir(parents=True)
    (tmp_path / "ops" / "19_ReLU" / "result.json").write_text(json.dumps({"wall_s": 60.0}))
    (tmp_path / "ops" / "19_ReLU" / "eval.json").write_text(json.dumps({"shapes": [
        {"id": "default", "held_out": False, "time": {"median_us": 3371.0, "method": "events"}}]}))
    text = kc.ncu_against(tmp_path, ["19_ReLU"], 30.0, tmp_path / "ncu")
    assert "| 19_ReLU | 3371.0 (events) | n/a — ncu not found | n/a |" in text
    assert (tmp_path / "ncu" / "ncu.json").is_file()
