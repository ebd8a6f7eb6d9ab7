"""
---
op: softmax
strategy: three-pass-max-sum-normalize
techniques: [column-blocking, fp32-accumulate, masked-tail, numerically-stable-max]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_N: {values: [512, 1024, 2048, 4096, 8192], default: 2048}
  NUM_WARPS: {values: [2, 4, 8, 16], default: 8}
requires: []
sources:
  - https://arxiv.org/abs/1805.02867 (Milakov & Gimelshein, the safe-softmax baseline)
---
The classic safe softmax, one program per row in BLOCK_N chunks: sweep one finds the row max, sweep
two sums exp(x - max), sweep three writes exp(x - max) / sum. Three reads and one write per
element, but each sweep is a trivially simple loop with no rescaling; when a row fits in L1/L2 the
extra reads are served from cache and it can match the online kernel. It is the baseline the online
normalizer improves on for long rows that stream from HBM.
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 2048
NUM_WARPS = 8


@triton.jit
def _softmax_three_pass(x_ptr, y_ptr, n_cols, BLOCK_N: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * n_cols
    m = tl.full([BLOCK_N], -float("inf"), tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + base + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        m = tl.maximum(m, x)
    row_max = tl.max(m, axis=0)
    s = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + base + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        s += tl.exp(x - row_max)
    inv_sum = 1.0 / tl.sum(s, axis=0)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < n_cols
        x = tl.load(x_ptr + base + cols, mask=mask, other=-float("inf")).to(tl.float32)
        tl.store(y_ptr + base + cols, (tl.exp(x - row_max) * inv_sum).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        y = torch.empty_like(x2)
        if x2.shape[0] > 0:
            _softmax_three_pass[(x2.shape[0],)](x2, y, n_cols, BLOCK_N=BLOCK_N, num_warps=NUM_WARPS)
        return y.view(x.shape)
