"""
---
op: cumsum_flat
strategy: three-phase-reduce-scan-scan
techniques: [reduce-then-scan, three-kernel, tile-partials, single-program-scan, carry, tl-cumsum, deterministic, fp32-accumulate, masked-tail]
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
  - https://research.nvidia.com/publication/2016-03_single-pass-parallel-prefix-scan-decoupled-look-back
---
The classic device-wide scan in three launches, with no inter-program communication: (1) every
tile writes its total to a partials vector; (2) one program scans the partials into exclusive tile
offsets, BLOCK_P at a time with a running carry (a 16M vector in 2048-wide tiles has only 8192
partials, so one program suffices); (3) every tile rescans its elements with tl.cumsum and adds its
offset. x is read twice and y written once (3n traffic against the single-pass scan's 2n), plus two
extra launches; in exchange it needs no atomics, flags or spinning, is bitwise deterministic, and
is the pattern to fall back on where forward progress between programs is not guaranteed.
"""

import torch
import triton
import triton.language as tl

BLOCK = 2048
BLOCK_P = 1024
NUM_WARPS = 8


@triton.jit
def _tile_sums(x_ptr, part_ptr, n, BLOCK: tl.constexpr):
    tile = tl.program_id(0)
    offs = tile.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    tl.store(part_ptr + tile, tl.sum(x, axis=0))


@triton.jit
def _scan_partials(part_ptr, n_tiles, BLOCK_P: tl.constexpr):
    carry = tl.zeros([], dtype=tl.float32)
    idx = tl.arange(0, BLOCK_P)
    for start in range(0, n_tiles, BLOCK_P):
        i = start + idx
        mask = i < n_tiles
        p = tl.load(part_ptr + i, mask=mask, other=0.0)
        incl = tl.cumsum(p, axis=0)
        tl.store(part_ptr + i, incl - p + carry, mask=mask)  # exclusive offsets, in place
        carry += tl.sum(p, axis=0)


@triton.jit
def _scan_tiles(x_ptr, y_ptr, part_ptr, n, BLOCK: tl.constexpr):
    tile = tl.program_id(0)
    offs = tile.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.cumsum(x, axis=0) + tl.load(part_ptr + tile)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        n = x.shape[0]
        y = torch.empty_like(x)
        if n > 0:
            n_tiles = triton.cdiv(n, BLOCK)
            partials = torch.empty(n_tiles, dtype=torch.float32, device=x.device)
            _tile_sums[(n_tiles,)](x, partials, n, BLOCK=BLOCK, num_warps=NUM_WARPS)
            _scan_partials[(1,)](partials, n_tiles, BLOCK_P=BLOCK_P, num_warps=NUM_WARPS)
            _scan_tiles[(n_tiles,)](x, y, partials, n, BLOCK=BLOCK, num_warps=NUM_WARPS)
        return y
