"""
---
op: rmsnorm
strategy: one-row-per-program
techniques: [whole-row-in-registers, fp32-accumulate, masked-tail, single-pass]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  NUM_WARPS: {values: [1, 2, 4, 8, 16], default: 8}
requires: []
sources:
  - https://triton-lang.org/main/getting-started/tutorials/05-layer-norm.html
  - https://github.com/huggingface/transformers/blob/main/src/transformers/models/llama/modeling_llama.py (LlamaRMSNorm)
---
One program per row loads the whole row (padded to the next power of two, masked) into registers,
reduces the sum of squares in fp32, and writes the scaled row, so every byte is read and written
exactly once. It wins when the row fits comfortably in registers (hidden up to about 8-16K with
enough warps) and there are many rows to fill the GPU; for a handful of decode rows most SMs sit
idle and the launch dominates.
"""

import torch
import triton
import triton.language as tl

NUM_WARPS = 8


@triton.jit
def _rmsnorm_row(x_ptr, w_ptr, y_ptr, n_cols, x_stride, y_stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=0.0).to(tl.float32)
    inv_rms = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = x * inv_rms * w
    tl.store(y_ptr + row * y_stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = x.shape[-1]
        x2 = x.reshape(-1, hidden).contiguous()
        y = torch.empty_like(x2)
        n_rows = x2.shape[0]
        if n_rows > 0:
            _rmsnorm_row[(n_rows,)](
                x2, self.weight, y, hidden, x2.stride(0), y.stride(0), self.eps,
                BLOCK=triton.next_power_of_2(hidden), num_warps=NUM_WARPS,
            )
        return y.view(x.shape)
