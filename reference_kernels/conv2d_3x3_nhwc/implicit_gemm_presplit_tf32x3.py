"""
---
op: conv2d_3x3_nhwc
strategy: implicit-gemm-presplit-tf32x3-split-k
techniques: [implicit-gemm, tap-decomposition, shifted-tile-loads, coalesced-channels, vectorized-loads, weight-prepacking, tap-validity-bitmask, tiling, tensor-cores, tf32-operand-presplit, three-tf32-products, tf32x3-dot, ieee-fp32-dot, fp32-accumulate, software-pipelining, shape-specialized-tiles, occupancy-sized-grid, split-k, partial-results-workspace, deterministic, zero-padding-by-mask, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  PRECISION: {values: ["tf32x3", "ieee"], default: "tf32x3"}
  BLOCK_K: {values: [16, 32, 64], default: 32}
  NUM_STAGES: {values: [2, 3, 4], default: 3}
  MAX_TILE: {values: [64, 128], default: 128}
  ACCUMULATORS: {values: [1, 2, 3], default: 1}
requires: []
sources:
  - https://github.com/NVIDIA/cutlass/blob/main/media/docs/cpp/implicit_gemm_convolution.md
  - https://github.com/NVIDIA/cutlass/tree/main/examples/27_ampere_3xtf32_fast_accurate_tensorop_gemm
  - https://triton-lang.org/main/python-api/generated/triton.language.dot.html
---
The implicit GEMM of implicit_gemm_prepacked_weight (M = batch*h*w pixels, N = c_out, K = 9*c_in
ordered tap-major then channel; shifted A tiles addressed by one scalar per step, zero padding from a
9-bit tap-validity mask, one flat pipelined loop over taps x channel blocks, per-shape tiles capped at
128x64, split-K into an fp32 workspace summed in a fixed order), with the 3xTF32 operand split moved
out of the loop. Why: measured on the H200 2026-12-04 by the harness, cuDNN (exact fp32, TF32 off)
takes 322 / 270 / 356 / 533 us at resnet50-stage1 / stage3 / stage4 / sd-unet (7.4, 7.4, 7.4 and
15.1 GFLOP); implicit_gemm_prepacked_weight with tl.dot(input_precision="tf32x3") ran stage 1 in
295 us and the UNet shape in 490 us (1.10x torch.compile) with 128x64 tiles, but that dot splits
both fp32 operands into TF32 hi/lo parts in registers on every K step, and compiled offline for
sm_90 its loop stores split parts back to shared memory for wgmma (32 st.shared per step, 242
registers, at the stage-3 plan).
Here every operand is split once, into two fp32 tensors whose values are exact in TF32: hi = x
rounded to TF32 (sign, 8 exponent and the top 10 mantissa bits, low 13 bits zero; round to nearest
even by integer arithmetic on the bits), lo = the same rounding of x - hi (exact in fp32), so
hi + lo is x to within 2**-22 of |x|. The weight is split when it is packed (at the first forward and
again only when the parameter is replaced, moved or written in place: data_ptr / _version key), into
a K-major [c_out, 9*c_in] hi and lo, loaded as [BLOCK_N, BLOCK_K] tiles and used transposed, since
tf32 wgmma wants both operands K-major. The activations are split per call by one elementwise pass
(4 bytes read, 8 written per input element: 25.7 MB of x at stage 1, 6.4 MB at stage 3). Each K step
then loads four tiles (A hi/lo of the shifted pixels, B hi/lo) and runs three plain TF32 dots, the
two cross terms first, a_hi*b_lo + a_lo*b_hi, then a_hi*b_hi, into an fp32 accumulator; the TF32
products of TF32-exact values are exact, and the dropped a_lo*b_lo is ~2**-22 relative. ACCUMULATORS
2 puts the cross terms in a second accumulator and 3 gives each dot its own (summed after the loop):
compiled offline, the one-accumulator loop waits for every outstanding wgmma group (wait_group 0)
after its first and after its second dot. Non-fp32 inputs, ROCm (torch.version.hip) and PRECISION
"ieee" skip the split and run one IEEE dot on the unsplit operands.
Plan (the forward's planner, 132 SMs; the sibling's cost model with the operand-byte term doubled for
the two copies; a pipeline stage of 128x64 tiles at BLOCK_K 32 holds 4 fp32 tiles, 48 KiB, so 3 stages
fit the 200 KiB budget, 4 would too): every suite shape gets 128x64 tiles, 4 warps, 3 stages, the same
plan as the sibling. resnet50-stage1 (100352 pixels, 64 -> 64): 1 split, 784 programs of 18 K steps;
stage3 (6272 pixels, 256 -> 256): 2 splits, 392 programs of 36 steps; stage4 (1568 pixels,
512 -> 512): 8 splits, 832 programs of 18 steps; sd-unet (8192 pixels, 320 -> 320): 2 splits, 640
programs of 45 steps. The held-out 3x17x19 33 -> 65 gets 32x32 tiles (93 programs) and 1x9x9
100 -> 7 16x16 tiles x 4 splits (24 programs).
Compiled offline for sm_90 (Triton 3.7.1 with its bundled ptxas, no GPU) at the stage-3 plan: the
three dots lower to ttng.warp_group_dot with both operands in shared memory, 24
wgmma.mma_async.m64n64k8.f32.tf32.tf32 per K step, every operand load a 16-byte cp.async into the
3-stage ring (24 per thread per step), no cvt.rna.tf32, and no st.shared or ld.shared in the loop (the
only ones are the epilogue's layout change of the accumulator); 146 registers, no spills (no local
memory), 144 KiB of shared memory, so one program per SM (NUM_STAGES 2: 96 KiB, 138 registers). In the
loop the wgmma groups wait twice per step (pendings 0 after the first and second dot).
ACCUMULATORS 2: 208 registers, one wait per step; 3: 255 registers, no spills, one wait per step that
leaves the step's three groups in flight (pendings 3). The same at the stage-1, stage-4 and UNet
plans.
Checked in Triton's interpreter (float32; its dot is an exact fp32 matmul, so this checks the
indexing, masks, split-K and the split, not TF32 rounding): the suite's cpu shapes at the default and
smallest parameters, the held-out shapes, odd sizes (1x7x7 96 -> 70, 2x5x6 40 -> 20) with split-K
forced by a 4-SM plan, ACCUMULATORS 1-3, BLOCK_K 16-64, PRECISION "ieee", all within 1e-4 of
F.conv2d, also after the weight is scaled in place. hi and lo have their low 13 bits zero and match a
float64 round-to-nearest-even reference (random values over 1e-44..1e37, ties, subnormals), hi + lo is
within 2**-23 of x for |x| above 2**-100; the three exact products of the split parts, emulated in
float64, are within 3.4e-7 of the exact convolution at 2x7x7 512 -> 512 and 1x8x8 320 -> 320, where
one TF32 product is 1.2e-3 off. Measured by the harness on one H200 (2026-12-05, fp32, events timing, the covering-flush rule;
`bash tools/h200_suite_bench.sh --ops matmul_fp32,conv2d_3x3_nhwc suites/kernel-patterns` into a fresh folder, call 1 of docs/results/h200-2026-12-05/; the GPU correctness test passed at every shape): stage 1 133 us against torch.compile's 320
(2.41x) and cuDNN's production module 317 (2.39x); stage 3 109 against 274 and 270 (2.51x, 2.47x);
stage 4 133 against 363 and 355 (2.73x, 2.67x); sd-unet 213 against 538 and 532 (2.53x, 2.50x): the
fastest of the four kernels at every shape. SOL reads 0.83-1.06 against the fp32 SIMT peak, which
three TF32 tensor-core products may pass (flagged in the tables).
"""

