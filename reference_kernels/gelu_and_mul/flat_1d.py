"""
---
op: gelu_and_mul
strategy: flat-1d-elementwise
techniques: [elementwise, 1d-grid, fp32-compute, masked-tail, index-arithmetic, constexpr-divisor, int32-indexing, sigmoid-form-of-tanh]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK: {values: [512, 1024, 2048, 4096, 8192], default: 2048}
  NUM_WARPS: {values: [2, 4, 8, 16], default: 8}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/vllm/model_executor/layers/activation.py (GeluAndMul)
  - https://arxiv.org/abs/1606.08415 (Hendrycks & Gimpel, GELU and its tanh approximation)
---
silu_and_mul/flat_1d's layout with the GELU(tanh) activation. The output is one flat array of
n_tokens*d elements in BLOCK-sized pieces, one per program, across row boundaries; each element
finds its row and column by dividing by d, a compile-time constant (one compile per width, so the
divide is a multiply and shift), and indexes in 32 bits unless the input needs 64. The activation
uses 0.5 * (1 + tanh(u)) = sigmoid(2u), one exp and one divide, rounded to the storage dtype
before the multiply as the unfused model does.
Why this kernel: on an H100 SXM (2026-12-06, session 37, docs/results/2026-12-06-s37/suite-full-h100/)
both older gelu_and_mul kernels stream at SOL 0.88-0.91 of the datasheet at the four prefill
shapes and sit 2-5 % behind torch.compile there (row_col_grid 0.95-0.96x, rows_per_program_loop
0.95-0.98x), while silu_and_mul/flat_1d, the same memory traffic with a cheaper activation,
reaches SOL 0.93-0.95 and 0.99-1.00x.
Measured on an H100 SXM (2026-12-06, session 38, bf16, GPU correctness passed; `tools/suite_bench.py
--kernels` joined to session 37's baselines, docs/results/2026-12-06-s38/): the four prefill shapes
at SOL 0.92-0.94 and 0.997-1.001x torch.compile (gemma2-9b-prefill-8k 227.23 us against 227.28), so
level with it at the copy ceiling rather than ahead; gemma2-9b-decode-32 3.15 against 3.39 (graph,
1.08x) and gemma2-27b-tp4-decode-256 6.15 against 6.64 (1.08x).
"""

import torch
import triton
import triton.language as tl

BLOCK = 2048
NUM_WARPS = 8


@triton.jit
def _gelu_and_mul_flat(x_ptr, y_ptr, n, d: tl.constexpr, BLOCK: tl.constexpr, IDX64: tl.constexpr):
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
    u = 0.7978845608028654 * (a + 0.044715 * a * a * a)  # sqrt(2/pi) * (a + 0.044715 a^3)
    act = (a / (1.0 + tl.exp(-2.0 * u))).to(y_ptr.dtype.element_ty).to(tl.float32)
    tl.store(y_ptr + idx, (act * b).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        d = x.shape[-1] // 2
        x2 = x.reshape(-1, 2 * d).contiguous()
        y = torch.empty((x2.shape[0], d), dtype=x.dtype, device=x.device)
        n = y.numel()
        if n > 0:
            grid = triton.cdiv(n, BLOCK)
            _gelu_and_mul_flat[(grid,)](x2, y, n, d, BLOCK=BLOCK, IDX64=2 * grid * BLOCK >= 2**31,
                                        num_warps=NUM_WARPS)
        return y.view(*x.shape[:-1], d)
