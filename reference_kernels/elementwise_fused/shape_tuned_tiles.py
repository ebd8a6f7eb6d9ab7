"""
---
op: elementwise_fused
strategy: fused-tile-per-shape-blocks
techniques: [kernel-fusion, flat-1d-grid, broadcast-vector, fp32-compute, constexpr-shape-specialization, per-shape-block-choice, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  AUTO: {values: [0, 1], default: 1}
  BLOCK_M: {values: [1, 2, 4, 8], default: 4}
  BLOCK_N: {values: [128, 256, 512, 1024, 2048], default: 1024}
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
requires: []
sources:
  - https://triton-lang.org/main/getting-started/tutorials/01-vector-add.html
---
The fused kernel of fused_2d (one read of x, one write of y, t = x * scale + shift and t * sigmoid(t)
in fp32 registers, scale and shift loaded once per tile and broadcast over its rows) with the grid
flattened to one axis (column blocks fastest) and the tile chosen per shape. n_cols is a
compile-time constant, so full-width tiles drop their column masks. Nsight Compute on the H200
(docs/results/h200-2026-12-04-losers/kernel-patterns/elementwise_fused/llama3-8b-decode-32): our
fused_2d ran a (8, 4) grid, 32 programs of 128 threads with 48 registers, 6 % achieved occupancy,
3.3 us; torch.compile 256 programs of 256 threads (512 elements a program, 16 registers), 2.4 us.
A decode-size tensor (131K elements) has to be spread over at least as many programs as SMs,
with few elements a thread, to hide the DRAM latency; prefill sizes keep the large [4, 1024] tiles
that already beat torch.compile by 1.18-1.21x. With AUTO = 1 (the default) forward picks the tile
per shape from an H200 sweep; AUTO = 0 uses the module constants. Measured by the harness on one
H200 (2026-12-04, `tools/suite_bench.py --kernels`, bf16): prefill-16k 65.9 us (events, 1.24x
torch.compile) and mlp-prefill-4k 57.8 (1.27x), the fastest of the four kernels at both. The decode
tiles narrowed the gap without closing it: decode-32 2.94 us by graph replay, the fastest of ours
(fused_2d 3.33) but 0.76x torch.compile (2.23); 70b-decode-256 4.94 us, 0.94x torch.compile (4.64)
and behind fused_2d (4.83).
This kernel has not itself been profiled with Nsight Compute at decode-32 yet; the profile quoted
above is of fused_2d.
"""

import torch
import triton
import triton.language as tl

AUTO = 1
BLOCK_M = 4
BLOCK_N = 1024
NUM_WARPS = 4


@triton.jit
def _affine_silu_tile(x_ptr, s_ptr, b_ptr, y_ptr, n_rows, N_COLS: tl.constexpr, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr, EVEN_M: tl.constexpr, EVEN_N: tl.constexpr):
    n_col_blocks: tl.constexpr = (N_COLS + BLOCK_N - 1) // BLOCK_N
    pid = tl.program_id(0)
    rows = (pid // n_col_blocks).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (pid % n_col_blocks) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs = rows[:, None] * N_COLS + cols[None, :]
    if EVEN_N:
        s = tl.load(s_ptr + cols).to(tl.float32)
        b = tl.load(b_ptr + cols).to(tl.float32)
    else:
        s = tl.load(s_ptr + cols, mask=cols < N_COLS, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=cols < N_COLS, other=0.0).to(tl.float32)
    if EVEN_M and EVEN_N:
        x = tl.load(x_ptr + offs).to(tl.float32)
        t = x * s[None, :] + b[None, :]
        tl.store(y_ptr + offs, (t * tl.sigmoid(t)).to(y_ptr.dtype.element_ty))
    else:
        mask = (rows < n_rows)[:, None] & (cols < N_COLS)[None, :]
        x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        t = x * s[None, :] + b[None, :]
        tl.store(y_ptr + offs, (t * tl.sigmoid(t)).to(y_ptr.dtype.element_ty), mask=mask)


def _pick(n_rows, n_cols):
    """Per-shape (BLOCK_M, BLOCK_N, NUM_WARPS), from an H200 sweep against torch.compile."""
    n = n_rows * n_cols
    if n <= (1 << 22):
        return 1, 512, 4
    return 4, 1024, 4


class ModelNew(torch.nn.Module):
    def __init__(self, n_cols: int):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.empty(n_cols))
        self.shift = torch.nn.Parameter(torch.empty(n_cols))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        y = torch.empty_like(x2)
        n_rows = x2.shape[0]
        if n_rows > 0 and n_cols > 0:
            block_m, block_n, warps = _pick(n_rows, n_cols) if AUTO else (BLOCK_M, BLOCK_N, NUM_WARPS)
            block_n = min(block_n, triton.next_power_of_2(n_cols))
            grid = (triton.cdiv(n_rows, block_m) * triton.cdiv(n_cols, block_n),)
            _affine_silu_tile[grid](x2, self.scale, self.shift, y, n_rows, N_COLS=n_cols, BLOCK_M=block_m,
                                    BLOCK_N=block_n, EVEN_M=n_rows % block_m == 0, EVEN_N=n_cols % block_n == 0,
                                    num_warps=warps)
        return y.view(x.shape)
