"""
---
op: matmul_int4_grouped
strategy: split-k-over-groups-decode
techniques: [split-k, occupancy-sized-grid, two-kernel, deterministic, weight-only-quantization, int4-unpack, nibble-shift-mask, magic-number-dequant, group-scales, per-group-accumulator-scaling, fma-gemv, tiling, swapped-operands-dot, tf32x3-dot, ieee-fp32-dot, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  PROGRAMS_PER_SM: {values: [1, 2, 4, 8], default: 4}
  BLOCK_N: {values: [32, 64, 128, 256], default: 128}
  BLOCK_K: {values: [32, 64, 128], default: 128}
  BLOCK_M: {values: [16, 32, 64, 128], default: 64}
  FMA_MAX_M: {values: [1, 2, 4, 8, 16], default: 8}
  NUM_WARPS: {values: [4, 8], default: 8}
  PRECISION: {values: ["tf32x3", "ieee"], default: "tf32x3"}
requires: []
sources:
  - https://arxiv.org/abs/2306.00978
  - https://arxiv.org/abs/2402.00025
---
Split-K for decode. On an H200 the per-group-partials kernel (scale_group_partials, 64 x 64 output
tiles, every program walking all of k) took 521 us at m = 1, n = 4096, k = 14336, group 128,
against torch.compile's 253 us, although the ~29 MB of int4 codes stream in about 6 us: one row of
a gives only 64 tiles for 132 SMs, each walking 14336 columns, so the GPU is idle and the time is
latency. (m = 16, n = 14336, k = 4096: 200 vs 233 us.) Here the groups along k are split across
programs as well: the host reads the SM count once (cached per device; a fixed 132 off CUDA) and
gives each program ceil(n_groups / splits) whole groups, with splits chosen so that splits x
output tiles reaches PROGRAMS_PER_SM programs per SM (m = 1 above: 16 splits of 7 groups x 32
column blocks of 128). A program loads its codes as a [BLOCK_N, BLOCK_K / 2] byte tile (contiguous
along k, vector loads) and dequantizes both nibbles in registers without an int-to-float convert:
the nibble is OR-ed into the mantissa of the float 2^23 and 2^23 + 8 is subtracted, giving
code - 8 exactly; the even and odd codes meet a's even and odd columns. Products over one group are
summed unscaled and multiplied by the group's scale vector once per group. For m <= FMA_MAX_M
the products are plain fp32 FMAs on a [m, BLOCK_N, BLOCK_K / 2] broadcast (no tensor cores; the
host shrinks BLOCK_K, then BLOCK_N, to keep that tile at 16384 products). For larger m, prefill
included, the same split kernel runs the group's two half-k products as tl.dot with operands
swapped (codes [BLOCK_N, k] x a^T [k, BLOCK_M], BLOCK_M cut to the next power of two of m, at least
16), the integer codes being exact in TF32; at prefill sizes the output tiles alone fill the GPU,
so there is one split and no workspace. It is a plain tiled GEMM there, not tuned for prefill.
With several splits the fp32 partials go to a torch.empty [splits, m, n] workspace and a second
kernel sums each output's partials in one fixed order and writes c in its dtype, so results are
deterministic. A group_size that does not divide BLOCK_K stays correct: a's columns outside the
group are masked to zero. PRECISION is the tl.dot input precision as in the other kernels here:
"tf32x3" (default) on tensor cores, "ieee" the exact path, used for non-fp32 inputs and on ROCm.
Measured on the H200 (2026-12-04, tools/suite_bench.py, CUDA events, default parameters):
llama3-8b-down-decode-1x4096x14336 55.4 µs against torch.compile's 252.9 (4.56x; scale_group_partials
514.9), llama3-8b-up-decode-16x14336x4096 174.0 against 228.1 (1.31x; scale_group_partials 198.7).
At the prefill shapes the single-split tiled path is 0.25x (1507 and 15818 µs): a dispatcher keeps
scale_group_partials there. Which path is faster at m = 16 (FMA_MAX_M 8 sends it to tl.dot) is for
the tuner to find.
"""

import torch
import triton
import triton.language as tl

