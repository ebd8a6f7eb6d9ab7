"""Files that are not profiles, broken files and fuzzed fixtures: only ProfileParseError, never a traceback."""

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aka.errors import ProfileParseError
from aka.profile.registry import parse_file
from aka.spec.profile import ProfileReport

from .conftest import FIXTURES

NOT_PROFILES = {
    "ncu_error_output_no_matching_section.txt": "did not match any section",
    "ncu_list-sections_output_ncu2025.1.1.txt": "--list-sections",
    "ncu_list-sections_output_ncu2025.3.1_H200_generated.txt": "--list-sections",
    "ncu_list-sets_output_ncu2025.3.1_H200_generated.txt": "--list-sets",
    "ncu_version_ncu2025.3.1_H200_generated.txt": "--version",
    "ncu_profile_stdout_ncu2025.3.1_H200_generated.txt": "/tmp/r.ncu-rep",
    "ncu_report_python_module_api_dir_ncu2025.3.1_H200_generated.txt": "ncu_report",
    "nvml_pynvml_queries_H200_generated.json": "JSON",
    "omniperf_1.x_sysinfo_MI200_rocm5.1.3.csv": "sysinfo",
    "omniperf_1.x_analyze_saved_df_201_system_speed_of_light_MI200.csv": "pmc_perf.csv",
    "omniperf_2.0.0_rocprofv2_MI300X_sysinfo.csv": "sysinfo",
    "rocprof_compute_3.3.0_MI300X_sysinfo.csv": "sysinfo",
    "omniperf_2.0.0_rocprofv2_MI300X_profile_log.txt": "log",
    "rocprof_compute_3.3.0_MI300X_log.txt": "log",
    "rocprof_compute_3.3.0_MI300X_profiling_config.yaml": "YAML",
    "rocprof_compute_3.3.0_MI300X_roofline.csv": "roofline",
    "rocprof_compute_3.3.0_MI300X_pmc_dispatch_info.csv": "without timings, counters or launch sizes",
    "rocprof_v1_results.copy_stats_HGLiu1998.csv": "not kernel statistics",
    "rocprof_v1_results.hip_stats_HGLiu1998.csv": "not kernel statistics",
    "rocprof_v1_results.hip_stats_2021_unquoted_kokkos.csv": "not kernel statistics",
    "rocprofv3_docs_hip_api_stats.csv": "not kernel statistics",
    "rocprofv3_docs_hip_domain_stats.csv": "not kernel statistics",
    "rocprofv3_docs_list-avail_gfx90a.txt": "--list-avail",
    "rocprofv3_docs_memory_copy_trace.csv": "memory_copy_trace",
    "rocprofv3_docs_rocpd-to-csv.csv": "API trace",
}


@pytest.mark.parametrize("name,says", sorted(NOT_PROFILES.items()))
def test_non_profiles_rejected_clearly(fx, name, says):
    with pytest.raises(ProfileParseError) as info:
        parse_file(fx(name))
    assert info.value.path.endswith(name) and says in info.value.message


def test_every_other_fixture_parses(fx):
    names = {p.name for p in FIXTURES.iterdir()} - set(NOT_PROFILES) - {"SOURCES.md"}
    names.discard("ncu_report_ncu2025.3.1_H200_generated.ncu-rep")
    assert len(names) == 37
    for name in sorted(names):
        report = parse_file(fx(name))
        assert report.kernels and report.summary, name


@pytest.mark.parametrize("content,says", [
    (b"", "empty"), (b"\x00\x01\x02binary\xff" * 10, "not a recognized"),
    (b"hello,world\n1,2\n", "not a recognized"),
    (b'"ID","Process ID","Process Name","Host Name","Kernel Name"\n', "no kernels"),
    (b'"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n', "no kernel rows"),
])
def test_broken_inputs(tmp_path, content, says):
    f = tmp_path / "x.csv"
    f.write_bytes(content)
    with pytest.raises(ProfileParseError) as info:
        parse_file(f)
    assert says in info.value.message and str(f) in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(ProfileParseError, match="cannot read"):
        parse_file(tmp_path / "nope.csv")


def test_truncated_rep_is_a_parse_error(tmp_path, fx):
    """Without Nsight Compute: says it is needed; with it (GPU machine): ncu_report may crash on a
    truncated file, which must still come back as a ProfileParseError naming the file."""
    from aka.profile.ncu_text import _import_ncu_report

    f = tmp_path / "r.ncu-rep"
    f.write_bytes(fx("ncu_report_ncu2025.3.1_H200_generated.ncu-rep").read_bytes()[:100])
    have_nsight = _import_ncu_report() is not None or shutil.which("ncu")
    with pytest.raises(ProfileParseError, match=str(f) if have_nsight else "needs Nsight Compute"):
        parse_file(f)


FUZZ_SOURCES = [
    "ncu_details_page_import_csv_ncu2025.3.1_H200_generated.csv",
    "ncu_raw_page_import_csv_ncu2025.3.1_H200_generated.csv",
    "ncu_details_page_import_text_ncu2025.3.1_H200_generated.txt",
    "nsys_stats_cuda_gpu_kern_sum_csv_RTX5090_clip.csv",
    "rocprof_v1_results.stats_2021_unquoted_names_kokkos.csv",
    "rocprofv3_docs_kernel_trace.csv",
    "rocprofv3_docs_counter_collection.csv",
    "omniperf_2.0.0_rocprofv2_MI300X_pmc_perf.csv",
    "rocprof_v1_results_csv_stats-mode_MI300_gfx942_gunrock.csv",
]


@st.composite
def mutated(draw):
    data = (FIXTURES / draw(st.sampled_from(FUZZ_SOURCES))).read_bytes()
    kind = draw(st.sampled_from(["truncate", "flip", "empty", "binary", "drop_lines"]))
    if kind == "truncate":
        return data[: draw(st.integers(0, len(data)))]
    if kind == "flip":
        out = bytearray(data)
        for _ in range(draw(st.integers(1, 20))):
            out[draw(st.integers(0, len(out) - 1))] = draw(st.integers(0, 255))
        return bytes(out)
    if kind == "drop_lines":
        lines = data.split(b"\n")
        keep = draw(st.lists(st.booleans(), min_size=len(lines), max_size=len(lines)))
        return b"\n".join(line for line, k in zip(lines, keep) if k)
    return b"" if kind == "empty" else draw(st.binary(min_size=1, max_size=2000))


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="profiler fixtures not found")
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=mutated())
def test_fuzzed_fixtures_yield_report_or_parse_error(tmp_path, data):
    f = tmp_path / "fuzzed.csv"
    f.write_bytes(data)
    try:
        report = parse_file(f)
    except ProfileParseError as exc:
        assert exc.path == str(f) and exc.message
    else:
        assert isinstance(report, ProfileReport) and report.kernels
