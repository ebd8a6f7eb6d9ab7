"""nsys and AMD (rocprof v1/v2/v3, rocprof-compute, omniperf) outputs: concrete values per format."""

import pytest

from aka.profile.amd import read_sysinfo
from aka.profile.registry import parse_file


def _by_name(report):
    return {k.name: k for k in report.kernels}


def test_nsys_cuda_gpu_kern_sum(fx):
    r = parse_file(fx("nsys_stats_cuda_gpu_kern_sum_csv_RTX5090_clip.csv"))
    assert r.tool == "nsys" and len(r.kernels) == 19
    k = r.kernels[0]
    assert k.name == "cutlass::Kernel2" and k.launches == 22
    assert k.total_duration_ns == 907697 and k.duration_ns == 41259.0
    assert k.metrics["time_share_pct"] == 26.5 and k.metrics["min_duration_ns"] == 39521


def test_rocprof_v1_stats_quoted(fx):
    r = parse_file(fx("rocprof_v1_results.stats_HGLiu1998.csv"))
    (k,) = r.kernels
    assert r.tool == "rocprof" and k.name == "batched_matrix_multiplication"
    assert k.launches == 1 and k.total_duration_ns == 331634184678


def test_rocprof_v1_stats_unquoted_names_with_commas(fx):
    r = parse_file(fx("rocprof_v1_results.stats_2021_unquoted_names_kokkos.csv"))
    assert len(r.kernels) == 8
    last = r.kernels[3]
    assert last.raw_name.startswith("void Kokkos::Experimental::Impl::hip_parallel_launch_local_memory<")
    assert last.raw_name.endswith("Kokkos::Experimental::HIP> const*)")
    assert (last.launches, last.total_duration_ns, last.duration_ns) == (2, 161120, 80560)
    assert last.metrics["time_share_pct"] == pytest.approx(9.766, abs=1e-3)


def test_rocprof_v1_stats_long_names_and_trace_agree(fx):
    stats = _by_name(parse_file(fx("rocprof_v1_results.stats_MI300_gfx942_gunrock_long_kernel_names.csv")))
    trace = _by_name(parse_file(fx("rocprof_v1_results_csv_stats-mode_MI300_gfx942_gunrock.csv")))
    assert set(stats) == set(trace)
    copy_s, copy_t = stats["__amd_rocclr_copyBuffer"], trace["__amd_rocclr_copyBuffer"]
    assert copy_s.launches == copy_t.launches == 19
    assert copy_s.total_duration_ns == copy_t.total_duration_ns == 580607
    assert copy_t.grid == (155648,) and copy_t.block == (512,) and copy_t.registers_per_thread == 16


def test_rocprof_v1_timestamps_and_pmc(fx):
    ts = parse_file(fx("rocprof_v1_results_timestamps_MI200_rocm5.1.3.csv"))
    assert ts.tool == "rocprof" and len(ts.kernels) == 167
    k = ts.kernels[1]
    assert k.name == "benchmark_func" and k.duration_ns == 17250658712016 - 17250658698896
    pmc = parse_file(fx("rocprof_v1_results_pmc_SQ_LEVEL_WAVES_MI200_rocm5.1.3.csv"))
    assert pmc.kernels[0].amd_counters["SQ_WAVES"] == 524288
    assert pmc.kernels[0].grid == (33554432,) and pmc.kernels[0].registers_per_thread == 4


def test_rocprofv2_timestamps_rounded_away_launch_config_kept(fx):
    (k,) = parse_file(fx("omniperf_2.0.0_rocprofv2_MI300X_timestamps.csv")).kernels
    assert (k.name, k.launches, k.duration_ns, k.grid, k.registers_per_thread) == ("vecCopy", 3, None, (1048576,), 4)


def test_rocprofv2_csv_timestamps_unusable_counters_kept(fx):
    r = parse_file(fx("omniperf_2.0.0_rocprofv2_MI300X_SQ_LEVEL_WAVES.csv"))
    (k,) = r.kernels
    assert r.tool == "rocprofv2" and k.name == "vecCopy" and k.launches == 3
    assert k.duration_ns is None  # Start == End (8.1097E+14) in the committed file
    assert k.amd_counters["SQ_WAVES"] == 16384 and k.grid == (1048576,) and k.block == (256,)


@pytest.mark.parametrize("name,kernels,first", [
    ("rocprofv3_docs_kernel_trace.csv", 4, ("addition_kernel", 11346.67, (1024, 1024, 1), 8)),
    ("rocprofv3_docs_kernel_trace_OLD_2024_format.csv", 3, ("addition_kernel", 103376.5, (1024, 1024, 1), None)),
    ("rocprofv3_docs_kernel_trace_truncated.csv", 4, ("addition_kernel", 11640, (1024, 1024, 1), 8)),
])
def test_rocprofv3_kernel_trace_layouts(fx, name, kernels, first):
    r = parse_file(fx(name))
    assert r.tool == "rocprofv3" and len(r.kernels) == kernels
    k = r.kernels[0]
    assert (k.name, k.grid, k.registers_per_thread) == (first[0], first[2], first[3])
    assert k.duration_ns == pytest.approx(first[1], abs=0.01) and k.block == (64, 1, 1)


