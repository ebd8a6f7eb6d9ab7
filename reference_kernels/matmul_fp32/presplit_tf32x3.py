"""
---
op: matmul_fp32
strategy: presplit-operands-tf32x3-tma-persistent
techniques: [operand-presplit, tf32x3-arithmetic, tf32-dot, tma, tensor-descriptors, persistent-kernel, grouped-program-order, l2-reuse, wgmma, software-pipelining, fp32-accumulate, split-k, deterministic, epilogue-subtiling, per-shape-tiles, transposed-operand, ieee-fp32-dot]
dsl: triton
vendors: [nvidia]
archs: [sm90]
params:
  GROUP_M: {values: [1, 4, 8, 16], default: 8}
  NUM_STAGES: {values: [2, 3, 4], default: 3}
  ACCUMULATORS: {values: [1, 2, 3], default: 3}
requires: []
sources:
  - https://arxiv.org/abs/2203.03341
  - https://triton-lang.org/main/getting-started/tutorials/09-persistent-matmul.html
  - https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#asynchronous-warpgroup-level-matrix-instructions
---
The fp32 GEMM as 3xTF32 with the operands split once, before the GEMM, instead of inside its k
loop. Motivation, measured on the H200 2026-12-04 by the harness: every matmul_fp32 kernel using
tl.dot(..., input_precision="tf32x3") reached only 0.67-0.83x of cuBLAS's exact fp32 SIMT sgemm
(torch.compile / eager); the best, split_k, took 3220 us against 2689 at square-4096, 436 against 347
at square-2048 and 473 against 351 at tall-8192x1024x1024. Offline compilation of those kernels
showed Triton's tf32x3 splitting each fp32 operand into TF32 hi and lo parts in registers inside
the k loop, writing b's hi and lo back to shared memory for wgmma, and waiting on each of the three
wgmma groups of a k step before issuing the next. Here an elementwise pass (_split_operand) writes
TF32-exact fp32 tensors: hi = x rounded to nearest even at 10 mantissa bits (integer arithmetic on
the bits, the low 13 bits cleared) and lo = the same rounding of x - hi, for a as [2, m, k_pad]
(hi, lo) and for b transposed, [2, n, k_pad], so that both wgmma operands are K-major; k is padded
with zeros to a multiple of BLOCK_K 32, so the GEMM has no k masking and every TMA row stride is a
multiple of 16 bytes. The GEMM (_gemm_presplit) loads the four [128, 32] tiles with TMA straight
into shared memory and runs three plain input_precision="tf32" dots per k step on them, a_hi*bt_lo
and a_lo*bt_hi first, then a_hi*bt_hi, accumulating in fp32: the 3xTF32 arithmetic with nothing
left to convert. The split pass moves 3 x 4 bytes per operand element (at square-4096 128 MB read,
256 MB written). ACCUMULATORS sets how the three dots accumulate: 1 chains them on one accumulator,
2 keeps the two small terms in a second one, 3 gives each its own (summed small terms first at the
tile's end); Triton waits for all wgmma groups in flight whenever a dot's result feeds another dot
of the same k step, so 1 waits twice per step, 2 once, and 3 only for the previous step's groups,
at the cost of registers. The rest follows tma_persistent_flat_tf32x3: a persistent grid (one
program per SM) walks GROUP_M-grouped work units in one flattened, software-pipelined loop; when
the output tiles do not fill the SMs the k range is cut into slices of at least 8 steps written to
a workspace and summed in a fixed order by _sum_splits (deterministic, no atomics); the epilogue
stores two [BLOCK_M, BLOCK_N/2] halves with TMA into c, or into the padded workspace when c's row
stride is not a multiple of 16 bytes (n % 4 != 0), _sum_splits then writing c with masked stores.
Per shape (forward's cost model: of 128x128 with 8 warps and 128x64 with 4, the fewest waves of
units times a unit's work over a guessed tile efficiency; 132 SMs; NUM_STAGES clipped to the 227 KB
of shared memory): square-4096 128x128, 3 stages, unsplit, 1024 tiles on 132 programs;
square-2048 128x128, 3 stages, unsplit, 256 tiles; tall-8192x1024x1024 128x128, 3 stages,
unsplit, 512 tiles; skinny-16x4096x4096 128x128 in 4 k slices of 32 steps (128 units);
long-k-256x256x16384 128x128 in 32 k slices of 16 steps (128 units); held out: 1000-cubed 128x128
in 2 slices, 77x3000x500 128x64 in 2 slices. At skinny and long-k the split pass's traffic (about
200 MB and 100 MB) is expected to make this kernel lose to split_k; it is kept correct there.
Compiled ahead of time for sm_90 with Triton 3.7.1 (no GPU; cuobjdump for registers): at the
square-4096 config (128x128x32, 8 warps, 3 stages, ACCUMULATORS 3) each k step is four TMA loads
and 12 wgmma.mma_async.m64n128k8.f32.tf32.tf32 whose A and B are both shared-memory descriptors
(SASS HGMMA.64x128x8.F32.TF32 on gdesc; bt's transpose is a shared-memory view, memdesc_trans), no
st.shared in the loop (the only shared stores are the epilogue staging), no cvt.rna.tf32, and one
wgmma.wait_group 3 per step; 232 registers, no spills, 229400 B of shared memory (3 x 64 KB of
stages, 32 KB store staging). ACCUMULATORS 1: 104 registers, two wait_group 0 per step; 2: 164
registers, one. 128x64 with 4 warps, 3 stages: 230 registers (ACCUMULATORS 3), no spills, 163864 B.
The split kernels: 90 and 96 registers, the transposing one 8 KB of shared memory. Interpreter
checks passed: the cpu_shapes and the held-out 7x29x77 against torch within 1e-4, split-K and the
odd-n workspace path forced (4 interpreter "SMs"), every ACCUMULATORS value, hi == RNE(x) with the
low 13 bits of hi and lo zero and hi + lo within 2^-23 relative of x. Non-fp32 inputs, ROCm and
CUDA devices other than sm_90/sm_100 take a masked pointer-load GEMM with exact fp32 ("ieee") dots.
Limitation: finite values within half a TF32 ulp of the fp32 maximum round to inf in hi, which
turns their products into inf or NaN. Measured by the harness on one H200 (2026-12-05, fp32, events timing, the covering-flush rule;
`bash tools/h200_suite_bench.sh --ops matmul_fp32,conv2d_3x3_nhwc suites/kernel-patterns` into a fresh folder, call 1 of docs/results/h200-2026-12-05/; the GPU correctness test passed at every shape): square-4096 1456 us against torch.compile's
2675 (1.84x), square-2048 205 against 345 (1.68x), tall-8192x1024x1024 213 against 348 (1.63x),
the fastest of the operator's eight kernels at all three; skinny-16x4096x4096 122 against 81 (0.66x)
and long-k-256x256x16384 78.6 against 57.9 (0.74x), where the split pass's traffic dominates as
expected and split_k stays the fastest (37.6 us, 2.16x; 77.4 us, 0.75x).
"""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

