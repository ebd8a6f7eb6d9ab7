"""
---
op: softmax
strategy: latency-first-row-tile
techniques: [whole-row-in-registers, multi-row-per-program, unmasked-even-path, int32-indexing, exp2, warps-from-row-length, fp32-accumulate, masked-tail, online-softmax-fallback]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  XBLOCK: {values: [1, 2, 4, 8], default: 1}
  ELEMS_PER_THREAD: {values: [4, 8, 16, 32], default: 16}
requires: []
sources:
  - https://github.com/pytorch/pytorch/blob/main/torch/_inductor/runtime/triton_heuristics.py (persistent_reduction: XBLOCK rows, whole row per program)
  - https://triton-lang.org/main/getting-started/tutorials/02-fused-softmax.html
---
Each program holds XBLOCK whole rows in registers (rows up to 16384 columns): one load, row max,
exp2 of the scaled difference, row sum, one multiply by the reciprocal, one store. No masks at all
when the row length is a power of two and XBLOCK divides the rows (attention-score shapes), 32-bit
offsets when the tensor is below 2^31 elements, and a warp count derived from the tile as in
Inductor's persistent reduction (XBLOCK*next_pow2(n_cols)/(32*ELEMS_PER_THREAD), clamped to 1..16).
XBLOCK 1 with few elements per thread for decode latency, larger XBLOCK for short rows. Rows longer
than 16384 (vocabulary softmax) would spill, so they take a one-program-per-row online softmax
(running max and sum over 4096-column chunks, then a second pass that writes) instead.
"""

import torch
import triton
import triton.language as tl

XBLOCK = 1
ELEMS_PER_THREAD = 16
MAX_REGISTER_ROW = 16384
CHUNK = 4096


@triton.jit
def _softmax_rows(x_ptr, y_ptr, n_rows, n_cols, XBLOCK: tl.constexpr, BLOCK: tl.constexpr,
                  EVEN: tl.constexpr, IDX64: tl.constexpr):
    pid = tl.program_id(0)
    if IDX64:
        pid = pid.to(tl.int64)
    rows = pid * XBLOCK + tl.arange(0, XBLOCK)
    cols = tl.arange(0, BLOCK)
    offs = rows[:, None] * n_cols + cols[None, :]
    if EVEN:
        x = tl.load(x_ptr + offs).to(tl.float32)
    else:
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        x = tl.load(x_ptr + offs, mask=mask, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=1)
    if not EVEN:
        m = tl.where(rows < n_rows, m, 0.0)
    e = tl.exp2((x - m[:, None]) * 1.4426950408889634)
    y = e * (1.0 / tl.sum(e, axis=1))[:, None]
    if EVEN:
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty))
    else:
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _softmax_online_row(x_ptr, y_ptr, n_cols, CHUNK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    xr = x_ptr + row * n_cols
    yr = y_ptr + row * n_cols
    cols = tl.arange(0, CHUNK)
    m_vec = tl.full((CHUNK,), -float("inf"), tl.float32)
    s_vec = tl.zeros((CHUNK,), tl.float32)
    for c0 in range(0, n_cols, CHUNK):
        mask = c0 + cols < n_cols
        x = tl.load(xr + c0 + cols, mask=mask, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m_vec, x)
        m_safe = tl.where(m_new == -float("inf"), 0.0, m_new)
        s_vec = s_vec * tl.exp2((m_vec - m_safe) * 1.4426950408889634) + tl.exp2((x - m_safe) * 1.4426950408889634)
        m_vec = m_new
    m = tl.max(m_vec, axis=0)
    s = tl.sum(tl.where(m_vec == -float("inf"), 0.0, s_vec * tl.exp2((m_vec - m) * 1.4426950408889634)), axis=0)
    inv = 1.0 / s
    for c0 in range(0, n_cols, CHUNK):
        mask = c0 + cols < n_cols
        x = tl.load(xr + c0 + cols, mask=mask, other=-float("inf")).to(tl.float32)
        tl.store(yr + c0 + cols, (tl.exp2((x - m) * 1.4426950408889634) * inv).to(y_ptr.dtype.element_ty),
                 mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        y = torch.empty_like(x2)
        n_rows = x2.shape[0]
        if n_rows > 0 and n_cols > 0:
            block = triton.next_power_of_2(n_cols)
            if block <= MAX_REGISTER_ROW:
                n_prog = triton.cdiv(n_rows, XBLOCK)
                warps = max(1, min(16, triton.next_power_of_2(max(1, XBLOCK * block // (32 * ELEMS_PER_THREAD)))))
                _softmax_rows[(n_prog,)](
                    x2, y, n_rows, n_cols, XBLOCK=XBLOCK, BLOCK=block,
                    EVEN=(block == n_cols and n_rows % XBLOCK == 0),
                    IDX64=(n_prog * XBLOCK * n_cols >= 2**31), num_warps=warps,
                )
            else:
                _softmax_online_row[(n_rows,)](x2, y, n_cols, CHUNK=CHUNK, num_warps=16)
        return y.view(x.shape)
