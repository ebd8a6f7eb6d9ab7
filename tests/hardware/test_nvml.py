"""NVML device information: the saved H200 query, a fake pynvml, and no-GPU behaviour."""

import sys
import types
from pathlib import Path

import pytest

from aka.hardware import nvml

FIXTURE = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "profilers" / "nvml_pynvml_queries_H200_generated.json"


def test_fixture_json_followed_by_text():
    if not FIXTURE.is_file():
        pytest.skip("shared fixtures not found")
    info = nvml.read_fixture(FIXTURE)
    assert info["name"] == "NVIDIA H200" and info["memory_bus_width_bits"] == 6016
    assert info["peak_dram_bandwidth_gbs"] == pytest.approx(4814.3)
    assert info["power_w"] == pytest.approx(78.852) and info["power_limit_w"] == 700
    assert info["max_sm_clock_mhz"] == 1980 and info["throttle_reasons"] == ["gpu_idle"]
    assert info["compute_capability"] == "9.0" and info["temperature_c"] == 36


def test_throttle_mask_names():
    assert nvml.throttle_names(0x4 | 0x40) == ["sw_power_cap", "hw_thermal_slowdown"]
    assert nvml.throttle_names(0) == []


def _fake_pynvml(fail_init=False):
    m = types.ModuleType("pynvml")

    class NVMLError(Exception):
        pass

    def init():
        if fail_init:
            raise NVMLError("NVML Shared Library Not Found")

    values = {"nvmlDeviceGetName": b"NVIDIA H200", "nvmlDeviceGetMemoryBusWidth": 6016,
              "nvmlDeviceGetPowerUsage": 120000, "nvmlDeviceGetEnforcedPowerLimit": 700000,
              "nvmlDeviceGetTemperature": 40, "nvmlDeviceGetCurrentClocksThrottleReasons": 0x4,
              "nvmlDeviceGetCudaComputeCapability": (9, 0), "nvmlDeviceGetPerformanceState": 0}
    m.NVMLError, m.nvmlInit, m.nvmlShutdown = NVMLError, init, lambda: None
    m.NVML_CLOCK_SM, m.NVML_CLOCK_MEM, m.NVML_TEMPERATURE_GPU = 0, 2, 0
    m.nvmlDeviceGetCount = lambda: 4
    m.asked = []
    m.nvmlDeviceGetHandleByIndex = lambda i: m.asked.append(i) or "h"
    m.nvmlDeviceGetHandleByUUID = lambda u: m.asked.append(u) or "h"
    m.nvmlSystemGetDriverVersion = lambda: "580.159.04"
    m.nvmlDeviceGetClockInfo = lambda h, c: 1500 if c == 0 else 3201
    m.nvmlDeviceGetMaxClockInfo = lambda h, c: 1980 if c == 0 else 3201
    for name, value in values.items():
        setattr(m, name, lambda *a, _v=value: _v)
    return m


def test_live_query_through_fake_pynvml(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", _fake_pynvml())
    info = nvml.device_info(0)
    assert info["available"] and info["name"] == "NVIDIA H200" and info["sm_clock_mhz"] == 1500
    assert info["peak_dram_bandwidth_gbs"] == pytest.approx(4814.3) and info["power_w"] == 120
    assert info["throttle_reasons"] == ["sw_power_cap"] and "memory_total_bytes" in info


def test_no_driver_is_not_available(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", _fake_pynvml(fail_init=True))
    info = nvml.device_info()
    assert info == {"available": False, "reason": info["reason"]} and "NVML could not start" in info["reason"]


@pytest.mark.parametrize("visible, asked", [(None, 0), ("3,1", 3), ("GPU-85f476d1-f06b", "GPU-85f476d1-f06b")])
def test_the_device_asked_for_is_the_one_cuda_sees_first(monkeypatch, visible, asked):
    fake = _fake_pynvml()
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    if visible is None:
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    else:
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    assert nvml.device_info()["available"] and fake.asked == [asked]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "7")
    assert nvml.device_info() == {"available": False, "reason": "no NVIDIA GPU with index 7"}


@pytest.mark.parametrize("visible", ["", "-1", "none"])
def test_a_process_that_sees_no_gpu_is_told_so(monkeypatch, visible):
    fake = _fake_pynvml()
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    info = nvml.device_info()
    assert not info["available"] and "hides every GPU" in info["reason"] and fake.asked == []
