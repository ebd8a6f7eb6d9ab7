"""
---
op: group_norm_nhwc
strategy: shifted-lane-sums-merge-kernel-flat-apply
techniques: [split-reduction, one-pass-statistics, shifted-sums, chan-parallel-variance, three-kernel, partial-stats-workspace, coalesced-rows, occupancy-sized-grid, flat-elementwise-apply, constexpr-channel-index, eviction-hints, fused-affine, deterministic, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  PROGRAMS_PER_SM: {values: [2, 4, 8], default: 4}
  TILE_ELEMS: {values: [1024, 2048, 4096], default: 2048}
  MAX_CHUNKS: {values: [256, 512, 1024], default: 512}
  MIN_TILES: {values: [1, 4, 8, 16], default: 8}
  TWO_TILES: {values: [0, 1], default: 0}
  ROW_LOADS: {values: [0, 4, 8, 16], default: 0}
  MERGE_WARPS: {values: [1, 2, 4], default: 2}
  APPLY_BLOCK: {values: [1024, 2048, 4096], default: 2048}
  APPLY_REVERSE: {values: [0, 1], default: 1}
  KEEP_IN_L2: {values: [0, 1], default: 1}
  NUM_WARPS: {values: [4, 8], default: 4}
requires: []
sources:
  - https://en.wikipedia.org/wiki/Algorithms_for_calculating_variance#Computing_shifted_data
  - https://en.wikipedia.org/wiki/Algorithms_for_calculating_variance#Parallel_algorithm
  - https://arxiv.org/abs/1803.08494
---
Written after Nsight Compute on one H100 SXM (2026-12-06, `tools/loser_profile.py` on
docs/results/h100-2026-12-06/call1-new-kernels) showed why pixel_slab_all_groups loses at
vae-decoder-1x65536x128-g32 (74.7 us under the profiler against torch.compile's 55.5) and
sd-unet-2x4096x320-g32 (27.4 against 22.1). Its grid is one program per (image, chunk), 128 and 128
programs of 4 warps, with 168 (statistics) and 224 (merge and apply) registers a thread: 6 %
achieved occupancy, 74 % of stalls waiting on loads, DRAM at 35 % of peak. Its statistics kernel
reads each slab twice (sums, then centered squares), and every apply program re-merges its image's
whole chunk table. torch.compile spends about 33 us in three reduction kernels (the first with 75 %
of its sectors wasted by an uncoalesced channel-group read) and 22.1 us in a flat elementwise
kernel near the copy bandwidth.

Here the statistics take one pass over x and the apply is that flat elementwise kernel:
- `_stats`, PROGRAMS_PER_SM x SM-count programs over (image, chunk of pixels), at most MAX_CHUNKS
  chunks per image. A program reads its slab as [pixels, groups, channels per group] tiles of whole
  pixel rows and keeps, per lane, the sums of x - K and (x - K)^2, where K is the channel's value at
  the slab's first pixel (the shifted-data variance: no cancellation while K lies within a few
  standard deviations of the mean). No reduction crosses threads inside the loop. At the end the
  lanes are folded into per-channel means and centered M2, and those into per-group ones (Chan's
  formula over channels of equal count), written to a [batch, chunks, groups] table.
- `_merge`, one small program per (image, group), loads that group's whole column of the table at
  once (at most 1024 chunks), merges it by Chan's formula and writes the group's channels' scale
  w * rstd and shift b - mean * w * rstd.
- `_apply` streams each image as a flat array, y = x * scale[ch] + shift[ch] with ch = offset % c,
  c a compile-time constant so the modulo is a multiply and shift. APPLY_REVERSE walks the blocks
  from the end: the statistics pass read the end of x last, so that part is the likeliest to still
  be in L2; KEEP_IN_L2 marks the statistics pass's loads evict_last and the apply's evict_first.
MIN_TILES caps the chunk count so that each statistics program walks at least that many tiles.
TWO_TILES loads two tiles per step, both issued before either is summed, for twice the bytes in
flight per program without larger accumulators. It was added after the GPU runs below and is not
measured, so it is off by default; the tuner may try it. ROW_LOADS > 0 (also unmeasured, also off)
replaces the [pixels, groups, cpg] tile by ROW_LOADS single-pixel rows per step, unrolled, summed
into [groups, cpg] accumulators: no closing reduction crosses warps, only the fold into groups.
Inductor's statistics kernel at 2x4096x320 (7.65 us under Nsight Compute, against this kernel's
19.9) likewise reduces pixel blocks per channel first.

Measured on the H100 (2026-12-06, docs/results/h100-2026-12-06-s35; torch.compile timed in the same
run each time). All versions were correct at every shape and held-out shape.
- **First version.** It merged inside the statistics kernel, in the program that arrived last at an
  atomic counter, MERGE_R chunks per step. Measured with `tools/h200_suite_bench.sh --kernels`:
  - vae-decoder-1x65536x128-g32: 56.83 us against 53.66 (pixel_slab_all_groups took 71.04).
  - The SD-UNet shapes: 39.97, 49.78 and 26.19 us. The one program's serial merge, two passes of L2
    round trips over up to 512 chunks, outweighed the rest.
- **With the merge kernel, before MIN_TILES**, same command:
  - 32.86, 37.66 and 12.13 us at the SD-UNet shapes against 21.90, 22.30 and 12.39 (0.67x, 0.59x,
    1.02x).
  - 48.99 at the VAE shape (1.10x).
  - Nsight Compute (`aka profile`) put most of the time in `_stats`: 27.0 of 36.5 us at 2x1024x640
    and 19.9 of 31.8 at 2x4096x320. It had 96 registers and 22 % occupancy, and 40 % and 26 % of
    its stalls were mio_throttle.
  - Each of its 512 programs walked only two to four tiles and then ran several reductions that
    cross warps through shared memory. That points at those closing reductions.
  - Loading K in the tile's own layout, against a suspected per-step layout conversion, was no
    faster (34.80 and 44.61 against 32.21 and 36.75 in one call), so it was dropped.
- **MIN_TILES**, each variant through `aka eval --shape ... --baseline torch.compile`, all in one
  call (2x4096x320, 2x1024x640, VAE, in us):

  | variant | 2x4096x320 | 2x1024x640 | VAE |
  |---|---|---|---|
  | MIN_TILES 8 (the default) | 29.52 (compile 23.71) | 30.54 (23.09) | 49.28 (53.12) |
  | MIN_TILES 4 | 32.19 | 30.54 | 49.60 |
  | MIN_TILES 16 | 37.22 | 44.80 | 59.55 |
  | PROGRAMS_PER_SM 8 | 29.73 | 31.52 | 48.18 |
  | without MIN_TILES | 31.07 | 36.48 | 49.79 |

So this kernel beats torch.compile at the VAE shape (1.08x here, 1.10x in the suite run) and still
loses at 2x4096x320 and 2x1024x640 (0.80x and 0.76x), where pixel_slab_all_groups and
split_hw_chan_merge stay the faster kernels.

The next thing to try: a [pixels, channels] tile with one lane per channel, folded into groups once
per program, instead of the padded [pixels, groups, channels per group] tile. Up to 37.5 % of that
tile's lanes are masked at these channel counts.

Checked in Triton's interpreter at the operator's CPU shapes (tests/reference_kernels), and by a
script at 25 sampled parameter combinations, each shape run twice.
"""

