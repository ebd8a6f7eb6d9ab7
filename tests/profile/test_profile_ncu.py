"""Nsight Compute outputs: concrete values read from each fixture format."""

import pytest

from aka.profile.registry import parse_file


def _kernel(report, name):
    return next(k for k in report.kernels if k.name == name)


H200_CSV = [
    "ncu_details_page_import_csv_ncu2025.3.1_H200_generated.csv",
    "ncu_details_page_import_csv_print-details-all_print-units-base_ncu2025.3.1_H200_generated.csv",
    "ncu_details_page_import_text_ncu2025.3.1_H200_generated.txt",
    "ncu_raw_page_import_csv_ncu2025.3.1_H200_generated.csv",
    "ncu_raw_page_import_csv_print-units-base_ncu2025.3.1_H200_generated.csv",
    "ncu_raw_page_import_csv_print-metric-instances-values_ncu2025.3.1_H200_generated.csv",
]


@pytest.mark.parametrize("name", H200_CSV)
def test_same_report_every_page_and_unit_mode(fx, name):
    r = parse_file(fx(name))
    assert r.tool == "ncu" and [k.name for k in r.kernels] == ["saxpy", "tr"]
    saxpy, tr = r.kernels
    assert saxpy.raw_name == "saxpy(int, float, const float *, float *)"
    assert saxpy.duration_ns == pytest.approx(58560, abs=1)
    assert saxpy.grid == (65536, 1, 1) and saxpy.block == (256, 1, 1)
    assert saxpy.registers_per_thread == 16 and saxpy.shared_mem_bytes == 0
    assert saxpy.dram_throughput_pct == pytest.approx(64.93, abs=0.01)
    assert saxpy.sm_throughput_pct == pytest.approx(34.39, abs=0.01)
    assert saxpy.achieved_occupancy_pct == pytest.approx(74.65, abs=0.01)
    assert saxpy.theoretical_occupancy_pct == 100
    assert saxpy.occupancy_limiter == "warps"
    assert saxpy.l1_hit_rate_pct == pytest.approx(32.94, abs=0.01)
    assert saxpy.l2_hit_rate_pct == pytest.approx(34.02, abs=0.01)
    assert tr.grid == (128, 128, 1) and tr.block == (32, 32, 1)
    assert tr.shared_mem_bytes == pytest.approx(4224, abs=5)
    assert tr.duration_ns == pytest.approx(70336, abs=5)
    assert tr.occupancy_limiter == "warps"  # 2 blocks by warps, 3 by shared memory, 4 by registers


def test_details_rules_with_speedups(fx):
    r = parse_file(fx("ncu_details_page_import_csv_ncu2025.3.1_H200_generated.csv"))
    saxpy = r.kernels[0]
    assert [x.type for x in saxpy.rules].count("OPT") == 5
    by_name = {(x.name, x.type): x for x in saxpy.rules}
    assert by_name[("HighPipeUtilization", "OPT")].estimated_speedup_pct == pytest.approx(94.85)
    assert by_name[("HighPipeUtilization", "OPT")].speedup_type == "local"
    assert by_name[("AchievedOccupancy", "OPT")].estimated_speedup_pct == pytest.approx(25.35)
    assert ("CPIStall", "WRN") in by_name and ("CPIStall", "INF") in by_name
    assert by_name[("SOLBottleneck", "OPT")].message.startswith("Memory is more heavily utilized than Compute")


def test_text_page_rules_match_csv(fx):
    text = parse_file(fx("ncu_details_page_import_text_ncu2025.3.1_H200_generated.txt"))
    assert [len(k.rules) for k in text.kernels] == [7, 8]
    speedups = sorted(x.estimated_speedup_pct for x in text.kernels[0].rules if x.estimated_speedup_pct)
    assert speedups == [25.35, 35.07, 35.07, 94.85]


