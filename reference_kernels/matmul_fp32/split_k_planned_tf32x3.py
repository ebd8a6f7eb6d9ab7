"""
---
op: matmul_fp32
strategy: planned-split-k-workspace-reduce
techniques: [split-k, per-shape-tiles, sm-count-planner, tiling, grouped-program-order, l2-reuse, two-kernel, deterministic, fp32-accumulate, tf32x3-dot, ieee-fp32-dot, software-pipelining, unmasked-interior, masked-tail, edge-clamped-loads]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  PRECISION: {values: ["tf32x3", "ieee"], default: "tf32x3"}
  PROGRAMS_PER_SM: {values: [1, 2, 4], default: 2}
  MAX_TILE_M: {values: [64, 128], default: 128}
  NUM_STAGES: {values: [2, 3, 4], default: 3}
  NUM_WARPS: {values: [4, 8], default: 4}
requires: []
sources:
  - https://github.com/NVIDIA/cutlass/blob/main/media/docs/cpp/efficient_gemm.md
  - https://triton-lang.org/main/getting-started/tutorials/03-matrix-multiplication.html
  - https://arxiv.org/abs/2203.03341
---
Split-K fp32 GEMM whose tiles and split count are planned on the host from the shape and the SM
count, aimed at long-k-256x256x16384. Why: measured by the harness on one H100 SXM (2026-12-05,
events timing, docs/results/h100-2026-12-05/kernel-patterns/kernel-patterns.json), long-k took 58.2
us with torch.compile (cuBLAS, exact fp32) against 74.8 us for split_k (32x64 tiles, SPLIT_K 4,
tf32x3 in the loop), 81.9 for tma_persistent_flat_tf32x3 and 91.6 for presplit_tf32x3, whose
per-call pass writing hi/lo copies of a and b is a large share of a long-k GEMM's traffic; on the
H200 (2026-12-04) split_k took 78.8 us against 58.2. With m = n = 256 there are only 8 output tiles
of 128x64, so k must be split to occupy 132 SMs. split_k fills them with 32 small tiles x 4 splits =
128 programs, but a 32x64x32 k step loads 12 KB for 131k flops (10.7 per byte; a 128x64x32 step, 24
KB for 524k, 21.3), its 32-row tiles are too short for wgmma (compiled offline for sm_90 its loop is
mma.sync), and across the grid a (16 MiB) is loaded 4 times and b (16 MiB) 8 times: 192 MiB through
L2, against 96 MiB with 128-row tiles.
Plan (_plan, every call): tiles are 64 columns wide and MAX_TILE_M or 64 rows tall, BLOCK_K 32. For
each height the split count is about PROGRAMS_PER_SM x SMs / tiles, capped so a split gets at least
MIN_K_STEPS (4) k steps, each split a whole number of steps (only the last may be shorter); one
split when the tiles alone exceed half that target or k has under 8 steps. The height whose busiest
SM gets the least work (programs per SM rounded up x k steps x tile area, over a guessed, unmeasured
efficiency of 1.0 for 128 rows and 0.75 for 64) wins, ties to the taller. 128 rows only for tf32x3
with k and n multiples of 4; "ieee" always takes 64. The SM count is read once per device
(multi_processor_count); off CUDA it is CPU_SMS = 132. At the defaults (PROGRAMS_PER_SM 2,
MAX_TILE_M 128) for 132 SMs: square-4096 128x64, 2048 tiles, unsplit, 2048 programs of 128 k steps;
square-2048 128x64, 512 tiles, unsplit, 512 programs of 64 steps; tall-8192x1024x1024 128x64, 1024
tiles, unsplit, 1024 programs of 32 steps; skinny-16x4096x4096 64x64, 64 tiles x 4 splits, 256
programs of 32 steps (1 MiB workspace); long-k-256x256x16384 128x64, 8 tiles x 32 splits, 256
programs of 16 steps (8 MiB workspace, written once and read once: the price of 32 short k slices);
held out: odd-1000-cubed 128x64, 128 tiles x 2 splits, 256 programs of 16 steps (the last with a
ragged step of 8 columns); odd-77x3000x500 128x64, 47 tiles x 4 splits, 188 programs of 4 steps (the
last split's last step 20 columns).
Kernel: program (tile, split) walks its k steps with unmasked loads: rows and columns past m and n
wrap onto real ones (rm % m, rn % n, dropped by the masked store), and the one ragged step when k%32
!= 0 is done first, with a k mask, by the last split only (EVEN_K removes it at compile time). Row
offsets are 64-bit; the row strides are written (k // 4) * 4 and (n // 4) * 4 when 4 divides them,
and the wrapped columns carry a contiguity hint of 4, so the copies are 16 bytes wide even when k
and n are not multiples of 16 (held-out 1000 and 3000/500). Each step is tl.dot(a, b, acc,
input_precision=PRECISION): "tf32x3" (default) sums three TF32 tensor-core products, within the fp32
tolerance; "ieee" is exact FMA, also taken for non-fp32 inputs and on ROCm. The loop is
software-pipelined by num_stages=NUM_STAGES at launch. One split writes c directly, one launch;
otherwise partial tiles go to an fp32 [splits, m, n] workspace and _sum_slices adds them, eight
slices per load, in a fixed order: deterministic, no atomics. Tiles are ordered in bands of GROUP_M
= 8 tile rows (b's column blocks reused from L2 when the grid is unsplit). k = 0 runs one unsplit
program per tile with no k step, which stores zeros; m or n = 0 returns an empty c.
Compiled offline for sm_90 with Triton 3.7.1 and its bundled ptxas (no GPU; registers from
cuobjdump), each suite and held-out shape specialized as the launch would: the default 128x64, 4
warps, 3 stages is 252 registers, no spills, 64 KB of shared memory (two 24 KB cp.async stages of a
and b, 16-byte LDGSTS, plus 16 KB for b's TF32 hi/lo copies), 24 HGMMA.64x64x8.F32.TF32 per k step
with a in registers, each of the three wgmma groups waited on before the next (WARPGROUP.DEPBAR 0),
as in the operator's other tf32x3 kernels; two such programs just fit an SM's 64K registers. 64x64
(skinny): 140 registers, 48 KB. 128x64 with 8 warps 142 registers; NUM_STAGES 4 takes 88 KB (128x64)
or 64 KB (64x64); no tf32x3 point spills. ieee 64x64 lowers to FFMA: 8 warps 80 registers, 4 warps
96 with 8 bytes of stack at 3 and 4 stages. Without the stride and contiguity hints, 128x64 with 4
warps spilled 104-464 bytes where k or n is not a multiple of 16 (4-byte copies); where k or n is
not a multiple of 4, no hint applies and it spills 72-536 bytes, hence the planner's rule.
_sum_slices: 32-56 registers.
Checked in Triton's interpreter (exact fp32 dots, so indexing, masks and splits, not TF32 rounding)
against torch within 1e-4: the cpu_shapes, k = 0, m or n = 0, 1x1x1, odd sizes, non-contiguous
inputs, fp16/bf16 inputs, split grids (1-6 fake SMs, or 132 with a thin long k: 2-32 slices, ragged
last steps of 1-24 columns), and every point of the parameter space.
Measured by the harness on one H100 SXM (2026-12-06, timing rule covering-flush-shared-floor-static-compile-2026-12-05, `bash tools/h200_suite_bench.sh --calibrate --ops matmul_fp32,softmax_cols,embedding_bag_sum,group_norm_nhwc suites/kernel-patterns` into an empty folder; docs/results/h100-2026-12-06/call1-new-kernels), after the GPU correctness run passed at every shape and held-out shape: long-k-256x256x16384 57.31 us against torch.compile's 58.22 (1.02x; split_k 75.17),
square-4096 2405 against 2659 (1.11x), square-2048 318.9 against 343.1 (1.08x), tall-8192x1024x1024
324.7 against 347.8 (1.07x), skinny-16x4096x4096 76.06 against 80.03 (1.05x). The fastest kernel at
long-k, by a 2 % margin; presplit_tf32x3 (1.57-1.85x) stays faster at square and tall, split_k
(2.09x) at skinny. The tile-efficiency weights above are still guesses.
"""

