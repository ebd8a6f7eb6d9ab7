"""
---
op: silu_and_mul
strategy: flat-1d-elementwise
techniques: [elementwise, 1d-grid, fp32-compute, masked-tail, index-arithmetic, constexpr-divisor, int32-indexing]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK: {values: [512, 1024, 2048, 4096, 8192], default: 2048}
  NUM_WARPS: {values: [2, 4, 8, 16], default: 8}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/vllm/model_executor/layers/activation.py (SiluAndMul)
---
The output is treated as one flat array of n_tokens*d elements cut into BLOCK-sized pieces, one
per program, regardless of row boundaries; each element finds its row and column by an integer
divide and reads the gate and up values from the interleaved input. Every program does the same
amount of work even when d is small or odd (no ragged last column block per row), at the cost of a
division per element and loads that break into two runs where a block straddles a row end. The
division is kept cheap as in Inductor's generated code: d is a compile-time constant (one compile
per width), so `idx // d` is a multiply and shift, and the index is 32-bit unless the input needs
64 (before 2026-12-05: a 64-bit division by a runtime value per element).
Measured by the harness on one H200 (2026-12-04): the fastest of the four kernels at
llama3-8b-decode-1 (2.48 us against torch.compile's 2.47, graph replay, 0.996x) and
mixtral-8x22b-tp4-prefill-16k (92.58 against 92.56 us, events, 0.9998x), level but below 1.0x
(docs/results/h200-2026-12-04-suites/llm-inference.json). It has not been profiled with Nsight
Compute at either shape yet.
Measured after the change (H200, 2026-12-05, tools/suite_bench.py, docs/results/h200-2026-12-05-s28/
suite-c): llama3-8b-decode-1 3.10 us against torch.compile's 3.48 (graph replay, 1.12x; each process
then added its own launch floor, which could differ by up to 1.3 us, see docs/honesty.md), and
mixtral-8x22b-tp4-prefill-16k level as before, 93.25 against 93.02 us (0.998x).
"""

import torch
import triton
import triton.language as tl

BLOCK = 2048
NUM_WARPS = 8


@triton.jit
def _silu_and_mul_flat(x_ptr, y_ptr, n, d: tl.constexpr, BLOCK: tl.constexpr, IDX64: tl.constexpr):
    pid = tl.program_id(0)
    if IDX64:
        pid = pid.to(tl.int64)
    idx = pid * BLOCK + tl.arange(0, BLOCK)
    mask = idx < n
    row = idx // d
    col = idx - row * d
    src = row * 2 * d + col
    a = tl.load(x_ptr + src, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(x_ptr + src + d, mask=mask, other=0.0).to(tl.float32)
    act = (a / (1.0 + tl.exp(-a))).to(y_ptr.dtype.element_ty).to(tl.float32)
    tl.store(y_ptr + idx, (act * b).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        d = x.shape[-1] // 2
        x2 = x.reshape(-1, 2 * d).contiguous()
        y = torch.empty((x2.shape[0], d), dtype=x.dtype, device=x.device)
        n = y.numel()
        if n > 0:
            grid = triton.cdiv(n, BLOCK)
            _silu_and_mul_flat[(grid,)](x2, y, n, d, BLOCK=BLOCK, IDX64=2 * grid * BLOCK >= 2**31,
                                        num_warps=NUM_WARPS)
        return y.view(*x.shape[:-1], d)
