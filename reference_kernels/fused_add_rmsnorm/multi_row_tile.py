"""
---
op: fused_add_rmsnorm
strategy: multi-row-tile
techniques: [kernel-fusion, multi-row-per-program, whole-row-in-registers, fp32-accumulate, 2d-tile]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  ROWS_PER_PROGRAM: {values: [1, 2, 4, 8], default: 2}
  NUM_WARPS: {values: [2, 4, 8, 16], default: 8}
requires: []
sources:
  - https://triton-lang.org/main/getting-started/tutorials/02-fused-softmax.html
---
Each program handles a [ROWS_PER_PROGRAM, next_pow2(hidden)] tile: add, round, store residual_out,
reduce along the rows and normalize, all from registers, with the weight loaded once per program
and broadcast. Amortizes per-program work for short rows or very many rows; the tile's register
footprint grows with ROWS_PER_PROGRAM, so for 8K-wide rows keep it small and raise NUM_WARPS.
"""

import torch
import triton
import triton.language as tl

ROWS_PER_PROGRAM = 2
NUM_WARPS = 8


@triton.jit
def _add_rmsnorm_tile(x_ptr, r_ptr, w_ptr, y_ptr, ro_ptr, n_rows, n_cols, eps,
                      ROWS: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    col_mask = cols < n_cols
    mask = (rows[:, None] < n_rows) & col_mask[None, :]
    offs = rows[:, None] * n_cols + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = (x + r).to(ro_ptr.dtype.element_ty)
    tl.store(ro_ptr + offs, s, mask=mask)
    s = s.to(tl.float32)
    inv_rms = tl.rsqrt(tl.sum(s * s, axis=1) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)
    y = s * inv_rms[:, None] * w[None, :]
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x: torch.Tensor, residual: torch.Tensor):
        hidden = x.shape[-1]
        x2 = x.reshape(-1, hidden).contiguous()
        r2 = residual.reshape(-1, hidden).contiguous()
        y = torch.empty_like(x2)
        ro = torch.empty_like(x2)
        n_rows = x2.shape[0]
        if n_rows > 0:
            _add_rmsnorm_tile[(triton.cdiv(n_rows, ROWS_PER_PROGRAM),)](
                x2, r2, self.weight, y, ro, n_rows, hidden, self.eps,
                ROWS=ROWS_PER_PROGRAM, BLOCK=triton.next_power_of_2(hidden), num_warps=NUM_WARPS,
            )
        return y.view(x.shape), ro.view(x.shape)
