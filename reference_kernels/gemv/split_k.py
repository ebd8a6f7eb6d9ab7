"""
---
op: gemv
strategy: split-k-workspace-reduce
techniques: [split-k, row-block, two-kernel, deterministic, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_N: {values: [1, 2, 4, 8, 16], default: 4}
  BLOCK_K: {values: [64, 128, 256, 512], default: 256}
  SPLIT_K: {values: [1, 2, 4, 8, 16, 32], default: 8}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://github.com/NVIDIA/cutlass/blob/main/media/docs/cpp/efficient_gemm.md
  - https://arxiv.org/abs/2307.08691
---
The second grid axis cuts k into SPLIT_K slices, so a matrix with few rows still spreads its reads
over rows/BLOCK_N x SPLIT_K programs: each program reduces its [BLOCK_N, k slice] slab against
the same slice of x and writes BLOCK_N partial sums to a [SPLIT_K, n] fp32 workspace; a second
kernel adds the SPLIT_K partials of each row in a fixed order, so the result is deterministic
(fp32 atomics into y would skip the second launch but add in run-dependent order). The workspace
is tiny next to w (SPLIT_K floats per row), so the cost is one extra launch. It wins for short,
long-k matrices (77 x 30001, a down projection at small n) and loses a little on tall ones, where
the row-block kernel already fills the GPU.
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 4
BLOCK_K = 256
SPLIT_K = 8
NUM_WARPS = 4


@triton.jit
def _gemv_split(w_ptr, x_ptr, ws_ptr, n, k, k_per_split, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    split = tl.program_id(1)
    row_mask = rows < n
    k_start = split * k_per_split
    k_end = tl.minimum(k_start + k_per_split, k)
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_N, BLOCK_K], dtype=tl.float32)
    for k0 in range(k_start, k_end, BLOCK_K):
        kk = k0 + ks
        k_mask = kk < k_end
        x = tl.load(x_ptr + kk, mask=k_mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + rows[:, None].to(tl.int64) * k + kk[None, :], mask=row_mask[:, None] & k_mask[None, :],
                    other=0.0).to(tl.float32)
        acc += w * x[None, :]
    tl.store(ws_ptr + split * n + rows, tl.sum(acc, axis=1), mask=row_mask)


@triton.jit
def _reduce_splits(ws_ptr, y_ptr, n, SPLIT_K: tl.constexpr, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = rows < n
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in range(SPLIT_K):
        acc += tl.load(ws_ptr + s * n + rows, mask=mask, other=0.0)
    tl.store(y_ptr + rows, acc.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, w: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        w = w.contiguous()
        x = x.contiguous()
        n, k = w.shape
        y = torch.empty(n, dtype=w.dtype, device=w.device)
        if n > 0:
            k_per_split = triton.cdiv(triton.cdiv(k, SPLIT_K), BLOCK_K) * BLOCK_K
            ws = torch.empty((SPLIT_K, n), dtype=torch.float32, device=w.device)
            _gemv_split[(triton.cdiv(n, BLOCK_N), SPLIT_K)](w, x, ws, n, k, k_per_split, BLOCK_N=BLOCK_N,
                                                            BLOCK_K=BLOCK_K, num_warps=NUM_WARPS)
            _reduce_splits[(triton.cdiv(n, 1024),)](ws, y, n, SPLIT_K=SPLIT_K, BLOCK=1024, num_warps=4)
        return y
