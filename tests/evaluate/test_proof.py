"""The GPU runtime-proof judgement, on recorded device work (no GPU needed)."""

from aka.evaluate.proof import DeviceWork, judge


def test_own_kernels_on_the_timed_stream_pass():
    w = DeviceWork([("_rms_kernel", 60.0, 7), ("Memset", 1.0, 7)], timed_stream=7)
    rule, _, share = judge(w, {"_rms_kernel"})
    assert rule == "" and share > 0.98


def test_side_stream_is_rejected_even_when_it_is_the_only_stream():
    w = DeviceWork([("_rms_kernel", 60.0, 9)], timed_stream=7)
    assert judge(w, {"_rms_kernel"})[0] == "side-stream"


def test_foreign_device_time_is_rejected():
    w = DeviceWork([("_rms_kernel", 10.0, 7), ("at::native::vectorized_elementwise_kernel", 50.0, 7)],
                   timed_stream=7)
    rule, detail, share = judge(w, {"_rms_kernel"})
    assert rule == "foreign-device-time" and share < 0.2 and "vectorized_elementwise" in detail


def test_no_device_work_is_rejected():
    assert judge(DeviceWork([], timed_stream=7), {"k"})[0] == "no-device-work"
