"""
---
op: cumsum_rows
strategy: reduce-then-scan-split-row
techniques: [split-row, reduce-then-scan, two-kernel, block-scan, tl-cumsum, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  CHUNK: {values: [1024, 2048, 4096, 8192, 16384], default: 4096}
  BLOCK_N: {values: [256, 512, 1024, 2048], default: 1024}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://research.nvidia.com/publication/2016-03_single-pass-parallel-prefix-scan-decoupled-look-back
  - https://developer.nvidia.com/gpugems/gpugems3/part-vi-gpu-computing/chapter-39-parallel-prefix-sum-scan-cuda
---
Parallelizes inside a row. Pass 1 (grid rows x chunks) sums each CHUNK of a row into a small
partials table. Pass 2 (same grid) gives every chunk its exclusive prefix, the sum of the partials
of the chunks before it in the row, and then scans its own chunk block by block with tl.cumsum
starting from that offset. The input is read twice and the output written once (3 sweeps instead
of 2), but a 128K-wide row now occupies dozens of programs instead of one, which is what the
decode top-p shapes (few rows, huge vocabularies) need. A single-pass decoupled look-back scan
would save the second read at the price of inter-program flags.
A row of one chunk (n_cols <= CHUNK: rows-4k-4096, short-rows-16k) has no earlier chunk to wait
for, so pass 1 is skipped there: one read and one write, one launch. Each program's loops stop at
the row's end and the block is no wider than the row (next power of two), so a short row does not
run masked trips. Until session 49 both passes ran at every shape and the scan walked the whole
CHUNK in BLOCK_N steps: compiled for sm_90 at short-rows-16k (256 columns) three of its four 1024-wide
trips were fully masked, each with 5 barriers and 8 shared-memory accesses (tools/offline_compile.py),
and on the H100 it took 62.59 us there against torch.compile's 13.41 and 70.43 against 51.41 at
rows-4k-4096 (session 48's table, s48a/k2). Not yet timed since this change.
"""

import torch
import triton
import triton.language as tl

CHUNK = 4096
BLOCK_N = 1024
NUM_WARPS = 4


@triton.jit
def _chunk_sums(x_ptr, part_ptr, n_cols, x_stride, n_chunks, CHUNK: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    cols = tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for off in range(0, tl.minimum(CHUNK, n_cols - chunk * CHUNK), BLOCK_N):
        idx = chunk * CHUNK + off + cols
        acc += tl.load(x_ptr + row * x_stride + idx, mask=idx < n_cols, other=0.0).to(tl.float32)
    tl.store(part_ptr + row * n_chunks + chunk, tl.sum(acc, axis=0))


@triton.jit
def _scan_chunks(x_ptr, y_ptr, part_ptr, n_cols, x_stride, y_stride, n_chunks,
                 CHUNK: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_C: tl.constexpr, SPLIT: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    carry = tl.zeros([], dtype=tl.float32)
    if SPLIT:  # the partials of the chunks before this one; a one-chunk row has none (and no pass 1)
        prev = tl.arange(0, BLOCK_C)
        for start in range(0, n_chunks, BLOCK_C):
            idx = start + prev
            carry += tl.sum(tl.load(part_ptr + row * n_chunks + idx, mask=idx < chunk, other=0.0), axis=0)
    cols = tl.arange(0, BLOCK_N)
    for off in range(0, tl.minimum(CHUNK, n_cols - chunk * CHUNK), BLOCK_N):
        idx = chunk * CHUNK + off + cols
        mask = idx < n_cols
        x = tl.load(x_ptr + row * x_stride + idx, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + row * y_stride + idx, (tl.cumsum(x, axis=0) + carry).to(y_ptr.dtype.element_ty),
                 mask=mask)
        carry += tl.sum(x, axis=0)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        y = torch.empty_like(x2)
        n_rows = x2.shape[0]
        if n_rows > 0 and n_cols > 0:
            block_n = min(BLOCK_N, CHUNK, triton.next_power_of_2(n_cols))
            n_chunks = triton.cdiv(n_cols, CHUNK)
            split = n_chunks > 1
            partials = torch.empty((n_rows, n_chunks) if split else (1,), dtype=torch.float32, device=x.device)
            grid = (n_rows, n_chunks)
            if split:
                _chunk_sums[grid](x2, partials, n_cols, x2.stride(0), n_chunks, CHUNK=CHUNK, BLOCK_N=block_n,
                                  num_warps=NUM_WARPS)
            _scan_chunks[grid](x2, y, partials, n_cols, x2.stride(0), y.stride(0), n_chunks, CHUNK=CHUNK,
                               BLOCK_N=block_n, BLOCK_C=min(256, triton.next_power_of_2(n_chunks)), SPLIT=split,
                               num_warps=NUM_WARPS)
        return y.view(x.shape)
