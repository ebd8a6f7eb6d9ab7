"""
---
op: elementwise_fused
strategy: fused-2d-tile
techniques: [kernel-fusion, 2d-grid, broadcast-vector, fp32-compute, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_M: {values: [1, 2, 4, 8, 16], default: 4}
  BLOCK_N: {values: [64, 128, 256, 512, 1024], default: 1024}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://triton-lang.org/main/getting-started/tutorials/01-vector-add.html
---
All three operations in one kernel: a program loads a [BLOCK_M, BLOCK_N] tile of x and the
BLOCK_N-wide slices of scale and shift once (broadcast over the tile's rows), computes
t = x * scale + shift and t * sigmoid(t) in fp32 registers, and stores y. The tensor is read once and
written once instead of three times each, so at bandwidth-bound sizes fusion alone is close to a
3x speedup over running the ops separately; computing in fp32 and rounding once to bf16 is also
more accurate than rounding after every op.
Nsight Compute on the H200 (2026-12-04, docs/results/h200-2026-12-04-losers): at llama3-8b-decode-32
its (8, 4) grid of 128-thread programs took 3.30 us against torch.compile's 256 flat programs of 256
threads, 2.40 us: 32 programs leave most SMs idle.
At llama3-70b-decode-256, the one shape where it is the fastest of the four kernels (4.83 us against
torch.compile's 4.64 by graph replay, 0.96x;
docs/results/h200-2026-12-04-suites/kernel-patterns.json), it has not been profiled with Nsight
Compute yet.
"""

import torch
import triton
import triton.language as tl

BLOCK_M = 4
BLOCK_N = 1024
NUM_WARPS = 4


@triton.jit
def _affine_silu_2d(x_ptr, s_ptr, b_ptr, y_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols
    mask = (rows < n_rows)[:, None] & col_mask[None, :]
    offs = rows[:, None] * n_cols + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)
    t = x * s[None, :] + b[None, :]
    tl.store(y_ptr + offs, (t * tl.sigmoid(t)).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, n_cols: int):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.empty(n_cols))
        self.shift = torch.nn.Parameter(torch.empty(n_cols))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        y = torch.empty_like(x2)
        n_rows = x2.shape[0]
        if n_rows > 0 and n_cols > 0:
            grid = (triton.cdiv(n_rows, BLOCK_M), triton.cdiv(n_cols, BLOCK_N))
            _affine_silu_2d[grid](x2, self.scale, self.shift, y, n_rows, n_cols, BLOCK_M=BLOCK_M,
                                  BLOCK_N=BLOCK_N, num_warps=NUM_WARPS)
        return y.view(x.shape)
