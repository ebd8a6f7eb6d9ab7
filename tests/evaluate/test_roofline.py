"""Roofline floor, SOL, calibrated and launch-adjusted SOL, and the S > 1 flag."""

import pytest

from aka.evaluate.roofline import assess, floor_us, work
from aka.hardware.devices import lookup
from aka.spec.op import Roofline

H200 = lookup("NVIDIA H200")


def test_memory_bound_floor_uses_bandwidth():
    spec = Roofline(flops={"bfloat16": "4 * n * h"}, bytes="auto")
    flops, byts = work(spec, {"n": 16384, "h": 4096}, auto_bytes=2 * 16384 * 4096 * 2 + 8192)
    t = floor_us(flops, byts, H200.bandwidth, {"bfloat16": H200.peak_flops("bfloat16")})
    assert t == pytest.approx(byts / 4.8e12 * 1e6)


def test_compute_bound_floor_sums_dtypes():
    spec = Roofline(flops={"bfloat16": "2 * m * n * k", "float32": "m * n"}, bytes="0")
    r = assess(spec, {"m": 8192, "n": 8192, "k": 8192}, 0, time_us=2000.0, device=H200)
    expect = 2 * 8192**3 / 989.4e12 + 8192 * 8192 / 66.9e12
    assert r.t_roof_us == pytest.approx(expect * 1e6)
    assert r.sol == pytest.approx(r.t_roof_us / 2000.0)


def test_sol_above_one_is_flagged_and_calibration_is_used():
    spec = Roofline(flops={"bfloat16": "0"}, bytes="1e9")
    fast = assess(spec, {}, 0, time_us=100.0, device=H200)
    assert fast.sol > 1 and "undercounts" in fast.flag
    cal = {"copy_bandwidth": 4.27e12, "empty_kernel_graph_us": 0.67}
    r = assess(spec, {}, 0, time_us=300.0, device=H200, calibration=cal)
    assert r.sol_calibrated == pytest.approx(1e9 / 4.27e12 * 1e6 / 300.0)
    assert r.sol_launch_adjusted == pytest.approx((1e9 / 4.8e12 * 1e6 + 0.67) / 300.0)
    assert not r.flag


def test_device_table_matching():
    assert lookup("NVIDIA H200").key == "h200"
    assert lookup("NVIDIA H100 PCIe").key == "h100-pcie"
    assert lookup("NVIDIA H100 80GB HBM3").key == "h100"
    assert lookup("AMD Instinct MI300X").key == "mi300x"
    assert lookup("NVIDIA A100-SXM4-40GB").key == "a100-40gb"
    assert lookup("cpu") is None
    for key in ("h100", "h200", "a100", "b200", "l40s", "mi300x", "mi250x"):
        assert any(d.key == key for d in __import__("aka.hardware.devices", fromlist=["DEVICES"]).DEVICES)
