"""
---
op: embedding_bag_sum
strategy: unfused-gather-then-segment-sum
techniques: [unfused-baseline, two-kernel, index-driven-loads, intermediate-buffer, segment-per-program, deterministic, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_J: {values: [4, 8, 16, 32, 64], default: 16}
  BLOCK_D: {values: [32, 64, 128, 256, 512], default: 128}
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
requires: []
sources:
  - https://pytorch.org/docs/stable/generated/torch.nn.EmbeddingBag.html
  - https://arxiv.org/abs/1906.00091
---
The counter-example, as an eager framework runs it (embedding, then a segment reduction):
kernel 1 gathers every indexed row into a dense [n_idx, d] buffer (a tile of indices x columns
per program), kernel 2 sums each bag's run of buffer rows. The gather itself is perfectly
parallel and balanced (one program per index tile, whatever the bag sizes), but the buffer is
written once and read once more, so DRAM traffic is about three times the fused kernel's
(n_idx x d x 4 bytes gathered, written, re-read) plus a second launch. Kept to measure the fusion
against; it is also the shape of any pipeline that stores an intermediate it could have reduced
in registers.
"""

import torch
import triton
import triton.language as tl

BLOCK_J = 16
BLOCK_D = 128
NUM_WARPS = 4


@triton.jit
def _gather_rows(idx_ptr, w_ptr, buf_ptr, n_idx, d, BLOCK_J: tl.constexpr, BLOCK_D: tl.constexpr):
    j = tl.program_id(0) * BLOCK_J + tl.arange(0, BLOCK_J)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = (j[:, None] < n_idx) & (cols[None, :] < d)
    rows = tl.load(idx_ptr + j, mask=j < n_idx, other=0)
    v = tl.load(w_ptr + rows[:, None] * d + cols[None, :], mask=mask, other=0.0)
    tl.store(buf_ptr + j[:, None].to(tl.int64) * d + cols[None, :], v, mask=mask)


@triton.jit
def _segment_rows_sum(buf_ptr, off_ptr, y_ptr, d, BLOCK_J: tl.constexpr, BLOCK_D: tl.constexpr):
    bag = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    col_mask = cols < d
    start = tl.load(off_ptr + bag)
    end = tl.load(off_ptr + bag + 1)
    js = tl.arange(0, BLOCK_J)
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for j0 in range(start, end, BLOCK_J):
        j = j0 + js
        v = tl.load(buf_ptr + j[:, None] * d + cols[None, :], mask=(j[:, None] < end) & col_mask[None, :], other=0.0)
        acc += tl.sum(v.to(tl.float32), axis=0)
    tl.store(y_ptr + bag * d + cols, acc.to(y_ptr.dtype.element_ty), mask=col_mask)


class ModelNew(torch.nn.Module):
    def __init__(self, num_emb: int, d: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.empty(num_emb, d))

    def forward(self, indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        indices = indices.contiguous()
        offsets = offsets.contiguous()
        n_idx = indices.shape[0]
        n_bags = offsets.shape[0] - 1
        d = self.weight.shape[1]
        y = torch.empty((n_bags, d), dtype=self.weight.dtype, device=self.weight.device)
        if n_bags > 0 and d > 0:
            buf = torch.empty((max(n_idx, 1), d), dtype=self.weight.dtype, device=self.weight.device)
            if n_idx > 0:
                _gather_rows[(triton.cdiv(n_idx, BLOCK_J), triton.cdiv(d, BLOCK_D))](
                    indices, self.weight.contiguous(), buf, n_idx, d, BLOCK_J=BLOCK_J, BLOCK_D=BLOCK_D,
                    num_warps=NUM_WARPS)
            _segment_rows_sum[(n_bags, triton.cdiv(d, BLOCK_D))](buf, offsets, y, d, BLOCK_J=BLOCK_J, BLOCK_D=BLOCK_D,
                                                                 num_warps=NUM_WARPS)
        return y
