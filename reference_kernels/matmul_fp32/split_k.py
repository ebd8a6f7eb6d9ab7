"""
---
op: matmul_fp32
strategy: split-k-workspace-reduce
techniques: [split-k, tiling, two-kernel, deterministic, fp32-accumulate, tf32x3-dot, ieee-fp32-dot, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_M: {values: [16, 32, 64], default: 32}
  BLOCK_N: {values: [16, 32, 64, 128], default: 64}
  BLOCK_K: {values: [16, 32, 64], default: 32}
  SPLIT_K: {values: [1, 2, 4, 8, 16], default: 4}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
  PRECISION: {values: ["tf32x3", "ieee"], default: "tf32x3"}
requires: []
sources:
  - https://github.com/NVIDIA/cutlass/blob/main/media/docs/cpp/efficient_gemm.md
---
When m and n are small and k is long (skinny decode GEMMs, 256x256x16384) the output has too few
tiles to occupy every SM. Split-K also cuts the k range into SPLIT_K slices: the grid is
tiles x SPLIT_K, each program accumulates its slice's partial tile in fp32 and writes it to a
[SPLIT_K, m, n] workspace, and a second kernel sums the slices in a fixed order and writes c. The
fixed-order reduce keeps the result deterministic (atomics into c would save the workspace and the
second launch, but fp32 atomics land in a run-dependent order). The workspace costs
SPLIT_K x m x n x 4 bytes of extra traffic, so split-K pays only when k is much larger than m and n.
Each slice's dot runs at PRECISION: "tf32x3" (default) uses the tensor cores through three TF32
products of split operands and stays within a few fp32 ulps per product; "ieee" is the exact FMA
path, kept in the space and used for non-fp32 inputs and on ROCm (its Triton lacks tf32x3).
Measured by the harness on one H200 (2026-12-04, events timing): the fastest of the seven kernels at
long-k-256x256x16384, square-2048, square-4096 and tall-8192x1024x1024, yet behind torch.compile at
each: 78.8 us against 58.2 (0.74x), 436 against 347 (0.80x), 3220 against 2689 (0.83x) and 473
against 351 (0.74x) (docs/results/h200-2026-12-04-suites/kernel-patterns.json). It has not been
profiled with Nsight Compute at any of these shapes yet.
"""

import torch
import triton
import triton.language as tl

BLOCK_M = 32
BLOCK_N = 64
BLOCK_K = 32
SPLIT_K = 4
NUM_WARPS = 4
PRECISION = 'tf32x3'


@triton.jit
def _matmul_split_k(a_ptr, b_ptr, ws_ptr, M, N, K, k_per_split, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, PRECISION: tl.constexpr):
    pid = tl.program_id(0)
    split = tl.program_id(1)
    tiles_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // tiles_n
    pid_n = pid % tiles_n
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    k_start = split * k_per_split
    k_end = tl.minimum(k_start + k_per_split, K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(k_start, k_end, BLOCK_K):
        ks = k0 + rk
        kmask = ks < k_end
        a = tl.load(a_ptr + rm[:, None].to(tl.int64) * K + ks[None, :],
                    mask=(rm[:, None] < M) & kmask[None, :], other=0.0)
        b = tl.load(b_ptr + ks[:, None].to(tl.int64) * N + rn[None, :],
                    mask=kmask[:, None] & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    ws = ws_ptr + split.to(tl.int64) * M * N + rm[:, None].to(tl.int64) * N + rn[None, :]
    tl.store(ws, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _reduce_splits(ws_ptr, c_ptr, MN, SPLIT_K: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < MN
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in range(SPLIT_K):
        acc += tl.load(ws_ptr + s * MN + offs, mask=mask, other=0.0)
    tl.store(c_ptr + offs, acc.to(c_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a = a.contiguous()
        b = b.contiguous()
        m, k = a.shape
        n = b.shape[1]
        c = torch.empty((m, n), dtype=a.dtype, device=a.device)
        if m > 0 and n > 0:
            k_per_split = triton.cdiv(triton.cdiv(k, SPLIT_K), BLOCK_K) * BLOCK_K
            ws = torch.empty((SPLIT_K, m, n), dtype=torch.float32, device=a.device)
            grid = (triton.cdiv(m, BLOCK_M) * triton.cdiv(n, BLOCK_N), SPLIT_K)
            precision = PRECISION if a.dtype == torch.float32 and not torch.version.hip else "ieee"
            _matmul_split_k[grid](a, b, ws, m, n, k, k_per_split, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                  BLOCK_K=BLOCK_K, PRECISION=precision, num_warps=NUM_WARPS)
            _reduce_splits[(triton.cdiv(m * n, 1024),)](ws, c, m * n, SPLIT_K=SPLIT_K, BLOCK=1024, num_warps=4)
        return c
