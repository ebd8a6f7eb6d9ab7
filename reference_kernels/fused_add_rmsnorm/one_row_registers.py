"""
---
op: fused_add_rmsnorm
strategy: one-row-per-program
techniques: [kernel-fusion, whole-row-in-registers, fp32-accumulate, masked-tail, single-pass]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  NUM_WARPS: {values: [1, 2, 4, 8, 16], default: 8}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/csrc/layernorm_kernels.cu (fused_add_rms_norm semantics)
---
One program per row loads x and residual once, adds them, rounds the sum to the storage dtype (as
the unfused model does) and keeps it in registers: it is written out as residual_out and, in the
same pass, reduced to the fp32 sum of squares and normalized. Each byte moves once (two reads of
the row, two writes, one weight read), which is the whole point of fusing the add with the norm.
Best for many rows whose length fits in registers.
"""

import torch
import triton
import triton.language as tl

NUM_WARPS = 8


@triton.jit
def _add_rmsnorm_row(x_ptr, r_ptr, w_ptr, y_ptr, ro_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = row * n_cols + tl.arange(0, BLOCK)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    s = (x + r).to(ro_ptr.dtype.element_ty)
    tl.store(ro_ptr + offs, s, mask=mask)
    s = s.to(tl.float32)
    inv_rms = tl.rsqrt(tl.sum(s * s, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (s * inv_rms * w).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x: torch.Tensor, residual: torch.Tensor):
        hidden = x.shape[-1]
        x2 = x.reshape(-1, hidden).contiguous()
        r2 = residual.reshape(-1, hidden).contiguous()
        y = torch.empty_like(x2)
        ro = torch.empty_like(x2)
        if x2.shape[0] > 0:
            _add_rmsnorm_row[(x2.shape[0],)](
                x2, r2, self.weight, y, ro, hidden, self.eps,
                BLOCK=triton.next_power_of_2(hidden), num_warps=NUM_WARPS,
            )
        return y.view(x.shape), ro.view(x.shape)
