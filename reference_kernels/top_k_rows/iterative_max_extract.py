"""
---
op: top_k_rows
strategy: rows-in-registers-iterative-max
techniques: [multi-row-tile, rows-in-registers, iterative-selection, argmax-lowest-index, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_M: {values: [1, 2, 4, 8, 16], default: 4}
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/csrc/moe/topk_softmax_kernels.cu
  - https://pytorch.org/docs/stable/generated/torch.topk.html
---
Loads BLOCK_M whole rows into registers once (the row width rounded up to a power of two) and
selects k times: take the row max with tl.max, its lowest index with a tl.min over the positions
holding it, store that pair as output column j, and knock the winner out by setting it to -inf.
x is read from memory once; the work is k max-scans over the row in registers, so it is the right
choice for small k over short rows (MoE routers: top-8 of 256) and degrades linearly with k. It is
what vLLM's router top-k kernel does per warp. Rows must fit in registers (a few thousand columns);
for long rows and larger k a sort or radix select is needed.
"""

import torch
import triton
import triton.language as tl

BLOCK_M = 4
NUM_WARPS = 4


@triton.jit
def _topk_iterative(x_ptr, val_ptr, idx_ptr, n_rows, n_cols, k, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < n_rows
    cols = tl.arange(0, BLOCK_N)
    mask = row_mask[:, None] & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None].to(tl.int64) * n_cols + cols[None, :], mask=mask,
                other=float("-inf")).to(tl.float32)
    out = rows.to(tl.int64) * k
    for j in range(0, k):
        m = tl.max(x, axis=1)
        at = tl.min(tl.where(x == m[:, None], cols[None, :], BLOCK_N), axis=1)
        tl.store(val_ptr + out + j, m.to(val_ptr.dtype.element_ty), mask=row_mask)
        tl.store(idx_ptr + out + j, at.to(tl.int64), mask=row_mask)
        x = tl.where(cols[None, :] == at[:, None], float("-inf"), x)


class ModelNew(torch.nn.Module):
    def __init__(self, k: int):
        super().__init__()
        self.k = k

    def forward(self, x: torch.Tensor) -> tuple:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        n_rows = x2.shape[0]
        values = torch.empty((n_rows, self.k), dtype=x.dtype, device=x.device)
        indices = torch.empty((n_rows, self.k), dtype=torch.int64, device=x.device)
        if n_rows > 0 and self.k > 0:
            _topk_iterative[(triton.cdiv(n_rows, BLOCK_M),)](x2, values, indices, n_rows, n_cols, self.k,
                                                             BLOCK_M=BLOCK_M, BLOCK_N=triton.next_power_of_2(n_cols),
                                                             num_warps=NUM_WARPS)
        out_shape = tuple(x.shape[:-1]) + (self.k,)
        return values.view(out_shape), indices.view(out_shape)
