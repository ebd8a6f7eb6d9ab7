"""
---
op: outer_product
strategy: rows-per-program-column-loop
techniques: [multi-row-per-program, column-loop, scalar-broadcast, write-bound, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  ROWS: {values: [1, 2, 4, 8], default: 1}
  BLOCK_N: {values: [256, 512, 1024, 2048, 4096], default: 1024}
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
requires: []
sources:
  - https://pytorch.org/docs/stable/generated/torch.outer.html
---
One program per ROWS output rows: it loads its a values once and sweeps the whole row in BLOCK_N
chunks, scaling each chunk of b (re-read from L1/L2 every row) and storing it. The grid is only
m / ROWS programs, so it suits many rows of moderate width (rotary tables: 131072 x 64 with ROWS
raised) and keeps stores long and contiguous; for a few very wide rows it leaves SMs idle, which
the 2D tile kernel avoids by also splitting the columns.
"""

import torch
import triton
import triton.language as tl

ROWS = 1
BLOCK_N = 1024
NUM_WARPS = 4


@triton.jit
def _outer_rows(a_ptr, b_ptr, y_ptr, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    row_mask = rm < M
    a = tl.load(a_ptr + rm, mask=row_mask, other=0.0).to(tl.float32)
    cols = tl.arange(0, BLOCK_N)
    for start in range(0, N, BLOCK_N):
        rn = start + cols
        b = tl.load(b_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
        tl.store(y_ptr + rm[:, None] * N + rn[None, :], (a[:, None] * b[None, :]).to(y_ptr.dtype.element_ty),
                 mask=row_mask[:, None] & (rn < N)[None, :])


class ModelNew(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a = a.contiguous()
        b = b.contiguous()
        m, n = a.shape[0], b.shape[0]
        y = torch.empty((m, n), dtype=a.dtype, device=a.device)
        if m > 0 and n > 0:
            _outer_rows[(triton.cdiv(m, ROWS),)](a, b, y, m, n, ROWS=ROWS, BLOCK_N=BLOCK_N, num_warps=NUM_WARPS)
        return y
