"""
---
op: layernorm
strategy: one-row-per-program
techniques: [whole-row-in-registers, fp32-accumulate, two-step-variance, masked-tail, single-pass]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  NUM_WARPS: {values: [1, 2, 4, 8, 16], default: 8}
requires: []
sources:
  - https://triton-lang.org/main/getting-started/tutorials/05-layer-norm.html
---
One program per row holds the whole row in registers: the mean is reduced first, then the variance
of the centred values (the two-step form, which avoids the cancellation of E[x^2] - E[x]^2 on rows
with a large mean), then the row is scaled and shifted and written. One read and one write per
element; the second reduction costs only register work. Best when the row fits in registers and
there are enough rows to fill the GPU.
"""

import torch
import triton
import triton.language as tl

NUM_WARPS = 8


@triton.jit
def _layernorm_row(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    xc = tl.where(mask, x - mean, 0.0)
    rstd = tl.rsqrt(tl.sum(xc * xc, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * n_cols + cols, (xc * rstd * w + b).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))
        self.bias = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = x.shape[-1]
        x2 = x.reshape(-1, hidden).contiguous()
        y = torch.empty_like(x2)
        if x2.shape[0] > 0:
            _layernorm_row[(x2.shape[0],)](x2, self.weight, self.bias, y, hidden, self.eps,
                                           BLOCK=triton.next_power_of_2(hidden), num_warps=NUM_WARPS)
        return y.view(x.shape)
