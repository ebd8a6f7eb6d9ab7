"""
---
op: gather_rows
strategy: one-row-per-program
techniques: [index-driven-load, one-row-per-program, column-loop, int64-offsets, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_D: {values: [128, 256, 512, 1024, 2048], default: 1024}
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
requires: []
sources:
  - https://pytorch.org/docs/stable/generated/torch.index_select.html
---
Program r reads index[r] once (a scalar load), then copies source row index[r] to output row r in
BLOCK_D-wide contiguous chunks. Both the read and the write of a row are fully coalesced; the only
indirection is one scalar per row, so the kernel runs at copy bandwidth when rows are a few KB
(d of 2K-8K in bf16). Row offsets are computed in int64 because n_src x d can exceed 2^31 elements.
Repeated indices simply re-read the same source row (usually from L2).
"""

import torch
import triton
import triton.language as tl

BLOCK_D = 1024
NUM_WARPS = 4


@triton.jit
def _gather_row(x_ptr, idx_ptr, y_ptr, d, BLOCK_D: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    src = tl.load(idx_ptr + row).to(tl.int64)
    cols = tl.arange(0, BLOCK_D)
    for start in range(0, d, BLOCK_D):
        c = start + cols
        mask = c < d
        tl.store(y_ptr + row * d + c, tl.load(x_ptr + src * d + c, mask=mask), mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        index = index.contiguous()
        n_out, d = index.shape[0], x.shape[1]
        y = torch.empty((n_out, d), dtype=x.dtype, device=x.device)
        if n_out > 0 and d > 0:
            _gather_row[(n_out,)](x, index, y, d, BLOCK_D=BLOCK_D, num_warps=NUM_WARPS)
        return y
