"""
---
op: stream_compaction
strategy: single-pass-look-back-compaction
techniques: [stream-compaction, single-pass-scan, decoupled-look-back, dynamic-tile-ticket, packed-flag-value, atomics, spin-wait, tl-cumsum, scatter-store, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK: {values: [64, 128, 256, 512, 1024, 2048, 4096], default: 2048}
  NUM_WARPS: {values: [2, 4, 8, 16], default: 8}
requires: []
sources:
  - https://research.nvidia.com/publication/2016-03_single-pass-parallel-prefix-scan-decoupled-look-back
  - https://github.com/NVIDIA/cccl/tree/main/cub
---
Compaction in one pass over x, as CUB's DeviceSelect does it: a tile from an atomic ticket counts
its flags, publishes the count (flag AGGREGATE, count in the low bits of one int64 status word,
written with atomic_xchg), looks back over its predecessors' words, adding aggregates until it
meets an INCLUSIVE prefix (and re-reading words not yet published), publishes its own inclusive
count, and scatters its selected positions to prefix + local exclusive prefix (tl.cumsum of the
flags). The last tile also knows the total: it writes the count and the -1 padding of
[total, n) in a grid-stride loop of its own. x is read once. Counts are integers, so where a
look-back stops cannot change the answer: exact and run-to-run identical.
"""

import torch
import triton
import triton.language as tl

BLOCK = 2048
NUM_WARPS = 8


@triton.jit
def _compact_lookback(x_ptr, idx_ptr, count_ptr, state_ptr, ticket_ptr, n, n_tiles, BLOCK: tl.constexpr):
    tile = tl.atomic_add(ticket_ptr, 1)
    lanes = tl.arange(0, BLOCK)
    offs = tile.to(tl.int64) * BLOCK + lanes
    in_range = offs < n
    x = tl.load(x_ptr + offs, mask=in_range, other=0.0)
    f = ((x > 0.5) & in_range).to(tl.int64)
    local = tl.sum(f, axis=0)
    # status word: flag (1 = tile count, 2 = inclusive count) << 32 | count
    tl.atomic_xchg(state_ptr + tile, (tl.where(tile == 0, 2, 1).to(tl.int64) << 32) | local)
    prefix = tl.zeros([], dtype=tl.int64)
    j = tile - 1
    while j >= 0:
        word = tl.atomic_add(state_ptr + j, 0)
        flag = word >> 32
        prefix += tl.where(flag > 0, word & 0xFFFFFFFF, 0)
        j = tl.where(flag == 2, -1, tl.where(flag == 1, j - 1, j))
    tl.atomic_xchg(state_ptr + tile, (2 << 32) | (prefix + local))
    slot = prefix + tl.cumsum(f, axis=0) - f
    tl.store(idx_ptr + slot, offs, mask=f > 0)
    if tile == n_tiles - 1:
        total = prefix + local
        tl.store(count_ptr, total)
        for start in range(total.to(tl.int32), n, BLOCK):
            pos = start + lanes
            tl.store(idx_ptr + pos, tl.full([BLOCK], -1, tl.int64), mask=pos < n)


@triton.jit
def _reset_scratch(state_ptr, ticket_ptr, count_ptr, n_tiles, BLOCK_R: tl.constexpr):
    """Zero the tile status words, the tile ticket and the count (an own kernel: no torch fill)."""
    pid = tl.program_id(0)
    offs = pid * BLOCK_R + tl.arange(0, BLOCK_R)
    tl.store(state_ptr + offs, tl.zeros([BLOCK_R], dtype=tl.int64), mask=offs < n_tiles)
    if pid == 0:
        tl.store(ticket_ptr, 0)
        tl.store(count_ptr, tl.zeros([], dtype=tl.int64))


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple:
        x = x.contiguous()
        n = x.shape[0]
        idx = torch.empty(n, dtype=torch.int64, device=x.device)
        count = torch.empty(1, dtype=torch.int64, device=x.device)
        n_tiles = triton.cdiv(n, BLOCK)
        state = torch.empty(max(n_tiles, 1), dtype=torch.int64, device=x.device)
        ticket = torch.empty(1, dtype=torch.int32, device=x.device)
        _reset_scratch[(max(1, triton.cdiv(n_tiles, 1024)),)](state, ticket, count, n_tiles, BLOCK_R=1024,
                                                              num_warps=4)
        if n > 0:
            _compact_lookback[(n_tiles,)](x, idx, count, state, ticket, n, n_tiles, BLOCK=BLOCK, num_warps=NUM_WARPS)
        return idx, count
