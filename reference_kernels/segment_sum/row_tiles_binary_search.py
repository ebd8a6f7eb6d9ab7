"""
---
op: segment_sum
strategy: balanced-row-tiles-binary-search-atomics
techniques: [load-balance, binary-search, segmented-reduction, atomic-add, zero-init, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_R: {values: [4, 8, 16, 32, 64, 128], default: 64}
  BLOCK_D: {values: [32, 64, 128, 256, 512], default: 128}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://research.nvidia.com/publication/2016-03_merge-based-parallel-sparse-matrix-vector-multiplication
  - https://triton-lang.org/main/python-api/generated/triton.language.atomic_add.html
---
Balances by work instead of by segment: program (row tile, column block) takes BLOCK_R consecutive
rows whatever segments they belong to, so every program does the same amount of loading. Each row
finds its segment by a vectorized binary search over the offsets (the largest s with
offsets[s] <= row; empty segments are skipped naturally), and since rows are sorted by segment the
tile holds a short run of segments seg_lo..seg_hi; the program sums the tile's rows of each in turn
(masked tl.sum over the rows) and adds that partial into out with one atomic per element. Only
segments cut by a tile boundary receive more than one add, which makes those rows not bitwise
deterministic (fp32 atomics in a run-dependent order; the error stays far inside the tolerance).
out is zeroed first by a small kernel of its own, so empty segments read 0 (a torch.zeros there was 12 %
of the device time at the decode shape on the H200, and the runtime proof counts it as foreign work). The merge-path idea in its simplest form: it wins on
skewed lengths (one long prompt among short ones) and on few segments with many rows.
"""

import torch
import triton
import triton.language as tl

BLOCK_R = 64
BLOCK_D = 128
NUM_WARPS = 4


@triton.jit
def _segment_sum_tiles(x_ptr, off_ptr, y_ptr, n_rows, n_seg, d, n_steps, BLOCK_R: tl.constexpr,
                       BLOCK_D: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    row_mask = rows < n_rows
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    col_mask = cols < d
    # upper bound: first s in [0, n_seg) with offsets[s] > row; the row's segment is the one before
    lo = tl.zeros([BLOCK_R], dtype=tl.int32)
    hi = tl.zeros([BLOCK_R], dtype=tl.int32) + n_seg
    for _ in range(n_steps):
        active = lo < hi
        mid = (lo + hi) // 2
        v = tl.load(off_ptr + mid, mask=active, other=0)
        right = active & (v <= rows)
        lo = tl.where(right, mid + 1, lo)
        hi = tl.where(active & (v > rows), mid, hi)
    seg = lo - 1
    mask = row_mask[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None].to(tl.int64) * d + cols[None, :], mask=mask, other=0.0).to(tl.float32)
    seg_lo = tl.min(tl.where(row_mask, seg, n_seg), axis=0)
    seg_hi = tl.max(tl.where(row_mask, seg, -1), axis=0)
    s = seg_lo
    while s <= seg_hi:
        part = tl.sum(tl.where((seg == s)[:, None], x, 0.0), axis=0)
        tl.atomic_add(y_ptr + s.to(tl.int64) * d + cols, part.to(y_ptr.dtype.element_ty), mask=col_mask)
        s += 1


@triton.jit
def _zero(y_ptr, numel, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.zeros([BLOCK], dtype=y_ptr.dtype.element_ty), mask=offs < numel)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        offsets = offsets.contiguous()
        n_seg = offsets.shape[0] - 1
        n_rows, d = x.shape
        y = torch.empty((n_seg, d), dtype=x.dtype, device=x.device)
        if y.numel() > 0:
            _zero[(triton.cdiv(y.numel(), 2048),)](y, y.numel(), BLOCK=2048, num_warps=4)
        if n_rows > 0 and n_seg > 0 and d > 0:
            grid = (triton.cdiv(n_rows, BLOCK_R), triton.cdiv(d, BLOCK_D))
            _segment_sum_tiles[grid](x, offsets, y, n_rows, n_seg, d, (n_seg + 1).bit_length(), BLOCK_R=BLOCK_R,
                                     BLOCK_D=BLOCK_D, num_warps=NUM_WARPS)
        return y
