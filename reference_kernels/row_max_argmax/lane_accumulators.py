"""
---
op: row_max_argmax
strategy: one-row-per-program-lane-accumulators
techniques: [one-row-per-program, column-loop, vector-accumulator, value-index-pair, tie-break-lowest-index, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_N: {values: [128, 256, 512, 1024, 2048, 4096], default: 2048}
  NUM_WARPS: {values: [2, 4, 8, 16], default: 8}
requires: []
sources:
  - https://pytorch.org/docs/stable/generated/torch.max.html
---
One program per row keeps two BLOCK_N-wide vectors, the best value each lane has seen and where,
and walks the row in chunks; a lane replaces its pair only on a strictly greater value, so each lane
holds the lowest index of its own maximum without any tie logic in the loop. After the loop a single
tl.max gives the row max and a tl.min over the indices of the lanes that hold it gives the lowest
index among ties. The loop is pure elementwise compare/select (no cross-lane work per chunk), the
register footprint is fixed whatever the row length, and x is read once. Like every
one-row-per-program kernel it needs hundreds of rows to fill the GPU.
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 2048
NUM_WARPS = 8


@triton.jit
def _row_max_argmax(x_ptr, val_ptr, idx_ptr, n_cols, x_stride, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * x_stride
    cols = tl.arange(0, BLOCK_N)
    best = tl.full([BLOCK_N], float("-inf"), dtype=tl.float32)
    best_idx = tl.zeros([BLOCK_N], dtype=tl.int32)
    for start in range(0, n_cols, BLOCK_N):
        idx = start + cols
        x = tl.load(base + idx, mask=idx < n_cols, other=float("-inf")).to(tl.float32)
        take = x > best
        best = tl.where(take, x, best)
        best_idx = tl.where(take, idx, best_idx)
    m = tl.max(best, axis=0)
    first = tl.min(tl.where(best == m, best_idx, n_cols), axis=0)
    tl.store(val_ptr + row, m.to(val_ptr.dtype.element_ty))
    tl.store(idx_ptr + row, first.to(tl.int64))


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        n_rows = x2.shape[0]
        values = torch.empty(n_rows, dtype=x.dtype, device=x.device)
        indices = torch.empty(n_rows, dtype=torch.int64, device=x.device)
        if n_rows > 0:
            _row_max_argmax[(n_rows,)](x2, values, indices, n_cols, x2.stride(0), BLOCK_N=BLOCK_N, num_warps=NUM_WARPS)
        return values.view(x.shape[:-1]), indices.view(x.shape[:-1])
