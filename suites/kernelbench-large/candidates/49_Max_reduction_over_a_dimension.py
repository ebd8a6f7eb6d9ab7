"""Maximum over one dimension of a contiguous tensor, the dimension removed (torch.max(x, dim)[0]).

The tensor is read as (outer, R, inner): outer = the dims before `dim`, R = the reduced dim, inner
= the dims after it (for 128 x 4096 x 4095 over dim 1: outer 128, R 4096, inner 4095). A program
(one flat grid axis, so no grid dimension limits the outer size) owns BLOCK_K consecutive inner
positions of one outer index and walks R in BLOCK_R-row tiles of contiguous rows, keeping an
elementwise running maximum in a (BLOCK_R, BLOCK_K) tile that is reduced over its rows once at the
end. Each input element is read once; offsets are 64-bit. NaN inputs are not propagated as
torch.max does (the problem's inputs are uniform in [0, 1)); an empty reduced dimension is refused,
as torch refuses it.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_R = 32
BLOCK_K = 128
NUM_WARPS = 8


@triton.jit
def _max_dim_kernel(x_ptr, y_ptr, R, inner, n_kblocks, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    o = (pid // n_kblocks).to(tl.int64)
    pid_k = pid % n_kblocks
    k = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    rr = tl.arange(0, BLOCK_R)
    base = x_ptr + o * R * inner
    best = tl.full([BLOCK_R, BLOCK_K], -float("inf"), dtype=tl.float32)
    for r0 in range(0, R, BLOCK_R):
        rows = r0 + rr
        mask = (rows[:, None] < R) & (k[None, :] < inner)
        ptrs = base + rows[:, None].to(tl.int64) * inner + k[None, :]
        x = tl.load(ptrs, mask=mask, other=-float("inf"), eviction_policy="evict_first").to(tl.float32)
        best = tl.maximum(best, x)
    tl.store(y_ptr + o * inner + k, tl.max(best, axis=0).to(y_ptr.dtype.element_ty), mask=k < inner)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        d = self.dim % x.dim()
        xc = x.contiguous()
        shape = list(xc.shape)
        R = shape[d]
        if R == 0:
            raise ValueError("max over an empty dimension")
        outer = 1
        for s in shape[:d]:
            outer *= s
        inner = 1
        for s in shape[d + 1:]:
            inner *= s
        y = torch.empty(shape[:d] + shape[d + 1:], device=xc.device, dtype=xc.dtype)
        if y.numel() > 0:
            n_kblocks = triton.cdiv(inner, BLOCK_K)
            _max_dim_kernel[(outer * n_kblocks,)](xc, y, R, inner, n_kblocks, BLOCK_R=BLOCK_R,
                                                  BLOCK_K=BLOCK_K, num_warps=NUM_WARPS)
        return y
