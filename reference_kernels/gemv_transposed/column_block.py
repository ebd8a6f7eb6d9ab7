"""
---
op: gemv_transposed
strategy: column-block-row-walk
techniques: [column-tile, strided-reduction, coalesced-rows, vector-accumulator, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_K: {values: [4, 8, 16, 32, 64], default: 16}
  BLOCK_N: {values: [32, 64, 128, 256, 512], default: 256}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://docs.nvidia.com/cuda/cublas/index.html#cublas-t-gemv
  - https://github.com/openai/gpt-2/blob/master/src/model.py
---
Program j owns BLOCK_N adjacent outputs and walks down all k rows of w in [BLOCK_K, BLOCK_N] tiles:
every tile row is a contiguous BLOCK_N-wide segment (coalesced), each row is scaled by its x value
(a BLOCK_K slice of x, shared by all programs through L2) and the products are added into a
[BLOCK_K, BLOCK_N] fp32 accumulator that is reduced over its rows once, after the loop. Reading
a column per output (the layout-naive mapping) would turn every load into a k-strided gather;
owning columns keeps the row-major weight streaming at full bandwidth. The grid is n / BLOCK_N
programs: plenty for a 14336- or 128256-wide output, too few for narrow ones (77 or 1600 columns
with long k), where the row-split kernel spreads the rows over programs.
"""

import torch
import triton
import triton.language as tl

BLOCK_K = 16
BLOCK_N = 256
NUM_WARPS = 4


@triton.jit
def _gemv_t_cols(x_ptr, w_ptr, y_ptr, k, n, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < n
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_K, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, k, BLOCK_K):
        rows = k0 + rk
        row_mask = rows < k
        xv = tl.load(x_ptr + rows, mask=row_mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + rows[:, None].to(tl.int64) * n + cols[None, :], mask=row_mask[:, None] & col_mask[None, :],
                    other=0.0).to(tl.float32)
        acc += w * xv[:, None]
    tl.store(y_ptr + cols, tl.sum(acc, axis=0).to(y_ptr.dtype.element_ty), mask=col_mask)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        w = w.contiguous()
        k, n = w.shape
        y = torch.empty(n, dtype=w.dtype, device=w.device)
        if n > 0:
            _gemv_t_cols[(triton.cdiv(n, BLOCK_N),)](x, w, y, k, n, BLOCK_K=BLOCK_K, BLOCK_N=BLOCK_N, num_warps=NUM_WARPS)
        return y
