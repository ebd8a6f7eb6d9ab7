"""
---
op: matmul_int8_weight
strategy: split-k-decode-scale-in-reduce
techniques: [split-k, weight-only-quantization, in-register-dequant, epilogue-scale, two-kernel, deterministic, tf32x3-dot, ieee-fp32-dot, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_M: {values: [16, 32], default: 16}
  BLOCK_N: {values: [16, 32, 64, 128], default: 64}
  BLOCK_K: {values: [16, 32, 64, 128], default: 64}
  SPLIT_K: {values: [1, 2, 4, 8, 16], default: 4}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
  PRECISION: {values: ["tf32x3", "ieee"], default: "tf32x3"}
requires: []
sources:
  - https://github.com/NVIDIA/cutlass/blob/main/media/docs/cpp/efficient_gemm.md
  - https://arxiv.org/abs/2208.07339
---
For decode (m of 1 to 16) the output has only n / BLOCK_N tiles, too few to stream the int8 weights
at full bandwidth, so the k range is also split over SPLIT_K programs. Each program dots its
[BLOCK_M, k slice] of a against the matching int8 wq slice (converted to fp32 in registers) and
writes the unscaled partial tile to a [SPLIT_K, m, n] fp32 workspace. The second kernel sums the
slices in a fixed order (deterministic) and applies the per-channel scale there, once per output,
fused into the reduction that has to run anyway. BLOCK_M stays small since m is small; the
workspace is SPLIT_K x m x n floats, negligible next to n x k weight bytes at decode sizes but not
at prefill sizes, where the grouped tiled kernel is the right one.
The partial dots run at PRECISION: "tf32x3" (default) uses three TF32 tensor-core products of
split operands. Integer weights in -128..127 are exact in TF32 (their remainder is zero), so only
a is really split and the result is close to fp32; "ieee" remains the exact CUDA-core path, and
ROCm (no tf32x3 in its Triton) always gets it.
"""

import torch
import triton
import triton.language as tl

BLOCK_M = 16
BLOCK_N = 64
BLOCK_K = 64
SPLIT_K = 4
NUM_WARPS = 4
PRECISION = 'tf32x3'


@triton.jit
def _w8_split_k(a_ptr, q_ptr, ws_ptr, M, N, K, k_per_split, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                BLOCK_K: tl.constexpr, PRECISION: tl.constexpr):
    pid = tl.program_id(0)
    split = tl.program_id(1)
    tiles_n = tl.cdiv(N, BLOCK_N)
    rm = (pid // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = (pid % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    k_start = split * k_per_split
    k_end = tl.minimum(k_start + k_per_split, K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(k_start, k_end, BLOCK_K):
        ks = k0 + rk
        kmask = ks < k_end
        a = tl.load(a_ptr + rm[:, None].to(tl.int64) * K + ks[None, :], mask=(rm[:, None] < M) & kmask[None, :],
                    other=0.0).to(tl.float32)
        q = tl.load(q_ptr + rn[None, :].to(tl.int64) * K + ks[:, None], mask=kmask[:, None] & (rn[None, :] < N),
                    other=0)
        acc = tl.dot(a, q.to(tl.float32), acc, input_precision=PRECISION)
    ws = ws_ptr + split.to(tl.int64) * M * N + rm[:, None].to(tl.int64) * N + rn[None, :]
    tl.store(ws, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _reduce_scale(ws_ptr, s_ptr, c_ptr, M, N, SPLIT_K: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < M * N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in range(SPLIT_K):
        acc += tl.load(ws_ptr + s * M * N + offs, mask=mask, other=0.0)
    scale = tl.load(s_ptr + offs % N, mask=mask, other=0.0).to(tl.float32)
    tl.store(c_ptr + offs, (acc * scale).to(c_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, a: torch.Tensor, wq: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        a = a.contiguous()
        wq = wq.contiguous()
        m, k = a.shape
        n = wq.shape[0]
        c = torch.empty((m, n), dtype=a.dtype, device=a.device)
        if m > 0 and n > 0:
            k_per_split = triton.cdiv(triton.cdiv(k, SPLIT_K), BLOCK_K) * BLOCK_K
            ws = torch.empty((SPLIT_K, m, n), dtype=torch.float32, device=a.device)
            grid = (triton.cdiv(m, BLOCK_M) * triton.cdiv(n, BLOCK_N), SPLIT_K)
            precision = "ieee" if torch.version.hip else PRECISION
            _w8_split_k[grid](a, wq, ws, m, n, k, k_per_split, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                              PRECISION=precision, num_warps=NUM_WARPS)
            _reduce_scale[(triton.cdiv(m * n, 1024),)](ws, scale, c, m, n, SPLIT_K=SPLIT_K, BLOCK=1024, num_warps=4)
        return c
