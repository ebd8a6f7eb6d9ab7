"""
---
op: row_sum
strategy: split-row-two-kernels
techniques: [split-reduction, two-kernel-tree, deterministic, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  CHUNK: {values: [1024, 2048, 4096, 8192, 16384], default: 4096}
  BLOCK_N: {values: [256, 512, 1024, 2048], default: 1024}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://developer.download.nvidia.com/assets/cuda/files/reduction.pdf
---
For few, long rows (decode-time vocab rows: 1-32 rows of 128K) one program per row leaves most SMs
idle. This kernel splits each row into CHUNK-wide pieces, so the grid is rows x chunks: the first
kernel writes one fp32 partial per (row, chunk) into a small workspace, the second reduces each
row's partials in a fixed order. No atomics, so the result is bitwise reproducible. The extra launch
and the partials round trip cost a few microseconds, so for many rows the single-kernel version wins.
"""

import torch
import triton
import triton.language as tl

CHUNK = 4096
BLOCK_N = 1024
NUM_WARPS = 4


@triton.jit
def _partial_sums(x_ptr, part_ptr, n_cols, x_stride, n_chunks, CHUNK: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    cols = tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for off in range(0, CHUNK, BLOCK_N):
        idx = chunk * CHUNK + off + cols
        acc += tl.load(x_ptr + row * x_stride + idx, mask=idx < n_cols, other=0.0).to(tl.float32)
    tl.store(part_ptr + row * n_chunks + chunk, tl.sum(acc, axis=0))


@triton.jit
def _reduce_partials(part_ptr, y_ptr, n_chunks, BLOCK_C: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_C)
    acc = tl.zeros([BLOCK_C], dtype=tl.float32)
    for start in range(0, n_chunks, BLOCK_C):
        idx = start + offs
        acc += tl.load(part_ptr + row * n_chunks + idx, mask=idx < n_chunks, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0).to(y_ptr.dtype.element_ty))


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        n_rows = x2.shape[0]
        y = torch.empty(n_rows, dtype=x.dtype, device=x.device)
        if n_rows > 0:
            block_n = min(BLOCK_N, CHUNK)
            n_chunks = triton.cdiv(n_cols, CHUNK)
            partials = torch.empty((n_rows, n_chunks), dtype=torch.float32, device=x.device)
            _partial_sums[(n_rows, n_chunks)](x2, partials, n_cols, x2.stride(0), n_chunks,
                                              CHUNK=CHUNK, BLOCK_N=block_n, num_warps=NUM_WARPS)
            _reduce_partials[(n_rows,)](partials, y, n_chunks,
                                        BLOCK_C=min(1024, triton.next_power_of_2(n_chunks)), num_warps=4)
        return y.view(x.shape[:-1])
