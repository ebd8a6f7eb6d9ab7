"""
---
op: layout_nchw_to_nhwc
strategy: flat-output-index-math
techniques: [flat-1d-grid, index-decomposition, coalesced-writes, strided-reads, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK: {values: [256, 512, 1024, 2048, 4096], default: 1024}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://pytorch.org/tutorials/intermediate/memory_format_tutorial.html
---
One program per BLOCK consecutive output (NHWC) elements: each flat output offset is decomposed
into (n, hw, c) with integer division and modulo, and the element is read from
n*C*HW + c*HW + hw. Writes are contiguous; reads jump by H*W elements between neighbouring lanes,
so each read sector serves one element unless C is small. It is the obvious generic permutation
kernel (any permutation works with different index math) and is fine for small C (3-channel
images, where the stride jump stays inside a few lines); large C needs the tiled kernel.
"""

import torch
import triton
import triton.language as tl

BLOCK = 1024
NUM_WARPS = 4


@triton.jit
def _nchw_to_nhwc_flat(x_ptr, y_ptr, total, C, HW, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    c = offs % C
    pix = offs // C           # n * HW + hw
    n = pix // HW
    hw = pix % HW
    v = tl.load(x_ptr + n * C * HW + c * HW + hw, mask=mask)
    tl.store(y_ptr + offs, v, mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        n, c, h, w = x.shape
        y = torch.empty((n, h, w, c), dtype=x.dtype, device=x.device)
        total = x.numel()
        if total > 0:
            _nchw_to_nhwc_flat[(triton.cdiv(total, BLOCK),)](x, y, total, c, h * w, BLOCK=BLOCK, num_warps=NUM_WARPS)
        return y