PROGRAMS_PER_SM = 4
BLOCK_N = 128
BLOCK_K = 128
BLOCK_M = 64
FMA_MAX_M = 8
NUM_WARPS = 8
PRECISION = 'tf32x3'
CPU_SMS = 132  # off CUDA (the interpreter) the split is sized as for an H100/H200
FMA_PRODUCTS = 16384  # cap on block_m x block_n x step products per FMA step (64 per thread at 8 warps)
REDUCE_ROWS = 32  # partials per output summed per step of the second kernel
REDUCE_TILE = 4096  # elements in the second kernel's [splits, outputs] tile

_SM_COUNTS: dict = {}


def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return CPU_SMS
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _SM_COUNTS:
        _SM_COUNTS[index] = torch.cuda.get_device_properties(index).multi_processor_count
    return _SM_COUNTS[index]


@triton.jit
def _codes_minus_8(byte):
    # low nibble = even column, high nibble = odd column; (2^23 | c) as a float is 2^23 + c exactly
    b = byte.to(tl.int32)
    lo = ((b & 0xF) | 0x4B000000).to(tl.float32, bitcast=True) - 8388616.0
    hi = ((b >> 4) | 0x4B000000).to(tl.float32, bitcast=True) - 8388616.0
    return lo, hi


@triton.jit
def _w4_split_fma(a_ptr, q_ptr, s_ptr, out_ptr, M, N, K, group_size, groups_per_split, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, BLOCK_KH: tl.constexpr):
    split = tl.program_id(0)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rm = tl.arange(0, BLOCK_M)
    rb = tl.arange(0, BLOCK_KH)
    n_mask = rn < N
    m_mask = rm < M
    half_k = K // 2
    n_groups = K // group_size
    q_rows = q_ptr + rn[:, None].to(tl.int64) * half_k
    a_rows = a_ptr + rm[:, None].to(tl.int64) * K
    g_first = split * groups_per_split
    g_last = tl.minimum(g_first + groups_per_split, n_groups)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for g in range(g_first, g_last):
        k_lo = g * group_size
        k_hi = k_lo + group_size
        part = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for b0 in range(k_lo // 2, (k_hi + 1) // 2, BLOCK_KH):
            kb = b0 + rb
            byte = tl.load(q_rows + kb[None, :], mask=n_mask[:, None] & (kb < half_k)[None, :], other=0)
            lo, hi = _codes_minus_8(byte)
            ke = 2 * kb
            ko = ke + 1
            ae = tl.load(a_rows + ke[None, :], mask=m_mask[:, None] & ((ke >= k_lo) & (ke < k_hi))[None, :],
                         other=0.0).to(tl.float32)
            ao = tl.load(a_rows + ko[None, :], mask=m_mask[:, None] & ((ko >= k_lo) & (ko < k_hi))[None, :],
                         other=0.0).to(tl.float32)
            part += tl.sum(lo[None, :, :] * ae[:, None, :] + hi[None, :, :] * ao[:, None, :], axis=2)
        sc = tl.load(s_ptr + rn.to(tl.int64) * n_groups + g, mask=n_mask, other=0.0).to(tl.float32)
        acc += part * sc[None, :]
    out = out_ptr + split.to(tl.int64) * M * N + rm[:, None].to(tl.int64) * N + rn[None, :]
    tl.store(out, acc.to(out_ptr.dtype.element_ty), mask=m_mask[:, None] & n_mask[None, :])


@triton.jit
def _w4_split_dot(a_ptr, q_ptr, s_ptr, out_ptr, M, N, K, group_size, groups_per_split, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, BLOCK_KH: tl.constexpr, PRECISION: tl.constexpr):
    split = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tile = tl.program_id(1)  # consecutive programs share a block of weight rows
    rn = (tile // tiles_m) * BLOCK_N + tl.arange(0, BLOCK_N)
    rm = (tile % tiles_m) * BLOCK_M + tl.arange(0, BLOCK_M)
    rb = tl.arange(0, BLOCK_KH)
    n_mask = rn < N
    m_mask = rm < M
    half_k = K // 2
    n_groups = K // group_size
    q_rows = q_ptr + rn[:, None].to(tl.int64) * half_k
    a_cols = a_ptr + rm[None, :].to(tl.int64) * K
    g_first = split * groups_per_split
    g_last = tl.minimum(g_first + groups_per_split, n_groups)
    acc = tl.zeros([BLOCK_N, BLOCK_M], dtype=tl.float32)  # c transposed: the codes are the dot's row operand
    for g in range(g_first, g_last):
        k_lo = g * group_size
        k_hi = k_lo + group_size
        part = tl.zeros([BLOCK_N, BLOCK_M], dtype=tl.float32)
        for b0 in range(k_lo // 2, (k_hi + 1) // 2, BLOCK_KH):
            kb = b0 + rb
            byte = tl.load(q_rows + kb[None, :], mask=n_mask[:, None] & (kb < half_k)[None, :], other=0)
            lo, hi = _codes_minus_8(byte)
            ke = 2 * kb
            ko = ke + 1
            ae = tl.load(a_cols + ke[:, None], mask=((ke >= k_lo) & (ke < k_hi))[:, None] & m_mask[None, :],
                         other=0.0).to(tl.float32)
            ao = tl.load(a_cols + ko[:, None], mask=((ko >= k_lo) & (ko < k_hi))[:, None] & m_mask[None, :],
                         other=0.0).to(tl.float32)
            part = tl.dot(lo, ae, part, input_precision=PRECISION)
            part = tl.dot(hi, ao, part, input_precision=PRECISION)
        sc = tl.load(s_ptr + rn.to(tl.int64) * n_groups + g, mask=n_mask, other=0.0).to(tl.float32)
        acc += part * sc[:, None]
    out = out_ptr + split.to(tl.int64) * M * N + rm[None, :].to(tl.int64) * N + rn[:, None]
    tl.store(out, acc.to(out_ptr.dtype.element_ty), mask=n_mask[:, None] & m_mask[None, :])


@triton.jit
def _sum_splits(ws_ptr, c_ptr, total, splits, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    live = offs < total
    rr = tl.arange(0, BLOCK_R)
    acc = tl.zeros([BLOCK_R, BLOCK_C], dtype=tl.float32)
    for s0 in range(0, splits, BLOCK_R):
        rows = s0 + rr
        acc += tl.load(ws_ptr + rows[:, None].to(tl.int64) * total + offs[None, :],
                       mask=(rows < splits)[:, None] & live[None, :], other=0.0)
    tl.store(c_ptr + offs, tl.sum(acc, axis=0).to(c_ptr.dtype.element_ty), mask=live)


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
        if m == 0 or n == 0:
            return c
        n_groups = k // self.group_size
        step = max(2, min(BLOCK_K, triton.next_power_of_2(self.group_size)))  # k columns per inner step
        block_n = BLOCK_N
        fma = m <= FMA_MAX_M
        if fma:  # one m tile of next_pow2(m) rows; keep the broadcast product tile within FMA_PRODUCTS
            block_m = triton.next_power_of_2(m)
            while block_m * block_n * step > FMA_PRODUCTS and step > 16:
                step //= 2
            while block_m * block_n * step > FMA_PRODUCTS and block_n > 16:
                block_n //= 2
            tiles = triton.cdiv(n, block_n)
        else:  # tl.dot needs every dimension >= 16: two half-k dots of step / 2 >= 16
            block_m = max(16, min(BLOCK_M, triton.next_power_of_2(m)))
            step = max(32, step)
            tiles = triton.cdiv(m, block_m) * triton.cdiv(n, block_n)
        wanted = triton.cdiv(_sm_count(a.device) * PROGRAMS_PER_SM, tiles)  # splits to reach the target
        per_split = max(1, triton.cdiv(n_groups, wanted))
        splits = max(1, triton.cdiv(n_groups, per_split))
        out = c if splits == 1 else torch.empty((splits, m, n), dtype=torch.float32, device=a.device)
        if fma:
            _w4_split_fma[(splits, tiles)](a, wq, scale, out, m, n, k, self.group_size, per_split, BLOCK_M=block_m,
                                           BLOCK_N=block_n, BLOCK_KH=step // 2, num_warps=NUM_WARPS)
        else:
            precision = PRECISION if a.dtype == torch.float32 and not torch.version.hip else "ieee"
            _w4_split_dot[(splits, tiles)](a, wq, scale, out, m, n, k, self.group_size, per_split, BLOCK_M=block_m,
                                           BLOCK_N=block_n, BLOCK_KH=step // 2, PRECISION=precision,
                                           num_warps=NUM_WARPS)
        if splits > 1:
            block_r = min(triton.next_power_of_2(splits), REDUCE_ROWS)
            block_c = REDUCE_TILE // block_r
            _sum_splits[(triton.cdiv(m * n, block_c),)](out, c, m * n, splits, BLOCK_R=block_r, BLOCK_C=block_c,
                                                         num_warps=4)
        return c
