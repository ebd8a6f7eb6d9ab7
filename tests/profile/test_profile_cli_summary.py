"""`aka profile --parse`, the bottleneck classifier, the summary, units and kernel names."""

import json
import shutil

import pytest
import typer
from typer.testing import CliRunner

from aka.cli.profile_cmd import register
from aka.profile import api
from aka.profile.registry import parse_file
from aka.profile.summary import classify
from aka.profile.textio import number, simplify_name, to_si
from aka.spec.profile import KernelProfile, ProfileReport
from tests.profile.test_api import CAND, RecordingLauncher, fake_tool, prints_page

OP = CAND.parents[1] / "fixtures" / "rmsnorm"

RMS = "direct_ncu_details_full_ncu2025.3.1_H200_generated.csv"


def _app():
    app = typer.Typer()

    @app.callback()
    def main():
        """Test root."""

    register(app)
    return app


def test_cli_parse_prints_summary(fx):
    res = CliRunner().invoke(_app(), ["profile", "--parse", str(fx(RMS))])
    assert res.exit_code == 0
    assert "rmsnorm_kernel is memory-bound" in res.stdout and "DRAM 80.3%" in res.stdout


def test_cli_parse_json_is_one_document(fx):
    files = [str(fx(RMS)), str(fx("rocprofv3_docs_kernel_trace.csv"))]
    res = CliRunner().invoke(_app(), ["profile", "--parse", *files, "--json"])
    assert res.exit_code == 0
    doc = json.loads(res.stdout)
    assert [r["tool"] for r in doc["reports"]] == ["ncu", "rocprofv3"]
    back = ProfileReport.from_dict(doc["reports"][0])
    assert back.kernels[0].dram_throughput_pct == 80.32 and back.bottleneck.kind == "memory-bound"


def test_cli_bad_file_exit_2_names_file(fx):
    bad = fx("ncu_error_output_no_matching_section.txt")
    res = CliRunner().invoke(_app(), ["profile", "--parse", str(fx(RMS)), str(bad), "--json"])
    assert res.exit_code == 2
    assert str(bad) in res.stderr and "==ERROR==" in res.stderr
    doc = json.loads(res.stdout)   # --json: one document, failures included
    assert doc["ok"] is False and doc["error_type"] == "ProfileParseError" and doc["file"] == str(bad)
    assert [e["file"] for e in doc["errors"]] == [str(bad)]


def test_cli_running_needs_a_valid_op():
    res = CliRunner().invoke(_app(), ["profile", "rmsnorm", "cand.py"])
    assert res.exit_code == 2 and "rmsnorm" in res.stderr and "no such file" in res.stderr


