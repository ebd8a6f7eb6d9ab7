"""
---
op: pad_2d
strategy: interior-copy-plus-border-fill
techniques: [split-interior-border, two-kernel, row-copy, masked-store-fill, coalesced-rows, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_W: {values: [16, 32, 64, 128, 256, 512, 1024], default: 256}
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
requires: []
sources:
  - https://pytorch.org/docs/stable/generated/torch.nn.functional.pad.html
---
Splits the work by kind. Kernel 1 copies: one program per (input row, column block) moves a
contiguous row segment of x to its shifted place in y, with no padding test at all. Kernel 2
fills: one program per output row stores zeros only where the row is a top/bottom padding row or
the column lies in the left/right strip (masked stores, no loads). The copy never reads or tests
padding and the fill never reads x, so when the padding is a large share of y (FFT doubling, a big
patch remainder) the fill runs as a pure store stream; the cost is a second launch and, for thin
pads, a fill kernel whose programs are mostly masked off. This is how padding is fused into a
producer: the producer writes the interior and a cheap kernel writes the ring.
"""

import torch
import triton
import triton.language as tl

BLOCK_W = 256
NUM_WARPS = 4


@triton.jit
def _copy_interior(x_ptr, y_ptr, H, W, H_OUT, W_OUT, top, left, BLOCK_W: tl.constexpr):
    row = tl.program_id(0)  # input row over batch x h
    img = (row // H).to(tl.int64)
    ih = row % H
    cols = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    mask = cols < W
    v = tl.load(x_ptr + row.to(tl.int64) * W + cols, mask=mask)
    tl.store(y_ptr + (img * H_OUT + ih + top) * W_OUT + left + cols, v, mask=mask)


@triton.jit
def _fill_border(y_ptr, H, W, H_OUT, W_OUT, top, left, BLOCK_W: tl.constexpr):
    row = tl.program_id(0)  # output row over batch x h_out
    oh = row % H_OUT
    pad_row = (oh < top) | (oh >= top + H)
    cols = tl.arange(0, BLOCK_W)
    zeros = tl.zeros([BLOCK_W], dtype=y_ptr.dtype.element_ty)
    for c0 in range(0, W_OUT, BLOCK_W):
        c = c0 + cols
        border = pad_row | (c < left) | (c >= left + W)
        tl.store(y_ptr + row.to(tl.int64) * W_OUT + c, zeros, mask=(c < W_OUT) & border)


class ModelNew(torch.nn.Module):
    def __init__(self, top: int, bottom: int, left: int, right: int):
        super().__init__()
        self.top, self.bottom, self.left, self.right = top, bottom, left, right

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        batch, h, w = x.shape
        h_out = self.top + h + self.bottom
        w_out = self.left + w + self.right
        y = torch.empty((batch, h_out, w_out), dtype=x.dtype, device=x.device)
        if x.numel() > 0:
            _copy_interior[(batch * h, triton.cdiv(w, BLOCK_W))](x, y, h, w, h_out, w_out, self.top, self.left,
                                                                 BLOCK_W=BLOCK_W, num_warps=NUM_WARPS)
        if y.numel() > x.numel():
            _fill_border[(batch * h_out,)](y, h, w, h_out, w_out, self.top, self.left, BLOCK_W=BLOCK_W,
                                           num_warps=NUM_WARPS)
        return y
