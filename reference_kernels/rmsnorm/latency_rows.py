"""
---
op: rmsnorm
strategy: latency-first-row-tile
techniques: [whole-row-in-registers, loads-hoisted, unmasked-even-path, int32-indexing, warps-from-row-length, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  XBLOCK: {values: [1, 2, 4], default: 1}
  ELEMS_PER_THREAD: {values: [4, 8, 16, 32], default: 8}
requires: []
sources:
  - https://github.com/pytorch/pytorch/blob/main/torch/_inductor/runtime/triton_heuristics.py (persistent_reduction: XBLOCK rows, whole row per program)
---
Built for decode (1-256 rows), where a launch costs more than the bytes: the critical path of a
program is one DRAM round trip, one reduction and one store. The program issues the loads of its
XBLOCK rows and of the weight back to back before any arithmetic (the weight does not wait behind the
reduction), multiplies by a precomputed 1/hidden, uses rsqrt, drops every mask when hidden is a power
of two and XBLOCK divides the rows (the common decode shapes), and uses 32-bit offsets when the
tensor is small enough. The warp count is derived from the tile, as Inductor does for a persistent
reduction: XBLOCK*next_pow2(hidden)/(32*ELEMS_PER_THREAD), clamped to 1..16 (fewer warps = cheaper
cross-warp reduction, more warps = more loads in flight).
Measured by the harness on one H200 (2026-12-04): the fastest of the six kernels at two shapes where
it still trails torch.compile: llama3-70b-prefill-4k 34.2 us against 33.5 (events, 0.98x) and
llama3-8b-decode-32 2.93 against 2.67 (graph replay, 0.91x)
(docs/results/h200-2026-12-04-suites/llm-inference.json). It has not been profiled with Nsight
Compute at these shapes yet.
"""

import torch
import triton
import triton.language as tl

XBLOCK = 1
ELEMS_PER_THREAD = 8


@triton.jit
def _rmsnorm_rows(x_ptr, w_ptr, y_ptr, n_rows, n_cols, x_stride, y_stride, eps, inv_n,
                  XBLOCK: tl.constexpr, BLOCK: tl.constexpr, EVEN: tl.constexpr, IDX64: tl.constexpr):
    pid = tl.program_id(0)
    if IDX64:
        pid = pid.to(tl.int64)
    rows = pid * XBLOCK + tl.arange(0, XBLOCK)
    cols = tl.arange(0, BLOCK)
    x_offs = rows[:, None] * x_stride + cols[None, :]
    y_offs = rows[:, None] * y_stride + cols[None, :]
    if EVEN:
        x = tl.load(x_ptr + x_offs)
        w = tl.load(w_ptr + cols)
    else:
        cmask = cols < n_cols
        mask = (rows[:, None] < n_rows) & cmask[None, :]
        x = tl.load(x_ptr + x_offs, mask=mask, other=0.0)
        w = tl.load(w_ptr + cols, mask=cmask, other=0.0)
    xf = x.to(tl.float32)
    inv_rms = tl.rsqrt(tl.sum(xf * xf, axis=1) * inv_n + eps)
    xn = (xf * inv_rms[:, None]).to(y_ptr.dtype.element_ty).to(tl.float32)
    y = (xn * w.to(tl.float32)[None, :]).to(y_ptr.dtype.element_ty)
    if EVEN:
        tl.store(y_ptr + y_offs, y)
    else:
        tl.store(y_ptr + y_offs, y, mask=mask)


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
            block = triton.next_power_of_2(hidden)
            n_prog = triton.cdiv(n_rows, XBLOCK)
            warps = max(1, min(16, triton.next_power_of_2(max(1, XBLOCK * block // (32 * ELEMS_PER_THREAD)))))
            _rmsnorm_rows[(n_prog,)](
                x2, self.weight, y, n_rows, hidden, x2.stride(0), y.stride(0), self.eps, 1.0 / hidden,
                XBLOCK=XBLOCK, BLOCK=block, EVEN=(block == hidden and n_rows % XBLOCK == 0),
                IDX64=(n_prog * XBLOCK * max(x2.stride(0), hidden) >= 2**31), num_warps=warps,
            )
        return y.view(x.shape)