import torch
import triton
import triton.language as tl

PROGRAMS_PER_SM = 4
TILE_ELEMS = 2048
MAX_CHUNKS = 512
MIN_TILES = 8
TWO_TILES = 0
ROW_LOADS = 0
MERGE_WARPS = 2
APPLY_BLOCK = 2048
APPLY_REVERSE = 1
KEEP_IN_L2 = 1
NUM_WARPS = 4

_SM_COUNTS: dict = {}


@triton.jit
def _stats(x_ptr, mean_ptr, m2_ptr, hw, c, cpg, groups, n_chunks, chunk_hw,
           BLOCK_HW: tl.constexpr, BLOCK_GR: tl.constexpr, BLOCK_CPG: tl.constexpr, EVICT: tl.constexpr,
           TWO_TILES: tl.constexpr, ROW_LOADS: tl.constexpr):
    img = tl.program_id(0)
    chunk = tl.program_id(1)
    g = tl.arange(0, BLOCK_GR)
    g_ok = g < groups
    j = tl.arange(0, BLOCK_CPG)
    ch = g[:, None] * cpg + j[None, :]                                  # [groups, cpg] channel ids
    ch_ok = g_ok[:, None] & (j[None, :] < cpg)
    base = img.to(tl.int64) * hw * c
    p_start = chunk * chunk_hw
    p_end = tl.minimum(p_start + chunk_hw, hw)
    shift = tl.load(x_ptr + base + p_start * c + ch, mask=ch_ok, other=0.0).to(tl.float32)
    if ROW_LOADS:
        # BLOCK_HW single-pixel [groups, cpg] rows per step, unrolled: their loads are independent of
        # each other and of the sums, and the sums have no pixel axis left to reduce across warps
        c1 = tl.zeros([BLOCK_GR, BLOCK_CPG], dtype=tl.float32)
        c2 = tl.zeros([BLOCK_GR, BLOCK_CPG], dtype=tl.float32)
        for p0 in range(p_start, p_end, BLOCK_HW):
            for i in tl.static_range(BLOCK_HW):
                ok_row = ch_ok & (p0 + i < p_end)
                xr = tl.load(x_ptr + base + (p0 + i) * c + ch, mask=ok_row, other=0.0,
                             eviction_policy=EVICT).to(tl.float32)
                dr = tl.where(ok_row, xr - shift, 0.0)
                c1 += dr
                c2 += dr * dr
    else:
        pix = tl.arange(0, BLOCK_HW)
        s1 = tl.zeros([BLOCK_HW, BLOCK_GR, BLOCK_CPG], dtype=tl.float32)
        s2 = tl.zeros([BLOCK_HW, BLOCK_GR, BLOCK_CPG], dtype=tl.float32)
        for p0 in range(p_start, p_end, BLOCK_HW * (1 + TWO_TILES)):
            p = p0 + pix
            ok = (p[:, None, None] < p_end) & ch_ok[None, :, :]
            x = tl.load(x_ptr + base + p[:, None, None] * c + ch[None, :, :], mask=ok, other=0.0,
                        eviction_policy=EVICT).to(tl.float32)
            if TWO_TILES:                             # a second tile's load issued before the first is used
                q = p + BLOCK_HW
                ok_q = (q[:, None, None] < p_end) & ch_ok[None, :, :]
                xq = tl.load(x_ptr + base + q[:, None, None] * c + ch[None, :, :], mask=ok_q, other=0.0,
                             eviction_policy=EVICT).to(tl.float32)
                dq = tl.where(ok_q, xq - shift[None, :, :], 0.0)
                s1 += dq
                s2 += dq * dq
            d = tl.where(ok, x - shift[None, :, :], 0.0)
            s1 += d
            s2 += d * d
        c1 = tl.sum(s1, axis=0)                                         # [groups, cpg] per channel
        c2 = tl.sum(s2, axis=0)
    n_pix = (p_end - p_start).to(tl.float32)
    m2_ch = tl.where(ch_ok, c2 - c1 * c1 / n_pix, 0.0)                 # channel's centered M2
    mean_ch = shift + c1 / n_pix
    mean_g = tl.sum(tl.where(ch_ok, mean_ch, 0.0), axis=1) / cpg.to(tl.float32)  # channels share one count
    dm = tl.where(ch_ok, mean_ch - mean_g[:, None], 0.0)
    m2_g = tl.sum(m2_ch, axis=1) + n_pix * tl.sum(dm * dm, axis=1)
    slot = (img * n_chunks + chunk) * groups + g
    tl.store(mean_ptr + slot, mean_g, mask=g_ok)
    tl.store(m2_ptr + slot, m2_g, mask=g_ok)


