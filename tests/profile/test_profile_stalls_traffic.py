"""Stall breakdowns from every Nsight Compute output that carries stall data (one test per family),
the honest 'no stall data' line where none does, and DRAM traffic against the compulsory bytes."""

import shutil

import pytest

from aka.profile import metrics as M
from aka.profile.ncu import KernelAcc, build_kernel
from aka.profile.registry import parse_file
from aka.profile.summary import summarize, traffic_line
from aka.spec.profile import KernelProfile, ProfileReport

H200 = "ncu2025.3.1_H200_generated"
PER_ISSUE = [  # the WarpStateStats chart, or the raw smsp__average_warps_issue_stalled_* metrics
    f"ncu_details_page_import_csv_print-details-all_print-units-base_{H200}.csv",
    f"ncu_raw_page_import_csv_{H200}.csv",
    f"ncu_raw_page_import_csv_print-units-base_{H200}.csv",
    f"ncu_raw_page_import_csv_print-metric-instances-values_{H200}.csv",
]
RULE_ONLY = [  # details pages printed without --print-details all: the CPIStall rule's text only
    f"ncu_details_page_import_csv_{H200}.csv",
    f"ncu_details_page_import_text_{H200}.txt",
]
NO_STALLS = [  # WarpStateStats never collected
    "ncu_details_page_import_csv_ncu2025.1_RTX5090_gemv.csv",
    "ncu_details_page_import_csv_ncu2025.1_RTX5090_elementwise_occupancy_rule.csv",
    "ncu_details_page_metrics_flag_import_csv_ncu2025.1_RTX5090_gemv.csv",
    "ncu_section_SchedulerStats_import_csv_ncu2025.1_RTX5090_gemv.csv",
    f"direct_ncu_raw_metrics_{H200}.csv",
    f"direct_ncu_raw_base_units_{H200}.csv",
    f"ncu_raw_page_profile_text_{H200}.txt",
]


def _ranked(k: KernelProfile) -> bool:
    return all(a.value >= b.value for a, b in zip(k.stalls, k.stalls[1:]))


@pytest.mark.parametrize("name", PER_ISSUE)
def test_per_issue_breakdown_complete_and_ranked(fx, name):
    saxpy, tr = parse_file(fx(name)).kernels
    assert saxpy.stall_source == tr.stall_source == "per-issue" and saxpy.stall_note == ""
    assert [s.reason for s in saxpy.stalls] == ["long_scoreboard", "short_scoreboard", "wait", "drain", "mio_throttle"]
    assert [s.reason for s in tr.stalls[:3]] == ["long_scoreboard", "barrier", "mio_throttle"]
    assert saxpy.stalls[0].share_pct == pytest.approx(82.1, abs=0.1)   # of 69.2 cycles per issued instruction
    assert _ranked(saxpy) and _ranked(tr)


@pytest.mark.parametrize("name", RULE_ONLY + [f"direct_ncu_details_full_{H200}.csv"])
def test_details_page_without_body_falls_back_to_the_cpistall_rule(fx, name):
    r = parse_file(fx(name))
    by = {k.name: k for k in r.kernels}
    if "rmsnorm_kernel" in by:   # the H200 softmax/rmsnorm case: --set full, details page, no body
        k = by["rmsnorm_kernel"]
        assert [(s.reason, s.value, s.share_pct) for s in k.stalls] == [("long_scoreboard", 22.0, 60.4)]
    else:
        assert [(s.reason, s.share_pct) for s in by["saxpy"].stalls] == [("long_scoreboard", 82.1)]
        assert [(s.reason, s.share_pct) for s in by["tr"].stalls] == [("long_scoreboard", 40.3), ("barrier", 31.7)]
    for k in r.kernels:
        assert k.stall_source == "rule" and _ranked(k)
    assert "top stalls (only those ncu's CPIStall rule flagged): long_scoreboard" in r.summary


def test_per_warp_latency_metrics_with_suffix_columns(fx):
    (k,) = parse_file(fx(f"ncu_raw_page_profile_csv_stdout_with_PROF_lines_{H200}.txt")).kernels
    assert k.stall_source == "per-warp"
    assert [(s.reason, s.value) for s in k.stalls] == [("long_scoreboard", pytest.approx(1130.91))]  # .ratio, not .pct
    assert M.ncu_stall_metric("smsp__average_warp_latency_issue_stalled_long_scoreboard.pct") is None


def test_ncu_rep_breakdown(fx):
    try:
        import ncu_report  # noqa: F401
    except ImportError:
        if not shutil.which("ncu"):
            pytest.skip("needs Nsight Compute (the ncu_report module or ncu on PATH); tested on the GPU machine")
    saxpy, tr = parse_file(fx(f"ncu_report_{H200}.ncu-rep")).kernels
    assert saxpy.stalls[0].reason == "long_scoreboard" and [s.reason for s in tr.stalls[:2]] == ["long_scoreboard", "barrier"]


