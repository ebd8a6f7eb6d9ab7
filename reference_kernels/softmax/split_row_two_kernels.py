"""
---
op: softmax
strategy: split-row-two-kernels
techniques: [split-reduction, online-softmax, partial-results-workspace, fp32-accumulate, masked-tail, 2d-grid]
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
For few, very long rows (sampling over a 128K-150K vocabulary at decode batch sizes) one program per
row leaves most SMs idle. Here each row is cut into BLOCK_N-wide chunks on a 2D grid: the first
kernel writes each chunk's max and sum of exp(x - max) to a small fp32 workspace; the second kernel
(same grid) merges the row's partial pairs, rescaling each sum to the row max, then re-reads its
chunk and writes exp(x - max) / sum. Two reads and one write per element plus a tiny workspace, with
n_rows * cdiv(n_cols, BLOCK_N) programs of parallelism; on short rows the chunking buys nothing and
the second launch is pure overhead.
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 4096
NUM_WARPS = 8


@triton.jit
def _chunk_stats(x_ptr, m_ptr, s_ptr, n_cols, n_chunks, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    cols = chunk * BLOCK_N + tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    s = tl.sum(tl.exp(x - m), axis=0)
    tl.store(m_ptr + row * n_chunks + chunk, m)
    tl.store(s_ptr + row * n_chunks + chunk, s)


@triton.jit
def _chunk_normalize(x_ptr, y_ptr, m_ptr, s_ptr, n_cols, n_chunks,
                     BLOCK_N: tl.constexpr, CHUNKS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    idx = tl.arange(0, CHUNKS)
    pmask = idx < n_chunks
    pm = tl.load(m_ptr + row * n_chunks + idx, mask=pmask, other=-float("inf"))
    ps = tl.load(s_ptr + row * n_chunks + idx, mask=pmask, other=0.0)
    row_max = tl.max(pm, axis=0)
    inv_sum = 1.0 / tl.sum(tl.where(pmask, ps * tl.exp(pm - row_max), 0.0), axis=0)
    cols = chunk * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf")).to(tl.float32)
    y = tl.exp(x - row_max) * inv_sum
    tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        n_rows = x2.shape[0]
        y = torch.empty_like(x2)
        if n_rows == 0:
            return y.view(x.shape)
        n_chunks = triton.cdiv(n_cols, BLOCK_N)
        part_max = torch.empty((n_rows, n_chunks), dtype=torch.float32, device=x.device)
        part_sum = torch.empty((n_rows, n_chunks), dtype=torch.float32, device=x.device)
        grid = (n_rows, n_chunks)
        _chunk_stats[grid](x2, part_max, part_sum, n_cols, n_chunks, BLOCK_N=BLOCK_N, num_warps=NUM_WARPS)
        _chunk_normalize[grid](x2, y, part_max, part_sum, n_cols, n_chunks,
                               BLOCK_N=BLOCK_N, CHUNKS=triton.next_power_of_2(n_chunks), num_warps=NUM_WARPS)
        return y.view(x.shape)
