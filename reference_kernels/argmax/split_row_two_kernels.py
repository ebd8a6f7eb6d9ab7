"""
---
op: argmax
strategy: split-row-two-kernels
techniques: [argmax-reduction, split-reduction, partial-results-workspace, lowest-index-tie-break, 2d-grid, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_N: {values: [1024, 2048, 4096, 8192, 16384], default: 4096}
  NUM_WARPS: {values: [4, 8, 16], default: 8}
requires: []
sources:
  - https://pytorch.org/docs/stable/generated/torch.argmax.html (ties: first maximal index)
---
Decode batches have few rows and a 128K-150K vocabulary, so one program per row leaves most SMs
idle. Here a 2D grid of (row, chunk) programs each reduce one BLOCK_N chunk to its maximum and the
lowest index holding it, written to a small workspace; a second kernel, one program per row, picks
the largest partial maximum and the lowest index among chunks that hold it (chunks are ordered, so
that is the global lowest index). Parallelism is n_rows * cdiv(vocab, BLOCK_N) programs, for the
price of a second launch and a few bytes of workspace per chunk.
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 4096
NUM_WARPS = 8


@triton.jit
def _chunk_argmax(x_ptr, pv_ptr, pi_ptr, n_cols, n_chunks, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    cols = chunk * BLOCK_N + tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    idx = tl.min(tl.where((x == m) & (cols < n_cols), cols, 2147483647), axis=0)
    tl.store(pv_ptr + row * n_chunks + chunk, m)
    tl.store(pi_ptr + row * n_chunks + chunk, idx)


@triton.jit
def _merge_argmax(pv_ptr, pi_ptr, out_ptr, n_chunks, CHUNKS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    c = tl.arange(0, CHUNKS)
    mask = c < n_chunks
    v = tl.load(pv_ptr + row * n_chunks + c, mask=mask, other=-float("inf"))
    i = tl.load(pi_ptr + row * n_chunks + c, mask=mask, other=2147483647)
    m = tl.max(v, axis=0)
    idx = tl.min(tl.where((v == m) & mask, i, 2147483647), axis=0)
    tl.store(out_ptr + row, idx.to(tl.int64))


class ModelNew(torch.nn.Module):
    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        n_cols = logits.shape[-1]
        x = logits.reshape(-1, n_cols).contiguous()
        n_rows = x.shape[0]
        out = torch.empty(n_rows, dtype=torch.int64, device=x.device)
        if n_rows > 0:
            n_chunks = triton.cdiv(n_cols, BLOCK_N)
            part_val = torch.empty((n_rows, n_chunks), dtype=torch.float32, device=x.device)
            part_idx = torch.empty((n_rows, n_chunks), dtype=torch.int32, device=x.device)
            _chunk_argmax[(n_rows, n_chunks)](x, part_val, part_idx, n_cols, n_chunks,
                                              BLOCK_N=BLOCK_N, num_warps=NUM_WARPS)
            _merge_argmax[(n_rows,)](part_val, part_idx, out, n_chunks,
                                     CHUNKS=triton.next_power_of_2(n_chunks), num_warps=4)
        return out.view(logits.shape[:-1])
