"""
---
op: cross_entropy
strategy: split-row-two-kernels
techniques: [split-reduction, online-softmax, partial-results-workspace, fp32-accumulate, 2d-grid, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_N: {values: [1024, 2048, 4096, 8192, 16384], default: 4096}
  NUM_WARPS: {values: [4, 8, 16], default: 8}
requires: []
sources:
  - https://arxiv.org/abs/1805.02867 (Milakov & Gimelshein, merging partial max/sum pairs)
---
A 2D grid of (row, chunk): each program reduces one BLOCK_N chunk of logits to a (max, sum of
exp(x - max)) pair in an fp32 workspace; a second kernel, one program per row, merges the pairs
(rescaling each sum to the row max) into the logsumexp and subtracts the target logit. Each logit
is still read once, but with n_rows * cdiv(vocab, BLOCK_N) programs a decode batch of 32 rows keeps
the whole GPU busy; at prefill row counts the extra launch and workspace buy nothing.
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 4096
NUM_WARPS = 8


@triton.jit
def _chunk_lse(x_ptr, pm_ptr, ps_ptr, n_cols, n_chunks, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    cols = chunk * BLOCK_N + tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    tl.store(pm_ptr + row * n_chunks + chunk, m)
    tl.store(ps_ptr + row * n_chunks + chunk, tl.sum(tl.exp(x - m), axis=0))


@triton.jit
def _merge_lse(x_ptr, t_ptr, pm_ptr, ps_ptr, out_ptr, n_cols, n_chunks, CHUNKS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    c = tl.arange(0, CHUNKS)
    mask = c < n_chunks
    pm = tl.load(pm_ptr + row * n_chunks + c, mask=mask, other=-float("inf"))
    ps = tl.load(ps_ptr + row * n_chunks + c, mask=mask, other=0.0)
    row_max = tl.max(pm, axis=0)
    lse = row_max + tl.log(tl.sum(tl.where(mask, ps * tl.exp(pm - row_max), 0.0), axis=0))
    tgt = tl.load(t_ptr + row).to(tl.int64)
    x_t = tl.load(x_ptr + row * n_cols + tgt).to(tl.float32)
    tl.store(out_ptr + row, lse - x_t)


class ModelNew(torch.nn.Module):
    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        n_cols = logits.shape[-1]
        x = logits.contiguous()
        t = target.contiguous()
        n_rows = x.shape[0]
        out = torch.empty(n_rows, dtype=torch.float32, device=x.device)
        if n_rows > 0:
            n_chunks = triton.cdiv(n_cols, BLOCK_N)
            part_max = torch.empty((n_rows, n_chunks), dtype=torch.float32, device=x.device)
            part_sum = torch.empty((n_rows, n_chunks), dtype=torch.float32, device=x.device)
            _chunk_lse[(n_rows, n_chunks)](x, part_max, part_sum, n_cols, n_chunks,
                                           BLOCK_N=BLOCK_N, num_warps=NUM_WARPS)
            _merge_lse[(n_rows,)](x, t, part_max, part_sum, out, n_cols, n_chunks,
                                  CHUNKS=triton.next_power_of_2(n_chunks), num_warps=4)
        return out