def test_rocprofv3_counter_collection_new_and_old(fx):
    new = parse_file(fx("rocprofv3_docs_counter_collection.csv"))
    assert new.tool == "rocprofv3" and [k.name for k in new.kernels][:2] == ["addition_kernel", "subtract_kernel"]
    assert new.kernels[0].amd_counters["SQ_WAVES"] == 16384
    assert new.kernels[0].duration_ns == 3200098838483232 - 3200098838431081
    old = parse_file(fx("rocprofv3_docs_counter_collection_OLD_2024_format.csv"))
    add = _by_name(old)["addition_kernel"]
    assert add.launches == 4 and add.duration_ns is None and add.amd_counters["SQ_WAVES"] == 16384


def test_rocprof_compute_pmc_perf_with_sysinfo(fx):
    r = parse_file(fx("rocprof_compute_3.3.0_MI300X_pmc_perf.csv"))
    assert r.tool == "rocprof-compute" and r.device["name"] == "MI300X_A1" and r.device["cu_count"] == 304
    bmm = r.kernels[0] if r.kernels[0].launches == 150 else r.kernels[1]
    assert bmm.name == "batched_matrix_multiplication_matrix_core_64x64x4" and bmm.launches == 150
    assert bmm.duration_ns == pytest.approx(29053.57, abs=0.1)  # pmc_kernel_top.csv says 29053.567
    assert bmm.registers_per_thread == 48 and bmm.block == (256,)
    c = bmm.amd_counters
    assert {"FETCH_SIZE", "WRITE_SIZE", "VALUBusy", "MemUnitBusy", "LDSBankConflict"} <= set(c)
    assert c["SQ_LDS_BANK_CONFLICT"] == 2097152 and bmm.l2_hit_rate_pct == pytest.approx(75.59, abs=0.01)
    assert bmm.dram_bytes == pytest.approx((c["FETCH_SIZE"] + c["WRITE_SIZE"]) * 1024)
    assert r.device["xcd_count"] == 8  # GRBM_GUI_ACTIVE is summed over the 8 dies: divided back
    assert all(0 <= c[k] <= 100 for k in ("VALUBusy", "MemUnitBusy", "LDSBankConflict"))


def test_busy_percentages_use_one_die_s_cycles_on_a_multi_die_gpu():
    from aka.profile.amd import _derive

    c = {"GRBM_GUI_ACTIVE": 8 * 60_000.0, "SQ_ACTIVE_INST_VALU": 304 * 30_000.0, "TA_TA_BUSY_sum": 304 * 6_000.0}
    one_die = _derive(c, cus=304, xcds=8)
    assert one_die["VALUBusy"] == pytest.approx(50.0) and one_die["MemUnitBusy"] == pytest.approx(10.0)
    assert one_die["GRBM_GUI_ACTIVE_per_xcd"] == 60_000.0
    summed = _derive(c, cus=304)  # no die count known (e.g. no sysinfo.csv): taken as is
    assert summed["VALUBusy"] == pytest.approx(50.0 / 8)


def test_omniperf_pmc_perf_and_kernel_top_tables(fx):
    r = parse_file(fx("omniperf_2.0.0_rocprofv2_MI300X_pmc_perf.csv"))
    (k,) = r.kernels
    assert k.amd_counters["WRITE_SIZE"] == 8192 and r.device["rocm_version"] == "6.2.0-13611"
    top = parse_file(fx("rocprof_compute_3.3.0_MI300X_pmc_kernel_top.csv"))
    assert top.kernels[0].launches == 150 and top.kernels[0].duration_ns == pytest.approx(29053.567, abs=1e-3)
    mi200 = parse_file(fx("omniperf_1.x_analyze_saved_df_1_top_kernels_MI200.csv"))
    assert len(mi200.kernels) == 10 and mi200.kernels[0].total_duration_ns == 3358076


def test_sysinfo_read_as_device_context(fx):
    info = read_sysinfo(fx("omniperf_1.x_sysinfo_MI200_rocm5.1.3.csv"))
    assert info["arch"] == "gfx90a" and info["cu_count"] == 104 and info["peak_hbm_bw_gbs"] == 1638.4
    assert read_sysinfo(fx("rocprof_compute_3.3.0_MI300X_sysinfo.csv"))["rocm_version"] == "7.1.0"
