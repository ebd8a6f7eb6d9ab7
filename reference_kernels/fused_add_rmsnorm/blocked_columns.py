"""
---
op: fused_add_rmsnorm
strategy: blocked-columns-two-sweep
techniques: [kernel-fusion, column-blocking, fp32-accumulate, masked-tail, l2-reuse]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_N: {values: [256, 512, 1024, 2048, 4096], default: 1024}
  NUM_WARPS: {values: [2, 4, 8, 16], default: 4}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/csrc/layernorm_kernels.cu (fused_add_rms_norm semantics)
---
One program per row, BLOCK_N columns at a time. The first sweep adds x and residual, writes the
rounded sum to residual_out and accumulates its sum of squares; the second sweep reads residual_out
back (it was just written by the same program, so it is normally still in L2) and writes the
normalized, weighted row. Register use is fixed by BLOCK_N for any hidden size, at the price of a
second read of the row from cache; prefer it for long rows or when the whole-row kernel spills.
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 1024
NUM_WARPS = 4


@triton.jit
def _add_rmsnorm_blocked(x_ptr, r_ptr, w_ptr, y_ptr, ro_ptr, n_cols, eps, BLOCK_N: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * n_cols
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < n_cols
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
        r = tl.load(r_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
        s = (x + r).to(ro_ptr.dtype.element_ty)
        tl.store(ro_ptr + base + cols, s, mask=mask)
        s = s.to(tl.float32)
        acc += s * s
    inv_rms = tl.rsqrt(tl.sum(acc, axis=0) / n_cols + eps)
    tl.debug_barrier()
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < n_cols
        s = tl.load(ro_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + base + cols, (s * inv_rms * w).to(y_ptr.dtype.element_ty), mask=mask)


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
            _add_rmsnorm_blocked[(x2.shape[0],)](
                x2, r2, self.weight, y, ro, hidden, self.eps, BLOCK_N=BLOCK_N, num_warps=NUM_WARPS,
            )
        return y.view(x.shape), ro.view(x.shape)
