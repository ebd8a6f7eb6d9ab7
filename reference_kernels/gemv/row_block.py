"""
---
op: gemv
strategy: row-block-per-program
techniques: [row-block, k-loop, vector-accumulator, fp32-accumulate, coalesced-rows, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_N: {values: [1, 2, 4, 8, 16, 32], default: 8}
  BLOCK_K: {values: [64, 128, 256, 512, 1024], default: 512}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://github.com/pytorch-labs/gpt-fast
  - https://docs.nvidia.com/cuda/cublas/index.html#cublas-t-gemv
---
Program i owns BLOCK_N rows of w and walks k in BLOCK_K steps: it loads the [BLOCK_N, BLOCK_K]
slab (each row segment contiguous, so the loads coalesce), the matching BLOCK_K slice of x (shared
by all rows, served from L1/L2), and accumulates the products elementwise into a [BLOCK_N, BLOCK_K]
fp32 tile; one tl.sum along k after the loop gives the BLOCK_N outputs. No tensor cores are
involved: with one column there is no reuse to exploit, so the kernel only has to keep enough
loads in flight, which a grid of n / BLOCK_N programs does when n is in the thousands (every
Llama-sized projection). With few rows and a long k (77 x 30001) most SMs idle: use split-K.
Nsight Compute on an H100 (session 48, docs/results/2026-12-07-s48/s48a/lp/gemv/): the fastest kernel
at 4096 x 4096 in the table, 27.17 us at 76.3 % of DRAM bandwidth against torch.compile's 24.90 at
83.1 %, on the same bytes. It takes 69 registers a thread (23.5 % achieved occupancy, 43.8 %
theoretical), against torch.compile's one row a program on 16 warps at 27 registers (91.4 %): too
few loads in flight to keep DRAM busy.
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 8
BLOCK_K = 512
NUM_WARPS = 4


@triton.jit
def _gemv_rows(w_ptr, x_ptr, y_ptr, n, k, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    row_mask = rows < n
    ks = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_N, BLOCK_K], dtype=tl.float32)
    for k0 in range(0, k, BLOCK_K):
        kk = k0 + ks
        k_mask = kk < k
        x = tl.load(x_ptr + kk, mask=k_mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + rows[:, None].to(tl.int64) * k + kk[None, :], mask=row_mask[:, None] & k_mask[None, :],
                    other=0.0).to(tl.float32)
        acc += w * x[None, :]
    tl.store(y_ptr + rows, tl.sum(acc, axis=1).to(y_ptr.dtype.element_ty), mask=row_mask)


class ModelNew(torch.nn.Module):
    def forward(self, w: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        w = w.contiguous()
        x = x.contiguous()
        n, k = w.shape
        y = torch.empty(n, dtype=w.dtype, device=w.device)
        if n > 0:
            _gemv_rows[(triton.cdiv(n, BLOCK_N),)](w, x, y, n, k, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=NUM_WARPS)
        return y
