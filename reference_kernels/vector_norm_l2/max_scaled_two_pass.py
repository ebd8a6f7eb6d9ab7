"""
---
op: vector_norm_l2
strategy: max-scaled-two-pass
techniques: [two-pass, overflow-safe-scaling, numerical-stability, one-row-per-program, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_N: {values: [256, 512, 1024, 2048, 4096], default: 2048}
  NUM_WARPS: {values: [2, 4, 8, 16], default: 8}
requires: []
sources:
  - https://www.netlib.org/lapack/explore-html/d1/d2a/group__nrm2.html
  - https://pytorch.org/docs/stable/generated/torch.linalg.vector_norm.html
---
The overflow-safe norm, as BLAS nrm2 computes it in spirit: pass 1 finds m = max |x| of the row,
pass 2 sums (x / m)^2 (every term at most 1, so nothing overflows or underflows prematurely), and
the result is m * sqrt(sum). A row of zeros (m = 0) returns 0. It reads the row twice (the second
read mostly from L2 for rows of a few K), so it is slower than the one-pass sum of squares; use it
when inputs may be huge or tiny in magnitude (fp32 values above ~1e19, gradient norms during
divergence), where the one-pass kernel would return inf or 0.
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 2048
NUM_WARPS = 8


@triton.jit
def _l2_norm_scaled(x_ptr, y_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * n_cols
    cols = tl.arange(0, BLOCK_N)
    peak = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        idx = start + cols
        peak = tl.maximum(peak, tl.abs(tl.load(base + idx, mask=idx < n_cols, other=0.0).to(tl.float32)))
    m = tl.max(peak, axis=0)
    inv = tl.where(m > 0, 1.0 / m, 0.0)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        idx = start + cols
        s = tl.load(base + idx, mask=idx < n_cols, other=0.0).to(tl.float32) * inv
        acc += s * s
    tl.store(y_ptr + row, (m * tl.sqrt(tl.sum(acc, axis=0))).to(y_ptr.dtype.element_ty))


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        n_rows = x2.shape[0]
        y = torch.empty(n_rows, dtype=x.dtype, device=x.device)
        if n_rows > 0:
            _l2_norm_scaled[(n_rows,)](x2, y, n_cols, BLOCK_N=BLOCK_N, num_warps=NUM_WARPS)
        return y.view(x.shape[:-1])
