"""Roofline floor, SOL, calibrated and launch-adjusted SOL, and the S > 1 flag."""

import pytest

from pathlib import Path

from aka.evaluate.roofline import assess, compulsory_bytes, floor_us, work
from aka.hardware.devices import lookup
from aka.spec.load import load_op
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


def test_an_operator_without_a_roofline_gets_a_bytes_only_sol(tmp_path):
    """KernelBench problems carry no roofline: SOL is their bytes moved once at peak bandwidth,
    labelled bytes-only."""
    from types import SimpleNamespace

    from aka.evaluate.evaluator import Evaluator
    from aka.spec.load import load_op

    problem = tmp_path / "relu.py"
    problem.write_text("import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
                       "        return torch.relu(x)\ndef get_inputs():\n    return [torch.rand(4, 4)]\n"
                       "def get_init_inputs():\n    return []\n")
    spec = load_op(problem)
    assert spec.roofline is None
    ev = Evaluator(SimpleNamespace(device="cuda"))
    row = {"id": "default", "params": {}, "held_out": False, "correct": True, "bytes_io": 4_800_000_000,
           "time": {"median_us": 1000.0, "iqr_us": 1.0, "cv": 0.01, "reps": 100, "method": "events"}}
    res = ev._shape(spec, row, {"kind": "cuda", "name": "NVIDIA H200"})
    assert res.roofline is not None and res.roofline.basis == "bytes-only"
    assert res.roofline.bytes == 4_800_000_000 and res.roofline.flops == {}
    assert abs(res.roofline.t_roof_us - 4_800_000_000 / lookup("NVIDIA H200").bandwidth * 1e6) < 1e-6


def test_the_forged_timing_floor_counts_only_the_bytes_an_operator_must_move():
    """The H200 batch of 2026-12-04 rejected a correct embedding kernel as forged-timing: the floor
    counted the whole 128256 x 4096 table, of which a gather reads 16384 rows."""
    emb = load_op(Path(__file__).parents[2] / "suites" / "llm-inference" / "embedding")
    params = dict(emb.shapes[0].params)
    table = params["vocab"] * params["hidden"] * 2
    auto = 8 * params["n_tokens"] + table + 2 * params["n_tokens"] * params["hidden"]
    declared = 8 * params["n_tokens"] + 4 * params["n_tokens"] * params["hidden"]
    assert compulsory_bytes(emb.to_dict(), emb.shapes[0].id, params, auto) == declared < auto
    assert compulsory_bytes(emb.to_dict(), emb.shapes[0].id, params, 1000) == 1000      # never above every tensor
    kb = emb.to_dict() | {"roofline": {"flops": {}, "bytes": "auto"}}
    assert compulsory_bytes(kb, emb.shapes[0].id, params, auto) == auto
    assert compulsory_bytes(emb.to_dict() | {"roofline": None}, emb.shapes[0].id, params, auto) == auto
