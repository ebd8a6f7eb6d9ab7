"""
---
op: fp8_block_scaled_gemm
strategy: split-k-by-scale-groups-two-kernel-reduce
techniques: [split-k, fp8-tensor-cores, block-scaling, fp32-promotion, deterministic-reduction, masked-tail]
dsl: triton
vendors: [nvidia]
archs: [sm89, sm90]
params:
  BLOCK_M: {values: [16, 32, 64], default: 16}
  BLOCK_N: {values: [32, 64, 128], default: 64}
  BLOCK_K: {values: [32, 64, 128], default: 128}
  SPLIT_K: {values: [1, 2, 4, 8, 16], default: 8}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
  NUM_STAGES: {values: [2, 3, 4, 5], default: 4}
requires: []
sources:
  - https://arxiv.org/abs/2412.19437 (DeepSeek-V3: 1x128 activation and 128x128 weight scaling)
  - https://github.com/vllm-project/vllm/blob/main/vllm/model_executor/layers/quantization/utils/fp8_utils.py (w8a8_block_fp8_matmul)
---
For decode-sized m (1-128 tokens) an output-tiled grid has only n / BLOCK_N programs, too few to
stream the weight at full bandwidth. This kernel also splits K: the 128-wide scale groups are dealt
out in contiguous runs to SPLIT_K programs per output tile, each of which runs the fp8 tensor-core
K loop with per-group fp32 promotion (rows times activation scales, columns times weight-block
scales) over its run and stores an fp32 partial tile (zeros for a split with no groups left). A
second kernel sums the SPLIT_K partials in a fixed order and casts to the output dtype, so the
result is deterministic (no atomics). The workspace costs SPLIT_K x m x n fp32 writes and reads,
negligible next to the n x k weight bytes when m is small; for prefill use the plain tiled kernel.
"""

import torch
import triton
import triton.language as tl

BLOCK_M = 16
BLOCK_N = 64
BLOCK_K = 128
SPLIT_K = 8
NUM_WARPS = 4
NUM_STAGES = 4


@triton.jit
def _fp8_block_gemm_split(a_ptr, as_ptr, b_ptr, bs_ptr, ws_ptr, M, N, K, n_kg, groups_per_split,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                          GROUP: tl.constexpr):
    pid_n = tl.program_id(0)
    pid_m = tl.program_id(1)
    split = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    mmask = rm < M
    nmask = rn < N
    k_start = split * groups_per_split * GROUP
    k_end = tl.minimum(K, k_start + groups_per_split * GROUP)
    a_tile = a_ptr + rm[:, None].to(tl.int64) * K + k_start + rk[None, :]
    b_tile = b_ptr + rn[None, :].to(tl.int64) * K + k_start + rk[:, None]
    as_row = as_ptr + rm.to(tl.int64) * n_kg
    bs_col = bs_ptr + (rn // GROUP).to(tl.int64) * n_kg
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(k_start, k_end, BLOCK_K):
        kmask = k0 + rk < k_end
        a = tl.load(a_tile, mask=mmask[:, None] & kmask[None, :], other=0).to(tl.float8e4nv, bitcast=True)
        b = tl.load(b_tile, mask=kmask[:, None] & nmask[None, :], other=0).to(tl.float8e4nv, bitcast=True)
        part = tl.dot(a, b, out_dtype=tl.float32)
        kg = k0 // GROUP
        sa = tl.load(as_row + kg, mask=mmask, other=0.0)
        sb = tl.load(bs_col + kg, mask=nmask, other=0.0)
        acc += part * sa[:, None] * sb[None, :]
        a_tile += BLOCK_K
        b_tile += BLOCK_K
    ws = ws_ptr + (split * M + rm[:, None]).to(tl.int64) * N + rn[None, :]
    tl.store(ws, acc, mask=mmask[:, None] & nmask[None, :])


@triton.jit
def _sum_splits(ws_ptr, c_ptr, MN, n_splits, BLOCK: tl.constexpr):
    idx = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = idx < MN
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in range(0, n_splits):
        acc += tl.load(ws_ptr + s * MN + idx, mask=m, other=0.0)
    tl.store(c_ptr + idx, acc.to(c_ptr.dtype.element_ty), mask=m)


class ModelNew(torch.nn.Module):
    def forward(self, a_fp8: torch.Tensor, a_scale: torch.Tensor, b_fp8: torch.Tensor,
                b_scale: torch.Tensor, out_dtype: torch.dtype) -> torch.Tensor:
        m, k = a_fp8.shape
        n = b_fp8.shape[0]
        a = a_fp8.contiguous()
        b = b_fp8.contiguous()
        sa = a_scale.contiguous()
        sb = b_scale.contiguous()
        c = torch.empty((m, n), dtype=out_dtype, device=a.device)
        if m > 0 and n > 0:
            n_kg = sa.shape[1]
            splits = max(1, min(SPLIT_K, n_kg))
            groups_per_split = triton.cdiv(n_kg, splits)
            ws = torch.empty((splits, m, n), dtype=torch.float32, device=a.device)
            grid = (triton.cdiv(n, BLOCK_N), triton.cdiv(m, BLOCK_M), splits)
            _fp8_block_gemm_split[grid](a, sa, b, sb, ws, m, n, k, n_kg, groups_per_split,
                                        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP=128,
                                        num_warps=NUM_WARPS, num_stages=NUM_STAGES)
            _sum_splits[(triton.cdiv(m * n, 1024),)](ws, c, m * n, splits, BLOCK=1024, num_warps=4)
        return c
