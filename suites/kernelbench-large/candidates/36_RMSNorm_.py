"""RMS normalization over dim 1 of a contiguous (B, C, H, W) tensor, for small C (64 here).

Each program owns BLOCK_HW consecutive spatial positions of one batch index and loads the whole
(C, BLOCK_HW) tile at once: C rows at stride H*W, each row BLOCK_HW contiguous floats, so every
warp reads whole 128-byte lines. The sum of squares is reduced over the channel axis in registers,
and the same tile is scaled and written back: one read and one write per element (a loop over the
channels that re-reads them would read twice). The tile holds next_power_of_2(C) * BLOCK_HW
floats, kept near 8192 by shrinking BLOCK_HW as C grows. Batch offsets are 64-bit
(112 x 64 x 512 x 512 is 1.88e9 elements).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_HW = 128
TILE_ELEMS = 8192
NUM_WARPS = 8


@triton.jit
def _rmsnorm_channels_kernel(x_ptr, y_ptr, C, HW, inv_c, eps, BLOCK_C: tl.constexpr,
                             BLOCK_HW: tl.constexpr, EVEN: tl.constexpr):
    pid_hw = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    ch = tl.arange(0, BLOCK_C)
    hw = pid_hw * BLOCK_HW + tl.arange(0, BLOCK_HW)
    offs = b * C * HW + ch[:, None].to(tl.int64) * HW + hw[None, :]
    if EVEN:
        x = tl.load(x_ptr + offs, eviction_policy="evict_first").to(tl.float32)
    else:
        mask = (ch[:, None] < C) & (hw[None, :] < HW)
        x = tl.load(x_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    ms = tl.sum(x * x, axis=0) * inv_c
    rms = tl.sqrt(ms + eps)
    y = x / rms[None, :]
    if EVEN:
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty))
    else:
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xc = x.contiguous()
        y = torch.empty_like(xc)
        b, c = xc.shape[0], xc.shape[1]
        hw = xc.numel() // max(b * c, 1)
        if xc.numel() > 0:
            block_c = triton.next_power_of_2(c)
            block_hw = max(16, min(BLOCK_HW, TILE_ELEMS // block_c, triton.next_power_of_2(hw)))
            grid = (triton.cdiv(hw, block_hw), b)
            _rmsnorm_channels_kernel[grid](
                xc, y, c, hw, 1.0 / c, self.eps, BLOCK_C=block_c, BLOCK_HW=block_hw,
                EVEN=(block_c == c and hw % block_hw == 0), num_warps=NUM_WARPS,
            )
        return y
