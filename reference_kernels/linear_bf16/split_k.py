"""
---
op: linear_bf16
strategy: split-k-with-reduction-kernel
techniques: [split-k, tiling, tensor-cores, fp32-accumulate, partial-results-workspace, software-pipelining, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [sm80, sm90, gfx942]
params:
  BLOCK_M: {values: [16, 32, 64], default: 16}
  BLOCK_N: {values: [32, 64, 128, 256], default: 64}
  BLOCK_K: {values: [16, 32, 64, 128, 256], default: 128}
  SPLIT_K: {values: [1, 2, 4, 8, 16], default: 4}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
  NUM_STAGES: {values: [2, 3, 4, 5, 6], default: 4}
requires: []
sources:
  - https://github.com/NVIDIA/cutlass/blob/main/media/docs/efficient_gemm.md (parallelized reductions / split-K)
---
For decode GEMMs (m = 1-256) an output-tiled grid has only n / BLOCK_N programs, too few to keep 132
SMs streaming the weight, which is the whole cost. Split-K adds a third grid axis: each of SPLIT_K
programs per output tile multiplies one slice of K and writes an fp32 partial tile to a workspace;
a small second kernel sums the SPLIT_K partials and casts to the output dtype (no atomics, so no
zero-initialised buffer and a deterministic sum). Small BLOCK_M wastes little MMA work on padding
rows. The workspace traffic (SPLIT_K * m * n fp32) is negligible while m is small and grows with it.
Nsight Compute on the H200 (2026-12-04, docs/results/h200-2026-12-04-losers): at llama3-8b-qkv-
decode-32 it ran a (2, 96, 4) grid plus the reduce kernel, 23.6 us at 55 % of DRAM bandwidth,
against one cuBLAS launch of 64x32 tiles, 17.0 us at 65 %: the second launch and the partials' round
trip are the difference.
"""

import torch
import triton
import triton.language as tl

BLOCK_M = 16
BLOCK_N = 64
BLOCK_K = 128
SPLIT_K = 4
NUM_WARPS = 4
NUM_STAGES = 4


@triton.jit
def _linear_split_k(x_ptr, w_ptr, part_ptr, M, N, K, k_per_split, BLOCK_M: tl.constexpr,
                    BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, PRECISION: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    split = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    k_start = split * k_per_split
    k_end = tl.minimum(k_start + k_per_split, K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(k_start, k_end, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        kmask = rk < k_end
        a = tl.load(x_ptr + rm[:, None].to(tl.int64) * K + rk[None, :],
                    mask=(rm[:, None] < M) & kmask[None, :], other=0.0)
        b = tl.load(w_ptr + rn[None, :].to(tl.int64) * K + rk[:, None],
                    mask=kmask[:, None] & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    out = part_ptr + (split * M + rm[:, None]).to(tl.int64) * N + rn[None, :]
    tl.store(out, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _sum_splits(part_ptr, y_ptr, numel, splits, BLOCK: tl.constexpr):
    idx = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = idx < numel
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in range(0, splits):
        acc += tl.load(part_ptr + s * numel + idx, mask=mask, other=0.0)
    tl.store(y_ptr + idx, acc.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.empty(out_features, in_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        k = x.shape[-1]
        x2 = x.reshape(-1, k).contiguous()
        w = self.weight.contiguous()
        m, n = x2.shape[0], w.shape[0]
        y = torch.empty((m, n), dtype=x.dtype, device=x.device)
        if m == 0 or n == 0:
            return y.view(*x.shape[:-1], n)
        k_per_split = triton.cdiv(triton.cdiv(k, SPLIT_K), BLOCK_K) * BLOCK_K
        splits = triton.cdiv(k, k_per_split)
        part = torch.empty((splits, m, n), dtype=torch.float32, device=x.device)
        grid = (triton.cdiv(m, BLOCK_M), triton.cdiv(n, BLOCK_N), splits)
        _linear_split_k[grid](
            x2, w, part, m, n, k, k_per_split, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
            PRECISION="ieee" if x.dtype == torch.float32 else "tf32",
            num_warps=NUM_WARPS, num_stages=NUM_STAGES,
        )
        _sum_splits[(triton.cdiv(m * n, 1024),)](part, y, m * n, splits, BLOCK=1024, num_warps=4)
        return y.view(*x.shape[:-1], n)
