"""
---
op: cumsum_rows
strategy: multi-row-associative-scan
techniques: [multi-row-per-program, 2d-tile, associative-scan, custom-combine-fn, running-carry, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  ROWS: {values: [1, 2, 4, 8, 16], default: 4}
  BLOCK_N: {values: [64, 128, 256, 512, 1024], default: 256}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
  SHORT_ROWS: {values: [4, 8, 16], default: 8}
  SHORT_BLOCK_N: {values: [64, 128, 256], default: 128}
requires: []
sources:
  - https://triton-lang.org/main/python-api/generated/triton.language.associative_scan.html
---
A [ROWS, BLOCK_N] tile is scanned along axis 1 with tl.associative_scan and a user-written combine
function (here addition; the same skeleton scans max, products or (value, index) pairs for segmented
scans), and a per-row carry vector links consecutive column blocks. Packing several rows per program
suits many short rows (e.g. 16K rows of 256, MoE routing offsets per token group), where a
one-row program would leave most of its lanes and its latency hiding unused.
Session 39, tools/harness_probe.py on an H100 (interleaved timing): at short-rows-16k (256 columns)
the default [4, 256] tile took 11.14 us against torch.compile's 10.89 (graph), [8, 128] steps 10.64
against 10.89, [4, 128] 10.89; at rows-4k-4096 [8, 128] lost (60.00 against 51.24, events) where
the default won (47.78 against 51.37). Rows of at most 256 columns now take SHORT_ROWS=8 rows in
SHORT_BLOCK_N=128 steps; longer rows keep ROWS and BLOCK_N.
"""

import torch
import triton
import triton.language as tl

ROWS = 4
BLOCK_N = 256
NUM_WARPS = 4
SHORT_ROWS = 8
SHORT_BLOCK_N = 128
SHORT_COLS = 256  # rows this short take SHORT_ROWS rows a program in SHORT_BLOCK_N-column steps


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def _cumsum_scan_tile(x_ptr, y_ptr, n_rows, n_cols, x_stride, y_stride,
                      ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    row_mask = rows < n_rows
    cols = tl.arange(0, BLOCK_N)
    carry = tl.zeros([ROWS], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        idx = start + cols
        mask = row_mask[:, None] & (idx < n_cols)[None, :]
        x = tl.load(x_ptr + rows[:, None] * x_stride + idx[None, :], mask=mask, other=0.0).to(tl.float32)
        y = tl.associative_scan(x, 1, _add) + carry[:, None]
        tl.store(y_ptr + rows[:, None] * y_stride + idx[None, :], y.to(y_ptr.dtype.element_ty), mask=mask)
        # the next carry is the tile's last column (masked lanes scanned zeros). Not `carry +=
        # tl.sum(x, axis=1)`: with Triton 3.6 on sm_90 that accumulate-a-reduction-in-a-loop form,
        # next to the scan, fails in the TritonGPUOptimizeThreadLocality pass.
        carry = tl.sum(tl.where(cols[None, :] == BLOCK_N - 1, y, 0.0), axis=1)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        y = torch.empty_like(x2)
        n_rows = x2.shape[0]
        if n_rows > 0 and n_cols > 0:
            rows, block_n = (SHORT_ROWS, SHORT_BLOCK_N) if n_cols <= SHORT_COLS else (ROWS, BLOCK_N)
            _cumsum_scan_tile[(triton.cdiv(n_rows, rows),)](
                x2, y, n_rows, n_cols, x2.stride(0), y.stride(0), ROWS=rows, BLOCK_N=block_n,
                num_warps=NUM_WARPS)
        return y.view(x.shape)