@triton.jit
def _merge(mean_ptr, m2_ptr, w_ptr, b_ptr, ss_ptr, hw, c, cpg, groups, n_chunks, chunk_hw, eps,
           BLOCK_K: tl.constexpr, BLOCK_CPG: tl.constexpr):
    img = tl.program_id(0)
    g = tl.program_id(1)
    k = tl.arange(0, BLOCK_K)
    ok = k < n_chunks
    offs = (img * n_chunks + k) * groups + g
    n_i = tl.where(ok, (tl.minimum(chunk_hw, hw - k * chunk_hw) * cpg).to(tl.float32), 0.0)
    mean_i = tl.load(mean_ptr + offs, mask=ok, other=0.0)
    m2_i = tl.load(m2_ptr + offs, mask=ok, other=0.0)
    n = (hw * cpg).to(tl.float32)
    mean = tl.sum(n_i * mean_i, axis=0) / n
    dm = mean_i - mean
    m2 = tl.sum(m2_i + n_i * dm * dm, axis=0)
    rstd = 1.0 / tl.sqrt(m2 / n + eps)
    j = tl.arange(0, BLOCK_CPG)
    ch_ok = j < cpg
    ch = g * cpg + j
    w = tl.load(w_ptr + ch, mask=ch_ok, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + ch, mask=ch_ok, other=0.0).to(tl.float32)
    scale = w * rstd
    tl.store(ss_ptr + img * 2 * c + ch, scale, mask=ch_ok)
    tl.store(ss_ptr + img * 2 * c + c + ch, b - mean * scale, mask=ch_ok)


