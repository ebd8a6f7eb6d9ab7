"""
---
op: batched_matmul
strategy: persistent-over-all-batch-tiles
techniques: [persistent-kernel, tiling, tensor-cores, flattened-tile-space, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [sm80, sm90, gfx942]
params:
  BLOCK_M: {values: [16, 32, 64, 128], default: 64}
  BLOCK_N: {values: [16, 32, 64, 128], default: 64}
  BLOCK_K: {values: [16, 32, 64], default: 32}
  PROGRAMS_PER_SM: {values: [1, 2, 4, 8], default: 4}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://triton-lang.org/main/getting-started/tutorials/09-persistent-matmul.html
  - https://triton-lang.org/main/getting-started/tutorials/08-grouped-gemm.html
---
All tiles of all batch entries are numbered in one flat space (batch-major), and a fixed grid of
PROGRAMS_PER_SM x SMs programs walks it with a stride. This is the skeleton of Triton's grouped-GEMM
tutorial (where the matrices even differ in size) reduced to equal sizes: one launch, no per-tile
scheduling cost, and the tail of one batch entry fills in with the head of the next, so many small
matrices (512 of 64x64x64) keep every SM busy. For large matrices it matches the 2D-grid version.
"""

import torch
import triton
import triton.language as tl

BLOCK_M = 64
BLOCK_N = 64
BLOCK_K = 32
PROGRAMS_PER_SM = 4
NUM_WARPS = 4


@triton.jit
def _bmm_persistent(a_ptr, b_ptr, c_ptr, batch, M, N, K, n_programs, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, PRECISION: tl.constexpr):
    tiles_n = tl.cdiv(N, BLOCK_N)
    tiles_per_mat = tl.cdiv(M, BLOCK_M) * tiles_n
    rk = tl.arange(0, BLOCK_K)
    for tile in range(tl.program_id(0), batch * tiles_per_mat, n_programs):
        bid = (tile // tiles_per_mat).to(tl.int64)
        t = tile % tiles_per_mat
        rm = (t // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
        rn = (t % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
        a_base = a_ptr + bid * M * K
        b_base = b_ptr + bid * K * N
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            ks = k0 + rk
            a = tl.load(a_base + rm[:, None] * K + ks[None, :], mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
            b = tl.load(b_base + ks[:, None] * N + rn[None, :], mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc, input_precision=PRECISION)
        c = c_ptr + bid * M * N + rm[:, None] * N + rn[None, :]
        tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a = a.contiguous()
        b = b.contiguous()
        batch, m, k = a.shape
        n = b.shape[2]
        c = torch.empty((batch, m, n), dtype=a.dtype, device=a.device)
        if batch > 0 and m > 0 and n > 0:
            sms = torch.cuda.get_device_properties(a.device).multi_processor_count if a.is_cuda else 2
            n_tiles = batch * triton.cdiv(m, BLOCK_M) * triton.cdiv(n, BLOCK_N)
            n_programs = min(n_tiles, sms * PROGRAMS_PER_SM)
            _bmm_persistent[(n_programs,)](a, b, c, batch, m, n, k, n_programs, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                           BLOCK_K=BLOCK_K, PRECISION="ieee" if a.dtype == torch.float32 else "tf32",
                                           num_warps=NUM_WARPS)
        return c
