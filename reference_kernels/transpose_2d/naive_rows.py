"""
---
op: transpose_2d
strategy: naive-row-segments
techniques: [coalesced-reads, strided-writes, 2d-grid, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK: {values: [64, 128, 256, 512, 1024], default: 256}
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
requires: []
sources:
  - https://developer.nvidia.com/blog/efficient-matrix-transpose-cuda-cc/
---
The baseline to learn from: each program copies a BLOCK-long segment of one input row to the
matching column of the output. Reads are contiguous and coalesced, but consecutive lanes write
addresses one output row apart (stride m elements), so every 2-byte store touches a different 32-byte
sector and write bandwidth collapses to a small fraction of peak on large matrices. It is correct
and simple, and it is what a tiled transpose must beat; for tiny or skinny inputs (a few rows) the
waste matters little.
"""

import torch
import triton
import triton.language as tl

BLOCK = 256
NUM_WARPS = 4


@triton.jit
def _transpose_rows(x_ptr, y_ptr, m, n, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n
    v = tl.load(x_ptr + row * n + cols, mask=mask)
    tl.store(y_ptr + cols.to(tl.int64) * m + row, v, mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        m, n = x.shape
        y = torch.empty((n, m), dtype=x.dtype, device=x.device)
        if m > 0 and n > 0:
            _transpose_rows[(m, triton.cdiv(n, BLOCK))](x, y, m, n, BLOCK=BLOCK, num_warps=NUM_WARPS)
        return y
