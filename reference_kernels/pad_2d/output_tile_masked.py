"""
---
op: pad_2d
strategy: output-driven-2d-tile
techniques: [output-driven, masked-load-as-fill, tile-2d, coalesced-rows, single-pass, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_H: {values: [1, 2, 4, 8, 16], default: 4}
  BLOCK_W: {values: [16, 32, 64, 128, 256, 512], default: 128}
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
requires: []
sources:
  - https://pytorch.org/docs/stable/generated/torch.nn.functional.pad.html
---
One pass over the output: program (image, row block, column block) maps its [BLOCK_H, BLOCK_W]
output tile back to input coordinates (row - top, column - left) and loads with a mask that is
false outside the input, so the load's `other=0` is the padding value; every output element is
written exactly once by one full-width store. Loads and stores are both contiguous along rows
(the load just starts `left` elements earlier), so for small pads it runs at copy speed. When the
padding is a large share of the output (FFT doubling: half of y is zeros) it still issues masked
loads for the padded half, which cost instructions but no DRAM traffic.
Nsight Compute on the H200 (2026-12-04, docs/results/h200-2026-12-04-losers): at
resnet-2048x56x56-pad1 its [4, 128] tiles on 58-wide output rows left more than half the lanes
masked, 21.0 us against torch.compile's flat 1-D kernel (6728 programs of 128 threads), 13.6 us;
9.15 us against 7.23 us at sd-unet-640x64x64-pad1.
"""

import torch
import triton
import triton.language as tl

BLOCK_H = 4
BLOCK_W = 128
NUM_WARPS = 4


@triton.jit
def _pad_tile(x_ptr, y_ptr, H, W, H_OUT, W_OUT, top, left, BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    img = tl.program_id(0).to(tl.int64)
    oh = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    ow = tl.program_id(2) * BLOCK_W + tl.arange(0, BLOCK_W)
    ih = oh - top
    iw = ow - left
    inside = (ih[:, None] >= 0) & (ih[:, None] < H) & (iw[None, :] >= 0) & (iw[None, :] < W)
    v = tl.load(x_ptr + img * H * W + ih[:, None] * W + iw[None, :], mask=inside, other=0.0)
    out_mask = (oh[:, None] < H_OUT) & (ow[None, :] < W_OUT)
    tl.store(y_ptr + img * H_OUT * W_OUT + oh[:, None] * W_OUT + ow[None, :], v, mask=out_mask)


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
        if y.numel() > 0:
            grid = (batch, triton.cdiv(h_out, BLOCK_H), triton.cdiv(w_out, BLOCK_W))
            _pad_tile[grid](x, y, h, w, h_out, w_out, self.top, self.left, BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W,
                            num_warps=NUM_WARPS)
        return y
