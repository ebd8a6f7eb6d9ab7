"""
---
op: histogram
strategy: onehot-tensor-core-privatized-histogram
techniques: [privatization, one-hot-matmul, tensor-core-counting, int8-dot, tl-histogram, grid-stride-loop, persistent-grid, integer-atomics, single-program-fast-path, init-kernel, masked-tail, deterministic, tensor-cores, byte-codes-prepass, simd-byte-compare, inline-asm]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  DOT_BLOCK: {values: [256, 512, 1024], default: 512}
  PROGRAMS_PER_SM: {values: [1, 2, 4, 8], default: 4}
  HIST_BLOCK: {values: [1024, 2048, 4096, 8192], default: 4096}
  DOT_MIN_BINS: {values: [64, 128, 256, 512, 1024], default: 512}
  TILE_LOADS: {values: [0, 1], default: 1}
  BYTE_CODES: {values: [0, 1], default: 1}
requires: []
sources:
  - https://triton-lang.org/main/python-api/generated/triton.language.dot.html
  - https://triton-lang.org/main/python-api/generated/triton.language.histogram.html
  - https://developer.nvidia.com/blog/gpu-pro-tip-fast-histograms-using-shared-atomics-on-maxwell/
  - https://triton-lang.org/main/python-api/generated/triton.language.inline_asm_elementwise.html
  - https://graphics.stanford.edu/~seander/bithacks.html#ZeroInWord
---
Counting on the tensor cores. Write a bin as b = hi * LO + lo with LO = 32 (or fewer for small bin
counts); then count[hi, lo] = sum over ids of [hi(id) = hi] * [lo(id) = lo], which is the product
of the [HI, BLOCK] one-hot matrix of the ids' high parts and the [BLOCK, LO] one-hot matrix of their
low parts. A fixed grid of PROGRAMS_PER_SM programs per SM walks DOT_BLOCK-id tiles with a grid-stride
loop, builds the two int8 one-hot tiles with HI + LO compares per id and accumulates their product
into a private [HI, LO] int32 histogram with tl.dot (int8 x int8 -> int32 is exact for any count),
then adds it to the zeroed int64 counts with one relaxed atomic per non-empty bin. Ids outside
[0, num_bins) and the tail lanes become -1, whose high part matches no row. Bin counts under
DOT_MIN_BINS, or too few ids to fill the grid, use a privatized tl.histogram instead (HIST_BLOCK-id
tiles, same grid and flush); when one program is enough it stores the counts itself, so the small
decode shapes run one launch with no zeroing kernel.

Why it was expected to beat torch.compile at buckets-16m-1024: torch.compile keeps aten bincount
(226 us, shared-memory atomics serialised on the skewed hot bins), and our privatized_grid_stride
took 262 us: Triton lowers tl.histogram to a per-warp ballot-and-popcount loop that costs about
log2(bins) ballots plus bins/32 x log2(bins) mask operations per 32 ids, about 12 warp instructions
per id at 1024 bins, which is what 16M ids x 12 / (132 SMs x 4 issue slots) predicts. The one-hot
product needs 64 compares per id (2 warp instructions) and moves the summing to the tensor cores,
where a [32, 512] x [512, 32] int8 product is a handful of mma instructions. Every other shape (256
bins and fewer) already beat torch.compile 5-20x with tl.histogram and keeps that path.
Measured by the harness on one H200 (2026-12-04, `tools/suite_bench.py --kernels`): the prediction
failed: buckets-16m-1024 took 640 us (events), 0.35x torch.compile (226) and behind
privatized_grid_stride (262), level with block_histogram (638); not yet profiled.

Why, from the sm_90 build (session 45, `tools/offline_compile.py --ptx-dir`, Triton 3.7.1; no GPU):
the two one-hot tiles were built in the blocked layout of the compare and moved into the mma
operand layout through shared memory, a byte at a time. Per loop trip each thread ran 256
st.shared.b8, 256 ld.shared.b8 and 128 ld.shared.b32 (the ids spread to the columns it holds)
beside 32 mma.sync: about 113 shared-memory instructions per id, on 168 registers (3 programs per
SM). fp16 one-hot tiles only halve that (256 st.shared.b16). With TILE_LOADS each operand's ids
are loaded as its own 2D tile (the 1D offsets broadcast over the other dimension, one pipeline
stage) and compared where they lie: the build's loop has no byte-wise st.shared/ld.shared left (64
ld.global.v4.b32 per trip, the repeats of an id served by L1), 42 registers, 6 programs per SM.
(Session 45 read "no shared-memory access at all" here; the survey did not count stmatrix and
ldmatrix then, and one operand still goes through 16 stmatrix and 32 ldmatrix per trip.)
The cost moves to L1: each id is read by every thread that
holds one of its one-hot entries, about 256 bytes of L1 traffic per id, some 145 us for 16M ids at
the H100's L1 bandwidth by that count, against torch.compile's 209 (session 45, H100; an estimate
made without a GPU). Measured by the harness on an H100 (session 46, `tools/suite_bench.py --kernels`, events):
628.9 -> 257.4 us at buckets-16m-1024, 0.81x torch.compile (209.4); the H100's Nsight profile of
torch.compile there (`tools/loser_profile.py`) shows aten's kernelHistogram1D at 168 us of device time.
The sm_90 build says where the 257 us go: per 512-id trip each thread runs 256 setp, 260 selp, 256
mov and 192 prmt (build a 0/1 byte per one-hot entry, pack four into a register) against 64 loads,
32 mma and 48 ldmatrix/stmatrix: some 8.7 warp instructions per id, so the loop is bound by issue,
not by L1 as estimated. BYTE_CODES (default 1) removes most of them: a first pass writes each id's
high and low parts as bytes (-1 for an id out of range or past the end), the counting loop loads
those bytes as its tiles (four k-consecutive bytes are one 32-bit register of the int8 mma operand)
and compares four at a time: x = codes ^ row, and a byte of x is zero exactly when the high bit of
~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x) is set, so five 32-bit operations give four one-hot bytes
(PTX through tl.inline_asm_elementwise, pack 4; plain compares on other back-ends and in the
interpreter). The pass reads the ids once more and writes 2 bytes an id (~35 us of DRAM at 16M ids);
the loop should need about 2.4x fewer instructions. Measured into the H100 table (session 47,
`tools/suite_bench.py --kernels`, events; GPU correctness passed): 257.4 -> 196.5 us, 1.07x
torch.compile (209.4). histogram/shared_atomics_ptx is faster there (71.1 us, 2.94x). At the three MoE
shapes (the tl.histogram path) it is the fastest of the five kernels: 7.03, 5.78 and 3.53 us by
graph replay. torch.compile cannot be captured in a CUDA graph there (a host copy), so the ratios,
8.49x, 18.6x and 20.9x, set this kernel's events times (9.57, 8.38, 5.06 us) against torch.compile's
(81.3, 156, 106 us), which are host-bound and varied up to 2x between runs.
"""