def test_stalls_from_body_items_and_raw_page(fx):
    for name in H200_CSV[1], H200_CSV[3]:
        saxpy, tr = parse_file(fx(name)).kernels
        assert saxpy.stalls[0].reason == "long_scoreboard"
        assert saxpy.stalls[0].value == pytest.approx(56.83, abs=0.01)
        assert saxpy.stalls[0].share_pct == pytest.approx(82.1, abs=0.2)
        assert [s.reason for s in tr.stalls[:2]] == ["long_scoreboard", "barrier"]
        assert all("selected" != s.reason for s in saxpy.stalls)


def test_direct_profile_with_app_stdout_and_prof_noise(fx):
    r = parse_file(fx("direct_ncu_details_full_ncu2025.3.1_H200_generated.csv"))
    (k,) = r.kernels
    assert k.name == "rmsnorm_kernel" and k.duration_ns == pytest.approx(63200)
    assert k.dram_throughput_pct == pytest.approx(80.32) and k.registers_per_thread == 32
    assert r.bottleneck.kind == "memory-bound"
    assert r.bottleneck.evidence[0].metric == "dram_throughput_pct" and r.bottleneck.evidence[0].threshold == 60


def test_direct_raw_metrics_many_eager_kernels(fx):
    r = parse_file(fx("direct_ncu_raw_metrics_ncu2025.3.1_H200_generated.csv"))
    assert len(r.kernels) == 37
    rms = [k for k in r.kernels if k.name == "rmsnorm_kernel"]
    assert len(rms) == 3
    assert rms[0].duration_ns == 63712 and rms[0].dram_bytes == 134241024 + 109911040
    assert rms[0].grid == (16384, 1, 1) and rms[0].memory_throughput_pct == pytest.approx(79.66)
    assert "at::reduce_kernel" in {k.name for k in r.kernels}


def test_base_units_are_normalized(fx):
    r = parse_file(fx("direct_ncu_raw_base_units_ncu2025.3.1_H200_generated.csv"))
    assert len(r.kernels) == 2
    assert r.kernels[0].duration_ns == pytest.approx(157504)
    assert r.kernels[0].name == "distribution_elementwise_grid_stride_kernel"


def test_prof_lines_before_csv_and_plain_text_raw(fx):
    csv_k = parse_file(fx("ncu_raw_page_profile_csv_stdout_with_PROF_lines_ncu2025.3.1_H200_generated.txt")).kernels
    assert len(csv_k) == 1 and csv_k[0].name == "saxpy"
    assert csv_k[0].duration_ns == pytest.approx(58976) and csv_k[0].registers_per_thread == 16
    text_k = parse_file(fx("ncu_raw_page_profile_text_ncu2025.3.1_H200_generated.txt")).kernels
    assert text_k[0].name == "saxpy" and text_k[0].grid == (65536, 1, 1)
    assert text_k[0].duration_ns == pytest.approx(59420)


def test_rtx5090_details_and_sections(fx):
    gemv = parse_file(fx("ncu_details_page_import_csv_ncu2025.1_RTX5090_gemv.csv")).kernels[0]
    assert gemv.name == "kernel" and gemv.raw_name.startswith("enable_if<!T7, void>::type kernel<")
    assert gemv.duration_ns == pytest.approx(6750) and gemv.block == (32, 4, 1)
    assert gemv.dram_throughput_pct == pytest.approx(19.66)
    ew = parse_file(fx("ncu_details_page_import_csv_ncu2025.1_RTX5090_elementwise_occupancy_rule.csv")).kernels[0]
    assert ew.name == "vectorized_elementwise_kernel" and ew.dram_bytes == pytest.approx(6.56e6)
    occ = parse_file(fx("ncu_section_Occupancy_import_csv_ncu2025.1_RTX5090_gemv.csv")).kernels[0]
    assert occ.achieved_occupancy_pct == pytest.approx(11.32) and occ.theoretical_occupancy_pct == pytest.approx(16.67)
    for section in ("MemoryWorkloadAnalysis", "SchedulerStats", "SpeedOfLight", "RooflineChart_print-details-all"):
        name = f"ncu_section_{section}_import_csv_ncu2025.1_RTX5090_gemv.csv"
        assert parse_file(fx(name)).kernels[0].grid == (224, 1, 1)
