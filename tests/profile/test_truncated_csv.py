"""Profiler CSVs cut off mid-row: the incomplete last row is dropped with a warning naming its line
and kernel, never silently, and no cut kernel name is kept as if whole."""

from __future__ import annotations

import json
import warnings as pywarnings

import pytest
import typer
from typer.testing import CliRunner

from aka.cli.profile_cmd import register
from aka.errors import ProfileParseError
from aka.profile.registry import parse_file
from aka.profile.textio import table, warn
from aka.spec.profile import ProfileReport

NCU_RAW = "ncu_raw_page_import_csv_ncu2025.3.1_H200_generated.csv"
NCU_DETAILS = "direct_ncu_details_full_ncu2025.3.1_H200_generated.csv"
NSYS = "nsys_stats_cuda_gpu_kern_sum_csv_RTX5090_clip.csv"
ROCPROF3_TRACE = "rocprofv3_docs_kernel_trace.csv"
KOKKOS = "rocprof_v1_results.stats_2021_unquoted_names_kokkos.csv"


def cut_after(fx, tmp_path, name: str, marker: str, nth_last_line: int = 1):
    """A copy of fixture `name` ending right after `marker`, searched in its nth-last line."""
    data = fx(name).read_text()
    lines = data.rstrip("\n").split("\n")
    line_no = len(lines) - nth_last_line
    line = lines[line_no]
    assert marker in line, (marker, line[:200])
    kept = "\n".join(lines[:line_no] + [line[: line.index(marker) + len(marker)]])
    out = tmp_path / name
    out.write_text(kept)
    return out, line_no + 1


def raw_names(report: ProfileReport) -> set[str]:
    return {k.raw_name for k in report.kernels}


@pytest.mark.parametrize("name", [NCU_RAW, NCU_DETAILS, NSYS, ROCPROF3_TRACE, KOKKOS])
def test_whole_files_have_no_warnings(fx, name):
    assert parse_file(fx(name)).warnings == []


def test_ncu_raw_cut_inside_a_kernel_name_drops_that_kernel(fx, tmp_path):
    path, line = cut_after(fx, tmp_path, NCU_RAW, '"tr(const float')
    report = parse_file(path)
    assert raw_names(report) == {"saxpy(int, float, const float *, float *)"}
    [w] = report.warnings
    assert f"line {line}:" in w and "unterminated quoted field" in w
    assert "kernel 'tr(const float' (its name is cut off there, so it is not kept)" in w


def test_ncu_raw_cut_between_fields_names_kernel_and_id(fx, tmp_path):
    path, line = cut_after(fx, tmp_path, NCU_RAW, '"tr(const float *, float *, int)","1","7",')
    report = parse_file(path)
    assert "tr(const float *, float *, int)" not in raw_names(report)
    [w] = report.warnings
    assert f"line {line}:" in w and "fields" in w and "dropped that row" in w
    assert "kernel 'tr(const float *, float *, int)', ID 1" in w


def test_ncu_details_cut_in_a_metric_value_keeps_the_kernel_but_says_which_metric(fx, tmp_path):
    whole = parse_file(fx(NCU_DETAILS))
    path, line = cut_after(fx, tmp_path, NCU_DETAILS, '"Avg. Divergent Branches","branches","')
    report = parse_file(path)
    assert raw_names(report) == raw_names(whole)
    [w] = report.warnings
    assert f"line {line}:" in w and "kernel 'rmsnorm_kernel', ID 0, Metric Name Avg. Divergent Branches" in w


def test_nsys_cut_inside_the_last_kernel_name(fx, tmp_path):
    whole = parse_file(fx(NSYS))
    path, _ = cut_after(fx, tmp_path, NSYS, '"void at::native::vectorized_gather_kernel<(int)16')
    report = parse_file(path)
    assert len(report.kernels) == len(whole.kernels) - 1
    assert raw_names(report) < raw_names(whole)   # nothing new: no cut name kept as a kernel
    assert "vectorized_gather_kernel<(int)16' (its name is cut off there" in report.warnings[0]


def test_nsys_cut_in_the_numbers_before_the_name(fx, tmp_path):
    path, _ = cut_after(fx, tmp_path, NSYS, "0.1,1824,1,18")
    report = parse_file(path)
    assert not any("vectorized_gather" in n for n in raw_names(report))
    assert "4 of 9 fields" in report.warnings[0] and "its kernel name is missing" in report.warnings[0]


def test_rocprofv3_trace_row_without_its_newline_is_not_trusted(fx, tmp_path):
    whole = parse_file(fx(ROCPROF3_TRACE))
    path, line = cut_after(fx, tmp_path, ROCPROF3_TRACE, ",1024,1024,1")   # whole-looking, but unterminated
    report = parse_file(path)
    launches = {k.name: k.launches for k in report.kernels}
    assert launches["multiply_kernel"] == {k.name: k.launches for k in whole.kernels}["multiply_kernel"] - 1
    [w] = report.warnings
    assert f"line {line}:" in w and "without a newline" in w and "kernel 'multiply_kernel(" in w
    assert "Dispatch_Id 11" in w


def test_rocprof_v1_unquoted_name_cut_is_not_kept(fx, tmp_path):
    whole = parse_file(fx(KOKKOS))
    path, _ = cut_after(fx, tmp_path, KOKKOS, "Kokkos::RangePolicy<Kokkos::Experimental::HIP", nth_last_line=2)
    report = parse_file(path)
    assert raw_names(report) < raw_names(whole) and report.warnings


def test_a_file_whose_only_row_is_cut_is_a_parse_error_that_says_so(fx, tmp_path):
    path, _ = cut_after(fx, tmp_path, "rocprof_v1_results.stats_HGLiu1998.csv", "unsigned int, unsign")
    with pytest.raises(ProfileParseError) as info:
        parse_file(path)
    assert "cut off" in info.value.message and info.value.path == str(path)


def test_trailing_noise_line_is_not_a_cut_row(tmp_path):
    text = '"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n"k",1,10,10,100.0\n==PROF== Disconnected'
    header, rows = table(text, lambda c: c[:1] == ["Name"], "x.csv", "stats")
    assert rows[0][0] == "k"


def test_warnings_survive_json_round_trip_and_reach_the_cli(fx, tmp_path):
    path, _ = cut_after(fx, tmp_path, NCU_RAW, '"tr(const float')
    report = parse_file(path)
    assert ProfileReport.from_dict(json.loads(json.dumps(report.to_dict()))).warnings == report.warnings

    app = typer.Typer()

    @app.callback()
    def main():
        """Test root."""

    register(app)
    res = CliRunner().invoke(app, ["profile", "--parse", str(path), "--json"])
    assert res.exit_code == 0
    assert json.loads(res.stdout)["reports"][0]["warnings"] == report.warnings
    assert "warning: " in res.stderr and "tr(const float" in res.stderr


def test_warn_outside_a_parse_is_a_python_warning():
    with pytest.warns(UserWarning, match="cut off"):
        warn("x.csv: line 3: cut off")
    with pywarnings.catch_warnings():
        pywarnings.simplefilter("error")
        table('"a","b"\n"1","2"\n', lambda c: c == ["a", "b"], "x.csv", "t")  # whole: no warning
