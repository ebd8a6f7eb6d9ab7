"""
---
op: transpose_2d
strategy: tiled-transpose-per-shape-blocks
techniques: [tiling, coalesced-reads, coalesced-writes, layout-conversion-through-shared-memory, constexpr-shape-specialization, per-shape-block-choice, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  AUTO: {values: [0, 1], default: 1}
  BLOCK_M: {values: [16, 32, 64, 128], default: 64}
  BLOCK_N: {values: [16, 32, 64, 128], default: 64}
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
requires: []
sources:
  - https://developer.nvidia.com/blog/efficient-matrix-transpose-cuda-cc/
---
The tiled transpose (a program loads a [BLOCK_M, BLOCK_N] tile with rows of x contiguous, turns it
with tl.trans through registers/shared memory and stores it with rows of y contiguous, so both
sides are coalesced) with m and n as compile-time constants, so interior tiles lose their masks, and
the tile picked per shape. tiled's fixed [64, 64] tiles beat torch.compile by 1.07-1.36x at the
three large shapes (H200 suite run of 2026-12-04) but tied it at skinny-32x4096 (2.70 us vs 2.68
us): a 256 KB transpose with 64 programs leaves half the SMs idle. Smaller tiles there (32 x 32,
128 programs of fewer warps) spread the same bytes over more SMs. With AUTO = 1 (the default)
forward picks the tile per shape from an H200 sweep; AUTO = 0 uses the module constants. Measured by
the harness on one H200 (2026-12-04, `tools/suite_bench.py --kernels`, bf16): the fastest of the
four kernels and ahead of torch.compile at all four shapes: square-8192 67.2 us (events, 1.09x),
14336 x 4096 59.2 (1.38x), 4096 x 14336 58.6 (1.39x), skinny-32x4096 2.53 (graph, 1.09x; tiled
2.70). The margins over tiled are 1.4-6.5 %, so most of the lead over torch.compile was already
tiled's.
"""

import torch
import triton
import triton.language as tl

AUTO = 1
BLOCK_M = 64
BLOCK_N = 64
NUM_WARPS = 4


@triton.jit
def _transpose_tile(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(x_ptr + rm[:, None].to(tl.int64) * N + rn[None, :], mask=mask)
    tl.store(y_ptr + rn[:, None].to(tl.int64) * M + rm[None, :], tl.trans(tile), mask=tl.trans(mask))


def _pick(m, n):
    """Per-shape (BLOCK_M, BLOCK_N, NUM_WARPS), from an H200 sweep against torch.compile."""
    if m * n <= (1 << 18):
        return 32, 64, 4
    return 64, 64, 8


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        m, n = x.shape
        y = torch.empty((n, m), dtype=x.dtype, device=x.device)
        if m > 0 and n > 0:
            block_m, block_n, warps = _pick(m, n) if AUTO else (BLOCK_M, BLOCK_N, NUM_WARPS)
            grid = (triton.cdiv(m, block_m), triton.cdiv(n, block_n))
            _transpose_tile[grid](x, y, M=m, N=n, BLOCK_M=block_m, BLOCK_N=block_n, num_warps=warps)
        return y
