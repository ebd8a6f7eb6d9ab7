"""
---
op: stream_compaction
strategy: three-phase-count-scan-scatter
techniques: [stream-compaction, reduce-then-scan, three-kernel, tile-counts, single-program-scan, tl-cumsum, scatter-store, deterministic, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK: {values: [64, 128, 256, 512, 1024, 2048, 4096], default: 2048}
  BLOCK_P: {values: [64, 256, 1024, 4096], default: 1024}
  NUM_WARPS: {values: [2, 4, 8, 16], default: 8}
requires: []
sources:
  - https://developer.nvidia.com/gpugems/gpugems3/part-vi-gpu-computing/chapter-39-parallel-prefix-sum-scan-cuda
  - https://pytorch.org/docs/stable/generated/torch.nonzero.html
---
Compaction as reduce-then-scan: (1) each tile counts its selected elements; (2) one program turns
the tile counts into exclusive tile offsets (a running carry over BLOCK_P counts at a time) and
writes the total; (3) each tile recomputes its flags, takes the exclusive prefix of the flags
within the tile with tl.cumsum, and stores each selected position at tile offset + local prefix:
a scatter, but into one contiguous, increasing run per tile, so the writes still coalesce. The
same pass writes -1 to every slot of its own index range that lies at or beyond the total, so the
padding needs no extra kernel and no slot is written twice. x is read twice; integer counts make
the result exact and independent of any order.
"""

import torch
import triton
import triton.language as tl

BLOCK = 2048
BLOCK_P = 1024
NUM_WARPS = 8


@triton.jit
def _tile_counts(x_ptr, cnt_ptr, n, BLOCK: tl.constexpr):
    tile = tl.program_id(0)
    offs = tile.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(cnt_ptr + tile, tl.sum((x > 0.5).to(tl.int64), axis=0))


@triton.jit
def _scan_counts(cnt_ptr, total_ptr, n_tiles, BLOCK_P: tl.constexpr):
    carry = tl.zeros([], dtype=tl.int64)
    idx = tl.arange(0, BLOCK_P)
    for start in range(0, n_tiles, BLOCK_P):
        i = start + idx
        mask = i < n_tiles
        c = tl.load(cnt_ptr + i, mask=mask, other=0)
        tl.store(cnt_ptr + i, tl.cumsum(c, axis=0) - c + carry, mask=mask)  # exclusive offsets, in place
        carry += tl.sum(c, axis=0)
    tl.store(total_ptr, carry)


@triton.jit
def _scatter_positions(x_ptr, off_ptr, total_ptr, idx_ptr, n, BLOCK: tl.constexpr):
    tile = tl.program_id(0)
    offs = tile.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    in_range = offs < n
    x = tl.load(x_ptr + offs, mask=in_range, other=0.0)
    flag = (x > 0.5) & in_range
    f = flag.to(tl.int64)
    slot = tl.load(off_ptr + tile) + tl.cumsum(f, axis=0) - f
    tl.store(idx_ptr + slot, offs, mask=flag)
    total = tl.load(total_ptr)
    tl.store(idx_ptr + offs, tl.full([BLOCK], -1, tl.int64), mask=in_range & (offs >= total))


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple:
        x = x.contiguous()
        n = x.shape[0]
        idx = torch.empty(n, dtype=torch.int64, device=x.device)
        if n == 0:
            return idx, torch.zeros(1, dtype=torch.int64, device=x.device)
        count = torch.empty(1, dtype=torch.int64, device=x.device)  # _scan_counts writes the total
        if n > 0:
            n_tiles = triton.cdiv(n, BLOCK)
            offsets = torch.empty(n_tiles, dtype=torch.int64, device=x.device)
            _tile_counts[(n_tiles,)](x, offsets, n, BLOCK=BLOCK, num_warps=NUM_WARPS)
            _scan_counts[(1,)](offsets, count, n_tiles, BLOCK_P=BLOCK_P, num_warps=NUM_WARPS)
            _scatter_positions[(n_tiles,)](x, offsets, count, idx, n, BLOCK=BLOCK, num_warps=NUM_WARPS)
        return idx, count
