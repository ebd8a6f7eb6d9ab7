"""
---
op: row_sum
strategy: multi-row-tile
techniques: [multi-row-per-program, 2d-tile, column-loop, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  ROWS: {values: [1, 2, 4, 8, 16, 32], default: 8}
  BLOCK_N: {values: [64, 128, 256, 512, 1024], default: 256}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://triton-lang.org/main/getting-started/tutorials/02-fused-softmax.html
---
Each program reduces a [ROWS, BLOCK_N] tile at a time: ROWS consecutive rows advance together
through the columns, accumulating a 2D fp32 tile that is reduced along axis 1 at the end. With many
short rows (e.g. 65536 rows of 128 columns) a one-row program has too little work to hide its
launch and load latency; packing several rows per program keeps each program's loads wide and
the grid at a sensible size. For long rows set ROWS to 1-2 so enough programs exist.
"""

import torch
import triton
import triton.language as tl

ROWS = 8
BLOCK_N = 256
NUM_WARPS = 4


@triton.jit
def _row_sum_tile(x_ptr, y_ptr, n_rows, n_cols, x_stride, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    row_mask = rows < n_rows
    cols = tl.arange(0, BLOCK_N)
    acc = tl.zeros([ROWS, BLOCK_N], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        idx = start + cols
        mask = row_mask[:, None] & (idx < n_cols)[None, :]
        acc += tl.load(x_ptr + rows[:, None] * x_stride + idx[None, :], mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + rows, tl.sum(acc, axis=1).to(y_ptr.dtype.element_ty), mask=row_mask)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        n_rows = x2.shape[0]
        y = torch.empty(n_rows, dtype=x.dtype, device=x.device)
        if n_rows > 0:
            grid = (triton.cdiv(n_rows, ROWS),)
            _row_sum_tile[grid](x2, y, n_rows, n_cols, x2.stride(0), ROWS=ROWS, BLOCK_N=BLOCK_N,
                                num_warps=NUM_WARPS)
        return y.view(x.shape[:-1])
