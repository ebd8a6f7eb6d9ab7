"""
---
op: bias_residual_add
strategy: flat-1d-elementwise
techniques: [elementwise, kernel-fusion, 1d-grid, index-arithmetic, constexpr-divisor, int32-indexing, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK: {values: [512, 1024, 2048, 4096, 8192], default: 2048}
  NUM_WARPS: {values: [2, 4, 8, 16], default: 8}
requires: []
sources:
  - https://github.com/NVIDIA/Megatron-LM/blob/main/megatron/core/fusions/fused_bias_dropout.py (bias_dropout_add)
---
The n_tokens * hidden elements are cut into equal BLOCK-sized pieces regardless of rows; the bias
index is the flat index modulo hidden. Every program moves the same number of bytes, which keeps
the tail even for odd hidden sizes and gives small decode batches as many programs as the bytes
allow, at the cost of one integer remainder per element and a gathered (but L1/L2-resident) bias
load. The remainder is kept cheap the way Inductor's generated code does it: hidden is a
compile-time constant (one compile per hidden size), so `idx % hidden` is a multiply and shift, and
the index is 32-bit unless the tensor needs 64 (before 2026-12-05 it was a 64-bit remainder by a
runtime value per element, a long instruction sequence that a one-row decode call waits on).
Measured by the harness on one H200 (2026-12-04, graph replay): at starcoder2-15b-decode-256 the
faster of the two kernels, 4.56 us, but 0.95x torch.compile's 4.34 us
(docs/results/h200-2026-12-04-suites/llm-inference.json). It has not been profiled with Nsight
Compute at that shape yet.
Measured after the change (H200, 2026-12-05, tools/suite_bench.py --redo, graph replay): no gain
at the decode shapes it was made for: phi-2-decode-1 2.48 us (2.44 before), starcoder2-15b-decode-256
4.61 (4.44), gptj-6b-decode-32 2.61 (2.44), against torch.compile's 2.30, 4.19 and 3.05 timed the
same run; prefill level (1.00-1.02x). So the 64-bit remainder was not what these shapes wait on;
not yet profiled.
"""

import torch
import triton
import triton.language as tl

BLOCK = 2048
NUM_WARPS = 8


@triton.jit
def _bias_residual_flat(x_ptr, r_ptr, b_ptr, y_ptr, n, hidden: tl.constexpr, BLOCK: tl.constexpr,
                        IDX64: tl.constexpr):
    pid = tl.program_id(0)
    if IDX64:
        pid = pid.to(tl.int64)
    idx = pid * BLOCK + tl.arange(0, BLOCK)
    mask = idx < n
    x = tl.load(x_ptr + idx, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + idx % hidden, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + idx, mask=mask, other=0.0).to(tl.float32)
    xb = (x + b).to(y_ptr.dtype.element_ty).to(tl.float32)
    tl.store(y_ptr + idx, (r + xb).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        hidden = x.shape[-1]
        x2 = x.reshape(-1, hidden).contiguous()
        r2 = residual.reshape(-1, hidden).contiguous()
        y = torch.empty_like(x2)
        n = y.numel()
        if n > 0:
            grid = triton.cdiv(n, BLOCK)
            _bias_residual_flat[(grid,)](x2, r2, self.bias, y, n, hidden, BLOCK=BLOCK,
                                         IDX64=grid * BLOCK >= 2**31, num_warps=NUM_WARPS)
        return y.view(x.shape)
