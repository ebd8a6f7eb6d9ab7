"""Measure the achievable ceilings of the GPU (runs inside the worker).

Read bandwidth: a Triton streaming reduction; copy: device-to-device copy counting bytes read and
written; write: a fill; matmul: bf16 8192^3 through the library; launch floor: an empty Triton
kernel replayed in a CUDA graph.
"""

from __future__ import annotations

from typing import Any

from aka.hardware.calibrate import FORMAT, save_floor


def calibrate(size_bytes: int = 2 << 30) -> dict[str, Any]:
    """Measure the ceilings on CUDA device 0 (medians of event-timed runs)."""
    import torch

    from aka.evaluate.timing import GpuTimer, flush_kernel

    read_sum = flush_kernel()
    timer = GpuTimer(reps=50)
    name = torch.cuda.get_device_name(0)
    n = size_bytes // 2
    x = torch.randn(n, dtype=torch.bfloat16, device="cuda")
    y = torch.empty_like(x)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    partial = torch.empty(sms * 8, dtype=torch.float32, device="cuda")
    t_read = timer.bench([lambda: read_sum[(sms * 8,)](x, partial, n, 1, BLOCK=4096, num_warps=8)],
                         allow_graph=False).median_us
    t_copy = timer.bench([lambda: y.copy_(x)], allow_graph=False).median_us
    t_write = timer.bench([lambda: y.fill_(1.0)], allow_graph=False).median_us
    m = 8192
    a = torch.randn(m, m, dtype=torch.bfloat16, device="cuda")
    b = torch.randn(m, m, dtype=torch.bfloat16, device="cuda")
    t_mm = timer.bench([lambda: a @ b], reps=20, allow_graph=False).median_us
    t_empty = timer.launch_floor_us()
    try:
        save_floor(name, t_empty)            # every later timing on this GPU adds this floor
    except OSError:                          # a read-only cache: the timings measure their own
        pass
    return {
        "format": FORMAT,
        "device": name,
        "read_bandwidth": size_bytes / (t_read * 1e-6),
        "copy_bandwidth": 2 * size_bytes / (t_copy * 1e-6),
        "write_bandwidth": size_bytes / (t_write * 1e-6),
        "matmul_flops": {"bfloat16": 2 * m**3 / (t_mm * 1e-6)},
        "empty_kernel_graph_us": t_empty,
        "torch": torch.__version__,
    }