GROUP_M = 8
NUM_STAGES = 3
ACCUMULATORS = 3

BLOCK_K_GEMM = 32         # 32 fp32 = 128-byte rows: the widest TMA / wgmma swizzle; k is padded to it
SPLIT_ROWS = 64           # split pass tile: 64 rows (of a, or of b's transpose) x BLOCK_K_GEMM columns
MIN_K_STEPS = 8           # a k slice of split-K gets at least this many BLOCK_K steps
SMEM_BUDGET = 227 * 1024  # sm_90's opt-in shared memory per block: one program per SM
INTERPRETER_SMS = 4       # "SM count" off the GPU: small, so the cpu_shapes exercise split-K too


@triton.jit
def _round_tf32(x):
    # round-to-nearest-even to TF32 (sign, 8 exponent, 10 mantissa bits): add 0xFFF plus the lowest
    # kept bit, then clear the 13 dropped bits; the carry may ripple into the exponent, as it should
    bits = x.to(tl.uint32, bitcast=True)
    bits = (bits + (0xFFF + ((bits >> 13) & 1))) & 0xFFFFE000
    return bits.to(tl.float32, bitcast=True)


@triton.jit
def _split_operand(x_ptr, out_ptr, R, C, C_PAD, plane, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
                   TRANSPOSE: tl.constexpr):
    # out[0] = hi, out[1] = lo (plane elements apart), each [R, C_PAD] row-major, zero past column C;
    # source element (r, c) is x[r, c] of a row-major [R, C] x, or x[c, r] of a row-major [C, R] x
    # when TRANSPOSE (b becomes K-major: its tile is read along b's rows and transposed in registers)
    rr = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cc = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    if TRANSPOSE:
        xt = tl.load(x_ptr + cc[:, None].to(tl.int64) * R + rr[None, :],
                     mask=(cc[:, None] < C) & (rr[None, :] < R), other=0.0)
        x = tl.trans(xt)
    else:
        x = tl.load(x_ptr + rr[:, None].to(tl.int64) * C + cc[None, :],
                    mask=(rr[:, None] < R) & (cc[None, :] < C), other=0.0)
    hi = _round_tf32(x)
    lo = _round_tf32(x - hi)  # x - hi is exact in fp32
    dst = out_ptr + rr[:, None].to(tl.int64) * C_PAD + cc[None, :]
    keep = (rr[:, None] < R) & (cc[None, :] < C_PAD)
    tl.store(dst, hi, mask=keep)
    tl.store(dst + plane, lo, mask=keep)