import torch
import triton
import triton.language as tl

PRECISION = 'tf32x3'
PROGRAMS_PER_SM = 2
MAX_TILE_M = 128
NUM_STAGES = 3
NUM_WARPS = 4

TILE_N = 64          # every tile is 64 columns wide; its height is MAX_TILE_M or 64 (the planner picks)
BLOCK_K = 32         # k step: 32 fp32 = 128-byte rows of a
MIN_K_STEPS = 4      # a split gets at least this many k steps, so the pipeline has something to overlap
GROUP_M = 8          # tiles are ordered in bands of 8 tile rows (b's column blocks reused from L2)
SUM_CHUNK = 8        # the reduce kernel loads up to this many partial tiles' elements at once
CPU_SMS = 132        # off CUDA (the interpreter) the plan is made as for an H100 SXM
# a guess (not measured) of a tile height's tensor-core efficiency relative to 128 rows: how the
# planner weighs fewer, taller tiles against more, shorter ones
TILE_EFFICIENCY = {128: 1.0, 64: 0.75}

_SM_COUNTS: dict = {}


def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return CPU_SMS
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _SM_COUNTS:
        _SM_COUNTS[index] = torch.cuda.get_device_properties(index).multi_processor_count
    return _SM_COUNTS[index]


@triton.jit
def _gemm_k_slice(a_ptr, b_ptr, out_ptr, M, N, K, steps_per_split, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                  EVEN_K: tl.constexpr, K_DIV: tl.constexpr, N_DIV: tl.constexpr,
                  PRECISION: tl.constexpr):
    # program (tile, split): the fp32 product of the tile's rows of a and columns of b over k steps
    # [split * steps_per_split, (split + 1) * steps_per_split) (clipped to k), stored into slice
    # `split` of out, an [n_splits, M, N] workspace (or c itself when there is one split)
    tile = tl.program_id(0)
    split = tl.program_id(1)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    # tiles go down a band of GROUP_M tile rows before moving one tile column right
    band_size = GROUP_M * tiles_n
    band = tile // band_size
    band_rows = tl.minimum(tiles_m - band * GROUP_M, GROUP_M)
    in_band = tile - band * band_size
    pid_m = band * GROUP_M + in_band % band_rows
    pid_n = in_band // band_rows

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    # rows and columns past m and n wrap onto real ones, so no load needs an m or n mask; the
    # products they feed land outside c and the store drops them. N_DIV divides n, so the wrap
    # keeps each aligned group of N_DIV columns contiguous: said explicitly, as the compiler's
    # own analysis of `% N` sees contiguity only when n is a multiple of 16
    am = rm % M
    bn = tl.max_contiguous(tl.multiple_of(rn % N, N_DIV), N_DIV)
    # the row strides written as (stride // DIV) * DIV, DIV dividing them (4 or 1): the compiler
    # then knows every row starts at a multiple of DIV elements and moves 16 bytes per copy when
    # DIV is 4 (Triton's own argument specialization only recognizes multiples of 16)
    lda = (K // K_DIV) * K_DIV
    ldb = (N // N_DIV) * N_DIV
    a_rows = a_ptr + am[:, None].to(tl.int64) * lda
    b_cols = b_ptr + bn[None, :]

    step_first = split * steps_per_split
    step_end = tl.minimum(step_first + steps_per_split, tl.cdiv(K, BLOCK_K))
    full_end = tl.minimum(step_end, K // BLOCK_K)  # steps that lie wholly inside k
    k0 = step_first * BLOCK_K
    a_ptrs = a_rows + (k0 + rk)[None, :]
    b_ptrs = b_cols + (k0 + rk)[:, None].to(tl.int64) * ldb
    b_step = tl.full((), BLOCK_K, tl.int64) * ldb

    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    if not EVEN_K:
        # the ragged last k step, owned by the last split, is done first: its masked loads and
        # addresses are then dead before the loop starts
        if step_end > full_end:
            ks = full_end * BLOCK_K + rk
            a = tl.load(a_rows + ks[None, :], mask=ks[None, :] < K, other=0.0)
            b = tl.load(b_cols + ks[:, None].to(tl.int64) * ldb, mask=ks[:, None] < K, other=0.0)
            acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision=PRECISION)
    for kt in range(step_first, full_end):  # software-pipelined by the launch's num_stages
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a.to(tl.float32), b.to(tl.float32), acc, input_precision=PRECISION)
        a_ptrs += BLOCK_K
        b_ptrs += b_step

    out = out_ptr + split.to(tl.int64) * M * ldb + rm[:, None].to(tl.int64) * ldb + rn[None, :]
    tl.store(out, acc.to(out_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _sum_slices(ws_ptr, c_ptr, MN, n_splits, BLOCK: tl.constexpr, CHUNK: tl.constexpr):
    # c[i] = sum over s of ws[s, i]: CHUNK slices loaded together, each chunk reduced by the same
    # compiled tree and the chunks added in slice order, so the result does not vary run to run
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    inside = offs < MN
    rs = tl.arange(0, CHUNK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s0 in range(0, n_splits, CHUNK):
        s = s0 + rs
        part = tl.load(ws_ptr + s[:, None].to(tl.int64) * MN + offs[None, :],
                       mask=(s[:, None] < n_splits) & inside[None, :], other=0.0)
        acc += tl.sum(part, axis=0)
    tl.store(c_ptr + offs, acc.to(c_ptr.dtype.element_ty), mask=inside)


def _divisor(stride: int) -> int:
    """4 when a row stride (in elements) is a multiple of 4, else 1."""
    return 4 if stride % 4 == 0 else 1


def _split_k(tiles: int, k_steps: int, slots: int) -> tuple[int, int]:
    """(splits, k steps per split): about slots / tiles splits of at least MIN_K_STEPS steps each;
    one when the tiles exceed half the slots or k is too short for two. No split is empty."""
    want = min(slots // tiles, k_steps // MIN_K_STEPS)
    if want < 2:
        return 1, k_steps
    steps = triton.cdiv(k_steps, want)
    return triton.cdiv(k_steps, steps), steps


def _plan(m: int, n: int, k: int, sms: int, precision: str) -> tuple[int, int, int, int]:
    """(BLOCK_M, BLOCK_N, splits, k steps per split) for an [m, k] x [k, n] product on `sms` SMs:
    of the tile heights allowed, the one whose busiest SM has the least work (programs per SM,
    rounded up, times one program's k steps times its tile area, over the height's guessed
    efficiency); ties go to the taller tile (fewer loaded bytes per product). The splits aim at
    PROGRAMS_PER_SM programs per SM. The exact-FMA "ieee" dot keeps to 64 rows, and so does
    tf32x3 when k or n is not a multiple of 4 (then copies are 4 bytes wide, and 128 rows with
    4 warps run out of registers)."""
    k_steps = triton.cdiv(k, BLOCK_K)
    slots = PROGRAMS_PER_SM * sms
    tall_ok = precision != "ieee" and _divisor(k) == 4 and _divisor(n) == 4
    heights = sorted({MAX_TILE_M, 64}, reverse=True) if tall_ok else [64]
    best = None
    for bm in heights:
        tiles = triton.cdiv(m, bm) * triton.cdiv(n, TILE_N)
        splits, steps = _split_k(tiles, k_steps, slots)
        cost = triton.cdiv(tiles * splits, sms) * steps * bm * TILE_N / TILE_EFFICIENCY[bm]
        if best is None or cost < best[0]:
            best = (cost, bm, splits, steps)
    _, bm, splits, steps = best
    return bm, TILE_N, splits, steps


def _sum_block(mn: int, sms: int) -> int:
    """Elements per reduce program: from 1024 down to 128 until there are two programs per SM."""
    block = 1024
    while block > 128 and triton.cdiv(mn, block) < 2 * sms:
        block //= 2
    return block


class ModelNew(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a = a.contiguous()
        b = b.contiguous()
        m, k = a.shape
        n = b.shape[1]
        c = torch.empty((m, n), dtype=a.dtype, device=a.device)
        if m == 0 or n == 0:
            return c
        exact_inputs = a.dtype == torch.float32 and b.dtype == torch.float32
        precision = PRECISION if exact_inputs and not torch.version.hip else "ieee"  # ROCm: no tf32x3
        sms = _sm_count(a.device)
        bm, bn, splits, steps = _plan(m, n, k, sms, precision)
        out = c if splits == 1 else torch.empty((splits, m, n), dtype=torch.float32, device=a.device)
        grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn), splits)
        _gemm_k_slice[grid](a, b, out, m, n, k, steps, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=BLOCK_K,
                            GROUP_M=GROUP_M, EVEN_K=k % BLOCK_K == 0, K_DIV=_divisor(k),
                            N_DIV=_divisor(n), PRECISION=precision,
                            num_warps=NUM_WARPS, num_stages=NUM_STAGES)
        if splits > 1:
            block = _sum_block(m * n, sms)
            _sum_slices[(triton.cdiv(m * n, block),)](out, c, m * n, splits, BLOCK=block,
                                                      CHUNK=min(SUM_CHUNK, triton.next_power_of_2(splits)),
                                                      num_warps=4)
        return c
