"""
---
op: layernorm
strategy: blocked-columns-welford
techniques: [welford, chan-parallel-merge, column-blocking, fp32-accumulate, masked-tail, l2-reuse]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_N: {values: [256, 512, 1024, 2048, 4096], default: 1024}
  NUM_WARPS: {values: [2, 4, 8, 16], default: 4}
requires: []
sources:
  - https://en.wikipedia.org/wiki/Algorithms_for_calculating_variance (Welford; Chan et al. parallel merge)
---
One program per row streams the row in BLOCK_N chunks. Each chunk's mean and sum of squared
deviations are computed in registers (two-step, so no cancellation), then merged into the running
(count, mean, M2) with the parallel Welford/Chan formula: one read gives a variance that stays
stable for rows with a large mean, and only one division per chunk, not per element. A second sweep re-reads the row, usually from L2, and writes
(x - mean) * rstd * weight + bias. Registers are bounded by BLOCK_N, so any hidden size compiles to
the same kernel.
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 1024
NUM_WARPS = 4


@triton.jit
def _layernorm_welford(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, eps, BLOCK_N: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * n_cols
    count = 0.0
    mean = 0.0
    m2 = 0.0
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < n_cols
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
        n_b = tl.minimum(n_cols - start, BLOCK_N).to(tl.float32)
        mean_b = tl.sum(x, axis=0) / n_b
        xc = tl.where(mask, x - mean_b, 0.0)
        m2_b = tl.sum(xc * xc, axis=0)
        total = count + n_b
        delta = mean_b - mean
        mean = mean + delta * (n_b / total)
        m2 = m2 + m2_b + delta * delta * (count * n_b / total)
        count = total
    rstd = tl.rsqrt(m2 / n_cols + eps)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < n_cols
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_ptr + base + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))
        self.bias = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = x.shape[-1]
        x2 = x.reshape(-1, hidden).contiguous()
        y = torch.empty_like(x2)
        if x2.shape[0] > 0:
            _layernorm_welford[(x2.shape[0],)](x2, self.weight, self.bias, y, hidden, self.eps,
                                               BLOCK_N=BLOCK_N, num_warps=NUM_WARPS)
        return y.view(x.shape)
