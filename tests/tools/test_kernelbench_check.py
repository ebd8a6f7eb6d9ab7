"""tools/kernelbench_check.py without a GPU: its dry run, the ncu CSV parser and the row it makes
of an aka eval result."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "kernelbench_check.py"


@pytest.fixture(scope="module")
def kc():
    spec = importlib.util.spec_from_file_location("kernelbench_check", TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_dry_run_loads_every_problem_and_candidate(tmp_path):
    res = subprocess.run([sys.executable, str(TOOL), str(tmp_path), "--dry-run"], capture_output=True,
                         text=True, cwd=ROOT, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    data = json.loads((tmp_path / "dry_run.json").read_text())
    assert set(data) == {"19_ReLU", "23_Softmax", "36_RMSNorm_"}
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
