"""
---
op: elementwise_fused
strategy: unfused-one-kernel-per-op
techniques: [no-fusion, intermediate-buffers, flat-1d-grid, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK: {values: [256, 512, 1024, 2048, 4096], default: 1024}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://triton-lang.org/main/getting-started/tutorials/01-vector-add.html
---
The counter-example, kept so the cost of not fusing can be measured: three kernels, one per
operation, as eager PyTorch runs them: u = x * scale, v = u + shift, y = v * sigmoid(v), each
intermediate written to memory in the tensor's dtype and read back by the next kernel. That is
three reads and three writes of the tensor plus three launches instead of one read and one write,
so on large tensors it runs at about a third of the fused kernels' speed, and each intermediate is
rounded to the storage dtype (exactly the rounding eager mode does). Never the right choice for
elementwise chains; its only merit is that each kernel is trivial.
"""

import torch
import triton
import triton.language as tl

BLOCK = 1024
NUM_WARPS = 4


@triton.jit
def _mul_cols(x_ptr, s_ptr, u_ptr, n, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    s = tl.load(s_ptr + offs % n_cols, mask=mask, other=0.0)
    tl.store(u_ptr + offs, (x * s).to(u_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _add_cols(u_ptr, b_ptr, v_ptr, n, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    u = tl.load(u_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs % n_cols, mask=mask, other=0.0)
    tl.store(v_ptr + offs, (u + b).to(v_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _silu(v_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(v_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (v * tl.sigmoid(v)).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, n_cols: int):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.empty(n_cols))
        self.shift = torch.nn.Parameter(torch.empty(n_cols))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xc = x.contiguous()
        n, n_cols = xc.numel(), x.shape[-1]
        u = torch.empty_like(xc)
        v = torch.empty_like(xc)
        y = torch.empty_like(xc)
        if n > 0:
            grid = (triton.cdiv(n, BLOCK),)
            _mul_cols[grid](xc, self.scale, u, n, n_cols, BLOCK=BLOCK, num_warps=NUM_WARPS)
            _add_cols[grid](u, self.shift, v, n, n_cols, BLOCK=BLOCK, num_warps=NUM_WARPS)
            _silu[grid](v, y, n, BLOCK=BLOCK, num_warps=NUM_WARPS)
        return y
