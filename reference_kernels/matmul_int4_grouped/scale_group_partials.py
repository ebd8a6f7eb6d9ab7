"""
---
op: matmul_int4_grouped
strategy: integer-codes-dot-scale-per-group
techniques: [tiling, weight-only-quantization, int4-unpack, nibble-shift-mask, group-scales, per-group-accumulator-scaling, tf32x3-dot, ieee-fp32-dot, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_M: {values: [16, 32, 64, 128], default: 64}
  BLOCK_N: {values: [16, 32, 64, 128], default: 64}
  BLOCK_K: {values: [16, 32, 64], default: 32}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
  PRECISION: {values: ["tf32x2", "tf32x3", "ieee"], default: "tf32x2"}
  PACKED_ROWS: {values: [0, 1], default: 1}
requires: []
sources:
  - https://arxiv.org/abs/2306.00978
  - https://github.com/mit-han-lab/llm-awq
---
Moves the scale out of the weights: the k loop runs group by group, and inside a group the
unpacked codes (minus 8, still integers, exact in fp32) go straight into tl.dot, accumulating a
[BLOCK_M, BLOCK_N] partial for that group; the partial is then multiplied by the group's
[BLOCK_N] scale vector (one load per group) and added to the running result. That is one
multiply per output per group instead of one per weight per m tile, and the dot operand needs no
floating-point work besides the int-to-float convert, which is what makes integer tensor-core
paths (int8 x int8 with per-group rescale) possible. BLOCK_K must divide the group size (both
are powers of two here; the host clamps BLOCK_K to the group); the extra accumulator costs
registers, so BLOCK_M x BLOCK_N tiles are a little smaller than in the plain kernel.
The dot runs at PRECISION: "tf32x3" puts it on tensor cores as three TF32 products of
split operands. The codes -8..7 are exact in TF32, so their remainder is zero and the only extra
error is the rounding of a's remainder, about 2^-22 of each product; "ieee" stays as the exact
CUDA-core path, and ROCm (no tf32x3 in its Triton) always uses it.
Measured by the harness on one H200 (2026-12-04, events timing): at
llama3-8b-qproj-prefill-512x4096x4096-g128 the fastest of the three kernels, 383 us, but 0.98x
torch.compile's 374 us (docs/results/h200-2026-12-04-suites/kernel-patterns.json). It has not been
profiled with Nsight Compute at that shape yet.

"tf32x2" (session 40, the default; from the offline sm_90 build, Triton 3.7.1; not yet measured on
a GPU): "tf32x3" splits both operands, but the codes have no remainder, so a third of its tensor
work multiplies by zero. The build at qproj-prefill showed 12 wgmma m64n64k8 per 32-wide k step
(three products over four k8 slices), each group waited on before the next, and 32 tf32 roundings,
subtractions and NaN checks per thread per step for the two splits; 208 registers, two programs
(8 warps) per SM. H200, session 40: 383.02 us against torch.compile's 367.82 there (0.96x) and
1.08x at llama2-7b-mlp-prefill. "tf32x2" splits a alone, a = hi + lo with hi = a rounded to TF32
(bit arithmetic, round half away from zero, as cvt.rna) and lo the remainder, itself rounded to
TF32, and issues two TF32 products, hi x codes and lo x codes, whose operands are exact in TF32:
the terms tf32x3 keeps, so the same error (lo's rounding, about 2^-23 of each product), with 8
wgmma a step. Infinite or NaN a gets lo = 0 and hi = a, so either propagates as in the
reference. Built the same way: 8 wgmma and 2 waits a step, no cvt.rna, 24 st.shared against 40,
516 instructions in the k loop against 543, 196 registers (still two programs per SM), 24 KB of
shared memory against 32.
The same build showed the codes' load as the larger cost: the byte of each code was fetched on
its own (16 scalar 1-byte loads per thread per k step, each byte twice, once per nibble, across
64 weight rows), outside the cp.async pipeline that prefetches a, so every k step waited on it.
PACKED_ROWS (default on) loads each weight row's BLOCK_K / 2 bytes as one contiguous run and
unpacks both nibbles in registers (tl.interleave of the low and high halves, then transposed for
the dot): the codes now ride the cp.async pipeline with a, and the k loop is 304 instructions
against 516, at 168 registers, three programs (12 warps) per SM instead of two. Not yet measured
on a GPU.
Session 50 (H100 SXM, tools/harness_probe.py against torch.compile timed interleaved at
llama3-8b-qproj-prefill-512x4096x4096-g128, docs/results/2026-12-07-s50/s50a/probe/int4.txt): the
defaults 279.01 us (1.33x torch.compile's 370.45), BLOCK_K 64 254.09 (1.47x), BLOCK_M 128 on 8
warps 273.70 (1.36x), BLOCK_N 32 305.59 (1.23x). Session 49's offline sm_90 build had predicted the
wave balance of BLOCK_N 32 and BLOCK_M 128 to help; the deeper k step helped more. BLOCK_K stays 32:
the other shapes (llama2-7b-mlp-prefill, the two decode shapes) were not probed at 64, and the tuner
searches it per shape.
"""

