"""
---
op: rmsnorm
strategy: blocked-columns-two-sweep
techniques: [column-blocking, fp32-accumulate, masked-tail, l2-reuse]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_N: {values: [256, 512, 1024, 2048, 4096], default: 1024}
  NUM_WARPS: {values: [2, 4, 8, 16], default: 4}
requires: []
sources:
  - https://triton-lang.org/main/getting-started/tutorials/05-layer-norm.html
---
One program per row walks the row in fixed BLOCK_N chunks twice: the first sweep accumulates the
sum of squares in an fp32 vector, the second re-reads each chunk (usually from L1/L2, since the
row was just touched), scales it and writes it. Register use is bounded by BLOCK_N, not by the row
length, so it compiles to the same small kernel for any hidden size and keeps occupancy high; the
second read costs cache bandwidth, which matters most on very long rows that spill out of L2.
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 1024
NUM_WARPS = 4


@triton.jit
def _rmsnorm_blocked(x_ptr, w_ptr, y_ptr, n_cols, x_stride, y_stride, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * x_stride
    y_row = y_ptr + row * y_stride
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        acc += x * x
    inv_rms = tl.rsqrt(tl.sum(acc, axis=0) / n_cols + eps)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_row + cols, (x * inv_rms * w).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = x.shape[-1]
        x2 = x.reshape(-1, hidden).contiguous()
        y = torch.empty_like(x2)
        n_rows = x2.shape[0]
        if n_rows > 0:
            _rmsnorm_blocked[(n_rows,)](
                x2, self.weight, y, hidden, x2.stride(0), y.stride(0), self.eps,
                BLOCK_N=BLOCK_N, num_warps=NUM_WARPS,
            )
        return y.view(x.shape)