import torch
import triton
import triton.language as tl

PRECISION = 'tf32x3'
BLOCK_K = 32
NUM_STAGES = 3
MAX_TILE = 128
ACCUMULATORS = 1

_SMEM_BUDGET = 200 * 1024          # bytes of shared memory a program may plan for (H100/H200: 227 KiB)
_SM_COUNTS: dict = {}
_TILE_ELEMS = 128 * 64
"""Largest output tile (BLOCK_M x BLOCK_N) the plan considers, as in implicit_gemm_prepacked_weight:
there the 128x128 tiles (8 warps) ran at about a quarter of the 128x64 tiles' per-SM throughput on
the H200 (2026-12-04)."""
_SPLIT_BLOCK = 2048


@triton.jit
def _tf32_rne(u):
    """The uint32 bits of an fp32 value rounded to TF32 (1 sign, 8 exponent, 10 mantissa bits),
    round to nearest, ties to even; the low 13 bits come out zero. Finite inputs only; a carry out
    of the largest finite exponent gives the infinity bits (the caller guards that)."""
    lsb = (u >> 13) & 1
    return (u + 0xFFF + lsb) & 0xFFFFE000


@triton.jit
def _split_tf32(x_ptr, hi_ptr, lo_ptr, total, BLOCK: tl.constexpr):
    """hi = TF32(x), lo = TF32(x - hi), both written as fp32 whose low 13 mantissa bits are zero, so
    a TF32 tensor-core product of them is exact. x - hi is exact in fp32; hi + lo is x to within
    2**-22 of |x|. Inf passes through in hi with lo = 0, NaN becomes the quiet NaN (its payload
    could sit in the low bits TF32 drops), and a finite value that would round up to infinity is
    truncated instead."""
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    u = x.to(tl.uint32, bitcast=True)
    special = (u & 0x7F800000) == 0x7F800000                # inf or NaN
    is_nan = special & ((u & 0x007FFFFF) != 0)
    r = _tf32_rne(u)
    r = tl.where((r & 0x7F800000) == 0x7F800000, u & 0xFFFFE000, r)   # no rounding up to inf
    r = tl.where(special, u, r)
    r = tl.where(is_nan, (u & 0x80000000) | 0x7FC00000, r)
    hi = r.to(tl.float32, bitcast=True)
    d = tl.where(special, 0.0, x - hi)
    lo = _tf32_rne(d.to(tl.uint32, bitcast=True)).to(tl.float32, bitcast=True)
    tl.store(hi_ptr + offs, hi, mask=mask)
    tl.store(lo_ptr + offs, lo, mask=mask)


