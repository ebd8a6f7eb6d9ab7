"""
---
op: scatter_add_rows
strategy: init-then-atomic-add
techniques: [atomics, index-driven-store, init-kernel, 2d-tile, int64-offsets, masked-tail, non-deterministic]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_R: {values: [1, 2, 4, 8, 16], default: 1}
  BLOCK_D: {values: [64, 128, 256, 512, 1024], default: 512}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://triton-lang.org/main/python-api/generated/triton.language.atomic_add.html
  - https://pytorch.org/docs/stable/notes/randomness.html
---
A first kernel zeroes the output (fresh memory is not zero, and rows nobody scatters to must read
0); the second walks the source in [BLOCK_R, BLOCK_D] tiles, loads the BLOCK_R target indices as a
vector and adds each tile row into its target row with tl.atomic_add. Reads of src are coalesced and
the atomics of one tile row are contiguous, so the L2 can combine them; contention only appears
when many source rows hit the same target at once. It is one pass over the data and independent of
the index distribution, which is why torch's index_add_ on CUDA works this way. The order in which
atomics land changes from run to run, so fp32 sums are not bitwise deterministic (they differ in the
last bits); use the owner-computes kernel when reproducibility matters.
Session 39, tools/harness_probe.py on an H100 at all four shapes (each against torch.compile timed
interleaved with it): BLOCK_R=4 took 574.30, 178.55, 8.89 and 29.09 us (1.20, 1.31, 0.97, 0.97x);
BLOCK_R=1 569.71, 172.31, 8.77 and 27.36 (1.21, 1.36, 0.99, 1.03x); BLOCK_R=2 0.95x at the decode
shape. BLOCK_R is now 1: one source row a program, more programs in flight for the same bytes.
torch.compile's kernel at the decode shape (Inductor's autotune record) is a zero-fill kernel, then
a flat pointwise kernel of relaxed float atomics, 512 elements on 8 warps.
"""

import torch
import triton
import triton.language as tl

BLOCK_R = 1
BLOCK_D = 512
NUM_WARPS = 4


@triton.jit
def _zero_rows(y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.zeros([BLOCK], dtype=y_ptr.dtype.element_ty), mask=offs < n)


@triton.jit
def _scatter_add_tile(src_ptr, idx_ptr, y_ptr, n_src, d, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    row_mask = rows < n_src
    dst = tl.load(idx_ptr + rows, mask=row_mask, other=0).to(tl.int64)
    mask = row_mask[:, None] & (cols < d)[None, :]
    v = tl.load(src_ptr + rows[:, None] * d + cols[None, :], mask=mask, other=0.0)
    tl.atomic_add(y_ptr + dst[:, None] * d + cols[None, :], v, mask=mask, sem="relaxed")


class ModelNew(torch.nn.Module):
    def __init__(self, n_out: int):
        super().__init__()
        self.n_out = n_out

    def forward(self, src: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        src = src.contiguous()
        index = index.contiguous()
        n_src, d = src.shape
        y = torch.empty((self.n_out, d), dtype=src.dtype, device=src.device)
        if self.n_out * d > 0:
            _zero_rows[(triton.cdiv(self.n_out * d, 1024),)](y, self.n_out * d, BLOCK=1024, num_warps=4)
        if n_src > 0 and d > 0:
            grid = (triton.cdiv(n_src, BLOCK_R), triton.cdiv(d, BLOCK_D))
            _scatter_add_tile[grid](src, index, y, n_src, d, BLOCK_R=BLOCK_R, BLOCK_D=BLOCK_D, num_warps=NUM_WARPS)
        return y
