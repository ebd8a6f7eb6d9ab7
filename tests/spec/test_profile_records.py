"""ProfileReport and friends: JSON round trip and validation."""

import json

import pytest

from aka.spec.profile import Bottleneck, Evidence, KernelProfile, ProfileReport, ToolRule, WarpStall


def _report():
    k = KernelProfile(name="saxpy", raw_name="saxpy(int)", duration_ns=58560.0, grid=(65536, 1, 1),
                      block=(256, 1, 1), stalls=[WarpStall("long_scoreboard", 56.83, 82.1)],
                      rules=[ToolRule("OPT", "CPIStall", "stalled", 35.07, "global")],
                      amd_counters={"FETCH_SIZE": 1.0}, metrics={"dram_throughput_pct": 64.93})
    ev = [Evidence("dram_throughput_pct", 64.93, 60.0, "busy")]
    return ProfileReport(tool="ncu", source_files=["f.csv"], kernels=[k], device={"name": "H200"},
                         bottleneck=Bottleneck("memory-bound", "saxpy", ev), summary="s")


def test_round_trip_through_json():
    r = _report()
    back = ProfileReport.from_dict(json.loads(json.dumps(r.to_dict())))
    assert back == r
    assert back.kernels[0].grid == (65536, 1, 1) and back.kernels[0].stalls[0].share_pct == 82.1


def test_bottleneck_kind_is_checked():
    with pytest.raises(ValueError, match="not one of"):
        Bottleneck("slow")
