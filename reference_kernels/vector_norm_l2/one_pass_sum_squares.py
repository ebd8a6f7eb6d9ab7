"""
---
op: vector_norm_l2
strategy: one-pass-sum-of-squares
techniques: [one-row-per-program, column-loop, vector-accumulator, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  ROWS: {values: [1, 2, 4, 8, 16], default: 1}
  BLOCK_N: {values: [128, 256, 512, 1024, 2048, 4096], default: 2048}
  NUM_WARPS: {values: [2, 4, 8, 16], default: 8}
requires: []
sources:
  - https://pytorch.org/docs/stable/generated/torch.linalg.vector_norm.html
---
ROWS rows per program sweep their columns in BLOCK_N chunks and accumulate x*x into an fp32 tile;
the tile is reduced along the columns and the square root written per row. One read of x, one
float per row written: purely bandwidth-bound and as fast as a row sum. Squares of fp32 inputs
overflow only beyond about 1.8e19 and underflow below 1e-19, far outside activations and weights,
so the unscaled sum is what libraries use for fp32/bf16 on GPU; the max-scaled kernel shows the
safe variant. Use ROWS > 1 for short rows (head_dim 128).
"""

import torch
import triton
import triton.language as tl

ROWS = 1
BLOCK_N = 2048
NUM_WARPS = 8


@triton.jit
def _l2_norm_rows(x_ptr, y_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    row_mask = rows < n_rows
    cols = tl.arange(0, BLOCK_N)
    acc = tl.zeros([ROWS, BLOCK_N], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        idx = start + cols
        mask = row_mask[:, None] & (idx < n_cols)[None, :]
        x = tl.load(x_ptr + rows[:, None] * n_cols + idx[None, :], mask=mask, other=0.0).to(tl.float32)
        acc += x * x
    tl.store(y_ptr + rows, tl.sqrt(tl.sum(acc, axis=1)).to(y_ptr.dtype.element_ty), mask=row_mask)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        n_rows = x2.shape[0]
        y = torch.empty(n_rows, dtype=x.dtype, device=x.device)
        if n_rows > 0:
            _l2_norm_rows[(triton.cdiv(n_rows, ROWS),)](x2, y, n_rows, n_cols, ROWS=ROWS, BLOCK_N=BLOCK_N,
                                                        num_warps=NUM_WARPS)
        return y.view(x.shape[:-1])