@pytest.mark.parametrize("name", NO_STALLS)
def test_profiles_without_stall_data_say_so(fx, name):
    r = parse_file(fx(name))
    assert all(not k.stalls and k.stall_note == "section WarpStateStats not collected" for k in r.kernels)
    assert "no stall data in this profile (section WarpStateStats not collected)" in r.summary


def test_collected_but_not_printed_is_told_apart():
    acc = KernelAcc(raw_name="k", page="details", sections={"Warp State Statistics"})
    assert "--print-details all" in build_kernel(acc).stall_note


def test_stall_families_are_never_mixed():
    acc = KernelAcc(raw_name="k", page="raw")
    for name, value in [("smsp__pcsamp_warps_issue_stalled_barrier", 9000.0),
                        ("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", 1.0),
                        ("smsp__pcsamp_warps_issue_stalled_long_scoreboard", 100.0),
                        ("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", 20.0)]:
        reason, family = M.ncu_stall_metric(name)
        acc.put_stall(family, reason, value)
    k = build_kernel(acc)
    assert k.stall_source == "per-issue" and [s.reason for s in k.stalls] == ["long_scoreboard", "barrier"]


@pytest.mark.parametrize("message, expected", [
    ("On average, each warp of this workload spends 19.5 cycles being stalled waiting for sibling warps at a CTA "
     "barrier. A high number ... This stall type represents about 31.7% of the total average of 61.6 cycles",
     ("barrier", 19.5, 31.7)),
    ("On average, each warp of this kernel spends 3.7 cycles being stalled waiting for the MIO (memory "
     "input/output) instruction queue to be not full. This stall reason is high ... This represents about 45.2% "
     "of the total average of 8.2 cycles between issuing two instructions.", ("mio_throttle", 3.7, 45.2)),
    ("each warp spends 5.4 cycles being stalled waiting for the L1 instruction queue for local and global (LG) "
     "memory operations to be not full. Typically ... represents about 31.4% of the total average", ("lg_throttle", 5.4, 31.4)),
    ("The optional metric smsp__pcsamp_sample_count could not be found.", None),
])
def test_rule_text_to_stall(message, expected):
    assert M.ncu_rule_stall(message) == expected


def test_dram_bytes_on_every_page(fx):
    rms = parse_file(fx(f"direct_ncu_details_full_{H200}.csv")).kernels[0]   # bandwidth x duration
    raw = [k for k in parse_file(fx(f"direct_ncu_raw_metrics_{H200}.csv")).kernels if k.name == "rmsnorm_kernel"]
    assert rms.dram_bytes == pytest.approx(raw[1].dram_bytes, rel=1e-3)       # dram__bytes_read + _write
    read_write = parse_file(fx(f"ncu_raw_page_profile_csv_stdout_with_PROF_lines_{H200}.txt")).kernels[0]
    assert read_write.dram_bytes == 134225664 + 48501760
    for name in PER_ISSUE + RULE_ONLY:
        saxpy = parse_file(fx(name)).kernels[0]
        assert saxpy.dram_bytes == pytest.approx(read_write.dram_bytes, rel=2e-3)


def test_traffic_against_the_compulsory_bytes_on_a_real_profile(fx):
    r = parse_file(fx(f"direct_ncu_details_full_{H200}.csv"))
    text = summarize(r, compulsory_bytes=2 * 2**27)     # 2^27 bytes read, as many written
    assert "DRAM traffic 0.91× the compulsory 268 MB (244 MB moved)" in text
    assert len(text) <= 1500 and "DRAM traffic" not in summarize(parse_file(fx(NO_STALLS[3])))


def _kernel(name: str, dram: float | None) -> KernelProfile:
    return KernelProfile(name=name, raw_name=name, duration_ns=1e6, dram_bytes=dram, dram_throughput_pct=85.0)


def test_a_two_pass_softmax_shows_one_and_a_half():
    n = 6.4e9 / 2   # a 6.4 GB softmax: its input read and its output written once each
    two_pass = ProfileReport(tool="ncu", source_files=[], kernels=[_kernel("softmax", 3 * n)])
    assert traffic_line(two_pass, 2 * n) == "DRAM traffic 1.50× the compulsory 6.4 GB (9.6 GB moved)"
    split = ProfileReport(tool="ncu", source_files=[], kernels=[_kernel("max_sum", n), _kernel("normalize", 2 * n)] * 2,
                          calls=2, compulsory_bytes=2 * n)
    assert traffic_line(split) == "DRAM traffic 1.50× the compulsory 6.4 GB (9.6 GB moved by 2 kernel launches)"
    cached = ProfileReport(tool="ncu", source_files=[], kernels=[_kernel("k", n), _kernel("nsys-like", None)])
    assert traffic_line(cached, 2 * n).startswith("DRAM traffic 0.50× the compulsory 6.4 GB (3.2 GB moved; "
                                                  "1 kernel record(s) without DRAM bytes); below 1")
    unknown = ProfileReport(tool="nsys", source_files=[], kernels=[_kernel("k", None)])
    assert traffic_line(unknown, 2 * n) == "DRAM traffic: not in this profile (compulsory 6.4 GB)"
    assert traffic_line(unknown) is None
