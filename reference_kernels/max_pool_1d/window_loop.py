"""
---
op: max_pool_1d
strategy: tap-loop-per-output-block
techniques: [sliding-window, tap-loop, 2d-grid, cache-reuse, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK: {values: [64, 128, 256, 512, 1024, 2048], default: 512}
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
requires: []
sources:
  - https://pytorch.org/docs/stable/generated/torch.nn.functional.max_pool1d.html
---
The grid is (output blocks, batch x channel rows). A program computes BLOCK consecutive outputs of
one row by looping over the kernel_size taps: tap t loads x[o * stride + t] for all its outputs and
keeps a running tl.maximum. Overlapping windows (stride < kernel_size) load the same inputs in
several taps, but those reloads hit L1, so DRAM traffic stays close to one read of x and one write
of y. kernel_size is a runtime loop bound, so one compiled kernel serves every window size; the
loads are strided by `stride`, which wastes sector bandwidth when stride is large.
Measured by the harness on one H200 (2026-12-04, graph replay): at small-4x128x512-k2s2 the fastest
of the three kernels, 2.87 us, but 0.84x torch.compile's 2.41 us
(docs/results/h200-2026-12-04-suites/kernel-patterns.json). It has not been profiled with Nsight
Compute at that shape yet.
"""

import torch
import triton
import triton.language as tl

BLOCK = 512
NUM_WARPS = 4


@triton.jit
def _max_pool_taps(x_ptr, y_ptr, length, out_len, kernel_size, stride, BLOCK: tl.constexpr):
    row = tl.program_id(1).to(tl.int64)
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = o < out_len
    start = x_ptr + row * length + o * stride
    best = tl.load(start, mask=mask, other=float("-inf")).to(tl.float32)
    for t in range(1, kernel_size):
        best = tl.maximum(best, tl.load(start + t, mask=mask, other=float("-inf")).to(tl.float32))
    tl.store(y_ptr + row * out_len + o, best.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, kernel_size: int, stride: int):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        batch, channels, length = x.shape
        out_len = (length - self.kernel_size) // self.stride + 1
        y = torch.empty((batch, channels, out_len), dtype=x.dtype, device=x.device)
        rows = batch * channels
        if rows > 0 and out_len > 0:
            grid = (triton.cdiv(out_len, BLOCK), rows)
            _max_pool_taps[grid](x, y, length, out_len, self.kernel_size, self.stride, BLOCK=BLOCK,
                                 num_warps=NUM_WARPS)
        return y