def test_cli_profile_of_a_bytes_auto_op_states_traffic_against_its_counted_bytes(tmp_path, monkeypatch, fx):
    fake_tool(tmp_path, monkeypatch, prints_page(fx(RMS)))
    monkeypatch.setattr(api, "resolve", lambda launcher, readable: (RecordingLauncher(), []))
    res = CliRunner().invoke(_app(), ["profile", str(OP), str(CAND), "--shape", "prefill", "--out",
                                      str(tmp_path / "p"), "--json"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)["report"]       # bfloat16 x, its output and the weight, at 4096 x 4096
    assert report["compulsory_bytes"] == (2 * 4096 * 4096 + 4096) * 2
    assert "DRAM traffic 3.64× the compulsory 67.1 MB (244 MB moved)" in report["summary"]


@pytest.mark.parametrize("kw,kind", [
    ({"duration_ns": 2000.0, "dram_throughput_pct": 90.0}, "launch-bound"),
    ({"duration_ns": 1e5, "dram_throughput_pct": 75.0, "sm_throughput_pct": 30.0}, "memory-bound"),
    ({"duration_ns": 1e5, "dram_throughput_pct": 20.0, "sm_throughput_pct": 85.0}, "compute-bound"),
    ({"duration_ns": 1e5, "dram_throughput_pct": 30.0, "sm_throughput_pct": 40.0, "achieved_occupancy_pct": 20.0},
     "latency-bound"),
    ({"duration_ns": 1e5}, "unknown"),
])
def test_classify_thresholds(kw, kind):
    b = classify(KernelProfile(name="k", raw_name="k", **kw))
    assert b.kind == kind
    if kind == "latency-bound":
        assert b.evidence[-1].metric == "achieved_occupancy_pct" and "too few warps" in b.evidence[-1].reading


def test_fixture_bottlenecks_and_summary_length(fx):
    saxpy_tr = parse_file(fx("ncu_raw_page_import_csv_ncu2025.3.1_H200_generated.csv"))
    assert saxpy_tr.bottleneck.kernel == "tr" and saxpy_tr.bottleneck.kind == "latency-bound"
    assert "top stalls: long_scoreboard 40%, barrier 32%" in saxpy_tr.summary
    rep = parse_file(fx(RMS))
    assert "MemoryL2Compression (est. 30%)" in rep.summary
    eager = parse_file(fx("direct_ncu_raw_metrics_ncu2025.3.1_H200_generated.csv"))
    assert "37 kernel record(s)" in eager.summary
    for r in (saxpy_tr, rep, eager):
        assert len(r.summary) <= 1500


def test_units_numbers_and_names():
    assert to_si(58.56, "us") * 1e9 == pytest.approx(58560)
    assert to_si(3.12, "Tbyte/s") == pytest.approx(3.12e12)
    assert to_si(1.02, "Kbyte/block") == pytest.approx(1020)
    assert to_si(3.2, "Ghz") == pytest.approx(3.2e9) and to_si(5, "%") == 5
    assert number("3,199,180,327.87") == pytest.approx(3199180327.87)
    assert number("n/a") is None and number("8,524 (100; 75)") == 8524
    assert simplify_name("_Z5saxpyifPKfPf") == simplify_name("saxpy(int, float, const float *, float *)") == "saxpy"
    assert simplify_name("void benchmark_func<int, 256>(int, int*) [clone .kd]") == "benchmark_func"
    assert simplify_name("vecCopy(double*, double*, double*, int, int) (.kd)") == "vecCopy"


def test_ncu_rep(fx):
    try:
        import ncu_report  # noqa: F401
    except ImportError:
        if not shutil.which("ncu"):
            pytest.skip("needs Nsight Compute (the ncu_report module or ncu on PATH); tested on the GPU machine")
    r = parse_file(fx("ncu_report_ncu2025.3.1_H200_generated.ncu-rep"))
    assert [k.name for k in r.kernels] == ["saxpy", "tr"]
    assert r.kernels[0].duration_ns == pytest.approx(58560) and r.kernels[0].registers_per_thread == 16


def test_compute_underuse_advice_is_dropped_for_a_memory_bound_kernel():
    from aka.profile.summary import summarize
    from aka.spec.profile import ToolRule

    rules = [ToolRule("OPT", "HighPipeUtilization", "All compute pipelines are under-utilized.", 90.0),
             ToolRule("OPT", "CPIStall", "Warps stall on a scoreboard dependency.", 20.0)]
    busy_dram = KernelProfile(name="copy", raw_name="copy", duration_ns=60_000.0, dram_throughput_pct=85.0,
                              memory_throughput_pct=85.0, sm_throughput_pct=20.0, rules=rules)
    rep = ProfileReport(tool="ncu", format="details-csv", source_files=["x.csv"], kernels=[busy_dram])
    rep.bottleneck = classify(busy_dram)
    assert rep.bottleneck.kind == "memory-bound"
    text = summarize(rep)
    assert "CPIStall (est. 20%)" in text and "HighPipeUtilization" not in text
    # the same advice stays for a kernel that is not memory-bound
    idle = KernelProfile(name="tr", raw_name="tr", duration_ns=60_000.0, dram_throughput_pct=30.0,
                         memory_throughput_pct=30.0, sm_throughput_pct=20.0, rules=rules)
    rep2 = ProfileReport(tool="ncu", format="details-csv", source_files=["x.csv"], kernels=[idle])
    rep2.bottleneck = classify(idle)
    assert rep2.bottleneck.kind != "memory-bound"
    assert "HighPipeUtilization (est. 90%)" in summarize(rep2)


def test_stall_reasons_have_one_name_whichever_metric_reports_them():
    from aka.profile.metrics import ncu_stall_label, ncu_stall_reason

    assert ncu_stall_reason("smsp__pcsamp_warps_issue_stalled_no_instructions") == "no_instruction"
    assert ncu_stall_reason("smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio") == "no_instruction"
    assert ncu_stall_label("Stall No Instructions") == ncu_stall_label("Stall No Instruction") == "no_instruction"
    assert ncu_stall_reason("smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued") is None
