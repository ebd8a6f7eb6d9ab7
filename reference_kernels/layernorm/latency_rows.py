"""
---
op: layernorm
strategy: latency-first-row-tile
techniques: [multi-row-per-program, whole-row-in-registers, loads-hoisted, unmasked-even-path, int32-indexing, warps-from-row-length, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  XBLOCK: {values: [1, 2, 4, 8], default: 1}
  ELEMS_PER_THREAD: {values: [4, 8, 16, 32], default: 8}
points:   # the best measured at a shape (H100, session 45: the docstring's end)
  - {XBLOCK: 4, ELEMS_PER_THREAD: 32, shapes: [clip-vit-l14-336-batch-32]}
requires: []
sources:
  - https://github.com/pytorch/pytorch/blob/main/torch/_inductor/runtime/triton_heuristics.py (persistent_reduction: XBLOCK rows, whole row per program)
  - https://triton-lang.org/main/getting-started/tutorials/05-layer-norm.html
---
Each program normalizes XBLOCK whole rows held in registers (a [XBLOCK, next_pow2(hidden)] tile).
It issues the loads of x, weight and bias back to back before any arithmetic, so the critical path
is one DRAM round trip, two row reductions (mean, then the centered variance) and the store; it
multiplies by a precomputed 1/hidden, uses rsqrt, drops every mask when hidden is a power of two and
XBLOCK divides the rows, and uses 32-bit offsets when the tensor is small enough. The warp count
follows from the tile as in Inductor's persistent reduction (XBLOCK*next_pow2(hidden) /
(32*ELEMS_PER_THREAD), clamped to 1..16). XBLOCK 1-2 for decode and long rows; XBLOCK 4-8 for
short rows (hidden 768-1280, e.g. vision towers) where one row is too little work per program.
Measured by the harness on one H200 (2026-12-04): the fastest of the five kernels at three shapes
where it still trails torch.compile: clip-vit-l14-336-batch-32 21.8 us against 20.8 (events, 0.95x),
gptj-6b-decode-256 4.49 against 4.38 (graph replay, 0.98x) and phi-2-decode-32 3.49 against 3.18
(graph replay, 0.91x) (docs/results/h200-2026-12-04-suites/llm-inference.json). It has not been
profiled with Nsight Compute at these shapes yet.
Its declared point: at clip-vit-l14-336-batch-32, XBLOCK 4 with ELEMS_PER_THREAD 32 (four 1024-wide
rows a program on 4 warps) took 24.48 us in a focused trial of session 45's tuner on an H100 SXM,
1.029x the incumbent's 25.18 us there and 1.027x torch.compile's 25.14 (docs/results/2026-12-07-s45/
s45b, the layernorm session's journal). In session 46's run on the same card the tuner's 10
candidates never reached that point, and the shape stayed at 0.99x; declared, it is tried first.
"""

import torch
import triton
import triton.language as tl

XBLOCK = 1
ELEMS_PER_THREAD = 8


@triton.jit
def _layernorm_rows(x_ptr, w_ptr, b_ptr, y_ptr, n_rows, n_cols, eps, inv_n,
                    XBLOCK: tl.constexpr, BLOCK: tl.constexpr, EVEN: tl.constexpr, IDX64: tl.constexpr):
    pid = tl.program_id(0)
    if IDX64:
        pid = pid.to(tl.int64)
    rows = pid * XBLOCK + tl.arange(0, XBLOCK)
    cols = tl.arange(0, BLOCK)
    offs = rows[:, None] * n_cols + cols[None, :]
    if EVEN:
        x = tl.load(x_ptr + offs)
        w = tl.load(w_ptr + cols)
        b = tl.load(b_ptr + cols)
    else:
        cmask = cols < n_cols
        mask = (rows[:, None] < n_rows) & cmask[None, :]
        x = tl.load(x_ptr + offs, mask=mask, other=0.0)
        w = tl.load(w_ptr + cols, mask=cmask, other=0.0)
        b = tl.load(b_ptr + cols, mask=cmask, other=0.0)
    xf = x.to(tl.float32)
    mean = tl.sum(xf, axis=1) * inv_n
    xc = xf - mean[:, None]
    if not EVEN:
        xc = tl.where(cmask[None, :], xc, 0.0)
    rstd = tl.rsqrt(tl.sum(xc * xc, axis=1) * inv_n + eps)
    y = (xc * rstd[:, None] * w.to(tl.float32)[None, :] + b.to(tl.float32)[None, :]).to(y_ptr.dtype.element_ty)
    if EVEN:
        tl.store(y_ptr + offs, y)
    else:
        tl.store(y_ptr + offs, y, mask=mask)


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
        n_rows = x2.shape[0]
        if n_rows > 0:
            block = triton.next_power_of_2(hidden)
            n_prog = triton.cdiv(n_rows, XBLOCK)
            warps = max(1, min(16, triton.next_power_of_2(max(1, XBLOCK * block // (32 * ELEMS_PER_THREAD)))))
            _layernorm_rows[(n_prog,)](
                x2, self.weight, self.bias, y, n_rows, hidden, self.eps, 1.0 / hidden,
                XBLOCK=XBLOCK, BLOCK=block, EVEN=(block == hidden and n_rows % XBLOCK == 0),
                IDX64=(n_prog * XBLOCK * hidden >= 2**31), num_warps=warps,
            )
        return y.view(x.shape)
