"""
---
op: conv1d_depthwise_causal
strategy: row-per-program-window-tile
techniques: [stencil, window-tile, gather-2d, one-row-per-program, time-loop, fused-bias-activation, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_T: {values: [16, 32, 64, 128, 256], default: 128}
  CHUNK_T: {values: [256, 512, 1024, 2048, 4096], default: 1024}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://github.com/Dao-AILab/causal-conv1d
  - https://arxiv.org/abs/2312.00752
---
Program (batch x channel row, time chunk) owns one channel: it loads that channel's width weights
and bias once, then walks its CHUNK_T steps in BLOCK_T blocks. Each block is computed as a
[BLOCK_T, W] window tile (W = width rounded up to a power of two), x[t - (width - 1) + k] gathered
with 2D offsets and masked for the causal pad and for k >= width, multiplied by the weight row and
reduced with tl.sum over the taps. Per-channel programs load their weights once instead of once per
tile, and the chunk loop amortizes the program start over thousands of steps, which suits long
sequences with few channels; with many short rows (decode chunks of 16 steps) most of each block is
masked and the channel-tiled tap loop is better.
"""

import torch
import triton
import triton.language as tl

BLOCK_T = 128
CHUNK_T = 1024
NUM_WARPS = 4


@triton.jit
def _conv_window_rows(x_ptr, w_ptr, b_ptr, y_ptr, dim, seqlen, WIDTH: tl.constexpr, W_P2: tl.constexpr,
                      CHUNK_T: tl.constexpr, BLOCK_T: tl.constexpr):
    row = tl.program_id(0)
    c = row % dim
    base = row.to(tl.int64) * seqlen
    taps = tl.arange(0, W_P2)
    w = tl.load(w_ptr + c * WIDTH + taps, mask=taps < WIDTH, other=0.0).to(tl.float32)
    bias = tl.load(b_ptr + c).to(tl.float32)
    steps = tl.arange(0, BLOCK_T)
    t0 = tl.program_id(1) * CHUNK_T
    for t in range(t0, tl.minimum(t0 + CHUNK_T, seqlen), BLOCK_T):
        ts = t + steps
        t_src = ts[:, None] - (WIDTH - 1) + taps[None, :]
        mask = (taps[None, :] < WIDTH) & (t_src >= 0) & (t_src < seqlen)
        x = tl.load(x_ptr + base + t_src, mask=mask, other=0.0).to(tl.float32)
        acc = tl.sum(x * w[None, :], axis=1) + bias
        y = acc / (1.0 + tl.exp(-acc))
        tl.store(y_ptr + base + ts, y.to(y_ptr.dtype.element_ty), mask=ts < seqlen)


class ModelNew(torch.nn.Module):
    def __init__(self, dim: int, width: int):
        super().__init__()
        self.width = width
        self.weight = torch.nn.Parameter(torch.empty(dim, width))
        self.bias = torch.nn.Parameter(torch.empty(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        batch, dim, seqlen = x.shape
        y = torch.empty_like(x)
        if x.numel() > 0:
            chunk = max(CHUNK_T, BLOCK_T)
            grid = (batch * dim, triton.cdiv(seqlen, chunk))
            _conv_window_rows[grid](x, self.weight.contiguous(), self.bias, y, dim, seqlen, WIDTH=self.width,
                                    W_P2=triton.next_power_of_2(self.width), CHUNK_T=chunk, BLOCK_T=BLOCK_T,
                                    num_warps=NUM_WARPS)
        return y