@triton.jit
def _tile_coords(tile, tiles_m, tiles_n, GROUP_M: tl.constexpr):
    per_group = GROUP_M * tiles_n
    first_m = (tile // per_group) * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    return first_m + (tile % per_group) % group_rows, (tile % per_group) // group_rows


@triton.jit
def _gemm_presplit(a_hi_desc, a_lo_desc, bt_hi_desc, bt_lo_desc, out_desc, M, N, n_units, n_splits,
                   k_steps, split_rows, n_programs, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, NUM_STAGES: tl.constexpr,
                   ACCUMULATORS: tl.constexpr):
    # unit = tile * n_splits + split; split s covers k steps [s * k_steps, (s + 1) * k_steps) (the
    # descriptors zero-fill past the padded k) and writes rows s * split_rows + (tile rows) of out.
    # Every operand is TF32-exact, so each "tf32" dot is exact products with fp32 accumulation.
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    start = tl.program_id(0)
    out_unit = start - n_programs  # the epilogue's own unit counter
    for unit in tl.range(start, n_units, n_programs, flatten=True):
        pid_m, pid_n = _tile_coords(unit // n_splits, tiles_m, tiles_n, GROUP_M)
        off_m = pid_m * BLOCK_M
        off_n = pid_n * BLOCK_N
        k0 = (unit % n_splits) * k_steps * BLOCK_K
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        small = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        small2 = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for kt in tl.range(0, k_steps, num_stages=NUM_STAGES):
            kk = k0 + kt * BLOCK_K
            a_hi = a_hi_desc.load([off_m, kk])
            a_lo = a_lo_desc.load([off_m, kk])
            bt_hi = bt_hi_desc.load([off_n, kk])
            bt_lo = bt_lo_desc.load([off_n, kk])
            # the 3xTF32 sum, the lo x lo term dropped, the small terms first. A dot whose result
            # feeds another dot of the same step makes Triton wait for all wgmma groups in flight:
            # 1 accumulator waits twice per step, 2 (small terms apart) once, 3 only for the
            # previous step's groups (compiled for sm_90: wait_group 0, 0 / 0 / 3).
            if ACCUMULATORS == 1:
                acc = tl.dot(a_hi, tl.trans(bt_lo), acc, input_precision="tf32")
                acc = tl.dot(a_lo, tl.trans(bt_hi), acc, input_precision="tf32")
            elif ACCUMULATORS == 2:
                small = tl.dot(a_hi, tl.trans(bt_lo), small, input_precision="tf32")
                small = tl.dot(a_lo, tl.trans(bt_hi), small, input_precision="tf32")
            else:
                small = tl.dot(a_hi, tl.trans(bt_lo), small, input_precision="tf32")
                small2 = tl.dot(a_lo, tl.trans(bt_hi), small2, input_precision="tf32")
            acc = tl.dot(a_hi, tl.trans(bt_hi), acc, input_precision="tf32")
        if ACCUMULATORS == 2:
            acc = small + acc
        elif ACCUMULATORS == 3:
            acc = (small + small2) + acc
        out_unit += n_programs
        out_m, out_n = _tile_coords(out_unit // n_splits, tiles_m, tiles_n, GROUP_M)
        row = (out_unit % n_splits) * split_rows + out_m * BLOCK_M
        col = out_n * BLOCK_N
        # epilogue subtiling: two half-width TMA stores, half the shared-memory staging buffer
        left, right = tl.split(tl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2)).permute(0, 2, 1))
        out_desc.store([row, col], left)
        out_desc.store([row, col + BLOCK_N // 2], right)


@triton.jit
def _sum_splits(ws_ptr, c_ptr, M, N, ws_ld, split_stride, n_splits, BLOCK: tl.constexpr):
    # c[r, j] = sum over s of ws[s * split_stride + r * ws_ld + j], the slices in a fixed order
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < M * N
    src = ws_ptr + (offs // N) * ws_ld + offs % N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in range(n_splits):
        acc += tl.load(src + s * split_stride, mask=mask, other=0.0)
    tl.store(c_ptr + offs, acc, mask=mask)


@triton.jit
def _matmul_ieee(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                 BLOCK_K: tl.constexpr):
    # fallback: exact fp32 FMA dot on masked pointer loads, any float input dtype
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + rk
        a = tl.load(a_ptr + rm[:, None].to(tl.int64) * K + ks[None, :],
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None].to(tl.int64) * N + rn[None, :],
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision="ieee")
    c = c_ptr + rm[:, None].to(tl.int64) * N + rn[None, :]
    tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


_DEVICE_INFO = {}  # device -> (major compute capability, SM count): looked up once, not per call


def _device_info(device):
    if device not in _DEVICE_INFO:
        props = torch.cuda.get_device_properties(device)
        _DEVICE_INFO[device] = (props.major, props.multi_processor_count)
    return _DEVICE_INFO[device]


def _presplit_ok(a, b) -> bool:
    if a.dtype != torch.float32 or b.dtype != torch.float32 or torch.version.hip:
        return False
    # TMA and tf32 tensor cores with ~227 KB of shared memory per block: sm_90 and sm_100
    return not a.is_cuda or _device_info(a.device)[0] in (9, 10)


# (BLOCK_M, BLOCK_N, warps, a rough guess of the tile's relative MMA efficiency; not measured)
_TILES = ((128, 128, 8, 1.0), (128, 64, 4, 0.8))


def _splits(tiles: int, k_tiles: int, slots: int) -> tuple[int, int]:
    """(k slices, k steps per slice) for `tiles` output tiles on `slots` persistent programs."""
    want = min(slots // tiles, k_tiles // MIN_K_STEPS) if tiles < slots else 1
    if want < 2:
        return 1, k_tiles
    steps = triton.cdiv(k_tiles, want)
    return triton.cdiv(k_tiles, steps), steps  # no empty slice


def _smem(bm: int, bn: int, bk: int, stages: int) -> int:
    """Shared memory of one GEMM program as Triton 3.7.1 lays it out for sm_90 (exact for every
    tile, stage count and ACCUMULATORS compiled offline): per stage the four operand tiles and an
    8-byte barrier, plus the [bm, bn/2] store staging buffer."""
    return stages * (2 * (bm + bn) * bk * 4 + 8) + bm * (bn // 2) * 4


def _plan(m: int, n: int, k: int, sms: int):
    """(BLOCK_M, BLOCK_N, BLOCK_K, warps, stages, k slices, k steps per slice, padded k): the tile
    with the fewest waves of units times a unit's work over its guessed efficiency."""
    bk = BLOCK_K_GEMM
    k_pad = triton.cdiv(k, bk) * bk
    k_tiles = k_pad // bk
    best = None
    for bm, bn, warps, eff in _TILES:
        tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
        splits, steps = _splits(tiles, k_tiles, sms)
        cost = triton.cdiv(tiles * splits, sms) * steps * bm * bn / eff
        if best is None or cost < best[0]:
            best = (cost, bm, bn, warps, splits, steps)
    _, bm, bn, warps, splits, steps = best
    stages = NUM_STAGES
    while stages > 2 and _smem(bm, bn, bk, stages) > SMEM_BUDGET:
        stages -= 1
    return bm, bn, bk, warps, stages, splits, steps, k_pad


def _split(x, rows: int, cols: int, k_pad: int, transpose: bool):
    """[2, rows, k_pad] fp32: the TF32 hi and lo parts of x ([rows, cols], or [cols, rows] when
    transpose), zero-padded in k."""
    out = torch.empty((2, rows, k_pad), dtype=torch.float32, device=x.device)
    grid = (triton.cdiv(rows, SPLIT_ROWS), k_pad // BLOCK_K_GEMM)
    _split_operand[grid](x, out, rows, cols, k_pad, rows * k_pad, BLOCK_R=SPLIT_ROWS,
                         BLOCK_C=BLOCK_K_GEMM, TRANSPOSE=transpose, num_warps=4)
    return out


def _launch_presplit(a, b, c):
    m, k = a.shape
    n = b.shape[1]
    sms = _device_info(a.device)[1] if a.is_cuda else INTERPRETER_SMS
    bm, bn, bk, warps, stages, splits, steps, k_pad = _plan(m, n, k, sms)
    a_parts = _split(a, m, k, k_pad, transpose=False)
    bt_parts = _split(b, n, k, k_pad, transpose=True)
    descs = [TensorDescriptor.from_tensor(a_parts[0], [bm, bk]), TensorDescriptor.from_tensor(a_parts[1], [bm, bk]),
             TensorDescriptor.from_tensor(bt_parts[0], [bn, bk]), TensorDescriptor.from_tensor(bt_parts[1], [bn, bk])]
    direct = splits == 1 and n % 4 == 0  # TMA can store into c: 16-byte row stride
    if direct:
        out, split_rows = c, 0
    else:  # slices of whole tiles' rows; n padded to 4 for the descriptor; _sum_splits writes c
        split_rows = triton.cdiv(m, bm) * bm
        out = torch.empty((splits * split_rows, triton.cdiv(n, 4) * 4), dtype=torch.float32, device=a.device)
    out_desc = TensorDescriptor.from_tensor(out, [bm, bn // 2])
    n_units = triton.cdiv(m, bm) * triton.cdiv(n, bn) * splits
    n_programs = min(n_units, sms)
    _gemm_presplit[(n_programs,)](*descs, out_desc, m, n, n_units, splits, steps, split_rows, n_programs,
                                  BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=GROUP_M, NUM_STAGES=stages,
                                  ACCUMULATORS=ACCUMULATORS, num_warps=warps, num_stages=stages)
    if not direct:
        _sum_splits[(triton.cdiv(m * n, 1024),)](out, c, m, n, out.shape[1], split_rows * out.shape[1], splits,
                                                 BLOCK=1024, num_warps=4)


def _launch_ieee(a, b, c):
    m, k = a.shape
    n = b.shape[1]
    grid = (triton.cdiv(m, 64), triton.cdiv(n, 64))
    _matmul_ieee[grid](a, b, c, m, n, k, BLOCK_M=64, BLOCK_N=64, BLOCK_K=16, num_warps=8)


class ModelNew(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a = a.contiguous()
        b = b.contiguous()
        m, k = a.shape
        n = b.shape[1]
        c = torch.empty((m, n), dtype=a.dtype, device=a.device)
        if m == 0 or n == 0:
            return c
        if k > 0 and _presplit_ok(a, b):       # k == 0: the ieee kernel's empty loop stores zeros
            _launch_presplit(a, b, c)
        else:
            _launch_ieee(a, b, c)
        return c
