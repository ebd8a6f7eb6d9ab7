"""Sum over one dimension of a contiguous tensor, kept as size 1 (torch.sum(x, dim, keepdim=True)).

The tensor is read as (outer, R, inner): outer = the dims before `dim`, R = the reduced dim, inner
= the dims after it (for 128 x 4096 x 4095 over dim 1: outer 128, R 4096, inner 4095). A program
(one flat grid axis, so no grid dimension limits the outer size) owns BLOCK_K consecutive inner
positions of one outer index and walks R in BLOCK_R-row tiles, so every tile row is BLOCK_K
contiguous floats (whole cache lines), and adds each tile into a (BLOCK_R, BLOCK_K) float32
accumulator that is reduced over its rows once at the end. Each input element is read once. Offsets
are 64-bit (the input has 2.1e9 elements).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_R = 32
BLOCK_K = 128
NUM_WARPS = 8


@triton.jit
def _sum_dim_kernel(x_ptr, y_ptr, R, inner, n_kblocks, BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    o = (pid // n_kblocks).to(tl.int64)
    pid_k = pid % n_kblocks
    k = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    rr = tl.arange(0, BLOCK_R)
    base = x_ptr + o * R * inner
    acc = tl.zeros([BLOCK_R, BLOCK_K], dtype=tl.float32)
    for r0 in range(0, R, BLOCK_R):
        rows = r0 + rr
        mask = (rows[:, None] < R) & (k[None, :] < inner)
        ptrs = base + rows[:, None].to(tl.int64) * inner + k[None, :]
        acc += tl.load(ptrs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    total = tl.sum(acc, axis=0)
    tl.store(y_ptr + o * inner + k, total.to(y_ptr.dtype.element_ty), mask=k < inner)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        d = self.dim % x.dim()
        xc = x.contiguous()
        shape = list(xc.shape)
        R = shape[d]
        outer = 1
        for s in shape[:d]:
            outer *= s
        inner = 1
        for s in shape[d + 1:]:
            inner *= s
        shape[d] = 1
        y = torch.empty(shape, device=xc.device, dtype=xc.dtype)
        if y.numel() > 0:
            n_kblocks = triton.cdiv(inner, BLOCK_K)
            _sum_dim_kernel[(outer * n_kblocks,)](xc, y, R, inner, n_kblocks, BLOCK_R=BLOCK_R,
                                                  BLOCK_K=BLOCK_K, num_warps=NUM_WARPS)
        return y
