"""
---
op: matmul_int8_weight
strategy: grouped-tiles-epilogue-scale
techniques: [tiling, grouped-tile-order, weight-only-quantization, in-register-dequant, epilogue-scale, tf32x3-dot, ieee-fp32-dot, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_M: {values: [16, 32, 64, 128], default: 64}
  BLOCK_N: {values: [16, 32, 64, 128], default: 64}
  BLOCK_K: {values: [16, 32, 64], default: 32}
  GROUP_M: {values: [1, 4, 8], default: 8}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
  PRECISION: {values: ["tf32x3", "ieee"], default: "tf32x3"}
requires: []
sources:
  - https://arxiv.org/abs/2208.07339
  - https://github.com/pytorch-labs/gpt-fast
---
A tiled GEMM whose b operand arrives as int8: each k step loads a [BLOCK_K, BLOCK_N] tile of wq
(read transposed from the [n, k] layout, so n-adjacent elements are k apart and the k axis is the
contiguous one), converts it to fp32 in registers and feeds tl.dot. Because the scale belongs to
the output channel and not to k, the dot accumulates raw integer weights and the [BLOCK_N] scale
vector multiplies the finished tile once in the epilogue: one multiply per output element instead
of one per weight element. Tiles are visited in GROUP_M-row groups so a group's wq tiles stay in L2.
Weight bytes drop 4x against fp32, which is the whole gain at decode sizes; at prefill sizes the
kernel is compute-bound and the conversion is free. Larger per-group scales (along k) would have
to be applied inside the k loop instead.
The dot runs at PRECISION: "tf32x3" (default) moves it onto tensor cores as three TF32 products of
split operands; the int8 weights fit TF32 exactly, so their remainder is zero and only a's split
rounds, close to fp32. "ieee" is kept as the exact CUDA-core path and is the one ROCm (without
tf32x3 in Triton) always gets.
"""

import torch
import triton
import triton.language as tl

BLOCK_M = 64
BLOCK_N = 64
BLOCK_K = 32
GROUP_M = 8
NUM_WARPS = 4
PRECISION = 'tf32x3'


@triton.jit
def _w8_matmul(a_ptr, q_ptr, s_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, PRECISION: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_rows
    pid_n = (pid % per_group) // group_rows
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + rk
        a = tl.load(a_ptr + rm[:, None].to(tl.int64) * K + ks[None, :], mask=(rm[:, None] < M) & (ks[None, :] < K),
                    other=0.0).to(tl.float32)
        q = tl.load(q_ptr + rn[None, :].to(tl.int64) * K + ks[:, None], mask=(ks[:, None] < K) & (rn[None, :] < N),
                    other=0)
        acc = tl.dot(a, q.to(tl.float32), acc, input_precision=PRECISION)
    scale = tl.load(s_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
    c = acc * scale[None, :]
    tl.store(c_ptr + rm[:, None].to(tl.int64) * N + rn[None, :], c.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(torch.nn.Module):
    def forward(self, a: torch.Tensor, wq: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        a = a.contiguous()
        wq = wq.contiguous()
        m, k = a.shape
        n = wq.shape[0]
        c = torch.empty((m, n), dtype=a.dtype, device=a.device)
        if m > 0 and n > 0:
            grid = (triton.cdiv(m, BLOCK_M) * triton.cdiv(n, BLOCK_N),)
            precision = "ieee" if torch.version.hip else PRECISION
            _w8_matmul[grid](a, wq, scale, c, m, n, k, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                             GROUP_M=GROUP_M, PRECISION=precision, num_warps=NUM_WARPS)
        return c
