"""
---
op: outer_product
strategy: 2d-output-tile
techniques: [2d-tile, 2d-grid, broadcast, write-bound, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_M: {values: [8, 16, 32, 64, 128], default: 32}
  BLOCK_N: {values: [32, 64, 128, 256, 512], default: 256}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://pytorch.org/docs/stable/generated/torch.outer.html
---
Each program loads BLOCK_M values of a and BLOCK_N values of b (a few hundred bytes) and writes
the BLOCK_M x BLOCK_N tile of products, so reads are negligible and the kernel is a pure
write stream: its ceiling is write bandwidth (about 0.7 of the HBM datasheet on the H200 in
DESIGN.md's measurements), not copy bandwidth. Wide BLOCK_N keeps each row's store one long
contiguous run; the products are computed in fp32 and rounded once, exactly as torch does.
Measured by the harness on one H200 (2026-12-04, graph replay): at small-256x4096 the fastest of the
three kernels, 3.42 us, but 0.87x torch.compile's 2.98 us
(docs/results/h200-2026-12-04-suites/kernel-patterns.json). It has not been profiled with Nsight
Compute at that shape yet.
"""

import torch
import triton
import triton.language as tl

BLOCK_M = 32
BLOCK_N = 256
NUM_WARPS = 4


@triton.jit
def _outer_tile(a_ptr, b_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    a = tl.load(a_ptr + rm, mask=rm < M, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(y_ptr + rm[:, None].to(tl.int64) * N + rn[None, :], (a[:, None] * b[None, :]).to(y_ptr.dtype.element_ty),
             mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a = a.contiguous()
        b = b.contiguous()
        m, n = a.shape[0], b.shape[0]
        y = torch.empty((m, n), dtype=a.dtype, device=a.device)
        if m > 0 and n > 0:
            grid = (triton.cdiv(m, BLOCK_M), triton.cdiv(n, BLOCK_N))
            _outer_tile[grid](a, b, y, m, n, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=NUM_WARPS)
        return y
