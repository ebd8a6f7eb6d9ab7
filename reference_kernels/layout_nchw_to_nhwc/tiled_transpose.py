"""
---
op: layout_nchw_to_nhwc
strategy: per-image-tiled-transpose
techniques: [tiling, 3d-grid, coalesced-reads, coalesced-writes, layout-conversion-through-shared-memory, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_C: {values: [4, 8, 16, 32, 64, 128], default: 32}
  BLOCK_HW: {values: [16, 32, 64, 128], default: 64}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://developer.nvidia.com/blog/efficient-matrix-transpose-cuda-cc/
  - https://pytorch.org/tutorials/intermediate/memory_format_tutorial.html
---
Per image, NCHW -> NHWC is a transpose of a [C, H*W] matrix into [H*W, C]. The grid is
(hw tiles, c tiles, images); each program loads a [BLOCK_C, BLOCK_HW] tile with H*W contiguous
(coalesced reads), transposes it in registers/shared memory with tl.trans and stores
[BLOCK_HW, BLOCK_C] with C contiguous (coalesced writes). With C of 64-1280 both sides move whole
sectors and the copy runs near bandwidth; for C = 3 most of each tile is padding, where the flat
kernel is as good.
Nsight Compute on the H200 (2026-12-04, docs/results/h200-2026-12-04-losers): at vit-
image-1x3x336x336 (C = 3) it launched 1764 programs of 128 threads, 4.26 us, against torch.compile's
flat gather of 662 programs of 256 threads, 2.72 us: with three channels a transpose tile is mostly
empty.
"""

import torch
import triton
import triton.language as tl

BLOCK_C = 32
BLOCK_HW = 64
NUM_WARPS = 4


@triton.jit
def _nchw_to_nhwc_tile(x_ptr, y_ptr, C, HW, BLOCK_C: tl.constexpr, BLOCK_HW: tl.constexpr):
    hw = tl.program_id(0) * BLOCK_HW + tl.arange(0, BLOCK_HW)
    c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    img = tl.program_id(2).to(tl.int64) * C * HW
    mask = (c[:, None] < C) & (hw[None, :] < HW)
    tile = tl.load(x_ptr + img + c[:, None] * HW + hw[None, :], mask=mask)      # [BLOCK_C, BLOCK_HW]
    tl.store(y_ptr + img + hw[:, None] * C + c[None, :], tl.trans(tile), mask=tl.trans(mask))


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        n, c, h, w = x.shape
        y = torch.empty((n, h, w, c), dtype=x.dtype, device=x.device)
        if x.numel() > 0:
            grid = (triton.cdiv(h * w, BLOCK_HW), triton.cdiv(c, BLOCK_C), n)
            _nchw_to_nhwc_tile[grid](x, y, c, h * w, BLOCK_C=BLOCK_C, BLOCK_HW=BLOCK_HW, num_warps=NUM_WARPS)
        return y
