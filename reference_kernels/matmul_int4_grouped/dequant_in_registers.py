"""
---
op: matmul_int4_grouped
strategy: tiles-dequant-weights-in-registers
techniques: [tiling, grouped-tile-order, weight-only-quantization, int4-unpack, nibble-shift-mask, group-scales, in-register-dequant, tf32x3-dot, ieee-fp32-dot, masked-tail]
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
  - https://arxiv.org/abs/2306.00978
  - https://arxiv.org/abs/2210.17323
---
A grouped-order tiled GEMM whose b operand is rebuilt in registers every k step: for column i the
kernel loads byte i // 2 of the packed row, shifts it right by 4 * (i % 2), masks 4 bits and
subtracts 8 (adjacent columns read the same byte, served by L1), multiplies by the scale of
(output channel, i // group_size), and feeds the fp32 [BLOCK_K, BLOCK_N] tile to tl.dot. Scaling
each weight before the dot works for any group size and any BLOCK_K, and keeps the inner loop a
plain GEMM; the cost is a multiply and a scale load per weight element per m tile, which is hidden
at decode sizes (memory-bound on a quarter of the int8 bytes) and visible at prefill sizes. The
per-group kernel moves that multiply to the accumulator.
The dot runs at PRECISION: "tf32x3" (default) uses three TF32 tensor-core products of split
operands, close to fp32 accuracy; both operands need the split here, since the scaled weights are
general fp32 values. "ieee" remains as the exact CUDA-core path, and ROCm (no tf32x3 in its
Triton) always uses it.
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
def _w4_matmul(a_ptr, q_ptr, s_ptr, c_ptr, M, N, K, group_size, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
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
    n_groups = K // group_size
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + rk
        kmask = ks < K
        a = tl.load(a_ptr + rm[:, None].to(tl.int64) * K + ks[None, :], mask=(rm[:, None] < M) & kmask[None, :],
                    other=0.0).to(tl.float32)
        bmask = kmask[:, None] & (rn[None, :] < N)
        byte = tl.load(q_ptr + rn[None, :].to(tl.int64) * (K // 2) + (ks // 2)[:, None], mask=bmask, other=0)
        code = (byte.to(tl.int32) >> ((ks % 2) * 4)[:, None]) & 0xF
        sc = tl.load(s_ptr + rn[None, :].to(tl.int64) * n_groups + (ks // group_size)[:, None], mask=bmask, other=0.0)
        w = (code - 8).to(tl.float32) * sc
        acc = tl.dot(a, w, acc, input_precision=PRECISION)
    tl.store(c_ptr + rm[:, None].to(tl.int64) * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(torch.nn.Module):
    def __init__(self, group_size: int):
        super().__init__()
        self.group_size = group_size

    def forward(self, a: torch.Tensor, wq: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        a = a.contiguous()
        wq = wq.contiguous()
        scale = scale.contiguous()
        m, k = a.shape
        n = wq.shape[0]
        c = torch.empty((m, n), dtype=a.dtype, device=a.device)
        if m > 0 and n > 0:
            grid = (triton.cdiv(m, BLOCK_M) * triton.cdiv(n, BLOCK_N),)
            precision = "ieee" if torch.version.hip else PRECISION
            _w4_matmul[grid](a, wq, scale, c, m, n, k, self.group_size, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                             BLOCK_K=BLOCK_K, GROUP_M=GROUP_M, PRECISION=precision, num_warps=NUM_WARPS)
        return c