@triton.jit
def _apply(x_ptr, ss_ptr, y_ptr, per_img, n_blocks, C: tl.constexpr, BLOCK: tl.constexpr, REVERSE: tl.constexpr,
           EVICT: tl.constexpr):
    blk = tl.program_id(0)
    if REVERSE:
        blk = n_blocks - 1 - blk
    img = tl.program_id(1)
    offs = blk * BLOCK + tl.arange(0, BLOCK)
    ok = offs < per_img
    ch = offs % C
    base = img.to(tl.int64) * per_img
    x = tl.load(x_ptr + base + offs, mask=ok, other=0.0, eviction_policy=EVICT).to(tl.float32)
    scale = tl.load(ss_ptr + img * 2 * C + ch, mask=ok, other=0.0)
    shift = tl.load(ss_ptr + img * 2 * C + C + ch, mask=ok, other=0.0)
    tl.store(y_ptr + base + offs, (x * scale + shift).to(y_ptr.dtype.element_ty), mask=ok)


def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return 132                                # the interpreter plans as for an H100/H200
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _SM_COUNTS:
        _SM_COUNTS[index] = torch.cuda.get_device_properties(index).multi_processor_count
    return _SM_COUNTS[index]


def _plan(batch: int, hw: int, c: int, groups: int, sms: int) -> tuple[int, int, int, int, int]:
    """(BLOCK_GR, BLOCK_CPG, BLOCK_HW, chunk pixels, chunks per image)."""
    block_gr = triton.next_power_of_2(groups)
    block_cpg = triton.next_power_of_2(c // groups)
    block_hw = ROW_LOADS if ROW_LOADS else max(1, TILE_ELEMS // (block_gr * block_cpg))
    want = max(1, min(MAX_CHUNKS, triton.cdiv(PROGRAMS_PER_SM * sms, batch)))
    # a program's closing reductions cross warps through shared memory: give it MIN_TILES tiles to
    # amortize them over, though the grid then falls short of the occupancy target
    want = max(1, min(want, hw // (block_hw * MIN_TILES)))
    per = triton.cdiv(hw, want)
    if per < block_hw:                            # slabs shorter than a tile: shorter tiles
        block_hw = triton.next_power_of_2(per)
    chunk_hw = triton.cdiv(per, block_hw) * block_hw
    return block_gr, block_cpg, block_hw, chunk_hw, triton.cdiv(hw, chunk_hw)


class ModelNew(torch.nn.Module):
    def __init__(self, c: int, groups: int):
        super().__init__()
        self.groups = groups
        self.weight = torch.nn.Parameter(torch.empty(c))
        self.bias = torch.nn.Parameter(torch.empty(c))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        batch, hw, c = x.shape
        y = torch.empty_like(x)
        if x.numel() == 0:
            return y
        cpg = c // self.groups
        block_gr, block_cpg, block_hw, chunk_hw, n_chunks = _plan(batch, hw, c, self.groups, _sm_count(x.device))
        mean = torch.empty((batch, n_chunks, self.groups), dtype=torch.float32, device=x.device)
        m2 = torch.empty_like(mean)
        ss = torch.empty((batch, 2, c), dtype=torch.float32, device=x.device)
        _stats[(batch, n_chunks)](x, mean, m2, hw, c, cpg, self.groups, n_chunks, chunk_hw, BLOCK_HW=block_hw,
                                  BLOCK_GR=block_gr, BLOCK_CPG=block_cpg, EVICT="evict_last" if KEEP_IN_L2 else "",
                                  TWO_TILES=TWO_TILES, ROW_LOADS=ROW_LOADS > 0,
                                  num_warps=NUM_WARPS)
        _merge[(batch, self.groups)](mean, m2, self.weight, self.bias, ss, hw, c, cpg, self.groups, n_chunks, chunk_hw,
                                     1e-5, BLOCK_K=triton.next_power_of_2(n_chunks), BLOCK_CPG=block_cpg,
                                     num_warps=MERGE_WARPS)
        n_blocks = triton.cdiv(hw * c, APPLY_BLOCK)
        _apply[(n_blocks, batch)](x, ss, y, hw * c, n_blocks, C=c, BLOCK=APPLY_BLOCK, REVERSE=APPLY_REVERSE,
                                  EVICT="evict_first" if KEEP_IN_L2 else "", num_warps=NUM_WARPS)
        return y