import torch
import triton
import triton.language as tl

BLOCK_M = 64
BLOCK_N = 64
BLOCK_K = 32
NUM_WARPS = 4
PRECISION = 'tf32x2'
PACKED_ROWS = 1


@triton.jit
def _round_tf32(x):
    """x rounded to TF32 (10 mantissa bits), half away from zero like cvt.rna: exact on the tensor
    cores, whether they round or truncate their fp32 operands."""
    return ((x.to(tl.uint32, bitcast=True) + 0x1000) & 0xFFFFE000).to(tl.float32, bitcast=True)


@triton.jit
def _w4_group_partials(a_ptr, q_ptr, s_ptr, c_ptr, M, N, K, group_size, BLOCK_M: tl.constexpr,
                       BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, PRECISION: tl.constexpr,
                       PACKED_ROWS: tl.constexpr):
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    rm = (pid // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = (pid % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    m_mask = rm < M
    n_mask = rn < N
    n_groups = K // group_size
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for g in range(0, n_groups):
        part = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for k0 in range(g * group_size, (g + 1) * group_size, BLOCK_K):
            ks = k0 + rk
            a = tl.load(a_ptr + rm[:, None].to(tl.int64) * K + ks[None, :], mask=m_mask[:, None], other=0.0)
            if PACKED_ROWS:   # each weight row's BLOCK_K / 2 bytes as one contiguous run, unpacked in registers
                kb = k0 // 2 + tl.arange(0, BLOCK_K // 2)
                packed = tl.load(q_ptr + rn[:, None].to(tl.int64) * (K // 2) + kb[None, :], mask=n_mask[:, None],
                                 other=0).to(tl.int32)
                code = tl.trans(tl.interleave((packed & 0xF) - 8, (packed >> 4) - 8))   # [BLOCK_K, BLOCK_N]
            else:             # one byte per code (each byte read twice, once per nibble)
                byte = tl.load(q_ptr + rn[None, :].to(tl.int64) * (K // 2) + (ks // 2)[:, None], mask=n_mask[None, :],
                               other=0)
                code = ((byte.to(tl.int32) >> ((ks % 2) * 4)[:, None]) & 0xF) - 8
            if PRECISION == "tf32x2":    # codes are exact in TF32: split a alone, two products
                a32 = a.to(tl.float32)
                codef = code.to(tl.float32)
                hi = tl.where(a32 == a32, _round_tf32(a32), a32)     # a NaN stays NaN whatever its payload
                lo = _round_tf32(tl.where(tl.abs(a32) < float("inf"), a32 - hi, 0.0))
                part = tl.dot(hi, codef, part, input_precision="tf32")
                part = tl.dot(lo, codef, part, input_precision="tf32")
            else:
                part = tl.dot(a.to(tl.float32), code.to(tl.float32), part, input_precision=PRECISION)
        sc = tl.load(s_ptr + rn.to(tl.int64) * n_groups + g, mask=n_mask, other=0.0).to(tl.float32)
        acc += part * sc[None, :]
    tl.store(c_ptr + rm[:, None].to(tl.int64) * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=m_mask[:, None] & n_mask[None, :])


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
            _w4_group_partials[grid](a, wq, scale, c, m, n, k, self.group_size, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                     BLOCK_K=min(BLOCK_K, self.group_size), PRECISION=precision, PACKED_ROWS=PACKED_ROWS,
                                     num_warps=NUM_WARPS)
        return c
