"""
---
op: vector_norm_l2
strategy: online-rescaled-one-pass
techniques: [one-pass, online-rescaling, overflow-safe-scaling, numerical-stability, one-row-per-program, vector-accumulator, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_N: {values: [256, 512, 1024, 2048, 4096], default: 2048}
  NUM_WARPS: {values: [2, 4, 8, 16], default: 8}
requires: []
sources:
  - https://www.netlib.org/lapack/explore-html/d1/d2a/group__nrm2.html
  - https://arxiv.org/abs/1805.02867
---
Overflow-safe in a single read, the way LAPACK's classic dnrm2 keeps (scale, ssq) and the way
online softmax keeps (max, sum). Every lane of a BLOCK_N vector holds its running scale (largest
|x| seen so far) and the sum of squares of x / scale; when a new element raises the scale, the
lane's sum is multiplied by (old / new)^2 before the new term (x / new)^2 is added. After the loop
the lanes are merged the same way against the row's largest scale m, and the norm is
m * sqrt(sum). Terms never exceed 1, so rows with values near the fp32 limit come out finite,
like the two-pass max-scaled kernel, but x is read once; the price is a divide and a few
multiplies per element, hidden behind memory on long rows. A row of zeros keeps scale 0 and returns 0.
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 2048
NUM_WARPS = 8


@triton.jit
def _l2_norm_online(x_ptr, y_ptr, n_cols, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * n_cols
    cols = tl.arange(0, BLOCK_N)
    scale = tl.zeros([BLOCK_N], dtype=tl.float32)
    ssq = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        idx = start + cols
        a = tl.abs(tl.load(base + idx, mask=idx < n_cols, other=0.0).to(tl.float32))
        new = tl.maximum(scale, a)
        inv = tl.where(new > 0, 1.0 / new, 0.0)
        r = scale * inv
        t = a * inv
        ssq = ssq * r * r + t * t
        scale = new
    m = tl.max(scale, axis=0)
    inv_m = tl.where(m > 0, 1.0 / m, 0.0)
    r = scale * inv_m
    total = tl.sum(ssq * r * r, axis=0)
    tl.store(y_ptr + row, (m * tl.sqrt(total)).to(y_ptr.dtype.element_ty))


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        n_rows = x2.shape[0]
        y = torch.empty(n_rows, dtype=x.dtype, device=x.device)
        if n_rows > 0:
            _l2_norm_online[(n_rows,)](x2, y, n_cols, BLOCK_N=BLOCK_N, num_warps=NUM_WARPS)
        return y.view(x.shape[:-1])
