"""
---
op: elementwise_fused
strategy: fused-flat-1d
techniques: [kernel-fusion, flat-1d-grid, modulo-broadcast-index, fp32-compute, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK: {values: [256, 512, 1024, 2048, 4096, 8192], default: 2048}
  NUM_WARPS: {values: [2, 4, 8, 16], default: 8}
requires: []
sources:
  - https://triton-lang.org/main/getting-started/tutorials/01-vector-add.html
---
The tensor is treated as one flat array of n_rows x n_cols elements cut into BLOCK-sized pieces, like
the vector-add tutorial; the column of each element (offset modulo n_cols) indexes scale and shift.
Every program but the last is full, whatever the row width, so there is no per-row tail waste
(odd widths such as 2881 columns cost nothing extra), at the price of an integer modulo per element
and gathers of scale/shift that are L1-resident. Same traffic as the 2D fused kernel.
"""

import torch
import triton
import triton.language as tl

BLOCK = 2048
NUM_WARPS = 8


@triton.jit
def _affine_silu_flat(x_ptr, s_ptr, b_ptr, y_ptr, n, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    cols = offs % n_cols
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    t = x * s + b
    tl.store(y_ptr + offs, (t * tl.sigmoid(t)).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, n_cols: int):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.empty(n_cols))
        self.shift = torch.nn.Parameter(torch.empty(n_cols))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xc = x.contiguous()
        y = torch.empty_like(xc)
        n = xc.numel()
        if n > 0:
            _affine_silu_flat[(triton.cdiv(n, BLOCK),)](xc, self.scale, self.shift, y, n, x.shape[-1],
                                                        BLOCK=BLOCK, num_warps=NUM_WARPS)
        return y