@triton.jit
def _conv3x3_presplit(xh_ptr, xl_ptr, wh_ptr, wl_ptr, out_ptr, n_pix, H, W, C_IN, C_OUT, n_tiles_n,
                      cb_per_split, n_cb, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                      SPLIT: tl.constexpr, ACCUMULATORS: tl.constexpr, NUM_STAGES: tl.constexpr,
                      WIDE: tl.constexpr):
    """One output tile (BLOCK_M pixels x BLOCK_N output channels) over one split's channel blocks
    of all 9 taps. SPLIT: x and w come as TF32 hi/lo pairs and each step is three TF32 dots;
    otherwise xh_ptr / wh_ptr are the plain operands (xl_ptr / wl_ptr unused) and one IEEE dot."""
    pid = tl.program_id(0)
    split = tl.program_id(1)
    pid_m = pid // n_tiles_n
    pid_n = pid % n_tiles_n
    p = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    p_ok = p < n_pix
    n_ok = n < C_OUT
    oh = (p // W) % H
    ow = p % W
    up = oh > 0
    down = oh < H - 1
    left = ow > 0
    right = ow < W - 1
    # bit t = 3 * r + s: the input pixel of tap (r, s) lies inside the image (else the zero padding)
    bits = tl.zeros([BLOCK_M], dtype=tl.int32)
    for t in tl.static_range(9):
        ok = p_ok
        if t // 3 == 0:
            ok = ok & up
        if t // 3 == 2:
            ok = ok & down
        if t % 3 == 0:
            ok = ok & left
        if t % 3 == 2:
            ok = ok & right
        bits = bits | (ok.to(tl.int32) << t)
    if WIDE:
        row = p.to(tl.int64) * C_IN
    else:
        row = p * C_IN
    w_row = n * (9 * C_IN)                     # K-major weight: row n holds k = tap * C_IN + ci
    rk = tl.arange(0, BLOCK_K)
    cb_lo = split * cb_per_split
    ncb = tl.minimum(cb_per_split, n_cb - cb_lo)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    acc_a = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)     # cross terms, ACCUMULATORS 2 and 3
    acc_b = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for kk in tl.range(0, 9 * ncb, num_stages=NUM_STAGES):
        tap = kk // ncb
        c = (cb_lo + kk - tap * ncb) * BLOCK_K + rk
        c_ok = c < C_IN
        shift = ((tap // 3 - 1) * W + (tap % 3 - 1)) * C_IN
        valid = ((bits >> tap) & 1) != 0
        a_off = (row + shift)[:, None] + c[None, :]
        a_mask = valid[:, None] & c_ok[None, :]
        b_off = w_row[:, None] + (tap * C_IN + c)[None, :]
        b_mask = n_ok[:, None] & c_ok[None, :]
        a_hi = tl.load(xh_ptr + a_off, mask=a_mask, other=0.0)
        b_hi = tl.trans(tl.load(wh_ptr + b_off, mask=b_mask, other=0.0))
        if SPLIT:
            a_lo = tl.load(xl_ptr + a_off, mask=a_mask, other=0.0)
            b_lo = tl.trans(tl.load(wl_ptr + b_off, mask=b_mask, other=0.0))
            # the operands are TF32-exact, so each TF32 product is the exact product of its parts;
            # the small cross terms go in first, a_lo * b_lo (~2**-22 relative) is dropped
            if ACCUMULATORS == 1:
                acc = tl.dot(a_hi, b_lo, acc, input_precision="tf32")
                acc = tl.dot(a_lo, b_hi, acc, input_precision="tf32")
            elif ACCUMULATORS == 2:
                acc_a = tl.dot(a_hi, b_lo, acc_a, input_precision="tf32")
                acc_a = tl.dot(a_lo, b_hi, acc_a, input_precision="tf32")
            else:
                acc_a = tl.dot(a_hi, b_lo, acc_a, input_precision="tf32")
                acc_b = tl.dot(a_lo, b_hi, acc_b, input_precision="tf32")
            acc = tl.dot(a_hi, b_hi, acc, input_precision="tf32")
        else:
            acc = tl.dot(a_hi, b_hi, acc, input_precision="ieee")
    if ACCUMULATORS == 2:
        acc += acc_a
    if ACCUMULATORS == 3:
        acc += acc_a + acc_b
    if WIDE:
        out_row = (split * n_pix + p).to(tl.int64) * C_OUT
    else:
        out_row = (split * n_pix + p) * C_OUT
    tl.store(out_ptr + out_row[:, None] + n[None, :], acc.to(out_ptr.dtype.element_ty),
             mask=p_ok[:, None] & n_ok[None, :])


@triton.jit
def _sum_splits(ws_ptr, y_ptr, total, SPLITS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    src = ws_ptr + offs
    s = tl.load(src, mask=mask, other=0.0)
    for _ in tl.static_range(1, SPLITS):          # fixed order: the same sum on every run
        src += total                              # pointer step: splits * total may pass 2**31
        s += tl.load(src, mask=mask, other=0.0)
    tl.store(y_ptr + offs, s.to(y_ptr.dtype.element_ty), mask=mask)


def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return 132                                # the interpreter plans as for an H200
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _SM_COUNTS:
        _SM_COUNTS[index] = torch.cuda.get_device_properties(index).multi_processor_count
    return _SM_COUNTS[index]


def _split(t: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(hi, lo) of a contiguous fp32 tensor, each of its shape, by one elementwise pass."""
    both = torch.empty((2,) + tuple(t.shape), dtype=t.dtype, device=t.device)
    total = t.numel()
    if total:
        _split_tf32[(triton.cdiv(total, _SPLIT_BLOCK),)](t, both[0], both[1], total, BLOCK=_SPLIT_BLOCK,
                                                         num_warps=4)
    return both[0], both[1]


def _plan(n_pix: int, c_in: int, c_out: int, sms: int, block_k: int, max_tile: int, stages: int,
          copies: int = 2):
    """(BLOCK_M, BLOCK_N, splits, channel blocks per split, stages) with the least modelled time:
    waves of programs x per-step cost (MACs plus operand bytes), plus the split pass. `copies` is
    the number of fp32 copies of each operand a step loads: 2 (hi and lo) for the presplit path."""
    n_cb = max(1, triton.cdiv(c_in, block_k))
    best = None
    for bm in (128, 64, 32, 16):
        if bm > max_tile or (bm > 16 and bm // 2 >= n_pix):
            continue
        for bn in (128, 64, 32, 16):
            if bn > max_tile or (bn > 16 and bn // 2 >= c_out) or bm * bn > _TILE_ELEMS:
                continue
            # one pipeline stage holds A and B tiles of every copy (128x64, BLOCK_K 32: 48 KiB);
            # the operands need no further shared memory, the split is done before the loop
            step_bytes = copies * (bm + bn) * block_k * 4
            fit = _SMEM_BUDGET // step_bytes
            if fit < 2:
                continue
            tiles = triton.cdiv(n_pix, bm) * triton.cdiv(c_out, bn)
            for splits in range(1, min(n_cb, 16) + 1):
                per = triton.cdiv(n_cb, splits)
                if triton.cdiv(n_cb, per) != splits:          # a split with no channel block
                    continue
                waves = triton.cdiv(tiles * splits, sms)
                # ns: 0.0032 per MAC (three TF32 products at ~half their peak per SM), 0.013 per
                # operand byte from L2, ~1 us per program for its pipeline prologue and epilogue
                t = waves * (9 * per * block_k * (0.0032 * bm * bn + 0.052 * copies * (bm + bn) + 2.0) + 1000.0)
                if splits > 1:
                    t += 2000.0 + (splits + 1) * n_pix * c_out * 4 / 3000.0
                if best is None or t < best[0] * 0.98:
                    best = (t, bm, bn, splits, per, min(stages, fit))
    return best[1:]


class ModelNew(torch.nn.Module):
    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.empty(c_out, c_in, 3, 3))
        self._packed_key = None
        self._packed = None

    def _pack(self, split: bool) -> tuple[torch.Tensor, torch.Tensor]:
        """The weight as a K-major [c_out, 9 * c_in] matrix (column tap * c_in + ci), as its TF32
        (hi, lo) pair when `split`, else (packed, packed); rebuilt when the parameter is replaced,
        moved, or written in place. Built at the first forward (the split pass is a kernel)."""
        w = self.weight
        key = (w.data_ptr(), w._version, w.device, w.dtype, tuple(w.shape), split)
        if key != self._packed_key:
            with torch.no_grad():
                c_out, c_in = w.shape[0], w.shape[1]
                packed = w.detach().permute(0, 2, 3, 1).reshape(c_out, 9 * c_in).contiguous()
                self._packed = _split(packed) if split else (packed, packed)
            self._packed_key = key
        return self._packed

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        batch, h, w, c_in = x.shape
        c_out = self.weight.shape[0]
        y = torch.empty((batch, h, w, c_out), dtype=x.dtype, device=x.device)
        n_pix = batch * h * w
        if n_pix == 0 or c_out == 0:
            return y
        assert 9 * c_in * c_out < 2**31, "packed weight offsets are int32"
        split = PRECISION == "tf32x3" and x.dtype == torch.float32 and self.weight.dtype == torch.float32 \
            and not torch.version.hip
        w_hi, w_lo = self._pack(split)
        x_hi, x_lo = _split(x) if split else (x, x)
        copies = 2 if split else 1
        bm, bn, splits, per, stages = _plan(n_pix, c_in, c_out, _sm_count(x.device), BLOCK_K, MAX_TILE, NUM_STAGES,
                                            copies)
        n_cb = max(1, triton.cdiv(c_in, BLOCK_K))
        wide = (n_pix + bm) * max(c_in, c_out) * splits + 2 * (w + 1) * c_in >= 2**31
        out = y if splits == 1 else torch.empty((splits, n_pix, c_out), dtype=torch.float32, device=x.device)
        tiles_n = triton.cdiv(c_out, bn)
        grid = (triton.cdiv(n_pix, bm) * tiles_n, splits)
        _conv3x3_presplit[grid](x_hi, x_lo, w_hi, w_lo, out, n_pix, h, w, c_in, c_out, tiles_n, per, n_cb,
                                BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=BLOCK_K, SPLIT=split, ACCUMULATORS=ACCUMULATORS,
                                NUM_STAGES=stages,
                                WIDE=wide, num_warps=8 if bm * bn >= 128 * 128 else 4)
        if splits > 1:
            total = n_pix * c_out
            _sum_splits[(triton.cdiv(total, 1024),)](out, y, total, SPLITS=splits, BLOCK=1024, num_warps=4)
        return y