import torch
import triton
import triton.language as tl

DOT_BLOCK = 512
PROGRAMS_PER_SM = 4
HIST_BLOCK = 4096
DOT_MIN_BINS = 512
TILE_LOADS = 1
BYTE_CODES = 1
CODES_MAX_HI = 64  # byte codes hold high parts up to this (and -1): bin counts up to 64 x 32
CPU_SMS = 4  # the interpreter has no SMs: a small fixed grid that still exercises the stride
SINGLE_MAX = 8192  # ids up to which one program counts everything and stores the counts itself


@triton.jit
def _zero_counts(c_ptr, n_bins, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(c_ptr + offs, tl.zeros([BLOCK], dtype=c_ptr.dtype.element_ty), mask=offs < n_bins)


@triton.jit
def _count_onehot_dot(ids_ptr, c_ptr, n, n_bins, BLOCK: tl.constexpr, HI: tl.constexpr, LO: tl.constexpr,
                      LOG_LO: tl.constexpr, TILE_LOADS: tl.constexpr):
    lanes = tl.arange(0, BLOCK)
    rh = tl.arange(0, HI)
    rl = tl.arange(0, LO)
    acc = tl.zeros([HI, LO], dtype=tl.int32)
    for t in range(tl.program_id(0), tl.cdiv(n, BLOCK), tl.num_programs(0)):
        offs = tl.cast(t, tl.int64) * BLOCK + lanes
        if TILE_LOADS:  # each operand's ids as its own 2D tile: the one-hot is born in the dot's layout
            oa = offs[None, :] + 0 * rh[:, None]                     # [HI, BLOCK]
            ia = tl.load(ids_ptr + oa, mask=oa < n, other=-1)
            ia = tl.where(ia < n_bins, ia, -1)                       # out of range: no high part matches
            ob = offs[:, None] + 0 * rl[None, :]                     # [BLOCK, LO]
            ib = tl.load(ids_ptr + ob, mask=ob < n, other=0)         # its A column is zero when out of range
            a = (rh[:, None] == (ia >> LOG_LO)).to(tl.int8)
            b = ((ib & (LO - 1)) == rl[None, :]).to(tl.int8)
        else:
            live = offs < n
            ids = tl.load(ids_ptr + offs, mask=live, other=-1)
            ids = tl.where(live & (ids < n_bins), ids, -1)   # -1 (and any negative id) has a high part < 0
            a = (rh[:, None] == (ids >> LOG_LO)[None, :]).to(tl.int8)   # [HI, BLOCK] one-hot of the high part
            b = ((ids & (LO - 1))[:, None] == rl[None, :]).to(tl.int8)   # [BLOCK, LO] one-hot of the low part
        acc = tl.dot(a, b, acc, out_dtype=tl.int32)
    bins = rh[:, None] * LO + rl[None, :]
    tl.atomic_add(c_ptr + bins, acc.to(c_ptr.dtype.element_ty), mask=(bins < n_bins) & (acc > 0), sem="relaxed")


@triton.jit
def _byte_codes(ids_ptr, hi_ptr, lo_ptr, n, n_bins, BLOCK: tl.constexpr, LO: tl.constexpr, LOG_LO: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    live = offs < n
    ids = tl.load(ids_ptr + offs, mask=live, other=-1)
    keep = (ids >= 0) & (ids < n_bins)
    tl.store(hi_ptr + offs, tl.where(keep, ids >> LOG_LO, -1).to(tl.int8), mask=live)   # -1 matches no row
    tl.store(lo_ptr + offs, (ids & (LO - 1)).to(tl.int8), mask=live)


@triton.jit
def _equal_bytes(codes, rows, SIMD: tl.constexpr):
    """1 where an int8 code equals its row, else 0 (int8): four bytes a 32-bit operation with SIMD."""
    if SIMD:
        return tl.inline_asm_elementwise(
            """{
            .reg .b32 x, t;
            xor.b32 x, $1, $2;
            and.b32 t, x, 0x7f7f7f7f;
            add.u32 t, t, 0x7f7f7f7f;
            or.b32 t, t, x;
            not.b32 t, t;
            and.b32 t, t, 0x80808080;
            shr.u32 $0, t, 7;
            }""",
            "=r,r,r", [codes, rows], dtype=tl.int8, is_pure=True, pack=4)
    return (codes == rows).to(tl.int8)


@triton.jit
def _count_onehot_codes(hi_ptr, lo_ptr, c_ptr, n, n_bins, BLOCK: tl.constexpr, HI: tl.constexpr,
                        LO: tl.constexpr, SIMD: tl.constexpr):
    lanes = tl.arange(0, BLOCK)
    rh = tl.arange(0, HI)
    rl = tl.arange(0, LO)
    row_a = (rh[:, None] + 0 * lanes[None, :]).to(tl.int8)            # [HI, BLOCK]: the row of each entry
    col_b = (rl[None, :] + 0 * lanes[:, None]).to(tl.int8)            # [BLOCK, LO]
    acc = tl.zeros([HI, LO], dtype=tl.int32)
    for t in range(tl.program_id(0), tl.cdiv(n, BLOCK), tl.num_programs(0)):
        offs = tl.cast(t, tl.int64) * BLOCK + lanes
        oa = offs[None, :] + 0 * rh[:, None]                            # the codes as the operands' own tiles
        ob = offs[:, None] + 0 * rl[None, :]
        a = _equal_bytes(tl.load(hi_ptr + oa, mask=oa < n, other=-1), row_a, SIMD)
        b = _equal_bytes(tl.load(lo_ptr + ob, mask=ob < n, other=0), col_b, SIMD)
        acc = tl.dot(a, b, acc, out_dtype=tl.int32)
    bins = rh[:, None] * LO + rl[None, :]
    tl.atomic_add(c_ptr + bins, acc.to(c_ptr.dtype.element_ty), mask=(bins < n_bins) & (acc > 0), sem="relaxed")


@triton.jit
def _count_hist(ids_ptr, c_ptr, n, n_bins, BLOCK: tl.constexpr, BINS: tl.constexpr, STORE: tl.constexpr):
    lanes = tl.arange(0, BLOCK)
    local = tl.zeros([BINS], dtype=tl.int32)
    for t in range(tl.program_id(0), tl.cdiv(n, BLOCK), tl.num_programs(0)):
        offs = tl.cast(t, tl.int64) * BLOCK + lanes
        live = offs < n
        ids = tl.load(ids_ptr + offs, mask=live, other=0)
        local += tl.histogram(ids, BINS, mask=live & (ids >= 0) & (ids < n_bins))
    bins = tl.arange(0, BINS)
    if STORE:  # the only program: its counts are the answer
        tl.store(c_ptr + bins, local.to(c_ptr.dtype.element_ty), mask=bins < n_bins)
    else:
        tl.atomic_add(c_ptr + bins, local.to(c_ptr.dtype.element_ty), mask=(bins < n_bins) & (local > 0),
                      sem="relaxed")


class ModelNew(torch.nn.Module):
    def __init__(self, num_bins: int):
        super().__init__()
        self.num_bins = num_bins

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        ids = ids.contiguous()
        n = ids.numel()
        nb = self.num_bins
        counts = torch.empty(nb, dtype=torch.int64, device=ids.device)
        bins_p2 = triton.next_power_of_2(nb)
        if n <= SINGLE_MAX:  # one program, one launch, no zeroing
            block = min(HIST_BLOCK, max(triton.next_power_of_2(n), 32))
            _count_hist[(1,)](ids, counts, n, nb, BLOCK=block, BINS=bins_p2, STORE=True, num_warps=4)
            return counts
        _zero_counts[(triton.cdiv(nb, 1024),)](counts, nb, BLOCK=1024, num_warps=4)
        sms = torch.cuda.get_device_properties(ids.device).multi_processor_count if ids.is_cuda else CPU_SMS
        if nb >= DOT_MIN_BINS:
            lo = min(32, max(16, bins_p2 // 16))
            hi = max(16, bins_p2 // lo)
            n_programs = min(sms * PROGRAMS_PER_SM, triton.cdiv(n, DOT_BLOCK))
            if BYTE_CODES and hi <= CODES_MAX_HI:
                codes = torch.empty((2, n), dtype=torch.int8, device=ids.device)
                _byte_codes[(triton.cdiv(n, 2048),)](ids, codes[0], codes[1], n, nb, BLOCK=2048, LO=lo,
                                                     LOG_LO=lo.bit_length() - 1, num_warps=8)
                # PTX: NVIDIA only, not the interpreter's CPU tensors (meta ones are tools/offline_compile.py's sm_90 build)
                simd = ids.device.type in ("cuda", "meta") and torch.version.hip is None
                _count_onehot_codes[(n_programs,)](codes[0], codes[1], counts, n, nb, BLOCK=DOT_BLOCK, HI=hi, LO=lo,
                                                   SIMD=simd, num_warps=4, num_stages=1)
            else:
                _count_onehot_dot[(n_programs,)](ids, counts, n, nb, BLOCK=DOT_BLOCK, HI=hi, LO=lo,
                                                 LOG_LO=lo.bit_length() - 1, TILE_LOADS=TILE_LOADS, num_warps=4,
                                                 num_stages=1 if TILE_LOADS else 3)   # no pipelined id tiles
        else:
            n_programs = min(sms * PROGRAMS_PER_SM, triton.cdiv(n, HIST_BLOCK))
            _count_hist[(n_programs,)](ids, counts, n, nb, BLOCK=HIST_BLOCK, BINS=bins_p2, STORE=False,
                                       num_warps=8)
        return counts
