"""
---
op: top_k_rows
strategy: chunk-candidates-then-merge
techniques: [split-row, two-stage-selection, candidate-workspace, iterative-selection, argmax-lowest-index, two-kernel, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  CHUNK: {values: [16, 32, 64, 128, 256, 512, 1024, 2048], default: 1024}
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
requires: []
sources:
  - https://arxiv.org/abs/1804.06826
  - https://pytorch.org/docs/stable/generated/torch.topk.html
---
The split-row form of top-k, for rows too long for one program's registers or too few to fill the
GPU (beam search over a 4K or 128K vocabulary, few rows). Stage 1 runs a (row, chunk) grid: each
program extracts its CHUNK's k largest values and their column indices by k max-scans in
registers and writes them as candidates. The row's true top k are all among its chunks' top k, so
stage 2, one program per row, selects the final k from the n_chunks x k candidates the same way
(lowest column index first among equal values) and writes them in descending order. A chunk with
fewer than k elements pads its list with -inf. Work is O(n k) in stage 1, spread over
rows x chunks programs, plus O(n_chunks k^2) in stage 2; it pays for the second launch only when
rows are long or few.
"""

import torch
import triton
import triton.language as tl

CHUNK = 1024
NUM_WARPS = 4


@triton.jit
def _chunk_topk(x_ptr, cv_ptr, ci_ptr, n_cols, k, n_cand, CHUNK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    cols = chunk * CHUNK + tl.arange(0, CHUNK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
    out = row * n_cand + chunk * k
    for j in range(0, k):
        m = tl.max(x, axis=0)
        at = tl.min(tl.where(x == m, cols, n_cols), axis=0)
        tl.store(cv_ptr + out + j, m)
        tl.store(ci_ptr + out + j, at)
        x = tl.where(cols == at, float("-inf"), x)


@triton.jit
def _merge_topk(cv_ptr, ci_ptr, val_ptr, idx_ptr, n_cols, k, n_cand, BLOCK_C: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    c = tl.arange(0, BLOCK_C)
    c_mask = c < n_cand
    v = tl.load(cv_ptr + row * n_cand + c, mask=c_mask, other=float("-inf"))
    ids = tl.load(ci_ptr + row * n_cand + c, mask=c_mask, other=n_cols)
    for j in range(0, k):
        m = tl.max(v, axis=0)
        at = tl.min(tl.where(v == m, ids, n_cols), axis=0)
        tl.store(val_ptr + row * k + j, m.to(val_ptr.dtype.element_ty))
        tl.store(idx_ptr + row * k + j, at.to(tl.int64))
        v = tl.where(ids == at, float("-inf"), v)


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
            n_chunks = triton.cdiv(n_cols, CHUNK)
            n_cand = n_chunks * self.k
            cand_v = torch.empty((n_rows, n_cand), dtype=torch.float32, device=x.device)
            cand_i = torch.empty((n_rows, n_cand), dtype=torch.int32, device=x.device)
            _chunk_topk[(n_rows, n_chunks)](x2, cand_v, cand_i, n_cols, self.k, n_cand, CHUNK=CHUNK,
                                           num_warps=NUM_WARPS)
            _merge_topk[(n_rows,)](cand_v, cand_i, values, indices, n_cols, self.k, n_cand,
                                   BLOCK_C=triton.next_power_of_2(n_cand), num_warps=NUM_WARPS)
        out_shape = tuple(x.shape[:-1]) + (self.k,)
        return values.view(out_shape), indices.view(out_shape)
